"""The inputs of `score impact` on a classic (BEIR/TREC) benchmark, and the one adapter
to the trec_eval measure engine.

Qrels come from any classic form (BEIR qrels.tsv, TREC, JSONL) or a project: before =
the project's original grades, after = the revised original-scale qrels that `finalize`
computes with its defaults (recomputed here, nothing written), unless a file is given.
Runs come from files or, when none is given, from the project's stored runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError
from vocabulary.runspec import RunSpec, claim_run_name

QrelRows = list[tuple[str, str, int]]
RunRows = list[tuple[str, str, float]]


def _parsed(spec: Sequence[str]) -> Any:
    from scorers.trec_measures import parse_measures

    try:
        return parse_measures(spec)
    except ValueError as exc:
        raise InputError(str(exc), hint="e.g. --measure ndcg_cut_10,P_10,map,recall_100") from None


def measure_names(spec: Sequence[str]) -> list[str]:
    """The engine's names of the measures `spec` asks for (a bad name is an InputError)."""
    return [m.name for m in _parsed(spec)]


def measure_values(
    spec: Sequence[str], qrels: QrelRows, runs: Mapping[str, Iterable[tuple[str, str, float]]],
    ties: str, queries: set[str] | None = None,
) -> tuple[list[str], dict[str, dict[str, dict[str, float]]]]:  # fmt: skip
    """THE adapter to the measure engine: (measure names, run -> query -> measure -> value).

    Every per-query value of the classic impact analysis comes through here (the engine's
    `parse_measures` and `score_run`); a bad measure name is an InputError."""
    from scorers.trec_measures import score_run

    ms = _parsed(spec)
    out = {
        tag: score_run(qrels, rows, ms, ties=ties, queries=queries).per_query  # type: ignore[arg-type]
        for tag, rows in runs.items()
    }
    return [m.name for m in ms], out


def project_before(project: Path) -> QrelRows:
    """A classic project's original grades (an n-Clue project's stored qrels)."""
    from services.score_trec import project_graded

    f = project_graded(project)
    return [(str(q), str(d), int(g)) for q, d, g in zip(f["query_id"], f["doc_id"], f["grade"], strict=True)]  # fmt: skip


def project_after(project: Path) -> QrelRows:
    """The revised qrels `evaudit finalize P --out DIR` writes (its defaults), on the
    project's original grade scale, recomputed from the campaign's files."""
    from audit_chain.finalize_io import compute
    from audit_chain.grade_scale import classic_scale
    from campaign.project import open_project

    proj = open_project(project)
    classic = classic_scale(proj, None)
    try:
        result, _inputs, _used = compute(proj)
        rows = classic.apply(result["qrels"])[0] if classic is not None else result["qrels"]
    except InputError as exc:
        raise InputError(
            f"cannot recompute the revision with finalize's defaults: {exc.message}",
            file=exc.file,
            line=exc.line,
            hint="pass --qrels-after with the qrels.tsv / qrels.txt that `evaudit finalize` wrote",
        ) from None
    return [(str(r["query_id"]), str(r["doc_id"]), int(r["grade"])) for r in rows]


def is_classic(project: Path) -> bool:
    """A BEIR/TREC project (it keeps an original grade scale)."""
    from formats.classic import stored_scale
    from services.score_inputs import store_path

    return stored_scale(store_path(project)) is not None


def run_files(runs: Sequence[RunSpec]) -> dict[str, RunRows]:
    from formats.readers import read_run

    out: dict[str, RunRows] = {}
    seen: dict[str, Path] = {}
    for name, path in runs:
        df = read_run(path)
        tag = name or str(df["tag"].iloc[0])
        claim_run_name(seen, tag, path)
        cols = (df["query_id"].tolist(), df["doc_id"].tolist(), df["score"].tolist())
        out[tag] = list(zip(*cols, strict=True))
    return out


def project_runs(project: Path) -> dict[str, RunRows]:
    """The runs `load --run NAME=FILE` stored in the project."""
    from campaign import store
    from services.score_inputs import store_path

    with store.connect(store_path(project), read_only=True) as con:
        names = store.run_names(con)
        out = {
            n: [(str(q), str(d), float(s)) for q, d, s in store.run_scores(con, n)] for n in names
        }
    if not out:
        raise InputError("the project has no runs", file=project,
                         hint="pass --run NAME=FILE, or load runs with `evaudit load --run`")  # fmt: skip
    return out


def query_filter(queries: Path | None) -> set[str] | None:
    if queries is None:
        return None
    from formats.queries import read_query_ids

    return read_query_ids(queries)


def _qrels(
    path: Path | None, project: Path | None, of_project: Callable[[Path], QrelRows],
    project_note: str, missing: str, option: str,
) -> tuple[QrelRows, str]:  # fmt: skip
    """(qrels, their source): the file when given, else the project's (`of_project`)."""
    if path is not None:
        from formats.qrels import graded_qrels_rows

        return graded_qrels_rows(path), str(path)
    if project is not None:
        return of_project(project), f"{project} ({project_note})"
    raise InputError(missing, hint=f"pass {option} FILE (or --project DIR)")


def inputs(
    *, project: Path | None, qrels_before: Path | None, qrels_after: Path | None,
    runs: Sequence[RunSpec],
) -> tuple[QrelRows, QrelRows, dict[str, RunRows], dict[str, Any]]:  # fmt: skip
    """(before, after, runs, sources) for the classic impact analysis."""
    before, src_b = _qrels(qrels_before, project, project_before, "original grades",
                           "no qrels before", "--qrels-before")  # fmt: skip
    after, src_a = _qrels(qrels_after, project, project_after,
                          "revision, as finalize computes it", "no revised qrels",
                          "--qrels-after")  # fmt: skip
    if runs:
        scored = run_files(runs)
    elif project is not None:
        scored = project_runs(project)
    else:
        raise InputError("no runs given", hint="pass --run NAME=FILE")
    return before, after, scored, {"before": src_b, "after": src_a}
