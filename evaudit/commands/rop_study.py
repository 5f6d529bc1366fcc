"""`evaudit rop` study commands: accounting, misses, association, deletion, replay-check and
envelope ("Does the Selected Object Reach the Reader?", Tables 4, 7, 9, 10, 15, 19, 21, the
replay join check and the declaration envelope of Appendix A).

Thin: parse options, call one service of `services.rop_study`, print its report. The
`rop` group in `evaudit/commands/rop.py` adds every command of ``STUDY_COMMANDS``.
"""

from __future__ import annotations

import click

from evaudit.commands import options as opt


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
@opt.file_option(
    "--records", 'JSONL: {"record_id","model","selected","trace","rankings"?}.', required=True
)
@opt.file_option("--resolver", "Resolver JSON (decides 'ID absent from corpus').", required=True)
@opt.file_option(
    "--planned", 'JSONL {"record_id","model"} of every planned record (default: the records).'
)
@opt.cutoffs_option("Cutoffs for the return rates over the planned denominator.")
@click.option(
    "--model-field", default="model", show_default=True, help="Record field of the model."
)
@opt.json_option
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
    opt.print_report(report, as_json)


@click.command("misses")
@opt.file_option(
    "--records", "The `rop targets` JSONL, optionally with or_matches {STACK: n}.", required=True
)
@click.option("--stack", required=True, help="Stack whose misses are listed (e.g. rrf_rerank).")
@opt.count_option("--cutoff", default=5, help="Cutoff k of the miss.")
@opt.count_option(
    "--depth", default=20, help="Released ranking depth: ranks beyond it are '> depth'."
)
@opt.file_option("--resolver", "Resolver JSON (default: raw ids).")
@opt.subset_option("All usable records, U != G or U = G.")
@opt.by_option("Partition per value of this field (e.g. model).")
@opt.json_option
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
    opt.print_report(report, as_json)


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
@opt.bootstrap_options(
    10000,
    "Cluster bootstrap resamples (0 = none).",
    "Bootstrap seed.",
    cluster_help="Field whose values are resampled as whole clusters.",
)
@opt.json_option
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
    opt.print_report(report, as_json)


@click.command("deletion")
@click.argument("calls", type=click.Path(dir_okay=False))
@opt.shown_option(
    "--arms",
    default="intact,trace_drop,sham_drop",
    help="Arms in the order intact, trace-drop, sham-drop (or any list).",
)
@click.option(
    "--contrast",
    "contrasts",
    multiple=True,
    callback=_arm_pairs,
    help="A/B contrasts (default: I/T, S/T, I/S for three arms; every pair otherwise).",
)
@opt.bootstrap_options(
    10000, "Paired bootstrap resamples over items (0 = none).", "Bootstrap seed."
)
@opt.json_option
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
    opt.print_report(report, as_json)


@click.command("replay-check")
@opt.file_option(
    "--runs",
    'Run records JSONL {"record_id","question_id","model"?,"rankings"|"returned", '
    '"condition"?,"reference_path"?,"cutoff"?,"task"?,"terminal_attempt"?,'
    '"invalid_output_policy"?,"status"?}.',
    required=True,
)
@opt.file_option(
    "--reader",
    'Reader records JSONL {"run_record_id","question_id","model"?,"stack"?,'
    '"returned_sha256"} and the run record\'s bound fields.',
    required=True,
)
@opt.json_option
@click.pass_context
def replay_check_cmd(ctx: click.Context, runs: str, reader: str, as_json: bool) -> None:
    """Validate joined replay records: every reader record refers to a declared run record
    with the same question id (and model), the same returned-list SHA-256, and the same
    condition, reference path, cutoff, task, terminal attempt, invalid-output policy and
    status wherever either record carries one (each mismatch named with its line). Exit 0
    when every reader record is accepted, 1 when any is rejected."""
    from services.rop_study import replay_check

    report = replay_check(runs, reader)
    opt.exit_with_report(ctx, report, as_json)


@click.command("envelope")
@click.argument("declaration", type=click.Path(dir_okay=False))
@opt.json_option
@click.pass_context
def envelope_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """The declaration envelope checks: interface, component, mode and policy revision equal
    to the instruction sheet's. Without an envelope they are not applicable (never passed).
    Exit 0 when valid or not applicable, 3 when a value differs (the declaration is invalid;
    `rop evaluate` gives RUN_INVALID)."""
    from services.rop_study import envelope

    report = envelope(declaration)
    opt.exit_with_report(ctx, report, as_json)


STUDY_COMMANDS: list[click.Command] = [
    accounting_cmd,
    misses_cmd,
    association_cmd,
    deletion_cmd,
    replay_check_cmd,
    envelope_cmd,
]
