"""Journal load: simulated annotators on several app-server processes against one
PostgreSQL, every save checked for loss and duplication; or (`--burst`) W writers x S
saves each, the PostgreSQL journal against the file journal in the same run.

Default (the campaign case, docs/deploy.md): `--annotators` people (50) spread over
`--servers` processes (3), each process one app server with its own connection pool.
Every simulated person is the server side of one judging card: an `AnnotatorSession`
and a `CardSession` fed an outbox through `audit_app.judging.apply_outbox`, exactly as
the page does (the token re-checked before each save, the action applied to the item's
latest state, appended and committed). Each action sets an item's comment to a text
unique to that save; after a think time (exponential, mean `--think` s) the next one
follows. A save that fails stays in the outbox and is sent again, as the card does.
Save latency: from the action entering the outbox to its confirmation (retries
included). After `--duration` seconds (600) every person's outbox is flushed and the
database is read: a save is *lost* when a confirmed text has no journal line, and
*duplicated* when a text has more than one. Baseline in the same run: one writer alone
on the same database (`journal.append`, 300 saves). `--restart-at S` restarts the
temporary PostgreSQL S seconds into the run (the outboxes must re-send).
Target: p99 save latency <= 250 ms, nothing lost or duplicated.

`--burst`: each writer is one annotator (one stream) in a thread of one process; every
save is `campaign.journal.append` of a full item record, durable when it returns:
fsync'ed for files, committed with `synchronous_commit = on` for PostgreSQL. Prints
throughput and latency percentiles and checks every line is there with seq 1..S.

Without --journal a temporary PostgreSQL is started from Debian's binaries (as the tests
do, tests/pg_fixture.py) in /tmp and deleted after; with --journal URL that database is
used (a fresh campaign id, nothing else touched). The load average is printed: the
machine is shared.

Run: .venv/bin/python benchmarks/journal_load.py [--duration 600] [--annotators 50]
     [--servers 3] [--think 1.0] [--restart-at S] [--json]
     .venv/bin/python benchmarks/journal_load.py --burst [--writers 100] [--saves 200]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit_app.session import AnnotatorSession, ItemState, record  # noqa: E402
from campaign import journal, journal_pg  # noqa: E402
from tests.app_fixture import build  # noqa: E402
from tests.pg_fixture import temporary_server  # noqa: E402
from vocabulary.gates import ConditionAnswer  # noqa: E402

PACKET = "initial"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# --- the campaign case: annotators on several servers ------------------------------------


class Person:
    """One simulated annotator's card on one server: an outbox, re-sent until confirmed."""

    def __init__(self, project_root: Path, name: str, token: str, seed: int) -> None:
        from audit_app.judging import CardSession
        from campaign.project import open_project

        self.project = open_project(project_root)
        self.name, self.token = name, token
        self.session = AnnotatorSession.open(
            self.project.packets_dir, self.project.journals_dir, PACKET, name
        )
        self.card = CardSession()
        self.nonce = f"{name}-{os.getpid()}"
        self.pending: list[dict[str, Any]] = []  # unconfirmed actions, ids growing
        self.sent_at: dict[int, float] = {}
        self.next_id = 1
        self.rng = random.Random(seed)
        self.confirmed: list[str] = []
        self.latencies: list[float] = []
        self.failed_sends = 0

    def allowed(self) -> bool:
        from campaign.registry import authenticate

        return authenticate(self.project, self.token) is not None

    def act(self) -> None:
        item = self.rng.choice(self.session.packet.item_ids)
        text = f"{self.name} save {self.next_id}"
        self.pending.append({"id": self.next_id, "op": "comment", "item": item, "text": text})
        self.sent_at[self.next_id] = time.perf_counter()
        self.next_id += 1
        self.send()

    def send(self) -> None:
        from audit_app.judging import apply_outbox

        outbox = {"nonce": self.nonce, "actions": list(self.pending)}
        apply_outbox(self.session, self.card, outbox, self.allowed)
        done = self.card.applied.get(self.nonce, 0)
        now = time.perf_counter()
        for action in [a for a in self.pending if a["id"] <= done]:
            self.confirmed.append(action["text"])
            self.latencies.append((now - self.sent_at.pop(action["id"])) * 1000)
        before = len(self.pending)
        self.pending = [a for a in self.pending if a["id"] > done]
        if self.pending and len(self.pending) == before:
            self.failed_sends += 1


def worker(args: argparse.Namespace) -> None:
    """One app server: its people in threads until the deadline, then flushed."""
    people_spec = json.loads(Path(args.worker).read_text())
    journal_pg.POOL_MAX_IDLE = len(people_spec["people"])
    people = [
        Person(Path(people_spec["root"]), p["name"], p["token"], p["seed"])
        for p in people_spec["people"]
    ]
    deadline = people_spec["deadline"]
    think = float(people_spec["think"])

    def run(person: Person) -> None:
        while time.time() < deadline:
            time.sleep(min(person.rng.expovariate(1 / think), max(0.0, deadline - time.time())))
            if time.time() >= deadline:
                break
            if person.pending:
                person.send()  # the card's timer re-sends what is waiting
            person.act()
        while person.pending:  # flush: the card re-sends until the server is back
            time.sleep(0.2)
            person.send()

    threads = [threading.Thread(target=run, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out = {
        p.name: {
            "confirmed": p.confirmed,
            "latencies": p.latencies,
            "failed_sends": p.failed_sends,
        }
        for p in people
    }
    Path(people_spec["out"]).write_text(json.dumps(out))


def campaign_run(args: argparse.Namespace, url: str, work: Path, server: Any) -> dict[str, Any]:
    from services.annotators import add_annotator

    fx = build(work / "proj", items=30, conditions=3, pages=3, chars=1500)
    journal_pg.set_backend(fx.project.root, journal_pg.new_config(url))
    names = [f"a{i:02d}" for i in range(args.annotators)]
    tokens = {n: add_annotator(fx.project, n, [PACKET])[1] for n in names}
    baseline = baseline_latencies(fx.project.root)
    deadline = time.time() + 5 + args.duration  # 5 s for the servers to start
    procs, outs = [], []
    for k in range(args.servers):
        spec = work / f"server{k}.json"
        out = work / f"server{k}.out.json"
        mine = [n for i, n in enumerate(names) if i % args.servers == k]
        spec.write_text(
            json.dumps(
                {
                    "root": str(fx.project.root),
                    "people": [
                        {"name": n, "token": tokens[n], "seed": i} for i, n in enumerate(mine)
                    ],
                    "deadline": deadline,
                    "think": args.think,
                    "out": str(out),
                }
            )
        )
        procs.append(subprocess.Popen([sys.executable, __file__, "--worker", str(spec)]))
        outs.append(out)
    restarted = None
    if args.restart_at is not None and server is not None:
        time.sleep(max(0.0, deadline - args.duration + args.restart_at - time.time()))
        t0 = time.perf_counter()
        server.stop("fast")
        server.start()
        restarted = time.perf_counter() - t0
    for p in procs:
        if p.wait() != 0:
            raise SystemExit(f"server process {p.pid} failed with exit code {p.returncode}")
    results: dict[str, Any] = {}
    for out in outs:
        results.update(json.loads(out.read_text()))
    return check(fx.project.root, names, results, baseline, restarted)


def baseline_latencies(root: Path) -> list[float]:
    """One writer alone on the same database: `journal.append` of a full record."""
    session = AnnotatorSession.open(root / "packets", root / "journals", PACKET, "baseline")
    state = ItemState({"C1": ConditionAnswer("no")}, False, "baseline")
    body = record(session.packet, "baseline", session.packet.item_ids[0], state)
    lat = []
    for _ in range(300):
        t0 = time.perf_counter()
        journal.append(session.journal_path, body)
        lat.append((time.perf_counter() - t0) * 1000)
    return lat


def check(
    root: Path,
    names: list[str],
    results: dict[str, Any],
    baseline: list[float],
    restarted: float | None,
) -> dict[str, Any]:
    lost = duplicated = unconfirmed = saves = failed_sends = 0
    latencies: list[float] = []
    for name in names:
        lines = journal.read_journal(root / "journals" / PACKET / f"{name}.jsonl").lines
        counts = Counter(str(ln.get("comment")) for ln in lines)
        confirmed = results[name]["confirmed"]
        saves += len(confirmed)
        lost += sum(1 for text in confirmed if counts[text] == 0)
        duplicated += sum(c - 1 for c in counts.values() if c > 1)
        unconfirmed += len(set(counts) - set(confirmed))
        seqs = [ln["seq"] for ln in lines]
        assert seqs == list(range(1, len(seqs) + 1)), (name, "seq not 1..N")
        latencies += results[name]["latencies"]
        failed_sends += results[name]["failed_sends"]
    return {
        "saves": saves,
        "lost": lost,
        "duplicated": duplicated,
        "in_journal_not_confirmed": unconfirmed,
        "sends_refused_then_resent": failed_sends,
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(pct(latencies, 0.95), 1),
            "p99": round(pct(latencies, 0.99), 1),
            "max": round(max(latencies), 1),
        },
        "baseline_ms": {
            "p50": round(statistics.median(baseline), 1),
            "p99": round(pct(baseline, 0.99), 1),
        },
        "restart_seconds": None if restarted is None else round(restarted, 2),
    }


# --- burst: writers x saves, files against the database ----------------------------------


def run(root: Path, writers: int, saves: int, url: str | None) -> tuple[float, list[float]]:
    """(wall seconds, per-save latencies in ms) for one backend."""
    fx = build(root, items=4, conditions=2, pages=9, chars=3000)
    if url is not None:
        journal_pg.set_backend(fx.project.root, journal_pg.new_config(url))
    sessions = [
        AnnotatorSession.open(fx.project.packets_dir, fx.project.journals_dir, PACKET, f"w{i}")
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
def database(url: str | None) -> Iterator[tuple[str, Any]]:
    if url is not None:
        yield url, None
        return
    with temporary_server() as server:
        yield server.new_database(), server


def report(name: str, wall: float, lat: list[float]) -> str:
    return (
        f"{name:<11} {len(lat):>6} saves in {wall:6.2f} s = {len(lat) / wall:7.0f} saves/s;"
        f" latency median {statistics.median(lat):6.2f} ms, p95 {pct(lat, 0.95):6.2f} ms,"
        f" p99 {pct(lat, 0.99):6.2f} ms"
    )


def burst(args: argparse.Namespace) -> None:
    journal_pg.POOL_MAX_IDLE = args.writers  # one connection per writer, kept
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, database(args.journal) as (url, _server):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--duration", type=float, default=600, help="Seconds of judging.")
    parser.add_argument("--annotators", type=int, default=50, help="Simulated annotators.")
    parser.add_argument("--servers", type=int, default=3, help="App-server processes.")
    parser.add_argument(
        "--think", type=float, default=1.0, help="Mean seconds between one person's saves."
    )
    parser.add_argument(
        "--restart-at",
        type=float,
        default=None,
        metavar="S",
        help="Restart the temporary PostgreSQL S seconds into the run.",
    )
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--burst", action="store_true", help="Writers x saves, files vs db.")
    parser.add_argument("--writers", type=int, default=100, help="--burst: concurrent writers.")
    parser.add_argument("--saves", type=int, default=200, help="--burst: saves per writer.")
    parser.add_argument(
        "--journal", metavar="postgresql://...", help="Database to use (default: a temporary one)."
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # one server process (internal)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    if args.burst:
        burst(args)
        return
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, database(args.journal) as (url, server):
        result = campaign_run(args, url, Path(tmp), server)
    load_after = os.getloadavg()
    result = {
        "annotators": args.annotators,
        "servers": args.servers,
        "duration_s": args.duration,
        "think_s": args.think,
        **result,
        "load_before": [round(x, 1) for x in load_before],
        "load_after": [round(x, 1) for x in load_after],
        "cores": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        lat, base = result["latency_ms"], result["baseline_ms"]
        print(
            f"{args.annotators} annotators on {args.servers} servers, {args.duration:.0f} s, "
            f"think {args.think} s; load {result['load_before']} -> {result['load_after']}, "
            f"{result['cores']} cores"
        )
        print(
            f"saves {result['saves']}, lost {result['lost']}, duplicated "
            f"{result['duplicated']}, re-sent after a refusal {result['sends_refused_then_resent']}"
        )
        print(
            f"save latency p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms "
            f"(target p99 <= 250 ms); baseline one writer alone p50 {base['p50']} ms, p99 "
            f"{base['p99']} ms; ratio p99 {lat['p99'] / base['p99']:.2f}x"
        )
    if result["lost"] or result["duplicated"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
