"""Query-form matrix for `score compare --form` (pure): systems x forms, contrasts per form.

The n-Clue supplement ("Do Current Retrievers Cover All the Evidence?",
Tables S2b-S4) scores every system under each deterministic query form and
tests each operation contrast within each form. Rules (docs/runs.md):

* ``--form RUN=FORM`` labels a run with its query form. The run's *system*
  is its name without a trailing separator (``@``, ``_``, ``-`` or ``.``)
  followed by the form (``bm25@raw`` and ``bm25_clean_v2`` are system
  ``bm25``); a name without that suffix is the system itself. Two runs of one
  system with one form are an error.
* A pair ``BASE:VARIANT`` naming two systems stands for one contrast per form
  that both systems have, in the order the forms were first given; a pair
  naming two runs is kept as it is (its form is the runs' common form, or null).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorers.runs import PerQuery, summarize
from vocabulary.errors import InputError
from vocabulary.tables import table

SEPARATORS = ("@", "_", "-", ".")


def system_of(run: str, form: str) -> str:
    for sep in SEPARATORS:
        suffix = f"{sep}{form}"
        if run.endswith(suffix) and len(run) > len(suffix):
            return run[: -len(suffix)]
    return run


@dataclass(frozen=True)
class FormMatrix:
    forms: tuple[str, ...]
    cells: dict[str, dict[str, str]]  # system -> form -> run
    run_pairs: tuple[tuple[str, str], ...]
    pair_forms: tuple[str | None, ...]
    pair_labels: tuple[tuple[str, str], ...]  # (base, variant) as given: systems or runs

    def to_json(self, scored: Mapping[str, PerQuery], report: Mapping[str, Any]) -> dict[str, Any]:
        matrix = {
            s: {f: {"run": r, **_scores(scored[r])} for f, r in by_form.items()}
            for s, by_form in self.cells.items()
        }
        contrasts = []
        for (b, v), form, pair in zip(self.pair_labels, self.pair_forms, report["pairs"],
                                      strict=True):  # fmt: skip
            contrasts.append({"base": b, "variant": v, "form": form, "base_run": pair["base"],
                              "variant_run": pair["variant"], "diff": pair["diff"],
                              "p": pair["p"]})  # fmt: skip
        return {"forms": list(self.forms), "matrix": matrix, "contrasts": contrasts}

    def to_text(self, scored: Mapping[str, PerQuery], report: Mapping[str, Any]) -> str:
        data = self.to_json(scored, report)
        rows = [
            [s, *(_pts(data["matrix"][s].get(f, {}).get("nclue")) for f in self.forms)]
            for s in self.cells
        ]
        out = ["n-Clue Score by query form (points)", table(rows, ["system", *self.forms])]
        labels: dict[tuple[str, str], dict[str | None, dict[str, Any]]] = {}
        for c in data["contrasts"]:
            labels.setdefault((c["base"], c["variant"]), {})[c["form"]] = c
        crow = []
        for (b, v), by_form in labels.items():
            cells = []
            for f in self.forms:
                c = by_form.get(f)
                cells += (
                    [_pts(c["diff"]["nclue"], signed=True), _p(c["p"]["nclue"])] if c else ["", ""]
                )
            crow.append([f"{v} - {b}", *cells])
        if crow:
            heads = [h for f in self.forms for h in (f"{f} delta", f"{f} p")]
            out += ["", "Paired n-Clue differences per form (points, sign-flip p)",
                    table(crow, ["contrast", *heads])]  # fmt: skip
        return "\n".join(out)


def _scores(pq: PerQuery) -> dict[str, Any]:
    s = summarize(pq)
    return {k: s[k] for k in ("nclue", "gold_hit", "gold_ndcg", "ndcg")}


def _pts(v: Any, signed: bool = False) -> str:
    if v is None:
        return ""
    return f"{100 * v:+.1f}" if signed else f"{100 * v:.1f}"


def _p(v: Any) -> str:
    return "" if v is None else f"{v:.4f}"


def parse_forms(specs: Sequence[str], runs: Sequence[str]) -> dict[str, str]:
    """{run: form} from RUN=FORM options (the last '=' splits; run names may contain '=')."""
    out: dict[str, str] = {}
    for spec in specs:
        run, sep, form = spec.rpartition("=")
        if not sep or not run or not form:
            raise InputError(f"--form {spec!r} is not RUN=FORM", hint="e.g. --form bm25@raw=raw")
        if run not in runs:
            raise InputError(f"--form names run {run!r}, which is not given",
                             hint=f"run names: {', '.join(runs)}")  # fmt: skip
        if run in out:
            raise InputError(f"--form labels run {run!r} twice")
        out[run] = form
    return out


def form_matrix(
    form_of: Mapping[str, str], runs: Sequence[str], pairs: Sequence[str]
) -> FormMatrix:
    """Systems x forms and the run pairs the declared pairs stand for (module docstring)."""
    forms = tuple(dict.fromkeys(form_of.values()))
    cells: dict[str, dict[str, str]] = {}
    for run, form in form_of.items():
        system = system_of(run, form)
        if form in cells.setdefault(system, {}):
            raise InputError(f"runs {cells[system][form]!r} and {run!r} are both system "
                             f"{system!r} with form {form!r}",
                             hint="name one run per system and form")  # fmt: skip
        cells[system][form] = run
    run_pairs: list[tuple[str, str]] = []
    pair_forms: list[str | None] = []
    labels: list[tuple[str, str]] = []
    known = set(cells) | set(runs)
    for spec in pairs:
        cuts = [i for i, ch in enumerate(spec) if ch == ":"]
        found = [(spec[:i], spec[i + 1 :]) for i in cuts if {spec[:i], spec[i + 1 :]} <= known]
        if not found:
            raise InputError(f"--pair {spec!r} does not name two systems or runs as BASE:VARIANT",
                             hint=f"systems: {', '.join(cells)}")  # fmt: skip
        b, v = found[0]
        if b in cells and v in cells:
            shared = [f for f in forms if f in cells[b] and f in cells[v]]
            if not shared:
                raise InputError(f"--pair {spec!r}: the systems share no query form")
            for f in shared:
                run_pairs.append((cells[b][f], cells[v][f]))
                pair_forms.append(f)
                labels.append((b, v))
        else:
            fb, fv = form_of.get(b), form_of.get(v)
            run_pairs.append((b, v))
            pair_forms.append(fb if fb == fv else None)
            labels.append((b, v))
    return FormMatrix(forms, cells, tuple(run_pairs), tuple(pair_forms), tuple(labels))
