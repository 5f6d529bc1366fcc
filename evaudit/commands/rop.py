"""`evaudit rop`: Returned-Object Profile declarations, evaluation and target comparison.

Thin commands: parse options, call one service of `services.rop` and print its report
(`to_json()` under --json, `table()` otherwise).
"""

from __future__ import annotations

import click

from evaudit.commands.options import int_list
from evaudit.commands.rop_study import STUDY_COMMANDS
from evaudit.output import emit_json, progress_bar


@click.group(name="rop")
def rop() -> None:
    """Returned-Object Profile (ROP): does the selected object reach the returned list?

    A declaration fixes the interface claim, expected population, target,
    resolver, returned-ID field, cutoff and any/all rule; `evaluate` gives one
    verdict per record and one status per run ("Does the Selected Object Reach the Reader?", Appendix A).
    """


@rop.command("evaluate")
@click.argument("declaration", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def evaluate_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """Evaluate DECLARATION.json and its records.

    Exit code: 0 RUN_PASS or NOT_APPLICABLE, 1 RUN_FAIL, 2 RUN_UNVERIFIABLE,
    3 RUN_INVALID (including a declaration that cannot be read).
    """
    from services.rop import evaluate

    report = evaluate(declaration, progress_bar(as_json))
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())
    ctx.exit(report.exit_code)


@rop.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of a v1 declaration (shipped with the package)."""
    from services.rop import schema

    click.echo(schema().table())


@rop.command("validate")
@click.argument("declaration", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def validate_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """Report every schema and cross-file problem of DECLARATION.json.

    Checks the schema, every SHA-256, population order/count/hash, resolver
    ownership and the witness inverse map. Exit 0 when valid, 3 when not.
    """
    from services.rop import validate

    report = validate(declaration)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())
    ctx.exit(report.exit_code)


def _pair(_: click.Context, __: click.Parameter, value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if len(parts) != 2 or not all(parts):
        raise click.BadParameter("name two stacks, e.g. body_bm25,rrf_rerank")
    return parts[0], parts[1]


@rop.command("targets")
@click.option(
    "--records",
    "records",
    required=True,
    type=click.Path(dir_okay=False),
    help='JSONL: {"record_id","question_id","selected","trace","rankings":{STACK:[ids]}}.',
)
@click.option(
    "--cutoffs", default="1,5,20", show_default=True, callback=int_list, help="Cutoffs k."
)
@click.option(
    "--resolver",
    "resolver",
    type=click.Path(dir_okay=False),
    help="Resolver JSON mapping raw ids to canonical objects (default: compare raw ids).",
)
@click.option(
    "--subset",
    type=click.Choice(["all", "distinct", "aligned"]),
    default="all",
    show_default=True,
    help="Score all usable records, only those with U != G (distinct) or U = G (aligned).",
)
@click.option(
    "--pair",
    callback=_pair,
    help="BASE,NEW stacks: change in selected-object return from BASE to NEW.",
)
@click.option(
    "--bootstrap",
    "resamples",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Question-cluster bootstrap resamples for the --pair change (0 = none).",
)
@click.option(
    "--cluster",
    default="question_id",
    show_default=True,
    help="Record field whose values are the bootstrap clusters.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap random seed.")
@click.option("--by", "group_field", help="Also report each value of this field (e.g. model).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
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
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


@rop.command("from-qrels")
@click.option("--queries", required=True, type=click.Path(dir_okay=False), help="queries.jsonl.")
@click.option(
    "--qrels", required=True, type=click.Path(dir_okay=False), help="Qrels (TREC or JSONL)."
)
@click.option("--run", "run", required=True, type=click.Path(dir_okay=False), help="TREC run.")
@click.option(
    "--k",
    "cutoff",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Cutoff of the generated declaration.",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for declaration.json, resolver.json, records.jsonl (new or empty).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def from_qrels_cmd(
    queries: str, qrels: str, run: str, cutoff: int, out_dir: str, as_json: bool
) -> None:
    """Write a hard-mode ROP declaration from qrels and a run.

    Population = every query; acceptable targets = its golds (grade == n);
    returned ids = the run. Evaluate it with `evaudit rop evaluate OUT/declaration.json`.
    """
    from services.rop import from_qrels

    report = from_qrels(queries, qrels, run, cutoff=cutoff, out_dir=out_dir)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table())


for _command in STUDY_COMMANDS:
    rop.add_command(_command)

COMMANDS: list[click.Command] = [rop]
