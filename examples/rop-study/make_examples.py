"""Write the worked examples of the ROP study commands (deterministic: same bytes every run).

Run: .venv/bin/python examples/rop-study/make_examples.py

A small synthetic audit shaped like "Does the Selected Object Reach the Reader?": three
model families answer the same questions, each record carries the selected id U and the
dataset trace G with two frozen rankings, and a reader and a deletion ledger follow.

    evaudit rop accounting --records examples/rop-study/records.jsonl \\
        --resolver examples/rop-study/resolver.json --planned examples/rop-study/planned.jsonl
    evaudit rop misses --records examples/rop-study/records.jsonl \\
        --resolver examples/rop-study/resolver.json --stack final --cutoff 5 --depth 20 \\
        --subset aligned --by model
    evaudit rop association examples/rop-study/reader.jsonl --pair id:question --passages 5 \\
        --bootstrap 10000 --cluster question_id
    evaudit rop deletion examples/rop-study/calls.jsonl --arms intact,trace_drop,sham_drop
    evaudit rop replay-check --runs examples/rop-study/records.jsonl \\
        --reader examples/rop-study/reader_records.jsonl
    evaudit rop evaluate examples/rop/hard-fixture/declaration.json
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODELS = ("claude", "gpt", "gemini")
QUESTIONS = 40
DEPTH = 20


# The bound fields of "Validate joined records before analysis" (Appendix A).
BOUND = {
    "condition": "selected-id",
    "reference_path": "trace",
    "cutoff": 5,
    "task": "answer",
    "terminal_attempt": 1,
    "invalid_output_policy": "score-zero",
    "status": "valid",
}


def _answer(rng: random.Random, gold: str, exact: bool) -> str:
    """A raw reader answer: the gold one as a model writes it (case, punctuation, an
    article: exact after normalization), or a partial or wrong one."""
    if exact:
        return rng.choice([gold, gold.lower() + ".", f"The {gold}", f"{gold.upper()}!"])
    words = gold.split()
    return rng.choice([words[-1], " ".join(words[:2]) + " Arena", "unknown", ""])


def _ranking(rng: random.Random, targets: dict[str, int | None], q: int) -> list[str]:
    """DEPTH ids with each target at its rank (None: absent) and filler passages elsewhere."""
    ids = [f"p{q}-{j}" for j in range(DEPTH)]
    rng.shuffle(ids)
    for obj, rank in targets.items():
        if rank is not None:
            ids[rank - 1] = obj
    return ids


def build() -> dict[str, bytes]:
    rng = random.Random(19)
    objects: dict[str, list[str]] = {}
    records: list[dict[str, Any]] = []
    planned: list[dict[str, Any]] = []
    for q in range(QUESTIONS):
        g = f"G{q}"
        objects[g] = [f"/wiki/Trace_{q}"]
        for j in range(DEPTH):
            objects[f"p{q}-{j}"] = []
        for model in MODELS:
            rid = f"{model}-q{q:02d}"
            planned.append({"record_id": rid, "model": model})
            if model == "gpt" and q == 7:
                continue  # planned, never observed
            roll = rng.random()
            if model == "gpt" and q in (3, 11):
                selected: str | None = None  # invalid selector output
            elif model == "claude" and q == 5:
                selected = "/wiki/Not_In_Corpus"
            elif roll < 0.8:
                selected = f"/wiki/Trace_{q}"  # U = G
            else:
                selected = f"/wiki/Other_{q}"
                objects.setdefault(f"U{q}", [f"/wiki/Other_{q}"])
            u = "U" + str(q) if selected == f"/wiki/Other_{q}" else g
            # The final reranker misses U on a few questions: near the cutoff or absent.
            final_rank = {2: 7, 9: 8, 15: None, 21: None}.get(q, rng.randint(1, 5))
            rrf_rank = {2: 5, 9: 8, 15: None, 21: None}.get(q, rng.randint(1, 12))
            ranks = {"rrf": {u: rrf_rank}, "final": {u: final_rank}}
            if u != g:
                ranks["rrf"][g] = rng.choice([None, 2, 9])
                ranks["final"][g] = rng.choice([None, 3, 6])
            row: dict[str, Any] = {
                "record_id": rid,
                "question_id": f"q{q:02d}",
                "model": model,
                "selected": selected,
                "trace": f"/wiki/Trace_{q}",
                "rankings": {s: _ranking(rng, ranks[s], q) for s in ("rrf", "final")},
                # q21: only 12 documents match the final stack's OR query (a verified nonmatch)
                "or_matches": {"rrf": 400, "final": 12 if q == 21 else 400},
            }
            if q == 21:
                row["rankings"]["final"] = row["rankings"]["final"][:12]
            row |= BOUND  # the fields replay-check binds a reader record to
            records.append(row)
    resolver = {"version": "rop-study-example-v1", "objects": dict(sorted(objects.items()))}

    reader = []
    for q in range(QUESTIONS):
        for model in MODELS:
            holds_id = rng.random() < 0.85
            holds_question = rng.random() < 0.35
            for arm, holds in (("id", holds_id), ("question", holds_question)):
                p = 0.8 if holds else 0.5
                gold = f"Trace {q} Stadium"
                reader.append(
                    {
                        "question_id": f"q{q:02d}",
                        "model": model,
                        "arm": arm,
                        "answer": _answer(rng, gold, rng.random() < p),
                        "gold": [gold, f"the {gold.lower()}"] if q % 3 == 0 else gold,
                        "contains_selected": holds,
                        "aligned": q % 5 != 4,
                        "passages": 5,
                    }
                )

    calls = []
    for item in range(16):
        for arm in ("intact", "trace_drop", "sham_drop"):
            if arm == "sham_drop" and item >= 14:
                continue  # no similar-length nontraced passage
            p = {"intact": 0.93, "trace_drop": 0.15, "sham_drop": 0.95}[arm]
            for rep in (1, 2, 3):
                failed = rng.random() < 0.05
                row = {
                    "item_id": f"i{item:02d}",
                    "arm": arm,
                    "repeat": rep,
                    "status": "failed" if failed else "valid",
                    "requests": 2 if failed else 1,
                }
                if not failed:
                    row |= {"answer": _answer(rng, "Gold Answer", rng.random() < p)}
                row["gold"] = "Gold Answer"
                calls.append(row)

    def sha_list(ids: list[str]) -> str:
        return hashlib.sha256("".join(f"{i}\n" for i in ids).encode()).hexdigest()

    reader_records = []
    for n, r in enumerate(records[:12]):
        claim = {
            "reader_id": f"a{n:02d}",
            "run_record_id": r["record_id"],
            "question_id": r["question_id"],
            "model": r["model"],
            "stack": "final",
            "returned_sha256": sha_list(r["rankings"]["final"]),
            **BOUND,
        }
        if n == 4:
            claim["question_id"] = "q99"  # joined to the wrong question
        if n == 9:
            claim["returned_sha256"] = sha_list(r["rankings"]["final"][::-1])  # other list
        if n == 10:
            claim["cutoff"] = 20  # read at another cutoff than the run record's
            claim["terminal_attempt"] = 2  # and from a retry the ledger does not end with
        reader_records.append(claim)

    def jsonl(rows: list[dict[str, Any]]) -> bytes:
        return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows).encode()

    return {
        "records.jsonl": jsonl(records),
        "planned.jsonl": jsonl(planned),
        "resolver.json": (json.dumps(resolver, indent=1) + "\n").encode(),
        "reader.jsonl": jsonl(reader),
        "calls.jsonl": jsonl(calls),
        "reader_records.jsonl": jsonl(reader_records),
    }


def main(out: Path = HERE) -> None:
    for name, data in build().items():
        (out / name).write_bytes(data)
    print(f"wrote {len(build())} files to {out}")


if __name__ == "__main__":
    main()
