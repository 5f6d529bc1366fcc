"""A label-error estimate for the whole benchmark from a stratified audit sample.

The initial packet samples judged pairs by stratum (release, source, label)
and records the sampling frame: how many pairs each stratum had (N_h) and how
many were taken (n_h). With x_h sampled pairs of stratum h whose grade the
audit changed, the estimated share of the whole benchmark's judged qrels whose
grade changes is the stratified estimator

    p = sum_h W_h * x_h / n_h,      W_h = N_h / N   (N = sum of N_h over sampled strata)

with variance V = sum_h W_h^2 * (1 - n_h / N_h) * p_h (1 - p_h) / n_h (the
finite-population correction matters: audits often take a large share of a
small stratum). The same estimator over the gold pairs only (N_h = gold pairs
of the stratum's frame, n_h = sampled gold pairs, x_h = sampled golds that are
no longer gold) gives the share of golds that are not gold.

The 95% interval is a stratified Wilson interval: Wilson's score interval at
the estimate with the effective sample size n_eff = p (1 - p) / V (Kish's
design-effect adjustment; n_eff = the sample size when V = 0). Why Wilson and
not a stratified bootstrap: label-error rates are small and strata are small,
so many strata have x_h = 0; a bootstrap of such a stratum never varies and its
percentile interval collapses to [0, 0], and a Wald interval does the same when
every stratum is error-free. Wilson's interval stays inside [0, 1] and keeps a
positive upper bound when no error was seen. With one stratum and no finite
population correction it is exactly the binomial Wilson interval (tests check
statsmodels' `proportion_confint(method="wilson")`), and a simulation shows it
covers the true rate about 95% of the time.

This is a design-weighted estimate: each sampled pair stands for N_h / n_h pairs of its
stratum (the inverse of its inclusion probability n_h / N_h). That is not how the n-Clue
supplement reads its stratified counts: its "Corrections by audit stratum" table prints
sampled and corrected counts per stratum and says "These rates must not be reweighted into
a population error estimate". The report therefore says which it is (`design`, `reading`)
and prints the per-stratum counts, the unweighted corrected share x_h / n_h, the inclusion
probability and the weight beside the estimate. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from scorers.runs.text import table

Z95 = 1.959963984540054  # the 97.5% standard normal quantile


@dataclass(frozen=True)
class StratumCounts:
    """One stratum of the sampling frame and what the audit found in its sample."""

    stratum: dict[str, str]
    frame: int  # judged pairs in the frame (N_h)
    sampled: int  # pairs sampled and audited (n_h)
    changed: int  # sampled pairs whose grade the audit changed
    frame_gold: int  # gold pairs in the frame
    sampled_gold: int  # sampled gold pairs
    gold_lost: int  # sampled gold pairs that are no longer gold

    @property
    def inclusion_probability(self) -> float | None:
        """n_h / N_h: the chance a pair of this stratum was sampled."""
        return self.sampled / self.frame if self.frame else None

    @property
    def weight(self) -> float | None:
        """N_h / n_h: the pairs each sampled pair stands for (the inverse inclusion probability)."""
        return self.frame / self.sampled if self.sampled else None

    @property
    def corrected_share(self) -> float | None:
        """x_h / n_h, unweighted: the sampled share corrected, as the supplement prints it."""
        return self.changed / self.sampled if self.sampled else None

    def to_json(self) -> dict[str, object]:
        return asdict(self) | {
            "corrected_share": self.corrected_share,
            "inclusion_probability": self.inclusion_probability,
            "weight": self.weight,
        }


@dataclass(frozen=True)
class Estimate:
    estimate: float | None  # None when nothing was sampled
    se: float | None
    n_eff: float | None
    ci95: list[float] | None
    sampled: int
    frame: int  # pairs of the strata the estimate covers


def wilson(p: float, n: float, z: float = Z95) -> list[float]:
    """Wilson score interval for a proportion p observed with (effective) sample size n."""
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [max(0.0, centre - half), min(1.0, centre + half)]


def stratified_share(
    frames: Sequence[int], sampled: Sequence[int], hits: Sequence[int], z: float = Z95
) -> Estimate:
    """Stratified estimate of a share, its SE, effective n and Wilson interval (module doc)."""
    rows = [(N, n, x) for N, n, x in zip(frames, sampled, hits, strict=True) if n > 0]
    for N, n, x in rows:
        if not (0 <= x <= n <= N):
            raise ValueError(f"need 0 <= hits <= sampled <= frame, got {x}, {n}, {N}")
    total = sum(N for N, _, _ in rows)
    n_all = sum(n for _, n, _ in rows)
    if not rows or total == 0:
        return Estimate(None, None, None, None, n_all, total)
    p = sum(N / total * x / n for N, n, x in rows)
    var = sum((N / total) ** 2 * (1 - n / N) * (x / n) * (1 - x / n) / n for N, n, x in rows)
    n_eff = p * (1 - p) / var if var > 0 else float(n_all)
    return Estimate(p, math.sqrt(var), n_eff, wilson(p, n_eff, z), n_all, total)


@dataclass(frozen=True)
class LabelErrorReport:
    packet: str
    strata_fields: list[str]
    strata: list[StratumCounts]
    grade_changed: Estimate  # share of judged qrels whose grade changes
    gold_not_gold: Estimate  # share of gold qrels that are not gold
    method: str = "stratified Wilson (effective sample size), finite-population corrected"
    design: str = (
        "design-weighted: each sampled pair weighted by the inverse of its inclusion "
        "probability in its stratum (N_h / n_h)"
    )
    reading: str = (
        "not how the n-Clue supplement reads its stratified counts: its 'Corrections by audit "
        "stratum' table prints sampled and corrected counts per stratum and says they must not "
        "be reweighted into a population error estimate; those counts are in `strata`"
    )

    def to_json(self) -> dict[str, object]:
        out = asdict(self)
        out["strata"] = [x.to_json() for x in self.strata]
        return out

    def to_text(self) -> str:
        def fmt(e: Estimate) -> list[str]:
            if e.estimate is None or e.ci95 is None:
                return ["-", "-", str(e.sampled), str(e.frame)]
            return [f"{100 * e.estimate:.1f}%",
                    f"[{100 * e.ci95[0]:.1f}%, {100 * e.ci95[1]:.1f}%]",
                    str(e.sampled), str(e.frame)]  # fmt: skip

        rows = [
            ["grade changes (all judged qrels)", *fmt(self.grade_changed)],
            ["gold that is not gold", *fmt(self.gold_not_gold)],
        ]

        def share(x: float | None) -> str:
            return "-" if x is None else f"{100 * x:.1f}%"

        def num(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        strata = [
            [", ".join(f"{k}={v}" for k, v in s.stratum.items()) or "(all)", s.sampled,
             s.changed, share(s.corrected_share), s.frame, num(s.inclusion_probability),
             num(s.weight), s.frame_gold, s.sampled_gold, s.gold_lost]
            for s in self.strata
        ]  # fmt: skip
        return "\n".join(
            [
                f"Label-error estimate for the whole benchmark from packet {self.packet} "
                f"(strata {', '.join(self.strata_fields) or 'none'}; {self.method}).",
                f"A {self.design}; {self.reading.replace('`strata`', 'the table below')}.",
                table(rows, ["share", "estimate", "95% CI", "sampled", "frame"]),
                "",
                "Corrections by audit stratum (counts, unweighted corrected share) beside the "
                "design: inclusion probability n/N and weight N/n per stratum.",
                table(
                    strata,
                    [
                        "stratum",
                        "sampled",
                        "corrected",
                        "corrected share",
                        "frame",
                        "inclusion prob.",
                        "weight",
                        "frame gold",
                        "sampled gold",
                        "gold lost",
                    ],
                ),
            ]
        )


def stratum_counts(
    fields: Sequence[str],
    frame: Sequence[tuple[str, str]],
    sampled: Sequence[tuple[str, str]],
    grades: Mapping[tuple[str, str], int],
    queries: Mapping[str, tuple[int, str, str]],
    new_grade: Mapping[tuple[str, str], int],
) -> list[StratumCounts]:
    """Per stratum of `fields` (release, source, label): frame and sample counts and outcomes.

    frame = every candidate pair, sampled = the audited pairs, grades = the qrels as sampled
    (label gold = grade n), queries[q] = (n, release, source), new_grade = the audit's changed
    grades (pairs not in it kept theirs).
    """

    def stratum(q: str, d: str) -> tuple[str, ...]:
        n, release, source = queries[q]
        label = "gold" if grades.get((q, d), 0) == n else "subset"
        values = {"release": release, "source": source, "label": label}
        return tuple(values[f] for f in fields)

    counts: dict[tuple[str, ...], list[int]] = {}
    for q, d in frame:
        row = counts.setdefault(stratum(q, d), [0, 0, 0, 0, 0, 0])
        row[0] += 1
        row[3] += int(grades.get((q, d), 0) == queries[q][0])
    for q, d in sampled:
        row = counts[stratum(q, d)]
        before = grades.get((q, d), 0)
        after = new_grade.get((q, d), before)
        gold = before == queries[q][0]
        row[1] += 1
        row[2] += int(after != before)
        row[4] += int(gold)
        row[5] += int(gold and after != queries[q][0])
    return [StratumCounts(dict(zip(fields, s, strict=True)), *counts[s]) for s in sorted(counts)]


def label_error_report(
    packet: str, strata_fields: Sequence[str], strata: Sequence[StratumCounts]
) -> LabelErrorReport:
    s = list(strata)
    changed = stratified_share([x.frame for x in s], [x.sampled for x in s], [x.changed for x in s])
    gold = stratified_share(
        [x.frame_gold for x in s], [x.sampled_gold for x in s], [x.gold_lost for x in s]
    )
    return LabelErrorReport(packet, list(strata_fields), s, changed, gold)
