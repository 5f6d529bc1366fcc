"""The query ids of any query file `score trec` and `score impact` filter by: a BEIR
queries.jsonl (`_id`), an n-Clue queries.jsonl (`query_id`) or TREC topics (SGML/XML or
TSV), told by the first line. The three are different formats, each with its own
reader (`formats.beir.read_queries`, `formats.readers.read_queries`,
`formats.trec.read_topics`); this dispatcher only needs their ids, so a JSON line is
read for either id key without the rest of either format's checks."""

from __future__ import annotations

from pathlib import Path

from formats.qrels import first_line
from vocabulary.errors import InputError


def read_query_ids(path: str | Path) -> set[str]:
    """Query ids of a BEIR queries.jsonl (`_id`), an n-Clue queries.jsonl (`query_id`)
    or TREC topics (SGML/XML or TSV)."""
    path = Path(path)
    if first_line(path).lstrip().startswith("{"):
        from vocabulary.jsonlines import json_lines

        ids: set[str] = set()
        for lineno, obj in json_lines(path):
            qid = obj.get("_id", obj.get("query_id"))
            if not isinstance(qid, str | int) or isinstance(qid, bool) or str(qid) == "":
                raise InputError(
                    "a query needs an `_id` (BEIR) or `query_id`", file=path, line=lineno
                )
            ids.add(str(qid))
        return ids
    from formats.trec import read_topics

    return {t.query_id for t in read_topics(path)}
