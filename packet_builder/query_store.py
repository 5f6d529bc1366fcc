"""The loaded queries read back from the store (kept apart from `loader`, which imports
pandas for reading benchmark files: `evaudit runs bm25` needs only the queries)."""

from __future__ import annotations

import json

from campaign import store
from campaign.project import Project
from formats.records import Condition, Query


def stored_queries(project: Project) -> list[Query]:
    """The loaded queries with their conditions, in the order of the queries file."""
    with store.connect(project.store_path, read_only=True) as con:
        qrows = store.query_rows(con)
        crows = store.condition_rows(con)
    conds: dict[str, list[Condition]] = {}
    for qid, cid, name, req, counts, dnc, note, aliases in crows:
        conds.setdefault(qid, []).append(
            Condition(
                cid,
                name,
                req,
                tuple(json.loads(counts)),
                tuple(json.loads(dnc)),
                note or "",
                tuple(json.loads(aliases)),
            )
        )
    return [Query(q, t, tuple(conds.get(q, [])), r or "", s or "") for q, t, r, s in qrows]
