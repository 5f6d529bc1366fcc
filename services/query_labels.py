"""`evaudit queries show P QUERY` and the admin page's query view: Table S6 of the n-Clue
supplement ("Do Current Retrievers Cover All the Evidence?", section "Construct Diagnostics
and Label Examples": "Concrete gold and subset labels for one released three-condition
query").

For one query of the project's store: every judged document (grade > 0; gold = grade n,
subset = 1..n-1), best grade first, with, per condition in position order, the pages of the
stored evidence inventory that carry it ("-" when the inventory has no page for it). A
document with evidence for every condition that stays below gold lacks a distinct-page
assignment (the gate of vocabulary/grades.py), and a grade that differs from the one the
inventory's pages give (an audit revision, or qrels from elsewhere) is noted. Condition names, query
text and ids are untrusted: the text view prints them literally, with control characters
shown as escapes so they cannot drive the terminal.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vocabulary.errors import InputError
from vocabulary.grades import derived_grade


def literal(text: str) -> str:
    """Text as printed: control characters (newlines, escapes, ...) as visible escapes."""
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


@dataclass(frozen=True)
class LabelRow:
    label: str  # "Gold g=3" or "Subset g=2"
    doc_id: str
    grade: int
    pages: dict[str, list[int]]  # condition id -> evidence pages (empty: none stored)
    note: str  # e.g. "every condition has a page, but no distinct-page assignment"


@dataclass(frozen=True)
class QueryLabelsReport:
    query_id: str
    text: str
    n: int
    conditions: list[dict[str, str]]  # {"condition_id", "name"} in position order
    documents: list[LabelRow]
    qrels: str  # where the grades come from

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per document: label, target, then one cell per condition name."""
        out = []
        for d in self.documents:
            row: dict[str, Any] = {"label": d.label, "target": d.doc_id}
            for c in self.conditions:
                row[c["name"]] = _cell(d.pages[c["condition_id"]])
            row["note"] = d.note
            out.append(row)
        return out

    def table(self) -> str:
        from vocabulary.tables import table

        names = [literal(c["name"]) for c in self.conditions]
        body = [
            [literal(d.label), literal(d.doc_id),
             *(_cell(d.pages[c["condition_id"]]) for c in self.conditions), literal(d.note)]
            for d in self.documents
        ]  # fmt: skip
        conds = "; ".join(f'"{n}"' for n in names)
        head = (
            f"{literal(self.query_id)} asks for {conds} (text: {literal(self.text)}); grades "
            f"from {literal(self.qrels)}. Table S6 of the n-Clue supplement: the pages of the "
            "evidence inventory that carry each condition; - = no page stored for it."
        )
        if not body:
            return head + "\nNo judged document (grade > 0) for this query."
        return head + "\n" + table(body, ["label", "target", *names, "note"])


def _cell(pages: list[int]) -> str:
    return f"✓ p.{', '.join(str(p) for p in pages)}" if pages else "-"


def query_ids(root: Path) -> list[str]:
    """The project's query ids in the loaded order."""
    from campaign import store
    from campaign.project import open_project

    with store.connect(open_project(root).store_path, read_only=True) as con:
        return [str(r[0]) for r in store.query_rows(con)]


def query_labels(root: Path, query_id: str, *, qrels: Path | None = None) -> QueryLabelsReport:
    """Table S6 for `query_id` of the project at `root` (grades from `qrels` when given)."""
    from campaign import store
    from campaign.project import open_project

    project = open_project(root)
    with store.connect(project.store_path, read_only=True) as con:
        conds = [(str(r[1]), str(r[2])) for r in store.condition_rows(con) if r[0] == query_id]
        texts = {str(r[0]): str(r[1]) for r in store.query_rows(con)}
        if query_id not in texts:
            some = ", ".join(list(texts)[:5])
            raise InputError(f"query {query_id!r} is not in the project", file=project.store_path,
                             hint=f"query ids look like: {some}" if some else "load queries")  # fmt: skip
        grades = {str(d): int(g) for q, d, g in store.grade_rows(con) if q == query_id}
        ev: dict[str, dict[str, list[int]]] = {}
        for q, d, c, p in store.evidence_rows(con):
            if q == query_id:
                ev.setdefault(str(d), {}).setdefault(str(c), []).append(int(p))
    source = "the project's qrels"
    if qrels is not None:
        from services.score_inputs import load_qrels

        frame, source = load_qrels(qrels, None, "--qrels")
        sel = frame[frame["query_id"] == query_id]
        grades = {str(d): int(g) for d, g in zip(sel["doc_id"], sel["grade"], strict=True)}
    n = len(conds)
    docs = []
    for d, g in sorted(grades.items(), key=lambda kv: (-kv[1], kv[0])):
        if g <= 0:
            continue
        pages = {c: sorted(set(ev.get(d, {}).get(c, []))) for c, _ in conds}
        covered = sum(1 for ps in pages.values() if ps)
        derived = derived_grade(n, pages)
        note = ""
        if derived != g:  # e.g. a grade the audit revised, or qrels from elsewhere
            note = f"the inventory's pages give grade {derived}"
        elif covered == n and g == n - 1:
            note = "every condition has a page, but no distinct-page assignment"
        label = f"Gold g={g}" if g == n else f"Subset g={g}"
        docs.append(LabelRow(label, d, g, pages, note))
    return QueryLabelsReport(
        query_id, texts[query_id], n,
        [{"condition_id": c, "name": name} for c, name in conds], docs, str(source),
    )  # fmt: skip
