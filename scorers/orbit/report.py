"""Plain-text report of an orbit analysis, one section per question of "Which Reranking Conclusions Survive the Answer Interface?".

The four questions (policy level, interface stability, policy ordering, selection value)
are reported separately because none logically implies another.
"""

from __future__ import annotations

from typing import Any

from vocabulary.tables import table


def _ci(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "n/a"
    return f"[{lo:+.4f}, {hi:+.4f}]"


def _yes(flag: bool | None) -> str:
    return "n/a" if flag is None else ("yes" if flag else "no")


def render_report(result: dict[str, Any]) -> str:
    envs = result["environments"]
    t = result["thresholds"]
    pct = round(result["level"] * 100)
    out = [
        f"Finite-orbit interface audit: {result['variant']} minus {result['base']}",
        f"{len(envs)} environments, {result['bootstrap']} verdict-stratified bootstrap "
        f"replicates (seed {result['seed']}), confirmatory: {', '.join(result['confirmatory'])}",
    ]
    if result["rows"]["dropped_claims"]:
        out.append(f"dropped {result['rows']['dropped_claims']} incomplete claim(s)")
    out += ["", "1. Policy level: does the variant help after averaging the interfaces?"]
    out.append(f"   g = balanced policy effect, h = verdict-differential effect; pointwise {pct}%")
    out.append("   percentile intervals (descriptive).")
    rows = [
        [
            e["environment"],
            e["claims"]["+"] + e["claims"]["-"],
            e["level"]["g"]["estimate"],
            _ci(e["level"]["g"]["low"], e["level"]["g"]["high"]),
            e["level"]["h"]["estimate"],
            _ci(e["level"]["h"]["low"], e["level"]["h"]["high"]),
        ]
        for e in envs
    ]
    out.append(
        _indent(table(rows, ["environment", "claims", "g_avg", "interval", "h_avg", "interval"]))
    )
    out += ["", "2. Interface stability: how much does the effect move across the 8 interfaces?"]
    out.append(f"   R norms with simultaneous {pct}% bounds; material if a lower bound of R_total")
    out.append(f"   exceeds {t['material']}.")
    rows = []
    for e in envs:
        b = e["simultaneous"]["R"]
        rows.append(
            [
                e["environment"] + ("" if e["confirmatory"] else " (descr.)"),
                e["R"]["g"]["total"],
                _ci(*b["g"]["total"]),
                e["R"]["h"]["total"],
                _ci(*b["h"]["total"]),
                f"{b['g']['high'][1]:.4f} / {b['h']['high'][1]:.4f}",
                _yes(e["decisions"]["material_variation"]),
            ]
        )
    out.append(
        _indent(
            table(
                rows,
                [
                    "environment",
                    "R_total g",
                    "bounds",
                    "R_total h",
                    "bounds",
                    "R_high upper g / h",
                    "material",
                ],
            )
        )
    )
    rep = result["replication"]
    h1, h2a, h2b = rep["H1"], rep["H2a"], rep["H2b"]
    n = len(rep["environments"])
    out.append(
        f"   H1 (broad material instability): {_yes(h1['holds'])} - "
        f"{len(h1['material_environments'])}/{n} material, need "
        f"{h1['required']['environments']} spanning {h1['required']['datasets']} datasets and "
        f"{h1['required']['reader_families']} reader families"
    )
    out.append(
        f"   H2a (higher-order explanation): {_yes(h2a['holds'])} - "
        f"{len(h2a['higher_order_material'])}/{n} with material R_high"
        + ("" if h2a["evaluated"] else " (only read when H1 holds)")
    )
    out.append(
        f"   H2b (first-order simplification): {_yes(h2b['holds'])} - R_high negligible in "
        f"{len(h2b['higher_order_negligible'])}/{n} (need {h2b['required']['higher_order_negligible']}), "
        f"first-order signs replicated in {len(h2b['first_order_signs_replicated'])}/{n} "
        f"(need {h2b['required']['first_order_signs_replicated']}), held-out max error below "
        f"{t['max_error']} in {len(h2b['heldout_error_below'])}/{n} (need all)"
    )
    out.append("   Not meeting H1 does not imply invariance unless H2b also holds.")
    out += ["", "3. Policy ordering: do all interfaces support the same direction?"]
    out.append(f"   From the simultaneous {pct}% family over the per-interface g cells.")
    rows = []
    for e in envs:
        cells = e["simultaneous"]["g_cells"]
        pos = sum(1 for lo, _ in cells.values() if lo is not None and lo > 0)
        neg = sum(1 for _, hi in cells.values() if hi is not None and hi < 0)
        rows.append([e["environment"], e["decisions"]["sign"], pos, neg])
    out.append(_indent(table(rows, ["environment", "direction", "cells > 0", "cells < 0"])))
    out += ["", "4. Selection value: does choosing the ranker from the averaged interface pay?"]
    out.append(
        f"   {result['splits']} verdict-stratified splits, validation fraction "
        f"{result['validation_fraction']}; canonical interface {result['canonical']}; ties to "
        f"{result['base']}. Delta V = V_orbit - V_canonical (test balanced accuracy)."
    )
    out.append(
        f"   Operational if disagreement >= {t['min_disagreement']} and the spread of Delta V "
        f"over splits lies outside [-{t['margin']}, {t['margin']}]; mean CI: corrected "
        "resampled t interval of the mean over splits (Nadeau-Bengio)."
    )
    rows = []
    for e in envs:
        s = e["selection"]
        if s is None:
            rows.append([e["environment"], "n/a", "n/a", "no log_odds column", "n/a", "n/a"])
            continue
        rows.append(
            [
                e["environment"],
                s["disagreement"],
                s["delta_v"],
                _ci(*s["delta_v_interval"]),
                _mean_ci(s.get("delta_v_mean_interval")),
                _yes(s["operational"]),
            ]
        )
    out.append(
        _indent(
            table(
                rows,
                ["environment", "disagreement", "delta_V", "spread", "mean CI", "operational"],
            )
        )
    )
    return "\n".join(out) + "\n"


def _mean_ci(interval: dict[str, Any] | None) -> str:
    """The corrected resampled t interval of the mean Delta V (n/a with fewer than 2 splits)."""
    if not interval or interval["low"] is None:
        return "n/a"
    return _ci(interval["low"], interval["high"])


def _indent(text: str) -> str:
    return "\n".join("   " + line for line in text.splitlines())
