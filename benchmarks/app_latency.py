"""Annotation app latency, driven through the real server in headless Chromium.

The screen is the judging card (services/card/card.js, a Streamlit v2 component).
Measures, on items with 9 pages of ~3,000 characters per condition:
(a) Next pressed -> the next item drawn and settled (the card shows it, 9 page boxes,
    no action waiting for the server);
(b) an answer click (yes/no) -> the card says "Saved ITEM · #seq" and nothing waits
    (append + fsync on the server, the rerun, the card redrawn);
(c) a page checkbox (Space on it) -> its confirmation;
(d) a quote pasted into page B's box and Enter -> its confirmation (the page's text
    redrawn with the quote highlighted);
(e) judging a 3-condition item with the keyboard only: Y, Space, Q, the quote
    pasted, Enter, Right, N, Right, N as scripted key presses with no waits, from the
    first key's event time to the moment every action is confirmed.
The baseline is the journal append alone (same record, same fsync) in-process.
Targets on this machine: p95 render <= 300 ms, p95 save <= 100 ms.

"In page" times run from the click's (or key's) event timestamp in the browser to the
animation frame after the card first satisfies the condition (a MutationObserver on the
card's shadow root); "wall" times are around Playwright's click and wait in this process.
The load average is printed: the machine is shared and the figures follow it.

With `--journal postgresql://...` the project keeps its journals in that database
(`evaudit init --journal`), for the baseline too, so the same targets are checked against
the PostgreSQL backend; `--journal temp` starts a temporary server from Debian's binaries
(tests/pg_fixture.py) and deletes it after.

Run: .venv/bin/python benchmarks/app_latency.py [--rounds N] [--journal URL|temp]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit_app.session import AnnotatorSession, ItemState, record  # noqa: E402
from campaign import journal, journal_pg  # noqa: E402
from services.annotators import add_annotator  # noqa: E402
from tests.app_fixture import build  # noqa: E402
from tests.browser_fixture import ARGS, CHROMIUM  # noqa: E402
from tests.card_driver import at_item, condition  # noqa: E402
from tests.test_app_browser import Server, free_port  # noqa: E402
from vocabulary.gates import ConditionAnswer  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def line(name: str, values: list[float]) -> str:
    return (
        f"{name:<38} n={len(values):>3}  median {statistics.median(values):7.1f} ms"
        f"  p95 {pct(values, 0.95):7.1f} ms"
    )


def use_journal(root: Path, url: str | None) -> None:
    """Switch a freshly built project to the PostgreSQL journal (None: keep files)."""
    if url is not None:
        journal_pg.set_backend(root, journal_pg.new_config(url))


def baseline(root: Path, rounds: int, url: str | None = None) -> list[float]:
    """journal.append alone: the same full-item record, appended and fsync'ed (committed)."""
    fx = build(root / "base", items=2, conditions=1, pages=9, chars=3000)
    use_journal(fx.project.root, url)
    session = AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", "b")
    body = record(session.packet, "b", "J001", ItemState({"C1": ConditionAnswer("no")}))
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        journal.append(session.journal_path, body)
        out.append((time.perf_counter() - t0) * 1000)
    return out


# Installed in the page: the event time of the click or key that starts a measurement,
# and a watcher that records the first animation frame after a condition on the card holds
# (checked on every mutation in the card's shadow root).
WATCH = """
window.__evClick = null;
const stamp = (e) => { if (window.__evClick === null) window.__evClick = e.timeStamp; };
document.addEventListener("click", stamp, true);
document.addEventListener("keydown", stamp, true);
window.__card = () => {
  for (const el of document.querySelectorAll("*")) {
    if (el.shadowRoot && el.shadowRoot.querySelector(".evaudit-card")) return el.shadowRoot;
  }
  return null;
};
window.__watch = (kind, arg) => {
  window.__seen = null;
  window.__evClick = null;
  const root = window.__card();
  const card = () => root.querySelector(".evaudit-card");
  const test = kind === "saved"
    ? () => card().dataset.pending === "0" &&
        root.querySelector(".jc-status").textContent.includes(arg)
    : () => card().dataset.pending === "0" && card().dataset.item === arg &&
        root.querySelectorAll(".jc-page").length === 9;
  const obs = new MutationObserver(() => {
    if (window.__seen === null && test()) {
      obs.disconnect();
      requestAnimationFrame(() => { window.__seen = performance.now(); });
    }
  });
  obs.observe(root, {subtree: true, childList: true, characterData: true, attributes: true});
};
"""
SEEN = "() => window.__seen !== null && window.__evClick !== null"


def in_page(pg) -> float:  # type: ignore[no-untyped-def]
    pg.wait_for_function(SEEN)
    return float(pg.evaluate("window.__seen - window.__evClick"))


Samples = dict[str, list[float]]


def watch(pg, kind: str, arg: str) -> None:  # type: ignore[no-untyped-def]
    pg.evaluate("([k, a]) => window.__watch(k, a)", [kind, arg])


def app(root: Path, rounds: int, url: str | None = None) -> Samples:
    from playwright.sync_api import sync_playwright

    items = rounds + 1
    fx = build(root / "app", items=items, conditions=3, pages=9, chars=3000, kind="adjudication")
    use_journal(fx.project.root, url)
    token = add_annotator(fx.project, "bench", ["initial"])[1]
    server = Server(fx.project.root, free_port())
    out: Samples = {
        k: [] for k in ("render", "save", "render_wall", "save_wall", "page", "quote", "judge")
    }
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            pg = browser.new_page(viewport={"width": 1400, "height": 1000})
            pg.set_default_timeout(60_000)
            pg.add_init_script(WATCH)
            pg.goto(server.url(token))
            at_item(pg, "J001", 1, items)
            pg.locator(".jc-advance").uncheck()  # the script moves between items itself
            seq = 0
            for i in range(1, items):
                item = f"J{i:03d}"
                if i % 2:  # odd items: answers, a page, a quote, each timed
                    condition(pg, "C1")
                    for value in ("no", "yes", "no"):
                        seq += 1
                        watch(pg, "saved", f"Saved {item} · #{seq} ·")
                        t0 = time.perf_counter()
                        pg.locator(f'.jc-ans[data-value="{value}"]').click()
                        out["save"].append(in_page(pg))
                        out["save_wall"].append((time.perf_counter() - t0) * 1000)
                    for _ in range(2):  # select, then unselect page A
                        seq += 1
                        watch(pg, "saved", f"Saved {item} · #{seq} ·")
                        pg.locator(f'.jc-sel[data-page="{item}-C1-A"]').press("Space")
                        out["page"].append(in_page(pg))
                    pkey = f"{item}-C1-B"
                    pg.locator(f'.jc-ptab[data-page="{pkey}"]').click()  # one page shows at a time
                    box = pg.locator(f'.jc-quote[data-page="{pkey}"]')
                    box.fill(fx.quotes[pkey])  # not timed: the quote is pasted
                    seq += 1
                    watch(pg, "saved", f"Saved {item} · #{seq} ·")
                    box.press("Enter")
                    out["quote"].append(in_page(pg))
                else:  # even items: judged with the keyboard only, no waits between keys
                    pg.locator(".jc").focus()
                    condition(pg, "C1")
                    seq += 5  # saves: C1 yes, page A, its quote, C2 no, C3 no
                    watch(pg, "saved", f"Saved {item} · #{seq} ·")
                    kb = pg.keyboard
                    for key in ["y", " ", "q"]:  # page A is the current page
                        kb.press(key)
                    kb.insert_text(fx.quotes[f"{item}-C1-A"])
                    for key in ["Enter", "ArrowRight", "n", "ArrowRight", "n"]:
                        kb.press(key)
                    out["judge"].append(in_page(pg))
                nxt = f"J{i + 1:03d}"
                watch(pg, "render", nxt)
                t0 = time.perf_counter()
                pg.locator(".jc-next").click()
                out["render"].append(in_page(pg))
                out["render_wall"].append((time.perf_counter() - t0) * 1000)
            browser.close()
    finally:
        server.stop()
    return out


@contextlib.contextmanager
def journal_database(arg: str | None) -> Iterator[str | None]:
    if arg != "temp":
        yield arg
        return
    from tests.pg_fixture import temporary_server

    with temporary_server() as server:
        yield server.new_database()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="Items to step through.")
    parser.add_argument(
        "--journal",
        metavar="postgresql://...|temp",
        help="Journals in this PostgreSQL database ('temp': a temporary server); default files.",
    )
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, journal_database(args.journal) as url:
        base = baseline(Path(tmp), 200, url)
        got = app(Path(tmp), args.rounds, url)
    load_after = os.getloadavg()
    renders, saves = got["render"], got["save"]
    b = statistics.median(base)
    print(
        f"load average (1/5/15 min) before {' '.join(f'{x:.1f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.1f}' for x in load_after)}; {os.cpu_count()} cores"
    )
    print(f"journal: {journal_pg.redact(args.journal) if args.journal else 'files'}")
    print(line("baseline: journal append (fsync|commit)", base))
    print(line("app: Next -> item rendered (in page)", renders))
    print(line("app: answer -> 'Saved' (in page)", saves))
    print(line("app: page select -> 'Saved' (in page)", got["page"]))
    print(line("app: quote + Enter -> 'Saved' (in page)", got["quote"]))
    print(line("app: 3-condition item, keys only", got["judge"]))
    print(line("app: Next -> rendered (wall)", got["render_wall"]))
    print(line("app: answer -> 'Saved' (wall)", got["save_wall"]))
    print(
        f"ratio save/baseline: median {statistics.median(saves) / b:.1f}x, "
        f"p95 {pct(saves, 0.95) / pct(base, 0.95):.1f}x"
    )
    print(f"ratio render/baseline: median {statistics.median(renders) / b:.1f}x")
    render_ok = "met" if pct(renders, 0.95) <= 300 else "NOT met"
    save_ok = "met" if pct(saves, 0.95) <= 100 else "NOT met"
    page_ok = "met" if pct(got["page"], 0.95) <= 100 else "NOT met"
    quote_ok = "met" if pct(got["quote"], 0.95) <= 100 else "NOT met"
    print(
        f"targets (in page): p95 render <= 300 ms: {render_ok}; p95 save <= 100 ms: "
        f"answers {save_ok}, page selects {page_ok}, quotes {quote_ok}"
    )


if __name__ == "__main__":
    main()
