/*
 * card.js: the judging card, one piece of front-end code for both hosts.
 *
 * The Streamlit app (audit_app/annotator/component.py wraps it in a
 * st.components.v2 component) and the offline HTML packet (services/offline/
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

  /**
   * Space on a checkbox, button, select or a disclosure's summary does what it does there
   * (toggle, press, open): it never answers or selects a page.
   */
  function nativeSpace(t) {
    if (!t || !t.tagName) return false;
    const tag = t.tagName.toLowerCase();
    return tag === "button" || tag === "select" || tag === "summary" || tag === "a" ||
      (tag === "input" && ["checkbox", "radio"].includes(t.type));
  }

  /**
   * The sentences of a page text as [start, end) UTF-16 offsets, surrounding whitespace
   * trimmed. A line break inside a sentence is read as a space (PDF text breaks lines
   * there); one after a full stop, and a blank line, end the sentence. Intl.Segmenter where the browser has it.
   */
  function sentences(text) {
    // Same length, so offsets stay valid; a break after a full stop still ends the sentence.
    const flat = text.replace(/([^\n.!?])\n(?=[^\n])/g, "$1 ");
    let spans = [];
    if (typeof Intl !== "undefined" && Intl.Segmenter) {
      const seg = new Intl.Segmenter("en", { granularity: "sentence" });
      for (const s of seg.segment(flat)) spans.push([s.index, s.index + s.segment.length]);
    } else {
      const re = /[^.!?\n]+(?:[.!?]+|\n+|$)/g;
      let m;
      while ((m = re.exec(flat)) !== null) {
        if (!m[0]) break;
        spans.push([m.index, m.index + m[0].length]);
      }
    }
    const ws = /\s/;
    spans = spans.map(([a, b]) => {
      while (a < b && ws.test(text[a])) a += 1;
      while (b > a && ws.test(text[b - 1])) b -= 1;
      return [a, b];
    });
    return spans.filter(([a, b]) => b > a);
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
    ["S", "select a sentence of the page: ↑ / ↓ move, Shift+↑ / ↓ extend, Enter takes it as the quote"],
    ["J / K", "next / previous candidate page"],
    ["↓ / ↑, PgDn / PgUp", "scroll the page text"],
    ["← / →, 1–9", "previous / next condition, condition by number"],
    ["Space", "use the current page as evidence (again: stop using it)"],
    ["Q", "type a quote for the current page (Enter keeps it)"],
    ["Esc", "leave a text box or the sentence selection"],
    ["Alt+N / Alt+P", "next / previous item"],
  ];

  function loadPref(key, fallback) {
    try {
      const v = root.localStorage.getItem(key);
      return v === null ? fallback : v === "1";
    } catch (err) {
      return fallback; // storage refused: the default, every time
    }
  }

  function savePref(key, on) {
    try {
      root.localStorage.setItem(key, on ? "1" : "0");
    } catch (err) {
      /* storage refused: the choice lasts for this page only */
    }
  }

  /** A DOM Range over [a, b) UTF-16 offsets of the text inside `container`. */
  function textRange(container, a, b) {
    const r = document.createRange();
    const walk = document.createTreeWalker(container, 4 /* NodeFilter.SHOW_TEXT */);
    let pos = 0;
    let started = false;
    let n = walk.nextNode();
    while (n) {
      const len = n.data.length;
      if (!started && a <= pos + len) {
        r.setStart(n, a - pos);
        started = true;
      }
      if (started && b <= pos + len) {
        r.setEnd(n, b - pos);
        return r;
      }
      pos += len;
      n = walk.nextNode();
    }
    return null;
  }

  // ---- the card -----------------------------------------------------------
  /**
   * host: {onAction(action), onNavigate(index), onImage?(pageKey), onDownloadUnsaved?(),
   *   keyTarget?: Document, flow?: string}
   * `flow` (the app passes the annotator's name) turns on moving on by itself after each
   * decision (a preference the annotator can turn off, kept in this browser under that name)
   * and the "all done" screen.
   * view (show): {item, state, rule, quoteRule, index, total, items: [{id, done, started}],
   *   status: {kind: "idle"|"pending"|"saved"|"error", text}, pending?: n, images: bool,
   *   image: {page, src} | null, heading, summary?: {yes, no, unclear}}
   */
  function Card(mount, host) {
    this.host = host;
    this.root = el("div", { class: "jc", tabindex: "-1" });
    mount.append(this.root);
    this.itemId = null;
    this.ci = 0; // current condition
    this.pi = -1; // current page of that condition (-1: it has none)
    this.view = null;
    this.norms = new Map(); // page_key -> normalized text with offsets (pages never change)
    this.navTarget = null;
    this.sent = null; // sentence selection: {pkey, list: [[a, b]], a, b, msg}
    this.finished = false; // the "all done" screen is showing
    this.keyQueue = []; // keys pressed while the next item is on its way (replayed on it)
    this.prefKey = host.flow ? `evaudit-card:advance:${host.flow}` : null;
    this.advance = this.prefKey ? loadPref(this.prefKey, true) : false;
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

  Card.prototype.passes = function (ckey) {
    return this.problems()[ckey].length === 0;
  };

  Card.prototype.show = function (view) {
    const first = this.view === null;
    const fresh = first || view.item.item_id !== this.itemId;
    this.view = Object.assign({}, view, { state: normalState(view.item, view.state) });
    if (fresh) {
      this.itemId = view.item.item_id;
      this.norms = new Map();
      this.navTarget = null;
      this.sent = null;
      this.ci = this.firstOpen();
      this.pi = -1;
      this.build();
      const queued = this.keyQueue.splice(0);
      const items = view.items || [];
      // Reopening a finished packet shows the "all done" screen; reaching an item leaves it.
      this.finished = Boolean(this.prefKey) && first && items.length > 0 && items.every((it) => it.done);
      this.refresh();
      for (const k of queued) this.onKey(this.replayed(k));
      return;
    }
    if (view.status && view.status.kind === "error") {
      // A refused save also stops the navigation behind it: keys act on this item again.
      this.navTarget = null;
      this.keyQueue = [];
    }
    this.updateNav();
    this.refresh();
  };

  /** A queued key as an event for onKey (focus on the card, nothing to prevent). */
  Card.prototype.replayed = function (k) {
    const root = this.root;
    return { key: k.key, code: k.code, shiftKey: k.shiftKey, altKey: false, ctrlKey: false, metaKey: false,
      composedPath: () => [root], preventDefault() {}, stopPropagation() {} };
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
    const left = el("div", { class: "jc-left", "aria-label": "Information need and answer" });
    const right = el("div", { class: "jc-right", "aria-label": "Candidate pages" });
    this.body = el("div", { class: "jc-body" }, left, right);
    this.done = el("section", { class: "jc-done", "aria-label": "All done", hidden: true });
    this.root.append(this.body, this.done);
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
      el("details", { class: "jc-keys" },
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
    this.unsavedBtn = el("button", { type: "button", class: "jc-unsaved", "data-act": "unsaved", hidden: true });
    let auto = null;
    if (this.prefKey) {
      this.autoBox = el("input", { type: "checkbox", class: "jc-advance", id: "jc-advance" });
      this.autoBox.checked = this.advance;
      auto = el("label", { class: "jc-auto", for: "jc-advance",
        title: "After an answer, go to the next open condition; after the last, to the next incomplete item" },
      this.autoBox, " Move on after each answer");
    }
    this.nav.replaceChildren(
      el("button", { type: "button", class: "jc-prev", "data-act": "prev", title: "Previous item (Alt+P)", text: "◀ Previous" }),
      this.goto,
      el("button", { type: "button", class: "jc-next", "data-act": "next", title: "Next item (Alt+N)", text: "Next ▶" }),
      el("span", { class: "jc-progress" }, this.progress, this.progressText),
      auto,
      this.status,
      this.unsavedBtn,
      v.heading ? el("span", { class: "jc-heading", title: v.heading, text: v.heading }) : "",
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
    const unsaved = s.kind === "error" ? Number(v.pending || 0) : 0;
    // A refused save keeps its changes on screen, says how many, and offers them as a file.
    this.status.textContent = (s.text || "") +
      (unsaved ? ` ${unsaved} change${unsaved === 1 ? "" : "s"} NOT saved, still on this screen.` : "");
    this.status.className = `jc-status jc-${s.kind}`;
    this.status.setAttribute("role", s.kind === "error" ? "alert" : "status");
    this.nav.classList.toggle("has-error", s.kind === "error");
    this.unsavedBtn.hidden = !(unsaved && this.host.onDownloadUnsaved);
    this.unsavedBtn.textContent = "Download unsaved (JSON)";
    return undefined;
  };

  Card.prototype.buildCondition = function () {
    const cond = this.cond();
    const ckey = cond.condition_key;
    const mine = (field) => (cond[field] || []).map(String).filter((b) => !this.shared[field].has(b));
    const counts = mine("counts");
    const notCounts = mine("does_not_count");
    const more = el("details", { class: "jc-more" });
    const nMore = counts.length + notCounts.length;
    more.append(el("summary", { text: `Counts, does not count (${nMore})` }));
    if (counts.length) more.append(el("p", { text: "Counts:" }), this.list(counts));
    if (notCounts.length) more.append(el("p", { text: "Does not count:" }), this.list(notCounts));
    this.answerBox = el("div", { class: "jc-answer", role: "radiogroup", "aria-label": `Answer for ${ckey}` },
      ...G.ANSWERS.map((value) => el("button", { type: "button", role: "radio", class: `jc-ans jc-${value}`,
        "data-value": value, "aria-checked": "false" }, `${value === "yes" ? "Yes" : "No"} `, el("kbd", { text: value === "yes" ? "Y" : "N" }))),
      el("button", { type: "button", class: "jc-clear", "data-act": "clear", text: "Clear this condition" }));
    this.msgs = el("ul", { class: "jc-msgs" });
    // The note is shown, not folded away: for a TREC topic it holds the description.
    this.condBox.replaceChildren(
      el("h3", {}, el("span", { class: "jc-ckey", text: ckey }), ` · ${cond.name || "Condition"}`),
      el("p", { class: "jc-req" }, el("span", { class: "jc-label", text: "Requirement. " }), el("span", { "data-role": "requirement", text: cond.requirement || "" })),
      cond.note ? el("p", { class: "jc-note" }, el("span", { class: "jc-label", text: "Note. " }), el("span", { "data-role": "note", text: cond.note })) : "",
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
        placeholder: `Quote from page ${pageLetter(pkey)}: S picks a sentence, Q types one`,
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
        el("p", { class: "jc-hint", "data-role": "hint", hidden: true }),
        el("div", { class: "jc-quote-row" }, quote),
        el("p", { class: "jc-found", "data-role": "found" }),
        el("div", { class: "jc-image", "data-role": "image" }));
      const tab = el("button", { type: "button", role: "tab", class: "jc-ptab", "data-index": String(i),
        "data-page": pkey, title: `Page ${pageLetter(pkey)} (J / K)` },
      `Page ${pageLetter(pkey)}`, el("span", { class: "jc-pmark" }));
      return { pkey, box, tab, sel, quote, text: box.querySelector(".jc-text"), found: box.querySelector(".jc-found"),
        hint: box.querySelector(".jc-hint"), image: box.querySelector(".jc-image") };
    });
    this.pageTabs = el("div", { class: "jc-ptabs", role: "tablist", "aria-label": `Candidate pages for ${ckey}` },
      el("span", { class: "jc-pages-head", text: this.pageEls.length
        ? `Candidate pages for ${ckey} (${this.pageEls.length}):` : `No candidate pages for ${ckey}` }),
      ...this.pageEls.map((p) => p.tab));
    this.removing(() => this.pagesBox.replaceChildren(this.pageTabs, ...this.pageEls.map((p) => p.box)));
    if (this.pi >= this.pageEls.length || this.pi < 0) this.pi = this.pageEls.length ? 0 : -1;
  };

  Card.prototype.refresh = function () {
    const v = this.view;
    this.body.hidden = this.finished;
    this.done.hidden = !this.finished;
    if (this.finished) this.drawDone();
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
      const current = i === this.pi;
      p.sel.checked = selected;
      const q = has(st.quotes, p.pkey) ? st.quotes[p.pkey] : "";
      if (document.activeElement !== p.quote && p.quote.getRootNode().activeElement !== p.quote) p.quote.value = q;
      p.box.hidden = !current; // one candidate page at a time; the tabs switch
      p.box.classList.toggle("is-selected", selected);
      p.box.classList.toggle("is-current", current);
      p.tab.classList.toggle("is-current", current);
      p.tab.classList.toggle("is-selected", selected);
      p.tab.setAttribute("aria-selected", current ? "true" : "false");
      p.tab.querySelector(".jc-pmark").textContent = selected ? " ✓" : "";
      const matched = this.drawText(p, selected ? q : "");
      p.found.textContent = matched ? `Quote matched on page ${pageLetter(p.pkey)} (highlighted).`
        : selected && G.pyStrip(q) !== "" ? `Quote not found on page ${pageLetter(p.pkey)}.` : "";
      p.found.className = `jc-found ${matched ? "is-ok" : q ? "is-bad" : ""}`;
      const sent = this.sent && this.sent.pkey === p.pkey ? this.sent : null;
      p.hint.hidden = !sent;
      p.hint.textContent = !sent ? "" : sent.msg || "Sentence selection: ↑ / ↓ move, Shift+↑ / ↓ extend, " +
        "Enter takes it as the quote, Esc leaves.";
      p.hint.classList.toggle("is-bad", Boolean(sent && sent.msg));
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

  /** The "all done" screen: counts from the server's view, this item's own gates for itself. */
  Card.prototype.drawDone = function () {
    const v = this.view;
    const items = v.items || [];
    const hereDone = Object.values(this.problems()).every((m) => m.length === 0);
    const open = items.filter((it, i) => !(i === v.index ? hereDone || it.done : it.done));
    const done = items.length - open.length;
    const s = v.status || { kind: "idle" };
    const kids = [
      el("h2", { text: open.length ? "Not all done yet" : "All done" }),
      el("p", { class: "jc-done-count", text: `${done} of ${items.length} items complete.` }),
    ];
    const sm = v.summary;
    if (sm) {
      kids.push(el("p", { class: "jc-done-summary", text: `Conditions answered: ${sm.yes} yes, ${sm.no} no` +
        (sm.unclear ? ` · ${sm.unclear} item${sm.unclear === 1 ? "" : "s"} marked unclear.` : ".") }));
    }
    if (open.length) kids.push(el("p", { text: `Not complete: ${open.slice(0, 12).map((it) => it.id).join(", ")}` +
      (open.length > 12 ? ", …" : "") }));
    kids.push(el("p", { class: "jc-done-saved", text: s.kind === "error" ? "Some changes are NOT saved: see the status above."
      : Number(v.pending || 0) > 0 ? "Saving…" : "Every answer is saved." }));
    const first = items.findIndex((it) => open.includes(it));
    kids.push(el("div", { class: "jc-done-actions" },
      first >= 0 ? el("button", { type: "button", "data-act": "first-open", "data-index": String(first),
        text: `Go to ${items[first].id}` }) : null,
      el("button", { type: "button", "data-act": "review", text: "Review the items" })));
    this.done.replaceChildren(...kids);
  };

  /** Page text with the sentence selection or the matched quote in <mark>; true when the quote was found. */
  Card.prototype.drawText = function (p, quote) {
    const text = this.text(p.pkey);
    const span = quote && G.pyStrip(quote) ? TN.findQuote(quote, text, this.normOf(p.pkey)) : null;
    const sent = this.sent && this.sent.pkey === p.pkey ? this.sent : null;
    let a = null;
    let b = null;
    if (sent) {
      a = sent.list[sent.a][0];
      b = sent.list[sent.b][1];
    } else if (span) {
      a = TN.utf16Offset(text, span[0]);
      b = TN.utf16Offset(text, span[1]);
    }
    const key = a === null ? "-" : `${sent ? "s" : "q"}${a}:${b}`;
    if (p.text.dataset.span === key) return Boolean(span);
    p.text.dataset.span = key;
    if (a === null) {
      p.text.textContent = text;
      return false;
    }
    const mark = el("mark", { class: sent ? "jc-sentence" : null, text: text.slice(a, b) });
    p.text.replaceChildren(text.slice(0, a), mark, text.slice(b));
    // Bring the mark into the text box's view (the box scrolls, not the window).
    const top = mark.offsetTop;
    if (!sent || top < p.text.scrollTop || top + mark.offsetHeight > p.text.scrollTop + p.text.clientHeight) {
      p.text.scrollTop = Math.max(0, top - 48);
    }
    return Boolean(span);
  };

  // ---- user actions -------------------------------------------------------
  Card.prototype.act = function (action) {
    action.item = this.itemId;
    const next = reduce(this.view.item, this.view.state, action);
    this.view.state = next; // drawn at once; the host confirms or reverts
    this.host.onAction(action);
    this.refresh();
  };

  /** An answer or a quote the user just gave for `ckey`, then moving on if it now passes. */
  Card.prototype.decide = function (ckey, action) {
    const before = this.passes(ckey);
    this.act(action);
    this.afterDecision(ckey, before);
  };

  /**
   * Moving on by itself (when on): a condition that starts to pass hands over to the next
   * condition that does not pass yet; when every condition passes, to the next incomplete
   * item; when there is none, to the "all done" screen. The action was reported first, so
   * the host saves it before it sees the navigation.
   */
  Card.prototype.afterDecision = function (ckey, passedBefore) {
    if (!this.advance || passedBefore || !this.passes(ckey)) return;
    const conds = this.view.item.conditions;
    const probs = this.problems();
    for (let k = 1; k < conds.length; k += 1) {
      const j = (this.ci + k) % conds.length;
      if (probs[conds[j].condition_key].length) {
        this.setCondition(j);
        return;
      }
    }
    const items = this.view.items || [];
    for (let k = 1; k < items.length; k += 1) {
      const j = (this.view.index + k) % items.length;
      if (!items[j].done) {
        this.goTo(j);
        return;
      }
    }
    this.finished = true;
    this.refresh();
  };

  Card.prototype.setCondition = function (i, pi) {
    const n = this.view.item.conditions.length;
    if (i < 0 || i >= n) return;
    this.commitOpenQuote();
    this.ci = i;
    this.pi = pi === undefined ? 0 : pi;
    this.sent = null;
    this.buildCondition();
    this.refresh();
    this.focusCurrent();
  };

  Card.prototype.setPage = function (pi) {
    if (pi < 0 || pi >= this.pageEls.length) return;
    if (pi !== this.pi) this.commitOpenQuote();
    this.pi = pi;
    this.sent = null;
    this.refresh();
    this.focusCurrent();
  };

  Card.prototype.focusCurrent = function () {
    const p = this.pageEls[this.pi];
    const target = p ? p.box : this.root;
    target.focus({ preventScroll: true }); // the layout keeps everything in view; never scroll the window
  };

  Card.prototype.scrollText = function (key) {
    const p = this.pageEls[this.pi];
    if (!p) return;
    const line = 3 * (parseFloat(getComputedStyle(p.text).lineHeight) || 20);
    const pageStep = Math.max(line, p.text.clientHeight * 0.9);
    const by = { arrowdown: line, arrowup: -line, pagedown: pageStep, pageup: -pageStep }[key];
    p.text.scrollTop = Math.max(0, p.text.scrollTop + by);
  };

  /** S: select the first sentence showing in the current page's text box. */
  Card.prototype.startSentences = function () {
    const p = this.pageEls[this.pi];
    if (!p) return;
    const list = sentences(this.text(p.pkey));
    if (!list.length) return;
    let start = 0;
    const top = p.text.getBoundingClientRect().top;
    for (const [i, [a, b]] of list.entries()) {
      const r = textRange(p.text, a, b);
      const rects = r ? r.getClientRects() : [];
      const last = rects.length ? rects[rects.length - 1] : null;
      if (!last || last.bottom > top + 4) {
        start = i;
        break;
      }
    }
    this.sent = { pkey: p.pkey, list, a: start, b: start, msg: "" };
    this.refresh();
  };

  Card.prototype.moveSentence = function (key, extend) {
    const s = this.sent;
    const last = s.list.length - 1;
    const down = key === "ArrowDown" || key === "ArrowRight";
    if (!extend) {
      const i = down ? Math.min(last, s.b + 1) : Math.max(0, s.a - 1);
      s.a = i;
      s.b = i;
    } else if (down) s.b = Math.min(last, s.b + 1);
    else if (s.b > s.a) s.b -= 1;
    else s.a = Math.max(0, s.a - 1);
    s.msg = "";
    this.refresh();
  };

  /** Enter: the selected sentences become the page's quote, through the same quote gate. */
  Card.prototype.takeSentence = function () {
    const s = this.sent;
    const text = this.text(s.pkey);
    const quote = text.slice(s.list[s.a][0], s.list[s.b][1]);
    const rule = this.view.quoteRule || {};
    const minWords = rule.min_words != null ? rule.min_words : TN.MIN_WORDS;
    const minChars = rule.min_chars != null ? rule.min_chars : TN.MIN_CHARS;
    if (!TN.isNontrivial(quote, minWords, minChars)) {
      s.msg = `Too short for a quote (at least ${minWords} words and ${minChars} characters): ` +
        "extend it with Shift+↓.";
      this.refresh();
      return;
    }
    if (!TN.quoteInPage(quote, text, this.normOf(s.pkey))) {
      s.msg = "The quote check does not find this selection on the page: type the quote instead (Q).";
      this.refresh();
      return;
    }
    this.sent = null;
    const ckey = this.cond().condition_key;
    this.decide(ckey, { op: "quote", cond: ckey, page: s.pkey, text: quote });
  };

  Card.prototype.goTo = function (to) {
    this.commitOpenQuote();
    const v = this.view;
    const from = this.navTarget === null ? v.index : this.navTarget;
    to = Math.max(0, Math.min(v.total - 1, to));
    if (this.finished) {
      this.finished = false;
      this.refresh();
    }
    if (to === from) return;
    this.navTarget = to;
    this.host.onNavigate(to);
  };

  Card.prototype.navigate = function (delta) {
    const v = this.view;
    const from = this.navTarget === null ? v.index : this.navTarget;
    this.goTo(from + delta);
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
    if (!this.view) return;
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
    if (t === this.autoBox) {
      this.advance = t.checked;
      savePref(this.prefKey, t.checked); // a preference of this browser: nothing is sent
      return;
    }
    const ckey = this.cond().condition_key;
    if (t.classList.contains("jc-sel")) {
      this.pi = this.pageEls.findIndex((p) => p.pkey === t.dataset.page);
      this.act({ op: "select", cond: ckey, page: t.dataset.page, on: t.checked });
    } else if (t.classList.contains("jc-quote")) this.commitQuote(t);
    else if (t === this.unclear) this.act({ op: "unclear", on: t.checked });
    else if (t === this.comment) this.commitComment();
    else if (t === this.goto) this.goTo(Number(t.value));
  };

  Card.prototype.onClick = function (e) {
    const t = e.target.closest ? e.target.closest("button") : null;
    if (!t) return;
    const act = t.dataset.act;
    if (act === "prev") return this.navigate(-1);
    if (act === "next") return this.navigate(1);
    if (act === "unsaved") return this.host.onDownloadUnsaved && this.host.onDownloadUnsaved();
    if (act === "review") {
      this.finished = false;
      return this.refresh();
    }
    if (act === "first-open") return this.goTo(Number(t.dataset.index));
    const ckey = this.cond().condition_key;
    if (t.classList.contains("jc-ans")) this.decide(ckey, { op: "answer", cond: ckey, value: t.dataset.value });
    else if (act === "clear") this.act({ op: "clear", cond: ckey });
    else if (t.classList.contains("jc-tab")) this.setCondition(Number(t.dataset.index));
    else if (t.classList.contains("jc-ptab")) this.setPage(Number(t.dataset.index));
    else if (t.classList.contains("jc-img") && this.host.onImage) this.host.onImage(t.dataset.page);
    return undefined;
  };

  Card.prototype.onKey = function (e) {
    if (!this.root.isConnected || !this.view) return;
    const t = e.composedPath ? e.composedPath()[0] : e.target;
    const inText = typing(t);
    const code = e.code || "";
    const stop = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    if (e.altKey && !e.ctrlKey && !e.metaKey && (code === "KeyN" || code === "KeyP")) {
      stop();
      this.navigate(code === "KeyN" ? 1 : -1);
      return;
    }
    if (e.key === "Escape") {
      if (inText) {
        stop();
        this.commitOpenQuote();
        t.blur();
        this.focusCurrent();
      } else if (this.sent) {
        stop();
        this.sent = null;
        this.refresh();
      }
      return;
    }
    if (inText) {
      if (e.key === "Enter" && !e.shiftKey && t.classList && t.classList.contains("jc-quote")) {
        stop();
        const ckey = this.cond().condition_key;
        const before = this.passes(ckey);
        this.commitQuote(t);
        t.blur();
        this.focusCurrent();
        this.afterDecision(ckey, before);
      }
      return; // every other key types into the box, as the user meant
    }
    if (e.ctrlKey || e.metaKey || e.altKey || this.finished) return;
    // Moving on to another item: keys typed meanwhile belong to that item, not this one.
    if (this.navTarget !== null && this.navTarget !== this.view.index && !nativeSpace(t)) {
      if (e.key !== "Shift" && this.keyQueue.length < 32) {
        this.keyQueue.push({ key: e.key, code: e.code, shiftKey: e.shiftKey });
      }
      stop();
      return;
    }
    if (this.sent) {
      if (["ArrowDown", "ArrowUp", "ArrowLeft", "ArrowRight"].includes(e.key)) {
        stop();
        this.moveSentence(e.key, e.shiftKey);
        return;
      }
      if (e.key === "Enter") {
        stop();
        this.takeSentence();
        return;
      }
      if (e.key !== "Shift") {
        this.sent = null; // any other key leaves the selection, then does what it does
        this.refresh();
      }
    }
    const k = (e.key || "").toLowerCase();
    const ckey = this.cond().condition_key;
    // Focus inside a page (its checkbox, say) makes it the current page for J / K / Q.
    const inPage = t && t.closest ? this.pageEls.findIndex((p) => p.box === t.closest(".jc-page")) : -1;
    if (inPage >= 0) this.pi = inPage;
    const page = this.pageEls[this.pi];
    let handled = true;
    if (k === "y" || k === "n") this.decide(ckey, { op: "answer", cond: ckey, value: k === "y" ? "yes" : "no" });
    else if (k === "j") this.setPage(this.pi + 1);
    else if (k === "k") this.setPage(this.pi - 1);
    else if (["arrowdown", "arrowup", "pagedown", "pageup"].includes(k)) this.scrollText(k);
    else if (k === "arrowright") this.setCondition(this.ci + 1);
    else if (k === "arrowleft") this.setCondition(this.ci - 1);
    else if (/^[1-9]$/.test(k)) this.setCondition(Number(k) - 1);
    else if (k === " " && nativeSpace(t)) handled = false; // a focused control's own Space
    else if (k === " " && page) {
      const on = !this.view.state.conditions[ckey].pages.includes(page.pkey);
      this.act({ op: "select", cond: ckey, page: page.pkey, on });
    } else if (k === "s" && page) this.startSentences();
    else if (k === "q" && page) {
      this.refresh();
      page.quote.focus({ preventScroll: true }); // keydown's default is prevented below: no "q" reaches the box
    } else handled = false;
    if (handled) stop();
  };

  const api = { OPS, cardItem, reduce, invalid, normalState, blankState, poolKeys, Card, SHORTCUTS, typing, sentences };
  if (node) module.exports = api;
  else root.JudgeCard = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
