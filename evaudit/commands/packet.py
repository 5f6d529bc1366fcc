"""`evaudit packet ...`: build blinded packets, export them, check for leaks, pool statistics."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evaudit.commands import options as opt
from evaudit.output import progress_bar

ROUTES = "original,selected,lexical,bm25,fuzzy,construction"

_DIR = click.argument("project_dir", metavar="DIR", type=click.Path(file_okay=False))
_NAME = click.argument("name")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


@click.group("packet")
def packet() -> None:
    """Build blinded annotation packets (with a separate admin key) and inspect them."""


@packet.command("build")
@_DIR
@click.option("--name", required=True, help="Packet name (letters, digits, . _ -); must be new.")
@click.option(
    "--kind",
    type=click.Choice(["initial", "adjudication", "challenge"]),
    default="initial",
    show_default=True,
    help="initial: stratified sample; adjudication: a repair queue; challenge: contrast targets.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the salted hashes.")
@click.option(
    "--strata",
    default="release,source,label",
    show_default=True,
    help="initial: comma list of stratum fields (release, source, label).",
)
@click.option("--per-stratum", type=int, help="initial: pairs per stratum.")
@click.option("--total", type=int, help="initial: total pairs, allocated proportionally.")
@click.option("--one-per-query", is_flag=True, help="initial: at most one pair per query.")
@click.option(
    "--pages-per-condition",
    type=int,
    default=3,
    show_default=True,
    help="initial: pages shown per condition.",
)
@click.option("--min-pages", type=int, default=6, show_default=True, help="adjudication/challenge.")
@click.option("--max-pages", type=int, default=9, show_default=True, help="adjudication/challenge.")
@click.option(
    "--queue",
    type=click.Path(dir_okay=False, path_type=Path),
    help="adjudication: queue JSON from `evaudit repair plan --queue-out`.",
)
@click.option("--base", help="challenge: base run name (as loaded).")
@click.option("--variant", help="challenge: variant run name (as loaded).")
@click.option("--k", "k", type=int, default=10, show_default=True, help="challenge: NDCG cutoff.")
@click.option("--controls", type=int, default=25, show_default=True, help="challenge: controls.")
@click.option(
    "--qrels-from", type=click.Choice(["finalize-output", "loaded"]),
    help="challenge: target the qrels as finalize revises them from the earlier stages, or as "
    "loaded (default: finalize-output when the project has an initial or challenge packet).",
)  # fmt: skip
@click.option(
    "--release", "releases", multiple=True,
    help="challenge: only queries of this release (repeatable; default: every release).",
)  # fmt: skip
@click.option(
    "--max-targets", type=int,
    help="challenge: at most N targets. Targets are ranked by how much each alone lowers the "
    "contrast, cut into 4 equal-count bands, N is shared among the bands in proportion to "
    "their size (largest remainder), and each band takes its targets with the lowest salted "
    "hash of (--seed, query, document): the same seed takes the same targets.",
)  # fmt: skip
@click.option(
    "--max-packet-mb", type=float, default=25.0, show_default=True,
    help="Refuse (writing nothing) a packet larger than this (1 MB = 10^6 bytes); the "
    "error names the flag that makes it fit.",
)  # fmt: skip
@click.option(
    "--seconds-per-condition", type=float, default=45.0, show_default=True,
    help="Assumed time per condition decision for the expected annotation time printed "
    "before the packet is written.",
)  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Build and measure the packet; write nothing.")
@click.option("--routes", default=ROUTES, show_default=True, help="Comma list of pool routes.")
@_JSON
def build_cmd(
    project_dir: str,
    name: str,
    kind: str,
    seed: int,
    strata: str,
    per_stratum: int | None,
    total: int | None,
    one_per_query: bool,
    pages_per_condition: int,
    min_pages: int,
    max_pages: int,
    queue: Path | None,
    base: str | None,
    variant: str | None,
    k: int,
    controls: int,
    qrels_from: str | None,
    releases: tuple[str, ...],
    max_targets: int | None,
    max_packet_mb: float,
    seconds_per_condition: float,
    dry_run: bool,
    routes: str,
    as_json: bool,
) -> None:
    """Build packet NAME in project DIR: the blinded packet and its admin key.

    Writes packets/NAME.json and keys/NAME.key.json and registers both in the
    store; refuses (writing nothing) on any error or leak, or when the packet is
    over --max-packet-mb. Its size and expected annotation time are printed
    before it is written (to stderr; under --json in "size").
    """
    from services.build import BuildSpec, build_packet

    spec = BuildSpec(
        name=name,
        kind=kind,
        seed=seed,
        strata=[s.strip() for s in strata.split(",") if s.strip()],
        per_stratum=per_stratum,
        total=total,
        one_per_query=one_per_query,
        pages_per_condition=pages_per_condition,
        min_pages=min_pages,
        max_pages=max_pages,
        queue=queue,
        base=base,
        variant=variant,
        k=k,
        controls=controls,
        qrels_from=qrels_from,
        releases=list(releases),
        routes=[r.strip() for r in routes.split(",") if r.strip()],
        max_targets=max_targets,
        max_packet_mb=max_packet_mb,
        seconds_per_condition=seconds_per_condition,
    )
    # --dry-run prints the same figures on stdout; --json carries them in "size"
    quiet = as_json or dry_run
    announce = None if quiet else (lambda plan: click.echo(plan.line(), err=True))
    report = build_packet(project_dir, spec, progress_bar(quiet=as_json), announce, dry_run)
    opt.print_report(report, as_json)


@packet.command("export")
@_DIR
@_NAME
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Output file."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "html"]),
    default="json",
    show_default=True,
    help="json: the packet bytes; html: the self-contained offline packet.",
)
@click.option("--annotator", help="html: the annotator the offline packet is for.")
@_JSON
def export_cmd(
    project_dir: str, name: str, out: Path, fmt: str, annotator: str | None, as_json: bool
) -> None:
    """Write packet NAME (never its admin key) to --out."""
    from services.offline import build_offline_html
    from services.packet_export import export_packet

    report = export_packet(project_dir, name, out, fmt, annotator, build_offline_html)
    opt.print_report(report, as_json)


@packet.command("check")
@_DIR
@_NAME
@_JSON
def check_cmd(project_dir: str, name: str, as_json: bool) -> None:
    """Scan packet NAME for admin-key values; exit 1 on any leak."""
    from services.packet_leaks import check_leaks

    report = check_leaks(project_dir, name)
    opt.print_report(report, as_json)
    if report.leaks:
        sys.exit(1)


@packet.command("stats")
@_DIR
@_NAME
@_JSON
def stats_cmd(project_dir: str, name: str, as_json: bool) -> None:
    """Pool composition of packet NAME (route memberships are nonexclusive)."""
    from services.pool import packet_pool_stats

    opt.print_report(packet_pool_stats(project_dir, name), as_json)


@packet.command("recall")
@_DIR
@_NAME
@click.option(
    "--scope", type=click.Choice(["locked", "all-positives"]), default="locked",
    show_default=True,
    help="locked: the queued pairs' locked positive conditions (as the supplement); "
    "all-positives: every condition with a known positive page.",
)  # fmt: skip
@_JSON
def recall_cmd(project_dir: str, name: str, scope: str, as_json: bool) -> None:
    """Held-out recall: known positive pages recovered without the selected/construction routes."""
    from services.pool import packet_recall

    report = packet_recall(project_dir, name, scope)
    opt.print_report(report, as_json)


@packet.command("list")
@_DIR
@_JSON
def list_cmd(project_dir: str, as_json: bool) -> None:
    """Registered packets, oldest first, with their SHA-256."""
    from services.packet_list import packet_list

    opt.print_report(packet_list(project_dir), as_json)


@packet.command("render")
@_DIR
@_NAME
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes rendering at once (default: every core).")  # fmt: skip
@_JSON
def render_cmd(project_dir: str, name: str, workers: int | None, as_json: bool) -> None:
    """Render every page image packet NAME shows into the project's image cache.

    The app serves a page from the cache first, so annotators of a new packet never wait
    for a first render; pages already cached are kept, and an edited PDF gets new images.
    Highlighted quotes are still drawn on demand (they depend on the annotator's quote).
    """
    from services.page_render import render_packet_images

    report = render_packet_images(project_dir, name, workers=workers,
                                  progress=progress_bar(as_json))  # fmt: skip
    opt.print_report(report, as_json)


COMMANDS: list[click.Command] = [packet]
