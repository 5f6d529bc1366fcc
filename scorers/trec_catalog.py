"""trec_eval's measures by name: which exist, their parameters and defaults, the names
they print under, and the order trec_eval prints them in.

Pure. A request is `name`, `name.params` (trec_eval's `-m` syntax: `P.5,10`,
`ndcg.1=3,2=9`, `utility.2,-1,0,0`, `iprec_at_recall..1,.5`), a printed name
(`P_10`, `ndcg_cut_10`, `iprec_at_recall_0.10`, `judged_10`) or a nickname
(`official`, `all_trec`, `set`). The qrels_jg and preference measures (`-R qrels_jg`,
`-R prefs`), `yaap`, `dcg`, `ideal_dcg` and `ndcg_p` are not offered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# kind: plain | long_cut | double_cut | double_params | pairs
KINDS: dict[str, str] = {
    "runid": "plain", "num_q": "plain", "num_ret": "plain", "num_rel": "plain",
    "num_rel_ret": "plain", "map": "plain", "gm_map": "plain", "Rprec": "plain",
    "bpref": "plain", "recip_rank": "plain", "iprec_at_recall": "double_cut",
    "P": "long_cut", "relstring": "double_params", "recall": "long_cut", "infAP": "plain",
    "gm_bpref": "plain", "Rprec_mult": "double_cut", "utility": "double_params",
    "11pt_avg": "double_params", "binG": "plain", "G": "pairs", "ndcg": "pairs",
    "ndcg_rel": "pairs", "Rndcg": "pairs", "ndcg_cut": "long_cut", "map_cut": "long_cut",
    "relative_P": "long_cut", "success": "long_cut", "set_P": "plain",
    "set_relative_P": "plain", "set_recall": "plain", "set_map": "plain",
    "set_F": "double_params", "num_nonrel_judged_ret": "plain", "rbp": "pairs",
    "rbp_resid": "pairs", "unj": "long_cut", "judged": "long_cut",
}  # fmt: skip
ORDER = tuple(KINDS)  # trec_eval's print order (judged, this project's, last)
DEFAULTS: dict[str, tuple[float, ...]] = {
    "iprec_at_recall": tuple(i / 10 for i in range(11)),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    "11pt_avg": tuple(i / 10 for i in range(11)),
    "utility": (1.0, -1.0, 0.0, 0.0),
    "set_F": (1.0,),
    "relstring": (10.0,),
    "success": (1, 5, 10),
    "unj": (5, 10, 20),
    "judged": (5, 10, 20),
}
# Printed as integers ("%ld"); their "all" value is a sum (num_q a count).
COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})
SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})  # no per-query line
GEOMETRIC = frozenset({"gm_map", "gm_bpref"})
TEXT = frozenset({"runid", "relstring"})  # values that are strings, not numbers

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")  # fmt: skip
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F")  # fmt: skip
_ALL_TREC = tuple(n for n in ORDER if n != "judged")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "all_trec": _ALL_TREC,
    "set": _SET,
}
NOT_OFFERED = ("the preference measures (-R prefs, qrels_prefs) and the qrels_jg measures "
               "(map_avgjg, P_avgjg, Rprec_mult_avgjg), yaap, dcg, ideal_dcg, ndcg_p")  # fmt: skip

_PRINTED_LONG = re.compile(
    r"^(P|recall|ndcg_cut|map_cut|relative_P|success|unj|judged)_(\d+)$"
)  # fmt: skip
_PRINTED_DOUBLE = re.compile(r"^(iprec_at_recall|Rprec_mult)_(\d+(?:\.\d*)?)$")
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_PAIR = re.compile(r"^[^=,.]+=[^=,]*$")


@dataclass(frozen=True)
class Measure:
    """One printed value: `name` as trec_eval prints it, e.g. "P_10", "ndcg_1=3,2=9"."""

    name: str
    base: str
    cut: int | None = None  # long cutoffs (P_10)
    param: float | None = None  # double cutoffs (iprec_at_recall_0.10)
    extra: tuple[float, ...] | tuple[tuple[str, float], ...] = ()  # params / gain pairs

    @property
    def is_count(self) -> bool:
        return self.base in COUNTS


def _atof(text: str) -> float:
    """C's atof on a parameter: the longest leading number, 0.0 when there is none."""
    m = re.match(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)
    return float(m.group(0)) if m else 0.0


def _atol(text: str) -> int:
    m = re.match(r"^\s*[-+]?\d+", text)
    return int(m.group(0)) if m else 0


def expand(base: str, params: str | None) -> list[Measure]:
    """The printed values of one measure with trec_eval's parameter string (None = defaults)."""
    kind = KINDS[base]
    if kind == "plain":
        return [Measure(base, base)]
    if kind == "long_cut":
        if params is None:
            cuts = [int(c) for c in DEFAULTS.get(base, LONG_CUTS)]
        else:
            cuts = sorted(_atol(p) for p in params.split(","))
            if cuts[0] <= 0:
                raise ValueError(f"measure {base}: cutoffs must be positive ({params!r})")
            if len(set(cuts)) != len(cuts):
                raise ValueError(f"measure {base}: duplicate cutoffs ({params!r})")
        return [Measure(f"{base}_{c}", base, cut=c) for c in cuts]
    if kind == "double_cut":
        if params is None:
            vals = list(DEFAULTS[base])
        else:
            vals = sorted(_atof(p) for p in params.split(","))
            if len(set(vals)) != len(vals):
                raise ValueError(f"measure {base}: duplicate cutoffs ({params!r})")
        return [Measure(f"{base}_{v:3.2f}", base, param=v) for v in vals]
    name = base if params is None else f"{base}_{params}"
    if kind == "double_params":
        given = DEFAULTS[base] if params is None else tuple(_atof(p) for p in params.split(","))
        if base == "utility" and len(given) != 4:
            raise ValueError(f"measure utility needs 4 coefficients, got {params!r}")
        return [Measure(name, base, extra=tuple(given))]
    pairs: tuple[tuple[str, float], ...] = ()
    if params is not None:
        items = params.split(",")
        if not all(_PAIR.match(i) for i in items):
            raise ValueError(f"measure {base}: malformed pair parameters {params!r} (e.g. 1=3,2=9)")
        pairs = tuple((i.split("=")[0], _atof(i.split("=")[1])) for i in items)
    return [Measure(name, base, extra=pairs)]


def _split_request(token: str) -> tuple[str, str | None]:
    m = _PRINTED_LONG.match(token)
    if m:
        return m.group(1), m.group(2)
    m = _PRINTED_DOUBLE.match(token)
    if m:
        return m.group(1), m.group(2)
    name, dot, params = token.partition(".")
    if dot and not params:
        raise ValueError(f"measure {name!r}: empty parameter after '.'")
    return name, (params if dot else None)


def known_names() -> str:
    return ", ".join([*ORDER, *NICKNAMES])


def requests(tokens: Iterable[str]) -> list[tuple[str, str | None]]:
    """(measure or nickname, params) per request; unknown names raise ValueError."""
    out: list[tuple[str, str | None]] = []
    for token in tokens:
        name, params = _split_request(token)
        if name not in KINDS and name not in NICKNAMES:
            raise ValueError(f"unknown measure {token!r} (known: {known_names()})")
        out.append((name, params))
    return out


def split_list(specs: Iterable[str]) -> list[str]:
    """Comma-separated requests; a part that is only parameters (`10` in `P.5,10`,
    `2=9` in `ndcg.1=3,2=9`) belongs to the request before it."""
    tokens: list[str] = []
    for raw in specs:
        for part in (p.strip() for p in raw.split(",")):
            if not part:
                continue
            if tokens and "." in tokens[-1] and (_NUMBER.match(part) or _PAIR.match(part)):
                tokens[-1] += "," + part
            else:
                tokens.append(part)
    return tokens


def resolve(reqs: Iterable[tuple[str, str | None]], *, trec_eval: bool) -> list[Measure]:
    """Printed values of the requests, nicknames expanded.

    trec_eval=True: as trec_eval's `-m`: the first parameters given for a measure
    apply, values come in trec_eval's print order. Otherwise every request stands on
    its own (`P_5,P_10` gives both) in request order.
    """
    reqs = list(reqs)
    if trec_eval:
        params: dict[str, str] = {}
        for name, p in reqs:
            if name in KINDS and p is not None:
                params.setdefault(name, p)
        wanted = {b for name, _ in reqs for b in NICKNAMES.get(name, (name,))}
        plan = [(b, params.get(b)) for b in ORDER if b in wanted]
    else:
        plan = [(b, p if b == name else None) for name, p in reqs
                for b in NICKNAMES.get(name, (name,))]  # fmt: skip
    out: list[Measure] = []
    for base, p in plan:
        for m in expand(base, p):
            if m not in out:
                out.append(m)
    return out
