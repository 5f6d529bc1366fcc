// Batch driver for the pytest parity checks: reads {"op", "cases"} JSON on stdin, prints results.
"use strict";
const tn = require("../../services/card/textnorm.js");
const gates = require("../../services/card/gates.js");
const card = require("../../services/card/card.js");

const OPS = {
  normalize: (c) => tn.normalize(c),
  nontrivial: (c) => tn.isNontrivial(c.quote, c.min_words, c.min_chars),
  find: (c) => tn.findQuote(c.quote, c.page),
  in_page: (c) => tn.quoteInPage(c.quote, c.page),
  check_condition: (c) => gates.checkCondition(c.answer, c.pool, c.rule),
  // A run of card actions from a state; each step's state, or the error that stopped it.
  reduce: (c) => {
    let state = c.state;
    const out = [];
    for (const a of c.actions) {
      try {
        state = card.reduce(c.item, state, a);
        out.push(state);
      } catch (err) {
        out.push({ error: String(err.message) });
      }
    }
    return out;
  },
  card_item: (c) => card.cardItem(c),
  sentences: (c) => card.sentences(c).map(([a, b]) => c.slice(a, b)),
};

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const { op, cases } = JSON.parse(input);
  const fn = OPS[op];
  process.stdout.write(JSON.stringify(cases.map(fn)));
});
