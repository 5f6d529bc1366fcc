"""`load --beir` / `load --trec-topics --trec-qrels`: the files of a classic benchmark."""

from __future__ import annotations

from pathlib import Path

from formats.classic import ClassicBenchmark, classic_benchmark
from vocabulary.errors import InputError


def classic_from_options(
    *,
    beir_dir: Path | None = None,
    split: str = "test",
    guideline: Path | None = None,
    relevant_from: int | None = None,
    trec_topics: Path | None = None,
    trec_qrels: Path | None = None,
) -> ClassicBenchmark | None:
    """The classic benchmark the options name, or None for an n-Clue load."""
    is_trec = trec_topics is not None or trec_qrels is not None
    if beir_dir is None and not is_trec:
        if guideline is not None or relevant_from is not None:
            raise InputError(
                "--guideline and --relevant-from belong to a BEIR or TREC load",
                hint="add --beir DIR or --trec-topics/--trec-qrels",
            )
        return None
    if beir_dir is not None and is_trec:
        raise InputError("give --beir or the --trec-* files, not both")
    if relevant_from is None:
        raise InputError(
            "a BEIR or TREC load needs --relevant-from GRADE",
            hint="the lowest original grade that counts as relevant, e.g. 1",
        )
    if beir_dir is not None:
        from formats.beir import read_queries
        from formats.qrels import read_beir_qrels

        if not beir_dir.is_dir():
            raise InputError("BEIR folder not found", file=beir_dir)
        texts, qpath = read_queries(beir_dir)
        graded, rpath = read_beir_qrels(beir_dir, split)
        if guideline is None:
            raise InputError(
                "a BEIR load needs --guideline G.json",
                hint="the rubric annotators judge relevance by",
            )
        return classic_benchmark(
            texts, qpath, graded, rpath, relevant_from,
            fmt="beir", guideline_path=guideline, split=split,
        )  # fmt: skip
    if trec_topics is None or trec_qrels is None:
        raise InputError("a TREC load needs both --trec-topics and --trec-qrels")
    from formats.qrels import read_trec_qrels
    from formats.trec import read_topics

    topics = read_topics(trec_topics)
    graded = read_trec_qrels(trec_qrels, graded=True)
    return classic_benchmark(
        {t.query_id: t.title for t in topics},
        trec_topics,
        graded,
        trec_qrels,
        relevant_from,
        fmt="trec",
        guideline_path=guideline,
        fallback={t.query_id: r for t in topics if (r := t.rubric()) is not None},
        notes={t.query_id: t.desc for t in topics if t.desc},
    )
