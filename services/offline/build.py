"""Build the offline annotator packet: one self-contained HTML file.

The file inlines the page template, the quote normalizer
(`services/card/textnorm.js`), the gates (`services/card/gates.js`, twin
of `vocabulary/gates.py`), the judging card (`services/card/card.js` and
`card.css`, the same files the Streamlit app mounts), the offline host
(`app.js`, `style.css`), plus the blinded packet as JSON. A
Content-Security-Policy allows exactly those inline scripts and the one style
block (by SHA-256) and nothing else: no network connection, font, image, frame
or form target, so the page cannot make a request even by accident.

Only the fields of the packet format (docs/formats.md) are copied into the
file: whatever else a caller's dict holds never reaches the annotator.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from services.card import SCRIPTS as CARD_SCRIPTS
from services.card import STATIC
from vocabulary.errors import InputError

HERE = Path(__file__).resolve().parent
# Inlined in this order: each defines a global the next one uses.
SCRIPTS = (*(STATIC / name for name in CARD_SCRIPTS), HERE / "app.js")
# One <style> block: the card's sheet, then the offline frame's.
STYLES = (STATIC / "card.css", HERE / "style.css")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_PLACEHOLDER = re.compile(r"\{\{([A-Z]+)\}\}")


def _text(obj: Any, field: str, where: str, *, required: bool = True) -> str:
    value = obj.get(field)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{where}.{field} must be text", hint="rebuild the packet")
    return value


def _texts(obj: Any, field: str, where: str) -> list[str]:
    value = obj.get(field) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}.{field} must be a list of texts", hint="rebuild the packet")
    return list(value)


def blinded_copy(packet: Any) -> dict[str, Any]:
    """The packet reduced to the documented annotator-facing fields (validated)."""
    if not isinstance(packet, dict) or packet.get("format") != "evaudit-packet":
        raise InputError("not an evaudit packet (format must be evaudit-packet)")
    if packet.get("version") != 1:
        raise InputError(f"unsupported packet version {packet.get('version')!r}")
    items = packet.get("items")
    if not isinstance(items, list) or not items:
        raise InputError("the packet has no items", hint="build a packet with at least one item")
    rule = packet.get("quote_rule") or {}
    out: dict[str, Any] = {
        "format": "evaudit-packet",
        "version": 1,
        "packet_id": _text(packet, "packet_id", "packet"),
        "kind": _text(packet, "kind", "packet", required=False) or "initial",
        "rule": _text(packet, "rule", "packet", required=False),
        "quote_rule": {
            "min_words": int(rule.get("min_words", 3)),
            "min_chars": int(rule.get("min_chars", 12)),
        },
        "items": [],
    }
    seen: set[str] = set()
    for i, item in enumerate(items):
        where = f"items[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where} must be an object", hint="rebuild the packet")
        item_id = _text(item, "item_id", where)
        if item_id in seen:
            raise InputError(f"{where}: duplicate item_id {item_id}", hint="rebuild the packet")
        seen.add(item_id)
        conds = item.get("conditions")
        if not isinstance(conds, list) or not conds:
            raise InputError(f"{where} ({item_id}) has no conditions", hint="rebuild the packet")
        new_item: dict[str, Any] = {
            "item_id": item_id,
            "information_need": _text(item, "information_need", where),
            "conditions": [],
        }
        for j, cond in enumerate(conds):
            cwhere = f"{where}.conditions[{j}]"
            if not isinstance(cond, dict):
                raise InputError(f"{cwhere} must be an object", hint="rebuild the packet")
            pages = cond.get("pages")
            if not isinstance(pages, list) or not pages:
                raise InputError(f"{cwhere} has no candidate pages", hint="rebuild the packet")
            new_pages = []
            for k, page in enumerate(pages):
                pwhere = f"{cwhere}.pages[{k}]"
                if not isinstance(page, dict):
                    raise InputError(f"{pwhere} must be an object", hint="rebuild the packet")
                new_pages.append(
                    {
                        "page_key": _text(page, "page_key", pwhere),
                        "text": _text(page, "text", pwhere),
                    }
                )
            new_item["conditions"].append(
                {
                    "condition_key": _text(cond, "condition_key", cwhere),
                    "name": _text(cond, "name", cwhere, required=False),
                    "requirement": _text(cond, "requirement", cwhere, required=False),
                    "counts": _texts(cond, "counts", cwhere),
                    "does_not_count": _texts(cond, "does_not_count", cwhere),
                    "note": _text(cond, "note", cwhere, required=False),
                    "pages": new_pages,
                }
            )
        out["items"].append(new_item)
    return out


def script_json(obj: Any) -> str:
    """JSON safe inside <script type="application/json"> (no '<', '>' or '&' left raw)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _csp_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _asset(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise RuntimeError(f"{path} contains a closing tag and cannot be inlined")
    return text


def content_security_policy(scripts: list[str], style: str) -> str:
    script_src = " ".join(_csp_hash(s) for s in scripts)
    return (
        "default-src 'none'; "
        f"script-src {script_src}; "
        f"style-src {_csp_hash(style)}; "
        "connect-src 'none'; img-src 'none'; font-src 'none'; media-src 'none'; "
        "object-src 'none'; frame-src 'none'; worker-src 'none'; manifest-src 'none'; "
        "form-action 'none'; base-uri 'none'"
    )


def build_offline_html(packet: dict, packet_sha256: str, annotator: str) -> str:
    """One self-contained HTML file for `annotator` to judge `packet` offline."""
    if not isinstance(packet_sha256, str) or not _SHA256_HEX.fullmatch(packet_sha256):
        raise InputError(
            f"packet hash {packet_sha256!r} is not a SHA-256 hex digest",
            hint="pass the SHA-256 of the packet file bytes",
        )
    if not isinstance(annotator, str) or not annotator.strip() or annotator != annotator.strip():
        raise InputError(
            f"annotator name {annotator!r} is empty or has surrounding spaces",
            hint="use the name registered with `evaudit annotator add`",
        )
    blinded = blinded_copy(packet)
    data = script_json({"packet": blinded, "packet_sha256": packet_sha256, "annotator": annotator})
    scripts = [_asset(p) for p in SCRIPTS]
    style = "\n".join(_asset(p) for p in STYLES)
    values = {
        "CSP": html.escape(content_security_policy(scripts, style), quote=False),
        "TITLE": html.escape(blinded["packet_id"]),
        "ANNOTATOR": html.escape(annotator),
        "STYLE": style,
        "DATA": data,
        "SCRIPTS": "\n".join(f"<script>{s}</script>" for s in scripts),
    }
    template = (HERE / "template.html").read_text(encoding="utf-8")
    # One pass over the template only, so inserted text is never re-scanned for placeholders.
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
