"""The whole finite-orbit audit: point effects, shared bootstrap, simultaneous families,
R-norm bounds, decisions, replication rules and the selector comparison (`OrbitAnalysis`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorers.orbit.bootstrap import (
    bootstrap_effects,
    max_t_intervals,
    percentile_interval,
)
from scorers.orbit.decisions import (
    OBJECTS,
    Replication,
    Thresholds,
    determined_signs,
    replicated_first_order,
    replication_rules,
    sign_class,
)
from scorers.orbit.design import OrbitData
from scorers.orbit.effects import point_effects
from scorers.orbit.readings import delta_v_mean_interval
from scorers.orbit.selection import (
    compare_selectors,
    heldout_max_error,
    summarize_selection,
    validation_masks,
)
from scorers.orbit.walsh import (
    FIRST_ORDER,
    HIGH_ORDER,
    INTERFACES,
    NONEMPTY,
    SUBSET_KEYS,
    norm_bounds,
    r_norms,
    walsh,
)
from vocabulary.errors import InputError
from vocabulary.progress import Progress, no_progress

FloatArray = NDArray[np.float64]
NONEMPTY_KEYS = [k for k, m in zip(SUBSET_KEYS, NONEMPTY, strict=True) if m]


@dataclass
class Options:
    bootstrap: int = 10_000
    seed: int = 0
    level: float = 0.95
    thresholds: Thresholds = field(default_factory=Thresholds)
    confirmatory: list[str] | None = None  # "DATASET:READER"; None = every environment
    splits: int = 200
    validation_fraction: float = 0.4
    canonical: str = "+++"


def _check_options(data: OrbitData, opt: Options) -> list[str]:
    names = [e.name for e in data.environments]
    if opt.bootstrap < 2:
        raise InputError(f"--bootstrap {opt.bootstrap} is too small", hint="use at least 2")
    if opt.splits < 1:
        raise InputError(f"--splits {opt.splits} must be positive", hint="e.g. --splits 200")
    if not 0.0 < opt.validation_fraction < 1.0:
        raise InputError(
            f"--validation-fraction {opt.validation_fraction} is not between 0 and 1",
            hint="e.g. --validation-fraction 0.4",
        )
    if opt.canonical not in INTERFACES:
        raise InputError(
            f"--canonical {opt.canonical!r} is not an interface",
            hint=f"one of {', '.join(INTERFACES)}",
        )
    if opt.confirmatory is None:
        return names
    unknown = [c for c in opt.confirmatory if c not in names]
    if unknown:
        raise InputError(
            f"--confirmatory names unknown environment(s) {', '.join(unknown)}",
            hint=f"environments are DATASET:READER, here {', '.join(names)}",
        )
    return list(dict.fromkeys(opt.confirmatory))


def _pair(lo: float, hi: float) -> list[float]:
    return [float(lo), float(hi)]


@dataclass(frozen=True)
class OrbitAnalysis:
    """The whole audit: its options, the simultaneous families, one summary per environment
    (in its JSON shape: nested figures keyed by interface and Walsh subset), the replication
    verdicts and the rows the table lost."""

    base: str
    variant: str
    bootstrap: int
    seed: int
    level: float
    splits: int
    validation_fraction: float
    canonical: str
    thresholds: Thresholds
    confirmatory: list[str]
    families: dict[str, Any]  # coefficients / g_cells -> group -> its max-t family
    environments: list[dict[str, Any]]
    replication: Replication
    ignored_other_rankers: int
    dropped: list[dict[str, Any]]  # the incomplete claims dropped (--drop-incomplete)

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "variant": self.variant,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "level": self.level,
            "splits": self.splits,
            "validation_fraction": self.validation_fraction,
            "canonical": self.canonical,
            "thresholds": self.thresholds.as_dict(),
            "confirmatory": self.confirmatory,
            "families": self.families,
            "environments": self.environments,
            "replication": self.replication.to_json(),
            "rows": {
                "ignored_other_rankers": self.ignored_other_rankers,
                "dropped_claims": len(self.dropped),
                "dropped": self.dropped,
            },
        }


def analyze(data: OrbitData, opt: Options, progress: Progress = no_progress) -> OrbitAnalysis:
    """Run the audit; every random draw comes from ``opt.seed`` (same seed, same output)."""
    confirmatory = _check_options(data, opt)
    t = opt.thresholds
    boot_seq, split_seq = np.random.SeedSequence(opt.seed).spawn(2)
    boot_rngs = [np.random.default_rng(s) for s in boot_seq.spawn(len(data.datasets))]
    split_rngs = [np.random.default_rng(s) for s in split_seq.spawn(len(data.datasets))]

    points, reps, heldout, claims = [], [], [], []
    selections: list[dict[str, Any] | None] = []
    for ds, brng, srng in zip(data.datasets, boot_rngs, split_rngs, strict=True):
        points.append(point_effects(ds))
        reps.append(bootstrap_effects(ds, opt.bootstrap, brng, progress))
        masks = validation_masks(ds.positive, opt.splits, opt.validation_fraction, srng)
        heldout.append(heldout_max_error(ds, masks))
        for env in ds.environments:
            claims.append(
                {
                    "+": int(np.sum(env.present & ds.positive)),
                    "-": int(np.sum(env.present & ~ds.positive)),
                }
            )
            if env.log_odds is None:
                selections.append(None)
                continue
            per_split = compare_selectors(env, ds.positive, masks, opt.canonical)
            summary = summarize_selection(
                per_split,
                min_disagreement=t.min_disagreement,
                margin=t.margin,
                level=opt.level,
            ).to_json()
            mean_ci = delta_v_mean_interval(
                per_split["v_orbit"] - per_split["v_canonical"], opt.validation_fraction, opt.level
            )
            summary["delta_v_mean_interval"] = mean_ci.to_json()
            # `operational` keeps the spread (the project's earlier reading); this is the same
            # rule read on the interval for the mean (scorers/orbit/readings.py).
            summary["operational_mean_interval"] = bool(
                summary["disagreement"] >= t.min_disagreement
                and mean_ci.low is not None
                and mean_ci.high is not None
                and (mean_ci.low > t.margin or mean_ci.high < -t.margin)
            )
            selections.append(summary)
    envs = data.environments
    cells = np.concatenate(points, axis=0)  # (E, 2, 8)
    cell_reps = np.concatenate(reps, axis=1)  # (B, E, 2, 8)
    errors = np.concatenate(heldout, axis=1)  # (splits, E)
    coef = walsh(cells)
    coef_reps = walsh(cell_reps)
    norms = r_norms(coef)
    level_lo, level_hi = percentile_interval(coef_reps[..., 0], opt.level)  # (E, 2)

    # Two simultaneous families per group: nonempty coefficients of g and h, and g cells.
    # Declared confirmatory environments form one group; any others a descriptive group.
    is_conf = np.array([e.name in confirmatory for e in envs])
    coef_lo = np.full(coef.shape, np.nan)
    coef_hi = np.full(coef.shape, np.nan)
    cell_lo = np.full((len(cells), 8), np.nan)
    cell_hi = np.full((len(cells), 8), np.nan)
    families: dict[str, Any] = {"coefficients": {}, "g_cells": {}}
    for group, mask in (("confirmatory", is_conf), ("descriptive", ~is_conf)):
        if not mask.any():
            continue
        fam = max_t_intervals(
            coef[mask][..., NONEMPTY], coef_reps[:, mask][..., NONEMPTY], opt.level
        )
        shape = coef[mask][..., NONEMPTY].shape
        sub_lo = coef[mask].copy()
        sub_hi = coef[mask].copy()
        sub_lo[..., NONEMPTY] = np.asarray(fam["low"]).reshape(shape)
        sub_hi[..., NONEMPTY] = np.asarray(fam["high"]).reshape(shape)
        coef_lo[mask], coef_hi[mask] = sub_lo, sub_hi
        families["coefficients"][group] = _family_info(fam, int(np.prod(shape)), envs, mask)
        gfam = max_t_intervals(cells[mask, 0], cell_reps[:, mask, 0], opt.level)
        cell_lo[mask] = np.asarray(gfam["low"]).reshape(-1, 8)
        cell_hi[mask] = np.asarray(gfam["high"]).reshape(-1, 8)
        families["g_cells"][group] = _family_info(gfam, int(mask.sum()) * 8, envs, mask)

    bounds = {
        part: norm_bounds(coef_lo[..., sel], coef_hi[..., sel])
        for part, sel in (("first", FIRST_ORDER), ("high", HIGH_ORDER), ("total", NONEMPTY))
    }
    err_mean = errors.mean(axis=0)
    err_upper = np.quantile(errors, opt.level, axis=0)
    first_signs = [
        determined_signs(coef_lo[e][:, FIRST_ORDER], coef_hi[e][:, FIRST_ORDER])
        for e in range(len(envs))
    ]
    summaries: list[dict[str, Any]] = []
    for e, env in enumerate(envs):
        total_lo = bounds["total"][0][e]
        high_lo, high_hi = bounds["high"][0][e], bounds["high"][1][e]
        summaries.append(
            {
                "environment": env.name,
                "dataset": env.dataset,
                "reader": env.reader,
                "confirmatory": bool(is_conf[e]),
                "claims": claims[e],
                "g": dict(zip(INTERFACES, cells[e, 0].tolist(), strict=True)),
                "h": dict(zip(INTERFACES, cells[e, 1].tolist(), strict=True)),
                "walsh": {
                    o: dict(zip(SUBSET_KEYS, coef[e, i].tolist(), strict=True))
                    for i, o in enumerate(OBJECTS)
                },
                "R": {
                    o: {k: float(v[e, i]) for k, v in norms.items()} for i, o in enumerate(OBJECTS)
                },
                "level": {
                    o: {
                        "estimate": float(coef[e, i, 0]),
                        "low": float(level_lo[e, i]),
                        "high": float(level_hi[e, i]),
                    }
                    for i, o in enumerate(OBJECTS)
                },
                "simultaneous": {
                    "family": "confirmatory" if is_conf[e] else "descriptive",
                    "walsh": {
                        o: {
                            k: _pair(coef_lo[e, i, j], coef_hi[e, i, j])
                            for j, k in enumerate(SUBSET_KEYS)
                            if NONEMPTY[j]
                        }
                        for i, o in enumerate(OBJECTS)
                    },
                    "g_cells": {
                        k: _pair(cell_lo[e, j], cell_hi[e, j]) for j, k in enumerate(INTERFACES)
                    },
                    "R": {
                        o: {p: _pair(b[0][e, i], b[1][e, i]) for p, b in bounds.items()}
                        for i, o in enumerate(OBJECTS)
                    },
                },
                "decisions": {
                    "material_variation": bool(np.any(total_lo > t.material)),
                    "higher_order_material": bool(np.any(high_lo > t.material)),
                    "higher_order_negligible": bool(np.all(high_hi < t.material)),
                    "first_order_signs": {
                        o: dict(zip(NONEMPTY_KEYS[:3], first_signs[e][i].tolist(), strict=True))
                        for i, o in enumerate(OBJECTS)
                    },
                    "first_order_signs_replicated": None,
                    "sign": sign_class(cell_lo[e], cell_hi[e]),
                    "heldout_max_error": {"mean": float(err_mean[e]), "upper": float(err_upper[e])},
                    "heldout_error_below": bool(err_upper[e] < t.max_error),
                },
                "selection": selections[e],
            }
        )
    for in_group in (is_conf, ~is_conf):
        members = [int(i) for i in np.flatnonzero(in_group)]
        replicated = replicated_first_order([first_signs[i] for i in members])
        for member, ok in zip(members, replicated, strict=True):
            summaries[member]["decisions"]["first_order_signs_replicated"] = ok
    return OrbitAnalysis(
        base=data.base,
        variant=data.variant,
        bootstrap=opt.bootstrap,
        seed=opt.seed,
        level=opt.level,
        splits=opt.splits,
        validation_fraction=opt.validation_fraction,
        canonical=opt.canonical,
        thresholds=t,
        confirmatory=confirmatory,
        families=families,
        environments=summaries,
        replication=replication_rules([s for s in summaries if s["confirmatory"]], t),
        ignored_other_rankers=data.ignored_rows,
        dropped=data.dropped,
    )


def _family_info(fam: dict[str, Any], size: int, envs: list[Any], mask: Any) -> dict[str, Any]:
    return {
        "environments": [e.name for e, m in zip(envs, mask, strict=True) if m],
        "parameters": size,
        "critical_value": float(fam["critical_value"]),
        "replicates": int(fam["replicates"]),
    }
