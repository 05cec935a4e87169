"""The durable episode store: an append-only log of turns, per namespace.

This is the fast write path (System 1): no LLM, no embedding, one transaction per batch. A write
returns only after COMMIT (synchronous=FULL), so an acknowledged write survives a crash. Re-sending
identical content is a no-op; different content under an existing id is refused.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from emem.errors import ConflictError
from emem.models import IngestReport, StoredTurn, Turn, check_namespace
from emem.storage.contract import CompactReport, ErasedTurn, PendingErasure, TurnTombstone
from emem.store.sqlite import compact_file, connect, store_errors
from emem.timeparse import iso, parse_iso_time, utcnow

SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    image_caption TEXT,
    time TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    hash TEXT NOT NULL,
    metadata TEXT,
    UNIQUE (namespace, conversation_id, turn_id)
);
CREATE INDEX IF NOT EXISTS turns_ns_seq ON turns (namespace, seq);
CREATE TABLE IF NOT EXISTS sessions (
    namespace TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (namespace, conversation_id, session_id)
);
CREATE TABLE IF NOT EXISTS segment_summaries (
    namespace TEXT NOT NULL,
    segment_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    summary TEXT NOT NULL,
    model TEXT NOT NULL,
    PRIMARY KEY (namespace, segment_id)
);
CREATE TABLE IF NOT EXISTS index_state (
    namespace TEXT NOT NULL,
    index_name TEXT NOT NULL,
    covered_seq INTEGER NOT NULL,
    PRIMARY KEY (namespace, index_name)
);
CREATE TABLE IF NOT EXISTS erasures (
    erasure_id TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT,
    plan TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS erased_turns (
    erasure_id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (erasure_id, namespace, conversation_id, turn_id)
);
CREATE INDEX IF NOT EXISTS erased_turns_by_id ON erased_turns (namespace, conversation_id, turn_id);
CREATE INDEX IF NOT EXISTS erased_turns_by_hash ON erased_turns (namespace, hash);
"""
ERASURE_PENDING = "deleted"
ERASURE_DONE = "done"
"""An erasure's intent row is written with its delete ("deleted") and marked "done" once every
derived store (ledger, vectors, compaction) has been cleaned; a pending one is finished on open."""

_COLUMNS = (
    "seq, namespace, conversation_id, session_id, turn_id, speaker, text, image_caption, time, recorded_at, hash, "
    "metadata"
)


def migrate(conn: sqlite3.Connection) -> None:
    """Bring a home written by an older emem up to this schema (idempotent, additive only)."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(turns)")}
    if "metadata" not in columns:
        conn.execute("ALTER TABLE turns ADD COLUMN metadata TEXT")


def _row_to_turn(row: sqlite3.Row) -> StoredTurn:
    return StoredTurn(
        namespace=row["namespace"],
        seq=row["seq"],
        conversation_id=row["conversation_id"],
        session_id=row["session_id"],
        turn_id=row["turn_id"],
        speaker=row["speaker"],
        text=row["text"],
        image_caption=row["image_caption"],
        time=parse_iso_time(row["time"]),
        recorded_at=parse_iso_time(row["recorded_at"]),
        hash=row["hash"],
        metadata=json.loads(row["metadata"]) if row["metadata"] else None,
    )


class SqliteEpisodeStore:
    """The embedded `emem.storage.EpisodeStore`: one SQLite file in WAL mode, synchronous=FULL."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = connect(path)
        self._lock = threading.RLock()
        with store_errors(path):
            self._conn.executescript(SCHEMA)
            with self._lock:
                migrate(self._conn)
            self._conn.execute("SELECT COUNT(*) FROM turns").fetchone()

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: all of a batch or none of it."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- writes -----------------------------------------------------------------------------

    def append(
        self,
        namespace: str,
        turns: Sequence[Turn],
        sessions: Sequence[tuple[str, str, datetime]] = (),
        source: str | None = None,
        *,
        restore: bool = False,
    ) -> IngestReport:
        """Append turns atomically; return only once committed.

        `sessions` declares (conversation_id, session_id, start time); a turn whose session is not
        declared registers it with the turn's own time. `source` names the input in errors. A turn
        that was erased (same id or same content) is refused unless `restore` says the caller
        means to bring it back: re-sending a source must never silently undo an erasure.
        """
        check_namespace(namespace)
        where = f"{source}: " if source else ""
        recorded = iso(utcnow())
        added = unchanged = 0
        first = last = None
        with self._write() as conn:
            for conv_id, session_id, start in sessions:
                self._register_session(conn, namespace, conv_id, session_id, start, where)
            for t in turns:
                self._register_session(conn, namespace, t.conversation_id, t.session_id, None, where, t.time)
                h = t.content_hash()
                row = conn.execute(
                    "SELECT hash FROM turns WHERE namespace=? AND conversation_id=? AND turn_id=?",
                    (namespace, t.conversation_id, t.turn_id),
                ).fetchone()
                if row is not None:
                    if row["hash"] != h:
                        raise ConflictError(
                            f"{where}conversation {t.conversation_id!r} session {t.session_id!r} turn {t.turn_id!r}: "
                            "already stored with different content; emem never overwrites a turn "
                            "(forget it first to replace it)"
                        )
                    unchanged += 1
                    continue
                if not restore:
                    self._refuse_erased(conn, namespace, t, h, where)
                cur = conn.execute(
                    "INSERT INTO turns (namespace, conversation_id, session_id, turn_id, speaker, text, "
                    "image_caption, time, recorded_at, hash, metadata) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        namespace,
                        t.conversation_id,
                        t.session_id,
                        t.turn_id,
                        t.speaker,
                        t.text,
                        t.image_caption,
                        iso(t.time),
                        recorded,
                        h,
                        json.dumps(t.metadata, ensure_ascii=False, sort_keys=True) if t.metadata else None,
                    ),
                )
                last = cur.lastrowid
                first = first or last
                added += 1
        return IngestReport(
            namespace=namespace, added=added, unchanged=unchanged, first_seq=first, last_seq=last
        )

    @staticmethod
    def _refuse_erased(conn: sqlite3.Connection, namespace: str, t: Turn, digest: str, where: str) -> None:
        row = conn.execute(
            "SELECT erasure_id FROM erased_turns WHERE namespace=? AND "
            "((conversation_id=? AND turn_id=?) OR hash=?) LIMIT 1",
            (namespace, t.conversation_id, t.turn_id, digest),
        ).fetchone()
        if row is not None:
            raise ConflictError(
                f"{where}conversation {t.conversation_id!r} turn {t.turn_id!r} was erased (erasure "
                f"{row['erasure_id']}); storing it again would undo that erasure. Leave it out, or pass "
                "restore=True (CLI: --restore) if you mean to restore it"
            )

    @staticmethod
    def _register_session(
        conn: sqlite3.Connection,
        namespace: str,
        conversation_id: str,
        session_id: str,
        time: datetime | None,
        where: str,
        turn_time: datetime | None = None,
    ) -> None:
        row = conn.execute(
            "SELECT time FROM sessions WHERE namespace=? AND conversation_id=? AND session_id=?",
            (namespace, conversation_id, session_id),
        ).fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO sessions VALUES (?,?,?,?)",
                (namespace, conversation_id, session_id, iso(time or turn_time)),  # type: ignore[arg-type]
            )
        elif time is not None and parse_iso_time(row["time"]) != time:
            raise ConflictError(
                f"{where}conversation {conversation_id!r} session {session_id!r}: already stored with time "
                f"{row['time']}, not {iso(time)}"
            )

    # -- reads ------------------------------------------------------------------------------

    def turns(
        self,
        namespace: str,
        *,
        after_seq: int = 0,
        upto_seq: int | None = None,
        conversation_id: str | None = None,
        session_id: str | None = None,
        turn_id: str | None = None,
    ) -> list[StoredTurn]:
        """Stored turns with after_seq < seq <= upto_seq, optionally of one conversation, session
        and/or turn id, in seq order."""
        check_namespace(namespace)
        sql = f"SELECT {_COLUMNS} FROM turns WHERE namespace=? AND seq>?"
        args: list[object] = [namespace, after_seq]
        if upto_seq is not None:
            sql += " AND seq<=?"
            args.append(upto_seq)
        if conversation_id is not None:
            sql += " AND conversation_id=?"
            args.append(conversation_id)
        if session_id is not None:
            sql += " AND session_id=?"
            args.append(session_id)
        if turn_id is not None:
            sql += " AND turn_id=?"
            args.append(turn_id)
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY seq", args).fetchall()
        return [_row_to_turn(r) for r in rows]

    def get_turns(self, namespace: str, refs: Iterable[tuple[str, str]]) -> list[StoredTurn]:
        """Fetch turns by (conversation_id, turn_id), in the order asked, skipping unknown ones."""
        out = []
        with self._lock:
            for conv, tid in refs:
                row = self._conn.execute(
                    f"SELECT {_COLUMNS} FROM turns WHERE namespace=? AND conversation_id=? AND turn_id=?",
                    (namespace, conv, tid),
                ).fetchone()
                if row is not None:
                    out.append(_row_to_turn(row))
        return out

    def last_turn(self, namespace: str, conversation_id: str) -> StoredTurn | None:
        """The conversation's most recently stored turn (message ingestion continues its session)."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM turns WHERE namespace=? AND conversation_id=? ORDER BY seq DESC LIMIT 1",
                (namespace, conversation_id),
            ).fetchone()
        return _row_to_turn(row) if row is not None else None

    def sessions(self, namespace: str) -> list[tuple[str, str, datetime]]:
        """(conversation_id, session_id, start time), in time order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT conversation_id, session_id, time FROM sessions WHERE namespace=? ORDER BY time, session_id",
                (namespace,),
            ).fetchall()
        return [(r[0], r[1], parse_iso_time(r[2])) for r in rows]

    def last_seq(self, namespace: str) -> int:
        with self._lock:
            row = self._conn.execute("SELECT MAX(seq) FROM turns WHERE namespace=?", (namespace,)).fetchone()
        return row[0] or 0

    def counts(self, namespace: str) -> tuple[int, int, int]:
        """(conversations, sessions, turns)."""
        with self._lock:
            c = self._conn.execute(
                "SELECT COUNT(DISTINCT conversation_id), COUNT(*) FROM turns WHERE namespace=?", (namespace,)
            ).fetchone()
            s = self._conn.execute("SELECT COUNT(*) FROM sessions WHERE namespace=?", (namespace,)).fetchone()
        return c[0], s[0], c[1]

    def namespaces(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT namespace FROM turns ORDER BY 1")]

    # -- segment summaries (derived, written by the summariser off the write path) ---------------

    def segment_summaries(self, namespace: str) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT segment_id, summary FROM segment_summaries WHERE namespace=?", (namespace,)
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def segment_summary_hashes(self, namespace: str) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT segment_id, content_hash FROM segment_summaries WHERE namespace=?", (namespace,)
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def put_segment_summary(
        self, namespace: str, segment_id: str, content_hash: str, summary: str, model: str
    ) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO segment_summaries VALUES (?,?,?,?,?) ON CONFLICT (namespace, segment_id) DO UPDATE SET "
                "content_hash=excluded.content_hash, summary=excluded.summary, model=excluded.model",
                (namespace, segment_id, content_hash, summary, model),
            )

    # -- index coverage ---------------------------------------------------------------------

    def coverage(self, namespace: str) -> dict[str, int]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT index_name, covered_seq FROM index_state WHERE namespace=?", (namespace,)
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def set_coverage(self, namespace: str, index_name: str, covered_seq: int) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO index_state VALUES (?,?,?) ON CONFLICT (namespace, index_name) "
                "DO UPDATE SET covered_seq=excluded.covered_seq",
                (namespace, index_name, covered_seq),
            )

    # -- erasure (emem.erasure decides what goes; this module owns the SQL) ---------------------

    def erase(
        self,
        namespace: str,
        erasure_id: str,
        kind: str,
        reason: str | None,
        plan: str,
        turns: Sequence[ErasedTurn],
        *,
        whole_namespace: bool = False,
    ) -> dict[str, int]:
        """In ONE transaction: record the erasure intent (`plan`: ids and hashes, never content)
        and a tombstone row per turn, and delete the turns `(seq, conversation_id, session_id,
        turn_id, hash)` with the summaries of their sessions and the sessions left empty. A crash
        can leave either nothing or both the deletion and its tombstones. Returns counts by kind."""
        counts = {"turns": 0, "sessions": 0, "segment_summaries": 0}
        with self._write() as conn:
            conn.execute(
                "INSERT INTO erasures VALUES (?,?,?,?,?,?,?)",
                (erasure_id, namespace, kind, reason, plan, ERASURE_PENDING, iso(utcnow())),
            )
            conn.executemany(
                "INSERT OR IGNORE INTO erased_turns VALUES (?,?,?,?,?,?)",
                [(erasure_id, namespace, conv, tid, seq, h) for seq, conv, _, tid, h in turns],
            )
            if whole_namespace:
                counts["turns"] = conn.execute("DELETE FROM turns WHERE namespace=?", (namespace,)).rowcount
                counts["sessions"] = conn.execute(
                    "DELETE FROM sessions WHERE namespace=?", (namespace,)
                ).rowcount
                counts["segment_summaries"] = conn.execute(
                    "DELETE FROM segment_summaries WHERE namespace=?", (namespace,)
                ).rowcount
                conn.execute("DELETE FROM index_state WHERE namespace=?", (namespace,))
                return counts
            for seq, *_ in turns:
                counts["turns"] += conn.execute("DELETE FROM turns WHERE seq=?", (seq,)).rowcount
            for conv, sid in sorted({(c, s) for _, c, s, _, _ in turns}):
                segment = f"{conv}/{sid}"
                counts["segment_summaries"] += conn.execute(
                    "DELETE FROM segment_summaries WHERE namespace=? AND (segment_id=? OR substr(segment_id, 1, ?)=?)",
                    (namespace, segment, len(segment) + 1, segment + "#"),
                ).rowcount
                left = conn.execute(
                    "SELECT 1 FROM turns WHERE namespace=? AND conversation_id=? AND session_id=? LIMIT 1",
                    (namespace, conv, sid),
                ).fetchone()
                if left is None:
                    counts["sessions"] += conn.execute(
                        "DELETE FROM sessions WHERE namespace=? AND conversation_id=? AND session_id=?",
                        (namespace, conv, sid),
                    ).rowcount
        return counts

    def pending_erasures(self) -> list[PendingErasure]:
        """Erasures whose delete committed but whose derived stores may still hold copies."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT erasure_id, namespace, kind, reason, plan FROM erasures WHERE state=? ORDER BY created_at",
                (ERASURE_PENDING,),
            ).fetchall()
        return [PendingErasure(**dict(r)) for r in rows]

    def erased_turns(self, erasure_id: str) -> list[TurnTombstone]:
        """(seq, conversation_id, turn_id, hash) of every turn an erasure deleted."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, conversation_id, turn_id, hash FROM erased_turns WHERE erasure_id=? ORDER BY seq",
                (erasure_id,),
            ).fetchall()
        return [TurnTombstone(r[0], r[1], r[2], r[3]) for r in rows]

    def finish_erasure(self, erasure_id: str) -> None:
        """Mark an erasure done, then empty the WAL again (that last write must not linger there)."""
        with self._write() as conn:
            conn.execute("UPDATE erasures SET state=? WHERE erasure_id=?", (ERASURE_DONE, erasure_id))
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def compact(self) -> CompactReport:
        """VACUUM the file (stale index keys can survive in interior b-tree pages) and truncate
        its WAL, so no deleted turn survives anywhere in it."""
        return compact_file(self.path, wal=True)


EpisodeStore = SqliteEpisodeStore
"""The name this class had before the storage contract (emem.storage.EpisodeStore)."""
