"""`score nclue --manifest-out FILE`: what only the CLI knows of the manifest.

The manifest itself (inputs, the .stdout file, the checks) is written by
services.score.score_nclue through services/score_manifest.py; this edge adds the
command line (rebuilt from click's parsed parameters) and how the report is printed.
"""

from __future__ import annotations

from pathlib import Path

import click

from services.score_manifest import ManifestRequest


def manifest_request(manifest_out: Path | None, as_json: bool) -> ManifestRequest | None:
    """The request of --manifest-out (None without it) for the running command."""
    from evaudit.commands.reproduce import command_argv

    if manifest_out is None:
        return None
    return ManifestRequest(manifest_out, command_argv(click.get_current_context()), as_json)
