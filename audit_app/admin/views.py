"""Admin pages (behind the admin password): progress, agreement, unblinded table, plots, downloads.

Only wiring: every table and figure comes from `audit_app.admin.data`.
"""

from __future__ import annotations

import json
from pathlib import Path

import altair as alt
import streamlit as st

from audit_app.access import check_admin_password, list_annotators
from audit_app.admin import data
from audit_app.responses import export_responses
from evaudit.errors import InputError
from packet_builder.project import Project, open_project


def admin_app(root: Path) -> None:
    try:
        project = open_project(root)
    except InputError as exc:
        st.error(exc.render())
        st.stop()
        return
    if not st.session_state.get("admin_ok"):
        _login(project)
        return
    st.markdown("## Campaign admin")
    st.button("Sign out", on_click=lambda: st.session_state.update(admin_ok=False))
    packets = data.packet_ids(project)
    if not packets:
        st.info("No packets yet: build one with `evaudit packet build`.")
        return
    tabs = st.tabs(["Progress", "Agreement", "Responses (unblinded)", "Plots", "Downloads"])
    with tabs[0]:
        _progress(project)
    packet_id = st.sidebar.selectbox("Packet", packets, key="admin_packet")
    with tabs[1]:
        _agreement(project, packet_id)
    table = data.unblinded_table(project, packet_id)
    with tabs[2]:
        _responses(table)
    with tabs[3]:
        _plots(project, packet_id, table)
    with tabs[4]:
        _downloads(project, packet_id)


def _login(project: Project) -> None:
    st.markdown("## Evidence audit")
    st.caption("Annotators: open the personal link you were given.")
    with st.form("admin_login"):
        password = st.text_input("Admin password", type="password")
        if st.form_submit_button("Sign in"):
            if check_admin_password(project, password):
                st.session_state["admin_ok"] = True
                st.rerun()
            else:
                st.error("Wrong password.")


def _progress(project: Project) -> None:
    st.markdown("#### Packets")
    st.dataframe(data.packets_table(project), hide_index=True)
    st.markdown("#### Annotators")
    st.dataframe(data.progress_table(project), hide_index=True)
    st.caption(f"{len(list_annotators(project))} people registered.")


def _agreement(project: Project, packet_id: str) -> None:
    summary, why = data.agreement_summary(project, packet_id)
    if summary is None:
        st.info(f"Progress only: {why}.")
        return
    st.json(summary)


def _responses(table) -> None:  # type: ignore[no-untyped-def]
    if table.empty:
        st.info("No saved responses yet.")
        return
    cols = st.columns(4)
    picks = {}
    for col, field in zip(cols, ["annotator", "label", "answer", "complete"], strict=True):
        options = sorted(table[field].dropna().astype(str).unique())
        picks[field] = col.multiselect(field, options, key=f"flt_{field}")
    text = st.text_input("Contains (query, document, quote, comment)", key="flt_text")
    shown = table
    for field, values in picks.items():
        if values:
            shown = shown[shown[field].astype(str).isin(values)]
    if text:
        hay = shown[["query_id", "doc_id", "quotes", "comment"]].astype(str).agg(" ".join, axis=1)
        shown = shown[hay.str.contains(text, case=False, regex=False)]
    st.caption(f"{len(shown)} of {len(table)} rows")
    st.dataframe(shown, hide_index=True)


def _plots(project: Project, packet_id: str, table) -> None:  # type: ignore[no-untyped-def]
    people = sorted(table["annotator"].unique()) if not table.empty else []
    if len(people) >= 2:
        c1, c2 = st.columns(2)
        a = c1.selectbox("Rows: annotator", people, index=0, key="cm_a")
        b = c2.selectbox("Columns: annotator", people, index=1, key="cm_b")
        cm = data.grade_confusion(table, a, b)
        if not cm.empty:
            long = data.confusion_long(cm)
            base = alt.Chart(long).encode(
                x=alt.X("col:O", title=f"{b} grade"), y=alt.Y("row:O", title=f"{a} grade")
            )
            heat = base.mark_rect().encode(
                color=alt.Color("count:Q", scale=alt.Scale(scheme="blues"))
            )
            st.altair_chart(heat + base.mark_text().encode(text="count:Q"), width="content")
        else:
            st.caption("No item completed by both with a derivable grade yet.")
    timeline = data.progress_timeline(project, packet_id)
    if not timeline.empty:
        st.markdown("#### Progress over time")
        chart = (
            alt.Chart(timeline)
            .mark_line(interpolate="step-after")
            .encode(x="ts:T", y="complete:Q", color="annotator:N")
        )
        st.altair_chart(chart, width="stretch")


def _downloads(project: Project, packet_id: str) -> None:
    st.download_button(
        "All journal lines of this packet (JSONL)",
        data=data.journals_bundle(project, packet_id),
        file_name=f"{packet_id}-journals.jsonl",
        on_click="ignore",
    )
    for person in list_annotators(project):
        if packet_id in person.packets:
            st.download_button(
                f"Responses of {person.name} (JSON)",
                data=json.dumps(export_responses(project, packet_id, person.name), indent=2),
                file_name=f"{packet_id}-{person.name}-responses.json",
                on_click="ignore",
                key=f"dl_{person.name}",
            )
    for path in data.revised_artefacts(project):
        st.download_button(
            f"{path.relative_to(project.root)}",
            data=path.read_bytes(),
            file_name=path.name,
            on_click="ignore",
            key=f"dl_{path}",
        )
