"""Golden outputs of the documented command lines, replayed byte for byte.

Issue #27 moved the work of `init`, `ingest`, `load`, `status`, `check`, `gate`, the
`packet`, `queries`, `journal`, `override`, `reproduce`, `fetch` and `orbit calibrate`
commands into services. Their output (stdout, stderr, exit code; text and --json, and
the documented error cases) was captured before the move into tests/golden/ and must
stay the same. The `runs`, `score`, `trec_eval`, `rop` and `orbit analyze` cases were
captured right after their move (checked then against captures of the tree before it). Each case runs, in order, on one fresh copy of the bundled sample project
(sample_packets/), so later cases see what earlier ones wrote, as a user's session does.

Only volatile parts are masked: the temporary folder, the repository path, timestamps, a
generated password and the packet hashes that contain a creation time. Run with
EVAUDIT_UPDATE_GOLDEN=1 to rewrite the files (then review the diff).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaudit.cli import cli

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_packets"
GOLDEN = Path(__file__).resolve().parent / "golden"
RUNS = sorted((SAMPLE / "runs").glob("*.trec"))
PW = "sample-password-1"


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]  # "{P}" the project, "{T}" scratch, "{S}" sample_packets, "{R}" repo


def c(name: str, *argv: str) -> Case:
    return Case(name, argv)


LOAD = ("load", "{P}", "--queries", "{S}/queries.jsonl", "--qrels", "{S}/qrels.txt",
        "--evidence", "{S}/evidence.jsonl",
        *[a for f in RUNS for a in ("--run", f"{f.stem}={{S}}/runs/{f.name}")])  # fmt: skip
CALIBRATE = ("orbit", "calibrate", "{P}", "--target", "0.9", "--depth", "50,100,200",
             "--k1", "0.6,0.8,1.2", "--b", "0.2,0.4,0.75")  # fmt: skip

# fmt: off
CASES: list[Case] = [
    # init (README, docs/formats.md, docs/deploy.md)
    c("init_weak_password", "init", "{T}/weak", "--admin-password", "short"),
    c("init_bad_journal", "init", "{T}/badj", "--journal", "mysql://u@h/db"),
    c("init_unreachable_journal", "init", "{T}/nopg", "--journal",
      "postgresql://nobody@127.0.0.1:9/none"),
    c("init_generated", "init", "{T}/gen"),
    c("init_generated_json", "init", "{T}/gen_json", "--json"),
    c("init_json", "init", "{T}/other", "--admin-password", PW, "--json"),
    c("init", "init", "{P}", "--admin-password", PW),
    c("init_again", "init", "{P}", "--admin-password", PW),
    c("status_empty", "status", "{P}"),
    # ingest (README, docs/workflow.md)
    c("ingest_missing_pages", "ingest", "{P}", "--pages", "{T}/missing.jsonl"),
    c("ingest_missing_pages_json", "ingest", "{P}", "--pages", "{T}/missing.jsonl", "--json"),
    c("ingest", "ingest", "{P}", "--pdf-dir", "{S}/pdfs", "--workers", "2"),
    c("ingest_unchanged_json", "ingest", "{P}", "--pdf-dir", "{S}/pdfs", "--workers", "2",
      "--json"),
    # load, status, check, gate
    c("load_bad_run", "load", "{P}", "--run", "nofile"),
    c("load_run_twice", "load", "{P}", "--run", "a={S}/runs/rrf.trec", "--run",
      "a={S}/runs/rrf.trec"),
    c("load", *LOAD),
    c("load_json", *LOAD, "--json"),
    c("status", "status", "{P}"),
    c("status_json", "status", "{P}", "--json"),
    c("check", "check", "{P}"),
    c("check_json", "check", "{P}", "--json"),
    c("check_strict", "check", "{P}", "--strict"),
    c("check_cross_page", "check", "{P}", "--require-cross-page"),
    c("check_cross_page_strict_json", "check", "{P}", "--require-cross-page", "--strict",
      "--json"),
    c("gate", "gate", "{P}", "--min-rate", "0.98"),
    c("gate_json", "gate", "{P}", "--min-rate", "0.98", "--json"),
    c("gate_log_empty", "gate", "{P}", "--log"),
    c("gate_apply", "gate", "{P}", "--min-rate", "0.98", "--apply"),
    c("gate_log", "gate", "{P}", "--log"),
    c("gate_log_json", "gate", "{P}", "--log", "--json"),
    # packets (docs/packets.md)
    c("packet_list_empty", "packet", "list", "{P}"),
    c("packet_build", "packet", "build", "{P}", "--name", "initial", "--seed", "7",
      "--total", "12"),
    c("packet_list", "packet", "list", "{P}"),
    c("packet_list_json", "packet", "list", "{P}", "--json"),
    c("packet_check", "packet", "check", "{P}", "initial"),
    c("packet_check_json", "packet", "check", "{P}", "initial", "--json"),
    c("packet_check_unknown", "packet", "check", "{P}", "nosuch"),
    c("packet_stats", "packet", "stats", "{P}", "initial"),
    c("packet_stats_json", "packet", "stats", "{P}", "initial", "--json"),
    c("packet_stats_unknown", "packet", "stats", "{P}", "nosuch"),
    c("packet_recall", "packet", "recall", "{P}", "initial"),
    c("packet_recall_all_json", "packet", "recall", "{P}", "initial", "--scope",
      "all-positives", "--json"),
    c("packet_export", "packet", "export", "{P}", "initial", "--out", "{T}/initial.json"),
    c("packet_export_json", "packet", "export", "{P}", "initial", "--out",
      "{T}/initial2.json", "--json"),
    c("packet_export_html", "packet", "export", "{P}", "initial", "--format", "html",
      "--annotator", "A", "--out", "{T}/A.html"),
    c("packet_export_unknown", "packet", "export", "{P}", "nosuch", "--out", "{T}/x.json"),
    # the audit chain before any response: errors and the raters view
    c("raters", "raters", "{P}", "initial"),
    c("raters_json", "raters", "{P}", "initial", "--json"),
    c("agreement_audit_no_responses", "agreement", "audit", "{P}", "initial"),
    c("integrity_no_responses", "integrity", "{P}", "initial"),
    c("repair_plan_no_responses", "repair", "plan", "{P}", "initial"),
    c("override_bad_page", "override", "{P}", "initial", "nosuch", "C1", "--answer", "yes",
      "--reason", "r", "--page", "x", "--quote", "some words here to quote"),
    c("finalize_manifest_outside", "finalize", "{P}", "--out", "{P}/final",
      "--manifest-out", "{T}/elsewhere/m.json"),
    # queries (README, docs/runs.md)
    c("queries_render", "queries", "render", "--queries", "{S}/queries.jsonl", "--form",
      "clean_v2", "--out", "{T}/clean_v2.jsonl"),
    c("queries_render_json", "queries", "render", "--queries", "{S}/queries.jsonl",
      "--form", "natural", "--out", "{T}/natural.jsonl", "--json"),
    c("queries_render_onto_itself", "queries", "render", "--queries", "{T}/natural.jsonl",
      "--form", "raw", "--out", "{T}/natural.jsonl"),
    c("queries_check", "queries", "check", "--queries", "{S}/queries.jsonl"),
    c("queries_check_json", "queries", "check", "--queries", "{S}/queries.jsonl", "--json"),
    c("queries_check_file", "queries", "check", "--queries", "{S}/queries.jsonl",
      "--form", "raw", "--file", "nat={T}/natural.jsonl"),
    c("queries_check_bad_file", "queries", "check", "--queries", "{S}/queries.jsonl",
      "--file", "nonamefile"),
    c("queries_check_other_ids", "queries", "check", "--queries", "{T}/one_query.jsonl",
      "--file", "all={S}/queries.jsonl"),
    c("queries_show", "queries", "show", "{P}", "q001"),
    c("queries_show_json", "queries", "show", "{P}", "q001", "--json"),
    c("queries_show_unknown", "queries", "show", "{P}", "J001"),
    # journal (docs/deploy.md): a file project
    c("journal_verify_files", "journal", "verify", "{P}"),
    c("journal_migrate_bad_target", "journal", "migrate", "{P}", "--to", "mysql://x"),
    c("journal_migrate_to_file", "journal", "migrate", "{P}", "--to", "file"),
    # fetch (README): a manifest whose rows cannot be fetched
    c("fetch_refused_rows", "fetch", "{P}", "--manifest", "{T}/corpus.manifest.jsonl",
      "--out", "{T}/pdfs", "--attempts", "1"),
    c("fetch_refused_rows_json", "fetch", "{P}", "--manifest", "{T}/corpus.manifest.jsonl",
      "--out", "{T}/pdfs", "--attempts", "1", "--json"),
    # orbit calibrate (README, docs/orbit.md)
    c("orbit_calibrate", *CALIBRATE),
    c("orbit_calibrate_json", *CALIBRATE, "--json"),
    # reproduce (README, docs/runs.md)
    c("reproduce_both_flags", "reproduce", "{T}/rel/MANIFEST.json", "--verify", "--record"),
    c("reproduce_record", "reproduce", "{T}/rel/MANIFEST.json", "--record"),
    c("reproduce_verify", "reproduce", "{T}/rel/MANIFEST.json", "--verify"),
    c("reproduce_verify_json", "reproduce", "{T}/rel/MANIFEST.json", "--verify", "--json"),
    c("reproduce_flipped", "reproduce", "{T}/rel/MANIFEST.json", "--verify", "@flip"),
    c("reproduce_missing_input", "reproduce", "{T}/rel2/MANIFEST.json", "--record"),
    # runs and scoring (README, docs/runs.md, docs/scoring.md, docs/rop.md, docs/orbit.md):
    # captured right after #27 moved them into services, a move whose outputs were
    # compared before and after on the same commands
    c("runs_bm25", "runs", "bm25", "{P}", "--level", "document", "--form", "raw", "--out",
      "{T}/bm25.trec"),
    c("runs_bm25_page_json", "runs", "bm25", "{P}", "--level", "page", "--form", "clean_v2",
      "--out", "{T}/bm25_page.trec", "--json"),
    c("runs_floor", "runs", "floor", "{P}", "--kind", "frequency", "--out",
      "{T}/frequency.trec"),
    c("runs_floor_random_json", "runs", "floor", "{P}", "--kind", "random", "--seed", "7",
      "--out", "{T}/random.trec", "--json"),
    c("runs_fuse", "runs", "fuse", "--method", "rrf", "--k", "60", "--depth", "100", "--run",
      "{S}/runs/bm25_doc.trec", "--run", "{S}/runs/bm25_and.trec", "--out", "{T}/rrf.trec"),
    c("runs_fuse_one_run", "runs", "fuse", "--run", "{S}/runs/rrf.trec", "--out",
      "{T}/one.trec"),
    c("score_nclue", "score", "nclue", "--queries", "{S}/queries.jsonl", "--qrels",
      "{S}/qrels.txt", "--run", "{S}/runs/rrf.trec", "--run", "{S}/runs/bm25_doc.trec"),
    c("score_nclue_json", "score", "nclue", "--queries", "{S}/queries.jsonl", "--qrels",
      "{S}/qrels.txt", "--run", "{S}/runs/rrf.trec", "--run", "{S}/runs/bm25_doc.trec",
      "--json"),
    c("score_trec", "score", "trec", "--qrels", "{S}/qrels.txt", "--run",
      "rrf={S}/runs/rrf.trec", "--measure", "ndcg_cut_10,P_10,map,recall_100"),
    c("score_trec_json", "score", "trec", "--qrels", "{S}/qrels.txt", "--run",
      "rrf={S}/runs/rrf.trec", "--run", "{S}/runs/bm25_doc.trec", "--measure",
      "ndcg_cut_10,map", "--judged-only", "--json"),
    c("score_trec_bad_measure", "score", "trec", "--qrels", "{S}/qrels.txt", "--run",
      "{S}/runs/rrf.trec", "--measure", "P.5,x"),
    c("trec_eval_all_trec", "trec_eval", "-m", "all_trec", "{S}/qrels.txt",
      "{S}/runs/rrf.trec"),
    c("trec_eval_q", "trec_eval", "-q", "-m", "P.5,10", "-m", "ndcg_cut.10", "-c",
      "{S}/qrels.txt", "{S}/runs/bm25_doc.trec"),
    c("trec_eval_missing_qrels", "trec_eval", "{T}/none.txt", "{S}/runs/rrf.trec"),
    c("rop_evaluate_json", "rop", "evaluate",
      "{R}/examples/rop/hard-fixture/declaration.json", "--json"),
    c("orbit_analyze", "orbit", "analyze", "{R}/examples/orbit/orbit_example.csv", "--base",
      "BM25", "--variant", "BGE", "--format", "text"),
]
# fmt: on


def _prepare(tmp: Path) -> None:
    """A fresh copy of the sample project, and the scratch inputs the error cases and
    `reproduce` read."""
    shutil.copytree(SAMPLE, tmp / "S", ignore=shutil.ignore_patterns("construction", "*.py"))
    first = (SAMPLE / "queries.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (tmp / "one_query.jsonl").write_text(first + "\n", encoding="utf-8")
    rows = [{"doc_id": "calc", "url": "ftp://example.invalid/calc.pdf", "sha256": "0" * 64},
            {"doc_id": "float", "url": "file:///etc/passwd", "sha256": "1" * 64}]  # fmt: skip
    (tmp / "corpus.manifest.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    for rel, inputs in (("rel", ["queries.jsonl"]), ("rel2", ["queries.jsonl", "absent.txt"])):
        root = tmp / rel
        root.mkdir()
        shutil.copyfile(SAMPLE / "queries.jsonl", root / "queries.jsonl")
        argv = ["evaudit", "queries", "render", "--queries", "queries.jsonl", "--form", "clean_v2",
                "--out", "out/clean_v2.jsonl"]  # fmt: skip
        manifest = {"version": 1, "inputs": [{"path": p} for p in inputs],
                    "commands": [{"argv": argv}],
                    "outputs": [{"path": "out/clean_v2.jsonl"}]}  # fmt: skip
        (root / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")


_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
_PASSWORD = re.compile(r"(admin password \(shown once, stored hashed\): |\"admin_password\": \")"
                       r"[^\s\"]+")  # fmt: skip


def _mask(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "<TMP>").replace(str(REPO), "<REPO>")
    text = _TIME.sub("<TIME>", text)
    text = _PASSWORD.sub(r"\1<PASSWORD>", text)
    return text


def _run(case: Case, tmp: Path) -> str:
    proj = tmp / "proj"
    argv = [a.format(P=proj, T=tmp, S=tmp / "S", R=REPO) for a in case.argv if a != "@flip"]
    if "@flip" in case.argv:  # one byte of the release's output changed
        out = tmp / "rel" / "out" / "clean_v2.jsonl"
        data = bytearray(out.read_bytes())
        data[0] ^= 1
        out.write_bytes(bytes(data))
    result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    return _mask(
        f"exit {result.exit_code}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}", tmp
    )


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A scratch folder whose path has the same length on every run: paths are masked,
    but a table's column widths depend on their length."""
    root = Path(tempfile.mkdtemp(prefix="evgold", dir="/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_golden_outputs(scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path = scratch
    monkeypatch.delenv("EVAUDIT_ADMIN_PASSWORD", raising=False)
    monkeypatch.delenv("EVAUDIT_JOURNAL_URL", raising=False)
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "2")
    _prepare(tmp_path)
    update = os.environ.get("EVAUDIT_UPDATE_GOLDEN") == "1"
    GOLDEN.mkdir(exist_ok=True)
    differ = []
    for case in CASES:
        got = _run(case, tmp_path)
        path = GOLDEN / f"{case.name}.txt"
        if update:
            path.write_text(got, encoding="utf-8")
        elif path.read_text(encoding="utf-8") != got:
            differ.append(f"{case.name}:\n{got}")
    assert not differ, "output changed:\n" + "\n".join(differ)


def test_every_golden_file_has_a_case() -> None:
    names = {case.name for case in CASES}
    assert len(names) == len(CASES)
    assert {p.stem for p in GOLDEN.glob("*.txt")} == names
