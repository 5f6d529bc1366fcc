"""Agreement, integrity, repair, adjudication and finalize commands (the audit chain of "Do Current Retrievers Cover All the Evidence?" (supplement)).

agreement audit -> repair plan -> packet build --kind adjudication -> adjudicate -> finalize
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from evaudit.commands import options as opt

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

_INITIAL_RATERS = click.option(
    "--initial-raters",
    help="The two initial streams, e.g. A,E (default: the stored choice, else the two "
    "complete streams; `evaudit raters` stores one).",
)


def _later_packets(name: str, dest: str, stage: str) -> opt.Decorator:
    """The packets of a later stage of the chain (repeatable), every one by default."""
    return click.option(name, dest, multiple=True, help=f"{stage} packet(s) (default: all).")


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
    opt.print_report(report, as_json)


@agreement.command("estimate")
@_DIR
@_PACKET
@_JSON
def agreement_estimate(directory: Path, packet: str, as_json: bool) -> None:
    """Estimated share of the whole benchmark's qrels whose grade changes, and of golds that are
    not gold, from the stratified initial PACKET and its finished audit (stratified Wilson 95%).

    A design-weighted estimate (inverse inclusion probabilities per stratum), which is not how
    the n-Clue supplement reads its stratified counts; the per-stratum counts print beside it."""
    from services.estimate import label_error_estimate

    report = label_error_estimate(directory, packet)
    opt.print_report(report, as_json)


@agreement.command("audit")
@_DIR
@_PACKET
@_RATERS
@_JSON
def agreement_audit(directory: Path, packet: str, raters: str | None, as_json: bool) -> None:
    """The audit table of "Do Current Retrievers Cover All the Evidence?" (supplement) for PACKET: derived grades, kappas, page sets, strata."""
    from services.agreement import agreement_audit as run

    report = run(directory, packet, raters)
    opt.print_report(report, as_json)


@click.command()
@_DIR
@_PACKET
@_JSON
def integrity(directory: Path, packet: str, as_json: bool) -> None:
    """Per response stream: positives, pages, exact quotes, errors; duplicate streams.

    Exit code 1 when it finds a problem (`ok` false: a structural or page-pool error, or a
    quote that fails the exact check), after printing the report; 0 when `ok`.
    """
    from services.integrity import integrity as run

    report = run(directory, packet)
    opt.print_report(report, as_json)
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
    from services.repair import repair_plan as run

    report = run(directory, packet, raters, queue_out)
    opt.print_report(report, as_json)


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
@_INITIAL_RATERS
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
    from services.adjudicate import adjudicate as run

    report = run(directory, packet, tiebreak, raters, initial, initial_raters)
    opt.print_report(report, as_json)


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
    from services.override import override as run

    report = run(directory, packet, item, condition, answer, reason, pages, quotes)
    opt.print_report(report, as_json)


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
@_INITIAL_RATERS
@_later_packets("--adjudication", "adjudication", "Adjudication")
@click.option(
    "--adjudication-raters",
    help="The voters of every adjudication packet, e.g. A,E,F (default: the stored choice, "
    "else every complete stream; `evaudit raters DIR PACKET A,E,F` stores one per packet).",
)
@_later_packets("--challenge", "challenges", "Challenge")
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
    from evaudit.commands.reproduce import command_argv
    from services.finalize import Stages
    from services.finalize import finalize as run

    # the command line as given, for the manifest (paths rewritten relative to it there)
    argv = command_argv(click.get_current_context()) if manifest_out is not None else []
    stages = Stages(
        initial=initial,
        initial_raters=initial_raters,
        adjudication=list(adjudication) or None,
        challenges=list(challenges) or None,
        tiebreak=tiebreak,
        allow_pending=allow_pending,
        adjudication_raters=adjudication_raters,
    )
    report = run(directory, out_dir, stages, promote_to, manifest_out=manifest_out, argv=argv)
    opt.print_report(report, as_json)


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
    from services.raters import raters as run

    report = run(directory, packet, names)
    opt.print_report(report, as_json)


COMMANDS: list[click.Command] = [
    agreement,
    integrity,
    repair,
    adjudicate,
    override,
    finalize,
    raters,
]
