"""Journal-only load: W writers x S saves each, the PostgreSQL journal against the file
journal in the same run (no browser, no Streamlit).

Each writer is one annotator (one stream) in a thread of one process, as the sessions of
one app server are; every save is `campaign.journal.append` of a full item record (the
app's own `record`), durable when it returns: fsync'ed for files, committed with
`synchronous_commit = on` for PostgreSQL. Prints throughput (saves/s over the wall time)
and the median, p95 and p99 of one save's latency, then checks every line is there with
seq 1..S per stream.

Without --journal a temporary PostgreSQL is started from Debian's binaries (as the tests
do, tests/pg_fixture.py) in /tmp and deleted after; with --journal URL that database is
used (a fresh campaign id, nothing else touched). The load average is printed: the
machine is shared.

Run: .venv/bin/python benchmarks/journal_load.py [--writers 100] [--saves 200]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit_app.session import AnnotatorSession, ItemState, record  # noqa: E402
from campaign import journal, journal_pg  # noqa: E402
from tests.app_fixture import build  # noqa: E402
from tests.pg_fixture import temporary_server  # noqa: E402
from vocabulary.gates import ConditionAnswer  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(root: Path, writers: int, saves: int, url: str | None) -> tuple[float, list[float]]:
    """(wall seconds, per-save latencies in ms) for one backend."""
    fx = build(root, items=4, conditions=2, pages=9, chars=3000)
    if url is not None:
        journal_pg.set_backend(fx.project.root, journal_pg.new_config(url))
    sessions = [
        AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, "initial", f"w{i}")
        for i in range(writers)
    ]
    items = sessions[0].packet.item_ids
    lat: list[list[float]] = [[] for _ in range(writers)]
    start = threading.Barrier(writers + 1)

    def writer(k: int) -> None:
        s = sessions[k]
        bodies = [
            record(s.packet, s.annotator, i, ItemState({"C1": ConditionAnswer("no")}, True, c))
            for i in items
            for c in ("a", "b")
        ]
        start.wait()
        for n in range(saves):
            t0 = time.perf_counter()
            journal.append(s.journal_path, bodies[n % len(bodies)])
            lat[k].append((time.perf_counter() - t0) * 1000)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(writers)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for s in sessions:  # every save is there, seq 1..S, per stream
        seqs = [ln["seq"] for ln in journal.read_journal(s.journal_path).lines]
        assert seqs == list(range(1, saves + 1)), (s.annotator, len(seqs))
    return wall, [x for per in lat for x in per]


@contextlib.contextmanager
def database(url: str | None) -> Iterator[str]:
    if url is not None:
        yield url
        return
    with temporary_server() as server:
        yield server.new_database()


def report(name: str, wall: float, lat: list[float]) -> str:
    return (
        f"{name:<11} {len(lat):>6} saves in {wall:6.2f} s = {len(lat) / wall:7.0f} saves/s;"
        f" latency median {statistics.median(lat):6.2f} ms, p95 {pct(lat, 0.95):6.2f} ms,"
        f" p99 {pct(lat, 0.99):6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=100, help="Concurrent writers.")
    parser.add_argument("--saves", type=int, default=200, help="Saves per writer.")
    parser.add_argument(
        "--journal", metavar="postgresql://...", help="Database to use (default: a temporary one)."
    )
    args = parser.parse_args()
    journal_pg.POOL_MAX_IDLE = args.writers  # one connection per writer, kept
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, database(args.journal) as url:
        file_wall, file_lat = run(Path(tmp) / "file", args.writers, args.saves, None)
        pg_wall, pg_lat = run(Path(tmp) / "pg", args.writers, args.saves, url)
    load_after = os.getloadavg()
    print(
        f"load average (1/5/15 min) before {' '.join(f'{x:.1f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.1f}' for x in load_after)}; {os.cpu_count()} cores; "
        f"{args.writers} writers x {args.saves} saves"
    )
    print(report("file", file_wall, file_lat))
    print(report("postgresql", pg_wall, pg_lat))
    print(
        f"ratio postgresql/file: throughput {file_wall / pg_wall:.2f}x, "
        f"p99 latency {pct(pg_lat, 0.99) / pct(file_lat, 0.99):.2f}x"
    )


if __name__ == "__main__":
    main()
