"""A small BEIR folder written in BEIR's exact layout (the tests read it with BEIR's loader).

Six topics, five judged passages each with original grades 2, 1, 1, 0, 1; the fifth
passage of every topic never mentions it, so simulated readers (who look for the
phrase the rubric's note quotes) demote it. One unjudged passage and one query of
another split complete the folder.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

TOPICS = (
    "solar eclipse",
    "honey bees",
    "volcanic ash",
    "river delta",
    "glacier retreat",
    "coral bleaching",
)
GRADES = (2, 1, 1, 0, 1)
FILLER = [
    "the",
    "committee",
    "reviewed",
    "several",
    "unrelated",
    "reports",
    "on",
    "budgets",
    "schedules",
    "and",
    "staffing",
    "during",
    "the",
    "long",
    "afternoon",
    "session",
]


def make_beir(root: Path, *, seed: int = 5) -> Path:
    rng = random.Random(seed)
    corpus, queries, qrels = [], [], []
    for qi, topic in enumerate(TOPICS, start=1):
        qid = f"q{qi}"
        queries.append({"_id": qid, "text": f"What is known about {topic}?", "metadata": {}})
        for j, grade in enumerate(GRADES):
            words = FILLER[:]
            rng.shuffle(words)
            mid = f" New findings on {topic} were described by the field team. " if j != 4 else " "
            corpus.append(
                {
                    "_id": f"d{qi}_{j}",
                    "title": f"Report {qi}-{j}",
                    "text": " ".join(words[:8]) + mid + " ".join(words[8:]),
                    "metadata": {},
                }
            )
            qrels.append((qid, f"d{qi}_{j}", grade))
    corpus.append({"_id": "extra", "title": "", "text": "nothing here about anything at all"})
    queries.append({"_id": "train1", "text": "a query of the train split only"})
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(c) + "\n" for c in corpus))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels").mkdir(exist_ok=True)
    header = "query-id\tcorpus-id\tscore\n"
    (root / "qrels" / "test.tsv").write_text(
        header + "".join(f"{q}\t{d}\t{g}\n" for q, d, g in qrels)
    )
    (root / "qrels" / "train.tsv").write_text(header + "train1\textra\t1\n")
    return root


def write_guideline(path: Path) -> Path:
    """A default rubric and one per topic (its note quotes the topic phrase)."""
    guideline = {
        "default": {
            "requirement": "The passage gives information that answers the question.",
            "counts": ["a direct statement about the topic"],
            "does_not_count": ["a passing mention of an unrelated subject"],
        },
        "queries": {
            f"q{i}": {"requirement": f"The passage reports findings on {t}.", "note": f'"{t}"'}
            for i, t in enumerate(TOPICS, start=1)
        },
    }
    path.write_text(json.dumps(guideline))
    return path


def make_trec(root: Path) -> dict[str, Path]:
    """A TREC collection: SGML topics (classic, unclosed tags), documents as one SGML
    file, one gzipped SGML file and one JSONL file, graded qrels 0/1/2 and -2 (spam)."""
    import gzip

    root.mkdir(parents=True, exist_ok=True)
    topics, docs, qrels = [], [], []
    for qi, topic in enumerate(TOPICS, start=301):
        topics.append(
            f"<top>\n<num> Number: {qi}\n<title> {topic}\n\n<desc> Description:\n"
            f'Find reports on "{topic}".\n\n<narr> Narrative:\nA relevant document reports '
            f"findings on {topic}; a document about budgets is not relevant.\n</top>\n"
        )
        for j, grade in enumerate((2, 1, 1, 0, -2)):
            body = (
                f"New findings on {topic} were described by the field team."
                if j != 4
                else ("The committee reviewed budgets and schedules during the session.")
            )
            docs.append((f"FT{qi}-{j}", f"Report {qi} {j}", body))
            qrels.append(f"{qi} 0 FT{qi}-{j} {grade}\n")
    (root / "topics.txt").write_text("\n".join(topics))
    (root / "qrels.txt").write_text("".join(qrels))
    sgml = [
        f"<DOC>\n<DOCNO> {d} </DOCNO>\n<HEADLINE>{h}</HEADLINE>\n<TEXT>\n{b} &amp; more\n"
        f"</TEXT>\n</DOC>\n"
        for d, h, b in docs
    ]
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "ft911").write_text("".join(sgml[:12]))
    (root / "docs" / "ft912.gz").write_bytes(gzip.compress("".join(sgml[12:24]).encode()))
    (root / "docs" / "rest.jsonl").write_text(
        "".join(json.dumps({"docno": d, "title": h, "text": b}) + "\n" for d, h, b in docs[24:])
    )
    return {"topics": root / "topics.txt", "qrels": root / "qrels.txt", "docs": root / "docs"}


def run_campaign(d: Path, root: Path, cli_json: Any, *, total: int = 20) -> dict[str, Any]:
    """Initial packet -> two simulated annotators -> repair plan -> adjudication packet ->
    three simulated adjudicators -> adjudicate -> finalize (into root/revised)."""
    c: dict[str, Any] = {}
    c["initial"] = cli_json(
        "packet", "build", d, "--name", "initial", "--seed", 7, "--total", total
    )
    cli_json("responses", "simulate", d, "initial", "--annotators", "A,E", "--seed", "3")
    c["audit"] = cli_json("agreement", "audit", d, "initial", "--raters", "A,E")
    queue = root / "queue.json"
    c["plan"] = cli_json("repair", "plan", d, "initial", "--raters", "A,E", "--queue-out", queue)
    c["adj"] = cli_json(
        "packet", "build", d, "--name", "adj", "--kind", "adjudication", "--queue", queue,
        "--seed", "7",
    )  # fmt: skip
    cli_json("responses", "simulate", d, "adj", "--annotators", "F,G,H", "--seed", "1")
    c["adjudicate"] = cli_json("adjudicate", d, "adj")
    c["finalize"] = cli_json("finalize", d, "--out", root / "revised")
    return c
