"""`evaudit rop` study commands: accounting, misses, association, deletion, replay-check and
envelope ("Does the Selected Object Reach the Reader?", Tables 4, 7, 9, 10, 15, 19, 21, the
replay join check and the declaration envelope of Appendix A).

Thin: parse options, call one service of `services.rop_study`, print its report. The
`rop` group in `evaudit/commands/rop.py` adds every command of ``STUDY_COMMANDS``.
"""

from __future__ import annotations

import click

from evaudit.commands.options import int_list
from evaudit.output import emit_json


def _arm_pairs(
    _: click.Context, __: click.Parameter, value: tuple[str, ...]
) -> list[tuple[str, str]]:
    out = []
    for raw in value:
        for item in raw.split(","):
            sep = ":" if ":" in item else "/"
            parts = [p.strip() for p in item.split(sep)]
            if len(parts) != 2 or not all(parts):
                raise click.BadParameter("name two arms, e.g. id:question")
            out.append((parts[0], parts[1]))
    return out


@click.command("accounting")
@click.option(
    "--records",
    required=True,
    type=click.Path(dir_okay=False),
    help='JSONL: {"record_id","model","selected","trace","rankings"?}.',
)
@click.option(
    "--resolver",
    required=True,
    type=click.Path(dir_okay=False),
    help="Resolver JSON (decides 'ID absent from corpus').",
)
@click.option(
    "--planned",
    type=click.Path(dir_okay=False),
    help='JSONL {"record_id","model"} of every planned record (default: the records).',
)
@click.option(
    "--cutoffs",
    default="1,5,20",
    show_default=True,
    callback=int_list,
    help="Cutoffs for the return rates over the planned denominator.",
)
@click.option(
    "--model-field", default="model", show_default=True, help="Record field of the model."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def accounting_cmd(
    records: str,
    resolver: str,
    planned: str | None,
    cutoffs: list[int],
    model_field: str,
    as_json: bool,
) -> None:
    """Table 4: every planned record per model in one column (not observed, invalid output,
    ID absent from corpus, U = G, U != G), and return rates over the planned denominator
    with invalid rows counted as misses (Table 20)."""
    from services.rop_study import accounting

    report = accounting(records, resolver, cutoffs, planned=planned, model_field=model_field)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@click.command("misses")
@click.option(
    "--records",
    required=True,
    type=click.Path(dir_okay=False),
    help="The `rop targets` JSONL, optionally with or_matches {STACK: n}.",
)
@click.option("--stack", required=True, help="Stack whose misses are listed (e.g. rrf_rerank).")
@click.option(
    "--cutoff",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Cutoff k of the miss.",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Released ranking depth: ranks beyond it are '> depth'.",
)
@click.option(
    "--resolver", type=click.Path(dir_okay=False), help="Resolver JSON (default: raw ids)."
)
@click.option(
    "--subset",
    type=click.Choice(["all", "distinct", "aligned"]),
    default="all",
    show_default=True,
    help="All usable records, U != G or U = G.",
)
@click.option("--by", "group_field", help="Partition per value of this field (e.g. model).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def misses_cmd(
    records: str,
    stack: str,
    cutoff: int,
    depth: int,
    resolver: str | None,
    subset: str,
    group_field: str | None,
    as_json: bool,
) -> None:
    """Tables 7, 15 and 19: rank of every missed selected object up to --depth, near the
    cutoff or absent, and the absent split into verified nonmatch (fewer than --depth
    documents satisfy the OR query) and unresolved, when or_matches is given."""
    from services.rop_study import misses

    report = misses(
        records, stack, cutoff, depth, resolver=resolver, subset=subset, group_field=group_field
    )
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@click.command("association")
@click.argument("reader", type=click.Path(dir_okay=False))
@click.option(
    "--pair",
    "pairs",
    multiple=True,
    required=True,
    callback=_arm_pairs,
    help="Arms A:B to pair (repeatable or comma-separated), e.g. id:question.",
)
@click.option(
    "--passages",
    type=click.IntRange(min=1),
    help="Keep pairs whose two contexts both hold this many passages.",
)
@click.option(
    "--bootstrap",
    "resamples",
    type=click.IntRange(min=0),
    default=10000,
    show_default=True,
    help="Cluster bootstrap resamples (0 = none).",
)
@click.option(
    "--cluster",
    default="question_id",
    show_default=True,
    help="Field whose values are resampled as whole clusters.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def association_cmd(
    reader: str,
    pairs: list[tuple[str, str]],
    passages: int | None,
    resamples: int,
    cluster: str,
    seed: int,
    as_json: bool,
) -> None:
    """Table 9: Return EM vs Omit EM on paired aligned contexts where the shared object is
    in exactly one, with a 95% interval that resamples question ids (all model rows of a
    question together), and the same in answer-token F1. READER.jsonl: {"question_id",
    "model","arm","answer","gold","contains_selected","aligned"?,"passages"?}; EM and F1 are
    scored from the raw answer against the gold answer(s) with HybridQA's (SQuAD v1.1's)
    normalization; a row may record "em" instead (no F1 then)."""
    from services.rop_study import association

    report = association(
        reader, pairs, passages=passages, resamples=resamples, seed=seed, cluster_field=cluster
    )
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@click.command("deletion")
@click.argument("calls", type=click.Path(dir_okay=False))
@click.option(
    "--arms",
    default="intact,trace_drop,sham_drop",
    show_default=True,
    help="Arms in the order intact, trace-drop, sham-drop (or any list).",
)
@click.option(
    "--contrast",
    "contrasts",
    multiple=True,
    callback=_arm_pairs,
    help="A/B contrasts (default: I/T, S/T, I/S for three arms; every pair otherwise).",
)
@click.option(
    "--bootstrap",
    "resamples",
    type=click.IntRange(min=0),
    default=10000,
    show_default=True,
    help="Paired bootstrap resamples over items (0 = none).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def deletion_cmd(
    calls: str,
    arms: str,
    contrasts: list[tuple[str, str]],
    resamples: int,
    seed: int,
    as_json: bool,
) -> None:
    """Tables 10 and 21: repeat-mean EM and answer-token F1 per item and arm (a failed call
    scores 0), A/B contrasts with paired bootstrap intervals and the most adverse
    reassignment of the failures, complete-case and valid-repeat summaries (failures left
    out), and per-arm call accounting. CALLS.jsonl: {"item_id","arm","repeat","status",
    "answer"?,"gold"?,"em"?,"requests"?}: a valid call's EM and F1 are scored from its raw
    answer against the gold answer(s) with HybridQA's (SQuAD v1.1's) normalization."""
    from services.rop_study import deletion

    arm_list = [a.strip() for a in arms.split(",") if a.strip()]
    if len(arm_list) < 2:
        raise click.BadParameter("name at least two arms", param_hint="--arms")
    report = deletion(calls, arm_list, contrasts or None, resamples=resamples, seed=seed)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@click.command("replay-check")
@click.option(
    "--runs",
    required=True,
    type=click.Path(dir_okay=False),
    help='Run records JSONL {"record_id","question_id","model"?,"rankings"|"returned", '
    '"condition"?,"reference_path"?,"cutoff"?,"task"?,"terminal_attempt"?,'
    '"invalid_output_policy"?,"status"?}.',
)
@click.option(
    "--reader",
    required=True,
    type=click.Path(dir_okay=False),
    help='Reader records JSONL {"run_record_id","question_id","model"?,"stack"?,'
    '"returned_sha256"} and the run record\'s bound fields.',
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def replay_check_cmd(ctx: click.Context, runs: str, reader: str, as_json: bool) -> None:
    """Validate joined replay records: every reader record refers to a declared run record
    with the same question id (and model), the same returned-list SHA-256, and the same
    condition, reference path, cutoff, task, terminal attempt, invalid-output policy and
    status wherever either record carries one (each mismatch named with its line). Exit 0
    when every reader record is accepted, 1 when any is rejected."""
    from services.rop_study import replay_check

    report = replay_check(runs, reader)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())
    ctx.exit(report.exit_code)


@click.command("envelope")
@click.argument("declaration", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def envelope_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """The declaration envelope checks: interface, component, mode and policy revision equal
    to the instruction sheet's. Without an envelope they are not applicable (never passed).
    Exit 0 when valid or not applicable, 3 when a value differs (the declaration is invalid;
    `rop evaluate` gives RUN_INVALID)."""
    from services.rop_study import envelope

    report = envelope(declaration)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())
    ctx.exit(report.exit_code)


STUDY_COMMANDS: list[click.Command] = [
    accounting_cmd,
    misses_cmd,
    association_cmd,
    deletion_cmd,
    replay_check_cmd,
    envelope_cmd,
]
