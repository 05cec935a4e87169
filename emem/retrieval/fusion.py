"""Rank fusion. Pure functions so the rule is easy to test and to swap."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RRF_K = 60


def rrf(
    rankings: Sequence[Sequence[str]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(d) = sum_i w_i / (k + rank_i(d)), rank from 1.

    Ties are broken by first appearance across the rankings, so the result is deterministic.
    """
    weights = weights or [1.0] * len(rankings)
    scores: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for w, ranking in zip(weights, rankings, strict=True):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
            first_seen.setdefault(key, len(first_seen))
    return sorted(scores.items(), key=lambda kv: (-kv[1], first_seen[kv[0]]))


def minmax_array(x: np.ndarray) -> np.ndarray:
    """`minmax` for an array: [0, 1], a constant array maps to 1.0, an empty one stays empty."""
    if x.size == 0:
        return x
    lo, hi = float(x.min()), float(x.max())
    return np.ones_like(x) if hi - lo < 1e-12 else (x - lo) / (hi - lo)


def minmax(scores: dict[str, float]) -> dict[str, float]:
    """Min-max normalise to [0, 1]; a constant list maps to 1.0 (all equally good)."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return {key: 1.0 for key in scores}
    return {key: (v - lo) / (hi - lo) for key, v in scores.items()}
