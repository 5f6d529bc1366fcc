// The JavaScript normalizer against the shared vectors (run: node --test tests/js/).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const tn = require("../../services/card/textnorm.js");

const vectors = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "data", "textnorm_vectors.json"), "utf8")
);

test("normalize vectors", () => {
  for (const v of vectors.normalize) {
    assert.equal(tn.normalize(v.input), v.expected, v.name);
  }
});

test("nontrivial vectors", () => {
  for (const v of vectors.nontrivial) {
    const got = tn.isNontrivial(v.quote, v.min_words ?? tn.MIN_WORDS, v.min_chars ?? tn.MIN_CHARS);
    assert.equal(got, v.expected, v.name);
  }
});

test("quote/page vectors", () => {
  for (const v of vectors.quote_in_page) {
    assert.equal(tn.quoteInPage(v.quote, v.page), v.expected, v.name);
    assert.deepEqual(tn.findQuote(v.quote, v.page), v.span, v.name);
    // The cached-page variants give the same answers.
    const norm = tn.normalizeWithMap(v.page);
    assert.equal(tn.quoteInPage(v.quote, v.page, norm), v.expected, v.name);
    assert.deepEqual(tn.findQuote(v.quote, v.page, norm), v.span, v.name);
  }
});

test("origin map points into the original text", () => {
  const text = "A \ufb01ne evi-\n dence";
  const m = tn.normalizeWithMap(text);
  assert.equal(m.text, "a fine evidence");
  assert.equal(m.origin.length, m.chars.length);
  assert.deepEqual(m.origin.slice(0, 4), [0, 1, 2, 2]);
});

test("utf16Offset converts code points to UTF-16 units", () => {
  assert.equal(tn.utf16Offset("\u{1F600}ab", 1), 2);
  assert.equal(tn.utf16Offset("abc", 2), 2);
});
