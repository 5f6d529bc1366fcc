"""The report of `score impact` on a classic benchmark (`services.impact_classic`).

`to_json()` is the `--json` object; `rows()` one dict per run and measure,
`influence_rows()` the label-influence table (most influential first), `table()` the CLI's
text. JSON values are fractions; the text prints measures to 4 decimals, as `score trec`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorers.impact.analysis import MeasureImpact
from vocabulary.tables import table

INFLUENCE_COLUMNS = ("query", "document", "old grade", "new grade", "max |change|",
                     "Kendall tau", "tau-AP", "max rank shift")  # fmt: skip


def _f(x: float | None, fmt: str = ".4f") -> str:
    return "n/a" if x is None else format(x, fmt)


def _grade(g: int | None) -> str:
    return "unjudged" if g is None else str(g)


@dataclass(frozen=True)
class ClassicImpactReport:
    """The revision's impact on a classic benchmark's leaderboard, per measure, and each
    changed label's influence on the first measure."""

    qrels: dict[str, Any]  # before / after: the qrels' sources
    ties: str  # the tie rule (trec_eval or file)
    measures: list[str]  # the first orders the systems
    k: int
    draws: int  # randomization draws per pair
    bootstrap: int  # bootstrap replicates of the change's interval
    seed: int
    alpha: float
    all_pairs: bool
    queries_before: int
    queries_after: int
    removed: list[str]  # queries evaluated before only
    added: list[str]  # queries evaluated after only
    # per measure; each run's figures carry its judged_depth, judged_before and judged_after
    by_measure: dict[str, MeasureImpact]
    judged: dict[str, dict[str, dict[str, float | None]]]  # depth -> run -> before/after
    influence_measure: str
    changes: list[dict[str, Any]]  # the changed labels, most influential first
    plot: str | None = None  # the picture written (--plot)
    top: int = 20  # influence rows the text prints

    @property
    def labels_changed(self) -> int:
        return len(self.changes)

    def to_json(self) -> dict[str, Any]:
        names, by = self.measures, self.by_measure
        tags = list(by[names[0]].runs) if names else []
        out: dict[str, Any] = {
            "kind": "classic",
            "qrels": self.qrels,
            "ties": self.ties,
            "measures": names,
            "k": self.k,
            "draws": self.draws,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "alpha": self.alpha,
            "all_pairs": self.all_pairs,
            "queries": {
                "before": self.queries_before,
                "after": self.queries_after,
                "removed": self.removed,
                "added": self.added,
            },
            "labels_changed": self.labels_changed,
            "by_measure": {m: rep.to_json() for m, rep in by.items()},
            "judged": self.judged,
            "influence": {"measure": self.influence_measure, "changes": self.changes},
            # The means before and after, key for key as `score impact --trec-measures` gave them.
            "trec_measures": {
                "ties": self.ties,
                "measures": names,
                "runs": {
                    t: {
                        m: {w: by[m].runs[t][w] for w in ("before", "after", "delta")}
                        for m in names
                    }
                    for t in tags
                },
            },
        }
        if self.plot is not None:
            out["plot"] = self.plot
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any], top: int = 20) -> ClassicImpactReport:
        """The report of a `--json` object (what `to_json()` printed)."""
        q, inf = obj["queries"], obj["influence"]
        by = {
            m: MeasureImpact(
                queries_before=r["queries"]["before"],
                queries_after=r["queries"]["after"],
                runs=r["runs"],
                ordering=r["ordering"],
                pairs=r["pairs"],
                discriminative_power=r["discriminative_power"],
            )
            for m, r in obj["by_measure"].items()
        }
        return cls(
            qrels=obj["qrels"], ties=obj["ties"], measures=obj["measures"], k=obj["k"],
            draws=obj["draws"], bootstrap=obj["bootstrap"], seed=obj["seed"],
            alpha=obj["alpha"], all_pairs=obj["all_pairs"], queries_before=q["before"],
            queries_after=q["after"], removed=q["removed"], added=q["added"], by_measure=by,
            judged=obj["judged"], influence_measure=inf["measure"], changes=inf["changes"],
            plot=obj.get("plot"), top=top,
        )  # fmt: skip

    def rows(self) -> list[dict[str, Any]]:
        """One dict per measure and run, by rank after: values, change, interval, Judged@k."""
        out = []
        for m, rep in self.by_measure.items():
            runs = sorted(rep.runs.items(), key=lambda kv: kv[1]["rank_after"])
            for tag, r in runs:
                ci = r["ci95"] or [None, None]
                d = r["judged_depth"]
                out.append({
                    "measure": m, "run": tag, "before": r["before"], "after": r["after"],
                    "change": r["delta"], "ci95 lo": ci[0], "ci95 hi": ci[1],
                    f"judged@{d} before": r["judged_before"],
                    f"judged@{d} after": r["judged_after"],
                    "rank before": r["rank_before"], "rank after": r["rank_after"],
                })  # fmt: skip
        return out

    def influence_rows(self, top: int | None = None) -> list[dict[str, Any]]:
        """The changed labels, most influential first (the first `top` when given)."""
        changes = self.changes
        return [
            dict(zip(INFLUENCE_COLUMNS, (
                c["query_id"], c["doc_id"], _grade(c["old_grade"]), _grade(c["new_grade"]),
                c["max_abs_delta"], c["kendall"], c["tau_ap"], c["max_rank_shift"]), strict=True))
            for c in (changes if top is None else changes[:top])
        ]  # fmt: skip

    def pair_rows(self, measure: str) -> list[dict[str, Any]]:
        out = []
        for p in self.by_measure[measure].pairs:
            b, a = p["before"], p["after"]
            out.append({
                "pair": f"{p['base']}:{p['variant']}",
                "diff before": b["diff"], "p rand before": b["p_randomization_holm"],
                "p t before": b["p_t_holm"], "diff after": a["diff"],
                "p rand after": a["p_randomization_holm"], "p t after": a["p_t_holm"],
                "decision before": b["decision_randomization"],
                "decision after": a["decision_randomization"],
                "flips": ",".join(t for t, f in p["flips"].items() if f) or "-",
            })  # fmt: skip
        return out

    def table(self) -> str:
        parts = [
            f"ties: {self.ties}",
            f"qrels before: {self.qrels['before']}; after: {self.qrels['after']}",
            f"queries evaluated: {self.queries_before} before, {self.queries_after} after"
            + (f" ({len(self.removed)} removed)" if self.removed else "")
            + f"; {self.labels_changed} labels changed",
        ]
        for m, rep in self.by_measure.items():
            rows = [r for r in self.rows() if r["measure"] == m]
            depth = next(iter(rep.runs.values()))["judged_depth"] if rep.runs else self.k
            d = f"judged@{depth} before"
            parts.append(f"\n{m}: before -> after, paired bootstrap 95% interval of the change "
                         f"({self.bootstrap} replicates), {d.split()[0]} beside it")  # fmt: skip
            parts.append(table(
                [[r["run"], r["before"], r["after"], f"{r['change']:+.4f}",
                  "-" if r["ci95 lo"] is None else f"[{r['ci95 lo']:+.4f}, {r['ci95 hi']:+.4f}]",
                  f"{_f(r[d])} -> {_f(r[d.replace('before', 'after')])}",
                  f"{r['rank before']} -> {r['rank after']}"] for r in rows],
                ["run", "before", "after", "change", "ci95", d.replace(" before", ""), "rank"]))  # fmt: skip
            o = rep.ordering
            shift = o["largest_shift"]
            parts.append(
                f"ranking: Kendall tau {_f(o['kendall'], '.3f')}, tau-AP {_f(o['tau_ap'], '.3f')}"
                f" (before against after), Spearman rho {_f(o['spearman'], '.3f')}; largest "
                + ("shift: none" if shift is None else
                   f"shift {o['max_rank_shift']}: {shift['run']} {shift['rank_before']} -> "
                   f"{shift['rank_after']}")
            )  # fmt: skip
            dp = rep.discriminative_power
            parts.append(
                f"discriminative power ({dp['pairs']} system pairs, p < {dp['alpha']}): "
                f"randomization {_f(dp['before']['randomization'], '.3f')} -> "
                f"{_f(dp['after']['randomization'], '.3f')}, t-test "
                f"{_f(dp['before']['t'], '.3f')} -> {_f(dp['after']['t'], '.3f')}"
            )
            if rep.pairs:
                prs = self.pair_rows(m)
                parts.append(f"pairs ({self.draws} randomization draws; Holm across "
                             f"{len(prs)} pairs; flips: {len(rep.flipped)}):")  # fmt: skip
                parts.append(table([list(r.values()) for r in prs], list(prs[0])))
        inf = self.influence_rows(self.top)
        total = self.labels_changed
        parts.append(f"\nlabel influence on {self.influence_measure} (each change alone; "
                     f"{min(self.top, total)} of {total}, most influential first):")  # fmt: skip
        if inf:
            parts.append(table([list(r.values()) for r in inf], list(INFLUENCE_COLUMNS)))
        else:
            parts.append("no label changed")
        if self.plot is not None:
            parts.append(f"\nwrote {self.plot}")
        return "\n".join(parts)
