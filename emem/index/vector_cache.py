"""Vectors of derived texts (segment summaries), cached by content hash in `<home>/vectors.sqlite3`;
turns' entity labels are stored the same way (emem.retrieval.typed.LabelEncoder).

A read view embeds one summary per segment; without this cache every write made the next read
re-embed all of them, in every process. Keys are (namespace, embedder, sha256 of the text), so a
text is embedded once per home and embedder, and a home never mixes two models' vectors. It is a
cache: losing it costs time only, so writes use `synchronous=NORMAL`. Erasure deletes a
namespace's rows (emem.erasure) because a summary quotes the turns it summarises; so new rows are
written under the backend's coordinator lock (shared: erasure holds it exclusively), and only if
the caller confirms there, after any erasure elsewhere has been noticed, that its texts predate none.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import numpy as np

from emem.embedding import Embedder
from emem.storage.contract import CompactReport, TextVectorCache
from emem.store.sqlite import compact_file, connect

FILE_NAME = "vectors.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS text_vectors (
    namespace TEXT NOT NULL,
    embedder TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (namespace, embedder, text_sha256)
) WITHOUT ROWID
"""


def cache_path(home: Path) -> Path:
    return home / FILE_NAME


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """Embeds texts through a `TextVectorCache`: only texts not cached yet reach the embedder."""

    def __init__(
        self,
        store: TextVectorCache | Path,
        shared_lock: Callable[[], AbstractContextManager[None]] | None = None,
    ) -> None:
        """Args:
        store: the backend's cache, or a home directory (its embedded SQLite cache).
        shared_lock: the backend coordinator's `shared`, held while new vectors are stored (so an
            erasure, which holds it exclusively, is noticed first)."""
        self.store: TextVectorCache = SqliteTextVectorCache(store) if isinstance(store, Path) else store
        self.shared_lock = shared_lock or nullcontext

    def embed(
        self,
        namespace: str,
        embedder: Embedder,
        texts: Sequence[str],
        still_valid: Callable[[], bool] | None = None,
    ) -> np.ndarray:
        """Vectors of `texts`, embedding (and storing) only those not cached yet.

        Args:
            namespace: the tenant the texts belong to (erasure drops its rows by namespace).
            embedder: the model; its `name` is part of the key.
            texts: texts to embed (duplicates are embedded once).
            still_valid: asked under the shared lock before new vectors are stored: False when the
                content the texts derive from may have been erased since (they are then returned
                but not stored). None stores unconditionally.
        Returns:
            An (n, dim) float32 array, row i for texts[i].
        """
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        hashes = [text_hash(t) for t in texts]
        found = self.store.get(namespace, embedder.name, hashes)
        todo = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        if todo:
            vectors = embedder.embed(list(todo.values()))
            fresh = dict(zip(todo, vectors, strict=True))
            with self.shared_lock():  # notices erasures made meanwhile
                if still_valid is None or still_valid():
                    self.store.put(namespace, embedder.name, fresh)
            found.update(fresh)
        return np.stack([found[h] for h in hashes]).astype(np.float32)

    def discard(self, namespace: str, embedder_name: str, hashes: Sequence[str]) -> None:
        """Delete vectors no view uses any more (a summary replaced when its segment grew), so the
        store does not keep one stale row per appended turn. Another process needing one re-embeds it."""
        self.store.discard(namespace, embedder_name, hashes)

    def count(self, namespace: str) -> int:
        return self.store.count(namespace)


class SqliteTextVectorCache:
    """The embedded `emem.storage.TextVectorCache`: `<home>/vectors.sqlite3`, one connection
    guarded by a lock, opened on first use."""

    def __init__(self, home: Path) -> None:
        self.path = cache_path(home)
        self._conn = None
        self._lock = threading.Lock()

    def _db(self):  # -> sqlite3.Connection
        if self._conn is None:
            self._conn = connect(self.path)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
        return self._conn

    def get(self, namespace: str, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            db = self._db()
            unique = sorted(set(hashes))
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(
                    f"SELECT text_sha256, vector FROM text_vectors WHERE namespace=? AND embedder=? "
                    f"AND text_sha256 IN ({marks})",
                    (namespace, model, *chunk),
                )
                for h, blob in rows:
                    out[h] = np.frombuffer(blob, dtype=np.float32).copy()
        return out

    def put(self, namespace: str, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self._lock:
            db = self._db()
            db.execute("BEGIN")
            db.executemany(
                "INSERT OR REPLACE INTO text_vectors VALUES (?, ?, ?, ?)",
                [(namespace, model, h, np.asarray(v, np.float32).tobytes()) for h, v in vectors.items()],
            )
            db.execute("COMMIT")

    def discard(self, namespace: str, model: str, hashes: Sequence[str]) -> None:
        if not hashes:
            return
        with self._lock:
            db = self._db()
            db.execute("BEGIN")
            db.executemany(
                "DELETE FROM text_vectors WHERE namespace=? AND embedder=? AND text_sha256=?",
                [(namespace, model, h) for h in hashes],
            )
            db.execute("COMMIT")

    def count(self, namespace: str) -> int:
        with self._lock:
            return (
                self._db()
                .execute("SELECT COUNT(*) FROM text_vectors WHERE namespace=?", (namespace,))
                .fetchone()[0]
            )

    def erase_namespace(self, namespace: str) -> int:
        """Delete every cached vector of `namespace` (erasure); a missing file stays missing."""
        if not self.path.exists():
            return 0
        conn = connect(self.path)  # synchronous=FULL: an erasure's delete is not a cache write
        try:
            conn.execute(_SCHEMA)
            return conn.execute("DELETE FROM text_vectors WHERE namespace=?", (namespace,)).rowcount
        finally:
            conn.close()

    def compact(self) -> CompactReport:
        """VACUUM the file and truncate its WAL (this connection closed first, so it holds no page)."""
        self.close()
        return compact_file(self.path, wal=True)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
