/*
 * card.js: the judging card, one piece of front-end code for both hosts.
 *
 * The Streamlit app (audit_app/annotator/component.py wraps it in a
 * st.components.v2 component) and the offline HTML packet (audit_app/offline/
 * app.js) mount the same card. The card owns nothing durable: it draws the
 * state its host hands it (`show`) and reports each user action (`onAction`)
 * as one small operation, never a whole screen of widget values. The host
 * applies the action with `reduce` (audit_app/actions.py is its Python twin,
 * held to the same results by tests/test_card_actions.py), saves it, and shows
 * the result. So what is on screen is always "saved state + actions not yet
 * confirmed", and navigation, reload or a second tab can never put stale
 * widget values into a save.
 *
 * Untrusted text (need, rubric, page text, quotes, comments) only ever enters
 * the DOM through textContent / value: never as HTML, Markdown or a link.
 *
 * Works inlined after textnorm.js and gates.js (defines globalThis.JudgeCard)
 * and under Node (reduce only).
 */
(function (root) {
  "use strict";
  const node = typeof module !== "undefined" && module.exports;
  const TN = node ? require("./textnorm.js") : root.TextNorm;
  const G = node ? require("./gates.js") : root.Gates;

  // ---- state and actions (pure; twin of audit_app/actions.py) -------------
  const OPS = ["answer", "select", "quote", "clear", "unclear", "comment"];
  const blankCondition = () => ({ answer: null, pages: [], quotes: {} });
  const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

  /** item: {conditions: [{condition_key, pages: [page_key, ...]}]} (page objects allowed). */
  function poolKeys(item, ckey) {
    for (const c of item.conditions) {
      if (c.condition_key === ckey) return c.pages.map((p) => (typeof p === "string" ? p : p.page_key));
    }
    return null;
  }

  function blankState(item) {
    const conditions = {};
    for (const c of item.conditions) conditions[c.condition_key] = blankCondition();
    return { conditions, unclear: false, comment: "" };
  }

  /** A clean copy of a saved state: every condition of the item present. */
  function normalState(item, state) {
    const out = blankState(item);
    if (!state) return out;
    out.unclear = Boolean(state.unclear);
    out.comment = typeof state.comment === "string" ? state.comment : "";
    const conds = state.conditions || {};
    for (const ckey of Object.keys(out.conditions)) {
      if (!has(conds, ckey)) continue;
      const c = G.fromJson(conds[ckey]);
      const quotes = {};
      for (const [k, v] of Object.entries(c.quotes)) if (typeof v === "string") quotes[k] = v;
      out.conditions[ckey] = { answer: c.answer, pages: c.pages.map(String), quotes };
    }
    return out;
  }

  /** Why an action cannot apply to this item, or null. */
  function invalid(item, action) {
    if (!action || !OPS.includes(action.op)) return `unknown action ${JSON.stringify(action && action.op)}`;
    if (action.op === "unclear") return typeof action.on === "boolean" ? null : "unclear needs on: true/false";
    if (action.op === "comment") return typeof action.text === "string" ? null : "comment needs text";
    const pool = poolKeys(item, action.cond);
    if (pool === null) return `no condition ${JSON.stringify(action.cond)} in this item`;
    if (action.op === "answer") {
      return action.value === null || G.ANSWERS.includes(action.value) ? null : "answer must be yes, no or null";
    }
    if (action.op === "clear") return null;
    if (!pool.includes(action.page)) return `page ${JSON.stringify(action.page)} is not in this condition's pool`;
    if (action.op === "select") return typeof action.on === "boolean" ? null : "select needs on: true/false";
    return typeof action.text === "string" ? null : "quote needs text";
  }

  function selectPage(item, c, ckey, page, on) {
    const pool = poolKeys(item, ckey);
    const chosen = new Set(c.pages);
    if (on) chosen.add(page);
    else chosen.delete(page);
    // Pool order; a page outside the pool (an old import) keeps its place at the end.
    c.pages = pool.filter((k) => chosen.has(k)).concat(c.pages.filter((k) => !pool.includes(k) && chosen.has(k)));
    if (!on) delete c.quotes[page]; // unticking a page drops its quote
  }

  /**
   * The state after one action (a new object; `state` is not changed). Every action sets
   * parts of the state to values that do not depend on what was there, so applying the
   * same run of actions twice gives the same state as applying it once: a host may replay
   * unconfirmed actions after a reconnect without doubling anything.
   */
  function reduce(item, state, action) {
    const why = invalid(item, action);
    if (why) throw new Error(why);
    const s = normalState(item, state);
    if (action.op === "unclear") {
      s.unclear = action.on;
      return s;
    }
    if (action.op === "comment") {
      s.comment = action.text;
      return s;
    }
    const c = s.conditions[action.cond];
    if (action.op === "answer") c.answer = action.value;
    else if (action.op === "clear") s.conditions[action.cond] = blankCondition();
    else if (action.op === "select") selectPage(item, c, action.cond, action.page, action.on);
    else if (action.op === "quote") {
      if (action.text === "") delete c.quotes[action.page];
      else c.quotes[action.page] = action.text;
      if (G.pyStrip(action.text) !== "" && !c.pages.includes(action.page)) {
        selectPage(item, c, action.cond, action.page, true); // a quote selects its page
      }
    }
    return s;
  }

  /**
   * A packet item in the card's shape (audit_app/session.py Packet.card_items is the
   * server's twin): conditions list their page keys; a text in several pools is kept once.
   */
  function cardItem(raw) {
    const texts = [];
    const where = new Map();
    const pages = {};
    const conditions = raw.conditions.map((c) => {
      const keys = c.pages.map((p) => {
        const text = String(p.text);
        if (!where.has(text)) {
          where.set(text, texts.length);
          texts.push(text);
        }
        pages[String(p.page_key)] = where.get(text);
        return String(p.page_key);
      });
      return {
        condition_key: String(c.condition_key), name: String(c.name || ""),
        requirement: String(c.requirement || ""), counts: (c.counts || []).map(String),
        does_not_count: (c.does_not_count || []).map(String), note: String(c.note || ""), pages: keys,
      };
    });
    return { item_id: String(raw.item_id), information_need: String(raw.information_need || ""),
      conditions, pages, texts };
  }

  // ---- DOM helpers --------------------------------------------------------
  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") n.className = v;
      else if (k === "text") n.textContent = v;
      else n.setAttribute(k, v === true ? "" : v);
    }
    for (const ch of children) if (ch !== null && ch !== undefined) n.append(ch);
    return n;
  }

  const pageLetter = (key) => key.split("-").pop();

  function typing(t) {
    if (!t || !t.tagName) return false;
    const tag = t.tagName.toLowerCase();
    if (tag === "textarea" || t.isContentEditable) return true;
    return tag === "input" && !["radio", "checkbox", "button", "submit", "range", "color", "file"].includes(t.type);
  }

  /** Space on a checkbox, button or select does what it does there (toggle, press, open). */
  function nativeSpace(t) {
    if (!t || !t.tagName) return false;
    const tag = t.tagName.toLowerCase();
    return tag === "button" || tag === "select" || (tag === "input" && ["checkbox", "radio"].includes(t.type));
  }

  /** Bullets that every condition of the item lists (shown once), per field. */
  function sharedBullets(item, field) {
    const conds = item.conditions;
    if (conds.length < 2) return new Set();
    const first = new Set((conds[0][field] || []).map(String));
    for (const c of conds.slice(1)) {
      const mine = new Set((c[field] || []).map(String));
      for (const b of Array.from(first)) if (!mine.has(b)) first.delete(b);
    }
    return first;
  }

  const SHORTCUTS = [
    ["Y / N", "answer yes / no for the current condition"],
    ["J / K, ↓ / ↑", "next / previous page or condition"],
    ["← / →, 1–9", "previous / next condition, condition by number"],
    ["Space", "use the current page as evidence (again: stop using it)"],
    ["Q", "type a quote for the current page (Enter keeps it)"],
    ["Esc", "leave a text box"],
    ["Alt+N / Alt+P", "next / previous item"],
  ];

  // ---- the card -----------------------------------------------------------
  /**
   * host: {onAction(action), onNavigate(index), onImage?(pageKey) , keyTarget?: Document}
   * view (show): {item, state, rule, quoteRule, index, total, items: [{id, done, started}],
   *   status: {kind: "idle"|"pending"|"saved"|"error", text}, images: bool,
   *   image: {page, src} | null, heading}
   */
  function Card(mount, host) {
    this.host = host;
    this.root = el("div", { class: "jc", tabindex: "-1" });
    mount.append(this.root);
    this.itemId = null;
    this.ci = 0; // current condition
    this.pi = -1; // current page of that condition (-1: none yet)
    this.view = null;
    this.norms = new Map(); // page_key -> normalized text with offsets (pages never change)
    this.navTarget = null;
    this.onKey = this.onKey.bind(this);
    const doc = host.keyTarget || document;
    if (doc.__judgeCardKeys) doc.removeEventListener("keydown", doc.__judgeCardKeys, true);
    doc.__judgeCardKeys = this.onKey;
    doc.addEventListener("keydown", this.onKey, true);
    this.root.addEventListener("click", (e) => this.onClick(e));
    this.root.addEventListener("change", (e) => this.onChange(e));
  }

  Card.prototype.destroy = function () {
    const doc = this.host.keyTarget || document;
    doc.removeEventListener("keydown", this.onKey, true);
    if (doc.__judgeCardKeys === this.onKey) delete doc.__judgeCardKeys;
  };

  Card.prototype.cond = function () {
    return this.view.item.conditions[this.ci];
  };

  Card.prototype.pageKeys = function () {
    return this.cond().pages.map((p) => (typeof p === "string" ? p : p.page_key));
  };

  Card.prototype.text = function (pkey) {
    return this.view.item.texts[this.view.item.pages[pkey]];
  };

  Card.prototype.pools = function () {
    const out = {};
    for (const c of this.view.item.conditions) {
      out[c.condition_key] = {};
      for (const k of c.pages) out[c.condition_key][k] = this.text(k);
    }
    return out;
  };

  Card.prototype.normOf = function (pkey) {
    if (!this.norms.has(pkey)) this.norms.set(pkey, TN.normalizeWithMap(this.text(pkey)));
    return this.norms.get(pkey);
  };

  Card.prototype.problems = function () {
    const norms = {};
    for (const k of Object.keys(this.view.item.pages)) norms[k] = this.normOf(k);
    return G.checkItem(this.view.state.conditions, this.pools(), this.view.quoteRule, norms);
  };

  Card.prototype.show = function (view) {
    const fresh = !this.view || view.item.item_id !== this.itemId;
    this.view = Object.assign({}, view, { state: normalState(view.item, view.state) });
    if (fresh) {
      this.itemId = view.item.item_id;
      this.norms = new Map();
      this.navTarget = null;
      this.ci = this.firstOpen();
      this.pi = -1;
      this.build();
    } else {
      this.updateNav();
    }
    this.refresh();
  };

  Card.prototype.firstOpen = function () {
    const conds = this.view.item.conditions;
    const i = conds.findIndex((c) => this.view.state.conditions[c.condition_key].answer === null);
    return i < 0 ? 0 : i;
  };

  Card.prototype.build = function () {
    const v = this.view;
    const item = v.item;
    this.removing(() => this.root.replaceChildren());
    this.nav = el("div", { class: "jc-nav" });
    this.root.append(this.nav);
    this.buildNav();
    const left = el("div", { class: "jc-left" });
    const right = el("div", { class: "jc-right", "aria-label": "Candidate pages" });
    this.root.append(el("div", { class: "jc-body" }, left, right));
    left.append(
      el("section", { class: "jc-need" },
        el("h2", { text: `Information need · item ${item.item_id} (${v.index + 1} of ${v.total})` }),
        el("p", { class: "jc-need-text", "data-role": "need", text: item.information_need })),
    );
    const rule = el("details", { class: "jc-rule" },
      el("summary", { text: `Rule: yes only if a displayed page itself establishes the requirement; ` +
        `a yes needs a selected page and a verbatim quote (≥ ${v.quoteRule.min_words} words, ` +
        `≥ ${v.quoteRule.min_chars} characters) per page.` }),
      el("p", { "data-role": "rule", text: v.rule || "" }));
    this.tabs = el("div", { class: "jc-tabs", role: "tablist", "aria-label": "Conditions" });
    this.condBox = el("section", { class: "jc-cond" });
    const shared = { counts: sharedBullets(item, "counts"), does_not_count: sharedBullets(item, "does_not_count") };
    this.shared = shared;
    const sharedBox = el("details", { class: "jc-shared" });
    const nShared = shared.counts.size + shared.does_not_count.size;
    if (nShared) {
      sharedBox.append(el("summary", { text: `For every condition of this item (${nShared})` }));
      if (shared.counts.size) sharedBox.append(el("p", { text: "Counts:" }), this.list(shared.counts));
      if (shared.does_not_count.size) sharedBox.append(el("p", { text: "Does not count:" }), this.list(shared.does_not_count));
    }
    const st = v.state;
    this.unclear = el("input", { type: "checkbox", class: "jc-unclear", id: "jc-unclear" });
    this.unclear.checked = st.unclear;
    this.comment = el("textarea", { class: "jc-comment", rows: "2", "aria-label": "Comment", spellcheck: "false" });
    this.comment.value = st.comment;
    left.append(
      rule,
      this.tabs,
      this.condBox,
      nShared ? sharedBox : "",
      el("section", { class: "jc-itemflags" },
        el("label", { for: "jc-unclear" }, this.unclear, " Information need unclear"),
        el("label", { class: "jc-small", text: "Comment (why is it unclear?)" }), this.comment),
      el("details", { class: "jc-keys", open: true },
        el("summary", { text: "Keyboard" }),
        el("dl", {}, ...SHORTCUTS.flatMap(([k, what]) => [el("dt", {}, el("kbd", { text: k })), el("dd", { text: what })]))),
    );
    this.pagesBox = right;
    this.buildCondition();
  };

  Card.prototype.list = function (values) {
    return el("ul", {}, ...Array.from(values).map((b) => el("li", { text: b })));
  };

  Card.prototype.buildNav = function () {
    const v = this.view;
    this.goto = el("select", { class: "jc-goto", "aria-label": "Go to item" });
    for (const [i, it] of (v.items || []).entries()) {
      this.goto.append(el("option", { value: String(i) }));
      void it;
    }
    this.progress = el("progress", { max: String(Math.max(v.total, 1)) });
    this.progressText = el("span", { class: "jc-progress-text" });
    this.status = el("span", { class: "jc-status", role: "status", "aria-live": "polite" });
    this.nav.replaceChildren(
      el("button", { type: "button", class: "jc-prev", "data-act": "prev", title: "Previous item (Alt+P)", text: "◀ Previous" }),
      this.goto,
      el("button", { type: "button", class: "jc-next", "data-act": "next", title: "Next item (Alt+N)", text: "Next ▶" }),
      el("span", { class: "jc-progress" }, this.progress, this.progressText),
      this.status,
      v.heading ? el("span", { class: "jc-heading", text: v.heading }) : "",
    );
    this.updateNav();
  };

  Card.prototype.updateNav = function () {
    const v = this.view;
    const items = v.items || [];
    if (this.goto.options.length !== items.length) return this.buildNav();
    items.forEach((it, i) => {
      this.goto.options[i].textContent = `${it.done ? "✓" : it.started ? "…" : "·"} ${it.id}`;
    });
    this.goto.value = String(v.index);
    const done = items.filter((it) => it.done).length;
    this.progress.max = Math.max(v.total, 1);
    this.progress.value = done;
    this.progressText.textContent = `${done} / ${v.total} items complete`;
    const s = v.status || { kind: "idle", text: "" };
    this.status.textContent = s.text || "";
    this.status.className = `jc-status jc-${s.kind}`;
    this.status.setAttribute("role", s.kind === "error" ? "alert" : "status");
    return undefined;
  };

  Card.prototype.buildCondition = function () {
    const cond = this.cond();
    const ckey = cond.condition_key;
    const mine = (field) => (cond[field] || []).map(String).filter((b) => !this.shared[field].has(b));
    const counts = mine("counts");
    const notCounts = mine("does_not_count");
    const more = el("details", { class: "jc-more" });
    const nMore = counts.length + notCounts.length + (cond.note ? 1 : 0);
    more.append(el("summary", { text: `Counts, does not count, note (${nMore})` }));
    if (counts.length) more.append(el("p", { text: "Counts:" }), this.list(counts));
    if (notCounts.length) more.append(el("p", { text: "Does not count:" }), this.list(notCounts));
    if (cond.note) more.append(el("p", { text: `Note: ${cond.note}` }));
    this.answerBox = el("div", { class: "jc-answer", role: "radiogroup", "aria-label": `Answer for ${ckey}` },
      ...G.ANSWERS.map((value) => el("button", { type: "button", role: "radio", class: `jc-ans jc-${value}`,
        "data-value": value, "aria-checked": "false" }, `${value === "yes" ? "Yes" : "No"} `, el("kbd", { text: value === "yes" ? "Y" : "N" }))),
      el("button", { type: "button", class: "jc-clear", "data-act": "clear", text: "Clear this condition" }));
    this.msgs = el("ul", { class: "jc-msgs" });
    this.condBox.replaceChildren(
      el("h3", {}, el("span", { class: "jc-ckey", text: ckey }), ` · ${cond.name || "Condition"}`),
      el("p", { class: "jc-req" }, el("span", { class: "jc-label", text: "Requirement. " }), el("span", { "data-role": "requirement", text: cond.requirement || "" })),
      nMore ? more : "",
      this.answerBox,
      this.msgs,
    );
    this.tabs.replaceChildren(...this.view.item.conditions.map((c, i) =>
      el("button", { type: "button", role: "tab", class: "jc-tab", "data-index": String(i), "data-cond": c.condition_key,
        "aria-selected": i === this.ci ? "true" : "false" },
      `${i + 1} · ${c.condition_key} `, el("span", { class: "jc-badge" }))));
    // The same page text in another condition's pool: named here, with its selection there.
    const item = this.view.item;
    const others = (pkey) => {
      const out = [];
      for (const c of item.conditions) {
        if (c.condition_key === ckey) continue;
        const twin = c.pages.find((k) => item.pages[k] === item.pages[pkey]);
        if (twin === undefined) continue;
        const used = this.view.state.conditions[c.condition_key].pages.includes(twin);
        out.push(`${c.condition_key}${used ? " (selected there)" : ""}`);
      }
      return out;
    };
    this.pageEls = this.pageKeys().map((pkey, i) => {
      const sel = el("input", { type: "checkbox", class: "jc-sel", id: `jc-sel-${i}`, "data-page": pkey });
      const quote = el("textarea", { class: "jc-quote", rows: "2", spellcheck: "false", "data-page": pkey,
        "aria-label": `Quote from page ${pageLetter(pkey)} (${pkey})` });
      const also = others(pkey);
      const imgBtn = this.view.images
        ? el("button", { type: "button", class: "jc-img", "data-page": pkey, text: "Page image" }) : null;
      const box = el("article", { class: "jc-page", "data-page": pkey, tabindex: "-1" },
        el("header", {},
          el("label", { for: `jc-sel-${i}` }, sel, ` Page ${pageLetter(pkey)} · use as evidence for ${ckey}`),
          el("span", { class: "jc-pkey", text: pkey }),
          also.length ? el("span", { class: "jc-also", text: `also in the pool of ${also.join(", ")}` }) : null,
          imgBtn),
        el("div", { class: "jc-text", "data-role": "text", "data-page": pkey }),
        el("div", { class: "jc-quote-row" }, quote),
        el("p", { class: "jc-found", "data-role": "found" }),
        el("div", { class: "jc-image", "data-role": "image" }));
      return { pkey, box, sel, quote, text: box.querySelector(".jc-text"), found: box.querySelector(".jc-found"),
        image: box.querySelector(".jc-image") };
    });
    this.removing(() => this.pagesBox.replaceChildren(
      el("h3", { class: "jc-pages-head", text: this.pageEls.length
        ? `Candidate pages for ${ckey} (${this.pageEls.length})` : `No candidate pages for ${ckey}` }),
      ...this.pageEls.map((p) => p.box)));
    if (this.pi >= this.pageEls.length) this.pi = this.pageEls.length - 1;
  };

  Card.prototype.refresh = function () {
    const v = this.view;
    const probs = this.problems();
    const conds = v.item.conditions;
    for (const tab of this.tabs.children) {
      const c = conds[Number(tab.dataset.index)];
      const st = v.state.conditions[c.condition_key];
      const bad = probs[c.condition_key].length > 0;
      const touched = st.answer !== null || st.pages.length > 0;
      const badge = tab.querySelector(".jc-badge");
      badge.textContent = !touched ? "open" : bad ? "needs attention" : `passes (${st.answer})`;
      tab.className = `jc-tab ${!touched ? "is-open" : bad ? "is-bad" : "is-ok"}${Number(tab.dataset.index) === this.ci ? " is-current" : ""}`;
      tab.setAttribute("aria-selected", Number(tab.dataset.index) === this.ci ? "true" : "false");
    }
    const ckey = this.cond().condition_key;
    const st = v.state.conditions[ckey];
    for (const b of this.answerBox.querySelectorAll(".jc-ans")) {
      const on = b.dataset.value === st.answer;
      b.setAttribute("aria-checked", on ? "true" : "false");
      b.classList.toggle("is-on", on);
    }
    const touched = st.answer !== null || st.pages.length > 0 || Object.keys(st.quotes).length > 0;
    const msgs = touched ? probs[ckey] : [];
    this.msgs.replaceChildren(...msgs.map((m) => el("li", { text: m })));
    this.msgs.hidden = msgs.length === 0;
    for (const [i, p] of this.pageEls.entries()) {
      const selected = st.pages.includes(p.pkey);
      p.sel.checked = selected;
      const q = has(st.quotes, p.pkey) ? st.quotes[p.pkey] : "";
      if (document.activeElement !== p.quote && p.quote.getRootNode().activeElement !== p.quote) p.quote.value = q;
      p.box.classList.toggle("is-selected", selected);
      p.box.classList.toggle("is-current", i === this.pi);
      const matched = this.drawText(p, selected ? q : "");
      p.found.textContent = matched ? `Quote matched on page ${pageLetter(p.pkey)} (highlighted).`
        : selected && G.pyStrip(q) !== "" ? `Quote not found on page ${pageLetter(p.pkey)}.` : "";
      p.found.className = `jc-found ${matched ? "is-ok" : q ? "is-bad" : ""}`;
      const img = v.image && v.image.page === p.pkey ? v.image : null;
      if (!img) p.image.replaceChildren();
      else if (!img.src) p.image.replaceChildren(el("p", { class: "jc-small", text: "No page image is available for this page." }));
      else if (!p.image.firstChild || p.image.firstChild.getAttribute("src") !== img.src) {
        p.image.replaceChildren(el("img", { src: img.src, alt: `Page ${pageLetter(p.pkey)} image` }));
      }
    }
    if (this.unclear.checked !== v.state.unclear) this.unclear.checked = v.state.unclear;
    if (this.comment.getRootNode().activeElement !== this.comment) this.comment.value = v.state.comment;
    this.updateNav();
  };

  /** Page text with the matched quote in <mark>; true when the quote was found. */
  Card.prototype.drawText = function (p, quote) {
    const text = this.text(p.pkey);
    const span = quote && G.pyStrip(quote) ? TN.findQuote(quote, text, this.normOf(p.pkey)) : null;
    const key = span ? `${span[0]}:${span[1]}` : "-";
    if (p.text.dataset.span === key) return Boolean(span);
    p.text.dataset.span = key;
    if (!span) {
      p.text.textContent = text;
      return false;
    }
    const a = TN.utf16Offset(text, span[0]);
    const b = TN.utf16Offset(text, span[1]);
    const mark = el("mark", { text: text.slice(a, b) });
    p.text.replaceChildren(text.slice(0, a), mark, text.slice(b));
    // Bring the match into the text box's view (the box scrolls, not the window).
    p.text.scrollTop = Math.max(0, mark.offsetTop - 48);
    return true;
  };

  // ---- user actions -------------------------------------------------------
  Card.prototype.act = function (action) {
    action.item = this.itemId;
    const next = reduce(this.view.item, this.view.state, action);
    this.view.state = next; // drawn at once; the host confirms or reverts
    this.host.onAction(action);
    this.refresh();
  };

  Card.prototype.setCondition = function (i, pi) {
    const n = this.view.item.conditions.length;
    if (i < 0 || i >= n) return;
    this.commitOpenQuote();
    this.ci = i;
    this.pi = pi === undefined ? -1 : pi;
    this.buildCondition();
    this.refresh();
    this.focusCurrent();
  };

  Card.prototype.setPage = function (pi) {
    this.pi = pi;
    this.refresh();
    this.focusCurrent();
  };

  Card.prototype.focusCurrent = function () {
    const p = this.pageEls[this.pi];
    const target = p ? p.box : this.root;
    target.focus({ preventScroll: true });
    if (p) p.box.scrollIntoView({ block: "nearest" });
  };

  /** J / K: one step through C1, its pages, C2, its pages, ... */
  Card.prototype.step = function (delta) {
    const n = this.pageEls.length;
    if (delta > 0) {
      if (this.pi < n - 1) return this.setPage(this.pi + 1);
      return this.setCondition(this.ci + 1);
    }
    if (this.pi > -1) return this.setPage(this.pi - 1);
    if (this.ci > 0) {
      const prev = this.view.item.conditions[this.ci - 1];
      return this.setCondition(this.ci - 1, prev.pages.length - 1);
    }
    return undefined;
  };

  Card.prototype.navigate = function (delta) {
    this.commitOpenQuote();
    const v = this.view;
    const from = this.navTarget === null ? v.index : this.navTarget;
    const to = Math.max(0, Math.min(v.total - 1, from + delta));
    if (to === from) return;
    this.navTarget = to;
    this.host.onNavigate(to);
  };

  /** A quote box's text becomes an action when it is left (blur, Enter, Esc, navigation). */
  Card.prototype.commitQuote = function (box) {
    const ckey = this.cond().condition_key;
    const pkey = box.dataset.page;
    const st = this.view.state.conditions[ckey];
    const old = has(st.quotes, pkey) ? st.quotes[pkey] : "";
    if (box.value !== old) this.act({ op: "quote", cond: ckey, page: pkey, text: box.value });
  };

  Card.prototype.commitComment = function () {
    if (this.comment.value !== this.view.state.comment) this.act({ op: "comment", text: this.comment.value });
  };

  Card.prototype.commitOpenQuote = function () {
    const active = this.root.getRootNode().activeElement;
    if (active && active.classList && active.classList.contains("jc-quote")) this.commitQuote(active);
    if (active === this.comment) this.commitComment();
  };

  /**
   * Run fn, which removes text boxes. A focused box whose text changed fires "change" as it
   * is removed, when the card may already show another item or condition: that event is
   * ignored (navigation and tab switches commit the open box before they rebuild).
   */
  Card.prototype.removing = function (fn) {
    this.inRemoval = true;
    try {
      fn();
    } finally {
      this.inRemoval = false;
    }
  };

  Card.prototype.onChange = function (e) {
    if (this.inRemoval) return;
    const t = e.target;
    const ckey = this.cond().condition_key;
    if (t.classList.contains("jc-sel")) {
      this.pi = this.pageEls.findIndex((p) => p.pkey === t.dataset.page);
      this.act({ op: "select", cond: ckey, page: t.dataset.page, on: t.checked });
    } else if (t.classList.contains("jc-quote")) this.commitQuote(t);
    else if (t === this.unclear) this.act({ op: "unclear", on: t.checked });
    else if (t === this.comment) this.commitComment();
    else if (t === this.goto) {
      this.navTarget = Number(t.value);
      this.host.onNavigate(Number(t.value));
    }
  };

  Card.prototype.onClick = function (e) {
    const t = e.target.closest ? e.target.closest("button") : null;
    if (!t) {
      const page = e.target.closest ? e.target.closest(".jc-page") : null;
      if (page) this.pi = this.pageEls.findIndex((p) => p.box === page);
      return;
    }
    const ckey = this.cond().condition_key;
    if (t.classList.contains("jc-ans")) this.act({ op: "answer", cond: ckey, value: t.dataset.value });
    else if (t.dataset.act === "clear") this.act({ op: "clear", cond: ckey });
    else if (t.dataset.act === "prev") this.navigate(-1);
    else if (t.dataset.act === "next") this.navigate(1);
    else if (t.classList.contains("jc-tab")) this.setCondition(Number(t.dataset.index));
    else if (t.classList.contains("jc-img") && this.host.onImage) this.host.onImage(t.dataset.page);
  };

  Card.prototype.onKey = function (e) {
    if (!this.root.isConnected || !this.view) return;
    const t = e.composedPath ? e.composedPath()[0] : e.target;
    const inText = typing(t);
    const code = e.code || "";
    if (e.altKey && !e.ctrlKey && !e.metaKey && (code === "KeyN" || code === "KeyP")) {
      e.preventDefault();
      e.stopPropagation();
      this.navigate(code === "KeyN" ? 1 : -1);
      return;
    }
    if (e.key === "Escape") {
      if (inText) {
        e.preventDefault();
        this.commitOpenQuote();
        t.blur();
        this.focusCurrent();
      }
      return;
    }
    if (inText) {
      if (e.key === "Enter" && !e.shiftKey && t.classList && t.classList.contains("jc-quote")) {
        e.preventDefault();
        this.commitQuote(t);
        t.blur();
        this.focusCurrent();
      }
      return; // every other key types into the box, as the user meant
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = (e.key || "").toLowerCase();
    const ckey = this.cond().condition_key;
    // Focus inside a page (its checkbox, say) makes it the current page for J / K / Q.
    const inPage = t && t.closest ? this.pageEls.findIndex((p) => p.box === t.closest(".jc-page")) : -1;
    if (inPage >= 0) this.pi = inPage;
    const page = this.pageEls[this.pi] || this.pageEls[0];
    let handled = true;
    if (k === "y" || k === "n") this.act({ op: "answer", cond: ckey, value: k === "y" ? "yes" : "no" });
    else if (k === "j" || k === "arrowdown") this.step(1);
    else if (k === "k" || k === "arrowup") this.step(-1);
    else if (k === "arrowright") this.setCondition(this.ci + 1);
    else if (k === "arrowleft") this.setCondition(this.ci - 1);
    else if (/^[1-9]$/.test(k)) this.setCondition(Number(k) - 1);
    else if (k === " " && nativeSpace(t)) handled = false; // a focused control's own Space
    else if (k === " " && page) {
      if (this.pi < 0) this.pi = 0;
      const on = !this.view.state.conditions[ckey].pages.includes(page.pkey);
      this.act({ op: "select", cond: ckey, page: page.pkey, on });
    } else if (k === "q" && page) {
      if (this.pi < 0) this.pi = 0;
      this.refresh();
      page.quote.focus(); // keydown's default is prevented below: no "q" reaches the box
    } else handled = false;
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  const api = { OPS, cardItem, reduce, invalid, normalState, blankState, poolKeys, Card, SHORTCUTS, typing };
  if (node) module.exports = api;
  else root.JudgeCard = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
