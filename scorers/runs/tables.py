"""Human-readable tables for the score reports (points x100, like "Do Current Retrievers Cover All the Evidence?" (supplement))."""

from __future__ import annotations

from typing import Any

from scorers.runs.measures import METRICS as METRIC_NAMES
from vocabulary.tables import table

# Column labels: every NDCG column says which NDCG it is (Gold-NDCG: gain 1 for gold; graded
# NDCG: gain = grade, trec_eval's ndcg_cut).
_LABELS = {"nclue": "n-Clue", "gold_hit": "Gold Hit", "gold_ndcg": "Gold-NDCG",
           "ndcg": "graded NDCG"}  # fmt: skip


def _pts(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _ci(ci: list[float] | None) -> str:
    return "-" if ci is None else f"[{_pts(ci[0])}, {_pts(ci[1])}]"


def _num(x: float | None) -> str:
    """A statistic such as a correlation; undefined (None or NaN) prints n/a, as JSON's null."""
    return "n/a" if x is None or x != x else f"{x:.3f}"


def _p(x: float | None, draws: int) -> str:
    """A sign-flip p. Its smallest value is 1/(draws+1) (no draw as extreme as the data), which
    says only that p is below the draws' resolution: printed as "< 1/(draws+1)", not 0.000."""
    if x is None or x != x:
        return "n/a"
    if x * (draws + 1) <= 1 + 1e-9:
        return f"< 1/{draws + 1}"
    return f"{x:.3f}"


def _mpg(d: dict[str, float]) -> str:
    return "/".join(f"{d[k]:.3f}" for k in ("miss", "subset_first", "gold_first"))


def nclue_text(rep: dict[str, Any]) -> str:
    """A ranking of runs in the style of Table S1a of "Do Current Retrievers Cover All the Evidence?" (supplement)."""
    out: list[str] = []
    runs = sorted(rep["runs"].items(), key=lambda kv: -kv[1]["nclue"])
    rows = []
    for rank, (tag, r) in enumerate(runs, start=1):
        o = r["outcomes"]
        rows.append(
            [rank, tag, _pts(r["nclue"]), _ci(r["ci95"]["nclue"]), _pts(r["gold_hit"]),
             _pts(r["gold_ndcg"]), _pts(r["ndcg"]),
             f"{o['miss']}/{o['subset_first']}/{o['gold_first']}"]
        )  # fmt: skip
    out.append(
        f"n-Clue Score@{rep['k']} over {rep['queries']} queries "
        f"({rep['queries_without_gold']} without gold; {rep['families']} exact gold families). "
        f"Points x100; 95% exact-family bootstrap, {rep['bootstrap']} replicates."
    )
    headers = ["rank", "run", "n-Clue", "95% CI", "Gold Hit", "Gold-NDCG", "graded NDCG", "M/P/G"]
    out.append(table(rows, headers))
    return "\n".join(out)


def compare_text(rep: dict[str, Any]) -> str:
    """Declared pairs (effects, CI, raw p, plain Holm across pairs) and "Do Current Retrievers Cover All the Evidence?", supplement Table S1f.

    The pairs' Holm p adjusts raw p over the declared pairs only; it is not the supplement's
    selection-adjusted p of Table S1e (that is `--block`, scorers/runs/selection.py), so the
    column says "pairs Holm p" and never "selection"."""
    out: list[str] = []
    rows, rows2 = [], []
    draws = rep["draws"]
    for pr in rep["pairs"]:
        name = f"{pr['base']} -> {pr['variant']}"
        d = pr["diff"]
        rows.append(
            [name, f"{100 * d['nclue']:+.1f}", _ci(pr["ci95"]["nclue"]),
             f"{100 * d['gold_hit']:+.1f}", f"{100 * d['gold_ndcg']:+.1f}",
             f"{100 * d['ndcg']:+.1f}", _p(pr["p"]["nclue"], draws),
             _p(pr["p_holm"]["nclue"], draws)]
        )  # fmt: skip
        dd = pr["delta_D"]
        rows2.append(
            [name, pr["common_n"], "-" if dd is None else f"{dd:+.3f}",
             _mpg(pr["base_mpg"]), _mpg(pr["variant_mpg"])]
        )  # fmt: skip
    out.append(
        f"Paired contrasts at k={rep['k']} over {rep['queries']} queries (points x100; "
        f"{rep['draws']} sign-flip draws; {rep['bootstrap']} family-bootstrap replicates). "
        "pairs Holm p = Holm over these declared pairs' raw p, not selection-adjusted "
        "(see --block)."
    )
    h1 = ["contrast", "dScore", "95% CI", "dHit", "dGold-NDCG", "d graded NDCG", "raw p",
          "pairs Holm p"]  # fmt: skip
    out.append(table(rows, h1))
    out.append(
        "\nCommon-support ordering (Table S1f of the supplement to 'Do Current Retrievers Cover "
        "All the Evidence?'): M/P/G = miss/subset/gold first."
    )
    out.append(table(rows2, ["contrast", "common n", "delta D", "base M/P/G", "variant M/P/G"]))
    return "\n".join(out)


def impact_text(rep: dict[str, Any]) -> str:
    """The 'Evaluation impact' table of "Do Current Retrievers Cover All the Evidence?" (supplement): every run before -> after, ordering, pairs."""
    out: list[str] = []
    m = rep["metric"]
    order = rep["ordering"]
    lab = rep["labels"]
    out.append(
        f"Qrel revision impact at k={rep['k']} over {rep['queries']['before']} -> "
        f"{rep['queries']['after']} queries: "
        f"{lab['changed']} labels changed ({lab['added']} added, {lab['removed']} removed, "
        f"{lab['regraded']} regraded; {lab['to_gold']} to gold, {lab['from_gold']} from gold)."
    )
    if rep["removed_queries"]:
        out.append(f"Removed by the revision (no qrels left): {', '.join(rep['removed_queries'])}")
    rows = [
        [tag, order["rank_before"][tag], order["rank_after"][tag],
         *(f"{_pts(r['before'][x])} -> {_pts(r['after'][x])}" for x in METRIC_NAMES)]
        for tag, r in sorted(rep["runs"].items(), key=lambda kv: order["rank_after"][kv[0]])
    ]  # fmt: skip
    out.append(
        table(rows, ["run", "rank before", "rank after", *(_LABELS[x] for x in METRIC_NAMES)])
    )
    corr = [
        [_LABELS.get(x, x), _num(c["spearman"]), _num(c["kendall"]), c["max_rank_shift"]]
        for x, c in rep["correlations"].items()
    ]
    out.append(f"\nSystem-ordering agreement (ranks above by {_LABELS.get(m, m)}):")
    out.append(table(corr, ["metric", "Spearman", "Kendall", "max rank shift"]))
    if rep["pairs"]:
        prs = []
        for pr in rep["pairs"]:
            b, a = pr["before"], pr["after"]
            prs.append(
                [f"{pr['base']} -> {pr['variant']}",
                 f"{100 * b['diff'][m]:+.1f}", _p(b["p"][m], rep["draws"]),
                 f"{100 * a['diff'][m]:+.1f}", _p(a["p"][m], rep["draws"])]
            )  # fmt: skip
        out.append(
            f"\nPaired {_LABELS.get(m, m)} difference (points) and sign-flip p before -> after:"
        )
        out.append(table(prs, ["contrast", "diff before", "p before", "diff after", "p after"]))
    return "\n".join(out)
