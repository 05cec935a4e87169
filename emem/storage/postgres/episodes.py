"""The episode store on PostgreSQL: the same append-only log of turns per namespace, the same
rules (idempotent re-send, conflicting content refused, erased turns refused unless restored).

Seqs come from one sequence, and a namespace's appends are serialised by a transaction-scoped
advisory lock on it: a seq is drawn and committed while the lock is held, so within a namespace
seqs become visible in increasing order. Index coverage ("everything up to seq N is indexed")
relies on that: no reader can see seq N+1 while N is still uncommitted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import psycopg

from emem.errors import ConflictError
from emem.models import IngestReport, StoredTurn, Turn, check_namespace
from emem.storage.contract import CompactReport, ErasedTurn, PendingErasure, TurnTombstone
from emem.storage.postgres.db import Database
from emem.storage.postgres.maintenance import vacuum_full
from emem.timeparse import iso, parse_iso_time, utcnow

ERASURE_PENDING = "deleted"
ERASURE_DONE = "done"
_COLUMNS = (
    "seq, namespace, conversation_id, session_id, turn_id, speaker, text, image_caption, time, recorded_at, hash, "
    "metadata"
)
APPEND_LOCK = "append"
TABLES = ("turns", "sessions", "segment_summaries", "index_state", "erasures", "erased_turns")


def _row_to_turn(row: dict[str, Any]) -> StoredTurn:
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


class PgEpisodeStore:
    """Episodes, sessions, segment summaries, index coverage and erasure intents in PostgreSQL."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def close(self) -> None:
        """Nothing to close per store: the pool belongs to the backend."""

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

        Args:
            namespace: the tenant.
            turns: the turns, in order.
            sessions: (conversation_id, session_id, start time) declared by the source.
            source: names the input in errors.
            restore: store again turns that an erasure removed (refused otherwise).

        Returns:
            The ingest report (added, unchanged, first and last new seq).
        """
        check_namespace(namespace)
        where = f"{source}: " if source else ""
        recorded = iso(utcnow())
        added = unchanged = 0
        first = last = None
        with self.db.transaction() as conn:
            self.db.lock(conn, APPEND_LOCK, namespace)
            for conv_id, session_id, start in sessions:
                _register_session(conn, namespace, conv_id, session_id, start, where)
            for t in turns:
                _register_session(conn, namespace, t.conversation_id, t.session_id, None, where, t.time)
                h = t.content_hash()
                row = conn.execute(
                    "SELECT hash FROM turns WHERE namespace=%s AND conversation_id=%s AND turn_id=%s",
                    (namespace, t.conversation_id, t.turn_id),
                ).fetchone()
                if row is not None:
                    if row["hash"] != h:  # type: ignore[index]
                        raise ConflictError(
                            f"{where}conversation {t.conversation_id!r} session {t.session_id!r} turn {t.turn_id!r}: "
                            "already stored with different content; emem never overwrites a turn "
                            "(forget it first to replace it)"
                        )
                    unchanged += 1
                    continue
                if not restore:
                    _refuse_erased(conn, namespace, t, h, where)
                seq = conn.execute(
                    "INSERT INTO turns (namespace, conversation_id, session_id, turn_id, speaker, text, "
                    "image_caption, time, recorded_at, hash, metadata) "
                    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING seq",
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
                ).fetchone()["seq"]  # type: ignore[index]
                last = seq
                first = first or last
                added += 1
        return IngestReport(
            namespace=namespace, added=added, unchanged=unchanged, first_seq=first, last_seq=last
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
        """Stored turns of a namespace in seq order, optionally a seq range, conversation, session
        or turn id.

        Returns:
            The turns, oldest first.
        """
        check_namespace(namespace)
        sql = f"SELECT {_COLUMNS} FROM turns WHERE namespace=%s AND seq>%s"
        args: list[object] = [namespace, after_seq]
        if upto_seq is not None:
            sql += " AND seq<=%s"
            args.append(upto_seq)
        if conversation_id is not None:
            sql += " AND conversation_id=%s"
            args.append(conversation_id)
        if session_id is not None:
            sql += " AND session_id=%s"
            args.append(session_id)
        if turn_id is not None:
            sql += " AND turn_id=%s"
            args.append(turn_id)
        return [_row_to_turn(r) for r in self.db.rows(sql + " ORDER BY seq", args)]

    def get_turns(self, namespace: str, refs: Iterable[tuple[str, str]]) -> list[StoredTurn]:
        """Fetch turns by (conversation_id, turn_id), in the order asked, skipping unknown ones."""
        wanted = list(refs)
        if not wanted:
            return []
        rows = self.db.rows(
            f"SELECT {_COLUMNS} FROM turns WHERE namespace=%s AND (conversation_id, turn_id) IN "
            "(SELECT * FROM unnest(%s::text[], %s::text[]))",
            (namespace, [c for c, _ in wanted], [t for _, t in wanted]),
        )
        by_ref = {(r["conversation_id"], r["turn_id"]): r for r in rows}
        return [_row_to_turn(by_ref[ref]) for ref in wanted if ref in by_ref]

    def last_turn(self, namespace: str, conversation_id: str) -> StoredTurn | None:
        """The conversation's most recently stored turn (message ingestion continues its session)."""
        rows = self.db.rows(
            f"SELECT {_COLUMNS} FROM turns WHERE namespace=%s AND conversation_id=%s ORDER BY seq DESC LIMIT 1",
            (namespace, conversation_id),
        )
        return _row_to_turn(rows[0]) if rows else None

    def sessions(self, namespace: str) -> list[tuple[str, str, datetime]]:
        """(conversation_id, session_id, start time), in time order."""
        rows = self.db.rows(
            "SELECT conversation_id, session_id, time FROM sessions WHERE namespace=%s "
            "ORDER BY time, session_id",
            (namespace,),
        )
        return [(r["conversation_id"], r["session_id"], parse_iso_time(r["time"])) for r in rows]

    def last_seq(self, namespace: str) -> int:
        """The newest turn's seq in the namespace (0 when empty)."""
        return int(self.db.scalar("SELECT max(seq) FROM turns WHERE namespace=%s", (namespace,)) or 0)

    def counts(self, namespace: str) -> tuple[int, int, int]:
        """(conversations, sessions, turns)."""
        row = self.db.rows(
            "SELECT (SELECT count(DISTINCT conversation_id) FROM turns WHERE namespace=%s) AS c, "
            "(SELECT count(*) FROM sessions WHERE namespace=%s) AS s, "
            "(SELECT count(*) FROM turns WHERE namespace=%s) AS t",
            (namespace, namespace, namespace),
        )[0]
        return int(row["c"]), int(row["s"]), int(row["t"])

    def namespaces(self) -> list[str]:
        """Every namespace holding at least one turn, sorted."""
        return [r["namespace"] for r in self.db.rows("SELECT DISTINCT namespace FROM turns ORDER BY 1")]

    # -- segment summaries ------------------------------------------------------------------

    def segment_summaries(self, namespace: str) -> dict[str, str]:
        rows = self.db.rows(
            "SELECT segment_id, summary FROM segment_summaries WHERE namespace=%s", (namespace,)
        )
        return {r["segment_id"]: r["summary"] for r in rows}

    def segment_summary_hashes(self, namespace: str) -> dict[str, str]:
        rows = self.db.rows(
            "SELECT segment_id, content_hash FROM segment_summaries WHERE namespace=%s", (namespace,)
        )
        return {r["segment_id"]: r["content_hash"] for r in rows}

    def put_segment_summary(
        self, namespace: str, segment_id: str, content_hash: str, summary: str, model: str
    ) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO segment_summaries VALUES (%s,%s,%s,%s,%s) ON CONFLICT (namespace, segment_id) "
                "DO UPDATE SET content_hash=excluded.content_hash, summary=excluded.summary, model=excluded.model",
                (namespace, segment_id, content_hash, summary, model),
            )

    # -- index coverage ---------------------------------------------------------------------

    def coverage(self, namespace: str) -> dict[str, int]:
        rows = self.db.rows(
            "SELECT index_name, covered_seq FROM index_state WHERE namespace=%s", (namespace,)
        )
        return {r["index_name"]: int(r["covered_seq"]) for r in rows}

    def set_coverage(self, namespace: str, index_name: str, covered_seq: int) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO index_state VALUES (%s,%s,%s) ON CONFLICT (namespace, index_name) "
                "DO UPDATE SET covered_seq=excluded.covered_seq",
                (namespace, index_name, covered_seq),
            )

    # -- erasure ----------------------------------------------------------------------------

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
        """In ONE transaction: record the erasure intent (ids and hashes, never content) and a
        tombstone row per turn, delete the turns `(seq, conversation_id, session_id, turn_id,
        hash)` with the summaries of their sessions and the sessions left empty.

        Returns:
            Counts deleted by kind ("turns", "sessions", "segment_summaries").
        """
        counts = {"turns": 0, "sessions": 0, "segment_summaries": 0}
        with self.db.transaction() as conn:
            self.db.lock(conn, APPEND_LOCK, namespace)
            conn.execute(
                "INSERT INTO erasures VALUES (%s,%s,%s,%s,%s,%s,%s)",
                (erasure_id, namespace, kind, reason, plan, ERASURE_PENDING, iso(utcnow())),
            )
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO erased_turns VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                    [(erasure_id, namespace, conv, tid, seq, h) for seq, conv, _, tid, h in turns],
                )
            if whole_namespace:
                for table, key in (("turns", "turns"), ("sessions", "sessions"), ("segment_summaries", None)):
                    n = conn.execute(f"DELETE FROM {table} WHERE namespace=%s", (namespace,)).rowcount
                    counts[key or table] = n
                conn.execute("DELETE FROM index_state WHERE namespace=%s", (namespace,))
                return counts
            counts["turns"] = conn.execute(
                "DELETE FROM turns WHERE namespace=%s AND seq = ANY(%s)", (namespace, [t[0] for t in turns])
            ).rowcount
            for conv, sid in sorted({(c, s) for _, c, s, _, _ in turns}):
                segment = f"{conv}/{sid}"
                counts["segment_summaries"] += conn.execute(
                    "DELETE FROM segment_summaries WHERE namespace=%s AND (segment_id=%s OR "
                    "left(segment_id, %s)=%s)",
                    (namespace, segment, len(segment) + 1, segment + "#"),
                ).rowcount
                left = conn.execute(
                    "SELECT 1 FROM turns WHERE namespace=%s AND conversation_id=%s AND session_id=%s LIMIT 1",
                    (namespace, conv, sid),
                ).fetchone()
                if left is None:
                    counts["sessions"] += conn.execute(
                        "DELETE FROM sessions WHERE namespace=%s AND conversation_id=%s AND session_id=%s",
                        (namespace, conv, sid),
                    ).rowcount
        return counts

    def pending_erasures(self) -> list[PendingErasure]:
        """Erasures whose delete committed but whose derived stores may still hold copies."""
        rows = self.db.rows(
            "SELECT erasure_id, namespace, kind, reason, plan FROM erasures WHERE state=%s "
            "ORDER BY created_at, erasure_id",
            (ERASURE_PENDING,),
        )
        return [PendingErasure(**r) for r in rows]

    def erased_turns(self, erasure_id: str) -> list[TurnTombstone]:
        """The turn tombstones of one erasure, in seq order."""
        rows = self.db.rows(
            "SELECT seq, conversation_id, turn_id, hash FROM erased_turns WHERE erasure_id=%s ORDER BY seq",
            (erasure_id,),
        )
        return [TurnTombstone(int(r["seq"]), r["conversation_id"], r["turn_id"], r["hash"]) for r in rows]

    def finish_erasure(self, erasure_id: str) -> None:
        """Mark an erasure done (its derived copies are gone and the tables compacted)."""
        with self.db.transaction() as conn:
            conn.execute("UPDATE erasures SET state=%s WHERE erasure_id=%s", (ERASURE_DONE, erasure_id))

    def compact(self) -> CompactReport:
        """VACUUM (FULL) of the episode tables (emem.storage.postgres.maintenance says what it
        cannot reach)."""
        return vacuum_full(self.db, TABLES)


def _refuse_erased(conn: psycopg.Connection, namespace: str, t: Turn, digest: str, where: str) -> None:
    row = conn.execute(
        "SELECT erasure_id FROM erased_turns WHERE namespace=%s AND "
        "((conversation_id=%s AND turn_id=%s) OR hash=%s) LIMIT 1",
        (namespace, t.conversation_id, t.turn_id, digest),
    ).fetchone()
    if row is not None:
        raise ConflictError(
            f"{where}conversation {t.conversation_id!r} turn {t.turn_id!r} was erased (erasure "
            f"{row['erasure_id']}); storing it again would undo that erasure. Leave it out, or pass "  # type: ignore[index]
            "restore=True (CLI: --restore) if you mean to restore it"
        )


def _register_session(
    conn: psycopg.Connection,
    namespace: str,
    conversation_id: str,
    session_id: str,
    time: datetime | None,
    where: str,
    turn_time: datetime | None = None,
) -> None:
    row = conn.execute(
        "SELECT time FROM sessions WHERE namespace=%s AND conversation_id=%s AND session_id=%s",
        (namespace, conversation_id, session_id),
    ).fetchone()
    if row is None:
        conn.execute(
            "INSERT INTO sessions VALUES (%s,%s,%s,%s)",
            (namespace, conversation_id, session_id, iso(time or turn_time)),  # type: ignore[arg-type]
        )
    elif time is not None and parse_iso_time(row["time"]) != time:  # type: ignore[index]
        raise ConflictError(
            f"{where}conversation {conversation_id!r} session {session_id!r}: already stored with time "
            f"{row['time']}, not {iso(time)}"  # type: ignore[index]
        )
