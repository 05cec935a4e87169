"""SQLite connection settings shared by emem's stores: WAL for concurrent readers, FULL sync so a
commit is on disk before a write is acknowledged, and a busy timeout so a second process waits
instead of failing with "database is locked"."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from emem.errors import StoreError
from emem.storage.contract import CompactReport

BUSY_TIMEOUT_MS = 30_000


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if missing) with emem's settings; a damaged or foreign file is a StoreError
    naming it, never a traceback."""
    with store_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        # Erased content must not survive in free pages.
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("PRAGMA foreign_keys=ON")
    return conn


@contextmanager
def store_errors(path: Path) -> Iterator[None]:
    """Turn "file is not a database" (and friends) into one line saying which file and what to do."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            raise
        raise StoreError(
            f"{path}: cannot be opened as an emem store ({exc}). It is damaged or not an emem "
            "file: restore it from a backup, or move it aside to start an empty store there"
        ) from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot be opened ({exc.strerror})") from None


def compact_file(path: Path, *, wal: bool) -> CompactReport:
    """Rewrite a SQLite file so no freed page or stale index key keeps erased bytes (VACUUM with
    secure_delete), and with `wal` empty its write-ahead log. A missing file is nothing to do.

    Args:
        path: the database file.
        wal: the file is in WAL mode (emem's stores); False for foreign files (Chroma's).

    Returns:
        The file's name under `compacted`, or a warning naming what could not finish.
    """
    report = CompactReport()
    if not path.exists():
        return report
    try:
        conn = connect(path) if wal else sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA secure_delete=ON")
            conn.execute("VACUUM")
            if wal:
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if busy:
                    report.warnings.append(f"{path.name}: a reader kept the WAL busy; it was not truncated")
        finally:
            conn.close()
    except (sqlite3.Error, StoreError) as exc:
        report.warnings.append(f"{path.name}: compaction failed: {exc}")
        return report
    report.compacted.append(path.name)
    return report
