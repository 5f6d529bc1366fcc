"""The judging card as a Streamlit bidirectional component (`st.components.v2`).

The card itself is audit_app/static/card.js, the same file the offline packet
inlines. This module only adds the Streamlit adapter: the server hands the
card the item and its latest saved state (`data`); the card hands back an
*outbox*: the user's actions not yet confirmed, each with an id that grows
per browser page (`nonce`). The server applies every action it has not applied
yet, in order (audit_app/actions.py), and says in the next `data` which id it
reached. The card shows "saved state + actions still in the outbox", so an
action is never lost between two reruns and never applied twice.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "static"
SCRIPTS = ("textnorm.js", "gates.js", "card.js")

_ADAPTER = """
const RETRY_MS = 1500;
const RETRY_MAX_MS = 8000;

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const JC = globalThis.JudgeCard;
  let host = parentElement.__evauditHost;
  if (!host) {
    const mount = document.createElement("div");
    parentElement.appendChild(mount);
    const nonce = (globalThis.crypto && crypto.randomUUID) ? crypto.randomUUID()
      : String(Math.random()).slice(2) + String(Date.now());
    host = { nonce, nextId: 1, outbox: [], attempt: 0, data: null, mount };
    mount.className = "evaudit-card";
    const send = () => {
      host.attempt += 1;
      setStateValue("outbox", { nonce: host.nonce, attempt: host.attempt, actions: host.outbox.slice() });
    };
    host.send = send;
    const push = (action) => {
      action.id = host.nextId++;
      host.outbox.push(action);
      send();
      host.mount.dataset.pending = String(host.outbox.length);
      host.arm(RETRY_MS);
    };
    // An action sent while the connection is down is dropped by Streamlit ("Cannot send
    // rerun backMessage when disconnected"), and an unchanged render after the reconnect
    // does not call this module again: so the outbox is re-sent on a timer, backing off,
    // until the server confirms it. Re-sending is harmless (actions apply once, by id).
    // A refused save (status "error") waits for the user's next change instead.
    host.arm = (delay) => {
      clearTimeout(host.retry);
      const st = host.data && host.data.status;
      if (!host.outbox.length || (st && st.kind === "error")) return;
      host.retry = setTimeout(() => {
        if (!host.outbox.length) return;
        host.send();
        host.arm(Math.min(delay * 2, RETRY_MAX_MS));
      }, delay);
    };
    host.card = new JC.Card(mount, {
      onAction: (action) => { push(action); host.draw(); },
      onNavigate: (to) => push({ op: "go", to }),
      onImage: (page) => push({ op: "image", item: host.card.itemId, page }),
    });
    host.draw = () => {
      const d = host.data;
      if (!d || !d.item) return;
      const confirmed = d.confirmed && d.confirmed.nonce === host.nonce ? d.confirmed.id : 0;
      host.outbox = host.outbox.filter((a) => a.id > confirmed);
      let state = d.state;
      let pending = 0;
      for (const a of host.outbox) {
        if (a.item !== d.item.item_id || !JC.OPS.includes(a.op)) continue;
        try { state = JC.reduce(d.item, state, a); pending += 1; } catch (err) { /* the server refuses it too */ }
      }
      let status = d.status;
      if (pending && (!status || status.kind !== "error")) status = { kind: "pending", text: "Saving…" };
      host.card.show(Object.assign({}, d, { state, status }));
      // For people and tests alike: which item is shown and how many actions await the server.
      host.mount.dataset.item = d.item.item_id;
      host.mount.dataset.pending = String(host.outbox.length);
    };
    parentElement.__evauditHost = host;
  }
  host.data = data;
  host.draw();
  host.arm(RETRY_MS);
}
"""


@lru_cache(maxsize=1)
def module_js() -> str:
    """textnorm.js + gates.js + card.js (each defines a global) and the adapter module."""
    parts = [(STATIC / name).read_text(encoding="utf-8") for name in SCRIPTS]
    return "\n;\n".join(parts) + "\n" + _ADAPTER


@lru_cache(maxsize=1)
def card_css() -> str:
    return (STATIC / "card.css").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def judging_card():  # type: ignore[no-untyped-def]
    """The registered component (registered once per server process)."""
    import streamlit as st

    return st.components.v2.component(
        "evaudit_judging_card", html="<div></div>", css=card_css(), js=module_js()
    )
