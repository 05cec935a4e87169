"""Derived indexes, kept apart from the write path and caught up on demand.

Each index records the highest event seq it covers per namespace: the dense index persists it
next to the episodes (it is expensive to rebuild); BM25 lives in memory and is refitted from the
episode store when a process first needs it. Everything goes through the backend's contract
(emem.storage): catch-up writes under the coordinator's exclusive lock and re-reads coverage there,
so two processes never write the same collection at once nor from a stale client; and when another
process erased turns, the in-memory indexes are dropped and rebuilt from the store.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from emem.embedding import Embedder
from emem.index.bm25 import BM25Index
from emem.index.dense import DenseIndex
from emem.models import StoredTurn
from emem.storage.contract import StorageBackend

DENSE_TURNS = "dense_turns"
BM25_TURNS = "bm25_turns"


def dense_coverage_key(embedder_name: str) -> str:
    """Dense coverage is kept per embedder: each embedder has its own collection, so a home
    reopened with another embedder must embed its turns rather than trust the first one's count."""
    return f"{DENSE_TURNS}@{embedder_name}"


def is_dense_coverage_key(index_name: str) -> bool:
    return index_name == DENSE_TURNS or index_name.startswith(f"{DENSE_TURNS}@")


PENDING_MAX = 64
"""Turn vectors a read's catch-up may hold in memory before they are written to the vector index.
Each write closes Chroma's client and scrubs hnswlib's files (emem.index.chroma), so the next
write reopens the client and reloads the namespace's HNSW index: per appended turn that was about
a quarter of the first ask after it. Held vectors are searched exactly beside the index
(`DenseIndex.search_vector`) and written, with the usual close and scrub, when this many are held,
by `Memory.index`, by `coverage` and on `Memory.close`. Coverage counts only written vectors, so a
crash loses nothing but the work (the next catch-up embeds them again)."""

CHUNK = 256
"""Turns a catch-up embeds and writes at a time; coverage advances after each chunk is written."""

Progress = Callable[[int, int], None]
"""progress(done, total) callback for long catch-ups."""


def turn_key(turn: StoredTurn) -> str:
    return str(turn.seq)


def index_text(turn: StoredTurn) -> str:
    return f"{turn.speaker}: {turn.render()}"


def embedded_ahead(
    chunks: list[list[StoredTurn]], embed: Callable[[list[str]], np.ndarray]
) -> Iterator[tuple[list[StoredTurn], np.ndarray]]:
    """Each chunk with its turns' vectors, in order, the next chunk embedded while the caller
    writes this one: writing (Chroma, the read-back, coverage) ran on one core while the other
    waited, ~10% of a 10-conversation catch-up. Every chunk is embedded by the same `embed`
    call as one after another would make, so the vectors are the same; a chunk is yielded only
    once embedded, and nothing is written here.

    Args:
        chunks: turns to embed, in write order.
        embed: texts -> vectors (the namespace's embedder).
    Yields:
        (chunk, its vectors), in order.
    """
    if len(chunks) < 2:
        for chunk in chunks:
            yield chunk, embed([index_text(t) for t in chunk])
        return
    with ThreadPoolExecutor(1, thread_name_prefix="emem-embed-ahead") as ahead:
        pending = ahead.submit(embed, [index_text(t) for t in chunks[0]])
        try:
            for i, chunk in enumerate(chunks):
                vectors = pending.result()
                if i + 1 < len(chunks):
                    pending = ahead.submit(embed, [index_text(t) for t in chunks[i + 1]])
                yield chunk, vectors
        finally:
            pending.cancel()  # the caller stopped (an error writing): embed nothing more


@dataclass
class NamespaceIndexes:
    namespace: str
    dense: DenseIndex
    turns: dict[str, StoredTurn] = field(default_factory=dict)
    bm25: BM25Index = field(default_factory=BM25Index)
    speakers: set[str] = field(default_factory=set)
    """Everyone who speaks in the namespace: the dense query leaves their names out (retrieval.query)."""
    exact: Any = None
    """In-memory vectors for exact dense scoring (emem.retrieval.exact.ExactDense), on first use."""
    verified: bool = False
    """Dense coverage was checked against the collection itself in this process."""
    pending_seq: int = 0
    """Highest seq whose vector `dense` holds in memory, not yet written (0: none held)."""

    @property
    def covered_seq(self) -> int:
        return self.bm25.covered_seq


@dataclass
class CatchUpReport:
    namespace: str
    new_turns: int
    seconds: float
    covered_seq: int
    repaired: int = 0
    """Vectors the index lacked (or held for no stored turn) although coverage counted them."""


@dataclass(frozen=True)
class DenseCheck:
    """The dense index compared with the episode store, id by id (a count and a checksum of the
    ids, in one): what coverage claims, and what the collection really holds."""

    recorded: int
    """Seq the stored coverage claims."""
    true_covered: int
    """Highest seq such that every stored turn up to it has its vector."""
    missing: int
    extra: list[str]
    """Vector ids with no stored turn (left by a crash mid-erasure)."""

    @property
    def ok(self) -> bool:
        return self.true_covered >= self.recorded and not self.extra


class IndexManager:
    """The derived indexes of every namespace of one backend, for one embedder."""

    def __init__(self, backend: StorageBackend, embedder: Callable[[], Embedder]) -> None:
        self._store = backend.episodes
        self._vectors = backend.vectors
        self._coordinator = backend.coordinator
        self._embedder_factory = embedder
        self._by_ns: dict[str, NamespaceIndexes] = {}
        self._lock = threading.RLock()
        self._erased_elsewhere = False
        self._coordinator.subscribe(self._on_change)

    def _on_change(self, changed: set[str]) -> None:
        """Called under the home lock when another process changed the indexes: only set a flag."""
        if "erase" in changed:
            self._erased_elsewhere = True

    @property
    def embedder(self) -> Embedder:
        return self._embedder_factory()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Exclusive, announcing a vector write to other processes before it is made."""
        with self._coordinator.exclusive():
            self._coordinator.bump("write")
            yield

    def namespace_indexes(self, namespace: str) -> NamespaceIndexes:
        """The namespace's in-memory indexes as they are (created empty on first use, not caught
        up: `current` catches up). For inspection (tests, eval); reads use `current`."""
        with self._lock:
            if namespace not in self._by_ns:
                dense = DenseIndex(self._vectors, namespace, "turns", self.embedder)
                self._by_ns[namespace] = NamespaceIndexes(namespace=namespace, dense=dense)
            return self._by_ns[namespace]

    def _dense_covered(self, namespace: str, dense: DenseIndex) -> int:
        """Seq this embedder's collection covers. A count stored before coverage was kept per
        embedder (plain DENSE_TURNS) is trusted only when this embedder's collection exists."""
        cov = self._store.coverage(namespace)
        key = dense_coverage_key(dense.embedder.name)
        if key in cov:
            return cov[key]
        legacy = cov.get(DENSE_TURNS, 0)
        if not legacy:
            return 0
        with self._coordinator.shared():
            return legacy if dense.exists() else 0

    def check_dense(self, namespace: str, dense: DenseIndex) -> DenseCheck:
        """Compare coverage with the collection itself: a deleted or damaged index is noticed here
        instead of silently degrading search to BM25. Caller holds the lock (shared is enough)."""
        recorded = self._dense_covered(namespace, dense)
        seqs = [t.seq for t in self._store.turns(namespace, upto_seq=recorded)] if recorded else []
        held = dense.keys()
        missing = [s for s in seqs if str(s) not in held]
        true = min(missing) - 1 if missing else recorded
        live = {str(s) for s in seqs} | {str(t.seq) for t in self._store.turns(namespace, after_seq=recorded)}
        return DenseCheck(recorded, max(true, 0), len(missing), sorted(held - live))

    def _verify(self, namespace: str, ns: NamespaceIndexes) -> int:
        """Repair what `check_dense` finds: extra vectors go, coverage drops to what the collection
        really holds (catch-up then re-embeds the rest). Returns the vectors repaired."""
        with self._coordinator.shared():
            check = self.check_dense(namespace, ns.dense)
        if check.ok:
            ns.verified = True
            return 0
        with self._writing():
            check = self.check_dense(namespace, ns.dense)
            if check.extra:
                ns.dense.delete(check.extra)
            if check.true_covered < check.recorded:
                self._store.set_coverage(
                    namespace, dense_coverage_key(ns.dense.embedder.name), check.true_covered
                )
        ns.verified = True
        return check.missing + len(check.extra)

    def is_current(self, namespace: str) -> bool:
        last = self._store.last_seq(namespace)
        ns = self._by_ns.get(namespace)
        return (
            ns is not None
            and ns.verified
            and ns.covered_seq >= last
            and max(self._dense_covered(namespace, ns.dense), ns.pending_seq) >= last
        )

    def current(self, namespace: str, progress: Progress | None = None) -> NamespaceIndexes:
        """Catch every index up to the episode store, then return them. A few new turns' vectors
        may stay held in memory (PENDING_MAX) rather than written: reads see them all the same."""
        with self._lock:
            self.catch_up(namespace, progress, durable=False)
            return self._by_ns[namespace]

    def flush_pending(self, namespace: str | None = None) -> int:
        """Write the vectors held in memory (one namespace's, or every namespace's) to the vector
        index, with the close and scrub every write gets, and advance dense coverage.

        Args:
            namespace: only this namespace (None: all).
        Returns:
            How many vectors were written.
        """
        written = 0
        with self._lock:
            names = [namespace] if namespace is not None else list(self._by_ns)
            for name in names:
                ns = self._by_ns.get(name)
                if ns is not None and ns.dense.pending:
                    with self._writing():
                        written += self._write_pending(name, ns)
                        self._vectors.flush()
        return written

    def _write_pending(self, namespace: str, ns: NamespaceIndexes) -> int:
        """Caller holds the exclusive lock. Held vectors of turns another process erased since
        (the erase notice arrives with the lock) are discarded, never written."""
        held = ns.dense.drop_pending()
        upto, ns.pending_seq = ns.pending_seq, 0
        if self._erased_elsewhere or not held:
            return 0
        covered = self._dense_covered(namespace, ns.dense)
        live = {turn_key(t) for t in self._store.turns(namespace, after_seq=covered)}
        keys = [k for k in held if k in live]
        if keys:
            ns.dense.store(keys, np.stack([held[k] for k in keys]))
        if upto > covered:
            self._store.set_coverage(namespace, dense_coverage_key(ns.dense.embedder.name), upto)
        return len(keys)

    def catch_up(
        self, namespace: str, progress: Progress | None = None, *, durable: bool = True
    ) -> CatchUpReport:
        """Bring the namespace's indexes up to the episode store.

        Args:
            namespace: the tenant.
            progress: called as progress(done, total) while embedding.
            durable: write every vector to the vector index before returning (False lets up to
                PENDING_MAX stay held in memory, for a read's catch-up).
        Returns:
            What was done.
        """
        start = time.perf_counter()
        with self._lock:
            with self._coordinator.shared():  # notices erasures and writes by other processes
                if self._erased_elsewhere:
                    self._erased_elsewhere = False
                    self._by_ns.clear()
                ns = self.namespace_indexes(namespace)
            repaired = 0 if ns.verified else self._verify(namespace, ns)
            with self._coordinator.shared():
                new = self._store.turns(namespace, after_seq=ns.covered_seq)
                last = new[-1].seq if new else ns.covered_seq
                dense_covered = max(self._dense_covered(namespace, ns.dense), ns.pending_seq)
                held = (
                    self._store.turns(namespace, after_seq=dense_covered)
                    if not durable and 0 < last - dense_covered <= PENDING_MAX
                    else []
                )
            if held and len(ns.dense.pending) + len(held) <= PENDING_MAX and not self._erased_elsewhere:
                ns.dense.hold(
                    [turn_key(t) for t in held], ns.dense.embedder.embed([index_text(t) for t in held])
                )
                ns.pending_seq = dense_covered = held[-1].seq
            if dense_covered < last or (durable and ns.dense.pending):
                with self._writing():
                    self._write_pending(namespace, ns)
                    dense_covered = self._dense_covered(namespace, ns.dense)
                    key = dense_coverage_key(ns.dense.embedder.name)
                    todo = [t for t in self._store.turns(namespace, after_seq=dense_covered)]
                    chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
                    embed = ns.dense.embedder.embed
                    for i, (chunk, vectors) in enumerate(embedded_ahead(chunks, embed)):
                        ns.dense.store([turn_key(t) for t in chunk], vectors)
                        self._store.set_coverage(namespace, key, chunk[-1].seq)
                        if progress:
                            progress(min((i + 1) * CHUNK, len(todo)), len(todo))
                    self._vectors.flush()  # durable, and no stray process memory left in files
            if new:
                for t in new:
                    ns.turns[turn_key(t)] = t
                    ns.speakers.add(t.speaker)
                ns.bm25.add([(turn_key(t), index_text(t)) for t in new], covered_seq=last)
            return CatchUpReport(namespace, len(new), time.perf_counter() - start, last, repaired)

    def coverage(self, namespace: str) -> dict[str, int]:
        """{DENSE_TURNS: seq the collection really covers for this Memory's embedder (checked
        against the collection, not just the recorded count), BM25_TURNS: seq in memory}."""
        self.flush_pending(namespace)  # reports what is written, so write what is held first
        with self._lock:
            ns = self.namespace_indexes(namespace)
            with self._coordinator.shared():
                dense = self.check_dense(namespace, ns.dense).true_covered
        return {DENSE_TURNS: dense, BM25_TURNS: ns.covered_seq}

    def drop(self, namespace: str) -> None:
        """Forget the in-memory indexes of a namespace (they are rebuilt on next use)."""
        with self._lock:
            self._by_ns.pop(namespace, None)
