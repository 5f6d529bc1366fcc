"""ROP evaluator benchmark: whole processes, side by side, on two shapes of records.

Run: .venv/bin/python benchmarks/rop.py [--records 1000000] [--small-mb 5] [--compiled-at REV]

Every contender is a whole process that prints the `evaudit rop evaluate --json`
report; all outputs (and exit codes) must be byte-identical:

* evaluator      -- `evaudit rop evaluate DECL --json` (this tree);
* compiled scan  -- the same command from the tree at REV (default: the last commit that
                    had `scorers/rop/scan_kernel.py`), extracted with `git archive`; its
                    Numba cache starts empty ("cold") and is then warm;
* msgspec loop   -- validation, then one `msgspec.json.decode` per line (with the two
                    guards that make it read as `json.loads` reads: a UTF-8 check of
                    non-ASCII lines, a digit-run check of lines over 4,300 bytes) and the
                    reference rules (`scorers.rop.reference`) per record;
* stdlib loop    -- the same with `json.loads` per line (`evaluate_reference`).

Shapes: "layout" (one fixed-width layout, key order fixed: every record as written by one
program) and "varied" (key order shuffled per record and per list element, extra fields
at both levels, string escapes, non-ASCII text and ids written with \\u escapes). Each is
run on `--records` records and on a file of about `--small-mb` MB, cold (an empty
bytecode cache for every process, and an empty Numba cache for the compiled scan) and
warm. Files are written under /tmp and deleted at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CUTOFF, LIST_LEN, N_OBJECTS = 20, 20, 50_000
SCAN_FILE = "scorers/rop/scan_kernel.py"


# ---------------------------------------------------------------- records


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    """ASCII digits of non-negative ints, zero-padded: shape (len(values), width)."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return (values[:, None] // powers % 10 + ord("0")).astype(np.uint8)


def _draws(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    """(selected object per record, returned objects per record): about half the records
    return their selected object within the first 20; 50,000-99,999 are unknown ids."""
    rng = np.random.default_rng(seed)
    ranking = rng.integers(0, 2 * N_OBJECTS, size=(n, LIST_LEN))
    selected = rng.integers(0, N_OBJECTS, size=n)
    hit = rng.random(n) < 0.5
    pos = rng.integers(0, LIST_LEN, size=n)
    ranking[hit, pos[hit]] = selected[hit]
    return selected, ranking, rng


def layout_records(n: int, seed: int = 7) -> bytes:
    """n JSONL records of one fixed-width layout, filled in with NumPy (fast to build).

    Ids p00000..p49999 are canonical, q00000..q49999 their aliases, 5xxxx-9xxxx unknown.
    """
    selected, ranking, rng = _draws(n, seed)
    head = b'{"record_id": "r0000000", "selector": {"selected_key": "p00000"}, "ranking": ['
    elem = b'{"object_id": "p00000"}'
    line = head + b", ".join([elem] * LIST_LEN) + b"]}\n"
    buf = np.tile(np.frombuffer(line, dtype=np.uint8), (n, 1))
    buf[:, 16:23] = _digits(np.arange(n, dtype=np.int64), 7)
    sel_at = head.index(b'"p00000"') + 1
    buf[:, sel_at] = np.where(rng.random(n) < 0.5, ord("p"), ord("q"))
    buf[:, sel_at + 1 : sel_at + 6] = _digits(selected, 5)
    start = len(head)
    for j in range(LIST_LEN):
        at = start + j * (len(elem) + 2) + elem.index(b'"p00000"') + 1
        buf[:, at] = np.where(rng.random(n) < 0.5, ord("p"), ord("q"))
        buf[:, at + 1 : at + 6] = _digits(ranking[:, j], 5)
    return buf.tobytes()


def _raw_id(i: int, alias: bool, escaped: bool) -> str:
    """The JSON text (quoted) of raw id i: canonical p..., alias q..., maybe \\u-escaped."""
    letter = ("\\u0071" if alias else "\\u0070") if escaped else ("q" if alias else "p")
    return f'"{letter}{i:05d}"'


def varied_records(n: int, seed: int = 11) -> bytes:
    """n records with varied key order, extra fields and escapes (same draws as above)."""
    selected, ranking, rng = _draws(n, seed)
    notes = [
        json.dumps("plain note"),
        json.dumps('quote " backslash \\ tab \t newline \n'),
        json.dumps("café, naïve, 東京", ensure_ascii=False),
        json.dumps("café, naïve, 東京"),  # \\u escapes
    ]
    # Element texts: four key orders / extra-field sets x alias or not x escaped or not.
    forms = [
        '{{"object_id": {i}}}',
        '{{"score": 0.{s}, "object_id": {i}}}',
        '{{"object_id": {i}, "rank": {s}, "tags": ["a", {{"k": null}}]}}',
        '{{"why": "t\\"x\\\\y", "object_id": {i}, "score": -1.5e-3}}',
    ]
    ids = 2 * N_OBJECTS
    table = np.array(
        [
            form.format(i=_raw_id(i, alias, escaped), s=i % 97)
            for form in forms
            for alias in (False, True)
            for escaped in (False, True)
            for i in range(ids)
        ],
        dtype=object,
    )
    variant = (
        rng.integers(0, len(forms), size=(n, LIST_LEN)) * 4
        + (rng.random((n, LIST_LEN)) < 0.5) * 2  # alias
        + (rng.random((n, LIST_LEN)) < 0.05)  # escaped
    )
    elements = table[variant * ids + ranking]
    sel_alias = rng.random(n) < 0.5
    sel_escaped = rng.random(n) < 0.05
    order = rng.integers(0, 5, size=n)
    note = rng.integers(0, len(notes), size=n)
    out: list[str] = []
    for r in range(n):
        fields = [
            f'"record_id": "r{r:07d}"',
            f'"selector": {{"model": "m{r % 3}", "selected_key": '
            f"{_raw_id(int(selected[r]), bool(sel_alias[r]), bool(sel_escaped[r]))}}}",
            f'"ranking": [{", ".join(elements[r])}]',
            f'"note": {notes[note[r]]}',
            f'"meta": {{"run": {r % 1000}, "ok": true, "t": [1, 2.5, null]}}',
        ]
        k = int(order[r])
        out.append("{" + ", ".join(fields[k:] + fields[:k]) + "}\n")
    return "".join(out).encode()


def write_bundle(folder: Path, records: bytes, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    resolver = json.dumps(
        {"version": "bench", "objects": {f"p{i:05d}": [f"q{i:05d}"] for i in range(N_OBJECTS)}}
    ).encode()
    ids = [f"r{i:07d}" for i in range(n)]
    decl = {
        "rop_version": "1",
        "declaration_id": "bench",
        "interface": {"name": "fixture-ranker-api", "version": "v1"},
        "policy": {"authority": "benchmark", "producer": "benchmarks/rop.py", "revision": "r1"},
        "mode": "hard",
        "population": {
            "id_field": "record_id",
            "ids": ids,
            "count": n,
            "sha256": hashlib.sha256("".join(i + "\n" for i in ids).encode()).hexdigest(),
        },
        "selection": {"field": "selector.selected_key"},
        "output": {
            "list_field": "ranking",
            "id_field": "object_id",
            "cutoff": CUTOFF,
            "membership": "any",
        },
        "resolver": {"path": "resolver.json", "sha256": hashlib.sha256(resolver).hexdigest()},
        "records": {"path": "records.jsonl", "sha256": hashlib.sha256(records).hexdigest()},
    }
    (folder / "resolver.json").write_bytes(resolver)
    (folder / "records.jsonl").write_bytes(records)
    (folder / "declaration.json").write_text(json.dumps(decl))
    return folder / "declaration.json"


# ---------------------------------------------------------------- the two loops (sub-processes)


def run_loop(kind: str, declaration: str) -> int:
    """The msgspec or stdlib per-record loop over a declaration; prints the report.

    It starts as the CLI starts (importing every command), so that the processes differ
    only in how they evaluate."""
    import evaudit.cli  # noqa: F401
    from evaudit.output import dumps
    from formats.rop_files import read_declaration_bundle
    from scorers.rop import evaluate_reference, validate

    b = read_declaration_bundle(declaration)
    check = validate(b.data, b.files, b.name, parsed=b.parsed)
    assert check.declaration is not None and check.records is not None, check.problems
    if kind == "stdlib":
        result = evaluate_reference(check.declaration, check.records)
    else:
        result = evaluate_reference(check.declaration, check.records, loads=_guarded_loads())
    print(dumps(result.to_json()))
    return result.exit_code


def _guarded_loads() -> Any:
    import re

    import msgspec

    limit = sys.get_int_max_str_digits()
    long_run = re.compile(rb"[0-9]{%d}" % (limit + 1)) if limit else None
    decode = msgspec.json.decode

    def loads(line: bytes) -> Any:
        # The two guards (msgspec can read invalid UTF-8 and integers longer than Python's
        # limit, which json.loads refuses); json.loads decides such lines. (It decodes
        # bytes with "surrogatepass": an encoded surrogate is read.)
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return json.loads(line)
        if long_run is not None and len(line) > limit and long_run.search(line):
            return json.loads(line)
        try:
            return decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return json.loads(line)  # raises as json.loads raises, or reads NaN, 1e999...

    return loads


# ---------------------------------------------------------------- timing


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, bytes, int]:
    """(wall s, CPU s of the child, stdout, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proc.returncode not in (0, 1, 2, 3) or not proc.stdout:
        raise SystemExit(f"{cmd[:3]} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return wall, cpu, proc.stdout, proc.returncode


def _compiled_tree(rev: str | None, where: Path) -> Path | None:
    """The tree at `rev` (default: the last commit with the compiled scan), or None."""
    if rev is None:
        git = ["git", "-C", str(ROOT)]
        here = subprocess.run(
            [*git, "cat-file", "-e", f"HEAD:{SCAN_FILE}"], capture_output=True, check=False
        )
        if here.returncode == 0:
            rev = "HEAD"
        else:
            last = subprocess.run(
                [*git, "log", "-1", "--format=%H", "--", SCAN_FILE],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
            if not last:
                return None
            rev = f"{last}^"
    tree = where / "compiled-tree"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    print(f"compiled scan: the tree at {rev} ({_short(rev)})")
    return tree


def _short(rev: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


class Contenders:
    def __init__(self, work: Path, compiled: Path | None) -> None:
        self.work = work
        self.compiled = compiled
        self.py = sys.executable
        cli = "import sys; from evaudit.cli import main; sys.argv[0] = 'evaudit'; main()"
        self.cmds: dict[str, tuple[list[str], Path]] = {
            "evaluator": ([self.py, "-c", cli, "rop", "evaluate"], ROOT),
            "msgspec loop": ([self.py, str(Path(__file__).resolve()), "--loop", "msgspec"], ROOT),
            "stdlib loop": ([self.py, str(Path(__file__).resolve()), "--loop", "stdlib"], ROOT),
        }
        if compiled is not None:
            # sys.path[0] is the extracted tree: its packages shadow this tree's
            prog = f"import sys; sys.path.insert(0, {str(compiled)!r}); " + cli
            self.cmds["compiled scan"] = ([self.py, "-c", prog, "rop", "evaluate"], compiled)

    def env(self, cache: str) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPYCACHEPREFIX"] = str(self.work / f"pyc-{cache}")
        env["NUMBA_CACHE_DIR"] = str(self.work / f"numba-{cache}")
        return env

    def run(self, name: str, decl: Path, cache: str) -> tuple[float, float, bytes, int]:
        cmd, cwd = self.cmds[name]
        flag = [] if name.endswith("loop") else ["--json"]
        return _run([*cmd, str(decl), *flag], self.env(cache), cwd)


def _check_same(outputs: dict[str, tuple[bytes, int]], shape: str) -> None:
    first = next(iter(outputs.values()))
    for name, out in outputs.items():
        if out != first:
            raise SystemExit(f"{shape}: {name}'s output differs from the evaluator's")


def bench_big(c: Contenders, decl: Path, shape: str, n: int) -> None:
    print(f"\n{shape}, {n:,} records ({(decl.parent / 'records.jsonl').stat().st_size / 1e6:.0f} MB)"
          f", load average before: {_load()}")  # fmt: skip
    times: dict[str, tuple[float, float]] = {}
    outputs: dict[str, tuple[bytes, int]] = {}
    for name in c.cmds:
        wall, cpu, out, code = c.run(name, decl, "warm")
        times[name] = (wall, cpu)
        outputs[name] = (out, code)
        print(f"  {name:14s}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, {n / wall:10,.0f} records/s")
    _check_same(outputs, shape)
    report = json.loads(outputs["evaluator"][0])
    ev = times["evaluator"][0]
    print(f"  outputs byte-identical ({len(outputs['evaluator'][0]) / 1e6:.0f} MB, "
          f"{report['run_status']}, PASS {report['histogram']['PASS']:,})")  # fmt: skip
    print(f"  evaluator vs stdlib loop : {times['stdlib loop'][0] / ev:5.1f}x faster")
    print(f"  evaluator vs msgspec loop: {times['msgspec loop'][0] / ev:5.1f}x faster")
    if "compiled scan" in times:
        print(f"  compiled scan vs evaluator: {ev / times['compiled scan'][0]:5.2f}x faster")
    verdict = "met" if ev <= 10.0 * n / 1_000_000 else "NOT met"
    print(f"  target (1M records within 10 s): {verdict}; load average after: {_load()}")


def bench_small(c: Contenders, decl: Path, shape: str, rounds: int) -> None:
    """Cold (a fresh bytecode cache, and Numba cache, for every call) and warm calls,
    `rounds` of each in alternating order; medians of wall and CPU seconds."""
    size = (decl.parent / "records.jsonl").stat().st_size / 1e6
    print(f"\n{shape}, {size:.1f} MB, {rounds} cold and {rounds} warm calls each (medians), "
          f"load average before: {_load()}")  # fmt: skip
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    outputs: dict[str, tuple[bytes, int]] = {}
    for r in range(rounds):
        for name in c.cmds:
            if name == "compiled scan" and r > 0:
                continue  # one cold call: it compiles for 12-40 s
            wall, cpu, out, code = c.run(name, decl, f"cold-{shape}-{r}-{name.replace(' ', '-')}")
            runs.setdefault((name, "cold"), []).append((wall, cpu))
            outputs[name] = (out, code)
        for name in c.cmds:
            wall, cpu, out, code = c.run(name, decl, "warm")
            runs.setdefault((name, "warm"), []).append((wall, cpu))
            assert (out, code) == outputs[name]
    _check_same(outputs, shape)
    med: dict[tuple[str, str], tuple[float, float]] = {}
    for key, values in runs.items():
        walls, cpus = sorted(w for w, _ in values), sorted(u for _, u in values)
        med[key] = (walls[len(walls) // 2], cpus[len(cpus) // 2])
    for name in c.cmds:
        (cw, cc), (ww, wc) = med[(name, "cold")], med[(name, "warm")]
        print(f"  {name:14s}: cold {cw:6.2f} s ({cc:.2f} s CPU), warm {ww:5.2f} s ({wc:.2f} s CPU)")
    for mode in ("cold", "warm"):
        ev, base = med[("evaluator", mode)], med[("stdlib loop", mode)]
        ok = "met" if ev[0] <= base[0] else "NOT met"
        print(f"  {mode}: evaluator {ev[0]:.2f} s vs stdlib loop {base[0]:.2f} s wall "
              f"({ev[1]:.2f} vs {base[1]:.2f} s CPU): no slower {ok}")  # fmt: skip
    print(f"  load average after: {_load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--small-mb", type=float, default=5.0)
    parser.add_argument("--shapes", default="layout,varied")
    parser.add_argument(
        "--rounds", type=int, default=3, help="cold and warm calls on the small file"
    )
    parser.add_argument("--compiled-at", default=None, help="git revision of the compiled scan")
    parser.add_argument("--no-compiled", action="store_true", help="skip the compiled scan")
    parser.add_argument("--loop", choices=["msgspec", "stdlib"], help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.loop:  # a contender's own process
        raise SystemExit(run_loop(args.loop, rest[0]))
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    print(f"load average at start: {_load()} ({os.cpu_count()} cores)")
    work = Path(tempfile.mkdtemp(prefix="rop-bench-", dir="/tmp"))
    try:
        compiled = None if args.no_compiled else _compiled_tree(args.compiled_at, work)
        c = Contenders(work, compiled)
        makers = {"layout": layout_records, "varied": varied_records}
        for shape in args.shapes.split(","):
            make = makers[shape]
            per_record = len(make(1000)) / 1000
            n_small = max(1, int(args.small_mb * 1e6 / per_record))
            small = write_bundle(work / f"{shape}-small", make(n_small), n_small)
            # warm every contender once (bytecode, Numba cache) before the big files
            for name in c.cmds:
                c.run(name, small, "warm")
            bench_small(c, small, shape, args.rounds)
            t = time.perf_counter()
            big = write_bundle(work / shape, make(args.records), args.records)
            print(f"\n(built {args.records:,} {shape} records in {time.perf_counter() - t:.1f} s)")
            bench_big(c, big, shape, args.records)
            shutil.rmtree(big.parent)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
