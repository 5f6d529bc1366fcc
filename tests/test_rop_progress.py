"""`rop evaluate` reports its progress through the injected callback, block by block,
and the callback changes nothing in the result."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from scorers.rop import evaluate
from tests.test_rop_helpers import bundle

T = TypeVar("T")


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int | None, str]] = []
        self.seen = 0

    def __call__(
        self, items: Iterable[T], /, *, total: int | None = None, desc: str = ""
    ) -> Iterator[T]:
        self.calls.append((total, desc))
        for item in items:
            self.seen += 1
            yield item


def test_every_block_of_the_records_is_reported_once() -> None:
    population = [f"r{i:06d}" for i in range(40_000)]
    rows: list[Any] = [
        {"record_id": rid, "sel": "a1", "ranking": ["A", "B", f"x{i}"]}
        for i, rid in enumerate(population)
    ]
    data, files = bundle(rows, population, {"version": "t", "objects": {"A": ["a1"], "B": []}})
    records = files["records.jsonl"]
    assert records is not None and len(records) > 2 << 20  # three blocks of 1 MiB or more
    quiet = evaluate(data, files, "decl.json")
    rec = Recorder()
    loud = evaluate(data, files, "decl.json", progress=rec)
    assert len(rec.calls) == 1
    total, desc = rec.calls[0]
    assert total == rec.seen == 3 and "records" in desc
    assert loud.to_json() == quiet.to_json()
    assert loud.histogram["PASS"] == 40_000
