"""The judging card's static assets, shared by both front ends: the Streamlit app mounts
them (`audit_app.annotator.component`) and the offline packet inlines them
(`services.offline`). `textnorm.js` and `gates.js` are the twins of
`vocabulary/textnorm.py` and `vocabulary/gates.py`; `card.js` and `card.css` are the card.

They sit below both front ends so that neither reads the other's files (the CLI's
`packet export --format html` and the app are peers, docs/architecture.md)."""

from pathlib import Path

STATIC = Path(__file__).resolve().parent
# The card's scripts in load order: each defines a global the next one uses.
SCRIPTS = ("textnorm.js", "gates.js", "card.js")
