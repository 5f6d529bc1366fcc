"""Finite-orbit interface audit ("Which Reranking Conclusions Survive the Answer Interface?"): how a BM25-to-variant retrieval effect moves
across the 2^3 answer interfaces (binding, vocabulary, option order).

Pure NumPy: the table is read at the edge (`formats.orbit_table`), these modules
only compute.
"""

from scorers.orbit.walsh import INTERFACES, SUBSET_KEYS, inverse_walsh, r_norms, walsh

__all__ = ["INTERFACES", "SUBSET_KEYS", "inverse_walsh", "r_norms", "walsh"]
