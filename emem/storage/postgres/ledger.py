"""The ledger's rows on PostgreSQL: revisions, relations, predicate declarations, watermarks and
tombstones (emem.ledger.store.Ledger keeps the logic, for every backend).

Append-only is enforced by the database (schema.py): triggers refuse UPDATE, TRUNCATE and DELETE
on revisions, relations and tombstones for every client, except DELETE of revisions and
relations inside a transaction that set `emem.erasure_id` locally, which only `purge` does. The
setting is transaction-local, so no other session ever sees the guard lifted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from emem.ledger.models import Relation, RelationKind, Revision, stamp
from emem.storage.contract import CompactReport, Tombstone
from emem.storage.postgres.db import Database
from emem.storage.postgres.maintenance import vacuum_full
from emem.timeparse import utcnow

LEDGER_LOCK = "ledger"
ALL_NAMESPACES = "*"
TABLES = ("revisions", "relations", "tombstones", "watermarks", "predicates")
GUARDED = {
    "revisions": ("revisions_append_only", "revisions_no_truncate"),
    "relations": ("relations_append_only", "relations_no_truncate"),
    "tombstones": ("tombstones_append_only", "tombstones_no_truncate"),
}
_REV_COLS = (
    "seq, id, namespace, kind, subject, predicate, object, object_text, surface, valid_from, valid_to, "
    "known_from, confidence, sources, asserted_by, target_id, reason, recorded_at"
)
_REL_COLS = "seq, id, namespace, kind, from_id, to_id, known_at, reason, recorded_at"


def _times(row: dict[str, Any], *names: str) -> dict[str, Any]:
    """The row with its ISO-text time columns (None stays None) as datetimes."""
    return {**row, **{k: datetime.fromisoformat(row[k]) if row[k] else None for k in names}}


def _revision(row: dict[str, Any]) -> Revision:
    fields = _times(row, "valid_from", "valid_to", "known_from", "recorded_at")
    return Revision(**{**fields, "sources": json.loads(row["sources"])})


def _relation(row: dict[str, Any]) -> Relation:
    return Relation(**_times(row, "known_at", "recorded_at"))


class PgLedgerStore:
    """`LedgerStore` on a PostgreSQL database (see emem.storage.contract for each method)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def close(self) -> None:
        """Nothing per store: the pool belongs to the backend."""

    @contextmanager
    def transaction(self, namespace: str | None = None) -> Iterator[None]:
        """One atomic unit; nests by joining. Writers of `namespace` are serialised for the block
        by a transaction-scoped advisory lock (None: every namespace's writers)."""
        with self.db.transaction() as conn:
            if namespace is None:
                self.db.lock(conn, LEDGER_LOCK, ALL_NAMESPACES)
            else:
                self.db.lock(conn, LEDGER_LOCK, ALL_NAMESPACES, shared=True)
                self.db.lock(conn, LEDGER_LOCK, namespace)
            yield

    # -- rows ---------------------------------------------------------------------------------

    def insert_revision(self, rev: Revision) -> Revision:
        now = utcnow()
        row = rev.model_dump(exclude={"seq"})
        row.update({k: stamp(row[k]) if row[k] else None for k in ("valid_from", "valid_to", "known_from")})
        row.update(
            subject_key=rev.subject_key,
            sources=json.dumps(rev.sources, ensure_ascii=False),
            recorded_at=stamp(now),
        )
        names = ", ".join(row)
        values = ", ".join(f"%({name})s" for name in row)
        with self.db.transaction() as conn:
            seq = conn.execute(
                f"INSERT INTO revisions ({names}) VALUES ({values}) RETURNING seq", row
            ).fetchone()
        return rev.model_copy(update={"seq": seq["seq"], "recorded_at": now})  # type: ignore[index,call-overload]

    def insert_relation(self, subject_key: str, predicate: str, rel: Relation) -> Relation | None:
        now = utcnow()
        with self.db.transaction() as conn:
            row = conn.execute(
                "INSERT INTO relations (id, namespace, subject_key, predicate, kind, from_id, to_id, "
                "known_at, reason, recorded_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING RETURNING seq",
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
            ).fetchone()
        if row is None:
            return None
        return rel.model_copy(update={"seq": row["seq"], "recorded_at": now})  # type: ignore[call-overload]

    def find(self, namespace: str, revision_id: str) -> Revision | None:
        rows = self.db.rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = %s AND id = %s", (namespace, revision_id)
        )
        return _revision(rows[0]) if rows else None

    def find_by_prefix(self, namespace: str, prefix: str, limit: int = 2) -> list[Revision]:
        rows = self.db.rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = %s AND id >= %s AND id < %s "
            "ORDER BY id LIMIT %s",
            (namespace, prefix, prefix + "g", limit),
        )
        return [_revision(r) for r in rows]

    def revocations_of(self, namespace: str, target_id: str) -> list[Revision]:
        rows = self.db.rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = %s AND target_id = %s ORDER BY seq",
            (namespace, target_id),
        )
        return [_revision(r) for r in rows]

    def relation(self, namespace: str, relation_id: str) -> Relation | None:
        rows = self.db.rows(
            f"SELECT {_REL_COLS} FROM relations WHERE namespace = %s AND id = %s", (namespace, relation_id)
        )
        return _relation(rows[0]) if rows else None

    def load(
        self,
        namespace: str,
        subject_key: str | None = None,
        predicate: str | None = None,
        *,
        relations: tuple[RelationKind, ...] | None = None,
    ) -> tuple[list[Revision], list[Relation]]:
        params: list[Any] = [namespace]
        where = "namespace = %s"
        if subject_key is not None:
            where, params = where + " AND subject_key = %s", [*params, subject_key]
        if predicate is not None:
            where, params = where + " AND predicate = %s", [*params, predicate]
        revs = [
            _revision(r)
            for r in self.db.rows(f"SELECT {_REV_COLS} FROM revisions WHERE {where} ORDER BY seq", params)
        ]
        if relations is not None:
            if not relations:
                return revs, []
            where, params = where + " AND kind = ANY(%s)", [*params, list(relations)]
        rels = self.db.rows(f"SELECT {_REL_COLS} FROM relations WHERE {where} ORDER BY seq", params)
        return revs, [_relation(r) for r in rels]

    def first_subject(self, namespace: str, subject_key: str) -> str | None:
        return self.db.scalar(
            "SELECT subject FROM revisions WHERE namespace = %s AND subject_key = %s ORDER BY seq LIMIT 1",
            (namespace, subject_key),
        )

    def subject_names(self, namespace: str) -> dict[str, str]:
        rows = self.db.rows(
            "SELECT DISTINCT ON (subject_key) subject_key, subject FROM revisions WHERE namespace = %s "
            "ORDER BY subject_key, seq",
            (namespace,),
        )
        return {r["subject_key"]: r["subject"] for r in rows}

    def last_seq(self, namespace: str) -> int:
        return int(self.db.scalar("SELECT max(seq) FROM revisions WHERE namespace = %s", (namespace,)) or 0)

    def version(self, namespace: str) -> tuple[int, int]:
        row = self.db.rows(
            "SELECT (SELECT max(seq) FROM revisions WHERE namespace = %s) AS r, "
            "(SELECT max(seq) FROM relations WHERE namespace = %s) AS l",
            (namespace, namespace),
        )[0]
        return int(row["r"] or 0), int(row["l"] or 0)

    def count_assertions(self, namespace: str) -> int:
        return int(
            self.db.scalar(
                "SELECT count(*) FROM revisions WHERE namespace = %s AND kind = 'assertion'", (namespace,)
            )
        )

    # -- bookkeeping ----------------------------------------------------------------------------

    def declared_predicates(self, namespace: str) -> dict[str, str]:
        rows = self.db.rows("SELECT name, cardinality FROM predicates WHERE namespace = %s", (namespace,))
        return {r["name"]: r["cardinality"] for r in rows}

    def declare_predicate(self, namespace: str, name: str, cardinality: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO predicates (namespace, name, cardinality, declared_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (namespace, name) DO NOTHING",
                (namespace, name, cardinality, stamp(utcnow())),
            )

    def get_watermark(self, namespace: str, name: str) -> int:
        return int(
            self.db.scalar("SELECT seq FROM watermarks WHERE namespace = %s AND name = %s", (namespace, name))
            or 0
        )

    def set_watermark(self, namespace: str, name: str, seq: int) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO watermarks (namespace, name, seq, updated_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (namespace, name) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at",
                (namespace, name, int(seq), stamp(utcnow())),
            )

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
        """Delete the named rows and append tombstones in one transaction, the guard lifted for
        this transaction only (a transaction-local setting the triggers check)."""
        revs, rels = sorted(set(revision_ids)), sorted(set(relation_ids))
        now = stamp(utcnow())
        with self.transaction(namespace):
            with self.db.transaction() as conn:
                conn.execute("SELECT set_config('emem.erasure_id', %s, true)", (erasure_id,))
                n_rev = conn.execute(
                    "DELETE FROM revisions WHERE namespace = %s AND id = ANY(%s)", (namespace, revs)
                ).rowcount
                n_rel = conn.execute(
                    "DELETE FROM relations WHERE namespace = %s AND id = ANY(%s)", (namespace, rels)
                ).rowcount
                if drop_watermarks:
                    conn.execute("DELETE FROM watermarks WHERE namespace = %s", (namespace,))
                    conn.execute("DELETE FROM predicates WHERE namespace = %s", (namespace,))
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO tombstones (id, namespace, kind, content_hash, erasure_id, erased_at, reason) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        [
                            (tid, namespace, kind, digest, erasure_id, now, reason)
                            for tid, kind, digest in tombstones
                        ],
                    )
                conn.execute("SELECT set_config('emem.erasure_id', '', true)")
        return n_rev, n_rel

    def tombstones(self, namespace: str) -> list[Tombstone]:
        return self.db.rows(
            "SELECT id, kind, content_hash, erasure_id, erased_at, reason FROM tombstones "
            "WHERE namespace = %s ORDER BY seq",
            (namespace,),
        )

    def integrity_problems(self) -> list[str]:
        """Append-only triggers missing or disabled (e.g. someone ran ALTER TABLE ... DISABLE)."""
        rows = self.db.rows(
            "SELECT c.relname AS t, g.tgname AS name, g.tgenabled AS enabled FROM pg_trigger g "
            "JOIN pg_class c ON c.oid = g.tgrelid WHERE NOT g.tgisinternal AND c.relname = ANY(%s)",
            (list(GUARDED),),
        )
        have = {(r["t"], r["name"]): r["enabled"] for r in rows}
        problems = []
        for table, names in GUARDED.items():
            for name in names:
                state = have.get((table, name))
                if state is None:
                    problems.append(f"{table}: append-only trigger {name} is missing")
                elif state == "D":
                    problems.append(f"{table}: append-only trigger {name} is disabled")
        return problems

    def compact(self) -> CompactReport:
        return vacuum_full(self.db, TABLES)
