"""`evaudit annotator|responses|serve|demo`: people, response files and the annotation app."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from evaudit.commands import options as opt
from evaudit.output import progress_bar

_DIR = click.argument("directory", type=click.Path(path_type=Path))
_HOST = click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")


@click.group("annotator")
def annotator() -> None:
    """Add, list and revoke annotators (token links)."""


@annotator.command("add")
@_DIR
@click.argument("name")
@click.option(
    "--packet", "packets", multiple=True, required=True, help="Packet to assign (repeatable)."
)
@click.option(
    "--role",
    type=click.Choice(["annotator", "adjudicator"]),
    default="annotator",
    show_default=True,
    help="What the person does.",
)
@_HOST
@click.option("--port", type=int, default=8501, show_default=True, help="Port used in the URL.")
@opt.json_option
def annotator_add(
    directory: Path,
    name: str,
    packets: tuple[str, ...],
    role: str,
    host: str,
    port: int,
    as_json: bool,
) -> None:
    """Register NAME for packets; prints their login URL (the token is shown only now)."""
    from services.annotators import enroll

    report = enroll(directory, name, list(packets), role, host, port)
    opt.print_report(report, as_json)


@annotator.command("list")
@_DIR
@opt.json_option
def annotator_list(directory: Path, as_json: bool) -> None:
    """List registered people (role, packets, revoked) and every response stream, those
    without an account too; simulated streams are marked as such."""
    from services.people import people

    opt.print_report(people(directory), as_json)


@annotator.command("revoke")
@_DIR
@click.argument("name")
@opt.json_option
def annotator_revoke(directory: Path, name: str, as_json: bool) -> None:
    """Revoke NAME's token at once (their journal is kept)."""
    from services.annotators import revoke_in

    opt.print_report(revoke_in(directory, name), as_json)


@click.group("responses")
def responses() -> None:
    """Import or export one annotator's responses (evaudit-responses JSON)."""


@responses.command("import")
@_DIR
@click.argument("file", type=click.Path(path_type=Path))
@opt.json_option
def responses_import(directory: Path, file: Path, as_json: bool) -> None:
    """Validate FILE fully (hash, annotator, keys, quotes) and append it to the journal."""
    from services.responses import responses_import

    opt.print_report(responses_import(directory, file), as_json)


@responses.command("export")
@_DIR
@click.option("--packet", required=True, help="Packet name.")
@click.option("--annotator", "name", required=True, help="Annotator name.")
@opt.path_option("-o", "--out", help="Write to this file (default: stdout).")
def responses_export(directory: Path, packet: str, name: str, out: Path | None) -> None:
    """Write NAME's latest answers on PACKET as an evaudit-responses JSON file."""
    from evaudit.output import dumps
    from services.responses import responses_export

    report = responses_export(directory, packet, name, out)
    if out is None:
        click.echo(dumps(report.to_json()))
    else:
        click.echo(report.table(), err=True)


@responses.command("simulate")
@_DIR
@click.argument("packet")
@click.option(
    "--annotators",
    required=True,
    help="Comma-separated new names, one journal each (e.g. adj1,adj2,adj3).",
)
@click.option("--seed", type=int, default=11, show_default=True, help="Seed of the simulation.")
@opt.share_option(
    "--contested",
    help="Share of conditions the people read differently, each departing with p 1/2 "
    "(default 0.08 on initial packets, 0.3 on adjudication and challenge packets).",
)
@opt.share_option(
    "--slip",
    default=0.03,
    help="Chance that one person departs from the evidence on any other condition.",
)
@opt.share_option("--coverage", default=1.0, help="Share of items each person answers.")
@click.option(
    "--answers",
    type=click.Choice(["pages", "labels"]),
    default="pages",
    show_default=True,
    help="pages: a condition is yes where a displayed page mentions it (its name or a form "
    "its note quotes); labels: yes as the labels under test say (BEIR and TREC projects, "
    "whose pages rarely word the query's condition), departing with --noise.",
)
@opt.share_option(
    "--noise",
    default=0.1,
    help="With --answers labels: chance that one person's answer on a condition departs "
    "from the label (independently per person).",
)
@opt.json_option
def responses_simulate(
    directory: Path,
    packet: str,
    annotators: str,
    seed: int,
    contested: float | None,
    slip: float,
    coverage: float,
    answers: str,
    noise: float,
    as_json: bool,
) -> None:
    """Simulate people answering PACKET (tests, demos, dry runs of the audit chain).

    They read the displayed pages (--answers pages) or answer from the labels under test
    with a stated --noise rate (--answers labels). A yes quotes the sentence of a
    displayed page that supports the condition, so it passes the gates; seeded and
    deterministic."""
    from services.simulate import Panel, responses_simulate

    panel = Panel(seed, contested, slip, coverage, answers, noise)
    report = responses_simulate(directory, packet, annotators, panel)
    opt.print_report(report, as_json)


def exec_streamlit(root: Path, host: str, port: int, metrics: bool = False) -> None:
    """Replace this process with the Streamlit server (so signals reach the server itself).

    The entry is `audit_app/server.py`, an `st.App` that puts evaudit's HTTP guard in front
    of Streamlit (no framing by other sites; metrics off, or with `metrics` only for the
    metrics token); the agent API stays off."""
    app = Path(__file__).resolve().parents[2] / "audit_app" / "server.py"
    argv = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--client.toolbarMode",
        "viewer",
        "--server.enableAgentApi",
        "false",
        "--server.port",
        str(port),
        "--server.address",
        host,
        "--",
        "--project",
        str(root),
        *(["--metrics"] if metrics else []),
    ]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, {**os.environ, "EVAUDIT_PROJECT": str(root)})


@click.command("serve")
@_DIR
@_HOST
@click.option("--port", type=int, default=8501, show_default=True, help="Port to listen on.")
@click.option(
    "--metrics",
    is_flag=True,
    help="Serve Streamlit's Prometheus metrics at /_stcore/metrics to holders of the metrics "
    "token (make one with `evaudit admin metrics-token DIR`); off by default.",
)
def serve(directory: Path, host: str, port: int, metrics: bool) -> None:
    """Start the annotation app for project DIRECTORY (Ctrl+C stops it)."""
    from services.serving import prepare_serve

    report = prepare_serve(directory, metrics)
    for line in report.notes(host, port, metrics):
        click.echo(line, err=True)
    exec_streamlit(report.root, host, port, metrics)


@click.command("demo")
@opt.path_option(
    "--dir", "folder", help="New folder for the demo project (default: a fresh temporary folder)."
)
@_HOST
@click.option("--port", type=int, default=8501, show_default=True, help="Port to serve on.")
@click.option("--simulate", is_flag=True, help="Fill two annotators' journals with answers.")
@click.option("--no-serve", is_flag=True, help="Build the project and print, but do not serve.")
@opt.json_option
def demo(
    folder: Path | None, host: str, port: int, simulate: bool, no_serve: bool, as_json: bool
) -> None:
    """Build a demo project from sample_packets/, print login URLs and the admin password, serve."""
    from services.demo import demo as build

    report = build(
        folder, host=host, port=port, simulate=simulate, progress=progress_bar(quiet=as_json)
    )
    opt.print_report(report, as_json)
    if not no_serve:
        if as_json:
            os.dup2(2, 1)  # keep stdout to the one JSON object; server logs go to stderr
        exec_streamlit(report.root, host, port)


@click.group("admin")
def admin() -> None:
    """Set the admin password or the metrics token of a project."""


@admin.command("password")
@_DIR
@click.argument("new_password", required=False)
def admin_password(directory: Path, new_password: str | None) -> None:
    """Set a new admin password for DIRECTORY; every open admin session is signed out.

    NEW_PASSWORD (else $EVAUDIT_ADMIN_PASSWORD, else asked twice without echo) must be at
    least 12 characters and hard to guess (zxcvbn strength 3 of 4)."""
    from services.admin import PASSWORD_ENV, change_admin_password

    password = new_password or os.environ.get(PASSWORD_ENV)
    if not password:
        password = click.prompt(
            "New admin password", hide_input=True, confirmation_prompt=True, err=True
        )
    change_admin_password(directory, password)
    click.echo(
        "admin password changed; open admin sessions are signed out at their next click", err=True
    )


@admin.command("metrics-token")
@_DIR
@opt.json_option
def admin_metrics_token(directory: Path, as_json: bool) -> None:
    """Make a new token for /_stcore/metrics (`evaudit serve --metrics`); shown only now.

    The old token stops working. Send it as `Authorization: Bearer TOKEN` or as the
    password of HTTP basic auth (any user name)."""
    from services.admin import metrics_token

    opt.print_report(metrics_token(directory), as_json)


COMMANDS: list[click.Command] = [annotator, responses, serve, demo, admin]
