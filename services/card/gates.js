/*
 * gates.js: the JavaScript twin of vocabulary/gates.py (same rules, same messages).
 *
 * Per condition exactly one of yes/no. A yes needs >= 1 selected in-pool page
 * and, per selected page, a nontrivial quote that is a normalized substring of
 * that page's displayed text. A no carries no page and no quote. An item is
 * complete only when every condition passes. tests/test_offline_gates.py
 * checks the messages against the Python gates case by case.
 *
 * Works inlined after textnorm.js (defines globalThis.Gates) and under Node.
 */
(function (root) {
  "use strict";
  const TN =
    typeof module !== "undefined" && module.exports
      ? require("./textnorm.js")
      : root.TextNorm;
  const ANSWERS = ["yes", "no"];

  /** Python's str.strip() (whitespace as str.isspace() defines it). */
  function pyStrip(text) {
    const chars = Array.from(text);
    let a = 0;
    let b = chars.length;
    while (a < b && TN.isSpace(chars[a])) a += 1;
    while (b > a && TN.isSpace(chars[b - 1])) b -= 1;
    return chars.slice(a, b).join("");
  }

  /** Python's repr() for the values an imported answer can hold. */
  function pyRepr(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    if (typeof value === "number") return String(value);
    if (typeof value !== "string") return JSON.stringify(value);
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of value) {
      if (ch === "\\") out += "\\\\";
      else if (ch === quote) out += "\\" + ch;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else out += ch;
    }
    return quote + out + quote;
  }

  /** ConditionAnswer.from_json: {answer, pages: [...], quotes: {...}}. */
  function fromJson(obj) {
    if (!obj || typeof obj !== "object" || Object.keys(obj).length === 0) {
      return { answer: null, pages: [], quotes: {} };
    }
    const answer = obj.answer === undefined ? null : obj.answer;
    return { answer, pages: Array.from(obj.pages || []), quotes: Object.assign({}, obj.quotes || {}) };
  }

  const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

  /**
   * Messages saying exactly what is missing or wrong; empty when the condition
   * passes. `pool` maps page key -> page text; `norms` (optional) maps page key
   * -> TextNorm.normalizeWithMap(text) for callers that cache it.
   */
  function checkCondition(answerObj, pool, rule, norms) {
    const ans = fromJson(answerObj);
    const minWords = rule && rule.min_words != null ? rule.min_words : TN.MIN_WORDS;
    const minChars = rule && rule.min_chars != null ? rule.min_chars : TN.MIN_CHARS;
    const problems = [];
    if (ans.answer === null) return ["Answer yes or no."];
    if (!ANSWERS.includes(ans.answer)) {
      return [`Answer must be yes or no, not ${pyRepr(ans.answer)}.`];
    }
    const quote = (key) => (has(ans.quotes, key) ? ans.quotes[key] : "");
    const selected = new Set(ans.pages);
    const stray = Object.keys(ans.quotes)
      .filter((k) => !selected.has(k))
      .sort();
    if (ans.answer === "no") {
      if (ans.pages.length) {
        problems.push("A 'no' carries no selected page: clear the page selection.");
      }
      if (Object.values(ans.quotes).some((q) => pyStrip(q) !== "")) {
        problems.push("A 'no' carries no quote: remove the quotes.");
      }
      return problems;
    }
    if (!ans.pages.length) problems.push("A 'yes' needs at least one selected page.");
    for (const key of ans.pages) {
      if (!has(pool, key)) {
        problems.push(`Page ${key} is not in this condition's candidate pool.`);
        continue;
      }
      const q = quote(key);
      if (pyStrip(q) === "") {
        problems.push(`Page ${key}: add a verbatim quote from this page.`);
      } else if (!TN.isNontrivial(q, minWords, minChars)) {
        problems.push(
          `Page ${key}: the quote is too short (at least ${minWords} words ` +
            `and ${minChars} characters).`
        );
      } else if (!TN.quoteInPage(q, pool[key], norms && norms[key])) {
        problems.push(`Page ${key}: the quote is not on this page (check it verbatim).`);
      }
    }
    for (const key of stray) {
      if (pyStrip(quote(key)) !== "") problems.push(`Page ${key} has a quote but is not selected.`);
    }
    return problems;
  }

  /** Problems per condition key (every condition of the item is checked). */
  function checkItem(answers, pools, rule, norms) {
    const out = {};
    for (const ckey of Object.keys(pools)) {
      out[ckey] = checkCondition((answers || {})[ckey], pools[ckey], rule, norms);
    }
    return out;
  }

  function itemComplete(answers, pools, rule, norms) {
    return Object.values(checkItem(answers, pools, rule, norms)).every((m) => m.length === 0);
  }

  const api = { ANSWERS, checkCondition, checkItem, itemComplete, pyStrip, pyRepr, fromJson };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.Gates = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
