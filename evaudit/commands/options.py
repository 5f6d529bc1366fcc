"""Option parsing and report printing shared by several commands: comma-separated cutoffs,
the `--json` flag, file options, the ROP commands' option sets, and the one way a command
prints its report.

`--run NAME=FILE` values are read by `vocabulary.runspec` (the services read run files
named inside other options the same way).

Only what is the same in every command that uses it lives here; where only a help text or
a default differs, the option is made here and the text is passed in, so that what the
option is (its name, type and parameter) is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import click

Decorator = Callable[[Any], Any]

JSON_HELP = "Print one JSON object on stdout."
json_option = click.option("--json", "as_json", is_flag=True, help=JSON_HELP)


class Report(Protocol):
    """What every service's report offers a front end."""

    def to_json(self) -> Any: ...

    def table(self) -> str: ...


class ExitReport(Report, Protocol):
    """A report whose verdict is the command's exit code."""

    @property
    def exit_code(self) -> int: ...


def print_report(report: Report, as_json: bool, *, nl: bool = True) -> None:
    """`to_json()` as one JSON object under --json, `table()` otherwise (with `nl=False`
    for a table that ends in its own newline)."""
    from evaudit.output import emit_json

    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table(), nl=nl)


def exit_with_report(ctx: click.Context, report: ExitReport, as_json: bool) -> None:
    """Print the report, then exit with its verdict's code."""
    print_report(report, as_json)
    ctx.exit(report.exit_code)


def combine(*options: Decorator) -> Decorator:
    """Several option decorators as one, in the order given (the order --help lists them)."""

    def apply(f: Any) -> Any:
        for opt in reversed(options):
            f = opt(f)
        return f

    return apply


def int_list(_: click.Context, __: click.Parameter, value: str) -> list[int]:
    """Click callback: comma-separated cutoffs, each an integer >= 1."""
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise click.BadParameter("use comma-separated integers, e.g. 1,5,20") from exc
    if not out or any(v < 1 for v in out):
        raise click.BadParameter("cutoffs are integers >= 1, e.g. 1,5,20")
    return out


def file_option(name: str, help: str, *, required: bool = False) -> Decorator:
    """An option naming one input file (not a folder)."""
    return click.option(name, required=required, type=click.Path(dir_okay=False), help=help)


def path_option(*decls: str, help: str) -> Decorator:
    """An optional option naming a file or folder, given to the command as a Path."""
    return click.option(*decls, type=click.Path(path_type=Path), help=help)


def cutoffs_option(help: str) -> Decorator:
    """`--cutoffs 1,5,20`: the cutoffs k of a ROP table."""
    return click.option(
        "--cutoffs", default="1,5,20", show_default=True, callback=int_list, help=help
    )


def subset_option(help: str) -> Decorator:
    """`--subset all|distinct|aligned`: which usable ROP records count."""
    return click.option(
        "--subset",
        type=click.Choice(["all", "distinct", "aligned"]),
        default="all",
        show_default=True,
        help=help,
    )


def by_option(help: str) -> Decorator:
    """`--by FIELD`: also report each value of a record field."""
    return click.option("--by", "group_field", help=help)


def bootstrap_options(
    default: int, resamples_help: str, seed_help: str, cluster_help: str | None = None
) -> Decorator:
    """`--bootstrap N` (as `resamples`), the `--cluster` field when the bootstrap resamples
    whole clusters, and `--seed`."""
    cluster = [
        click.option("--cluster", default="question_id", show_default=True, help=cluster_help)
    ]
    return combine(
        click.option(
            "--bootstrap",
            "resamples",
            type=click.IntRange(min=0),
            default=default,
            show_default=True,
            help=resamples_help,
        ),
        *(cluster if cluster_help is not None else []),
        click.option("--seed", type=int, default=0, show_default=True, help=seed_help),
    )


def count_option(*decls: str, default: int | None, help: str, min: int = 1) -> Decorator:
    """An integer option of at least `min` (a cutoff, a depth, a number of draws), its
    default shown (none when it is None)."""
    return click.option(
        *decls, type=click.IntRange(min=min), default=default, show_default=True, help=help
    )


def amount_option(*decls: str, default: float, min: float, help: str) -> Decorator:
    """A number of at least `min` (seconds, MiB), its default shown."""
    return click.option(
        *decls, type=click.FloatRange(min=min), default=default, show_default=True, help=help
    )


def shown_option(*decls: str, default: Any, help: str) -> Decorator:
    """An option of the type of its default, the default shown in --help."""
    return click.option(*decls, default=default, show_default=True, help=help)


def share_option(name: str, help: str, *, default: float | None = None) -> Decorator:
    """A share between 0 and 1 (a required coverage, a chance), optional when `default` is
    None, its default shown in --help otherwise."""
    return click.option(
        name,
        type=click.FloatRange(0, 1),
        default=default,
        show_default=default is not None,
        help=help,
    )


def choice_option(*decls: str, choices: Sequence[str], default: str, help: str) -> Decorator:
    """One of a fixed list of words, the default shown."""
    return click.option(
        *decls, type=click.Choice(choices), default=default, show_default=True, help=help
    )


def many_option(*decls: str, metavar: str, help: str, required: bool = False) -> Decorator:
    """A repeatable option (its values a tuple, in the order given)."""
    return click.option(*decls, multiple=True, required=required, metavar=metavar, help=help)


# trec_eval compares scores as doubles; pytrec_eval as float32 (`trec_eval` and `score trec`).
score_precision_option = choice_option(
    "--score-precision", choices=["float64", "float32"], default="float64",
    help="Compare scores as doubles (trec_eval) or as float32 (pytrec_eval, which then "
    "breaks the new ties by docno descending).",
)  # fmt: skip
