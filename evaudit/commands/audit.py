"""Agreement, integrity, repair, adjudication and finalize commands (the audit chain of "Do Current Retrievers Cover All the Evidence?" (supplement)).

agreement audit -> repair plan -> packet build --kind adjudication -> adjudicate -> finalize
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evaudit.output import emit_json

_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
_PACKET = click.argument("packet")
_JSON = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object and nothing else."
)
_RATERS = click.option(
    "--raters",
    help="Comma-separated response streams (annotator names), e.g. A,E. Default: the raters "
    "stored for the packet (`evaudit raters`), else every complete stream (duplicates "
    "collapsed); a list that contradicts the stored one is refused.",
)


@click.group()
def agreement() -> None:
    """Inter-rater agreement: any ratings table, or an audit packet's journals."""


@agreement.command("stats")
@click.option(
    "--ratings",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="CSV with header unit,rater,value (a missing rating is an absent row).",
)
@click.option(
    "--order",
    default=None,
    help="The labels lowest first, e.g. low,mid,high: the scale of ordinal alpha and the "
    "weighted Cohen kappas (krippendorff's value_domain). Without it (or --guideline) "
    "string labels are ordered alphabetically.",
)
@click.option(
    "--guideline",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help='Take the order from a guideline JSON\'s "labels" list (lowest first).',
)
@_JSON
def agreement_stats(
    ratings: Path, order: str | None, guideline: Path | None, as_json: bool
) -> None:
    """Krippendorff's alpha, Fleiss' kappa and (two raters) Cohen's kappa, AC1, Wilson CI."""
    from services.ratings import ratings_stats

    report = ratings_stats(ratings, order, guideline)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@agreement.command("estimate")
@_DIR
@_PACKET
@_JSON
def agreement_estimate(directory: Path, packet: str, as_json: bool) -> None:
    """Estimated share of the whole benchmark's qrels whose grade changes, and of golds that are
    not gold, from the stratified initial PACKET and its finished audit (stratified Wilson 95%).

    A design-weighted estimate (inverse inclusion probabilities per stratum), which is not how
    the n-Clue supplement reads its stratified counts; the per-stratum counts print beside it."""
    from campaign.project import open_project
    from services.estimate import label_error_estimate

    report = label_error_estimate(open_project(directory), packet)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@agreement.command("audit")
@_DIR
@_PACKET
@_RATERS
@_JSON
def agreement_audit(directory: Path, packet: str, raters: str | None, as_json: bool) -> None:
    """The audit table of "Do Current Retrievers Cover All the Evidence?" (supplement) for PACKET: derived grades, kappas, page sets, strata."""
    from campaign.project import open_project
    from services.agreement import agreement_audit as run

    report = run(open_project(directory), packet, raters)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@click.command()
@_DIR
@_PACKET
@_JSON
def integrity(directory: Path, packet: str, as_json: bool) -> None:
    """Per response stream: positives, pages, exact quotes, errors; duplicate streams.

    Exit code 1 when it finds a problem (`ok` false: a structural or page-pool error, or a
    quote that fails the exact check), after printing the report; 0 when `ok`.
    """
    from campaign.project import open_project
    from services.integrity import integrity as run

    report = run(open_project(directory), packet)
    emit_json(report.to_json()) if as_json else click.echo(report.table())
    if not report.ok:
        sys.exit(1)


@click.group()
def repair() -> None:
    """The evidence-asymmetric repair policy."""


@repair.command("plan")
@_DIR
@_PACKET
@_RATERS
@click.option(
    "--queue-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the adjudication queue here (input of `packet build --kind adjudication --queue`).",
)
@_JSON
def repair_plan(
    directory: Path, packet: str, raters: str | None, queue_out: Path | None, as_json: bool
) -> None:
    """Accept the two raters' consensus increases; queue splits and decreases for adjudication."""
    from campaign.project import open_project
    from services.repair import repair_plan as run

    report = run(open_project(directory), packet, raters, queue_out)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@click.command()
@_DIR
@_PACKET
@_RATERS
@click.option(
    "--tiebreak", help="Stream that answers only the disagreeing conditions and decides them."
)
@click.option(
    "--initial",
    help="Initial packet whose locked conditions complete the grades (default: the only one).",
)
@click.option(
    "--initial-raters",
    help="The two initial streams, e.g. A,E (default: the stored choice, else the two "
    "complete streams; `evaudit raters` stores one).",
)
@_JSON
def adjudicate(
    directory: Path,
    packet: str,
    raters: str | None,
    tiebreak: str | None,
    initial: str | None,
    initial_raters: str | None,
    as_json: bool,
) -> None:
    """Majority decisions per condition, overrides, tie-breaks, and final grades with the gate."""
    from campaign.project import open_project
    from services.adjudicate import adjudicate as run

    report = run(open_project(directory), packet, tiebreak, raters, initial, initial_raters)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@click.command()
@_DIR
@_PACKET
@click.argument("item")
@click.argument("condition")
@click.option("--answer", type=click.Choice(["yes", "no"]), required=True, help="The decision.")
@click.option("--reason", required=True, help="Why (logged with the decision).")
@click.option("--page", "pages", multiple=True, help="Page key supporting a yes (repeatable).")
@click.option(
    "--quote", "quotes", multiple=True, help="Verbatim quote for the --page at the same position."
)
@_JSON
def override(
    directory: Path,
    packet: str,
    item: str,
    condition: str,
    answer: str,
    reason: str,
    pages: tuple[str, ...],
    quotes: tuple[str, ...],
    as_json: bool,
) -> None:
    """Record an evidence-aware admin decision for ITEM CONDITION (never a vote, never in kappa)."""
    from audit_chain.overrides_io import record_override

    out = record_override(directory, packet, item, condition, answer, reason, pages, quotes)
    if as_json:
        emit_json(out)
        return
    click.echo(f"recorded override {item} {condition} -> {answer} in {out['file']}")


@click.command()
@_DIR
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder.",
)
@click.option("--initial", help="Initial packet (default: the only one).")
@click.option(
    "--initial-raters",
    help="The two initial streams, e.g. A,E (default: the stored choice, else the two "
    "complete streams; `evaudit raters` stores one).",
)
@click.option(
    "--adjudication", "adjudication", multiple=True, help="Adjudication packet(s) (default: all)."
)
@click.option(
    "--adjudication-raters",
    help="The voters of every adjudication packet, e.g. A,E,F (default: the stored choice, "
    "else every complete stream; `evaudit raters DIR PACKET A,E,F` stores one per packet).",
)
@click.option(
    "--challenge", "challenges", multiple=True, help="Challenge packet(s) (default: all)."
)
@click.option("--tiebreak", help="Tie-break stream of the challenge packets.")
@click.option("--allow-pending", is_flag=True, help="Keep the old grade of pairs not yet decided.")
@click.option(
    "--promote-to",
    type=int,
    help="BEIR/TREC projects: the original-scale grade of a pair the audit made relevant "
    "(needed when there is one; at least the load's --relevant-from).",
)
@click.option(
    "--manifest-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a reproduction manifest (project files and outputs with SHA-256, this "
    "command) for `evaudit reproduce FILE --verify`; the project and --out lie under its folder.",
)
@_JSON
def finalize(
    directory: Path,
    out_dir: Path,
    initial: str | None,
    initial_raters: str | None,
    adjudication: tuple[str, ...],
    adjudication_raters: str | None,
    challenges: tuple[str, ...],
    tiebreak: str | None,
    allow_pending: bool,
    promote_to: int | None,
    manifest_out: Path | None,
    as_json: bool,
) -> None:
    """Write revised qrels (TREC + JSONL), report and manifest (SHA-256 of inputs and outputs).

    A BEIR or TREC project's revised qrels keep its original grade scale: a confirmed
    label keeps its grade, a demoted one becomes 0, a promoted one gets --promote-to."""
    from campaign.project import open_project
    from services.finalize import finalize as run

    ins: list[Path] = []
    if manifest_out is not None:  # refused before anything is written
        from packet_builder.reproduce import project_files, require_inside

        require_inside(manifest_out, [directory, out_dir])
        ins = project_files(directory, exclude=[out_dir, manifest_out])
    report = run(
        open_project(directory),
        out_dir,
        initial,
        initial_raters,
        list(adjudication) or None,
        list(challenges) or None,
        tiebreak,
        allow_pending,
        promote_to,
        adjudication_raters,
    )
    if manifest_out is not None:
        from evaudit.commands.reproduce import command_argv
        from packet_builder.reproduce import write_command_manifest

        made = [out_dir / name for name in report.outputs]
        write_command_manifest(manifest_out, command_argv(click.get_current_context()), ins, made)
        report = report.with_entry("manifest_out", str(manifest_out))
    emit_json(report.to_json()) if as_json else click.echo(report.table())


@click.command("raters")
@_DIR
@_PACKET
@click.argument("names", required=False)
@_JSON
def raters(directory: Path, packet: str, names: str | None, as_json: bool) -> None:
    """Show PACKET's response streams (complete or not, with counts) and its raters; with
    NAMES (e.g. A,E), store them as the raters of this stage.

    Every command of the chain (agreement audit, integrity, repair plan, adjudicate,
    finalize, packet build --kind challenge) then uses the stored raters; a rater flag that
    contradicts them is refused. Without a stored choice only complete streams count, and
    an initial packet's two complete streams are stored by the first command that uses them.
    """
    from campaign.project import open_project
    from services.raters import choose_raters, show_raters

    project = open_project(directory)
    report = choose_raters(project, packet, names) if names else show_raters(project, packet)
    emit_json(report.to_json()) if as_json else click.echo(report.table())


COMMANDS: list[click.Command] = [
    agreement,
    integrity,
    repair,
    adjudicate,
    override,
    finalize,
    raters,
]
