"""`evaudit rop`: Returned-Object Profile declarations, evaluation and target comparison.

Thin commands: parse options, call one service of `services.rop` and print its report
(`to_json()` under --json, `table()` otherwise).
"""

from __future__ import annotations

import click

from evaudit.commands import options as opt
from evaudit.commands.rop_study import STUDY_COMMANDS
from evaudit.output import progress_bar


@click.group(name="rop")
def rop() -> None:
    """Returned-Object Profile (ROP): does the selected object reach the returned list?

    A declaration fixes the interface claim, expected population, target,
    resolver, returned-ID field, cutoff and any/all rule; `evaluate` gives one
    verdict per record and one status per run ("Does the Selected Object Reach the Reader?", Appendix A).
    """


@rop.command("evaluate")
@click.argument("declaration", type=click.Path(dir_okay=False))
@opt.json_option
@click.pass_context
def evaluate_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """Evaluate DECLARATION.json and its records.

    Exit code: 0 RUN_PASS or NOT_APPLICABLE, 1 RUN_FAIL, 2 RUN_UNVERIFIABLE,
    3 RUN_INVALID (including a declaration that cannot be read).
    """
    from services.rop import evaluate

    report = evaluate(declaration, progress_bar(as_json))
    opt.exit_with_report(ctx, report, as_json)


@rop.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of a v1 declaration (shipped with the package)."""
    from services.rop import schema

    click.echo(schema().table())


@rop.command("validate")
@click.argument("declaration", type=click.Path(dir_okay=False))
@opt.json_option
@click.pass_context
def validate_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """Report every schema and cross-file problem of DECLARATION.json.

    Checks the schema, every SHA-256, population order/count/hash, resolver
    ownership and the witness inverse map. Exit 0 when valid, 3 when not.
    """
    from services.rop import validate

    report = validate(declaration)
    opt.exit_with_report(ctx, report, as_json)


def _pair(_: click.Context, __: click.Parameter, value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if len(parts) != 2 or not all(parts):
        raise click.BadParameter("name two stacks, e.g. body_bm25,rrf_rerank")
    return parts[0], parts[1]


@rop.command("targets")
@opt.file_option(
    "--records",
    'JSONL: {"record_id","question_id","selected","trace","rankings":{STACK:[ids]}}.',
    required=True,
)
@opt.cutoffs_option("Cutoffs k.")
@opt.file_option(
    "--resolver", "Resolver JSON mapping raw ids to canonical objects (default: compare raw ids)."
)
@opt.subset_option(
    "Score all usable records, only those with U != G (distinct) or U = G (aligned)."
)
@click.option(
    "--pair",
    callback=_pair,
    help="BASE,NEW stacks: change in selected-object return from BASE to NEW.",
)
@opt.bootstrap_options(
    0,
    "Question-cluster bootstrap resamples for the --pair change (0 = none).",
    "Bootstrap random seed.",
    cluster_help="Record field whose values are the bootstrap clusters.",
)
@opt.by_option("Also report each value of this field (e.g. model).")
@opt.json_option
def targets_cmd(
    records: str,
    cutoffs: list[int],
    resolver: str | None,
    subset: str,
    pair: tuple[str, str] | None,
    resamples: int,
    cluster: str,
    seed: int,
    group_field: str | None,
    as_json: bool,
) -> None:
    """Score selected object (P) and dataset trace (H) against the same rankings.

    Per stack and cutoff: joint counts P1H1, P1H0, P0H1, P0H0, different labels
    and both recalls ("Does the Selected Object Reach the Reader?", Tables 16-18). Records whose selected or trace
    id is missing or unresolvable are excluded and listed.
    """
    from services.rop import targets

    if resamples and pair is None:
        raise click.UsageError("--bootstrap needs --pair BASE,NEW")
    report = targets(
        records,
        cutoffs,
        resolver=resolver,
        subset=subset,
        pair=pair,
        resamples=resamples,
        cluster_field=cluster,
        seed=seed,
        group_field=group_field,
    )
    opt.print_report(report, as_json)


@rop.command("from-qrels")
@opt.file_option("--queries", "queries.jsonl.", required=True)
@opt.file_option("--qrels", "Qrels (TREC or JSONL).", required=True)
@opt.file_option("--run", "TREC run.", required=True)
@opt.count_option("--k", "cutoff", default=10, help="Cutoff of the generated declaration.")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for declaration.json, resolver.json, records.jsonl (new or empty).",
)
@opt.json_option
def from_qrels_cmd(
    queries: str, qrels: str, run: str, cutoff: int, out_dir: str, as_json: bool
) -> None:
    """Write a hard-mode ROP declaration from qrels and a run.

    Population = every query; acceptable targets = its golds (grade == n);
    returned ids = the run. Evaluate it with `evaudit rop evaluate OUT/declaration.json`.
    """
    from services.rop import from_qrels

    report = from_qrels(queries, qrels, run, cutoff=cutoff, out_dir=out_dir)
    opt.print_report(report, as_json)


for _command in STUDY_COMMANDS:
    rop.add_command(_command)

COMMANDS: list[click.Command] = [rop]
