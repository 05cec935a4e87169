"""Compaction of the Postgres backend's tables after an erasure.

A DELETE only marks rows dead: their bytes stay in the table's pages (and in index pages) until
the space is reused. `VACUUM (FULL)` rewrites each table and all of its indexes (the HNSW index
included) into new files and truncates the old ones at commit, so no live relation file keeps an
erased row. What it cannot reach, and emem does not claim to: WAL segments already written (and
archived or streamed to replicas, and base backups), which keep the erased rows until they are
removed or overwritten; file blocks freed by the filesystem; and copies outside the server.
`retire_wal` moves the server off the WAL segment holding them, so the next checkpoint drops it
from `pg_wal/` (deleted with `wal_recycle = off`, else renamed for reuse and kept until
overwritten). docs/postgres.md says what to do about each.
"""

from __future__ import annotations

from collections.abc import Iterable

import psycopg

from emem.storage.contract import CompactReport
from emem.storage.postgres.db import Database


def vacuum_full(db: Database, tables: Iterable[str]) -> CompactReport:
    """VACUUM (FULL) each existing table (outside any transaction), then a CHECKPOINT when the
    role may run one (it flushes the rewritten pages and lets the server unlink the old files).

    Args:
        db: the database.
        tables: table names (our own constants, never user input).

    Returns:
        The tables rewritten, and a warning per table that could not be.
    """
    report = CompactReport()
    with db.connection() as conn:
        for table in tables:
            exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL AS ok", (table,)).fetchone()
            if not exists or not exists["ok"]:  # type: ignore[call-overload]
                continue
            try:
                conn.execute(f"VACUUM (FULL) {table}")  # type: ignore[arg-type]
            except psycopg.Error as exc:
                report.warnings.append(f"{table}: VACUUM FULL failed: {str(exc).strip().splitlines()[0]}")
                continue
            report.compacted.append(table)
        try:
            conn.execute("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:
            pass  # documented: the next automatic checkpoint does the same
    return report


def retire_wal(db: Database) -> bool:
    """Switch to a new WAL segment, then CHECKPOINT: the segments written before (the erased rows'
    inserts and deletes among them) are no longer needed for crash recovery, so the server removes
    them from `pg_wal/`, or with the default `wal_recycle = on` renames them for reuse (their old
    bytes stay until new WAL overwrites them). Archived segments, replicas and backups are not
    touched. Needs superuser or the pg_checkpoint role and EXECUTE on pg_switch_wal.

    Args:
        db: the database.
    Returns:
        True when both ran; False when the role may not (the next automatic checkpoint after the
        segment fills does the same, later).
    """
    with db.connection() as conn:
        try:
            conn.execute("SELECT pg_switch_wal()")
            conn.execute("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:
            return False
    return True
