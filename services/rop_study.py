"""`evaudit rop accounting|misses|association|deletion|replay-check|envelope`: the ROP study
statistics of "Does the Selected Object Reach the Reader?", one service and report each.

Each service reads its files through `formats.rop_study_files` and wraps the pure
scorer's report: `to_json()` is that report's JSON (what `--json` prints), `table()` the
CLI's text, so the column labels, percentages and n/a fallbacks are written here once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formats.rop_study_files import (
    accounting_file,
    association_file,
    deletion_file,
    envelope_file,
    misses_file,
    replay_file,
)
from scorers.rop.accounting import AccountingReport
from scorers.rop.deletion import DeletionReport
from scorers.rop.envelope import EnvelopeReport
from scorers.rop.miss_ranks import MissReport
from scorers.rop.reader_association import AssociationReport
from scorers.rop.replay import ReplayReport
from services.rop import file_service
from vocabulary.tables import table


def pct(value: float | None) -> str:
    """A share in percent with one decimal; undefined reads n/a (and a rounding residue
    below zero reads 0.0, not -0.0)."""
    if value is None:
        return "n/a"
    text = f"{100 * value:.1f}"
    return "0.0" if text == "-0.0" else text


def interval_text(boot: dict[str, Any]) -> str:
    """` [lo, hi]` in percent, or nothing when the bootstrap gave no interval."""
    if boot["ci_low"] is None:
        return ""
    return f" [{100 * boot['ci_low']:.1f}, {100 * boot['ci_high']:.1f}]"


# (JSON key, header) of the accounting table after its model column.
_ACCOUNT_COLUMNS = (
    ("planned", "planned"),
    ("observed", "observed"),
    ("not_observed", "not observed"),
    ("invalid_output", "invalid output"),
    ("absent_from_corpus", "ID absent"),
    ("aligned", "U=G"),
    ("distinct", "U!=G"),
)


@dataclass(frozen=True)
class AccountingStudyReport:
    """`rop accounting` (Tables 4 and 20): planned records per model, return rates."""

    report: AccountingReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def rows(self) -> list[list[Any]]:
        return [
            [r.model or "Total"] + [r.to_json()[key] for key, _ in _ACCOUNT_COLUMNS]
            for r in self.report.rows
        ]

    def rate_rows(self) -> list[list[Any]]:
        return [
            [
                x["model"] or "all",
                x["stack"],
                x["cutoff"],
                x["planned"],
                x["selected_rate"],
                x["trace_rate"],
            ]
            for x in (r.to_json() for r in self.report.rates)
        ]

    def table(self) -> str:
        parts = [table(self.rows(), ["model", *[head for _, head in _ACCOUNT_COLUMNS]])]
        if self.report.rates:
            parts.append(table(self.rate_rows(), ["model", "stack", "k", "planned", "R_U", "R_G"]))
        return "\n".join(parts)


accounting = file_service(accounting_file, AccountingStudyReport)


@dataclass(frozen=True)
class MissesStudyReport:
    """`rop misses` (Tables 7, 15 and 19): ranks of the missed selected objects."""

    report: MissReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def _rank_text(self, ranks: list[int | None]) -> str:
        return ",".join(f">{self.report.depth}" if r is None else str(r) for r in ranks)

    def table(self) -> str:
        r, out = self.report, self.report.to_json()
        cutoff, depth = r.cutoff, r.depth
        head = (
            f"{r.stack} @ {cutoff}: {out['missed']} of {r.records} records missed; "
            f"{out['near_cutoff']} at ranks {cutoff + 1}-{depth}, {out['absent']} > {depth}"
        )
        stacks = list(r.objects[0].ranks) if r.objects else []
        objects = table(
            [
                [o.selected, o.rows] + [self._rank_text(o.ranks[s]) for s in stacks]
                for o in r.objects
            ],
            ["selected object", "rows", *stacks],
        )
        partition = table(
            [
                [
                    p.group or "all",
                    p.absent_at_k,
                    p.near_cutoff,
                    "n/a" if p.nonmatch is None else p.nonmatch,
                    "n/a" if p.unresolved is None else p.unresolved,
                ]
                for p in r.partition
            ],
            [
                "group",
                f"absent at {cutoff}",
                f"ranks {cutoff + 1} to {depth}",
                "nonmatch",
                "unresolved",
            ],
        )
        return "\n".join([head, objects, partition])


misses = file_service(misses_file, MissesStudyReport)


@dataclass(frozen=True)
class AssociationStudyReport:
    """`rop association` (Table 9): Return EM vs Omit EM on paired aligned contexts, and the
    same in answer-token F1 (n/a when the rows record only EM)."""

    report: AssociationReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def rows(self) -> list[list[Any]]:
        return [
            [
                f"{p.arm_a}/{p.arm_b}",
                p.n,
                pct(p.return_em),
                pct(p.omit_em),
                pct(p.delta) + interval_text(p.interval.to_json()),
                pct(p.return_f1),
                pct(p.omit_f1),
                pct(p.delta_f1)
                + ("" if p.interval_f1 is None else interval_text(p.interval_f1.to_json())),
            ]
            for p in self.report.pairs
        ]

    def table(self) -> str:
        return table(
            self.rows(),
            [
                "arm pair", "n", "Return EM", "Omit EM", "Delta EM [95%]", "Return F1",
                "Omit F1", "Delta F1 [95%]",
            ],
        )  # fmt: skip


association = file_service(association_file, AssociationStudyReport)


@dataclass(frozen=True)
class DeletionStudyReport:
    """`rop deletion` (Tables 10 and 21): contrasts in EM and answer-token F1, their
    complete-case and valid-repeat summaries, and per-arm call accounting."""

    report: DeletionReport

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def rows(self) -> list[list[Any]]:
        return [
            [
                f"{c.arm_a}/{c.arm_b}",
                c.n,
                f"{pct(c.em_a)}/{pct(c.em_b)}",
                pct(c.delta) + interval_text(c.interval.to_json()),
                pct(c.adverse_delta),
                f"{pct(c.f1_a)}/{pct(c.f1_b)}",
                pct(c.delta_f1)
                + ("" if c.interval_f1 is None else interval_text(c.interval_f1.to_json())),
                pct(c.adverse_delta_f1),
            ]
            for c in self.report.contrasts
        ]

    def summary_rows(self) -> list[list[Any]]:
        """Per contrast and summary (failures left out): n, EM A/B, Delta EM, F1 A/B, Delta F1."""
        out = []
        for c in self.report.contrasts:
            for name, summ in (
                ("complete-case", c.complete_case),
                ("valid-repeat", c.valid_repeat),
            ):
                if summ is None:
                    continue
                x = summ.to_json()
                out.append(
                    [
                        f"{c.arm_a}/{c.arm_b}", name, x["n"], f"{pct(x['em_a'])}/{pct(x['em_b'])}",
                        pct(x["delta_em"]), f"{pct(x['f1_a'])}/{pct(x['f1_b'])}",
                        pct(x["delta_f1"]),
                    ]
                )  # fmt: skip
        return out

    def accounting_rows(self) -> list[list[Any]]:
        acc = self.report.accounting
        return [
            ["Items", *[a.items for a in acc]],
            ["Scheduled calls", *[a.scheduled_calls for a in acc]],
            [
                "Provider requests",
                *["n/a" if a.provider_requests is None else a.provider_requests for a in acc],
            ],
            ["Valid / failed calls", *[f"{a.valid_calls} / {a.failed_calls}" for a in acc]],
            [
                "Same valid answer",
                *[
                    "n/a" if a.same_valid_answer is None else f"{a.same_valid_answer}/{a.items}"
                    for a in acc
                ],
            ],
            ["Majority exact", *[f"{a.majority_exact}/{a.items}" for a in acc]],
        ]

    def table(self) -> str:
        contrasts = table(
            self.rows(),
            [
                "contrast", "n", "EM A/B", "Delta EM [95%]", "adverse Delta", "F1 A/B",
                "Delta F1 [95%]", "adverse Delta F1",
            ],
        )  # fmt: skip
        summaries = table(
            self.summary_rows(),
            ["contrast", "summary", "n", "EM A/B", "Delta EM", "F1 A/B", "Delta F1"],
        )
        arms = ["", *[a.arm for a in self.report.accounting]]
        return "\n".join([contrasts, summaries, table(self.accounting_rows(), arms)])


deletion = file_service(deletion_file, DeletionStudyReport)


@dataclass(frozen=True)
class ReplayStudyReport:
    """`rop replay-check`: reader records joined to their declared run records."""

    report: ReplayReport
    reader: str  # the reader file as named on the command line (prefixes each rejection)

    @property
    def exit_code(self) -> int:
        return 0 if self.report.valid else 1

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def table(self) -> str:
        r = self.report
        lines = [
            f"run records: {r.run_records}  reader records: "
            f"{r.reader_records}  accepted: {r.accepted}  rejected: "
            f"{len(r.rejected)}"
        ]
        lines += [f"{self.reader}:{x.line}: {x.reason}" for x in r.rejected]
        return "\n".join(lines)


def replay_check(runs: str | Path, reader: str | Path) -> ReplayStudyReport:
    return ReplayStudyReport(replay_file(runs, reader), str(reader))


@dataclass(frozen=True)
class EnvelopeStudyReport:
    """`rop envelope`: the declaration envelope against the instruction sheet."""

    report: EnvelopeReport

    @property
    def exit_code(self) -> int:
        # A differing value makes the declaration invalid (`rop evaluate`: RUN_INVALID).
        return 3 if self.report.status == "invalid" else 0

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()

    def rows(self) -> list[list[Any]]:
        return [[c.check, c.status, c.envelope, c.sheet] for c in self.report.checks]

    def table(self) -> str:
        return "\n".join(
            [
                f"envelope: {self.report.status}",
                table(self.rows(), ["check", "status", "envelope", "instruction sheet"]),
            ]
        )


envelope = file_service(envelope_file, EnvelopeStudyReport)
