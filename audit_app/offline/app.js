/*
 * The offline annotator packet (one self-contained HTML file).
 *
 * Same screen and gates as the app (audit_app/annotator): the information
 * need, the necessary-evidence rule, every condition's rubric and all its
 * candidate pages; yes/no per condition, checked by gates.js (the twin of
 * policies/gates.py). Every change is saved to localStorage at once; reopening
 * restores the drafts; an export in the docs/formats.md response format can be
 * imported again here or with `evaudit responses import`.
 */
(function () {
  "use strict";
  const TN = window.TextNorm;
  const G = window.Gates;
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
  const SHORTCUTS = [
    ["Y", "answer yes (condition last touched, else the first unanswered)"],
    ["N", "answer no"],
    ["Alt+N", "next item"],
    ["Alt+P", "previous item"],
    ["Alt+S", "save now (Ctrl+S too)"],
    ["Esc", "leave a text box so Y / N work again"],
  ];

  const itemIndex = new Map(ITEMS.map((it, i) => [it.item_id, i]));
  const pools = {}; // item_id -> {condition_key: {page_key: text}}
  for (const it of ITEMS) {
    pools[it.item_id] = {};
    for (const c of it.conditions) {
      pools[it.item_id][c.condition_key] = {};
      for (const p of c.pages) pools[it.item_id][c.condition_key][p.page_key] = p.text;
    }
  }
  const normCache = new Map(); // page_key -> TextNorm.normalizeWithMap(text), pages never change
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
  let activeCond = null; // condition key last touched in the current item
  let storageOk = true;

  const $ = (id) => document.getElementById(id);
  const blankCondition = () => ({ answer: null, pages: [], quotes: {} });

  function cleanCondition(obj) {
    const c = G.fromJson(obj);
    const quotes = {};
    for (const [k, v] of Object.entries(c.quotes)) {
      if (typeof v === "string" && v !== "") quotes[String(k)] = v;
    }
    return { answer: c.answer, pages: c.pages.map(String), quotes };
  }

  function cleanItem(itemId, obj) {
    const out = { conditions: {}, unclear: Boolean(obj && obj.unclear), comment: "" };
    if (obj && typeof obj.comment === "string") out.comment = obj.comment;
    const conds = (obj && obj.conditions) || {};
    for (const ckey of Object.keys(pools[itemId])) {
      out.conditions[ckey] = ckey in conds ? cleanCondition(conds[ckey]) : blankCondition();
    }
    return out;
  }

  function draft(itemId, create) {
    if (!drafts[itemId] && create) drafts[itemId] = cleanItem(itemId, null);
    return drafts[itemId] || null;
  }

  /**
   * Gate messages per condition. As in the app, only the selected pages' quotes are part of
   * the answer; text left in an unselected page's box is kept on screen but not judged.
   */
  function problems(itemId) {
    const d = drafts[itemId];
    const answers = {};
    for (const [ckey, c] of Object.entries(d ? d.conditions : {})) answers[ckey] = conditionJson(c);
    return G.checkItem(answers, pools[itemId], RULE, norms(itemId));
  }

  function isComplete(itemId) {
    if (!drafts[itemId]) return false;
    return Object.values(problems(itemId)).every((m) => m.length === 0);
  }

  function completeCount() {
    return ITEMS.filter((it) => isComplete(it.item_id)).length;
  }

  function firstIncomplete() {
    const i = ITEMS.findIndex((it) => !isComplete(it.item_id));
    return i < 0 ? 0 : i;
  }

  /** ConditionAnswer.to_json: quotes only for selected pages. */
  function conditionJson(c) {
    const quotes = {};
    for (const k of c.pages) if (Object.prototype.hasOwnProperty.call(c.quotes, k)) quotes[k] = c.quotes[k];
    return { answer: c.answer, pages: c.pages.slice(), quotes };
  }

  /** The export body of one item, as audit_app.session.record() writes it. */
  function itemJson(itemId) {
    const d = drafts[itemId];
    const conditions = {};
    for (const ckey of Object.keys(pools[itemId])) {
      conditions[ckey] = conditionJson(d.conditions[ckey] || blankCondition());
    }
    return { conditions, unclear: d.unclear, comment: d.comment, complete: isComplete(itemId) };
  }

  function isoNow() {
    return new Date().toISOString().replace("Z", "+00:00");
  }

  // ---- autosave ----------------------------------------------------------
  function save(flash) {
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
    const status = $("save-status");
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(doc));
      storageOk = true;
      status.textContent = `Saved in this browser at ${new Date().toLocaleTimeString()}`;
      status.className = flash ? "flash" : "";
      if (flash) setTimeout(() => (status.className = ""), 1200);
    } catch (err) {
      storageOk = false;
      status.textContent = "Autosave failed: this browser refuses local storage. Download your responses often.";
      status.className = "error";
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

  // ---- rendering ---------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const ch of children) if (ch !== null && ch !== undefined) node.append(ch);
    return node;
  }

  function listOrNone(values) {
    const vals = (values || []).filter((v) => String(v).trim() !== "");
    if (!vals.length) return el("dd", { text: "—" });
    return el("dd", {}, el("ul", {}, ...vals.map((v) => el("li", { text: v }))));
  }

  function pageLetter(key) {
    const parts = key.split("-");
    return parts[parts.length - 1];
  }

  function renderCondition(itemId, cond) {
    const ckey = cond.condition_key;
    const d = draft(itemId, false);
    const st = (d && d.conditions[ckey]) || blankCondition();
    const section = el("section", { class: "condition", "data-cond": ckey, id: `cond-${ckey}` });
    section.append(
      el("header", {},
        el("h3", { text: `${ckey} · ${cond.name || "Condition"}` }),
        el("span", { class: "badge", "data-role": "badge" }))
    );
    const rubric = el("dl", { class: "rubric" },
      el("dt", { text: "Requirement" }), el("dd", { text: cond.requirement || "—" }),
      el("dt", { text: "Counts" }), listOrNone(cond.counts),
      el("dt", { text: "Does not count" }), listOrNone(cond.does_not_count));
    if (cond.note && String(cond.note).trim()) {
      rubric.append(el("dt", { text: "Note" }), el("dd", { text: cond.note }));
    }
    section.append(rubric);
    const answer = el("div", { class: "answer", role: "radiogroup", "aria-label": `Answer for ${ckey}` });
    for (const value of G.ANSWERS) {
      const input = el("input", {
        type: "radio", name: `answer-${ckey}`, value, "data-cond": ckey,
        id: `answer-${ckey}-${value}`, checked: st.answer === value,
      });
      answer.append(el("label", { for: `answer-${ckey}-${value}` }, input, ` ${value}`));
    }
    answer.append(el("button", { type: "button", class: "clear-cond", "data-cond": ckey,
      text: "Clear pages and quotes" }));
    section.append(answer, el("ul", { class: "messages", "data-role": "messages" }));
    const pagesBox = el("div", { class: "pages" });
    for (const page of cond.pages) {
      const key = page.page_key;
      const selected = st.pages.includes(key);
      const box = el("article", { class: "page", "data-page": key });
      const check = el("input", { type: "checkbox", class: "select-page", "data-cond": ckey,
        "data-page": key, id: `sel-${key}`, checked: selected });
      box.append(
        el("header", {},
          el("strong", { text: `Page ${pageLetter(key)}` }),
          el("span", { class: "page-key", text: key }),
          el("label", { for: `sel-${key}` }, check, " use this page as evidence")),
        el("div", { class: "page-text", "data-role": "text", "data-page": key, tabindex: "0" }),
        el("label", { class: "quote-label", for: `quote-${key}`, text: "Verbatim quote from this page" }),
        el("textarea", { class: "quote", id: `quote-${key}`, "data-cond": ckey, "data-page": key,
          rows: "2", spellcheck: "false" }),
        el("p", { class: "quote-found", "data-role": "found", "data-page": key })
      );
      box.querySelector("textarea").value = st.quotes[key] || "";
      pagesBox.append(box);
    }
    section.append(pagesBox);
    return section;
  }

  function renderItem() {
    const item = ITEMS[current];
    const main = $("item");
    main.replaceChildren();
    if (!item) {
      main.append(el("section", { text: "This packet has no items." }));
      refresh();
      return;
    }
    const d = draft(item.item_id, false);
    main.append(
      el("section", { class: "need" }, el("h2", { text: `Information need (item ${item.item_id})` }),
        el("p", { id: "information-need", text: item.information_need })),
      el("section", { class: "rule" }, el("h2", { text: "Necessary-evidence rule" }),
        el("p", { id: "rule", text: PACKET.rule || "" }),
        el("p", { class: "quote-rule", text:
          `A yes needs at least one selected page and, per selected page, a verbatim quote of at ` +
          `least ${RULE.min_words} words and ${RULE.min_chars} characters found on that page. ` +
          `A no carries no page and no quote.` }))
    );
    for (const cond of item.conditions) main.append(renderCondition(item.item_id, cond));
    const unclear = el("input", { type: "checkbox", id: "unclear", checked: Boolean(d && d.unclear) });
    const comment = el("textarea", { id: "comment", rows: "2" });
    comment.value = (d && d.comment) || "";
    main.append(
      el("section", { class: "unclear" },
        el("label", { for: "unclear" }, unclear, " The information need is unclear"),
        el("label", { class: "quote-label", for: "comment", text: "Comment (optional)" }), comment),
      el("section", {}, el("p", { id: "item-status", class: "item-status" }))
    );
    if (!activeCond || !pools[item.item_id][activeCond]) activeCond = null;
    refresh();
  }

  function renderPageText(node, text, quote) {
    const norm = normCache.get(node.dataset.page);
    const span = quote && G.pyStrip(quote) ? TN.findQuote(quote, text, norm) : null;
    const key = span ? `${span[0]}:${span[1]}` : "";
    if (node.dataset.span === key && node.childNodes.length) return Boolean(span);
    node.dataset.span = key;
    if (!span) {
      node.textContent = text;
      return false;
    }
    const a = TN.utf16Offset(text, span[0]);
    const b = TN.utf16Offset(text, span[1]);
    node.replaceChildren(text.slice(0, a), el("mark", { text: text.slice(a, b) }), text.slice(b));
    return true;
  }

  /** Update everything that depends on the answers, without rebuilding the inputs. */
  function refresh() {
    const total = ITEMS.length;
    const done = completeCount();
    $("progress").max = Math.max(total, 1);
    $("progress").value = done;
    $("progress-text").textContent = `${done} / ${total} complete`;
    $("position").textContent = total ? `${current + 1} of ${total}` : "";
    const select = $("item-select");
    if (select.options.length !== total) {
      select.replaceChildren(...ITEMS.map((it, i) => el("option", { value: String(i) })));
    }
    ITEMS.forEach((it, i) => {
      const mark = isComplete(it.item_id) ? "✓" : drafts[it.item_id] ? "…" : "";
      select.options[i].textContent = `${it.item_id} ${mark}`.trim();
    });
    select.value = String(current);
    const item = ITEMS[current];
    if (!item) return;
    const probs = problems(item.item_id);
    const d = draft(item.item_id, false);
    let failing = 0;
    for (const section of document.querySelectorAll("#item .condition")) {
      const ckey = section.dataset.cond;
      const msgs = probs[ckey] || [];
      if (msgs.length) failing += 1;
      section.classList.toggle("active", ckey === activeCond);
      const badge = section.querySelector("[data-role=badge]");
      badge.textContent = msgs.length ? "needs attention" : "passes";
      badge.className = `badge ${msgs.length ? "fail" : "pass"}`;
      section.querySelector("[data-role=messages]")
        .replaceChildren(...msgs.map((m) => el("li", { text: m })));
      const st = (d && d.conditions[ckey]) || blankCondition();
      for (const box of section.querySelectorAll(".page")) {
        const key = box.dataset.page;
        box.classList.toggle("selected", st.pages.includes(key));
        const found = renderPageText(box.querySelector("[data-role=text]"),
          pools[item.item_id][ckey][key], st.quotes[key] || "");
        box.querySelector("[data-role=found]").textContent = found ? "Quote found on this page (highlighted)." : "";
      }
    }
    const status = $("item-status");
    const complete = failing === 0 && Boolean(d);
    status.textContent = complete
      ? "Item complete: every condition passes."
      : `Item incomplete: ${failing || item.conditions.length} of ${item.conditions.length} conditions need attention.`;
    status.className = `item-status ${complete ? "complete" : "incomplete"}`;
  }

  // ---- changes -----------------------------------------------------------
  function commit() {
    save(false);
    refresh();
  }

  function setAnswer(ckey, value) {
    const d = draft(ITEMS[current].item_id, true);
    d.conditions[ckey].answer = value;
    activeCond = ckey;
    for (const input of document.querySelectorAll(`input[name="answer-${ckey}"]`)) {
      input.checked = input.value === value;
    }
    commit();
  }

  function togglePage(ckey, key, on) {
    const itemId = ITEMS[current].item_id;
    const c = draft(itemId, true).conditions[ckey];
    const poolKeys = Object.keys(pools[itemId][ckey]);
    const selected = new Set(c.pages);
    if (on) selected.add(key);
    else selected.delete(key);
    // Display order for pool pages; anything else an import brought keeps its place at the end.
    c.pages = poolKeys.filter((k) => selected.has(k)).concat(c.pages.filter((k) => !poolKeys.includes(k)));
    activeCond = ckey;
    commit();
  }

  function setQuote(ckey, key, text) {
    const c = draft(ITEMS[current].item_id, true).conditions[ckey];
    if (text === "") delete c.quotes[key];
    else c.quotes[key] = text;
    if (G.pyStrip(text) !== "" && !c.pages.includes(key)) {
      // Typing a quote selects its page, as in the app (unchecking it later is still possible).
      const box = document.querySelector(`input.select-page[data-page="${key}"]`);
      if (box) box.checked = true;
      togglePage(ckey, key, true);
      return;
    }
    activeCond = ckey;
    commit();
  }

  function clearCondition(ckey) {
    const c = draft(ITEMS[current].item_id, true).conditions[ckey];
    c.pages = [];
    c.quotes = {};
    activeCond = ckey;
    save(false);
    renderItem();
  }

  function go(index) {
    // Always live, clamped to the packet (as audit_app.session.step).
    current = Math.max(0, Math.min(ITEMS.length - 1, index));
    activeCond = null;
    save(false);
    renderItem();
    window.scrollTo(0, 0);
  }

  function keyTarget() {
    const item = ITEMS[current];
    if (!item) return null;
    if (activeCond && pools[item.item_id][activeCond]) return activeCond;
    const d = draft(item.item_id, false);
    for (const c of item.conditions) {
      const st = d && d.conditions[c.condition_key];
      if (!st || st.answer === null) return c.condition_key;
    }
    return null;
  }

  function typing(t) {
    if (!t || !t.tagName) return false;
    const tag = t.tagName.toLowerCase();
    if (tag === "textarea" || t.isContentEditable || tag === "select") return true;
    return tag === "input" && !["radio", "checkbox", "button"].includes(t.type);
  }

  function onKey(e) {
    const code = e.code || "";
    if (e.altKey && !e.ctrlKey && !e.metaKey) {
      if (code === "KeyN") { e.preventDefault(); go(current + 1); return; }
      if (code === "KeyP") { e.preventDefault(); go(current - 1); return; }
      if (code === "KeyS") { e.preventDefault(); save(true); return; }
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && code === "KeyS") {
      e.preventDefault();
      save(true);
      return;
    }
    if (e.key === "Escape" && typing(e.target)) {
      e.target.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    const k = (e.key || "").toLowerCase();
    if (k !== "y" && k !== "n") return;
    const ckey = keyTarget();
    if (!ckey) return;
    e.preventDefault();
    setAnswer(ckey, k === "y" ? "yes" : "no");
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
      for (const [ckey, c] of Object.entries(body.conditions)) {
        for (const [key, quote] of Object.entries(c.quotes)) {
          const text = pools[itemId][ckey][key];
          if (text !== undefined && G.pyStrip(quote) && !TN.quoteInPage(quote, text, normCache.get(key))) {
            out.push(`${itemId} ${ckey}: the quote for ${key} is not on that page`);
          }
        }
      }
    }
    return out;
  }

  function exportResponses() {
    const doc = buildExport();
    const text = JSON.stringify(doc, null, 2) + "\n";
    const blob = new Blob([text], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: `${PACKET.packet_id}-${ANNOTATOR}-responses.json` });
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
    const status = $("export-status");
    status.textContent = lines.join("\n");
    status.className = blockers.length ? "status-error" : "status-ok";
  }

  function importResponses(text) {
    const status = $("import-status");
    const fail = (msg) => {
      status.textContent = msg;
      status.className = "status-error";
    };
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
    save(false);
    current = firstIncomplete();
    activeCond = null;
    renderItem();
    status.textContent = `Imported ${count} item(s); ${completeCount()} of ${ITEMS.length} complete.` +
      (skipped.length ? `\nSkipped: ${skipped.join("; ")}` : "");
    status.className = skipped.length ? "status-error" : "status-ok";
  }

  // ---- wiring ------------------------------------------------------------
  function wire() {
    const main = $("item");
    main.addEventListener("change", (e) => {
      const t = e.target;
      if (t.type === "radio" && t.dataset.cond) setAnswer(t.dataset.cond, t.value);
      else if (t.classList.contains("select-page")) togglePage(t.dataset.cond, t.dataset.page, t.checked);
      else if (t.id === "unclear") {
        draft(ITEMS[current].item_id, true).unclear = t.checked;
        commit();
      }
    });
    main.addEventListener("input", (e) => {
      const t = e.target;
      if (t.classList.contains("quote")) setQuote(t.dataset.cond, t.dataset.page, t.value);
      else if (t.id === "comment") {
        draft(ITEMS[current].item_id, true).comment = t.value;
        commit();
      }
    });
    main.addEventListener("click", (e) => {
      const t = e.target;
      if (t.classList && t.classList.contains("clear-cond")) clearCondition(t.dataset.cond);
      else markActive(t);
    });
    main.addEventListener("focusin", (e) => markActive(e.target));
  }

  /** The condition clicked or focused last is the one Y / N answer. */
  function markActive(target) {
    const section = target && target.closest ? target.closest(".condition") : null;
    if (!section || section.dataset.cond === activeCond) return;
    activeCond = section.dataset.cond;
    for (const s of document.querySelectorAll("#item .condition")) {
      s.classList.toggle("active", s.dataset.cond === activeCond);
    }
  }

  function wireControls() {
    $("btn-prev").addEventListener("click", () => go(current - 1));
    $("btn-next").addEventListener("click", () => go(current + 1));
    $("btn-first-incomplete").addEventListener("click", () => go(firstIncomplete()));
    $("btn-save").addEventListener("click", () => save(true));
    $("item-select").addEventListener("change", (e) => go(Number(e.target.value)));
    $("btn-export").addEventListener("click", exportResponses);
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
    document.addEventListener("keydown", onKey, true);
    $("shortcuts").replaceChildren(
      ...SHORTCUTS.flatMap(([k, what]) => [el("dt", {}, el("kbd", { text: k })), el("dd", { text: what })])
    );
  }

  function start() {
    wire();
    wireControls();
    const restored = restore();
    current = firstIncomplete();
    renderItem();
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
