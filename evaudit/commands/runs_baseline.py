"""`evaudit runs bm25` and `runs floor`: baseline runs from the ingested corpus
(services.baseline_runs)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from services.baseline_runs import RunReport

_out = click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True,
                    help="TREC run to write (atomically).")  # fmt: skip
_depth = click.option("--depth", type=click.IntRange(min=1), default=1000, show_default=True,
                      help="Lines kept per query.")  # fmt: skip
_level = click.option("--level", type=click.Choice(["document", "page"]), default="document",
                      show_default=True,
                      help="Rank documents (their pages' text joined) or pages (docno "
                      "doc_id#page: a page run for Gold+Support and page aggregation).")  # fmt: skip
_tag = click.option("--tag", default=None, help="Tag column (default: from the kind and level).")
_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


def _print(report: RunReport, as_json: bool) -> None:
    from evaudit.output import emit_json

    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@click.command("bm25")
@click.argument("project", type=click.Path(path_type=Path, file_okay=False))
@_level
@click.option("--form", type=click.Choice(["raw", "clean_v2", "natural"]), default="raw",
              show_default=True,
              help="Query form (docs/queries): the query text, or its condition names.")  # fmt: skip
@click.option("--k1", type=click.FloatRange(min=0), default=0.9, show_default=True,
              help="BM25 k1 (Anserini's default 0.9).")  # fmt: skip
@click.option("--b", "b", type=click.FloatRange(min=0, max=1), default=0.4, show_default=True,
              help="BM25 b (Anserini's default 0.4).")  # fmt: skip
@click.option("--method", type=click.Choice(["lucene", "robertson", "atire", "bm25l", "bm25+"]),
              default="lucene", show_default=True,
              help="bm25s variant (docs/references.md: how each relates to rank_bm25).")  # fmt: skip
@_depth
@_out
@_tag
@_json
def bm25_cmd(
    project: Path, level: str, form: str, k1: float, b: float, method: str, depth: int,
    out: Path, tag: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Write a BM25 run of every loaded query over the ingested documents or pages.

    Ties are broken by unit order (documents by id, pages by page number), units that
    match no query word are left out, and a query with no matching unit has no line
    (listed in the output).
    """
    from evaudit.output import progress_bar
    from services.baseline_runs import bm25_run

    report = bm25_run(project, out, level=level, form=form, k1=k1, b=b,
                      depth=depth, method=method, tag=tag,
                      progress=progress_bar(as_json))  # fmt: skip
    _print(report, as_json)


@click.command("floor")
@click.argument("project", type=click.Path(path_type=Path, file_okay=False))
@click.option("--kind", type=click.Choice(["frequency", "random"]), required=True,
              help="frequency: documents by how many queries the loaded qrels judge them "
              "relevant for (the same list for every query; it reads the labels); random: "
              "a seeded random order per query.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the random floor (with the query id: a query's order does not "
              "depend on the other queries).")  # fmt: skip
@_level
@_depth
@_out
@_tag
@_json
def floor_cmd(
    project: Path, kind: str, seed: int, level: str, depth: int, out: Path, tag: str | None,
    as_json: bool,
) -> None:  # fmt: skip
    """Write a query-blind floor run (the n-Clue paper's frequency_prior and random rows)."""
    from evaudit.output import progress_bar
    from services.baseline_runs import floor_run

    report = floor_run(project, out, kind=kind, seed=seed, depth=depth,
                       level=level, tag=tag, progress=progress_bar(as_json))  # fmt: skip
    _print(report, as_json)
