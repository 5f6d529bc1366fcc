"""Progress is injected: library loops report through the callback they are given, and
the CLI's bar (the only place tqdm lives) is silent under --json."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from campaign.project import open_project
from evaudit.output import progress_bar
from packet_builder.build import BuildSpec, build
from packet_builder.ingest import IngestSpec, ingest
from services.build import CHAIN
from tests.conftest import make_pdf
from tests.test_packet_fixtures import make_project
from vocabulary.progress import no_progress

T = TypeVar("T")


class Recorder:
    """A Progress that keeps what it was shown: (desc, total, number of items passed)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int | None, int]] = []

    def __call__(
        self, items: Iterable[T], *, total: int | None = None, desc: str = ""
    ) -> Iterator[T]:
        seen = 0
        for item in items:
            seen += 1
            yield item
        self.calls.append((desc, total, seen))


def test_no_progress_passes_every_item_through() -> None:
    assert list(no_progress(iter(range(5)), total=5, desc="x")) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("workers", [1, 2])
def test_ingest_reports_every_pdf_to_the_injected_callback(
    project: Path, tmp_path: Path, workers: int
) -> None:
    for name in ("a", "b", "c"):
        make_pdf(tmp_path / "pdfs" / f"{name}.pdf", [f"Page of {name} with some words."])
    rec = Recorder()
    report = ingest(
        open_project(project), IngestSpec(pdf_dir=tmp_path / "pdfs", workers=workers), rec
    )
    assert report.to_json()["documents"] == 3
    assert [(d, n) for d, _t, n in rec.calls] == [("extract", 3)]


def test_build_reports_every_pair_to_the_injected_callback(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    rec = Recorder()
    result = build(
        open_project(root), BuildSpec(name="p", kind="initial", seed=3, per_stratum=1), CHAIN, rec
    )
    items = len(result.packet["items"])
    assert rec.calls == [("pools", None, items)] and items > 0


def test_cli_bar_is_silent_when_quiet_even_on_a_terminal(monkeypatch: Any) -> None:
    err = io.StringIO()
    err.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stderr", err)
    assert list(progress_bar(quiet=True)(range(3), total=3, desc="pools")) == [0, 1, 2]
    assert err.getvalue() == ""
    assert list(progress_bar(quiet=False)(range(3), total=3, desc="pools")) == [0, 1, 2]
    assert "pools" in err.getvalue()


@pytest.mark.parametrize("workers", [1, 2])
def test_corpus_extraction_reports_every_pdf(tmp_path: Path, workers: int) -> None:
    from sample_packets.construction import DocSpec, extract_corpus

    specs = [
        DocSpec(n, "pkg", str(make_pdf(tmp_path / f"{n}.pdf", [f"Text of {n} here."])))
        for n in ("d1", "d2", "d3")
    ]
    rec = Recorder()
    docs = extract_corpus(specs, workers=workers, progress=rec)
    assert [d.doc_id for d in docs] == ["d1", "d2", "d3"]
    assert rec.calls == [("extract", 3, 3)]
