"""Construction parameters. Defaults suit the ~20-document sample; the scale corpus overrides."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConstructionConfig:
    seed: int = 2
    n_queries: int = 30
    # A condition is eligible when it occurs in df_min..df_max documents ...
    df_min: int = 3
    df_max: int = 10
    # ... and, on average over those documents, on at most this fraction of their pages
    # ("Do Current Retrievers Cover All the Evidence?": conditions "occur on a few pages", not everywhere).
    max_mean_page_frac: float = 0.35
    # Rare conjunction: at most this many golds (and this fraction of the judged union).
    max_gold: int = 3
    max_gold_frac: float = 0.34
    min_subsets: int = 3
    # Diversity: one condition is reused by at most this many queries.
    max_uses: int = 3
    p_three: float = 0.3
    # Tried anchor documents before giving up on reaching n_queries.
    max_attempts: int = 20000
    run_depth: int = 100
    rrf_k: int = 60
    # Headings must be a PDF-outline title in at least this many documents.
    heading_min_docs: int = 2
    # Phrases/commands must occur on at least this many pages corpus-wide to be mined.
    min_pages: int = 3
    # Occurrence and filter rules. 2: a TeX name ends only where nothing can continue it
    # (`@`, `_`, `:` + letter; aliases.py), a phrase capitalised nearly everywhere (Title Case
    # or ALL CAPS) is a name, a phrase mostly used as a verb is dropped. 1: the rules the
    # bundled sample benchmark was built with (letters/digits only; Title Case only; no verb
    # filter), kept so sample_packets/ stays byte-identical until it is rebuilt on purpose.
    rules: int = 1

    @property
    def tex_names(self) -> bool:
        return self.rules >= 2
