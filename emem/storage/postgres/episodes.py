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
    """Rows hold times as ISO text and metadata as JSON text, as the embedded store writes them."""
    fields = {**row, "metadata": json.loads(row["metadata"]) if row["metadata"] else None}
    fields.update((k, parse_iso_time(row[k])) for k in ("time", "recorded_at"))
    return StoredTurn(**fields)


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
        with self.db.transaction() as conn:
            self.db.lock(conn, APPEND_LOCK, namespace)
            _register_sessions(conn, namespace, sessions, turns, where)
            stored = _stored_hashes(conn, namespace, [(t.conversation_id, t.turn_id) for t in turns])
            new: list[tuple[Turn, str]] = []
            for t in turns:
                h = t.content_hash()
                known = stored.get((t.conversation_id, t.turn_id))
                if known is not None and known != h:
                    raise ConflictError(
                        f"{where}conversation {t.conversation_id!r} session {t.session_id!r} turn {t.turn_id!r}: "
                        "already stored with different content; emem never overwrites a turn "
                        "(forget it first to replace it)"
                    )
                if known is None:
                    stored[(t.conversation_id, t.turn_id)] = h
                    new.append((t, h))
            if new and not restore:
                _refuse_erased(conn, namespace, new, where)
            seqs = _insert(conn, namespace, new)
        return IngestReport(
            namespace=namespace,
            added=len(new),
            unchanged=len(turns) - len(new),
            first_seq=seqs[0] if seqs else None,
            last_seq=seqs[-1] if seqs else None,
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


def _pairs(refs: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    return [a for a, _ in refs], [b for _, b in refs]


def _register_sessions(
    conn: psycopg.Connection,
    namespace: str,
    declared: Sequence[tuple[str, str, datetime]],
    turns: Sequence[Turn],
    where: str,
) -> None:
    """Store the sessions a batch declares (a declared time must match a stored one) and, with
    their first turn's time, the undeclared sessions its turns belong to: one query to read, one
    to insert, whatever the batch size (a round trip costs more over a network than a row)."""
    wanted: dict[tuple[str, str], tuple[datetime, bool]] = {}
    for conv, sid, start in declared:
        earlier = wanted.setdefault((conv, sid), (start, True))[0]
        if earlier != start:
            raise ConflictError(
                f"{where}conversation {conv!r} session {sid!r}: already stored with time "
                f"{iso(earlier)}, not {iso(start)}"
            )
    for t in turns:
        wanted.setdefault((t.conversation_id, t.session_id), (t.time, False))
    if not wanted:
        return
    convs, sids = _pairs(list(wanted))
    rows = conn.execute(
        "SELECT conversation_id, session_id, time FROM sessions WHERE namespace=%s AND "
        "(conversation_id, session_id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
        (namespace, convs, sids),
    ).fetchall()
    for r in rows:
        key = (r["conversation_id"], r["session_id"])  # type: ignore[call-overload]
        time, is_declared = wanted.pop(key)
        if is_declared and parse_iso_time(r["time"]) != time:  # type: ignore[call-overload]
            raise ConflictError(
                f"{where}conversation {key[0]!r} session {key[1]!r}: already stored with time "
                f"{r['time']}, not {iso(time)}"  # type: ignore[call-overload]
            )
    if wanted:
        convs, sids = _pairs(list(wanted))
        conn.execute(
            "INSERT INTO sessions SELECT %s, * FROM unnest(%s::text[], %s::text[], %s::text[])",
            (namespace, convs, sids, [iso(time) for time, _ in wanted.values()]),
        )


def _stored_hashes(
    conn: psycopg.Connection, namespace: str, refs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    if not refs:
        return {}
    convs, tids = _pairs(refs)
    rows = conn.execute(
        "SELECT conversation_id, turn_id, hash FROM turns WHERE namespace=%s AND "
        "(conversation_id, turn_id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
        (namespace, convs, tids),
    ).fetchall()
    return {(r["conversation_id"], r["turn_id"]): r["hash"] for r in rows}  # type: ignore[call-overload]


def _insert(conn: psycopg.Connection, namespace: str, new: Sequence[tuple[Turn, str]]) -> list[int]:
    """Insert the turns in one statement; seqs are drawn first and given out in ascending order,
    so seq order is batch order."""
    if not new:
        return []
    seqs = sorted(
        r["n"]  # type: ignore[call-overload]
        for r in conn.execute(
            "SELECT nextval(pg_get_serial_sequence('turns', 'seq')) AS n FROM generate_series(1, %s)",
            (len(new),),
        ).fetchall()
    )
    recorded = iso(utcnow())
    conn.execute(
        "INSERT INTO turns (seq, namespace, conversation_id, session_id, turn_id, speaker, text, image_caption, "
        "time, recorded_at, hash, metadata) SELECT u.seq, %s, u.c, u.s, u.t, u.sp, u.tx, u.ic, u.tm, %s, u.h, u.md "
        "FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], "
        "%s::text[], %s::text[], %s::text[]) AS u(seq, c, s, t, sp, tx, ic, tm, h, md)",
        (
            namespace,
            recorded,
            seqs,
            [t.conversation_id for t, _ in new],
            [t.session_id for t, _ in new],
            [t.turn_id for t, _ in new],
            [t.speaker for t, _ in new],
            [t.text for t, _ in new],
            [t.image_caption for t, _ in new],
            [iso(t.time) for t, _ in new],
            [h for _, h in new],
            [
                json.dumps(t.metadata, ensure_ascii=False, sort_keys=True) if t.metadata else None
                for t, _ in new
            ],
        ),
    )
    return seqs


def _refuse_erased(
    conn: psycopg.Connection, namespace: str, new: Sequence[tuple[Turn, str]], where: str
) -> None:
    """ConflictError naming the first new turn an erasure tombstoned (same ids or same content)."""
    convs, tids = _pairs([(t.conversation_id, t.turn_id) for t, _ in new])
    rows = conn.execute(
        "SELECT erasure_id, conversation_id, turn_id, hash FROM erased_turns WHERE namespace=%s AND "
        "((conversation_id, turn_id) IN (SELECT * FROM unnest(%s::text[], %s::text[])) OR hash = ANY(%s))",
        (namespace, convs, tids, [h for _, h in new]),
    ).fetchall()
    if not rows:
        return
    by_ref = {(r["conversation_id"], r["turn_id"]): r["erasure_id"] for r in rows}  # type: ignore[call-overload]
    by_hash = {r["hash"]: r["erasure_id"] for r in rows}  # type: ignore[call-overload]
    for t, h in new:
        erasure = by_ref.get((t.conversation_id, t.turn_id)) or by_hash.get(h)
        if erasure is not None:
            raise ConflictError(
                f"{where}conversation {t.conversation_id!r} turn {t.turn_id!r} was erased (erasure "
                f"{erasure}); storing it again would undo that erasure. Leave it out, or pass "
                "restore=True (CLI: --restore) if you mean to restore it"
            )
