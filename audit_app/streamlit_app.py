"""Streamlit entry: `streamlit run audit_app/streamlit_app.py -- --project DIR`.

A URL with `?token=...` is an annotator session and only ever runs the
annotator package; any other URL shows the admin password form. Pages only
wire widgets to library functions.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import streamlit as st


def _project_root() -> Path:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--project")
    args, _ = parser.parse_known_args(sys.argv[1:])
    root = args.project or os.environ.get("EVAUDIT_PROJECT")
    if not root:
        st.error("No project folder given: run `evaudit serve DIR`.")
        st.stop()
    return Path(str(root)).resolve()


@st.cache_resource
def _images(root: str):  # type: ignore[no-untyped-def]
    from audit_app.render import images_for

    return images_for(Path(root))


def _no_forced_gc() -> None:
    """Skip Streamlit's full `gc.collect(2)` after every script run.

    A save reruns a few small fragments; the forced collection after each run cost more
    than the rest of the save on this 2-core machine (benchmarks/app_latency.py, docs/app.md).
    Python's own generational collector still runs. `evaudit serve` may also pass
    `--runner.postScriptGC false`; this keeps `streamlit run` started by hand the same.
    """
    from streamlit import config

    if config.get_option("runner.postScriptGC"):
        config.set_option("runner.postScriptGC", False)


def main() -> None:
    _no_forced_gc()
    st.set_page_config(page_title="Evidence audit", layout="wide")
    root = _project_root()
    token = st.query_params.get("token")
    if token is not None:
        from audit_app.annotator.view import annotator_app, project_of

        annotator_app(project_of(root), token, _images(str(root)))
        return
    from audit_app.admin.views import admin_app

    admin_app(root)


main()
