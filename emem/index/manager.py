"""Derived indexes, kept apart from the write path and caught up on demand.

Each index records the highest event seq it covers per namespace: the dense index persists it
next to the episodes (it is expensive to rebuild); BM25 lives in memory and is refitted from the
episode store when a process first needs it. A cross-process file lock serialises catch-up so two
processes never write the same Chroma collection at once.
"""

from __future__ import annotations

import fcntl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from emem.embedding import Embedder
from emem.index.bm25 import BM25Index
from emem.index.dense import DenseIndex, open_chroma
from emem.models import StoredTurn
from emem.store.episodes import EpisodeStore

DENSE_TURNS = "dense_turns"
BM25_TURNS = "bm25_turns"

Progress = Callable[[int, int], None]
"""progress(done, total) callback for long catch-ups."""


def turn_key(turn: StoredTurn) -> str:
    return str(turn.seq)


def index_text(turn: StoredTurn) -> str:
    return f"{turn.speaker}: {turn.render()}"


@dataclass
class NamespaceIndexes:
    namespace: str
    dense: DenseIndex
    turns: dict[str, StoredTurn] = field(default_factory=dict)
    bm25: BM25Index = field(default_factory=BM25Index)

    @property
    def covered_seq(self) -> int:
        return self.bm25.covered_seq


@dataclass
class CatchUpReport:
    namespace: str
    new_turns: int
    seconds: float
    covered_seq: int


class IndexManager:
    def __init__(self, store: EpisodeStore, home: Path, embedder: Callable[[], Embedder]) -> None:
        self._store = store
        self._home = home
        self._embedder_factory = embedder
        self._chroma = None
        self._by_ns: dict[str, NamespaceIndexes] = {}
        self._lock = threading.RLock()

    @property
    def embedder(self) -> Embedder:
        return self._embedder_factory()

    def chroma(self):
        if self._chroma is None:
            self._chroma = open_chroma(self._home / "chroma")
        return self._chroma

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        self._home.mkdir(parents=True, exist_ok=True)
        with open(self._home / "index.lock", "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _indexes(self, namespace: str) -> NamespaceIndexes:
        if namespace not in self._by_ns:
            dense = DenseIndex(self.chroma(), namespace, "turns", self.embedder)
            self._by_ns[namespace] = NamespaceIndexes(namespace=namespace, dense=dense)
        return self._by_ns[namespace]

    def is_current(self, namespace: str) -> bool:
        last = self._store.last_seq(namespace)
        ns = self._by_ns.get(namespace)
        return (
            bool(ns)
            and ns.covered_seq >= last
            and self._store.coverage(namespace).get(DENSE_TURNS, 0) >= last
        )

    def current(self, namespace: str, progress: Progress | None = None) -> NamespaceIndexes:
        """Catch every index up to the episode store, then return them."""
        with self._lock:
            self.catch_up(namespace, progress)
            return self._by_ns[namespace]

    def catch_up(self, namespace: str, progress: Progress | None = None) -> CatchUpReport:
        start = time.perf_counter()
        with self._lock:
            ns = self._indexes(namespace)
            new = self._store.turns(namespace, after_seq=ns.covered_seq)
            last = new[-1].seq if new else ns.covered_seq
            dense_covered = self._store.coverage(namespace).get(DENSE_TURNS, 0)
            if dense_covered < last:
                with self._file_lock():
                    dense_covered = self._store.coverage(namespace).get(DENSE_TURNS, 0)
                    todo = [t for t in self._store.turns(namespace, after_seq=dense_covered)]
                    for i in range(0, len(todo), 256):
                        chunk = todo[i : i + 256]
                        ns.dense.upsert([turn_key(t) for t in chunk], [index_text(t) for t in chunk])
                        self._store.set_coverage(namespace, DENSE_TURNS, chunk[-1].seq)
                        if progress:
                            progress(min(i + 256, len(todo)), len(todo))
            if new:
                for t in new:
                    ns.turns[turn_key(t)] = t
                ns.bm25.add([(turn_key(t), index_text(t)) for t in new], covered_seq=last)
            return CatchUpReport(namespace, len(new), time.perf_counter() - start, last)

    def coverage(self, namespace: str) -> dict[str, int]:
        cov = dict(self._store.coverage(namespace))
        ns = self._by_ns.get(namespace)
        cov[BM25_TURNS] = ns.covered_seq if ns else 0
        return cov

    def drop(self, namespace: str) -> None:
        """Forget the in-memory indexes of a namespace (they are rebuilt on next use)."""
        with self._lock:
            self._by_ns.pop(namespace, None)
