"""Reports are typed (issue #27): no public function returns a report as `dict[str, Any]`.

An AST check over every first-party package (`tests/packages.py`): a public function or
method (no leading underscore) may not be annotated to return `dict[str, Any]`,
`Dict[str, Any]` or a bare `dict`, except

- `to_json` methods: the JSON object `--json` prints is a report's one dict view;
- `PLAIN_DATA`: functions whose dict is data, not a report (a file's JSON object, a
  journal line, a config, one figure in a report's JSON shape), each with its reason;
- `NOT_YET_TYPED`: report-shaped functions still to be converted, named so the list can
  only shrink (each entry must still exist and still return a dict).

A second check: every `*Report` dataclass in `services/` has `to_json` and `table`, and
one that still only wraps a `body` dict is named in `BODY_WRAPPERS_LEFT`.

On the tree before this check (commit 5ae3377) the first test failed on these report-shaped
functions, since converted: `scorers.agreement.ratings_summary` and `two_rater_summary`,
`scorers.audit_tables.audit_report`, `scorers.integrity.stream_counts` and
`integrity_report`, `policies.repair.RepairPlan.counts`, `policies.adjudication.summary`,
`policies.revision.revise`, `services.repair.plan_json`,
`packet_builder.pool_stats.pool_stats`, `packet_builder.source_gate.page_kinds` (with
`SourceRate.kinds` and `GateReport.overall`), `scorers.orbit.readings.delta_v_mean_interval`,
`scorers.rop.targets.joint_counts`, `cluster_bootstrap_change` and `compare_targets`,
`formats.rop_files.compare_targets_file`, `scorers.impact.analysis.analyse`,
`scorers.orbit.selection.summarize_selection`, `scorers.orbit.analysis.analyze`,
`scorers.orbit.decisions.replication_rules`, `scorers.runs.report.nclue_report`,
`compare_report`, `impact_report` and `scorers.runs.impact_extra.source_slices`; the second
on the body-only reports `AgreementReport`, `IntegrityReport`, `RatingsReport`,
`RepairPlanReport`, `AdjudicationReport`, `FinalizeReport`, `rop`'s `TargetsReport`,
`SchemaReport` and `FromQrelsReport`, `OverrideReport`, `packet_export.ExportReport`,
`ImportReport`, `DemoReport`, `RatersReport`, `BuildReport`, `OrbitReport`,
`ClassicImpactReport` and `score nclue | compare | impact`'s `NclueReport`, `CompareReport`
and `ImpactReport` (with their base, `services.score_reports.BodyReport`, since removed).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

from tests.packages import PACKAGES, ROOT

DICT_ANNOTATIONS = {"dict[str, Any]", "Dict[str, Any]", "dict", "Dict", "typing.Dict[str, Any]"}

# module:qualname -> why its dict is data rather than a report.
PLAIN_DATA: dict[str, str] = {
    "audit_app.actions:state_json": "the judging card's state object, sent to its JavaScript",
    "services.demo:build_demo": "the demo's paths and login, printed as launch details",
    "services.offline.build:blinded_copy": "the packet file reduced to its annotator fields",
    "services.responses:build_export": "a response export file (docs/formats.md)",
    "services.responses:session_export": "a response export file (docs/formats.md)",
    "services.responses:export_responses": "a response export file (docs/formats.md)",
    "services.responses:import_responses": "the import's counts, returned to the app's button",
    "campaign.annotation:Packet.item": "one item of the packet file, as stored",
    "campaign.annotation:record": "a journal line body",
    "campaign.annotation:AnnotatorSession.save": "the journal line as written",
    "audit_app.session:card_item": "the judging card's item object, sent to its JavaScript",
    "services.report:Stat.cells": "one row of the admin page's table (a dataframe record)",
    "services.rop:EvaluateReport.envelope_json": "a part of the report's own JSON view",
    "services.score_trec:trec_scores": "trec_eval's scores object (not this helper's file)",
    "audit_chain.grade_scale:ScaleWriter.manifest": "the manifest's grade_scale object",
    "audit_chain.overrides_io:record_override": "the override log line as written",
    "packet_builder.build:BuildSpec.params": "a build's parameters (config, stored in the key)",
    "packet_builder.packets:export": "the exported packet file's object",
    "packet_builder.pools:PoolPage.key_json": "a page's entry in the admin key file",
    "formats.rop_files:rop_from_qrels_files": "an ROP declaration written to --out",
    "policies.repair:PairPlan.queue_entry": "one line of the adjudication queue file",
    "policies.repair:RepairPlan.queue": "the adjudication queue file (docs/formats.md)",
    "scorers.agreement:page_set_agreement": "one {count, total, rate} figure of AuditTable",
    "scorers.orbit.selection:compare_selectors": "per-split arrays, summarize_selection's input",
    "scorers.orbit.decisions:Thresholds.as_dict": "the rules' thresholds (config) as JSON",
    "scorers.rop.declaration:schema": "the shipped JSON Schema file",
    "campaign.journal:append": "the journal line as written",
    "campaign.journal:JournalBackend.append": "the journal line as written",
    "campaign.journal:FileJournal.append": "the journal line as written",
    "campaign.journal:PgJournal.append": "the journal line as stored",
    "campaign.journal_pg:append": "the journal line as stored",
    "campaign.packets:read_admin_key": "the admin key file's object",
    "campaign.project:Project.meta": "project.json's object",
    "services.score_trec:TrecFlags.given": "trec_eval's flags as given, a key of the report's JSON",
    "campaign.project:Project.settings": "project.json's object, read once per handle",
    "campaign.store_load:page_counts": "doc_id -> page count, a lookup table",
}

# module:qualname -> the report it should become (still a dict: convert, then delete here).
NOT_YET_TYPED: dict[str, str] = {}

# services/ reports that still hold only the released object (`body`).
BODY_WRAPPERS_LEFT: set[str] = set()


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        base = ROOT / package.replace(".", "/")
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            yield ".".join(parts), ast.parse(path.read_text("utf-8"), str(path))


def _public_functions(
    tree: ast.Module,
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and the methods of module-level classes, public ones only."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if not node.name.startswith("_"):
                yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for sub in node.body:
                method = isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef)
                if method and not sub.name.startswith("_"):  # type: ignore[attr-defined]
                    yield f"{node.name}.{sub.name}", sub  # type: ignore[attr-defined,misc]


def dict_returning() -> dict[str, str]:
    """module:qualname -> file:line of every public function annotated to return a dict."""
    found = {}
    for module, tree in _modules():
        for qualname, fn in _public_functions(tree):
            if fn.returns is None or qualname.endswith(".to_json"):
                continue
            if ast.unparse(fn.returns).strip("'\"") in DICT_ANNOTATIONS:
                found[f"{module}:{qualname}"] = f"{module.replace('.', '/')}.py:{fn.lineno}"
    return found


def test_no_public_function_returns_a_report_as_a_dict() -> None:
    found = dict_returning()
    unlisted = {k: v for k, v in found.items() if k not in PLAIN_DATA and k not in NOT_YET_TYPED}
    assert not unlisted, (
        "these return dict[str, Any]: return a frozen report dataclass with to_json(), or, "
        f"if the dict is plain data, add it to PLAIN_DATA with its reason: {unlisted}"
    )


def test_the_lists_name_only_what_still_returns_a_dict() -> None:
    found = dict_returning()
    stale = sorted(k for k in (*PLAIN_DATA, *NOT_YET_TYPED) if k not in found)
    assert not stale, f"no longer return a dict (delete them from the lists): {stale}"
    assert not set(PLAIN_DATA) & set(NOT_YET_TYPED)
    assert all(reason.strip() for reason in (*PLAIN_DATA.values(), *NOT_YET_TYPED.values()))


def _service_reports() -> Iterator[tuple[str, Any]]:
    import services

    for info in pkgutil.iter_modules(services.__path__):
        mod = importlib.import_module(f"services.{info.name}")
        for name, cls in vars(mod).items():
            own = inspect.isclass(cls) and cls.__module__ == mod.__name__
            if own and name.endswith("Report") and dataclasses.is_dataclass(cls):
                yield f"{mod.__name__}:{name}", cls


def test_every_service_report_has_to_json_and_table() -> None:
    reports = dict(_service_reports())
    assert "services.agreement:AgreementReport" in reports
    # a base other reports extend (services.score_reports.BodyReport) need not render itself
    bases = {b for cls in reports.values() for b in cls.__mro__[1:]}
    missing = [
        key
        for key, cls in reports.items()
        if cls not in bases
        and not (callable(getattr(cls, "to_json", None)) and callable(getattr(cls, "table", None)))
    ]
    assert not missing, f"reports without to_json() and table(): {missing}"


def test_service_reports_hold_typed_fields_not_a_body() -> None:
    bodies = {
        key
        for key, cls in _service_reports()
        if "body" in {f.name for f in dataclasses.fields(cls)}
    }
    assert not bodies - BODY_WRAPPERS_LEFT, (
        f"reports that only hold a body dict: give them real fields: {bodies - BODY_WRAPPERS_LEFT}"
    )
    assert not BODY_WRAPPERS_LEFT - bodies, (
        f"no longer hold a body (delete from BODY_WRAPPERS_LEFT): {BODY_WRAPPERS_LEFT - bodies}"
    )
