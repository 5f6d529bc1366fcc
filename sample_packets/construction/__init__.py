"""Deterministic CrossPage-style benchmark construction from PDF page text ("Do Current Retrievers Cover All the Evidence?" (supplement)).

Pipeline: extract page text (PyMuPDF) -> mine a per-page condition inventory
(key phrases, LaTeX commands and section headings, each with aliases) ->
compose 2- and 3-condition queries with rubric fields -> exact clue counts,
construction evidence, qrels with the distinct-page and single-page gates ->
BM25 / AND-BM25 / page-BM25 / fusion runs. Same PDFs and config give
byte-identical outputs.
"""

from sample_packets.construction.config import ConstructionConfig
from sample_packets.construction.extract import DocSpec, DocText, extract_corpus
from sample_packets.construction.pipeline import Benchmark, build_benchmark, write_benchmark

__all__ = [
    "Benchmark",
    "ConstructionConfig",
    "DocSpec",
    "DocText",
    "build_benchmark",
    "extract_corpus",
    "write_benchmark",
]
