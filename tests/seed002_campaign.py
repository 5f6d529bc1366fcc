"""A constructed campaign that reproduces the published audit figures of "Do Current Retrievers Cover All the Evidence?" (supplement) end to end.

300 pairs (190 with n=2, 110 with n=3), two initial raters A and E whose
derived grades give the confusion [[2,6,0,0],[2,72,14,0],[0,11,128,1],[0,1,11,52]];
the repair policy then yields 50 accepted increases, 46 split + 29 decrease
pairs (75 queued, 94 unresolved = 47 split + 47 both-negative, 86 locked); the
three-stream adjudication (A 76, E 77, F 83 positives) has 80/94 unanimous,
two overrides flip majority negatives, one pair is held partial by the
distinct-page gate (J061's case), and finalize gives 1->2: 37, 2->3: 26,
2->1: 2 with one query left without gold. See the derivation in docs/workflow.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaign.project import Project
from tests.audit_fixture import Pair, letters, new_project, write_journal, write_packet


@dataclass
class Spec:
    n: int
    g: int
    a: list[int]  # condition indexes (1-based) A supports initially
    e: list[int]
    action: str  # accept / keep / decrease / split
    final_no: set[int] = field(default_factory=set)  # unresolved conditions finally negative
    changed: bool = False
    gate: bool = False  # J061 case
    release: str = ""
    source: str = ""
    drop_extra_gold: bool = False


def _specs() -> list[Spec]:
    S: list[Spec] = []

    def add(k: int, **kw: Any) -> None:
        for _ in range(k):
            S.append(
                Spec(
                    **{
                        **kw,
                        "a": list(kw["a"]),
                        "e": list(kw["e"]),
                        "final_no": set(kw.get("final_no", ())),
                    }
                )
            )

    add(2, n=2, g=2, a=[], e=[], action="decrease")
    add(13, n=2, g=2, a=[1], e=[1], action="decrease")
    add(2, n=2, g=2, a=[1], e=[1], action="decrease", final_no={2}, changed=True)
    add(53, n=2, g=1, a=[1], e=[1], action="keep")
    add(1, n=2, g=1, a=[1], e=[2], action="keep")  # equal grades, different conditions
    add(3, n=3, g=3, a=[1], e=[1], action="decrease")
    add(30, n=2, g=1, a=[1, 2], e=[1, 2], action="accept", changed=True)
    add(61, n=2, g=2, a=[1, 2], e=[1, 2], action="keep")
    add(9, n=3, g=3, a=[1, 2], e=[1, 2], action="decrease")
    add(28, n=3, g=2, a=[1, 2], e=[1, 2], action="keep")
    add(20, n=3, g=2, a=[1, 2, 3], e=[1, 2, 3], action="accept", changed=True)
    add(32, n=3, g=3, a=[1, 2, 3], e=[1, 2, 3], action="keep")
    # splits
    add(4, n=2, g=2, a=[], e=[1], action="split")
    add(2, n=2, g=1, a=[], e=[1], action="split", final_no={2})
    add(1, n=2, g=2, a=[1], e=[], action="split")
    add(1, n=2, g=1, a=[1], e=[], action="split", final_no={2})
    add(6, n=2, g=1, a=[1], e=[1, 2], action="split", changed=True)
    add(1, n=2, g=1, a=[1], e=[1, 2], action="split", gate=True)
    add(4, n=2, g=2, a=[1], e=[1, 2], action="split")
    add(1, n=3, g=1, a=[1], e=[1, 2], action="split", final_no={3}, changed=True)
    add(2, n=3, g=2, a=[1], e=[1, 2], action="split", final_no={3})
    add(9, n=2, g=2, a=[1, 2], e=[1], action="split")
    add(2, n=3, g=2, a=[1, 2], e=[1], action="split", final_no={3})
    add(1, n=3, g=3, a=[1, 2], e=[1, 2, 3], action="split")
    add(1, n=3, g=3, a=[1, 2, 3], e=[1], action="split")
    add(6, n=3, g=2, a=[1, 2, 3], e=[1, 2], action="split", changed=True)
    add(5, n=3, g=3, a=[1, 2, 3], e=[1, 2], action="split")
    assert len(S) == 300
    _strata(S)
    return S


def _strata(S: list[Spec]) -> None:
    split_changed = [s for s in S if s.action == "split" and s.changed]
    split_same = [s for s in S if s.action == "split" and not s.changed]
    acc = [s for s in S if s.action == "accept"]
    dec_changed = [s for s in S if s.action == "decrease" and s.changed]
    agree_same = [s for s in S if s.action != "split" and not s.changed]
    cross = split_changed + split_same[:6] + acc[:7] + agree_same[:74]
    for s in cross:
        s.release, s.source = "CrossPage", "World Bank"
    for s in agree_same[:2]:
        s.source = "PMC OA"
    changed_ss = acc[7:] + dec_changed
    same_ss = split_same[6:] + agree_same[74:]
    quotas = [("arXiv", 13, 37), ("ERIC", 8, 42), ("Federal Register", 13, 37), ("PMC OA", 11, 39)]
    ci = si = 0
    for src, nc, ns in quotas:
        for s in changed_ss[ci : ci + nc] + same_ss[si : si + ns]:
            s.release, s.source = "SourceShift", src
        ci += nc
        si += ns
    dec_changed[0].drop_extra_gold = True
    assert all(s.release for s in S)


@dataclass
class Campaign:
    project: Project
    specs: list[Spec]
    pairs: list[Pair]
    initial_items: list[dict[str, Any]]


def build_initial(root: Path) -> Campaign:
    specs = _specs()
    random.Random(2).shuffle(specs)
    pairs = []
    for i, s in enumerate(specs):
        p = Pair(f"Q{i + 1:03d}", f"D{i + 1:03d}", s.n, s.g, s.release, s.source)
        pairs.append(p)
    extra = [
        (p.query_id, "X-gold", p.n)
        for p, s in zip(pairs, specs, strict=True)
        if not s.drop_extra_gold
    ]
    project = new_project(root, pairs, extra)
    sha, items = write_packet(project, "initial", "initial", pairs)
    # page selections: both-yes default A,B; 74 with A three pages, 28 with E on A,C;
    # the gate pair selects one page for C1 (both), one other condition both pick 3 pages.
    answers: dict[str, dict[str, dict[str, list[str]]]] = {"A": {}, "E": {}}
    three, swap, both3 = 74, 28, 1
    for it, s in zip(items, specs, strict=True):
        iid = it["item_id"]
        a_ans: dict[str, list[str]] = {}
        e_ans: dict[str, list[str]] = {}
        for c in range(1, s.n + 1):
            keys = [f"{iid}-C{c}-{letters(j)}" for j in range(3)]
            ya, ye = c in s.a, c in s.e
            pa = pe = keys[:2]
            if s.gate and c == 1:
                pa = pe = keys[:1]
            elif ya and ye and three:
                pa, three = keys, three - 1
            elif ya and ye and swap:
                pe, swap = [keys[0], keys[2]], swap - 1
            elif ya and ye and both3:
                pa = pe = keys
                both3 -= 1
            a_ans[f"C{c}"] = pa if ya else []
            e_ans[f"C{c}"] = pe if ye else []
        answers["A"][iid], answers["E"][iid] = a_ans, e_ans
    for name in ("A", "E"):
        write_journal(project, "initial", sha, name, answers[name], items)  # type: ignore[arg-type]
    return Campaign(project, specs, pairs, items)


def build_adjudication(c: Campaign, queue: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The adjudication packet for `queue` (9 pages per condition) and journals A, E, F."""
    by_pair = {(p.query_id, p.doc_id): (p, s) for p, s in zip(c.pairs, c.specs, strict=True)}
    pairs, shown, specs, gate_items = [], [], [], set()
    for q in queue["pairs"]:
        p, s = by_pair[(q["query_id"], q["doc_id"])]
        ck = [f"C{cid.rsplit('-c', 1)[1]}" for cid in q["unresolved"]]
        pools = {k: [100 * int(k[1:]) + j for j in range(1, 10)] for k in ck}
        if s.gate:
            pools[ck[0]] = [11, *pools[ck[0]][1:]]  # C1's only locked page, shared
            gate_items.add(len(pairs))
        pairs.append(Pair(p.query_id, p.doc_id, p.n, p.grade, p.release, p.source, pools))
        shown.append(ck)
        specs.append(s)
    sha, items = write_packet(c.project, "adjudication", "adjudication", pairs, shown)
    conds = [
        (i, it["item_id"], cond["condition_key"])
        for i, it in enumerate(items)
        for cond in it["conditions"]
    ]
    finals = {(iid, ck): int(ck[1:]) not in specs[i].final_no for i, iid, ck in conds}
    assert len(conds) == 94 and sum(finals.values()) == 84
    votes: dict[tuple[str, str], dict[str, bool]] = {}
    yes_conds = [(iid, ck) for i, iid, ck in conds if finals[(iid, ck)] and i not in gate_items]
    patterns = [("A",)] * 6 + [("E",)] * 6  # m2: the odd "no" voter
    for k, pos in enumerate(yes_conds):
        if k < 12:
            votes[pos] = {r: r not in patterns[k] for r in "AEF"}
        elif k < 14:
            votes[pos] = {r: r == ("E" if k == 12 else "F") for r in "AEF"}  # m1, overridden
        else:
            votes[pos] = dict.fromkeys("AEF", True)
    for pos, yes in finals.items():
        votes.setdefault(pos, dict.fromkeys("AEF", yes))
    page_budget = {"A": 201, "E": 214, "F": 198}
    overridden = yes_conds[12:14]
    for r in "AEF":
        yes_list = [pos for pos in votes if votes[pos][r]]
        gate_yes = [pos for pos in yes_list if int(pos[0][1:]) - 1 in gate_items]
        rest = [pos for pos in yes_list if pos not in gate_yes]
        budget = page_budget[r] - len(gate_yes)
        n3 = budget - 2 * len(rest)
        ans: dict[str, dict[str, list[str]]] = {}
        for k, (iid, ck) in enumerate(rest):
            ans.setdefault(iid, {})[ck] = [
                f"{iid}-{ck}-{letters(j)}" for j in range(3 if k < n3 else 2)
            ]
        for iid, ck in gate_yes:
            ans.setdefault(iid, {})[ck] = [f"{iid}-{ck}-A"]
        for it in items:
            ans.setdefault(it["item_id"], {})
        write_journal(c.project, "adjudication", sha, r, ans, items)  # type: ignore[arg-type]
    return sha, [{"overridden": overridden, "items": items}]
