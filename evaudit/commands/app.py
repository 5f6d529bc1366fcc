"""`evaudit annotator|responses|serve|demo`: people, response files and the annotation app."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaudit.output import emit_json, progress_bar
from vocabulary.errors import InputError
from vocabulary.tables import table

if TYPE_CHECKING:
    from campaign.project import Project

_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
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
@_JSON
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
    from audit_app.access import add_annotator, login_url
    from campaign.project import open_project

    entry, token = add_annotator(open_project(directory), name, list(packets), role)
    url = login_url(token, host, port)
    if as_json:
        emit_json({"name": entry.name, "token": token, "url": url})
        return
    click.echo(f"{entry.name} ({entry.role}) on {', '.join(entry.packets)}")
    click.echo(f"login URL (shown once): {url}")


@annotator.command("list")
@_DIR
@_JSON
def annotator_list(directory: Path, as_json: bool) -> None:
    """List registered people (role, packets, revoked) and every response stream, those
    without an account too; simulated streams are marked as such."""
    from audit_app.people import people
    from campaign.project import open_project

    report = people(open_project(directory))
    if as_json:
        emit_json(report.to_json())
        return
    click.echo(table(report.rows(), list(report.HEADERS)))


@annotator.command("revoke")
@_DIR
@click.argument("name")
@_JSON
def annotator_revoke(directory: Path, name: str, as_json: bool) -> None:
    """Revoke NAME's token at once (their journal is kept)."""
    from audit_app.access import revoke_annotator
    from campaign.project import open_project

    entry = revoke_annotator(open_project(directory), name)
    if as_json:
        emit_json(entry.to_json())
        return
    click.echo(f"revoked {entry.name}")


@click.group("responses")
def responses() -> None:
    """Import or export one annotator's responses (evaudit-responses JSON)."""


@responses.command("import")
@_DIR
@click.argument("file", type=click.Path(path_type=Path))
@_JSON
def responses_import(directory: Path, file: Path, as_json: bool) -> None:
    """Validate FILE fully (hash, annotator, keys, quotes) and append it to the journal."""
    from audit_app.responses import import_responses
    from campaign.project import open_project

    result = import_responses(open_project(directory), file)
    if as_json:
        emit_json(result)
        return
    click.echo(
        f"{result['annotator']} on {result['packet_id']}: {result['imported']} items appended, "
        f"{result['unchanged']} unchanged; {result['complete']}/{result['total']} complete"
    )


@responses.command("export")
@_DIR
@click.option("--packet", required=True, help="Packet name.")
@click.option("--annotator", "name", required=True, help="Annotator name.")
@click.option(
    "-o", "--out", type=click.Path(path_type=Path), help="Write to this file (default: stdout)."
)
def responses_export(directory: Path, packet: str, name: str, out: Path | None) -> None:
    """Write NAME's latest answers on PACKET as an evaudit-responses JSON file."""
    from audit_app.responses import export_responses
    from campaign.project import open_project, write_json_atomic
    from evaudit.output import dumps

    doc = export_responses(open_project(directory), packet, name)
    if out is None:
        click.echo(dumps(doc))
    else:
        write_json_atomic(out, doc)
        click.echo(f"wrote {out} ({len(doc['items'])} items)", err=True)


@responses.command("simulate")
@_DIR
@click.argument("packet")
@click.option(
    "--annotators",
    required=True,
    help="Comma-separated new names, one journal each (e.g. adj1,adj2,adj3).",
)
@click.option("--seed", type=int, default=11, show_default=True, help="Seed of the simulation.")
@click.option(
    "--contested",
    type=click.FloatRange(0, 1),
    default=None,
    help="Share of conditions the people read differently, each departing with p 1/2 "
    "(default 0.08 on initial packets, 0.3 on adjudication and challenge packets).",
)
@click.option(
    "--slip",
    type=click.FloatRange(0, 1),
    default=0.03,
    show_default=True,
    help="Chance that one person departs from the evidence on any other condition.",
)
@click.option(
    "--coverage",
    type=click.FloatRange(0, 1),
    default=1.0,
    show_default=True,
    help="Share of items each person answers.",
)
@click.option(
    "--answers",
    type=click.Choice(["pages", "labels"]),
    default="pages",
    show_default=True,
    help="pages: a condition is yes where a displayed page mentions it (its name or a form "
    "its note quotes); labels: yes as the labels under test say (BEIR and TREC projects, "
    "whose pages rarely word the query's condition), departing with --noise.",
)
@click.option(
    "--noise",
    type=click.FloatRange(0, 1),
    default=0.1,
    show_default=True,
    help="With --answers labels: chance that one person's answer on a condition departs "
    "from the label (independently per person).",
)
@_JSON
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
    from audit_app.simulate import simulate_panel
    from campaign.project import open_project

    names = tuple(n.strip() for n in annotators.split(",") if n.strip())
    saved = simulate_panel(
        open_project(directory),
        packet,
        names,
        seed=seed,
        p_contested=contested,
        p_slip=slip,
        coverage=coverage,
        answers=answers,
        noise=noise,
    )
    if as_json:
        emit_json({"packet": packet, "seed": seed, "answers": answers, "saved": saved})
        return
    click.echo(f"{packet}: " + ", ".join(f"{k} {v} items" for k, v in saved.items()))


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


def _check_journal_backend(project: Project) -> None:
    """With journals in PostgreSQL, reach the database now (a wrong URL or password is a
    one-line error, not a 'NOT saved' at the first save) and say where saves go."""
    from campaign import journal_pg

    cfg = journal_pg.config_for(project.root)
    if cfg is None:
        return
    try:
        journal_pg.read_registry(cfg)
    except journal_pg.JournalUnavailable as exc:
        raise InputError(
            f"cannot reach the journal database {journal_pg.redact(cfg.url)} ({exc.strerror})",
            file=project.meta_path,
            hint="start PostgreSQL, or give the password with PGPASSWORD or EVAUDIT_JOURNAL_URL",
        ) from exc
    click.echo(f"journals: PostgreSQL {journal_pg.redact(cfg.url)}", err=True)


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
    from audit_app.access import has_metrics_token
    from audit_app.demo import prepare_serving
    from campaign.project import open_project

    project = open_project(directory)
    if metrics and not has_metrics_token(project):
        raise InputError(
            "--metrics needs a metrics token and the project has none",
            file=project.meta_path,
            hint=f"run `evaudit admin metrics-token {directory}` first",
        )
    _check_journal_backend(project)
    prepare_serving(project)
    click.echo(f"admin: http://{host}:{port}/  (annotators use their token links)", err=True)
    if metrics:
        click.echo(f"metrics: http://{host}:{port}/_stcore/metrics  (metrics token)", err=True)
    exec_streamlit(project.root, host, port, metrics)


@click.command("demo")
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path),
    help="New folder for the demo project (default: a fresh temporary folder).",
)
@_HOST
@click.option("--port", type=int, default=8501, show_default=True, help="Port to serve on.")
@click.option("--simulate", is_flag=True, help="Fill two annotators' journals with answers.")
@click.option("--no-serve", is_flag=True, help="Build the project and print, but do not serve.")
@_JSON
def demo(
    folder: Path | None, host: str, port: int, simulate: bool, no_serve: bool, as_json: bool
) -> None:
    """Build a demo project from sample_packets/, print login URLs and the admin password, serve."""
    from audit_app.demo import build_demo

    info = build_demo(
        folder, host=host, port=port, simulate=simulate, progress=progress_bar(quiet=as_json)
    )
    if as_json:
        emit_json(info)
    else:
        click.echo(f"demo project: {info['dir']}")
        click.echo(f"admin:        {info['admin_url']}  password: {info['admin_password']}")
        for name, url in info["urls"].items():
            click.echo(f"{name:<12}  {url}")
        if info["simulated"]:
            done = ", ".join(f"{k}: {v} saves" for k, v in info["simulated"].items())
            click.echo(f"simulated journals: {done}")
    if not no_serve:
        if as_json:
            os.dup2(2, 1)  # keep stdout to the one JSON object; server logs go to stderr
        exec_streamlit(Path(info["dir"]), host, port)


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
    from campaign.init import set_admin_password
    from campaign.project import PASSWORD_ENV, open_project

    project = open_project(directory)
    password = new_password or os.environ.get(PASSWORD_ENV)
    if not password:
        password = click.prompt(
            "New admin password", hide_input=True, confirmation_prompt=True, err=True
        )
    set_admin_password(project, password)
    click.echo(
        "admin password changed; open admin sessions are signed out at their next click", err=True
    )


@admin.command("metrics-token")
@_DIR
@_JSON
def admin_metrics_token(directory: Path, as_json: bool) -> None:
    """Make a new token for /_stcore/metrics (`evaudit serve --metrics`); shown only now.

    The old token stops working. Send it as `Authorization: Bearer TOKEN` or as the
    password of HTTP basic auth (any user name)."""
    from campaign.init import new_metrics_token
    from campaign.project import open_project

    token = new_metrics_token(open_project(directory))
    if as_json:
        emit_json({"metrics_token": token})
        return
    click.echo(f"metrics token (shown once): {token}")


COMMANDS: list[click.Command] = [annotator, responses, serve, demo, admin]
