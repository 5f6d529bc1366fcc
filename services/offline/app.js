/*
 * The offline annotator packet (one self-contained HTML file): a thin host of
 * the judging card.
 *
 * The card (services/card/card.js, the same file the Streamlit app mounts)
 * draws the item and handles every click and key; it reports each user action
 * and this host applies it with JudgeCard.reduce, stores the drafts in
 * localStorage at once and shows the result. What only this host does:
 * drafts in localStorage, restore on open (resuming at the first incomplete
 * item), the responses export in the docs/formats.md format (the body of each
 * item as audit_app.session.record() writes it) and its import, and "save now"
 * (Alt+S / Ctrl+S).
 *
 * Untrusted text (packet text, imported files) only ever enters the DOM
 * through textContent, here as in the card.
 */
(function () {
  "use strict";
  const TN = window.TextNorm;
  const G = window.Gates;
  const JC = window.JudgeCard;
  const DATA = JSON.parse(document.getElementById("evaudit-data").textContent);
  const PACKET = DATA.packet;
  const SHA = DATA.packet_sha256;
  const ANNOTATOR = DATA.annotator;
  const ITEMS = PACKET.items;
  const RULE = {
    min_words: (PACKET.quote_rule || {}).min_words ?? TN.MIN_WORDS,
    min_chars: (PACKET.quote_rule || {}).min_chars ?? TN.MIN_CHARS,
  };
  const STORAGE_KEY = `evaudit-offline:${PACKET.packet_id}:${SHA}:${ANNOTATOR}`;
  const DRAFT_FORMAT = "evaudit-offline-draft";
  const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

  const itemIndex = new Map(ITEMS.map((it, i) => [it.item_id, i]));
  const cardItems = ITEMS.map((it) => JC.cardItem(it));
  const pools = {}; // item_id -> {condition_key: {page_key: text}}
  for (const it of ITEMS) {
    pools[it.item_id] = {};
    for (const c of it.conditions) {
      pools[it.item_id][c.condition_key] = {};
      for (const p of c.pages) pools[it.item_id][c.condition_key][p.page_key] = p.text;
    }
  }
  const normCache = new Map(); // page_key -> TextNorm.normalizeWithMap(text); pages never change
  function norms(itemId) {
    const out = {};
    for (const pool of Object.values(pools[itemId])) {
      for (const [key, text] of Object.entries(pool)) {
        if (!normCache.has(key)) normCache.set(key, TN.normalizeWithMap(text));
        out[key] = normCache.get(key);
      }
    }
    return out;
  }

  // ---- state -------------------------------------------------------------
  let drafts = {}; // item_id -> {conditions: {ckey: {answer, pages, quotes}}, unclear, comment}
  let current = 0;
  let storageOk = true;
  let status = { kind: "idle", text: "Every change is saved in this browser at once." };
  let card = null;

  const $ = (id) => document.getElementById(id);

  /**
   * A draft or imported item as the card's state (JudgeCard.normalState). Quotes of pages that
   * are not selected are dropped: they were never part of the answer (not judged, not exported),
   * and in the card unticking a page drops its quote.
   */
  function cleanItem(itemId, obj) {
    const out = JC.normalState(cardItems[itemIndex.get(itemId)], obj);
    for (const c of Object.values(out.conditions)) {
      for (const key of Object.keys(c.quotes)) {
        if (!c.pages.includes(key) || c.quotes[key] === "") delete c.quotes[key];
      }
    }
    return out;
  }

  /** ConditionAnswer.to_json: quotes only for selected pages. */
  function conditionJson(c) {
    const quotes = {};
    for (const k of c.pages) if (has(c.quotes, k)) quotes[k] = c.quotes[k];
    return { answer: c.answer, pages: c.pages.slice(), quotes };
  }

  function answers(itemId) {
    const d = drafts[itemId];
    const out = {};
    for (const ckey of Object.keys(pools[itemId])) {
      out[ckey] = conditionJson((d && d.conditions[ckey]) || { answer: null, pages: [], quotes: {} });
    }
    return out;
  }

  function isComplete(itemId) {
    if (!drafts[itemId]) return false;
    return G.itemComplete(answers(itemId), pools[itemId], RULE, norms(itemId));
  }

  function completeCount() {
    return ITEMS.filter((it) => isComplete(it.item_id)).length;
  }

  function firstIncomplete() {
    const i = ITEMS.findIndex((it) => !isComplete(it.item_id));
    return i < 0 ? 0 : i;
  }

  /** The export body of one item, as audit_app.session.record() writes it. */
  function itemJson(itemId) {
    const d = drafts[itemId];
    return { conditions: answers(itemId), unclear: d.unclear, comment: d.comment, complete: isComplete(itemId) };
  }

  function isoNow() {
    return new Date().toISOString().replace("Z", "+00:00");
  }

  function clock() {
    const d = new Date();
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  }

  // ---- autosave ----------------------------------------------------------
  /** Store every draft; the status says whether the browser took it. */
  function save() {
    const doc = {
      format: DRAFT_FORMAT,
      version: 1,
      packet_id: PACKET.packet_id,
      packet_sha256: SHA,
      annotator: ANNOTATOR,
      saved: isoNow(),
      current,
      items: drafts,
    };
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(doc));
      storageOk = true;
      status = { kind: "saved", text: `Saved in this browser at ${clock()}` };
    } catch (err) {
      storageOk = false;
      status = { kind: "error",
        text: "NOT saved: this browser refuses local storage. Download your responses often." };
    }
  }

  function restore() {
    let raw = null;
    try {
      raw = window.localStorage.getItem(STORAGE_KEY);
    } catch (err) {
      storageOk = false;
      return 0;
    }
    if (!raw) return 0;
    let doc;
    try {
      doc = JSON.parse(raw);
    } catch (err) {
      return 0;
    }
    if (!doc || doc.format !== DRAFT_FORMAT || doc.packet_sha256 !== SHA) return 0;
    for (const [itemId, obj] of Object.entries(doc.items || {})) {
      if (itemIndex.has(itemId)) drafts[itemId] = cleanItem(itemId, obj);
    }
    return Object.keys(drafts).length;
  }

  // ---- the card ----------------------------------------------------------
  function show() {
    const item = ITEMS[current];
    card.show({
      item: cardItems[current],
      state: drafts[item.item_id] || null,
      rule: PACKET.rule || "",
      quoteRule: RULE,
      index: current,
      total: ITEMS.length,
      items: ITEMS.map((it) => ({ id: it.item_id, done: isComplete(it.item_id), started: has(drafts, it.item_id) })),
      status,
      images: false,
      image: null,
      heading: null,
    });
  }

  function onAction(action) {
    const itemId = has(action, "item") && itemIndex.has(action.item) ? action.item : ITEMS[current].item_id;
    const item = cardItems[itemIndex.get(itemId)];
    try {
      drafts[itemId] = JC.reduce(item, drafts[itemId] || null, action);
    } catch (err) {
      status = { kind: "error", text: `Not applied: ${err.message}` };
      show();
      return;
    }
    save();
    show();
  }

  /** Navigation moves to the item and writes nothing. */
  function go(index) {
    current = Math.max(0, Math.min(ITEMS.length - 1, index));
    show();
    window.scrollTo(0, 0);
  }

  /** "Save now": a quote or comment being typed becomes an action first, then everything is stored. */
  function saveNow() {
    card.commitOpenQuote();
    save();
    show();
  }

  function onKey(e) {
    const code = e.code || "";
    const alt = e.altKey && !e.ctrlKey && !e.metaKey;
    const ctrl = (e.ctrlKey || e.metaKey) && !e.altKey;
    if (code === "KeyS" && (alt || ctrl)) {
      e.preventDefault();
      saveNow();
    }
  }

  // ---- export / import ---------------------------------------------------
  function buildExport() {
    const items = {};
    for (const it of ITEMS) if (drafts[it.item_id]) items[it.item_id] = itemJson(it.item_id);
    return {
      format: "evaudit-responses",
      version: 1,
      packet_id: PACKET.packet_id,
      packet_sha256: SHA,
      annotator: ANNOTATOR,
      exported: isoNow(),
      items,
    };
  }

  /** What `evaudit responses import` would refuse: exported quotes that are not on their page. */
  function importBlockers(doc) {
    const out = [];
    for (const [itemId, body] of Object.entries(doc.items)) {
      const norm = norms(itemId);
      for (const [ckey, c] of Object.entries(body.conditions)) {
        for (const [key, quote] of Object.entries(c.quotes)) {
          const text = pools[itemId][ckey][key];
          if (text !== undefined && G.pyStrip(quote) && !TN.quoteInPage(quote, text, norm[key])) {
            out.push(`${itemId} ${ckey}: the quote for ${key} is not on that page`);
          }
        }
      }
    }
    return out;
  }

  function setStatus(node, text, ok) {
    node.textContent = text;
    node.className = ok ? "status-ok" : "status-error";
  }

  function exportResponses() {
    const doc = buildExport();
    const text = JSON.stringify(doc, null, 2) + "\n";
    const blob = new Blob([text], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.setAttribute("href", url); // a blob: URL of the file just made, never a network address
    a.setAttribute("download", `${PACKET.packet_id}-${ANNOTATOR}-responses.json`);
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    const n = Object.keys(doc.items).length;
    const done = Object.values(doc.items).filter((b) => b.complete).length;
    const lines = [`Downloaded ${n} answered item(s); ${done} of ${ITEMS.length} complete.`];
    const blockers = importBlockers(doc);
    if (blockers.length) {
      lines.push("Fix these before handing the file in (the import refuses quotes that are not on their page):");
      lines.push(...blockers.map((b) => `• ${b}`));
    } else if (done < ITEMS.length) {
      lines.push("Some items are not complete yet; you can import this file later to continue.");
    }
    setStatus($("export-status"), lines.join("\n"), blockers.length === 0);
  }

  function importResponses(text) {
    const fail = (msg) => setStatus($("import-status"), msg, false);
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      return fail(`Not a responses file: invalid JSON (${err.message}).`);
    }
    if (!doc || typeof doc !== "object" || doc.format !== "evaudit-responses") {
      return fail("Not a responses file: format must be evaudit-responses.");
    }
    if (doc.version !== 1) return fail(`Unsupported responses version ${doc.version}.`);
    if (doc.packet_id !== PACKET.packet_id) {
      return fail(`This file is for packet ${doc.packet_id}, not ${PACKET.packet_id}.`);
    }
    if (doc.packet_sha256 !== SHA) {
      return fail("This file was made with a different version of this packet (hash differs).");
    }
    if (doc.annotator !== ANNOTATOR) {
      return fail(`This file belongs to annotator ${doc.annotator}, not ${ANNOTATOR}.`);
    }
    if (!doc.items || typeof doc.items !== "object") return fail("The file has no items.");
    const skipped = [];
    let count = 0;
    for (const [itemId, body] of Object.entries(doc.items)) {
      if (!itemIndex.has(itemId)) {
        skipped.push(`${itemId} is not an item of this packet`);
        continue;
      }
      const conds = (body && body.conditions) || {};
      for (const ckey of Object.keys(conds)) {
        if (!pools[itemId][ckey]) skipped.push(`${itemId}: ${ckey} is not a condition of this item`);
      }
      drafts[itemId] = cleanItem(itemId, body);
      count += 1;
    }
    save();
    current = firstIncomplete();
    show();
    setStatus($("import-status"), `Imported ${count} item(s); ${completeCount()} of ${ITEMS.length} complete.` +
      (skipped.length ? `\nSkipped: ${skipped.join("; ")}` : ""), skipped.length === 0);
    return undefined;
  }

  // ---- wiring ------------------------------------------------------------
  function wire() {
    $("btn-export").addEventListener("click", exportResponses);
    $("btn-first-incomplete").addEventListener("click", () => go(firstIncomplete()));
    $("import-file").addEventListener("change", (e) => {
      const file = e.target.files && e.target.files[0];
      if (!file) return;
      const reader = new FileReader();
      reader.onload = () => {
        importResponses(String(reader.result));
        e.target.value = "";
      };
      reader.readAsText(file);
    });
    document.addEventListener("keydown", onKey);
    // A quote or comment still being typed when the page is closed or hidden is kept.
    window.addEventListener("pagehide", () => card.commitOpenQuote());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") card.commitOpenQuote();
    });
  }

  function start() {
    const main = $("item");
    if (!ITEMS.length) {
      main.textContent = "This packet has no items.";
      document.documentElement.dataset.ready = "1";
      return;
    }
    card = new JC.Card(main, { onAction, onNavigate: go });
    wire();
    const restored = restore();
    current = firstIncomplete();
    if (!storageOk) {
      status = { kind: "error", text: "NOT saved: this browser refuses local storage. Download your responses often." };
    }
    show();
    const notice = $("notice");
    if (!storageOk) {
      notice.hidden = false;
      notice.textContent = "This browser does not allow saving here: download your responses before closing.";
    } else if (restored) {
      notice.hidden = false;
      notice.textContent = `Resumed ${restored} item draft(s) saved in this browser; ` +
        `showing the first incomplete item.`;
    }
    document.documentElement.dataset.ready = "1";
  }

  start();
})();
