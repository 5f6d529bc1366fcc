"""Ranking rows within query groups: by score descending, ties by row order or a tiebreak.

Shared by fusion (scorers.fusion, scorers.fusion_rrf) and composition (scorers.compose).
"""

from __future__ import annotations

import numpy as np


def rank_within(
    qcode: np.ndarray, score: np.ndarray, depth: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Row indices sorted by (query code, score desc, row order) and their 0-based ranks.

    With ``depth``, only rows of rank < depth are returned. Runs are usually
    written in that order already; that is checked in O(n) and skips the sort.
    """
    n = len(score)
    if n and bool(np.all(qcode[1:] >= qcode[:-1])):
        same = qcode[1:] == qcode[:-1]
        if not bool(np.any(same & (score[1:] > score[:-1]))):
            starts = np.r_[0, np.flatnonzero(~same) + 1]
            rank = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
            order = np.arange(n)
            if depth is not None:
                keep = rank < depth
                return order[keep], rank[keep]
            return order, rank
    return rank_within_ties(qcode, score, np.arange(n), depth)


def rank_within_ties(
    qcode: np.ndarray, score: np.ndarray, tiebreak: np.ndarray, depth: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Like rank_within, but equal scores are ordered by ``tiebreak`` ascending."""
    order = np.lexsort((tiebreak, -score, qcode))
    q_sorted = qcode[order]
    starts = np.r_[0, np.flatnonzero(q_sorted[1:] != q_sorted[:-1]) + 1]
    group_start = np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rank = np.arange(len(order)) - group_start
    if depth is not None:
        keep = rank < depth
        return order[keep], rank[keep]
    return order, rank
