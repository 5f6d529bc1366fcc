"""Response-stream integrity ("Do Current Retrievers Cover All the Evidence?" (supplement), "Adjudication agreement and integrity", challenge).

Per stream: positives, negatives, selected pages, quotes passing the exact
check, structural and page-pool errors. Two journals of one source (the same
file, annotator or token; `campaign.stream_identity` finds them) are one stream
counted twice; they are flagged and collapsed to the first of the group ("Do Current
Retrievers Cover All the Evidence?" (supplement) collapsed two such files). Equal
answers alone never make two streams one. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorers.responses import ItemResponse, PacketInfo, Responses


def stream_counts(packet: PacketInfo, stream: Mapping[str, ItemResponse]) -> dict[str, Any]:
    pos = neg = unanswered = pages = qtot = qok = structural = pool = unclear = complete = 0
    for item in packet.items:
        resp = stream.get(item.item_id)
        if resp is None:
            continue
        complete += int(resp.answered_all(item))
        unclear += int(resp.unclear)
        for cond in item.conditions:
            c = resp.conditions[cond.key]
            pos += int(c.answer == "yes")
            neg += int(c.answer == "no")
            unanswered += int(not c.answered)
            pages += len(c.pages) if c.answer == "yes" else 0
            qtot += c.quotes_total
            qok += c.quotes_exact
            structural += c.structural_errors
            pool += c.pool_errors
    return {
        "items_saved": sum(1 for it in packet.items if it.item_id in stream),
        "items_complete": complete,
        "positives": pos,
        "negatives": neg,
        "unanswered": unanswered,
        "selected_pages": pages,
        "quotes_exact": {"count": qok, "total": qtot},
        "structural_errors": structural,
        "page_pool_errors": pool,
        "unclear": unclear,
    }


def collapse(
    responses: Responses, groups: Sequence[Sequence[str]]
) -> dict[str, Mapping[str, ItemResponse]]:
    """Keep the first stream of each duplicate group, drop the copies."""
    drop = {name for group in groups for name in group[1:]}
    return {name: stream for name, stream in responses.items() if name not in drop}


def integrity_report(
    packet: PacketInfo,
    responses: Responses,
    read_problems: Mapping[str, Mapping[str, int]] | None = None,
    groups: Sequence[Sequence[str]] = (),
) -> dict[str, Any]:
    """Per-stream counts, totals, duplicate groups (found by identity at the edge:
    `campaign.stream_identity`) and the streams left after collapsing."""
    streams = {}
    for name in sorted(responses):
        row = stream_counts(packet, responses[name])
        row.update(dict((read_problems or {}).get(name, {})))
        streams[name] = row
    totals: dict[str, Any] = {
        key: sum(s[key] for s in streams.values())
        for key in (
            "positives",
            "negatives",
            "selected_pages",
            "structural_errors",
            "page_pool_errors",
        )
    }
    totals["quotes_exact"] = {
        "count": sum(s["quotes_exact"]["count"] for s in streams.values()),
        "total": sum(s["quotes_exact"]["total"] for s in streams.values()),
    }
    kept = collapse(responses, groups)
    return {
        "packet_id": packet.packet_id,
        "kind": packet.kind,
        "items": len(packet.items),
        "conditions": sum(len(it.conditions) for it in packet.items),
        "streams": streams,
        "totals": totals,
        "duplicate_streams": [list(g) for g in groups],
        "streams_after_collapse": sorted(kept),
        "ok": all(
            s["structural_errors"] == 0
            and s["page_pool_errors"] == 0
            and s["quotes_exact"]["count"] == s["quotes_exact"]["total"]
            for s in streams.values()
        ),
    }
