"""The embedded `emem.storage.VectorIndex`: Chroma `PersistentClient` collections under `<home>/chroma`.

Chroma stores only ids, vectors and small metadata, never turn text: the episode store is the one
place content lives, which keeps erasure and tenant isolation simple to prove.

Chroma's client caches indexes in memory and is not safe across processes, so every call goes
through a `ChromaHandle`: shared lock to read, exclusive lock to write, and the client reopened
whenever another process has written since (see emem.locking).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import sqlite3
import struct
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from emem.embedding import ChromaEmbeddingFunction, Embedder
from emem.locking import IndexLock
from emem.storage.contract import CompactReport, VectorErasure
from emem.store.sqlite import compact_file

_UUID_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_PAGE = 5000
"""Ids read per `get` call when listing a collection."""


def open_chroma(path: Path):  # -> chromadb.ClientAPI
    import chromadb
    from chromadb.config import Settings
    from chromadb.utils.embedding_functions import known_embedding_functions

    # Chroma rebuilds a collection's stored embedding function by name when it loads the
    # collection's configuration; unknown, it warns "Could not reconstruct embedding function
    # emem" (or refuses). Registered, it rebuilds ours (emem still passes its own on every call).
    known_embedding_functions.setdefault(ChromaEmbeddingFunction.name(), ChromaEmbeddingFunction)  # type: ignore[arg-type]

    path.mkdir(parents=True, exist_ok=True)
    settings = _SETTINGS.get(str(path))
    if settings is None:  # built once per path: Settings reads the environment (tens of ms)
        settings = _SETTINGS[str(path)] = Settings(anonymized_telemetry=False, allow_reset=False)
    # Opening runs Chroma's schema migrations. Two processes opening a fresh directory at once
    # (both under the index's *shared* lock, e.g. two first catch-ups) race to create the same
    # tables ("table collections already exists"), so opens are serialised by their own lock.
    with open(path / ".open.lock", "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            return chromadb.PersistentClient(path=str(path), settings=settings)
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_SETTINGS: dict[str, Any] = {}

HNSW_SYNC_THRESHOLD = 100
"""Chroma persists a collection's HNSW index every this many records (its default: 1000) and a
newly opened client replays every record since. The index manager closes the client after each
catch-up (emem.index.manager), so with the default the first write after another replayed up to
999 records (1.6-2 s for 5,880 vectors against 40-80 ms at 100, on a loaded 2-core machine;
`hnsw:batch_size` stays at its default, 100). Older collections are lowered on their next write."""


def _lower_sync_threshold(col: Any) -> None:
    """Bring a collection created with Chroma's default sync threshold down to ours (caller holds
    the exclusive lock): homes built before keep working, and stop paying the replay."""
    config = getattr(col, "configuration_json", None) or {}
    current = (config.get("hnsw") or {}).get("sync_threshold")
    if isinstance(current, int) and current > HNSW_SYNC_THRESHOLD:
        col.modify(configuration={"hnsw": {"sync_threshold": HNSW_SYNC_THRESHOLD}})


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


def collection_name(namespace: str, kind: str, model: str) -> str:
    """Chroma's name for a collection: a digest, so no namespace text ends up in a folder name."""
    digest = hashlib.sha256(f"{namespace}\x1f{kind}\x1f{model}".encode()).hexdigest()[:32]
    return f"emem-{kind}-{digest}"


class _StoredVectorsOnly:
    """Stands in for the embedder of a collection: vectors arrive computed, Chroma never embeds.
    Its name (the model's) is what Chroma records in the collection's configuration."""

    dim = 0

    def __init__(self, model: str) -> None:
        self.name = model

    def embed(self, texts: list[str]) -> Any:
        raise RuntimeError("the Chroma vector index is given vectors; it never embeds")


class ChromaVectorIndex:
    """One collection per (namespace, kind, model), reached through the home's `ChromaHandle`."""

    def __init__(self, handle: ChromaHandle) -> None:
        self.handle = handle

    @property
    def path(self) -> Path:
        return self.handle.path

    def _collection(self, namespace: str, kind: str, model: str, create: bool) -> Any:
        """Only valid while holding the handle's lock."""
        metadata = {
            "hnsw:space": "cosine",
            "hnsw:sync_threshold": HNSW_SYNC_THRESHOLD,
            "namespace": namespace,
            "kind": kind,
        }
        return self.handle.collection(
            collection_name(namespace, kind, model),
            metadata,
            _StoredVectorsOnly(model),
            create,  # type: ignore[arg-type]
        )

    def exists(self, namespace: str, kind: str, model: str) -> bool:
        with self.handle.reading():
            return self._collection(namespace, kind, model, create=False) is not None

    def count(self, namespace: str, kind: str, model: str) -> int:
        with self.handle.reading():
            col = self._collection(namespace, kind, model, create=False)
            return col.count() if col is not None else 0

    def keys(self, namespace: str, kind: str, model: str) -> set[str]:
        with self.handle.reading():
            col = self._collection(namespace, kind, model, create=False)
            return set(_all_ids(col)) if col is not None else set()

    def upsert(self, namespace: str, kind: str, model: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Upsert makes a replay after a crash harmless."""
        if not len(keys):
            return
        with self.handle.writing():
            col = self._collection(namespace, kind, model, create=True)
            _lower_sync_threshold(col)
            col.upsert(ids=list(keys), embeddings=[np.asarray(v, dtype=np.float32).tolist() for v in vectors])

    def delete(self, namespace: str, kind: str, model: str, keys: Sequence[str]) -> None:
        if keys:
            with self.handle.writing():
                self._collection(namespace, kind, model, create=True).delete(ids=list(keys))

    def query(
        self, namespace: str, kind: str, model: str, vector: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        with self.handle.reading():
            col = self._collection(namespace, kind, model, create=False)
            n = col.count() if col is not None else 0
            if n == 0:
                return []
            res = col.query(query_embeddings=[vector.tolist()], n_results=min(k, n), include=["distances"])
        return [(key, 1.0 - float(d)) for key, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    def get(
        self, namespace: str, kind: str, model: str, keys: Sequence[str], batch: int = 1000
    ) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self.handle.reading():
            col = self._collection(namespace, kind, model, create=False)
            if col is None:
                return out
            for start in range(0, len(keys), batch):
                res = col.get(ids=list(keys[start : start + batch]), include=["embeddings"])
                for key, vec in zip(res["ids"], res["embeddings"], strict=True):
                    out[key] = np.asarray(vec, dtype=np.float32)
        return out

    def as_stored(self, vectors: np.ndarray) -> np.ndarray:
        """Round-trips the vectors through an in-memory Chroma collection (no files): Chroma
        changes the last bits of some vectors on upsert, and a held vector must equal the one a
        later reader gets back from this index."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if not len(vectors):
            return vectors
        with _SCRATCH_LOCK:
            col = _scratch(int(vectors.shape[1]))
            ids = [str(i) for i in range(len(vectors))]
            col.upsert(ids=ids, embeddings=[v.tolist() for v in vectors])
            got = col.get(ids=ids, include=["embeddings"])
            col.delete(ids=ids)
        by_id = dict(zip(got["ids"], got["embeddings"], strict=True))
        return np.stack([np.asarray(by_id[i], dtype=np.float32) for i in ids])

    def flush(self) -> None:
        """Persist and close the client, then zero hnswlib's unused slots: no stray process
        memory stays in the files."""
        with self.handle.lock.exclusive():
            self.handle.reset()
            zero_unused_slots(self.handle.path)

    def erase(
        self,
        namespace: str,
        keys: Collection[str],
        *,
        live: Collection[str] | None = None,
        whole_namespace: bool = False,
    ) -> VectorErasure:
        """Delete the vectors, then rebuild each touched collection from its survivors so no old
        HNSW file or Chroma log row keeps them (`compact` then removes the old folders)."""
        out = VectorErasure()
        if not self.handle.path.exists():
            return out
        with self.handle.writing():
            client = self.handle.client
            for listed in client.list_collections():
                if (listed.metadata or {}).get("namespace") != namespace:
                    continue
                ef = ChromaEmbeddingFunction(_StoredVectorsOnly("emem-erasure"))  # type: ignore[arg-type]
                col = client.get_collection(listed.name, embedding_function=ef)
                ids, vectors = _all_vectors(col)
                if whole_namespace:
                    client.delete_collection(col.name)
                    self.handle.forget_collection(col.name)
                    out.vectors += len(ids)
                    out.collections_rebuilt += 1
                    continue
                gone = {i for i in ids if i in keys or (live is not None and i not in live)}
                if not gone:
                    continue
                metadata = dict(col.metadata or {})
                client.delete_collection(col.name)
                self.handle.forget_collection(col.name)
                fresh = client.create_collection(col.name, metadata=metadata, embedding_function=ef)
                keep = [(i, v) for i, v in zip(ids, vectors, strict=True) if i not in gone]
                for start in range(0, len(keep), 1000):
                    chunk = keep[start : start + 1000]
                    fresh.upsert(
                        ids=[i for i, _ in chunk], embeddings=[list(map(float, v)) for _, v in chunk]
                    )
                out.vectors += len(gone)
                out.collections_rebuilt += 1
        return out

    def compact(self) -> CompactReport:
        """Close the client, remove segment folders no collection owns (Chroma leaves a deleted
        collection's HNSW files behind), zero unused HNSW slots and vacuum chroma.sqlite3."""
        report = CompactReport()
        if not self.handle.path.exists():
            return report
        with self.handle.lock.exclusive():
            self.handle.reset()  # closes Chroma's own connections before the folder is cleaned
            _remove_orphan_segments(self.handle.path, report)
            zero_unused_slots(self.handle.path)  # hnswlib writes freed memory (e.g. erased vectors) there
            return report.merge(compact_file(self.handle.path / "chroma.sqlite3", wal=False))

    def close(self) -> None:
        """Nothing to do: the handle is shared by every Memory of the home in this process."""


_SCRATCH_LOCK = threading.Lock()
_SCRATCH: dict[int, Any] = {}


def _scratch(dim: int) -> Any:
    """An in-memory (ephemeral) cosine collection for `dim`-dimensional round trips, one per
    process and dimension. Caller holds _SCRATCH_LOCK."""
    col = _SCRATCH.get(dim)
    if col is None:
        import chromadb
        from chromadb.config import Settings

        client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False, allow_reset=False))
        ef = ChromaEmbeddingFunction(_StoredVectorsOnly("emem-round-trip"))  # type: ignore[arg-type]
        col = _SCRATCH[dim] = client.get_or_create_collection(
            f"emem-round-trip-{dim}",
            metadata={"hnsw:space": "cosine"},
            embedding_function=ef,  # type: ignore[arg-type]
        )
    return col


def _all_ids(col: Any) -> list[str]:
    out: list[str] = []
    total = col.count()
    for offset in range(0, total, _PAGE):
        out += col.get(include=[], limit=_PAGE, offset=offset)["ids"]
    return out


def _all_vectors(col: Any) -> tuple[list[str], list[Any]]:
    ids: list[str] = []
    vectors: list[Any] = []
    total = col.count()
    for offset in range(0, total, _PAGE):
        got = col.get(include=["embeddings"], limit=_PAGE, offset=offset)
        ids += list(got["ids"])
        vectors += list(got["embeddings"])
    return ids, vectors


def _remove_orphan_segments(path: Path, report: CompactReport) -> None:
    """Chroma leaves a deleted collection's HNSW folder on disk; remove folders no segment owns."""
    db = path / "chroma.sqlite3"
    if not db.exists():
        return
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            owned = {r[0] for r in conn.execute("SELECT id FROM segments")}
    except sqlite3.Error as exc:
        report.warnings.append(f"{db.name}: cannot list Chroma segments ({exc}); old folders kept")
        return
    for child in path.iterdir():
        if child.is_dir() and _UUID_DIR.match(child.name) and child.name not in owned:
            shutil.rmtree(child, ignore_errors=True)
