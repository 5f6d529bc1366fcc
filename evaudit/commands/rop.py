"""`evaudit rop`: Returned-Object Profile declarations, evaluation and target comparison.

Thin commands: parse options, call one function of `packet_builder.rop_files`
(the file edge of the pure `scorers.rop` library), print.
"""

from __future__ import annotations

import json
from typing import Any

import click

from evaudit.commands.options import int_list
from evaudit.commands.rop_study import STUDY_COMMANDS
from evaudit.output import emit_json
from vocabulary.tables import table


@click.group(name="rop")
def rop() -> None:
    """Returned-Object Profile (ROP): does the selected object reach the returned list?

    A declaration fixes the interface claim, expected population, target,
    resolver, returned-ID field, cutoff and any/all rule; `evaluate` gives one
    verdict per record and one status per run ("Does the Selected Object Reach the Reader?", Appendix A).
    """


def _list_line(label: str, items: list[str], limit: int = 10) -> str:
    shown = ", ".join(items[:limit]) + (
        f" ... (+{len(items) - limit})" if len(items) > limit else ""
    )
    return f"{label}: {len(items)}" + (f" [{shown}]" if items else "")


@rop.command("evaluate")
@click.argument("declaration", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def evaluate_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """Evaluate DECLARATION.json and its records.

    Exit code: 0 RUN_PASS or NOT_APPLICABLE, 1 RUN_FAIL, 2 RUN_UNVERIFIABLE,
    3 RUN_INVALID (including a declaration that cannot be read).
    """
    from packet_builder.rop_files import evaluate_declaration_file

    result = evaluate_declaration_file(declaration)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"run status: {result.run_status}")
        click.echo(f"declaration: {result.declaration_id} (mode {result.mode})")
        click.echo(
            f"expected records: {result.expected_records}  observed: {result.observed_records}"
            f"  evaluable: {result.evaluable_records}  pass fraction: "
            + ("n/a" if result.pass_fraction is None else f"{result.pass_fraction:.4f}")
        )
        click.echo(table([[k, v] for k, v in result.histogram.items()], ["verdict", "records"]))
        for label, items in (
            ("missing", result.missing_record_ids),
            ("duplicate", result.duplicate_record_ids),
            ("unexpected", result.unexpected_record_ids),
            ("malformed", result.malformed_record_ids),
        ):
            click.echo(_list_line(label, items))
        for problem in result.problems:
            click.echo(f"problem: {problem}")
    ctx.exit(result.exit_code)


@rop.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of a v1 declaration (shipped with the package)."""
    from scorers.rop.declaration import schema

    click.echo(json.dumps(schema(), indent=2))


@rop.command("validate")
@click.argument("declaration", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def validate_cmd(ctx: click.Context, declaration: str, as_json: bool) -> None:
    """Report every schema and cross-file problem of DECLARATION.json.

    Checks the schema, every SHA-256, population order/count/hash, resolver
    ownership and the witness inverse map. Exit 0 when valid, 3 when not.
    """
    from packet_builder.rop_files import validate_declaration_file

    check = validate_declaration_file(declaration)
    if as_json:
        emit_json(
            {
                "valid": check.valid,
                "declaration_id": check.declaration_id,
                "mode": check.mode,
                "problems": check.problems,
            }
        )
    elif check.valid:
        click.echo(f"valid: {declaration} ({check.declaration_id}, mode {check.mode})")
    else:
        for problem in check.problems:
            click.echo(f"problem: {problem}")
        click.echo(f"invalid: {len(check.problems)} problem(s)")
    ctx.exit(0 if check.valid else 3)


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
    from packet_builder.rop_files import compare_targets_file

    if resamples and pair is None:
        raise click.UsageError("--bootstrap needs --pair BASE,NEW")
    report = compare_targets_file(
        records,
        cutoffs,
        resolver_path=resolver,
        subset=subset,
        pair=pair,
        resamples=resamples,
        cluster_field=cluster,
        seed=seed,
        group_field=group_field,
    )
    if as_json:
        emit_json(report)
        return
    click.echo(
        f"records: {report['records']}  usable: {report['usable_records']}  distinct: "
        f"{report['distinct_records']}  aligned: {report['aligned_records']}  scored "
        f"({report['subset']}): {report['records_scored']}"
    )
    cols = ["stack", "cutoff", "group", "n", "P1H1", "P1H0", "P0H1", "P0H0", "different_labels"]
    rows: list[list[Any]] = [
        [r[c] if r[c] is not None else "all" for c in cols]
        + [r["recall_selected"], r["recall_trace"]]
        for r in report["table"]
    ]
    click.echo(table(rows, [*cols, "recall_U", "recall_G"]))
    for p in report["pairs"]:
        line = (
            f"{p['base']} -> {p['new']} @ {p['cutoff']}: change "
            f"{p['change_points']:+.1f} points (miss->hit {p['miss_to_hit']}, hit->miss "
            f"{p['hit_to_miss']})"
        )
        boot = p.get("bootstrap")
        if boot and boot["ci_low"] is not None:
            line += (
                f", 95% cluster bootstrap [{100 * boot['ci_low']:.1f}, "
                f"{100 * boot['ci_high']:.1f}] over {boot['clusters']} clusters"
            )
        click.echo(line)


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
    from packet_builder.rop_files import rop_from_qrels_files

    summary = rop_from_qrels_files(queries, qrels, run, cutoff=cutoff, out_dir=out_dir)
    if as_json:
        emit_json(summary)
        return
    click.echo(f"wrote {summary['declaration']} ({summary['queries']} queries, k={cutoff})")
    for label in ("queries_without_gold", "queries_missing_from_run", "run_queries_not_in_queries"):
        click.echo(_list_line(label.replace("_", " "), summary[label]))


for _command in STUDY_COMMANDS:
    rop.add_command(_command)

COMMANDS: list[click.Command] = [rop]
