"""The admin page's Impact tab: the same reports and pictures as the CLI, for a project.

A BEIR/TREC project: `score impact --project P` on its stored runs (the revision as
`finalize` computes it), its label-influence table and its picture. An n-Clue project:
Figures 2(a) and 2(b) of the n-Clue supplement (`score nclue --plot`, `score compare
--plot`) on its stored runs, which are written to a private temporary folder as TREC run
files for the score services to read. Nothing is computed here that the services do not
compute for the CLI.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from campaign.project import Project
from services.impact_classic import ClassicOptions, classic_impact
from services.impact_inputs import is_classic, project_runs
from services.impact_report import ClassicImpactReport
from vocabulary.errors import InputError


@dataclass(frozen=True)
class AdminImpact:
    report: ClassicImpactReport | None
    png: bytes | None
    note: str


@dataclass(frozen=True)
class AdminFigures:
    fair: bytes | None  # Figure 2(a)
    plane: bytes | None  # Figure 2(b), when pairs were picked
    note: str


def admin_impact(project: Project, measures: Sequence[str] = ("ndcg_cut_10",),
                 top: int = 20) -> AdminImpact:  # fmt: skip
    """`score impact --project P --measure ...` on the stored runs, with its picture."""
    from services.figures import figure_bytes, impact_figure

    if not is_classic(project.root):
        return AdminImpact(None, None, "an n-Clue project: see Figures 2(a) and 2(b) below")
    try:
        report = classic_impact(project=project.root,
                                options=ClassicOptions(measures=tuple(measures), top=top))  # fmt: skip
    except InputError as exc:
        return AdminImpact(None, None, f"no impact yet: {exc.render()}")
    note = (f"The same figures as `evaudit score impact --project {project.root} --run ... "
            f"--measure {','.join(report.measures)} --json` on the stored runs.")  # fmt: skip
    return AdminImpact(report, figure_bytes(impact_figure(report.to_json())[0]), note)


def run_names(project: Project) -> list[str]:
    try:
        return list(project_runs(project.root))
    except InputError:
        return []


def admin_figures(project: Project, pairs: Sequence[str] = ()) -> AdminFigures:
    """Figures 2(a) and 2(b) of an n-Clue project's stored runs (2(b): the picked pairs)."""
    from services.figures import delta_plane, fair_scatter, figure_bytes
    from services.score import score_compare, score_nclue
    from services.score_inputs import ScoreSource

    try:
        runs = project_runs(project.root)
        with tempfile.TemporaryDirectory() as tmp:
            specs = []
            for i, (name, rows) in enumerate(runs.items()):
                path = Path(tmp) / f"run{i}.trec"
                with path.open("w", encoding="utf-8") as fh:
                    fh.writelines(f"{q} Q0 {d} {r + 1} {s!r} {name}\n"
                                  for r, (q, d, s) in enumerate(rows))  # fmt: skip
                specs.append((name, path))
            src = ScoreSource(None, project.root, tuple(specs))
            nclue = score_nclue(src, qrels=None, k=10, bootstrap=1000, seed=11)
            fair = figure_bytes(fair_scatter(nclue.to_json())[0])
            plane = None
            if pairs:
                cmp = score_compare(src, qrels=None, k=10, pairs=tuple(pairs), draws=10_000,
                                    bootstrap=1000, seed=11)  # fmt: skip
                plane = figure_bytes(delta_plane(cmp.to_json())[0])
    except InputError as exc:
        return AdminFigures(None, None, f"no figures yet: {exc.render()}")
    return AdminFigures(fair, plane, "The same figures as `evaudit score nclue --plot` and "
                        "`evaudit score compare --pair ... --plot` on the stored runs.")  # fmt: skip
