"""`evaudit agreement estimate` and the admin page's estimate table: the whole benchmark's
label-error rate from the initial packet's sampling frame and the audit outcome, a
design-weighted estimate (inverse inclusion probabilities per stratum) shown beside the
per-stratum counts as the supplement reads them (scorers/label_error.py).

Reads the packet's admin key (strata fields, the candidate frame), the store's
queries and qrels as loaded, and the audit stage exactly as `finalize` revises
it (the initial packet with its adjudication, no challenge), then counts per
stratum what scorers/label_error.py needs. The estimate itself is pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_chain.campaign_io import store_snapshot
from audit_chain.finalize_io import Stages, compute
from campaign.packets import read_admin_key
from scorers.label_error import Estimate, LabelErrorReport, label_error_report, stratum_counts
from services.projects import ProjectRef, project_at
from vocabulary.errors import InputError


@dataclass(frozen=True)
class EstimateReport:
    """The estimate (`scorers.label_error.LabelErrorReport`) with its table for the admin page."""

    estimate: LabelErrorReport

    def to_json(self) -> dict[str, object]:
        return self.estimate.to_json()

    def rows(self) -> list[dict[str, Any]]:
        """One dict per share: estimate, 95% interval (None when nothing was sampled)."""
        out = []
        shares: tuple[tuple[str, Estimate], ...] = (
            ("grade changes (all judged qrels)", self.estimate.grade_changed),
            ("gold that is not gold", self.estimate.gold_not_gold),
        )
        for name, est in shares:
            lo, hi = est.ci95 if est.ci95 else (None, None)
            out.append(
                {
                    "share": name,
                    "estimate": est.estimate,
                    "95% low": lo,
                    "95% high": hi,
                    "sampled": est.sampled,
                    "frame": est.frame,
                }
            )
        return out

    def stratum_rows(self) -> list[dict[str, Any]]:
        """One dict per stratum: the counts the supplement prints ("Corrections by audit
        stratum"), the unweighted corrected share, inclusion probability and weight."""
        return [
            {"stratum": ", ".join(f"{k}={v}" for k, v in s.stratum.items()) or "(all)",
             "sampled": s.sampled, "corrected": s.changed, "corrected share": s.corrected_share,
             "frame": s.frame, "inclusion probability": s.inclusion_probability,
             "weight": s.weight}
            for s in self.estimate.strata
        ]  # fmt: skip

    def caption(self) -> str:
        rep = self.estimate
        return (
            f"{rep.method}; strata {', '.join(rep.strata_fields) or 'none'}. A {rep.design}; "
            f"{rep.reading.replace('`strata`', 'the per-stratum table')}."
        )

    def table(self) -> str:
        return self.estimate.to_text()


def label_error_estimate(project: ProjectRef, packet: str) -> EstimateReport:
    project = project_at(project)
    key = read_admin_key(project, packet)
    if key.get("kind") != "initial":
        raise InputError(
            f"packet {packet!r} is a {key.get('kind')} packet, not a stratified initial sample",
            hint="name the initial packet",
        )
    sampling = key.get("sampling") or {}
    fields = list((key.get("params") or {}).get("strata") or [])
    candidates = sampling.get("candidates")
    if not isinstance(candidates, dict) or not candidates:
        raise InputError(
            f"packet {packet!r} records no sampling frame", file=project.key_path(packet)
        )
    qrels, queries, _ = store_snapshot(project)
    try:
        result, _inputs, _used = compute(project, Stages(initial=packet, challenges=[]))
    except InputError as exc:
        raise InputError(
            f"the audit of {packet!r} is not final: {exc.message}",
            file=exc.file,
            hint="finish the audit and its adjudication (finalize must succeed)",
        ) from exc
    new_grade = {(c["query_id"], c["doc_id"]): int(c["new_grade"]) for c in result["changes"]}

    for pair_id in candidates:
        q = pair_id.partition("\t")[0]
        if q not in queries:
            raise InputError(
                f"sampling frame pair {pair_id!r} is not in the store",
                file=project.store_path,
                hint="estimate against the benchmark the packet was built from",
            )
    info = {q: (x.n, x.release, x.source) for q, x in queries.items()}
    sampled = [(str(it["query_id"]), str(it["doc_id"])) for it in key.get("items", {}).values()]
    frame = [tuple(p.split("\t", 1)) for p in candidates]
    strata = stratum_counts(fields, frame, sampled, qrels, info, new_grade)  # type: ignore[arg-type]
    return EstimateReport(label_error_report(packet, fields, strata))
