"""Admin-side tables: packets, progress, the unblinded response table, grades, timelines.

Reads packets, admin keys, the registry and every journal (admin only). Pure
table building; the Streamlit views in `views.py` only display the results.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import pandas as pd

from audit_app.admin.agreement_hook import Summary, summary
from audit_app.session import ItemState, Packet, load_packet
from campaign import journal
from campaign.packets import list_packets, read_admin_key
from campaign.project import Project
from campaign.registry import read_registry
from services.agreement import AgreementReport
from services.integrity import IntegrityReport
from vocabulary.errors import InputError
from vocabulary.gates import check_condition
from vocabulary.grades import derived_grade


def packet_ids(project: Project) -> list[str]:
    """The registered packets (`campaign.packets.list_packets`), by name for the picker."""
    return sorted(row.name for row in list_packets(project))


def read_key(project: Project, packet_id: str) -> dict[str, Any] | None:
    """The admin key (`campaign.packets.read_admin_key`), or None where the page shows a
    missing or unreadable key instead of failing."""
    try:
        return read_admin_key(project, packet_id)
    except InputError:
        return None


def packets_table(project: Project) -> pd.DataFrame:
    rows = []
    for pid in packet_ids(project):
        packet = load_packet(project.packet_path(pid))
        key = read_key(project, pid)
        rows.append(
            {
                "packet": pid,
                "kind": packet.kind,
                "items": len(packet.items),
                "conditions": sum(len(it["conditions"]) for it in packet.items),
                "pages": sum(len(c["pages"]) for it in packet.items for c in it["conditions"]),
                "sha256": packet.sha256[:16],
                "admin key": "ok"
                if key and key.get("packet_sha256") == packet.sha256
                else ("MISMATCH" if key else "missing"),
            }
        )
    return pd.DataFrame(rows)


def _latest(project: Project, packet: Packet) -> dict[str, dict[str, dict[str, Any]]]:
    """annotator -> item -> latest line, by the journal's one rule (this packet version)."""
    return journal.latest_states(
        project.journal_dir(packet.packet_id), packet.sha256, packet.item_ids
    )


def progress_table(project: Project) -> pd.DataFrame:
    people = read_registry(project)
    rows = []
    for pid in packet_ids(project):
        packet = load_packet(project.packet_path(pid))
        latest = _latest(project, packet)
        names = sorted(
            {n for n, p in people.items() if pid in (p.get("packets") or [])} | set(latest)
        )
        for name in names:
            items = latest.get(name, {})
            rows.append(
                {
                    "packet": pid,
                    "annotator": name,
                    "role": people.get(name, {}).get("role", "?"),
                    "revoked": bool(people.get(name, {}).get("revoked", False)),
                    "complete": sum(bool(v.get("complete")) for v in items.values()),
                    "started": len(items),
                    "total": len(packet.items),
                    "last save": max((v["ts"] for v in items.values()), default=""),
                }
            )
    return pd.DataFrame(rows)


def _supported(
    state: ItemState, packet: Packet, item_id: str, key_item: dict[str, Any]
) -> dict[Hashable, list[Hashable]]:
    """condition_key -> physical pages of a gate-passing yes (from the admin key)."""
    out: dict[Hashable, list[Hashable]] = {}
    for ckey, pool in packet.pools(item_id).items():
        ans = state.answer(ckey)
        if ans.answer == "yes" and not check_condition(ans, pool, packet.quote_rule):
            pages = key_item["conditions"][ckey]["pages"]
            out[ckey] = [int(pages[p]["page"]) for p in ans.pages]
    return out


def _routes(page_key: str, kpage: dict[str, Any]) -> str:
    """Every route that brought a page into the pool, with its rank: "A: bm25 #1, dense #4"."""
    routes = kpage.get("routes") or {}
    ranked = sorted(routes.items(), key=lambda kv: (kv[1] is None, kv[1], kv[0]))
    listed = ", ".join(f"{name} #{rank}" if rank is not None else name for name, rank in ranked)
    return f"{page_key.rsplit('-', 1)[-1]}: {listed or 'no route'}"


def unblinded_table(project: Project, packet_id: str) -> pd.DataFrame:
    """One row per (annotator, item, condition): the answer joined with the admin key."""
    packet = load_packet(project.packet_path(packet_id))
    key = read_key(project, packet_id) or {"items": {}}
    rows = []
    for name, items in _latest(project, packet).items():
        for item_id, line in items.items():
            kitem = key["items"].get(item_id)
            if kitem is None:
                continue
            state = ItemState.from_line(line)
            supported = _supported(state, packet, item_id, kitem)
            n = int(kitem.get("n", len(packet.pools(item_id))))
            full = len(packet.pools(item_id)) == n
            grade = derived_grade(n, supported) if full and line.get("complete") else None
            for ckey in packet.pools(item_id):
                ans = state.answer(ckey)
                kcond = kitem["conditions"].get(ckey, {})
                kpages = kcond.get("pages", {})
                rows.append(
                    {
                        "annotator": name,
                        "item_id": item_id,
                        "query_id": kitem.get("query_id"),
                        "doc_id": kitem.get("doc_id"),
                        "label": kitem.get("label"),
                        "qrel grade": kitem.get("grade"),
                        "derived grade": grade,
                        "condition": ckey,
                        "condition_id": kcond.get("condition_id"),
                        "answer": ans.answer,
                        "supported": ckey in supported,
                        "quotes": "\n".join(ans.quotes.get(p, "") for p in ans.pages),
                        "pages": ", ".join(ans.pages),
                        "page numbers": ", ".join(
                            str(kpages.get(p, {}).get("page", "?")) for p in ans.pages
                        ),
                        "routes": "\n".join(_routes(p, kpages.get(p, {})) for p in ans.pages),
                        "complete": bool(line.get("complete")),
                        "unclear": state.unclear,
                        "comment": state.comment,
                        "saved": line.get("ts"),
                    }
                )
    return pd.DataFrame(rows)


def confusion_long(matrix: list[list[int]]) -> pd.DataFrame:
    """(row, col, count) rows of a grade confusion matrix (grades 0..n), for a heatmap."""
    return pd.DataFrame(
        [(r, c, int(v)) for r, row in enumerate(matrix) for c, v in enumerate(row)],
        columns=["row", "col", "count"],
    )


def agreement_rows(report: AgreementReport | dict[str, Any]) -> pd.DataFrame:
    """The `agreement audit` report's `rows()` as a frame (proportions with their Wilson
    interval, the kappas), values as they are: the labels live in the report."""
    rows = AgreementReport.rows_of(report) if isinstance(report, dict) else report.rows()
    return pd.DataFrame(rows, columns=list(AgreementReport.columns))


def integrity_rows(report: IntegrityReport | dict[str, Any]) -> pd.DataFrame:
    """The `integrity` report's `rows()` as a frame: one row per response stream."""
    if isinstance(report, dict):
        report = IntegrityReport.from_json(report)
    return pd.DataFrame(report.rows())


def progress_timeline(project: Project, packet_id: str) -> pd.DataFrame:
    """Complete items per annotator after every save (ts, annotator, complete)."""
    packet = load_packet(project.packet_path(packet_id))
    rows = []
    reads = journal.read_streams(project.journal_dir(packet_id), packet.sha256, packet.item_ids)
    for name, read in reads.items():
        status: dict[str, bool] = defaultdict(bool)
        for ln in read.lines:  # counted lines in seq order: the state after every save
            status[str(ln["item_id"])] = bool(ln.get("complete"))
            rows.append({"ts": ln["ts"], "annotator": name, "complete": sum(status.values())})
    df = pd.DataFrame(rows, columns=["ts", "annotator", "complete"])
    if not df.empty:
        df["ts"] = pd.to_datetime(df["ts"], format="ISO8601")
    return df


def journals_bundle(project: Project, packet_id: str) -> bytes:
    """Every journal line of one packet as JSONL (admin download)."""
    out: list[bytes] = []
    for _name, path in journal.iter_journals(project.journal_dir(packet_id)):
        for line in journal.read_journal(path).lines:
            out.append(json.dumps(line, ensure_ascii=False, sort_keys=True).encode() + b"\n")
    return b"".join(out)


def revised_artefacts(project: Project) -> list[Path]:
    """Files under revised/ or decisions/ (whatever the repair/finalize steps have written)."""
    found: list[Path] = []
    for sub in ("revised", "decisions"):
        folder = project.root / sub
        if folder.is_dir():
            found.extend(p for p in sorted(folder.rglob("*")) if p.is_file())
    return found


def agreement_summary(project: Project, packet_id: str, raters: str | None = None) -> Summary:
    """Live agreement and integrity figures through the scorers (see `agreement_hook`)."""
    return summary(project, packet_id, raters)


def stream_names(project: Project, packet_id: str) -> list[str]:
    """Annotators with a journal for this packet (the response streams)."""
    return [name for name, _ in journal.iter_journals(project.journal_dir(packet_id))]


def answered_streams(project: Project, packet_id: str) -> list[str]:
    """Streams with at least one line saved on this packet version (the ones with answers)."""
    packet = load_packet(project.packet_path(packet_id))
    return [name for name, items in _latest(project, packet).items() if items]


def blank_missing(table: pd.DataFrame) -> Any:
    """The table for display: empty cells where a figure does not apply, counts without
    decimals (a column with gaps is float), other figures to 4 decimals. Only the display
    changes: the data underneath keep their nulls."""
    formats: dict[Any, str | Callable[[object], str] | None] = {}
    for name in table.columns:
        column = table[name]
        if pd.api.types.is_float_dtype(column):
            whole = column.dropna().apply(float.is_integer).all()
            formats[name] = "{:.0f}" if whole else "{:.4f}"
    return table.style.format(formats, na_rep="")
