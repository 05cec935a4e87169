"""Significance and uncertainty for paired system comparisons, as pure functions.

Systems are scored on the same questions, so a paired test (McNemar) and per-system bootstrap
intervals tell whether a difference in headline numbers is more than noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from emem.errors import InputError

DEFAULT_CORRECT_THRESHOLD = 0.5
"""A question counts as correct when its score reaches this (J is 0/1, so any value in (0,1] works
for it; for F1 it means "at least half right")."""


def is_correct(score: float | None, threshold: float = DEFAULT_CORRECT_THRESHOLD) -> bool:
    """Binary correctness from a graded score; a missing score is not correct."""
    return score is not None and score >= threshold


def discordant_pairs(a: Sequence[bool], b: Sequence[bool]) -> tuple[int, int]:
    """(b, c) of McNemar's table: questions only system A got right, and only system B got right."""
    if len(a) != len(b):
        raise InputError(f"paired outcomes differ in length: {len(a)} vs {len(b)}", "mcnemar")
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    return only_a, only_b


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, 1/2).

    Exact rather than chi-squared because per-category discordant counts are often small."""
    if b < 0 or c < 0:
        raise InputError(f"discordant counts must be non-negative, got b={b}, c={c}", "mcnemar")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


class ConfidenceInterval(BaseModel):
    mean: float
    low: float
    high: float
    n: int
    confidence: float


def bootstrap_ci(
    values: Sequence[float],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ConfidenceInterval:
    """Percentile bootstrap CI for a mean; seeded so the same log always gives the same interval.

    With no values every bound is NaN (there is nothing to estimate)."""
    if n_resamples < 1 or not 0 < confidence < 1:
        raise InputError("need n_resamples >= 1 and 0 < confidence < 1", "bootstrap")
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return ConfidenceInterval(mean=math.nan, low=math.nan, high=math.nan, n=0, confidence=confidence)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.size, size=(n_resamples, data.size))
    means = data[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return ConfidenceInterval(
        mean=float(data.mean()), low=float(low), high=float(high), n=int(data.size), confidence=confidence
    )
