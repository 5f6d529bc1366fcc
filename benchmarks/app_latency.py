"""Annotation app latency, driven through the real server in headless Chromium.

Measures (a) Next pressed -> next item fully rendered (9 pages of ~3,000
characters each; the script run finished and no stale element left) and (b) an
answer click -> its "Saved #seq" confirmation (append + fsync + rerun). The
baseline is the journal append alone (same record, same fsync) in-process.
Targets on this machine: p95 render <= 300 ms, p95 save <= 100 ms.

Run: .venv/bin/python benchmarks/app_latency.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit_app import journal  # noqa: E402
from audit_app.access import add_annotator  # noqa: E402
from audit_app.session import AnnotatorSession, ItemState, record  # noqa: E402
from policies.gates import ConditionAnswer  # noqa: E402
from tests.app_fixture import build  # noqa: E402
from tests.test_app_browser import ARGS, CHROMIUM, IDLE, Server, free_port  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def line(name: str, values: list[float]) -> str:
    return (
        f"{name:<34} n={len(values):>3}  median {statistics.median(values):7.1f} ms"
        f"  p95 {pct(values, 0.95):7.1f} ms"
    )


def baseline(root: Path, rounds: int) -> list[float]:
    """journal.append alone: the same full-item record, appended and fsync'ed."""
    fx = build(root / "base", items=2, conditions=1, pages=9, chars=3000)
    session = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "b")
    body = record(session.packet, "b", "J001", ItemState({"C1": ConditionAnswer("no")}))
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        journal.append(session.journal_path, body)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def app(root: Path, rounds: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    items = rounds + 1
    fx = build(root / "app", items=items, conditions=1, pages=9, chars=3000, kind="adjudication")
    token = add_annotator(fx.project, "bench", ["initial"])[1]
    server = Server(fx.project.root, free_port())
    renders: list[float] = []
    saves: list[float] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            pg = browser.new_page(viewport={"width": 1400, "height": 1000})
            pg.set_default_timeout(60_000)
            pg.goto(server.url(token))
            pg.get_by_text(f"Item J001 (1 of {items})").wait_for()
            seq = 0
            for i in range(1, items):
                item = f"J{i:03d}"
                # Save: click an answer, wait for this save's confirmation.
                for value in ("no", "yes", "no"):
                    pg.wait_for_function(IDLE)
                    label = pg.locator(f".st-key-cond-{item}-C1 [role=radiogroup] label")
                    target = label.filter(has_text=value).first
                    t0 = time.perf_counter()
                    target.click()
                    seq += 1
                    pg.get_by_text(f"Saved {item} (#{seq},").wait_for()
                    saves.append((time.perf_counter() - t0) * 1000)
                # Render: Next, until the next item's 9 pages are on screen and the run is over.
                pg.wait_for_function(IDLE)
                nxt = f"J{i + 1:03d}"
                t0 = time.perf_counter()
                pg.get_by_role("button", name="Next").click()
                pg.wait_for_function(
                    "([item, n]) => document.querySelectorAll("
                    "`.ev-page[data-page^='${item}-']`).length === n && " + IDLE[6:],
                    arg=[nxt, 9],
                )
                renders.append((time.perf_counter() - t0) * 1000)
            browser.close()
    finally:
        server.stop()
    return renders, saves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="Items to step through.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = baseline(Path(tmp), 200)
        renders, saves = app(Path(tmp), args.rounds)
    b = statistics.median(base)
    print(line("baseline: journal append + fsync", base))
    print(line("app: Next -> item rendered", renders))
    print(line("app: answer -> 'Saved' shown", saves))
    print(
        f"ratio save/baseline: median {statistics.median(saves) / b:.1f}x, "
        f"p95 {pct(saves, 0.95) / pct(base, 0.95):.1f}x"
    )
    print(f"ratio render/baseline: median {statistics.median(renders) / b:.1f}x")
    print(
        f"targets: p95 render <= 300 ms: {'met' if pct(renders, 0.95) <= 300 else 'NOT met'}; "
        f"p95 save <= 100 ms: {'met' if pct(saves, 0.95) <= 100 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
