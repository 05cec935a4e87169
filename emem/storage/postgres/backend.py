"""The PostgreSQL + pgvector backend bundle (emem.storage.contract.StorageBackend)."""

from __future__ import annotations

from pathlib import Path

from emem.storage.contract import CompactReport
from emem.storage.postgres.coordinator import PgCoordinator
from emem.storage.postgres.db import Database, display_url
from emem.storage.postgres.episodes import PgEpisodeStore
from emem.storage.postgres.ledger import PgLedgerStore
from emem.storage.postgres.maintenance import retire_wal
from emem.storage.postgres.vectors import PgTextVectorCache, PgVectorIndex


class PostgresBackend:
    """Every store of a Memory in one PostgreSQL database; `home` keeps only local files
    (llm.json, logs)."""

    name = "postgres"

    def __init__(self, url: str) -> None:
        self.url = url
        self.db = Database.acquire(url)
        self.location = display_url(url)
        self.episodes = PgEpisodeStore(self.db)
        self.vectors = PgVectorIndex(self.db)
        self.text_vectors = PgTextVectorCache(self.db)
        self.coordinator = PgCoordinator(self.db)
        self._ledger = PgLedgerStore(self.db)
        self._closed = False

    @property
    def ledger(self) -> PgLedgerStore:
        """The ledger store (its tables exist from the first migration on)."""
        return self._ledger

    def has_ledger(self) -> bool:
        """Always True: the schema (ledger tables included) is created on open."""
        return True

    def compact(self) -> CompactReport:
        """VACUUM (FULL) every table an erasure touches, then retire the WAL segment that holds
        the erased rows (emem.storage.postgres.maintenance.retire_wal; docs/postgres.md)."""
        report = self.episodes.compact()
        for store in (self._ledger, self.vectors, self.text_vectors):
            report = report.merge(store.compact())
        retire_wal(self.db)
        return report

    def close(self) -> None:
        """Give the pool back (it closes when no other backend of this process uses it)."""
        if not self._closed:
            self._closed = True
            self.db.release()


def open_postgres(spec: str, home: Path) -> PostgresBackend:
    """Opener for `emem.storage.select`: spec is a postgres:// or postgresql:// URL.

    Args:
        spec: the URL (any libpq URL; the password may also come from PGPASSWORD or ~/.pgpass).
        home: the Memory's local directory (unused by this backend's stores).

    Returns:
        The open backend, its schema migrated.
    """
    return PostgresBackend(spec)
