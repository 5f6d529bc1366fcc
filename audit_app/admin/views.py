"""Admin pages (behind the admin password): progress, agreement, unblinded table, plots, downloads.

Only wiring: every table and figure comes from `audit_app.admin.data` (how it reads:
`audit_app.admin.display`), and the agreement and integrity tables are the `rows()` of the
services' reports (`services.agreement`, `services.integrity`) through
`audit_app.admin.agreement_hook`.
"""

from __future__ import annotations

import json
from datetime import tzinfo
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from audit_app.access import admin_fingerprint, admin_sign_in
from audit_app.admin import data, display
from audit_app.admin.query_view import query_labels_view
from campaign.project import Project, open_project
from campaign.registry import list_annotators
from services.responses import export_responses
from vocabulary.errors import InputError


def admin_app(root: Path) -> None:
    try:
        project = open_project(root)
    except InputError as exc:
        st.error(exc.render())
        st.stop()
        return
    signed_in = st.session_state.get("admin_ok")
    if not signed_in or signed_in != admin_fingerprint(project):
        if signed_in:  # `evaudit admin password` set a new one since this session signed in
            st.session_state["admin_ok"] = False
            st.warning("The admin password was changed: sign in with the new one.")
        _login(project)
        return
    st.markdown("## Campaign admin")
    st.button("Sign out", on_click=lambda: st.session_state.update(admin_ok=False))
    packets = data.packet_ids(project)
    if not packets:
        st.info("No packets yet: build one with `evaudit packet build`.")
        return
    tabs = st.tabs(
        [
            "Progress",
            "Agreement",
            "Responses (unblinded)",
            "Plots",
            "Downloads",
            "Query labels",
            "Impact",
        ]
    )
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
    with tabs[5]:
        query_labels_view(project.root)
    with tabs[6]:
        from audit_app.admin.impact_view import impact_tab

        impact_tab(project)


def _login(project: Project) -> None:
    st.markdown("## Evidence audit")
    st.caption("Annotators: open the personal link you were given.")
    with st.form("admin_login"):
        password = st.text_input("Admin password", type="password")
        if st.form_submit_button("Sign in"):
            # Throttled per client address: another device's wrong passwords never refuse this one.
            result = admin_sign_in(project, password, st.context.ip_address)
            if result.ok:
                st.session_state["admin_ok"] = admin_fingerprint(project)
                st.rerun()
            else:
                st.error(result.message)


def _zone() -> tzinfo:
    """The reviewer's zone (the browser's, as Streamlit reports it), else the server's."""
    return display.zone_of(st.context.timezone)


def _table(frame: pd.DataFrame, key: str | None = None, **kwargs: Any) -> None:
    """A read-only table: blank cells for missing figures, counts as integers."""
    formats = display.number_formats(frame)
    config: dict[str, Any] = {
        name: st.column_config.NumberColumn(format=fmt) for name, fmt in formats.items()
    }
    if len(frame.columns):  # a wide table scrolls sideways; its first column stays in view
        first = str(frame.columns[0])
        config[first] = (
            st.column_config.NumberColumn(format=formats[first], pinned=True)
            if first in formats
            else st.column_config.Column(pinned=True)
        )
    st.dataframe(
        frame,
        hide_index=True,
        column_config=config,
        placeholder="",
        key=key,
        width="stretch",
        **kwargs,
    )


def _progress(project: Project) -> None:
    zone = _zone()
    st.markdown("#### Packets")
    _table(data.packets_table(project))
    st.markdown("#### Annotators")
    _table(display.local_times(data.progress_table(project), ["last save"], zone))
    st.caption(
        f"{len(list_annotators(project))} people registered. Times: {display.zone_label(zone)}."
    )


def _agreement(project: Project, packet_id: str) -> None:
    """`evaudit agreement audit` and `evaudit integrity`, live from the journals."""
    picked = st.multiselect(
        "Raters (empty: two streams with answers are compared pairwise; more: all of them, "
        "duplicates collapsed, as the CLI does)",
        data.stream_names(project, packet_id),
        key=f"agr_raters_{packet_id}",
    )
    choice = display.choose_raters(picked, data.answered_streams(project, packet_id))
    st.caption(choice.note)
    summary = data.agreement_summary(project, packet_id, choice.raters)
    for note in summary.notes:
        st.info(note)
    agreement = summary.agreement
    if agreement is not None:
        report = agreement.to_json()
        names = ", ".join(agreement.raters)
        st.markdown(f"#### Agreement of {names} on packet {packet_id}")
        st.caption(
            f"{display.raters_line(report)} {report['pairs']} of {report['items_in_packet']} "
            f"items answered in full by every rater ({report['incomplete_pairs']} not yet); the "
            f"same figures as `evaudit agreement audit DIR {packet_id}"
            + (f" --raters {choice.raters}" if choice.raters else "")
            + " --json`."
        )
        _table(data.agreement_rows(agreement), key="agr_table")
        for group in agreement.duplicate_streams:
            st.warning(f"Identical streams (one stream counted twice): {', '.join(group)}")
        if agreement.confusion is not None:
            _confusion(agreement.confusion, *agreement.raters)
    integ = summary.integrity
    if integ is not None:
        st.markdown("#### Integrity per response stream")
        _table(data.integrity_rows(integ), key="int_table")
        st.caption(integ.line())
    _label_error(project, packet_id)


def _label_error(project: Project, packet_id: str) -> None:
    """`evaudit agreement estimate`: the whole benchmark's label-error rate from this sample.

    Computed on request (it recomputes the audit stage as finalize does), and only for a
    stratified initial packet whose audit is final; otherwise the reason is shown."""
    from services.estimate import label_error_estimate

    st.markdown("#### Label-error estimate for the whole benchmark")
    if not st.button("Estimate from this sample", key=f"estimate_{packet_id}"):
        st.caption(f"The same figures as `evaudit agreement estimate DIR {packet_id} --json`.")
        return
    try:
        report = label_error_estimate(project, packet_id)
    except InputError as exc:
        st.info(f"No estimate yet: {exc.render()}")
        return
    _table(pd.DataFrame(report.rows()), key="estimate_table")
    st.caption(report.caption())
    _table(pd.DataFrame(report.stratum_rows()), key="estimate_strata")


def _confusion(matrix: list[list[int]], a: str, b: str) -> None:
    st.markdown(f"#### Derived-grade confusion (rows: {a}, columns: {b})")
    long = data.confusion_long(matrix)
    dark = max(1, int(long["count"].max())) / 2
    base = alt.Chart(long).encode(
        x=alt.X("col:O", title=f"{b} grade", axis=alt.Axis(labelAngle=0, labelFontSize=14)),
        y=alt.Y("row:O", title=f"{a} grade", axis=alt.Axis(labelFontSize=14)),
    )
    heat = base.mark_rect().encode(color=alt.Color("count:Q", scale=alt.Scale(scheme="blues")))
    # White numbers on the dark half of the scale, black on the light half.
    text = base.mark_text(fontSize=18, fontWeight="bold").encode(
        text="count:Q",
        color=alt.condition(f"datum.count > {dark}", alt.value("white"), alt.value("black")),
    )
    # 72 px per cell: large enough to read three-digit counts (a pixel width gets shrunk).
    chart = (heat + text).properties(width=alt.Step(72), height=alt.Step(72))
    st.altair_chart(chart, width="content")


def _responses(table: pd.DataFrame) -> None:
    if table.empty:
        st.info("No saved responses yet.")
        return
    zone = _zone()
    cols = st.columns(4)
    picks = {
        field: col.multiselect(field, display.filter_options(table, field), key=f"flt_{field}")
        for col, field in zip(cols, ["annotator", "label", "answer", "complete"], strict=True)
    }
    text = st.text_input("Contains (query, document, quote, comment)", key="flt_text")
    shown = display.filter_responses(table, picks, text)
    st.caption(
        f"{len(shown)} of {len(table)} rows; saved times in {display.zone_label(zone)}, 24-hour."
    )
    st.html(display.responses_html(display.local_times(shown, ["saved"], zone)))


def _plots(project: Project, packet_id: str) -> None:
    st.caption("The derived-grade confusion heatmap is on the Agreement tab.")
    timeline = data.progress_timeline(project, packet_id)
    if timeline.empty:
        st.caption("No saves yet.")
        return
    zone = _zone()
    st.markdown("#### Progress over time")
    timeline = timeline.assign(
        time=display.local_times(timeline, ["ts"], zone)["ts"],
        ts=display.wall_clock(timeline["ts"], zone),
    )
    # The wall-clock times are drawn as UTC so the axis shows the zone's own hours; the
    # tick step and label format go together so no two ticks read the same.
    ticks = display.time_ticks(timeline["ts"])
    values = ticks.vega_values(timeline["ts"].min(), timeline["ts"].max())
    x = alt.X(
        "ts:T",
        title=f"time ({display.zone_label(zone)}, 24-hour)",
        scale=alt.Scale(type="utc"),
        axis=alt.Axis(format=ticks.format, labelAngle=0, values=values),
    )
    chart = (
        alt.Chart(timeline)
        .mark_line(interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y("complete:Q", title="complete items"),
            color="annotator:N",
            tooltip=["time:N", "annotator:N", "complete:Q"],
        )
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
