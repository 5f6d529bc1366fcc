"""How the admin tables read: which raters, number formats, local times, the integrity
line, the filtered unblinded table as literal HTML. No Streamlit here: `views.py` only
passes these results to widgets, so every choice below is testable without a server.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

from services.integrity import IntegrityReport

# Integer-valued figures; shown without decimals even when a gap makes the column float.
COUNT_COLUMNS = ("count", "total", "quotes exact", "quotes total")


@dataclass(frozen=True)
class RaterChoice:
    raters: str | None  # the `--raters` argument (None: the CLI's default)
    note: str  # which raters the figures use, and why, for the page


def choose_raters(picked: Sequence[str], answered: Sequence[str]) -> RaterChoice:
    """Two picked raters, or exactly two streams with answers, give the pairwise view."""
    if len(picked) >= 2:
        return RaterChoice(",".join(picked), f"Raters picked: {', '.join(picked)}.")
    lead = "One rater picked: pick at least two. " if len(picked) == 1 else ""
    if len(answered) == 2:
        names = " and ".join(answered)
        return RaterChoice(
            ",".join(answered), f"{lead}Only {names} have answers: their pairwise figures."
        )
    return RaterChoice(
        None, f"{lead}Every stream with answers, duplicates collapsed (as the CLI does)."
    )


def raters_line(report: dict[str, Any]) -> str:
    """Which raters the figures use: said for the multi-rater figures when there are 3+."""
    names = ", ".join(report["raters"])
    if len(report["raters"]) >= 3:
        return (
            f"Multi-rater figures (unanimous conditions, positive votes, Fleiss' kappa) use "
            f"{len(report['raters'])} raters: {names}. Each pair's agreement is listed below them."
        )
    return f"Pairwise figures of {names}."


def number_formats(table: pd.DataFrame) -> dict[str, str]:
    """printf format per numeric column: counts as integers, other figures to 4 decimals."""
    out: dict[str, str] = {}
    for name in table.columns:
        column = table[name]
        if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
            continue
        whole = name in COUNT_COLUMNS or pd.api.types.is_integer_dtype(column)
        out[str(name)] = "%d" if whole else "%.4f"
    return out


def integrity_line(report: IntegrityReport | dict[str, Any]) -> str:
    """One sentence that says ok or names what is wrong (`IntegrityReport.line`)."""
    if isinstance(report, dict):
        report = IntegrityReport.from_json(report)
    return report.line()


def zone_of(name: str | None) -> tzinfo:
    """The browser's IANA zone if known and valid, else the server's local zone."""
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    local = datetime.now().astimezone().tzinfo
    assert local is not None
    return local


def zone_label(zone: tzinfo) -> str:
    return str(getattr(zone, "key", None) or datetime.now(zone).strftime("%Z"))


def local_time(ts: Any, zone: tzinfo) -> str:
    """An ISO timestamp as local 24-hour time with the zone ("2026-12-01 16:41:32 CET")."""
    if ts is None or ts == "" or (isinstance(ts, float) and pd.isna(ts)):
        return ""
    moment = pd.Timestamp(ts)
    if moment.tzinfo is None:
        moment = moment.tz_localize("UTC")
    return str(moment.tz_convert(zone).strftime("%Y-%m-%d %H:%M:%S %Z"))


def local_times(table: pd.DataFrame, columns: Sequence[str], zone: tzinfo) -> pd.DataFrame:
    out = table.copy()
    for column in columns:
        if column in out.columns:
            out[column] = [local_time(v, zone) for v in out[column]]
    return out


def wall_clock(times: pd.Series, zone: tzinfo) -> pd.Series:
    """Instants re-labelled so their UTC digits are the wall-clock time in `zone`: a chart
    with a UTC time scale then shows the zone's own hours, whatever the browser's zone."""
    local = pd.to_datetime(times, utc=True).dt.tz_convert(zone).dt.tz_localize(None)
    return local.dt.tz_localize("UTC")


# (largest span in seconds, Vega time unit, seconds per unit, d3 format, tick steps)
_TICK_UNITS: tuple[tuple[float, str, float, str, tuple[int, ...]], ...] = (
    (10, "millisecond", 0.001, "%H:%M:%S.%L", (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)),
    (20 * 60, "second", 1, "%H:%M:%S", (1, 2, 5, 10, 15, 20, 30, 60, 120, 180)),
    (86400, "minute", 60, "%H:%M", (1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 360, 720)),
    (float("inf"), "day", 86400, "%d %b %H:%M", (1, 2, 5, 7, 14, 30, 60, 90, 180, 365)),
)
MAX_TICKS = 8


@dataclass(frozen=True)
class TimeTicks:
    """A time axis whose ticks each show a different label: the label format resolves
    the tick step (`%H:%M` only with whole-minute steps), at most about `MAX_TICKS`."""

    unit: str  # Vega time interval of the ticks
    step: int  # ticks every `step` units
    seconds: float  # seconds per unit
    format: str  # d3 time format of a label

    def ticks(self, start: pd.Timestamp, end: pd.Timestamp) -> list[pd.Timestamp]:
        """The tick instants between start and end: whole multiples of the step."""
        size = pd.Timedelta(seconds=self.step * self.seconds)
        out = []
        tick = start.ceil(size)
        while tick <= end:
            out.append(tick)
            tick += size
        return out or [start]

    def vega_values(self, start: pd.Timestamp, end: pd.Timestamp) -> list[dict[str, Any]]:
        """The ticks as Vega-Lite UTC DateTime objects (the axis `values`)."""
        return [
            {
                "utc": True,
                "year": t.year,
                "month": t.month,
                "date": t.day,
                "hours": t.hour,
                "minutes": t.minute,
                "seconds": t.second,
                "milliseconds": t.microsecond // 1000,
            }
            for t in self.ticks(start, end)
        ]

    def labels(self, start: pd.Timestamp, end: pd.Timestamp) -> list[str]:
        """The labels of the ticks between start and end (UTC scale), as drawn."""
        fmt = self.format.replace("%L", "%f")
        cut = 3 if "%L" in self.format else 0  # %f is microseconds, %L milliseconds
        return [t.strftime(fmt)[: -cut or None] for t in self.ticks(start, end)]


def time_ticks(times: pd.Series) -> TimeTicks:
    """Ticks for a time axis over `times` (already wall-clock, `wall_clock`)."""
    moments = pd.to_datetime(times, utc=True)
    span = (moments.max() - moments.min()).total_seconds() if len(moments) else 0.0
    span = max(span, 0.001)
    _limit, unit, seconds, fmt, steps = next(u for u in _TICK_UNITS if span < u[0])
    step = next((k for k in steps if span / (k * seconds) <= MAX_TICKS), steps[-1])
    return TimeTicks(unit, step, seconds, fmt)


def filter_responses(table: pd.DataFrame, picks: dict[str, list[str]], text: str) -> pd.DataFrame:
    """Rows matching every picked value and containing `text` (query, document, quote, comment)."""
    shown = table
    for field, values in picks.items():
        if values:
            shown = shown[shown[field].astype(str).isin(values)]
    if text:
        hay = shown[["query_id", "doc_id", "quotes", "comment"]].astype(str).agg(" ".join, axis=1)
        shown = shown[hay.str.contains(text, case=False, regex=False)]
    return shown


def filter_options(table: pd.DataFrame, field: str) -> list[str]:
    return sorted(table[field].dropna().astype(str).unique())


TABLE_CSS = """
<style>
.ev-unblinded { max-height: calc(100vh - 9rem); overflow: auto; border: 1px solid #ddd; }
.ev-unblinded table { border-collapse: collapse; font-size: 0.85rem; width: max-content; }
.ev-unblinded th { position: sticky; top: 0; background: #f3f3f3; text-align: left;
  padding: 0.3rem 0.45rem; border-bottom: 1px solid #bbb; white-space: nowrap; z-index: 1; }
.ev-unblinded td { padding: 0.3rem 0.45rem; border-bottom: 1px solid #eee;
  vertical-align: top; white-space: pre; }
.ev-unblinded td.num { text-align: right; }
.ev-unblinded td.wrap { white-space: pre-wrap; overflow-wrap: anywhere;
  min-width: 18rem; max-width: 34rem; }
/* Wide tables scroll sideways inside the box; the first column stays in view. */
.ev-unblinded th:first-child, .ev-unblinded td:first-child { position: sticky; left: 0;
  background: #fff; z-index: 2; border-right: 1px solid #ddd; }
.ev-unblinded th:first-child { background: #f3f3f3; z-index: 3; }
</style>
"""
_WRAP = {"quotes", "comment"}  # free text wraps; every other cell shows in full on its lines


def _cell(value: Any) -> str:
    """A cell's literal text: blank for a missing value, integers without decimals."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def responses_html(table: pd.DataFrame) -> str:
    """The unblinded table as escaped HTML (quotes and comments are untrusted text), in a
    box as tall as the window (it scrolls inside), quotes and comments wrapped, every other
    cell in full: routes one line per selected page, times as given."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    rows = []
    for record in table.itertuples(index=False):
        cells = []
        for column, value in zip(table.columns, record, strict=True):
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            cls = "num" if numeric else ("wrap" if column in _WRAP else "")
            attr = f' class="{cls}"' if cls else ""
            cells.append(f"<td{attr}>{html.escape(_cell(value))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'{TABLE_CSS}<div class="ev-unblinded"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
