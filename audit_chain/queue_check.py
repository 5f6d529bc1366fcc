"""Check an adjudication queue against the repair plan it came from.

`repair plan --queue-out` writes, with the queue's pairs, the SHA-256 of the
initial packet, the two raters and the SHA-256 of the pairs. Before building
an adjudication packet the builder recomputes that plan from the project (same
packet, same raters, current journals) and refuses a queue that differs from
it, naming every difference: a queue edited by hand, built from another
packet, or stale because journals changed since, would otherwise decide which
conditions get adjudicated without anyone seeing it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from campaign.project import Project
from vocabulary.errors import InputError, InputErrors

_FIELDS = ("reason", "unresolved", "locked", "page_adjudication")


def _label(i: int | None, entry: dict[str, Any]) -> str:
    where = f"pairs[{i}] " if i is not None else ""
    return f"{where}{entry.get('query_id')} / {entry.get('doc_id')}"


def queue_disagreements(
    pairs: list[dict[str, Any]], planned: list[dict[str, Any]], plan_name: str
) -> list[str]:
    """Every way `pairs` (the file) differs from `planned` (the recomputed plan's queue)."""
    out: list[str] = []
    by_key = {(str(p["query_id"]), str(p["doc_id"])): p for p in planned}
    seen: set[tuple[str, str]] = set()
    for i, p in enumerate(pairs):
        key = (str(p.get("query_id")), str(p.get("doc_id")))
        seen.add(key)
        want = by_key.get(key)
        if want is None:
            out.append(f"{_label(i, p)} is not queued by {plan_name}")
            continue
        for f in _FIELDS:
            have = p.get(f, [] if f != "reason" else None)
            if have != want[f]:
                out.append(f"{_label(i, p)}: {f} {have!r}, but {plan_name} says {want[f]!r}")
    for key, want in by_key.items():
        if key not in seen:
            out.append(f"{_label(None, want)} is queued by {plan_name} but missing here")
    return out


def check_queue(project: Project, path: Path, obj: dict[str, Any]) -> None:
    """Raise one InputErrors listing every disagreement between the queue and its plan."""
    from audit_chain.audit_ops import load_plan
    from policies.repair import pairs_sha256

    plan_info = obj.get("plan")
    source = obj.get("source_packet")
    rerun = (
        "rerun `"
        + " ".join(
            shlex.quote(str(x))
            for x in (
                "evaudit",
                "repair",
                "plan",
                project.root,
                source or "PACKET",
                "--queue-out",
                path,
            )
        )
        + "` and build from it"
    )
    if obj.get("version") != 2 or not isinstance(plan_info, dict) or not source:
        raise InputError(
            "the queue names no repair plan (no 'plan' block): it was not written by "
            "`evaudit repair plan` of this version",
            file=path,
            hint=rerun,
        )
    raters = plan_info.get("raters")
    if not isinstance(raters, list) or len(raters) != 2:
        raise InputError("plan.raters must name the two initial raters", file=path, hint=rerun)
    loaded = load_plan(
        project, str(source), ",".join(map(str, raters)), flag="the queue's plan.raters"
    )
    plan = loaded.plan
    plan_name = f"the repair plan of packet {source!r} (raters {','.join(plan.raters)})"
    problems: list[str] = []
    if plan_info.get("source_packet_sha256") != plan.source_sha256:
        problems.append(
            f"plan.source_packet_sha256 is not the SHA-256 of packet {source!r} "
            f"({plan.source_sha256[:12]}...): the queue comes from another packet file"
        )
    pairs = obj.get("pairs") or []
    if isinstance(pairs, list) and plan_info.get("pairs_sha256") != pairs_sha256(pairs):
        problems.append("the pairs were edited after `repair plan` wrote the queue (pairs_sha256)")
    planned = plan.queue_entries()
    if plan_info.get("pairs_sha256") != pairs_sha256(planned):
        problems.append(f"{plan_name} has changed since the queue was written (journals changed?)")
    if isinstance(pairs, list):
        problems += queue_disagreements(
            [p for p in pairs if isinstance(p, dict)], planned, plan_name
        )
    if problems:
        raise InputErrors(
            [
                InputError(
                    f"the queue disagrees with {plan_name} in {len(problems)} place(s); "
                    "nothing was built",
                    file=path,
                    hint=rerun,
                )
            ]
            + [InputError(msg, file=path) for msg in problems]
        )
