"""One BLAS thread for emem's numpy work, chosen by measurement.

The read path's linear algebra is matrix-vector sized (a question against a namespace's turn,
summary and centroid vectors: 5,880 x 384 at 10 LoCoMo conversations). OpenBLAS splits even that
across threads, and on a busy 2-core machine the threads mostly wait for each other: the product
took 6.4 ms of process CPU (28 ms wall) with numpy's default threads and 0.48 ms (2.8 ms) with
one, and the global routing pathway 13.4 ms (52) against 3.6 ms (19) (session 8, load ~13).
The embedder (ONNX Runtime) keeps its own threads; this sets only BLAS's.

`EMEM_BLAS_THREADS` overrides the count; `0` leaves the process's BLAS settings alone (an
application that does large matrix work of its own may want that).
"""

from __future__ import annotations

import os
from functools import lru_cache

BLAS_THREADS_ENV = "EMEM_BLAS_THREADS"
DEFAULT_BLAS_THREADS = 1


def blas_threads(value: str | None) -> int | None:
    """The BLAS thread count an `EMEM_BLAS_THREADS` value asks for (None: leave BLAS alone).

    Args:
        value: the variable's value, or None when unset (the default, one thread).

    Returns:
        A positive count, or None for "0" or a value that is not a number.
    """
    if value is None or not value.strip():
        return DEFAULT_BLAS_THREADS
    try:
        n = int(value)
    except ValueError:
        return None
    return n if n > 0 else None


@lru_cache(maxsize=1)
def limit_blas_threads() -> int | None:
    """Set the process's BLAS thread count once (the first `Memory` opened does).

    Returns:
        The count set, or None when left alone (asked to, or threadpoolctl is not installed).
    """
    n = blas_threads(os.environ.get(BLAS_THREADS_ENV))
    if n is None:
        return None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an optional speed-up: without it BLAS keeps numpy's default threads
        return None
    threadpool_limits(limits=n, user_api="blas")
    return n
