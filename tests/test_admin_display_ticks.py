"""The admin plot's time axis: every tick label different, over spans from seconds to
weeks (the old axis printed `%H:%M` on ticks seconds apart: the same label many times)."""

from __future__ import annotations

import pandas as pd
import pytest

from audit_app.admin import display


@pytest.mark.parametrize(
    "seconds", [0.5, 4, 9, 40, 90, 300, 1199, 1500, 3600, 5 * 3600, 86400, 2.9 * 86400, 20 * 86400]
)
def test_every_tick_label_is_different(seconds: float) -> None:
    start = pd.Timestamp("2026-12-01 14:03:07.250", tz="UTC")
    times = pd.Series([start, start + pd.Timedelta(seconds=seconds)])
    ticks = display.time_ticks(times)
    labels = ticks.labels(times.min(), times.max())
    assert 1 <= len(labels) <= display.MAX_TICKS + 1
    assert len(set(labels)) == len(labels), (ticks, labels)
    values = ticks.vega_values(times.min(), times.max())  # what the axis is given
    back = [
        pd.Timestamp(
            year=v["year"], month=v["month"], day=v["date"], hour=v["hours"],
            minute=v["minutes"], second=v["seconds"], microsecond=v["milliseconds"] * 1000,
            tz="UTC",
        )
        for v in values
    ]  # fmt: skip
    assert back == ticks.ticks(times.min(), times.max())
    assert all(v["utc"] for v in values) and all(times.min() <= t <= times.max() for t in back)


def test_old_axis_repeated_labels() -> None:
    """What the issue saw: minute labels on ticks a few seconds apart."""
    start = pd.Timestamp("2026-12-01 14:03:07", tz="UTC")
    old = display.TimeTicks("second", 5, 1, "%H:%M")
    labels = old.labels(start, start + pd.Timedelta(seconds=40))
    assert len(set(labels)) < len(labels)
    assert display.time_ticks(pd.Series([start, start + pd.Timedelta(seconds=40)])).format == (
        "%H:%M:%S"
    )
