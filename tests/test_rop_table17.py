"""Table 17 and Table 18 arithmetic at every cutoff ("Does the Selected Object Reach the Reader?",
Appendix B.2): records realising every per-model cell of Table 17 at k = 1, 5 and 20 at once
(found by an integer program over rank classes) go through `rop targets`, which must give every
cell, the pooled rows (the sums of the models) and Table 18's different-label counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from tests.conftest import cli_json

# Stack, k, then P1H1/P1H0/P0H1/P0H0 for Claude, GPT, Gemini and pooled (tab-separated).
TABLE17 = """Body-only BM25	1	0/83/2/58	0/54/2/29	0/67/1/33	0/204/5/120
	5	15/88/2/38	13/54/0/18	14/68/1/18	42/210/3/74
	20	22/95/0/26	20/50/0/15	19/69/0/13	61/214/0/54
BGE-M3	1	0/115/0/28	0/72/0/13	0/82/0/19	0/269/0/60
	5	11/125/0/7	10/73/0/2	10/86/0/5	31/284/0/14
	20	16/122/0/5	16/68/0/1	14/86/0/1	46/276/0/7
ColBERTv2	1	0/127/0/16	0/82/0/3	0/94/0/7	0/303/0/26
	5	13/126/0/4	13/72/0/0	13/87/0/1	39/285/0/5
	20	25/116/0/2	21/64/0/0	20/81/0/0	66/261/0/2
Hybrid RRF	1	0/97/1/45	0/67/0/18	0/80/0/21	0/244/1/84
	5	12/113/0/18	11/64/0/10	11/81/0/9	34/258/0/37
	20	20/116/0/7	20/61/0/4	18/81/0/2	58/258/0/13
RRF + rerank	1	0/129/0/14	0/80/0/5	0/94/0/7	0/303/0/26
	5	14/127/0/2	17/68/0/0	17/83/0/1	48/278/0/3
	20	26/116/0/1	24/61/0/0	23/78/0/0	73/255/0/1"""
TABLE18 = {
    "Body-only BM25": (209, 213, 214),
    "BGE-M3": (269, 284, 276),
    "ColBERTv2": (303, 285, 261),
    "Hybrid RRF": (245, 258, 258),
    "RRF + rerank": (303, 278, 255),
}
MODELS = {"claude": 143, "gpt": 85, "gemini": 101}
CUTOFFS = (1, 5, 20)
# Rank classes: 0 = rank 1, 1 = ranks 2-5, 2 = ranks 6-20, 3 = absent from the top 20.
U_RANK = (1, 3, 10, None)
G_RANK = (1, 4, 12, None)


def parse() -> dict[tuple[str, int, str], tuple[int, ...]]:
    out = {}
    stack = ""
    for line in TABLE17.splitlines():
        parts = line.split("\t")
        stack = parts[0] or stack
        for model, cell in zip((*MODELS, "pooled"), parts[2:], strict=True):
            out[(stack, int(parts[1]), model)] = tuple(int(x) for x in cell.split("/"))
    return out


def rank_classes(cells: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """One (U class, G class) per record whose P/H tables at k = 1, 5, 20 are ``cells``."""
    idx = [(u, g) for u in range(4) for g in range(4)]
    rows, rhs = [], []
    for cut, table in enumerate(cells):
        for (p, h), count in zip(((1, 1), (1, 0), (0, 1), (0, 0)), table, strict=True):
            rows.append([float((u <= cut) == bool(p) and (g <= cut) == bool(h)) for u, g in idx])
            rhs.append(count)
    rows.append([float((u, g) == (0, 0)) for u, g in idx])  # U and G differ: not both rank 1
    rhs.append(0)
    res = milp(
        np.zeros(len(idx)),
        constraints=LinearConstraint(np.array(rows), rhs, rhs),
        integrality=np.ones(len(idx)),
        bounds=Bounds(0, np.inf),
    )
    assert res.x is not None, "Table 17 cells admit no joint rank assignment"
    return [c for c, n in zip(idx, np.rint(res.x).astype(int), strict=True) for _ in range(n)]


def _ranking(i: int, u: int, g: int) -> list[str]:
    ids = [f"f{i}-{j}" for j in range(20)]
    if U_RANK[u] is not None:
        ids[U_RANK[u] - 1] = f"U{i}"
    if G_RANK[g] is not None:
        ids[G_RANK[g] - 1] = f"G{i}"
    return ids


def test_table17_pooled_rows_are_the_model_sums() -> None:
    tab = parse()
    for (stack, k, model), cell in tab.items():
        if model == "pooled":
            assert cell == tuple(sum(tab[(stack, k, m)][j] for m in MODELS) for j in range(4))
            assert cell[1] + cell[2] == TABLE18[stack][CUTOFFS.index(k)]
        else:
            assert sum(cell) == MODELS[model]


def test_targets_reproduce_every_cell_at_every_cutoff(tmp_path: Path) -> None:
    tab = parse()
    stacks = list(TABLE18)
    records: list[dict[str, Any]] = []
    for model, n in MODELS.items():
        classes = {s: rank_classes([tab[(s, k, model)] for k in CUTOFFS]) for s in stacks}
        for j in range(n):
            i = len(records)
            records.append(
                {
                    "record_id": f"{model}-{j}",
                    "question_id": f"q{i % 160}",
                    "model": model,
                    "selected": f"U{i}",
                    "trace": f"G{i}",
                    "rankings": {s: _ranking(i, *classes[s][j]) for s in stacks},
                }
            )
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = cli_json(
        "rop",
        "targets",
        "--records",
        path,
        "--cutoffs",
        "1,5,20",
        "--subset",
        "distinct",
        "--by",
        "model",
    )
    assert out["distinct_records"] == 329
    for row in out["table"]:
        model = row["group"] or "pooled"
        want = tab[(row["stack"], row["cutoff"], model)]
        assert (row["P1H1"], row["P1H0"], row["P0H1"], row["P0H0"]) == want, row
        if model == "pooled":
            assert row["different_labels"] == TABLE18[row["stack"]][CUTOFFS.index(row["cutoff"])]
    assert len(out["table"]) == len(stacks) * len(CUTOFFS) * 4
