"""Challenge stages sized by design: `--max-targets` (seeded, stratified by contrast
reduction), the packet's size and expected time before it is written, `--max-packet-mb`."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from campaign.project import open_project
from packet_builder.challenge import Promotion, cap_targets
from packet_builder.sampling import proportional, salt_for, salted_hash
from services.build import BuildSpec, PacketPlan, build_packet
from tests.conftest import run_cli
from tests.test_packet_fixtures import make_project

CHALLENGE = ("--kind", "challenge", "--base", "base", "--variant", "variant", "--k", "3")
CHALLENGE += ("--controls", "2", "--qrels-from", "loaded")


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("size"))


def _files(root: Path) -> list[str]:
    return sorted(p.name for d in ("packets", "keys") for p in (root / d).iterdir())


def _build(root: Path, *args: Any, expect: int = 0) -> Any:
    res = run_cli("packet", "build", root, *args, "--json", expect=expect)
    return json.loads(res.stdout) if expect == 0 else res


def _targets(root: Path, name: str) -> set[tuple[str, str]]:
    key = json.loads((root / "keys" / f"{name}.key.json").read_text())
    return {(v["query_id"], v["doc_id"]) for v in key["items"].values() if v["status"] == "target"}


def _promos(deltas: list[float]) -> list[Promotion]:
    return [Promotion(f"q{i:02d}", f"d{i:02d}", 1, 0.5, 0.5 + d) for i, d in enumerate(deltas)]


def test_cap_targets_stratified_as_stated() -> None:
    # ten targets, reductions 0.10 .. 0.01: bands of 3, 3, 2, 2 (largest reductions first)
    promos = _promos([-0.01 * (i + 1) for i in range(10)])
    salt = salt_for(5)
    kept, bands = cap_targets(promos, 5, salt)
    assert [(b.targets, b.taken) for b in bands] == [(3, 2), (3, 1), (2, 1), (2, 1)]
    # the allocation is the largest-remainder share: 1.5, 1.5, 1, 1 -> the tie goes first
    assert proportional({("a",): 3, ("b",): 3, ("c",): 2, ("d",): 2}, 5) == {
        ("a",): 2,
        ("b",): 1,
        ("c",): 1,
        ("d",): 1,
    }
    ranked = sorted(promos, key=lambda p: p.delta)
    by_band = [ranked[0:3], ranked[3:6], ranked[6:8], ranked[8:10]]
    want: set[str] = set()
    for band, take in zip(by_band, (2, 1, 1, 1), strict=True):
        lowest = sorted(band, key=lambda p: salted_hash(salt, "target", p.query_id, p.doc_id))
        want |= {p.doc_id for p in lowest[:take]}
    assert {p.doc_id for p in kept} == want
    assert [p.doc_id for p in kept] == [p.doc_id for p in promos if p.doc_id in want]
    assert bands[0].reduction_max == pytest.approx(0.10) and bands[3].reduction_min == (
        pytest.approx(0.01)
    )
    # reproducible by seed; another seed takes other targets within the same bands
    assert cap_targets(promos, 5, salt)[0] == kept
    others = [{p.doc_id for p in cap_targets(promos, 5, salt_for(s))[0]} for s in range(6)]
    assert len({frozenset(o) for o in others}) > 1
    # a cap at or above the count keeps every target
    assert cap_targets(promos, 10, salt)[0] == promos


def test_max_targets_seeded_and_recorded(proj: Path) -> None:
    full = _build(proj, "--name", "full", *CHALLENGE, "--dry-run")
    assert full["written"] is False and full["path"] is None
    found = full["summary"][0]["pairs"]
    assert found > 4 and "full.json" not in " ".join(_files(proj))
    a = _build(proj, "--name", "a", *CHALLENGE, "--max-targets", "4", "--seed", "3")
    b = _build(proj, "--name", "b", *CHALLENGE, "--max-targets", "4", "--seed", "3")
    sel = a["target_selection"]
    assert b["target_selection"] == sel
    assert (sel["targets_found"], sel["targets_taken"]) == (found, 4)
    assert sum(r["taken"] for r in sel["bands"]) == 4
    assert sum(r["targets"] for r in sel["bands"]) == found
    assert _targets(proj, "a") == _targets(proj, "b") and len(_targets(proj, "a")) == 4
    key = json.loads((proj / "keys" / "a.key.json").read_text())
    assert key["params"]["max_targets"] == 4 and key["sampling"]["target_selection"] == sel
    assert a["size"]["items"] == 4 + 2 == a["n_items"]
    assert a["size"]["expected_minutes_per_annotator"] == round(a["conditions"] * 45 / 60, 1)
    assert a["size"]["packet_bytes"] == (proj / "packets" / "a.json").stat().st_size
    seeds = {frozenset(_targets(proj, "a"))}
    for s in (4, 5, 6):
        _build(proj, "--name", f"s{s}", *CHALLENGE, "--max-targets", "4", "--seed", str(s))
        seeds.add(frozenset(_targets(proj, f"s{s}")))
    assert len(seeds) > 1


def test_size_printed_before_written(proj: Path) -> None:
    seen: list[tuple[PacketPlan, bool]] = []
    project = open_project(proj)
    spec = BuildSpec(name="early", kind="initial", seed=2, per_stratum=1, seconds_per_condition=30)
    report = build_packet(
        project, spec, announce=lambda p: seen.append((p, (proj / "packets/early.json").exists()))
    )
    ((plan, existed_then),) = seen
    assert not existed_then and plan.packet_bytes == (proj / "packets/early.json").stat().st_size
    assert plan.expected_minutes == pytest.approx(plan.conditions * 30 / 60)
    assert report.to_json()["size"] == plan.to_json()
    res = run_cli("packet", "build", proj, "--name", "txt", "--per-stratum", "1", "--dry-run")
    assert "expected annotation time" in res.stdout and "nothing written" in res.stdout
    assert "txt.json" not in _files(proj)
    res = run_cli("packet", "build", proj, "--name", "txt", "--per-stratum", "1")
    assert "expected annotation time" in res.stderr and "built txt" in res.stdout


def test_oversize_refused_with_a_fix_that_works(proj: Path) -> None:
    before = _files(proj)
    res = _build(proj, "--name", "huge", *CHALLENGE, "--max-packet-mb", "0.05", expect=2)
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and "over --max-packet-mb 0.05; nothing written" in err
    assert _files(proj) == before
    fix = err.split("pass ", 1)[1].split(" (", 1)[0]  # e.g. "--max-targets 1"
    assert fix.startswith("--max-targets ")
    again = _build(proj, "--name", "huge", *CHALLENGE, "--max-packet-mb", "0.05", *shlex.split(fix))
    assert again["size"]["packet_mb"] <= 0.05


def test_bad_sizing_arguments(proj: Path) -> None:
    before = _files(proj)
    res = _build(proj, "--name", "x", "--per-stratum", "1", "--max-targets", "3", expect=2)
    assert "--max-targets 3 needs --kind challenge" in res.stderr
    res = _build(proj, "--name", "x", *CHALLENGE, "--max-targets", "0", expect=2)
    assert "N >= 1" in res.stderr
    res = _build(proj, "--name", "x", "--per-stratum", "1", "--max-packet-mb", "0", expect=2)
    assert "--max-packet-mb 0 must be > 0" in res.stderr
    assert _files(proj) == before


def test_oversize_initial_names_its_own_fix(proj: Path) -> None:
    before = _files(proj)
    res = _build(proj, "--name", "big", "--per-stratum", "2", "--max-packet-mb", "0.001", expect=2)
    assert "lower --total or --per-stratum (about 1 pairs fit), or raise --max-packet-mb" in (
        res.stderr
    )
    assert _files(proj) == before
