"""Issue 27's done-when, followed through the code as it runs: scoring a TREC run and an
annotator's save enter each module once per call path and never call back up a layer
(finalize is followed on the sample campaign in test_workflow_sample.py). The tracer
itself is shown to catch a callback that runs up a layer and a re-entered module."""

from __future__ import annotations

import types
from pathlib import Path

from tests.call_paths import trace_calls

SAMPLE = Path(__file__).resolve().parent.parent / "sample_packets"


def _module(name: str, source: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def test_the_tracer_sees_a_callback_up_a_layer_and_a_reentry() -> None:
    low = _module(
        "vocabulary._probe_low", "def each(items, fn):\n    return [fn(i) for i in items]\n"
    )
    high = _module(
        "services._probe_high",
        "def twice(i):\n    return 2 * i\ndef run(low):\n    return low.each([1, 2], twice)\n",
    )
    with trace_calls() as trace:
        assert high.run(low) == [2, 4]
    assert ("vocabulary._probe_low", "services._probe_high") in trace.up_calls
    assert ("services._probe_high", "vocabulary._probe_low", "services._probe_high") in (
        trace.reentries
    )
    with trace_calls() as clean:
        assert low.each([3], abs) == [3]
    assert clean.up_calls == set() and clean.reentries == set()


def test_score_trec_runs_down_the_layers_only() -> None:
    from services.score_trec import score_trec
    from vocabulary.runspec import parse_run_spec

    runs = [parse_run_spec(str(p)) for p in sorted((SAMPLE / "runs").glob("*.trec"))]
    with trace_calls() as trace:
        report = score_trec(
            qrels=SAMPLE / "qrels.txt", project=None, queries=None, runs=runs,
            measures=("ndcg_cut_10", "map", "P_10"), ties="trec_eval",
        )  # fmt: skip
        report.to_json()
    assert trace.up_calls == set()
    assert trace.reentries == set()
    assert {"services", "formats", "scorers"} <= set(trace.packages())


def test_an_annotators_save_runs_down_the_layers_only(tmp_path: Path) -> None:
    from audit_app.judging import CardSession, apply_outbox
    from audit_app.session import AnnotatorSession
    from tests.app_fixture import build

    fx = build(tmp_path / "p", items=2)
    s = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "al")
    page = "J001-C1-A"
    actions = [
        {"id": 1, "op": "answer", "item": "J001", "cond": "C1", "value": "yes"},
        {"id": 2, "op": "select", "item": "J001", "cond": "C1", "page": page, "on": True},
        {"id": 3, "op": "quote", "item": "J001", "cond": "C1", "page": page,
         "text": fx.quotes[page]},
    ]  # fmt: skip
    with trace_calls() as trace:
        written = apply_outbox(s, CardSession(), {"nonce": "t", "actions": actions}, lambda: True)
    assert len(written) == 3
    assert trace.up_calls == set()
    assert trace.reentries == set()
    assert {"audit_app", "campaign", "vocabulary"} <= set(trace.packages())
