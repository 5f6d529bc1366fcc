"""The `evaudit` command line: parse, call one library function, print.

Each area keeps its commands in `evaudit/commands/<area>.py` and lists them in
a module-level ``COMMANDS``; this file only collects them and turns
`InputError` into a one-line message with a non-zero exit.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from evaudit import __version__
from vocabulary.errors import InputError, InputErrors


class _Commands(dict[str, click.Command]):
    """The group's command table, filled on first use: a lookup of a name it holds
    answers at once, anything else (another name, listing, --help) imports every
    command module first. So `evaudit trec_eval`, run once per run file as trec_eval
    is, imports only its own command (main() preloads it)."""

    loaded = False

    def _load(self) -> None:
        if not self.loaded:
            self.loaded = True
            _register()

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.keys_now():
            self._load()
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        if name not in self.keys_now():
            self._load()
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        if not super().__contains__(name):
            self._load()
        return super().__contains__(name)

    def keys_now(self) -> Any:
        """The names registered so far, without loading the rest."""
        return super().keys()

    def __iter__(self) -> Any:
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def keys(self) -> Any:
        self._load()
        return super().keys()

    def values(self) -> Any:
        self._load()
        return super().values()

    def items(self) -> Any:
        self._load()
        return super().items()


class EvauditGroup(click.Group):
    """A click group that reports InputError as `error: file:line: message`."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputErrors as exc:
            for line in exc.all_lines():
                click.echo(f"error: {line}", err=True)
            sys.exit(exc.exit_code)
        except InputError as exc:
            click.echo(f"error: {exc.render()}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=EvauditGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="evaudit")
def cli() -> None:
    """Audit the relevance labels (qrels) of a retrieval benchmark with evidence.

    Typical campaign: init -> ingest -> load -> packet build -> annotator add ->
    serve -> agreement audit -> repair plan -> adjudicate -> finalize -> score impact.
    Every command that reports figures takes --json.
    """


cli.commands = _Commands()


def _register() -> None:
    from evaudit.commands import (
        app,
        audit,
        fetch,
        journal,
        orbit,
        packet,
        project,
        queries,
        reproduce,
        rop,
        runs,
        score,
        score_diagnostics,
        score_robust,
        score_trec,
        trec_eval,
    )

    # score_robust, score_trec and score_diagnostics add their commands to `score` on import.
    _ = (score_diagnostics, score_robust, score_trec)
    for module in (
        project,
        fetch,
        packet,
        app,
        audit,
        journal,
        score,
        runs,
        queries,
        reproduce,
        rop,
        orbit,
        trec_eval,
    ):
        for command in module.COMMANDS:
            cli.add_command(command)


def _preload(argv: list[str]) -> None:
    """Register only the command about to run when it is one of the two run once per
    file or batch in scripts (their imports are most of a short process's time)."""
    if argv[:1] == ["trec_eval"]:
        from evaudit.commands import trec_eval

        cli.add_command(trec_eval.trec_eval_cmd)
    elif argv[:2] == ["score", "trec"]:
        from evaudit.commands import score_trec
        from evaudit.commands.score_options import score

        _ = score_trec  # adds `trec` to the score group on import
        cli.add_command(score)


def main() -> None:
    _preload(sys.argv[1:])
    cli(prog_name="evaudit")


if __name__ == "__main__":
    main()
