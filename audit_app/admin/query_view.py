"""Admin view of Table S6 of the n-Clue supplement: one query's gold and subset documents
with the pages that carry each condition (services/query_labels.py, the service behind
`evaudit queries show`). Only wiring: the table is the report's `rows()` in a dataframe and
the heading goes through `st.text`, so condition names and query text (untrusted) show
literally, never as Markdown, HTML or maths.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from vocabulary.errors import InputError


def query_labels_view(root: Path) -> None:
    from services.query_labels import query_ids, query_labels

    st.markdown("#### Gold and subset labels of one query (Table S6)")
    ids = query_ids(root)
    if not ids:
        st.info("No queries loaded: `evaudit load DIR --queries ...`.")
        return
    qid = st.selectbox("Query", ids, key="s6_query")
    try:
        report = query_labels(root, str(qid))
    except InputError as exc:
        st.info(exc.render())
        return
    names = "; ".join(f'"{c["name"]}"' for c in report.conditions)
    st.text(f"{report.query_id} asks for {names}\n{report.text}")
    if not report.documents:
        st.info("No judged document (grade > 0) for this query.")
        return
    st.dataframe(pd.DataFrame(report.rows()), hide_index=True, key="s6_table")
    st.caption(
        "The same table as `evaudit queries show DIR QUERY`: the pages of the evidence "
        "inventory that carry each condition; - = no page stored for it."
    )
