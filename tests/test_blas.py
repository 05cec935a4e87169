"""emem sets one BLAS thread for its matrix-vector work unless told otherwise (emem.blas)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emem.blas import DEFAULT_BLAS_THREADS, blas_threads, limit_blas_threads


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, DEFAULT_BLAS_THREADS),
        ("", DEFAULT_BLAS_THREADS),
        ("2", 2),
        ("0", None),
        ("-1", None),
        ("many", None),
    ],
)
def test_the_variable_sets_the_count_or_leaves_blas_alone(value: str | None, expected: int | None) -> None:
    assert blas_threads(value) == expected


def test_opening_a_memory_leaves_one_blas_thread(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from emem.memory import Memory

    monkeypatch.delenv("EMEM_BLAS_THREADS", raising=False)
    limit_blas_threads.cache_clear()
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):  # restored on exit
        with Memory(home):
            pass
        counts = {lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"}
    assert counts == {1}
