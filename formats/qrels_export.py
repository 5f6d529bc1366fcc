"""Revised qrels as files: TREC `qid 0 docid grade` lines and BEIR's own TSV.

A TREC qrels file is split on whitespace (trec_eval, pytrec_eval and Python's
`str.split` all do), so an id holding whitespace, an empty id, or a query id that
starts with `#` (a comment line to readers that take them) cannot be written to it
and read back as itself. BEIR ids may be any string (dbpedia-entity's
`<dbpedia:AC/DC>`, ids with spaces); BEIR's TSV carries them all, written by Python's
`csv` module in the dialect `GenericDataLoader._load_qrels` reads (tab, minimal
quoting), so a field holding a tab, a quote or a line break is quoted and reads back
verbatim. Where an id cannot go into a TREC file, the TREC writer refuses in one line
naming the ids; a BEIR benchmark's revision is then written as TSV only.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any

from vocabulary.errors import InputError

BEIR_HEADER = ("query-id", "corpus-id", "score")
_SHOWN = 5  # ids named in a refusal; the count says how many more


def _trec_field_ok(value: str) -> bool:
    return bool(value) and not any(c.isspace() for c in value)


def trec_unwritable(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The distinct ids of `rows` (query_id, doc_id) a TREC qrels line cannot carry, in
    order of first appearance."""
    bad: dict[str, None] = {}
    for r in rows:
        qid, did = str(r["query_id"]), str(r["doc_id"])
        if not _trec_field_ok(qid) or qid.startswith("#"):
            bad.setdefault(qid)
        if not _trec_field_ok(did):
            bad.setdefault(did)
    return list(bad)


def describe_ids(ids: list[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_SHOWN])
    more = len(ids) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def refuse_trec(ids: list[str], what: str) -> InputError:
    """The one-line refusal of a TREC export whose ids cannot be written to it."""
    return InputError(
        f"cannot write {what} as TREC: {len(ids)} id(s) hold whitespace, are empty or "
        f"start a query id with '#': {describe_ids(ids)}",
        hint="a TREC file is split on whitespace; BEIR's TSV (qrels.tsv) carries any id",
    )


def trec_qrels(rows: list[dict[str, Any]], what: str = "the qrels") -> str:
    """`qid 0 docid grade` lines; refuses (InputError) when an id cannot be written."""
    bad = trec_unwritable(rows)
    if bad:
        raise refuse_trec(bad, what)
    return "".join(f"{r['query_id']} 0 {r['doc_id']} {r['grade']}\n" for r in rows)


def beir_tsv(rows: list[dict[str, Any]]) -> str:
    """BEIR's qrels TSV with its header, every id verbatim (quoted where csv must)."""
    for r in rows:
        for value in (r["query_id"], r["doc_id"]):
            if "\r" in value:
                # BEIR's loader opens the file with universal newlines: a carriage return,
                # even quoted, reads back as a line feed.
                raise InputError(
                    f"cannot write id {value!r} to BEIR's TSV: it holds a carriage return",
                    hint="BEIR's loader would read it back as a line feed",
                )
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(BEIR_HEADER)
    writer.writerows((r["query_id"], r["doc_id"], int(r["grade"])) for r in rows)
    return buf.getvalue()


def tsv_name(trec_name: str) -> str:
    """qrels.after_audit.txt -> qrels.after_audit.tsv (a stage copy written as BEIR TSV)."""
    return trec_name.removesuffix(".txt") + ".tsv"


def revised_texts(
    final: list[dict[str, Any]], stages: dict[str, list[dict[str, Any]]], beir: bool
) -> tuple[dict[str, str], list[str], list[str]]:
    """(file name -> text, names of the stage copies, ids no TREC file can carry) of the
    revised qrels as finalize writes them: `qrels.txt` and one TREC copy per stage, and
    for a BEIR benchmark also `qrels.tsv`. When an id cannot be written to a TREC file,
    a BEIR benchmark's copies are TSV only (`qrels.tsv`, `qrels.after_*.tsv`); any other
    benchmark is refused in one line naming the ids."""
    every = [r for rows in (final, *stages.values()) for r in rows]
    bad = trec_unwritable(every)
    if bad and not beir:
        raise refuse_trec(bad, "the revised qrels")
    texts: dict[str, str] = {}
    names: list[str] = []
    if not bad:
        texts["qrels.txt"] = trec_qrels(final)
        for name, rows in stages.items():
            texts[name] = trec_qrels(rows)
            names.append(name)
    if beir:
        texts["qrels.tsv"] = beir_tsv(final)
        if bad:
            for name, rows in stages.items():
                texts[tsv_name(name)] = beir_tsv(rows)
                names.append(tsv_name(name))
        names.append("qrels.tsv")
    return texts, names, bad
