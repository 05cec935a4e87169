"""Dense vectors in an embedded Chroma collection, one per namespace and embedder.

Chroma stores only ids, vectors and small metadata, never turn text: the episode store is the one
place content lives, which keeps erasure and tenant isolation simple to prove.

Chroma's client caches indexes in memory and is not safe across processes, so every call goes
through a `ChromaHandle`: shared lock to read, exclusive lock to write, and the client reopened
whenever another process has written since (see emem.locking).
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from emem.embedding import ChromaEmbeddingFunction, Embedder
from emem.locking import IndexLock

RECENT_VECTORS = 1024
HNSW_SYNC_THRESHOLD = 100
"""Chroma persists a collection's HNSW index every this many records (its default: 1000) and a
newly opened client replays every record since. The index manager closes the client after each
catch-up (emem.index.manager), so with the default the first write after another replayed up to
999 records (1.6-2 s for 5,880 vectors against 40-80 ms at 100, on a loaded 2-core machine;
`hnsw:batch_size` stays at its default, 100). Older collections are lowered on their next write."""


def open_chroma(path: Path):  # -> chromadb.ClientAPI
    import chromadb
    from chromadb.config import Settings
    from chromadb.utils.embedding_functions import known_embedding_functions

    # Chroma rebuilds a collection's stored embedding function by name when it loads the
    # collection's configuration; unknown, it warns "Could not reconstruct embedding function
    # emem" (or refuses). Registered, it rebuilds ours (emem still passes its own on every call).
    known_embedding_functions.setdefault(ChromaEmbeddingFunction.name(), ChromaEmbeddingFunction)

    path.mkdir(parents=True, exist_ok=True)
    settings = _SETTINGS.get(str(path))
    if settings is None:  # built once per path: Settings reads the environment (tens of ms)
        settings = _SETTINGS[str(path)] = Settings(anonymized_telemetry=False, allow_reset=False)
    return chromadb.PersistentClient(path=str(path), settings=settings)


_SETTINGS: dict[str, Any] = {}


class ChromaHandle:
    """The process's one Chroma client for a home, reopened when another process wrote."""

    _registry: dict[str, ChromaHandle] = {}
    _registry_lock = threading.Lock()

    @classmethod
    def for_home(cls, home: Path) -> ChromaHandle:
        lock = IndexLock.for_home(home)
        with cls._registry_lock:
            handle = cls._registry.get(str(lock.home))
            if handle is None:
                handle = cls._registry[str(lock.home)] = cls(lock.home / "chroma", lock)
            return handle

    def __init__(self, path: Path, lock: IndexLock) -> None:
        self.path = path
        self.lock = lock
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._scrubbed = False
        lock.subscribe(self._on_change)

    def _on_change(self, changed: set[str]) -> None:
        self.reset()

    def reset(self) -> None:
        """Close the client (caller holds the lock); the next call reopens it from disk."""
        client, self._client = self._client, None
        self._collections.clear()
        self._scrubbed = False
        if client is not None and hasattr(client, "close"):
            client.close()

    @property
    def client(self) -> Any:
        """Only valid while holding the lock."""
        if self._client is None:
            self._client = open_chroma(self.path)
        return self._client

    @contextmanager
    def reading(self) -> Iterator[ChromaHandle]:
        with self.lock.shared():
            yield self
            if not self._scrubbed and self._client is not None:
                # Loading an index can write its files from this process's uninitialised memory.
                self._scrubbed = True
                zero_unused_slots(self.path)

    @contextmanager
    def writing(self) -> Iterator[ChromaHandle]:
        with self.lock.exclusive():
            self.lock.bump("write")
            yield self

    def collection(self, name: str, metadata: dict[str, Any], embedder: Embedder, create: bool = True) -> Any:
        """The named collection (created under the exclusive lock when missing), or None."""
        col = self._collections.get(name)
        if col is None:
            from chromadb.errors import NotFoundError

            try:
                col = self.client.get_collection(
                    name=name, embedding_function=ChromaEmbeddingFunction(embedder)
                )
            except (NotFoundError, ValueError):
                if not create:
                    return None
                with self.writing():
                    col = self.client.get_or_create_collection(
                        name=name, embedding_function=ChromaEmbeddingFunction(embedder), metadata=metadata
                    )
            self._collections[name] = col
        return col

    def forget_collection(self, name: str) -> None:
        self._collections.pop(name, None)


_HEADER = struct.Struct("<iQQQQ")
"""The start of Chroma's hnswlib header.bin: version, offsetLevel0, max_elements, cur_element_count,
size_data_per_element."""


def zero_unused_slots(path: Path) -> int:
    """Zero the unused capacity of every HNSW index file under a Chroma folder; returns the files
    changed. hnswlib writes `data_level0.bin` and `length.bin` at full capacity straight from
    uninitialised memory, so the slots past `cur_element_count` can hold whatever the writing
    process had freed: other tenants' vectors, an erased vector, unrelated process memory. Only
    call it with no Chroma client open on the folder (the handle reset, under the exclusive lock)."""
    changed = 0
    for header in path.glob("*/header.bin"):
        raw = header.read_bytes()
        if len(raw) < _HEADER.size:
            continue
        version, _, max_elements, count, size = _HEADER.unpack_from(raw)
        if version != 1 or not 0 <= count <= max_elements:
            continue  # a format this code does not know: leave it alone
        for name, per in (("data_level0.bin", size), ("length.bin", 4)):
            file = header.parent / name
            if not file.exists() or file.stat().st_size != max_elements * per:
                continue
            with open(file, "r+b") as fh:
                fh.seek(count * per)
                tail = fh.read()
                if tail.count(0) == len(tail):
                    continue
                fh.seek(count * per)
                fh.write(bytes(len(tail)))
                fh.flush()
                os.fsync(fh.fileno())
            changed += 1
    return changed


def collection_name(namespace: str, kind: str, embedder: Embedder) -> str:
    digest = hashlib.sha256(f"{namespace}\x1f{kind}\x1f{embedder.name}".encode()).hexdigest()[:32]
    return f"emem-{kind}-{digest}"


class DenseIndex:
    def __init__(self, chroma: ChromaHandle, namespace: str, kind: str, embedder: Embedder) -> None:
        self.chroma = chroma
        self.namespace = namespace
        self.embedder = embedder
        self.name = collection_name(namespace, kind, embedder)
        self.metadata = {
            "hnsw:space": "cosine",
            "hnsw:sync_threshold": HNSW_SYNC_THRESHOLD,
            "namespace": namespace,
            "kind": kind,
        }
        self.recent: dict[str, np.ndarray] = {}
        """Vectors this object stored last (at most RECENT_VECTORS): a read right after a write
        takes them from here instead of reopening Chroma to read back what it just wrote."""

    def collection(self, create: bool = True) -> Any:
        """Only valid while holding the handle's lock."""
        return self.chroma.collection(self.name, self.metadata, self.embedder, create)

    def keys(self, batch: int = 5000) -> set[str]:
        """Every id the collection holds (empty when it does not exist). Caller holds the lock."""
        col = self.collection(create=False)
        if col is None:
            return set()
        out: set[str] = set()
        total = col.count()
        for offset in range(0, total, batch):
            out.update(col.get(include=[], limit=batch, offset=offset)["ids"])
        return out

    def count(self) -> int:
        with self.chroma.reading():
            col = self.collection(create=False)
            return col.count() if col is not None else 0

    def upsert(self, keys: list[str], texts: list[str], batch: int = 256) -> None:
        """Embed and store; upsert makes a replay after a crash harmless."""
        with self.chroma.writing():
            col = self.collection()
            _lower_sync_threshold(col)
            for start in range(0, len(keys), batch):
                ks, ts = keys[start : start + batch], texts[start : start + batch]
                vectors = self.embedder.embed(ts)
                col.upsert(ids=ks, embeddings=[v.tolist() for v in vectors])
                # Read back on the open client (under a millisecond): Chroma returns vectors that
                # can differ from those given in the last bit, and a later reader gets these.
                stored = col.get(ids=ks, include=["embeddings"])
                self._remember(stored["ids"], stored["embeddings"])

    def _remember(self, keys: list[str], vectors: Any) -> None:
        recent = dict(self.recent)  # replaced, never mutated: readers iterate without the lock
        recent.update((k, np.asarray(v, dtype=np.float32)) for k, v in zip(keys, vectors, strict=True))
        while len(recent) > RECENT_VECTORS:
            del recent[next(iter(recent))]
        self.recent = recent

    def delete(self, keys: list[str]) -> None:
        if keys:
            gone = set(keys)
            self.recent = {k: v for k, v in self.recent.items() if k not in gone}
            with self.chroma.writing():
                self.collection().delete(ids=keys)

    def search_vector(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        with self.chroma.reading():
            col = self.collection(create=False)
            n = col.count() if col is not None else 0
            if n == 0:
                return []
            res = col.query(query_embeddings=[vector.tolist()], n_results=min(k, n), include=["distances"])
        return [(key, 1.0 - float(d)) for key, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        return self.search_vector(self.embedder.embed([query])[0], k)


def _lower_sync_threshold(col: Any) -> None:
    """Bring a collection created with Chroma's default sync threshold down to ours (caller holds
    the exclusive lock): homes built before keep working, and stop paying the replay."""
    config = getattr(col, "configuration_json", None) or {}
    current = (config.get("hnsw") or {}).get("sync_threshold")
    if isinstance(current, int) and current > HNSW_SYNC_THRESHOLD:
        col.modify(configuration={"hnsw": {"sync_threshold": HNSW_SYNC_THRESHOLD}})


def fetch_vectors(index: DenseIndex, keys: list[str], batch: int = 1000) -> np.ndarray:
    """Read stored vectors back in `keys` order (for segment centroids and in-memory scoring);
    those this process has just stored come from `index.recent`, without opening Chroma."""
    out = np.zeros((len(keys), index.embedder.dim), dtype=np.float32)
    recent = index.recent
    pos = {}
    for i, k in enumerate(keys):
        if k in recent:
            out[i] = recent[k]
        else:
            pos[k] = i
    if not pos:
        return out
    keys = list(pos)
    with index.chroma.reading():
        col = index.collection(create=False)
        if col is None:
            return out
        for start in range(0, len(keys), batch):
            res = col.get(ids=keys[start : start + batch], include=["embeddings"])
            for key, vec in zip(res["ids"], res["embeddings"], strict=True):
                out[pos[key]] = np.asarray(vec, dtype=np.float32)
    return out
