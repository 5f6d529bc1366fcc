"""The judging card as a Streamlit bidirectional component (`st.components.v2`).

The card itself is services/card/card.js, the same file the offline packet
inlines. This module only adds the Streamlit adapter: the server hands the
card the item and its latest saved state (`data`); the card hands back an
*outbox*: the user's actions not yet confirmed, each with an id that grows
per browser page (`nonce`). The server applies every action it has not applied
yet, in order (audit_app/actions.py), and says in the next `data` which id it
reached. The card shows "saved state + actions still in the outbox", so an
action is never lost between two reruns and never applied twice.

Two elements: `card_code` carries the code (textnorm.js, gates.js, card.js, the
sheet and the adapter, ~84 KB) and never changes, so Streamlit's message cache sends
it once per page load and then only its hash; `judging_card` carries the item's data
and a few lines that hand it to the code.
"""

from __future__ import annotations

import json
from functools import lru_cache

from services.card import SCRIPTS, STATIC

_ADAPTER = """
const RETRY_MS = 1500;
const RETRY_MAX_MS = 8000;

/** Quotes of selected pages only, as ConditionAnswer.to_json writes them. */
function conditionJson(c) {
  const quotes = {};
  for (const k of c.pages) if (Object.prototype.hasOwnProperty.call(c.quotes, k)) quotes[k] = c.quotes[k];
  return { answer: c.answer, pages: c.pages.slice(), quotes };
}

/** The shown item with the changes the server refused, as an evaudit-responses file. */
function unsavedExport(JC, d, outbox) {
  let state = JC.normalState(d.item, d.state);
  for (const a of outbox) {
    if (a.item !== d.item.item_id || !JC.OPS.includes(a.op)) continue;
    try { state = JC.reduce(d.item, state, a); } catch (err) { /* the server refuses it too */ }
  }
  const pools = {};
  for (const c of d.item.conditions) {
    pools[c.condition_key] = {};
    for (const k of c.pages) pools[c.condition_key][k] = d.item.texts[d.item.pages[k]];
  }
  const conditions = {};
  for (const [k, c] of Object.entries(state.conditions)) conditions[k] = conditionJson(c);
  const complete = globalThis.Gates.itemComplete(conditions, pools, d.quoteRule);
  return {
    format: "evaudit-responses", version: 1, packet_id: d.packet.id, packet_sha256: d.packet.sha256,
    annotator: d.annotator, exported: new Date().toISOString().replace("Z", "+00:00"),
    items: { [d.item.item_id]: { conditions, unclear: state.unclear,
      comment: state.unclear || state.comment ? state.comment : "", complete } },
  };
}

function download(name, obj) {
  const blob = new Blob([JSON.stringify(obj, null, 2) + "\\n"], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.setAttribute("href", url); // a blob: URL of the file just made, never a network address
  a.setAttribute("download", name);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

globalThis.EvauditMount = function (component) {
  const { data, setStateValue, parentElement } = component;
  const JC = globalThis.JudgeCard;
  let host = parentElement.__evauditHost;
  if (!host) {
    const style = document.createElement("style");
    style.textContent = globalThis.JudgeCardCSS; // sent once per page load, with the code
    parentElement.appendChild(style);
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
      onDownloadUnsaved: () => {
        const d = host.data;
        if (d && d.item) download(`${d.packet.id}-${d.annotator}-NOT-saved.json`, unsavedExport(JC, d, host.outbox));
      },
      flow: (data && data.annotator) || "annotator",
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
      host.card.show(Object.assign({}, d, { state, status, pending }));
      // For people and tests alike: which item is shown and how many actions await the server.
      host.mount.dataset.item = d.item.item_id;
      host.mount.dataset.pending = String(host.outbox.length);
      host.mount.dataset.refused = d.status && d.status.kind === "error" ? "1" : "0";
    };
    parentElement.__evauditHost = host;
  }
  host.data = data;
  host.draw();
  host.arm(RETRY_MS);
};

// A render that arrived before this code: mount it now.
for (const c of (globalThis.__evauditWaiting || []).splice(0)) globalThis.EvauditMount(c);

export default function () {}
"""

# The card element itself: a few hundred bytes per rerun besides the item's data. The
# code (above, ~84 KB) is a separate element whose message never changes, so Streamlit
# sends it once per page load and afterwards only its hash (ForwardMsg cache).
_CARD_JS = """
export default function (component) {
  if (globalThis.EvauditMount) return globalThis.EvauditMount(component);
  const waiting = (globalThis.__evauditWaiting = globalThis.__evauditWaiting || []);
  waiting.length = 0;
  waiting.push(component); // only the latest render matters
  return undefined;
}
"""


@lru_cache(maxsize=1)
def module_js() -> str:
    """textnorm.js + gates.js + card.js (each defines a global), the sheet and the adapter."""
    parts = [(STATIC / name).read_text(encoding="utf-8") for name in SCRIPTS]
    css = "globalThis.JudgeCardCSS = " + json.dumps(card_css()) + ";\n"
    return "\n;\n".join(parts) + "\n" + css + _ADAPTER


@lru_cache(maxsize=1)
def card_css() -> str:
    return (STATIC / "card.css").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def card_code():  # type: ignore[no-untyped-def]
    """The component that carries the card's code (registered once per server process)."""
    import streamlit as st

    return st.components.v2.component("evaudit_card_code", html="<div></div>", js=module_js())


@lru_cache(maxsize=1)
def judging_card():  # type: ignore[no-untyped-def]
    """The card element: its data is the item; its code comes from `card_code`."""
    import streamlit as st

    return st.components.v2.component("evaudit_judging_card", html="<div></div>", js=_CARD_JS)
