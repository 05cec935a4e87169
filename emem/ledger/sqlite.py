"""The embedded `emem.storage.LedgerStore`: the ledger's rows in one SQLite file.

WAL with synchronous=FULL (a commit is on disk before a write is acknowledged); revisions,
relations and tombstones are append-only, enforced by triggers, so no code path above can rewrite
history. `purge` lifts the no-delete triggers inside its own transaction only.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from emem.ledger.models import Relation, RelationKind, Revision, stamp
from emem.storage.contract import CompactReport, Tombstone
from emem.store.sqlite import compact_file, store_errors
from emem.timeparse import utcnow

SCHEMA = """
CREATE TABLE IF NOT EXISTS revisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('assertion', 'revocation')),
    subject TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    object_text TEXT NOT NULL,
    surface TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    known_from TEXT NOT NULL,
    confidence REAL NOT NULL,
    sources TEXT NOT NULL,
    asserted_by TEXT,
    target_id TEXT,
    reason TEXT,
    recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS revisions_by_fact ON revisions (namespace, subject_key, predicate);
CREATE INDEX IF NOT EXISTS revisions_by_target ON revisions (namespace, target_id);
CREATE TABLE IF NOT EXISTS relations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    predicate TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('supersedes', 'revokes', 'unresolved', 'adjudicated')),
    from_id TEXT NOT NULL,
    to_id TEXT NOT NULL,
    known_at TEXT NOT NULL,
    reason TEXT,
    recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS relations_by_fact ON relations (namespace, subject_key, predicate);
CREATE TABLE IF NOT EXISTS watermarks (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (namespace, name)
);
CREATE TRIGGER IF NOT EXISTS revisions_no_update BEFORE UPDATE ON revisions
    BEGIN SELECT RAISE(ABORT, 'ledger revisions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS revisions_no_delete BEFORE DELETE ON revisions
    BEGIN SELECT RAISE(ABORT, 'ledger revisions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS relations_no_update BEFORE UPDATE ON relations
    BEGIN SELECT RAISE(ABORT, 'ledger relations are append-only'); END;
CREATE TRIGGER IF NOT EXISTS relations_no_delete BEFORE DELETE ON relations
    BEGIN SELECT RAISE(ABORT, 'ledger relations are append-only'); END;
CREATE TABLE IF NOT EXISTS predicates (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    cardinality TEXT NOT NULL CHECK (cardinality IN ('single', 'multi')),
    declared_at TEXT NOT NULL,
    PRIMARY KEY (namespace, name)
);
CREATE TABLE IF NOT EXISTS tombstones (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('turn', 'revision', 'relation', 'namespace')),
    content_hash TEXT NOT NULL,
    erasure_id TEXT NOT NULL,
    erased_at TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS tombstones_by_ns ON tombstones (namespace, seq);
CREATE TRIGGER IF NOT EXISTS tombstones_no_update BEFORE UPDATE ON tombstones
    BEGIN SELECT RAISE(ABORT, 'ledger tombstones are append-only'); END;
CREATE TRIGGER IF NOT EXISTS tombstones_no_delete BEFORE DELETE ON tombstones
    BEGIN SELECT RAISE(ABORT, 'ledger tombstones are append-only'); END;
"""
_NO_DELETE = {
    table: f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
    f"BEGIN SELECT RAISE(ABORT, 'ledger {table} are append-only'); END"
    for table in ("revisions", "relations")
}
"""The append-only guards that `purge` lifts inside its own transaction, and only there."""

_REV_COLS = (
    "seq, id, namespace, kind, subject, predicate, object, object_text, surface, valid_from, valid_to, "
    "known_from, confidence, sources, asserted_by, target_id, reason, recorded_at"
)
_REV_COLS = (
    "seq, id, namespace, kind, subject, predicate, object, object_text, surface, valid_from, valid_to, "
    "known_from, confidence, sources, asserted_by, target_id, reason, recorded_at"
)
_REL_COLS = "seq, id, namespace, kind, from_id, to_id, known_at, reason, recorded_at"
_GUARDS = (
    "revisions_no_update",
    "revisions_no_delete",
    "relations_no_update",
    "relations_no_delete",
    "tombstones_no_update",
    "tombstones_no_delete",
)
"""The append-only triggers `integrity_problems` checks for."""


def _row_to_revision(row: sqlite3.Row) -> Revision:
    return Revision(
        id=row["id"],
        namespace=row["namespace"],
        kind=row["kind"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        object_text=row["object_text"],
        surface=row["surface"],
        valid_from=datetime.fromisoformat(row["valid_from"]),
        valid_to=datetime.fromisoformat(row["valid_to"]) if row["valid_to"] else None,
        known_from=datetime.fromisoformat(row["known_from"]),
        confidence=row["confidence"],
        sources=json.loads(row["sources"]),
        asserted_by=row["asserted_by"],
        target_id=row["target_id"],
        reason=row["reason"],
        recorded_at=datetime.fromisoformat(row["recorded_at"]),
        seq=row["seq"],
    )


def _row_to_relation(row: sqlite3.Row) -> Relation:
    return Relation(
        id=row["id"],
        namespace=row["namespace"],
        kind=row["kind"],
        from_id=row["from_id"],
        to_id=row["to_id"],
        known_at=datetime.fromisoformat(row["known_at"]),
        reason=row["reason"],
        recorded_at=datetime.fromisoformat(row["recorded_at"]),
        seq=row["seq"],
    )


class SqliteLedgerStore:
    """Ledger rows in one SQLite file (WAL, synchronous=FULL); ":memory:" for a throwaway one."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0
        with store_errors(self.path):
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA busy_timeout = 10000")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            # Idempotent (every statement is IF NOT EXISTS), so opening an older home migrates it: the
            # `predicates` table of open-predicate declarations is created where it is missing.
            self._conn.executescript(SCHEMA)
            self._conn.execute("SELECT COUNT(*) FROM revisions").fetchone()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self, namespace: str | None = None) -> Iterator[None]:
        """One atomic unit; nests (inner blocks join the outer one). BEGIN IMMEDIATE serialises
        every writer of the file, whatever the namespace."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    self._conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outer:
                self._conn.execute("COMMIT")

    def _rows(self, sql: str, params: Iterable[object]) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    # -- rows in --------------------------------------------------------------------------------

    def insert_revision(self, rev: Revision) -> Revision:
        now = utcnow()
        with self._lock:
            cur = self._conn.execute(
                "INSERT INTO revisions (id, namespace, kind, subject, subject_key, predicate, object, "
                "object_text, surface, valid_from, valid_to, known_from, confidence, sources, asserted_by, "
                "target_id, reason, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    rev.id,
                    rev.namespace,
                    rev.kind,
                    rev.subject,
                    rev.subject_key,
                    rev.predicate,
                    rev.object,
                    rev.object_text,
                    rev.surface,
                    stamp(rev.valid_from),
                    stamp(rev.valid_to) if rev.valid_to else None,
                    stamp(rev.known_from),
                    rev.confidence,
                    json.dumps(rev.sources, ensure_ascii=False),
                    rev.asserted_by,
                    rev.target_id,
                    rev.reason,
                    stamp(now),
                ),
            )
        return rev.model_copy(update={"seq": cur.lastrowid, "recorded_at": now})

    def insert_relation(self, subject_key: str, predicate: str, rel: Relation) -> Relation | None:
        now = utcnow()
        with self._lock:
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO relations (id, namespace, subject_key, predicate, kind, from_id, to_id, "
                "known_at, reason, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    rel.id,
                    rel.namespace,
                    subject_key,
                    predicate,
                    rel.kind,
                    rel.from_id,
                    rel.to_id,
                    stamp(rel.known_at),
                    rel.reason,
                    stamp(now),
                ),
            )
        if cur.rowcount == 0:
            return None
        return rel.model_copy(update={"seq": cur.lastrowid, "recorded_at": now})

    def declare_predicate(self, namespace: str, name: str, cardinality: str) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO predicates (namespace, name, cardinality, declared_at) VALUES (?, ?, ?, ?)",
                (namespace, name, cardinality, stamp(utcnow())),
            )

    def set_watermark(self, namespace: str, name: str, seq: int) -> None:
        with self.transaction(namespace):
            self._conn.execute(
                "INSERT INTO watermarks (namespace, name, seq, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, name) DO UPDATE SET seq = excluded.seq, "
                "updated_at = excluded.updated_at",
                (namespace, name, int(seq), stamp(utcnow())),
            )

    # -- rows out -------------------------------------------------------------------------------

    def find(self, namespace: str, revision_id: str) -> Revision | None:
        rows = self._rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = ? AND id = ?", (namespace, revision_id)
        )
        return _row_to_revision(rows[0]) if rows else None

    def find_by_prefix(self, namespace: str, prefix: str, limit: int = 2) -> list[Revision]:
        rows = self._rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?",
            (namespace, prefix, prefix + "g", limit),
        )
        return [_row_to_revision(r) for r in rows]

    def revocations_of(self, namespace: str, target_id: str) -> list[Revision]:
        rows = self._rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = ? AND target_id = ? ORDER BY seq",
            (namespace, target_id),
        )
        return [_row_to_revision(r) for r in rows]

    def relation(self, namespace: str, relation_id: str) -> Relation | None:
        rows = self._rows(
            f"SELECT {_REL_COLS} FROM relations WHERE namespace = ? AND id = ?", (namespace, relation_id)
        )
        return _row_to_relation(rows[0]) if rows else None

    def load(
        self,
        namespace: str,
        subject_key: str | None = None,
        predicate: str | None = None,
        *,
        relations: tuple[RelationKind, ...] | None = None,
    ) -> tuple[list[Revision], list[Relation]]:
        where, params = "namespace = ?", [namespace]
        if subject_key is not None:
            where, params = where + " AND subject_key = ?", [*params, subject_key]
        if predicate is not None:
            where, params = where + " AND predicate = ?", [*params, predicate]
        revs = self._rows(f"SELECT {_REV_COLS} FROM revisions WHERE {where} ORDER BY seq", params)
        if relations is not None:
            if not relations:
                return [_row_to_revision(r) for r in revs], []
            where += f" AND kind IN ({', '.join('?' * len(relations))})"
            params = [*params, *relations]
        rels = self._rows(f"SELECT {_REL_COLS} FROM relations WHERE {where} ORDER BY seq", params)
        return [_row_to_revision(r) for r in revs], [_row_to_relation(r) for r in rels]

    def first_subject(self, namespace: str, subject_key: str) -> str | None:
        rows = self._rows(
            "SELECT subject FROM revisions WHERE namespace = ? AND subject_key = ? ORDER BY seq LIMIT 1",
            (namespace, subject_key),
        )
        return rows[0]["subject"] if rows else None

    def subject_names(self, namespace: str) -> dict[str, str]:
        rows = self._rows(
            "SELECT subject_key, subject FROM revisions WHERE namespace = ? ORDER BY seq", (namespace,)
        )
        names: dict[str, str] = {}
        for r in rows:
            names.setdefault(r["subject_key"], r["subject"])
        return names

    def last_seq(self, namespace: str) -> int:
        rows = self._rows("SELECT MAX(seq) AS m FROM revisions WHERE namespace = ?", (namespace,))
        return int(rows[0]["m"] or 0)

    def version(self, namespace: str) -> tuple[int, int]:
        rows = self._rows(
            "SELECT (SELECT MAX(seq) FROM revisions WHERE namespace = ?) AS r, "
            "(SELECT MAX(seq) FROM relations WHERE namespace = ?) AS l",
            (namespace, namespace),
        )
        return int(rows[0]["r"] or 0), int(rows[0]["l"] or 0)

    def count_assertions(self, namespace: str) -> int:
        rows = self._rows(
            "SELECT COUNT(*) AS n FROM revisions WHERE namespace = ? AND kind = 'assertion'", (namespace,)
        )
        return int(rows[0]["n"])

    def declared_predicates(self, namespace: str) -> dict[str, str]:
        rows = self._rows("SELECT name, cardinality FROM predicates WHERE namespace = ?", (namespace,))
        return {r["name"]: r["cardinality"] for r in rows}

    def get_watermark(self, namespace: str, name: str) -> int:
        rows = self._rows("SELECT seq FROM watermarks WHERE namespace = ? AND name = ?", (namespace, name))
        return int(rows[0]["seq"]) if rows else 0

    def watermarks(self, namespace: str) -> dict[str, int]:
        """Every watermark of the namespace by name (audit and crash checks)."""
        rows = self._rows("SELECT name, seq FROM watermarks WHERE namespace = ?", (namespace,))
        return {r["name"]: int(r["seq"]) for r in rows}

    # -- erasure --------------------------------------------------------------------------------

    def purge(
        self,
        namespace: str,
        revision_ids: Iterable[str] = (),
        relation_ids: Iterable[str] = (),
        tombstones: Iterable[tuple[str, str, str]] = (),
        *,
        erasure_id: str,
        reason: str | None = None,
        drop_watermarks: bool = False,
    ) -> tuple[int, int]:
        """Lift the no-delete triggers, delete the named rows (secure_delete zeroes their pages),
        record the tombstones and restore the triggers, all in one transaction: no other connection
        ever sees the triggers missing."""
        revs, rels = sorted(set(revision_ids)), sorted(set(relation_ids))
        now = stamp(utcnow())
        with self.transaction(namespace):
            self._conn.execute("PRAGMA secure_delete = ON")
            for table in _NO_DELETE:
                self._conn.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
            n_rev = sum(
                self._conn.execute(
                    "DELETE FROM revisions WHERE namespace = ? AND id = ?", (namespace, rid)
                ).rowcount
                for rid in revs
            )
            n_rel = sum(
                self._conn.execute(
                    "DELETE FROM relations WHERE namespace = ? AND id = ?", (namespace, rid)
                ).rowcount
                for rid in rels
            )
            if drop_watermarks:  # a whole namespace goes: its bookkeeping and declarations too
                self._conn.execute("DELETE FROM watermarks WHERE namespace = ?", (namespace,))
                self._conn.execute("DELETE FROM predicates WHERE namespace = ?", (namespace,))
            self._conn.executemany(
                "INSERT INTO tombstones (id, namespace, kind, content_hash, erasure_id, erased_at, reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(tid, namespace, kind, digest, erasure_id, now, reason) for tid, kind, digest in tombstones],
            )
            for ddl in _NO_DELETE.values():
                self._conn.execute(ddl)
        return n_rev, n_rel

    def tombstones(self, namespace: str) -> list[Tombstone]:
        rows = self._rows(
            "SELECT id, kind, content_hash, erasure_id, erased_at, reason FROM tombstones "
            "WHERE namespace = ? ORDER BY seq",
            (namespace,),
        )
        return [dict(r) for r in rows]

    def integrity_problems(self) -> list[str]:
        """Append-only triggers missing (a purge interrupted outside its transaction could not do
        it; this is what a crash test checks)."""
        present = {r["name"] for r in self._rows("SELECT name FROM sqlite_master WHERE type='trigger'", ())}
        return [
            f"{self.path.name}: append-only trigger {name} is missing"
            for name in _GUARDS
            if name not in present
        ]

    def compact(self) -> CompactReport:
        """VACUUM the file and truncate its WAL (nothing for an in-memory ledger)."""
        if str(self.path) == ":memory:":
            return CompactReport()
        return compact_file(self.path, wal=True)
