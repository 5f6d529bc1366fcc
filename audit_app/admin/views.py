"""Admin pages (behind the admin password): progress, agreement, unblinded table, plots, downloads.

Only wiring: every table and figure comes from `audit_app.admin.data`, and the agreement
and integrity figures from the scorers through `audit_app.admin.agreement_hook`.
"""

from __future__ import annotations

import json
from pathlib import Path

import altair as alt
import streamlit as st

from audit_app.access import admin_sign_in, list_annotators
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
        _plots(project, packet_id)
    with tabs[4]:
        _downloads(project, packet_id)


def _login(project: Project) -> None:
    st.markdown("## Evidence audit")
    st.caption("Annotators: open the personal link you were given.")
    with st.form("admin_login"):
        password = st.text_input("Admin password", type="password")
        if st.form_submit_button("Sign in"):
            result = admin_sign_in(project, password)
            if result.ok:
                st.session_state["admin_ok"] = True
                st.rerun()
            else:
                st.error(result.message)


def _progress(project: Project) -> None:
    st.markdown("#### Packets")
    st.dataframe(data.packets_table(project), hide_index=True)
    st.markdown("#### Annotators")
    st.dataframe(data.progress_table(project), hide_index=True)
    st.caption(f"{len(list_annotators(project))} people registered.")


def _agreement(project: Project, packet_id: str) -> None:
    """`evaudit agreement audit` and `evaudit integrity`, live from the journals."""
    streams = data.stream_names(project, packet_id)
    picked = st.multiselect(
        "Raters (empty: every stream after collapsing duplicates, as the CLI does)",
        streams,
        key=f"agr_raters_{packet_id}",
    )
    raters = ",".join(picked) if len(picked) >= 2 else None
    if len(picked) == 1:
        st.caption("Pick at least two raters; showing every stream.")
    summary = data.agreement_summary(project, packet_id, raters)
    for note in summary.notes:
        st.info(note)
    report = summary.agreement
    if report is not None:
        names = ", ".join(report["raters"])
        st.markdown(f"#### Agreement of {names} on packet {packet_id}")
        st.caption(
            f"{report['pairs']} of {report['items_in_packet']} items answered in full by every "
            f"rater ({report['incomplete_pairs']} not yet); the same figures as "
            f"`evaudit agreement audit DIR {packet_id} --json`."
        )
        st.dataframe(
            data.blank_missing(data.agreement_rows(report)), hide_index=True, key="agr_table"
        )
        for group in report.get("duplicate_streams") or []:
            st.warning(f"Identical streams (one stream counted twice): {', '.join(group)}")
        if "confusion" in report:
            _confusion(report["confusion"], *report["raters"])
    integ = summary.integrity
    if integ is not None:
        st.markdown("#### Integrity per response stream")
        st.dataframe(
            data.blank_missing(data.integrity_rows(integ)), hide_index=True, key="int_table"
        )
        verdict = "ok" if integ["ok"] else "problems found"
        st.caption(
            f"Integrity: {verdict} (no structural or page-pool errors and every quote exact); "
            f"streams after collapsing duplicates: {', '.join(integ['streams_after_collapse'])}."
        )


def _confusion(matrix: list[list[int]], a: str, b: str) -> None:
    st.markdown(f"#### Derived-grade confusion (rows: {a}, columns: {b})")
    long = data.confusion_long(matrix)
    base = alt.Chart(long).encode(
        x=alt.X("col:O", title=f"{b} grade"), y=alt.Y("row:O", title=f"{a} grade")
    )
    heat = base.mark_rect().encode(color=alt.Color("count:Q", scale=alt.Scale(scheme="blues")))
    st.altair_chart(heat + base.mark_text().encode(text="count:Q"), width="content")


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


def _plots(project: Project, packet_id: str) -> None:
    st.caption("The derived-grade confusion heatmap is on the Agreement tab.")
    timeline = data.progress_timeline(project, packet_id)
    if not timeline.empty:
        st.markdown("#### Progress over time")
        chart = (
            alt.Chart(timeline)
            .mark_line(interpolate="step-after")
            .encode(x="ts:T", y="complete:Q", color="annotator:N")
        )
        st.altair_chart(chart, width="stretch")
    else:
        st.caption("No saves yet.")


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
