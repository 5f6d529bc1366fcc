"""Annotator-facing Streamlit code.

Boundary (docs/formats.md): this package reads only `packets/`, `annotators.json`
and the signed-in annotator's own journal. It never imports the campaign store,
the admin views or the admin-key readers, and receives page images only as an
opaque callable (`audit_app.render`), so no file name or page number reaches it
or the browser. `tests/test_app_boundary.py` enforces this.
"""
