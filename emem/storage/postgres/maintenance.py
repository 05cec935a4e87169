"""Compaction of the Postgres backend's tables after an erasure.

A DELETE only marks rows dead: their bytes stay in the table's pages (and in index pages) until
the space is reused. `VACUUM (FULL)` rewrites each table and all of its indexes (the HNSW index
included) into new files and truncates the old ones at commit, so no live relation file keeps an
erased row. What it cannot reach, and emem does not claim to: WAL segments already written (and
archived or streamed to replicas, and base backups), which keep the erased rows until they are
recycled; file blocks freed by the filesystem; and copies outside the server. docs/storage.md
says what to do about each.
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
