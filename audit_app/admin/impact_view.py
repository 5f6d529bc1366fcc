"""The admin page's Impact tab: after finalize, does the revision change the leaderboard,
and which labels moved it. Only wiring: the tables and pictures are those of
`services.impact_admin` (the reports and figures `evaudit score impact|nclue|compare`
print and plot)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from campaign.project import Project


def impact_tab(project: Project) -> None:
    from services.impact_admin import admin_impact, run_names

    st.markdown("#### Impact of the revision on the runs")
    measures = st.text_input("Measures (trec_eval names, the first orders the systems)",
                             value="ndcg_cut_10", key="impact_measures")  # fmt: skip
    if st.button("Compute the impact", key="impact_go"):
        st.session_state["impact_on"] = True  # stays on while pairs are picked below
    if not st.session_state.get("impact_on"):
        st.caption("Computed on request: it recomputes the revision as `evaudit finalize` does.")
        return
    view = admin_impact(project, tuple(m for m in measures.split(",") if m.strip()))
    if view.report is None:
        st.info(view.note)
        if view.note.startswith("an n-Clue project"):
            _figures(project, run_names(project))
        return
    st.caption(view.note)
    st.markdown("##### Runs before and after")
    st.dataframe(pd.DataFrame(view.report.rows()), hide_index=True)
    if view.png is not None:
        st.image(view.png, caption="Ranking before/after and each run's change (95% interval)")
    st.markdown("##### Label influence (most influential first)")
    st.dataframe(pd.DataFrame(view.report.influence_rows()), hide_index=True)


def _figures(project: Project, names: list[str]) -> None:
    from services.impact_admin import admin_figures as figures

    options = [f"{a}:{b}" for a in names for b in names if a != b]
    pairs = st.multiselect("Pairs for Figure 2(b) (BASE:VARIANT)", options, key="fig_pairs")
    got = figures(project, pairs)
    if got.fair is None:
        st.info(got.note)
        return
    st.caption(got.note)
    st.image(got.fair, caption="Figure 2(a): fair methods, Gold Hit vs n-Clue Score")
    if got.plane is not None:
        st.image(got.plane, caption="Figure 2(b): paired effects, delta Gold Hit vs n-Clue")
