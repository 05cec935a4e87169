"""McNemar's exact test on known tables and a deterministic, sane bootstrap."""

from __future__ import annotations

import math

import pytest

from emem.errors import InputError
from emem.eval.stats import bootstrap_ci, discordant_pairs, is_correct, mcnemar_exact


def test_mcnemar_known_tables():
    assert mcnemar_exact(10, 2) == pytest.approx(158 / 4096)  # ≈ 0.0386
    assert mcnemar_exact(2, 10) == mcnemar_exact(10, 2)
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(1, 0) == 1.0
    with pytest.raises(InputError):
        mcnemar_exact(-1, 2)


def test_discordant_pairs_and_correctness():
    a = [True, True, False, False, True]
    b = [True, False, True, False, False]
    assert discordant_pairs(a, b) == (2, 1)
    with pytest.raises(InputError):
        discordant_pairs([True], [])
    assert is_correct(0.5) and not is_correct(0.499) and not is_correct(None)
    assert is_correct(0.3, threshold=0.25)


def test_bootstrap_deterministic_with_seed():
    values = [0.0, 1.0, 0.5, 1.0, 0.0, 0.25, 1.0, 0.75]
    first = bootstrap_ci(values, n_resamples=500, seed=7)
    assert first == bootstrap_ci(values, n_resamples=500, seed=7)
    assert first != bootstrap_ci(values, n_resamples=500, seed=8)
    assert first.low <= first.mean <= first.high
    assert first.mean == pytest.approx(sum(values) / len(values))
    assert first.n == 8 and first.confidence == 0.95


def test_bootstrap_edge_cases():
    const = bootstrap_ci([0.4] * 10, n_resamples=50)
    assert const.low == pytest.approx(0.4) and const.high == pytest.approx(0.4)
    empty = bootstrap_ci([])
    assert empty.n == 0 and math.isnan(empty.mean) and math.isnan(empty.low)
    with pytest.raises(InputError):
        bootstrap_ci([1.0], n_resamples=0)
