"""Population accounting per model ("Does the Selected Object Reach the Reader?", Table 4 and Table 20).

Every planned model-question record falls in exactly one column: not observed (planned,
no row), invalid output (no usable selected id), ID absent from the corpus (the selected
id does not resolve), U = G (aligned) or U != G (object-distinct), so the columns
partition the planned rows. Return rates over the planned denominator count every record
without a usable resolvable selection as a miss, as Table 20 does ("invalid upstream rows
counted as misses"): the selected object is returned when a resolvable U is in the first
k, the trace when G is (and the record has a valid selection, whose query built the list).

Record rows: ``{"record_id", <model field>, "selected", "trace", "rankings"?: {STACK:
[ids]}}``; ``selected`` null, missing, not a string, or ``"invalid": true`` marks an
invalid output. Planned rows (optional): ``{"record_id", <model field>}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorers.rop.fields import some_rows, text_field
from scorers.rop.resolver import Resolver
from vocabulary.errors import InputError

COLUMNS = ("not_observed", "invalid_output", "absent_from_corpus", "aligned", "distinct")


@dataclass(frozen=True)
class AccountRecord:
    record_id: str
    model: str
    column: str  # one of COLUMNS except not_observed
    selected: str | None  # resolved U
    trace: str
    rankings: dict[str, list[str | None]]


def parse_account_records(
    rows: Sequence[tuple[int, dict[str, Any]]],
    source: str,
    resolver: Resolver,
    *,
    model_field: str = "model",
) -> list[AccountRecord]:
    out: list[AccountRecord] = []
    seen: dict[str, int] = {}
    for line, obj in rows:
        rid = text_field(obj, "record_id", source, line)
        if rid in seen:
            raise InputError(f"record_id {rid!r} repeats line {seen[rid]}", file=source, line=line)
        seen[rid] = line
        model = text_field(obj, model_field, source, line)
        trace_raw = text_field(obj, "trace", source, line)
        trace = resolver.resolve(trace_raw)
        if trace is None:
            raise InputError(
                f"trace {trace_raw!r} is not in the resolver",
                file=source,
                line=line,
                hint="the dataset trace must resolve",
            )
        raw = obj.get("selected")
        invalid = obj.get("invalid", False) is True or not isinstance(raw, str) or not raw
        selected = resolver.resolve(raw) if isinstance(raw, str) and not invalid else None
        if invalid:
            column = "invalid_output"
        elif selected is None:
            column = "absent_from_corpus"
        else:
            column = "aligned" if selected == trace else "distinct"
        rankings: dict[str, list[str | None]] = {}
        raw_rankings = obj.get("rankings", {})
        if not isinstance(raw_rankings, dict):
            raise InputError("'rankings' must map stacks to id lists", file=source, line=line)
        for stack, ids in raw_rankings.items():
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise InputError(
                    f"rankings.{stack} must be a list of id strings", file=source, line=line
                )
            rankings[stack] = [resolver.resolve(i) for i in ids]
        out.append(AccountRecord(rid, model, column, selected, trace, rankings))
    return some_rows(out, "records", source)


@dataclass(frozen=True)
class AccountRow:
    """One row of Table 4 (``model`` None for the total)."""

    model: str | None
    planned: int
    observed: int
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "planned": self.planned,
            "observed": self.observed,
            **self.counts,
        }


@dataclass(frozen=True)
class ReturnRate:
    """Selected-object and trace return over the planned denominator (Table 20 style)."""

    model: str | None
    stack: str
    cutoff: int
    planned: int
    selected_returned: int
    trace_returned: int

    def to_json(self) -> dict[str, Any]:
        p = self.planned
        return {
            "model": self.model,
            "stack": self.stack,
            "cutoff": self.cutoff,
            "planned": p,
            "selected_returned": self.selected_returned,
            "trace_returned": self.trace_returned,
            "selected_rate": self.selected_returned / p if p else None,
            "trace_rate": self.trace_returned / p if p else None,
        }


@dataclass(frozen=True)
class AccountingReport:
    rows: list[AccountRow]
    rates: list[ReturnRate]
    stacks: list[str]
    cutoffs: list[int]

    def to_json(self) -> dict[str, Any]:
        return {
            "columns": list(COLUMNS),
            "table": [r.to_json() for r in self.rows],
            "stacks": self.stacks,
            "cutoffs": self.cutoffs,
            "rates": [r.to_json() for r in self.rates],
        }


def account(
    records: Sequence[AccountRecord],
    cutoffs: Sequence[int],
    planned: Sequence[tuple[str, str]] | None = None,
) -> AccountingReport:
    """Table 4 per model and in total; return rates per model, stack and cutoff.

    ``planned`` is (record id, model) for every planned record; without it the records
    are the plan. A record outside the plan, or whose model differs from the plan's, is an
    error: the columns would no longer partition the planned rows.
    """
    plan = dict(planned) if planned is not None else {r.record_id: r.model for r in records}
    for r in records:
        if r.record_id not in plan:
            raise InputError(f"record {r.record_id!r} is not planned", hint="add it to --planned")
        if plan[r.record_id] != r.model:
            raise InputError(
                f"record {r.record_id!r}: model {r.model!r} differs from the plan's "
                f"{plan[r.record_id]!r}"
            )
    by_id = {r.record_id: r for r in records}
    models = sorted(set(plan.values()))
    stacks = sorted({s for r in records for s in r.rankings})
    for r in records:
        if r.column != "invalid_output" and set(r.rankings) != set(stacks):
            raise InputError(
                f"record {r.record_id!r} ranks with {sorted(r.rankings)}, others with {stacks}",
                hint="every record with a valid selection has every stack",
            )
    rows: list[AccountRow] = []
    rates: list[ReturnRate] = []
    for model in [*models, None]:
        ids = [i for i, m in plan.items() if model is None or m == model]
        seen = [by_id[i] for i in ids if i in by_id]
        counts = {c: 0 for c in COLUMNS}
        counts["not_observed"] = len(ids) - len(seen)
        for r in seen:
            counts[r.column] += 1
        rows.append(AccountRow(model, len(ids), len(seen), counts))
        for stack in stacks:
            for k in cutoffs:
                usable = [r for r in seen if r.column != "invalid_output"]
                sel = sum(
                    1
                    for r in usable
                    if r.selected is not None and r.selected in r.rankings[stack][:k]
                )
                tr = sum(1 for r in usable if r.trace in r.rankings[stack][:k])
                rates.append(ReturnRate(model, stack, k, len(ids), sel, tr))
    return AccountingReport(rows, rates, stacks, list(cutoffs))
