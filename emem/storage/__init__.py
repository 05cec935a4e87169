"""The storage contract (emem.storage.contract) and backend selection (emem.storage.select).

Backends live in subpackages: `emem.storage.embedded` (SQLite WAL + Chroma + a file lock, the
default) and `emem.storage.postgres` (PostgreSQL + pgvector). See docs/storage.md.
"""

from emem.storage.contract import (
    CompactReport,
    Coordinator,
    EpisodeStore,
    ErasedTurn,
    LedgerStore,
    PendingErasure,
    StorageBackend,
    TextVectorCache,
    Tombstone,
    TurnTombstone,
    VectorErasure,
    VectorIndex,
)
from emem.storage.select import BACKEND_ENV, DEFAULT_BACKEND, backend_spec, open_backend

Backend = StorageBackend
"""Alias: the bundle a `Memory` opens."""

__all__ = [
    "BACKEND_ENV",
    "DEFAULT_BACKEND",
    "Backend",
    "CompactReport",
    "Coordinator",
    "EpisodeStore",
    "ErasedTurn",
    "LedgerStore",
    "PendingErasure",
    "StorageBackend",
    "TextVectorCache",
    "Tombstone",
    "TurnTombstone",
    "VectorErasure",
    "VectorIndex",
    "backend_spec",
    "open_backend",
]
