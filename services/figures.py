"""The pictures of the score reports, drawn with matplotlib (Agg) from their JSON.

- `impact_figure`: a classic `score impact` report, two panels: the before/after slope
  chart of the system ranking (one line per run from its rank before to its rank after)
  and the scatter of every run's change against its value before, with the paired
  bootstrap interval of the change as an error bar;
- `fair_scatter`: Figure 2(a) of "Do Current Retrievers Cover All the Evidence?"
  (supplement, "Capability Matrix and Main-Paper Derivation"): every fair method (a run
  the `--category` file does not mark privileged) at its Gold Hit (x) and n-Clue Score
  (y), in points, from `score nclue`;
- `delta_plane`: Figure 2(b) there: every declared pair's paired effect in the Gold Hit
  - n-Clue Score delta plane (variant minus base, points, with the family-bootstrap
  intervals as error bars), from `score compare`.

Each function returns the figure and the values it plotted (`data`), so a test reads
back what was drawn. `save_figure` writes PNG or SVG by the file's suffix, through a
temporary file renamed into place (never half-written). matplotlib is imported here
only, and only when a picture is asked for. Run names are drawn literally (no mathtext:
a `$` in a name is a dollar sign).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vocabulary.errors import InputError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = {".png": "png", ".svg": "svg"}


def check_plot_path(path: Path) -> str:
    """The format of a --plot FILE (by suffix); an InputError before any work otherwise."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError("--plot takes a .png or .svg file", file=path,
                         hint="e.g. --plot impact.png or --plot impact.svg")  # fmt: skip
    if not path.parent.is_dir():
        raise InputError("--plot folder does not exist", file=path, hint="create it first")
    return fmt


def _figure(width: float, height: float) -> Figure:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def save_figure(fig: Figure, path: Path) -> None:
    fmt = check_plot_path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fig.savefig(tmp, format=fmt, dpi=150, metadata={"Date": None} if fmt == "svg" else None)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the plot ({exc.strerror})", file=path) from exc


def figure_bytes(fig: Figure, fmt: str = "png") -> bytes:
    """The picture as bytes (the admin page shows it without writing a file)."""
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=150)
    return buf.getvalue()


def impact_figure(
    body: dict[str, Any], measure: str | None = None
) -> tuple[Figure, dict[str, Any]]:
    """Slope chart and change scatter of one measure (default: the first)."""
    m = measure or body["measures"][0]
    runs = body["by_measure"][m]["runs"]
    tags = sorted(runs, key=lambda t: runs[t]["rank_before"])
    slope = [(t, int(runs[t]["rank_before"]), int(runs[t]["rank_after"])) for t in tags]
    changes: list[tuple[str, float, float, float, float]] = []
    for t in tags:
        r = runs[t]
        lo_hi = r["ci95"] if r["ci95"] else (r["delta"], r["delta"])
        changes.append((t, float(r["before"]), float(r["delta"]), float(lo_hi[0]), float(lo_hi[1])))
    data: dict[str, Any] = {"measure": m, "slope": slope, "changes": changes}
    n = len(tags)
    fig = _figure(11.0, max(3.5, 0.28 * n + 1.5))
    left, right = fig.subplots(1, 2)
    for t, rb, ra in slope:
        left.plot([0, 1], [rb, ra], marker="o", gid=f"slope:{t}")
        left.annotate(t, (0, rb), xytext=(-6, 0), textcoords="offset points", parse_math=False, ha="right",
                      va="center", fontsize=7)  # fmt: skip
        left.annotate(t, (1, ra), xytext=(6, 0), textcoords="offset points", parse_math=False, ha="left",
                      va="center", fontsize=7)  # fmt: skip
    left.set_xlim(-0.6, 1.6)
    left.set_ylim(n + 0.5, 0.5)  # rank 1 on top
    left.set_yticks(range(1, n + 1))
    left.set_xticks([0, 1], ["before", "after"])
    left.set_ylabel("rank")
    left.set_title(f"System ranking by {m}")
    xs = [c[1] for c in changes]
    ys = [c[2] for c in changes]
    lo = [c[2] - c[3] for c in changes]
    hi = [c[4] - c[2] for c in changes]
    right.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, gid="changes")
    right.axhline(0.0, color="grey", linewidth=0.8)
    for t, x, y, *_ in changes:
        right.annotate(
            t, (x, y), xytext=(4, 4), textcoords="offset points", parse_math=False, fontsize=7
        )
    right.set_xlabel(f"{m} before")
    right.set_ylabel("change (after - before), 95% interval")
    right.set_title("Change per run")
    return fig, data


def fair_scatter(body: dict[str, Any]) -> tuple[Figure, dict[str, Any]]:
    """Figure 2(a): fair methods at (Gold Hit, n-Clue Score), points."""
    privileged = set(body.get("privileged", []))
    runs = body["runs"]
    fair = [t for t in sorted(runs, key=lambda t: -runs[t]["nclue"]) if t not in privileged]
    data = {
        "points": [(t, 100 * runs[t]["gold_hit"], 100 * runs[t]["nclue"]) for t in fair],
        "left_out": sorted(privileged & set(runs)),
    }
    fig = _figure(6.5, 5.0)
    ax = fig.subplots()
    ax.scatter([p[1] for p in data["points"]], [p[2] for p in data["points"]], gid="fair")
    for t, x, y in data["points"]:
        ax.annotate(
            t, (x, y), xytext=(4, 3), textcoords="offset points", parse_math=False, fontsize=7
        )
    ax.set_xlabel(f"Gold Hit@{body.get('k', 10)} (points)")
    ax.set_ylabel(f"n-Clue Score@{body.get('k', 10)} (points)")
    ax.set_title(f"Fair methods ({len(fair)} runs)")
    return fig, data


def delta_plane(body: dict[str, Any]) -> tuple[Figure, dict[str, Any]]:
    """Figure 2(b): paired effects at (delta Gold Hit, delta n-Clue Score), points."""
    pts = []
    for p in body["pairs"]:
        ci_g = p["ci95"].get("gold_hit") or [p["diff"]["gold_hit"]] * 2
        ci_n = p["ci95"].get("nclue") or [p["diff"]["nclue"]] * 2
        pts.append((f"{p['base']} -> {p['variant']}", 100 * p["diff"]["gold_hit"],
                    100 * p["diff"]["nclue"], 100 * ci_g[0], 100 * ci_g[1],
                    100 * ci_n[0], 100 * ci_n[1]))  # fmt: skip
    data = {"points": pts}
    fig = _figure(6.5, 5.0)
    ax = fig.subplots()
    if pts:
        ax.errorbar([p[1] for p in pts], [p[2] for p in pts],
                    xerr=[[p[1] - p[3] for p in pts], [p[4] - p[1] for p in pts]],
                    yerr=[[p[2] - p[5] for p in pts], [p[6] - p[2] for p in pts]],
                    fmt="o", capsize=3, gid="pairs")  # fmt: skip
        for label, x, y, *_ in pts:
            ax.annotate(
                label,
                (x, y),
                xytext=(4, 3),
                textcoords="offset points",
                parse_math=False,
                fontsize=7,
            )
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.axvline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("delta Gold Hit (points, variant - base)")
    ax.set_ylabel("delta n-Clue Score (points, variant - base)")
    ax.set_title(f"Paired effects ({len(pts)} pairs)")
    return fig, data
