"""The embedded backend (the default): every store in files under the home directory.

    episodes.sqlite3   EpisodeStore     (SQLite WAL, synchronous=FULL, secure_delete)
    ledger.sqlite3     LedgerStore      (SQLite WAL, append-only triggers), created on first use
    chroma/            VectorIndex      (Chroma PersistentClient)
    vectors.sqlite3    TextVectorCache  (SQLite WAL, a cache)
    index.lock/.gen    Coordinator      (flock + change tokens, emem.locking)

One host only: the file lock and SQLite's locking coordinate the processes of one machine.
"""

from __future__ import annotations

import threading
from pathlib import Path

from emem.errors import InputError
from emem.index.chroma import ChromaHandle, ChromaVectorIndex
from emem.index.vector_cache import SqliteTextVectorCache
from emem.ledger.sqlite import SqliteLedgerStore
from emem.locking import IndexLock
from emem.storage.contract import CompactReport, LedgerStore
from emem.store.episodes import SqliteEpisodeStore

EPISODES_FILE = "episodes.sqlite3"
LEDGER_FILE = "ledger.sqlite3"


class EmbeddedBackend:
    """SQLite + Chroma + a file lock under one home directory (see the module docstring)."""

    name = "embedded"

    def __init__(self, home: Path) -> None:
        self.home = home
        self.location = str(home)
        self.coordinator = IndexLock.for_home(home)
        self.episodes = SqliteEpisodeStore(home / EPISODES_FILE)
        self.vectors = ChromaVectorIndex(ChromaHandle.for_home(home))
        self.text_vectors = SqliteTextVectorCache(home)
        self._ledger: SqliteLedgerStore | None = None
        self._ledger_lock = threading.Lock()

    @property
    def ledger(self) -> LedgerStore:
        """The ledger file, opened (and created) on first use."""
        with self._ledger_lock:
            if self._ledger is None:
                self._ledger = SqliteLedgerStore(self.home / LEDGER_FILE)
            return self._ledger

    def has_ledger(self) -> bool:
        return self._ledger is not None or (self.home / LEDGER_FILE).exists()

    def compact(self) -> CompactReport:
        """Vectors first (their folder and chroma.sqlite3), then the cache, episodes and ledger."""
        report = self.vectors.compact().merge(self.text_vectors.compact())
        report = report.merge(self.episodes.compact())
        if self.has_ledger():
            report = report.merge(self.ledger.compact())
        return report

    def close(self) -> None:
        self.episodes.close()
        self.text_vectors.close()
        self.vectors.close()
        with self._ledger_lock:
            if self._ledger is not None:
                self._ledger.close()
                self._ledger = None


def open_embedded(spec: str, home: Path) -> EmbeddedBackend:
    """Opener for "embedded" (the only spec it takes: the home directory says where).

    Args:
        spec: "embedded".
        home: the directory holding every store.

    Returns:
        The backend.
    """
    if spec.lower() != "embedded":
        raise InputError(
            f"the embedded backend takes no URL, got {spec!r}; its files live in the home", "backend"
        )
    return EmbeddedBackend(home)
