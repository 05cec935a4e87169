"""SQLite home of the ledger: append-only revisions and relations, scoped by namespace.

Rows are only ever inserted (triggers refuse UPDATE and DELETE), so every answer the ledger ever
gave can be reproduced by asking again "as known at" that time. Answers come from the pure
resolver; this module only loads the rows it needs and records audit relations.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from emem.errors import InputError, NotFoundError
from emem.ledger import resolver
from emem.ledger.models import (
    History,
    Relation,
    RelationKind,
    Resolution,
    Revision,
    make_assertion,
    make_revocation,
    relation_id,
    stamp,
)
from emem.ledger.predicates import (
    Cardinality,
    builtin_cardinality,
    canonical_predicate,
    parse_cardinality,
    predicate_name,
    subject_key,
)
from emem.models import check_namespace
from emem.store.sqlite import store_errors
from emem.timeparse import parse_iso_time, utcnow
from emem.validation import check_optional_text, check_text, check_text_list

TimeLike = datetime | str
MAX_SUBJECT_CHARS = 1000
MAX_OBJECT_CHARS = 10_000
"""A fact's value is a short phrase; anything longer is a pasted document or an attack."""

_SCHEMA = """
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
_RESOLVER_RELATIONS: tuple[RelationKind, ...] = ("adjudicated",)
"""The only relations that influence answers; the others are audit records."""
_REL_COLS = "seq, id, namespace, kind, from_id, to_id, known_at, reason, recorded_at"


class WriteResult(BaseModel):
    """What one assertion did: the revision (new or pre-existing) and the audit relations it added."""

    model_config = ConfigDict(frozen=True)

    revision: Revision
    created: bool
    relations: list[Relation] = Field(default_factory=list)


def _as_list(value: object) -> object:
    """Sets and generators of sources become lists; a bare string stays one, to be refused."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return value
    return list(value)


def _time(value: TimeLike | None, where: str, default: datetime | None = None) -> datetime:
    if value is None:
        if default is None:
            raise InputError("a time is required", where)
        return default
    return parse_iso_time(value, where)


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


class Ledger:
    """Append-only bitemporal fact store in one SQLite file (WAL, synchronous=FULL).

    `path` may be ":memory:" for a throwaway in-memory ledger (tests).
    """

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
            self._conn.executescript(_SCHEMA)
            self._conn.execute("SELECT COUNT(*) FROM revisions").fetchone()

    # ----------------------------------------------------------------------------- plumbing

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit; nests (inner blocks join the outer one), so callers can group writes."""
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

    def _load(
        self,
        namespace: str,
        key: str | None = None,
        predicate: str | None = None,
        *,
        relations: tuple[RelationKind, ...] | None = None,
    ) -> tuple[list[Revision], list[Relation]]:
        """Rows of a namespace (optionally one subject / predicate) and the relations of the given
        kinds (None: all kinds), in write order."""
        where, params = "namespace = ?", [namespace]
        if key is not None:
            where, params = where + " AND subject_key = ?", [*params, key]
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

    def _find(self, namespace: str, revision_id: str) -> Revision | None:
        rows = self._rows(
            f"SELECT {_REV_COLS} FROM revisions WHERE namespace = ? AND id = ?", (namespace, revision_id)
        )
        return _row_to_revision(rows[0]) if rows else None

    def _find_prefix(self, namespace: str, revision_id: str) -> Revision:
        """Exact id, or a unique prefix of at least 8 characters (what the CLI shows)."""
        rev = self._find(namespace, revision_id)
        if rev is not None:
            return rev
        prefix = revision_id.strip().lower()
        if len(prefix) >= 8 and all(c in "0123456789abcdef" for c in prefix):
            rows = self._rows(
                f"SELECT {_REV_COLS} FROM revisions WHERE namespace = ? AND id >= ? AND id < ? LIMIT 2",
                (namespace, prefix, prefix + "g"),
            )
            if len(rows) == 1:
                return _row_to_revision(rows[0])
            if len(rows) > 1:
                raise InputError(f"revision id prefix {revision_id!r} is ambiguous; give more characters")
        raise NotFoundError(f"no revision {revision_id!r} in namespace {namespace!r}")

    def _insert_revision(self, rev: Revision) -> Revision:
        now = utcnow()
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

    def _insert_relation(
        self,
        namespace: str,
        about: Revision,
        kind: RelationKind,
        from_id: str,
        to_id: str,
        known_at: datetime,
        reason: str | None,
    ) -> Relation | None:
        """Insert an audit relation; None when the identical relation already exists."""
        rid = relation_id(namespace, kind, from_id, to_id, known_at)
        now = utcnow()
        cur = self._conn.execute(
            "INSERT OR IGNORE INTO relations (id, namespace, subject_key, predicate, kind, from_id, to_id, "
            "known_at, reason, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rid,
                namespace,
                about.subject_key,
                about.predicate,
                kind,
                from_id,
                to_id,
                stamp(known_at),
                reason,
                stamp(now),
            ),
        )
        if cur.rowcount == 0:
            return None
        return Relation(
            id=rid,
            namespace=namespace,
            kind=kind,
            from_id=from_id,
            to_id=to_id,
            known_at=known_at,
            reason=reason,
            recorded_at=now,
            seq=cur.lastrowid,
        )

    def _display_subject(self, namespace: str, subject: str) -> str:
        rows = self._rows(
            "SELECT subject FROM revisions WHERE namespace = ? AND subject_key = ? ORDER BY seq LIMIT 1",
            (namespace, subject_key(subject)),
        )
        return rows[0]["subject"] if rows else " ".join(str(subject).split())

    # ----------------------------------------------------------------------------- writes

    def write_assertion(
        self,
        namespace: str,
        subject: str,
        predicate: str,
        object: str,
        valid_from: TimeLike,
        valid_to: TimeLike | None = None,
        known_at: TimeLike | None = None,
        sources: Iterable[str] = (),
        *,
        surface: str | None = None,
        confidence: float = 1.0,
        asserted_by: str | None = "user",
        cardinality: Cardinality | str | None = None,
    ) -> WriteResult:
        """`assert_fact` with the details consolidation needs (was it new, which relations it added)."""
        check_namespace(namespace)
        check_text(subject, "subject", max_chars=MAX_SUBJECT_CHARS)
        check_text(predicate, "predicate", max_chars=MAX_SUBJECT_CHARS)
        check_text(object, "object", max_chars=MAX_OBJECT_CHARS)
        sources = check_text_list(_as_list(sources), "sources")
        check_optional_text(surface, "surface", max_chars=MAX_OBJECT_CHARS)
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
            raise InputError(f"confidence must be a number, got {type(confidence).__name__}", "confidence")
        if not 0.0 <= confidence <= 1.0:
            raise InputError(f"confidence must be within 0..1, got {confidence}", "confidence")
        vf = _time(valid_from, "valid_from")
        vt = None if valid_to is None else _time(valid_to, "valid_to")
        k = _time(known_at, "known_at", utcnow())
        with self.transaction():
            card = self._declare(namespace, predicate, cardinality)
            rev = make_assertion(
                namespace=namespace,
                subject=self._display_subject(namespace, subject),
                predicate=predicate,
                object_text=object,
                valid_from=vf,
                valid_to=vt,
                known_from=k,
                sources=sources,
                surface=surface,
                confidence=confidence,
                asserted_by=asserted_by,
                declared={predicate_name(predicate): card},
            )
            existing = self._find(namespace, rev.id)
            if existing is not None:
                return WriteResult(revision=existing, created=False)
            rev = self._insert_revision(rev)
            rels = self._audit_relations(rev) if card == Cardinality.SINGLE else []
            return WriteResult(revision=rev, created=True, relations=rels)

    def assert_fact(
        self,
        namespace: str,
        subject: str,
        predicate: str,
        object: str,
        valid_from: TimeLike,
        valid_to: TimeLike | None = None,
        known_at: TimeLike | None = None,
        sources: Iterable[str] = (),
        *,
        surface: str | None = None,
        confidence: float = 1.0,
        asserted_by: str | None = "user",
        cardinality: Cardinality | str | None = None,
    ) -> Revision:
        """Record that subject.predicate = object over [valid_from, valid_to), known since known_at.

        Idempotent: the same fact from the same evidence returns the existing revision.

        Args:
            cardinality: "single" or "multi". Required the first time an open (not built-in)
                predicate is written in this namespace, which declares it; optional afterwards and
                for built-ins, but refused when it contradicts the predicate's known cardinality.

        Returns:
            The revision written (or the identical one already stored).
        """
        return self.write_assertion(
            namespace,
            subject,
            predicate,
            object,
            valid_from,
            valid_to,
            known_at,
            sources,
            surface=surface,
            confidence=confidence,
            asserted_by=asserted_by,
            cardinality=cardinality,
        ).revision

    # ----------------------------------------------------------------------------- predicates

    def declared_predicates(self, namespace: str) -> dict[str, Cardinality]:
        """The open predicates declared in this namespace (name -> cardinality); built-ins excluded."""
        check_namespace(namespace)
        rows = self._rows("SELECT name, cardinality FROM predicates WHERE namespace = ?", (namespace,))
        return {r["name"]: Cardinality(r["cardinality"]) for r in rows}

    def cardinality_of(self, predicate: str, namespace: str) -> Cardinality:
        """The one place that says whether a predicate is single- or multi-valued in a namespace.

        Args:
            predicate: a built-in predicate, a favourite_<category>, or an open predicate declared
                in `namespace`.
            namespace: the tenant whose declarations apply.

        Returns:
            Its cardinality; InputError naming the predicate when it is unknown there.
        """
        name = predicate_name(predicate)
        card = builtin_cardinality(name)
        if card is not None:
            return card
        check_namespace(namespace)
        rows = self._rows(
            "SELECT cardinality FROM predicates WHERE namespace = ? AND name = ?", (namespace, name)
        )
        if not rows:
            canonical_predicate(predicate)  # raises the "unknown predicate" error
        return Cardinality(rows[0]["cardinality"])

    def _canonical(self, namespace: str, predicate: str) -> tuple[str, Cardinality]:
        name = predicate_name(predicate)
        return name, self.cardinality_of(name, namespace)

    def _declare(self, namespace: str, predicate: str, cardinality: Cardinality | str | None) -> Cardinality:
        """Cardinality of `predicate`, declaring an open predicate on first use (inside a write)."""
        name = predicate_name(predicate)
        wanted = None if cardinality is None else parse_cardinality(cardinality)
        known = builtin_cardinality(name)
        if known is None:
            rows = self._rows(
                "SELECT cardinality FROM predicates WHERE namespace = ? AND name = ?", (namespace, name)
            )
            known = Cardinality(rows[0]["cardinality"]) if rows else None
        if known is None:
            if wanted is None:
                canonical_predicate(predicate)  # raises: unknown predicate, no cardinality to declare it
            self._conn.execute(
                "INSERT INTO predicates (namespace, name, cardinality, declared_at) VALUES (?, ?, ?, ?)",
                (namespace, name, str(wanted), stamp(utcnow())),
            )
            return wanted  # type: ignore[return-value]
        if wanted is not None and wanted != known:
            raise InputError(
                f"predicate {name!r} is {known}-valued; cardinality {str(wanted)!r} contradicts it",
                "cardinality",
            )
        return known

    def _audit_relations(self, new: Revision) -> list[Relation]:
        """Record how a new single-valued revision orders against its neighbours in valid time.

        Only the nearest earlier and later values are linked (the chain implies the rest); the
        direction follows valid time, so late-arriving evidence about the past is superseded by
        the newer value rather than superseding it. Same valid_from, different value: unresolved.
        """
        revs, _ = self._load(new.namespace, new.subject_key, new.predicate, relations=())
        revoked = {r.target_id for r in revs if r.kind == "revocation"}
        peers = [r for r in revs if r.kind == "assertion" and r.id != new.id and r.id not in revoked]
        out: list[Relation] = []

        def link(kind: RelationKind, a: Revision, b: Revision, reason: str) -> None:
            rel = self._insert_relation(
                new.namespace, new, kind, a.id, b.id, max(a.known_from, b.known_from), reason
            )
            if rel is not None:
                out.append(rel)

        for p in peers:
            if p.valid_from == new.valid_from and p.object != new.object:
                link("unresolved", new, p, f"same valid_from, {new.object_text!r} vs {p.object_text!r}")
        before = [p for p in peers if p.valid_from < new.valid_from]
        if before:
            edge = max(p.valid_from for p in before)
            for p in before:
                if (
                    p.valid_from == edge
                    and p.object != new.object
                    and (p.valid_to is None or p.valid_to > edge)
                ):
                    link(
                        "supersedes",
                        new,
                        p,
                        f"valid from {new.valid_from.isoformat()}, after {edge.isoformat()}",
                    )
        after = [p for p in peers if p.valid_from > new.valid_from]
        if after:
            edge = min(p.valid_from for p in after)
            if new.valid_to is None or new.valid_to > edge:
                for p in after:
                    if p.valid_from == edge and p.object != new.object:
                        link(
                            "supersedes",
                            p,
                            new,
                            f"valid from {edge.isoformat()}, after {new.valid_from.isoformat()}",
                        )
        return out

    def revoke(
        self,
        namespace: str,
        revision_id: str,
        known_at: TimeLike | None = None,
        reason: str | None = None,
        *,
        sources: Iterable[str] = (),
        asserted_by: str | None = "user",
    ) -> Revision:
        """Withdraw a revision from known_at on (a new row; the old one stays for the record).

        Revoking something already revoked by then returns that earlier revocation.
        """
        check_namespace(namespace)
        check_text(revision_id, "revision_id", max_chars=200)
        if reason is not None:
            check_text(reason, "reason", max_chars=1000, allow_blank=True)
        k = _time(known_at, "known_at", utcnow())
        with self.transaction():
            target = self._find_prefix(namespace, revision_id)
            revision_id = target.id
            earlier = [
                _row_to_revision(r)
                for r in self._rows(
                    f"SELECT {_REV_COLS} FROM revisions WHERE namespace = ? AND target_id = ? ORDER BY seq",
                    (namespace, revision_id),
                )
            ]
            done = [r for r in earlier if r.known_from <= k]
            if done:
                return done[0]
            rev = make_revocation(
                target, known_from=k, reason=reason, asserted_by=asserted_by, sources=sources
            )
            existing = self._find(namespace, rev.id)
            if existing is not None:
                return existing
            rev = self._insert_revision(rev)
            self._insert_relation(namespace, target, "revokes", rev.id, target.id, k, reason)
            return rev

    def adjudicate(
        self,
        namespace: str,
        winner_id: str,
        loser_id: str,
        known_at: TimeLike | None = None,
        reason: str | None = None,
    ) -> Relation:
        """Order two tied values of one fact: from known_at on, the winner's value beats the loser's."""
        check_namespace(namespace)
        k = _time(known_at, "known_at", utcnow())
        with self.transaction():
            found = []
            for rid in (winner_id, loser_id):
                rev = self._find_prefix(namespace, rid)
                if rev.kind != "assertion":
                    raise InputError(f"revision {rid} is a revocation; only assertions can be adjudicated")
                found.append(rev)
            win, lose = found
            if win.id == lose.id:
                raise InputError("cannot adjudicate a revision against itself")
            if (win.subject_key, win.predicate) != (lose.subject_key, lose.predicate):
                raise InputError(
                    f"cannot adjudicate {win.subject}.{win.predicate} against {lose.subject}.{lose.predicate}"
                )
            rel = self._insert_relation(namespace, win, "adjudicated", win.id, lose.id, k, reason)
            if rel is not None:
                return rel
            rows = self._rows(
                f"SELECT {_REL_COLS} FROM relations WHERE id = ?",
                (relation_id(namespace, "adjudicated", win.id, lose.id, k),),
            )
            return _row_to_relation(rows[0])

    # ----------------------------------------------------------------------------- reads

    def resolve(
        self,
        namespace: str,
        subject: str,
        predicate: str,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
    ) -> Resolution:
        """State, miss or conflict for subject.predicate at valid_at, as known at known_at (default now)."""
        check_namespace(namespace)
        check_text(subject, "subject", max_chars=MAX_SUBJECT_CHARS)
        check_text(predicate, "predicate", max_chars=MAX_SUBJECT_CHARS)
        pred, card = self._canonical(namespace, predicate)
        now = utcnow()
        v, k = _time(valid_at, "valid_at", now), _time(known_at, "known_at", now)
        revs, rels = self._load(namespace, subject_key(subject), pred, relations=_RESOLVER_RELATIONS)
        return resolver.resolve(revs, rels, subject, pred, card, v, k)

    def facts(
        self,
        namespace: str,
        subject: str | None = None,
        predicate: str | None = None,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
    ) -> list[Resolution]:
        """Current state of every subject/predicate pair (conflicts included, misses left out)."""
        check_namespace(namespace)
        check_optional_text(subject, "subject", max_chars=MAX_SUBJECT_CHARS)
        check_optional_text(predicate, "predicate", max_chars=MAX_SUBJECT_CHARS)
        pred = self._canonical(namespace, predicate)[0] if predicate is not None else None
        now = utcnow()
        v, k = _time(valid_at, "valid_at", now), _time(known_at, "known_at", now)
        key = subject_key(subject) if subject is not None else None
        revs, rels = self._load(namespace, key, pred, relations=_RESOLVER_RELATIONS)
        return resolver.facts_at(
            revs, rels, v, k, subject=subject, predicate=pred, declared=self.declared_predicates(namespace)
        )

    def history(self, namespace: str, subject: str, predicate: str | None = None) -> History:
        """Every revision ever written about the subject (revoked and superseded too), with relations."""
        check_namespace(namespace)
        check_text(subject, "subject", max_chars=MAX_SUBJECT_CHARS)
        check_optional_text(predicate, "predicate", max_chars=MAX_SUBJECT_CHARS)
        pred = self._canonical(namespace, predicate)[0] if predicate is not None else None
        revs, rels = self._load(namespace, subject_key(subject), pred)
        return resolver.timeline(
            revs, rels, namespace, subject, pred, declared=self.declared_predicates(namespace)
        )

    def get(self, namespace: str, revision_id: str) -> Revision:
        """One revision by id (or unique id prefix of 8+ characters)."""
        check_namespace(namespace)
        return self._find_prefix(namespace, revision_id)

    def revisions(self, namespace: str) -> list[Revision]:
        """All rows of a namespace in write order (audit and tests)."""
        check_namespace(namespace)
        return self._load(namespace)[0]

    def relations(self, namespace: str) -> list[Relation]:
        check_namespace(namespace)
        return self._load(namespace)[1]

    def last_seq(self, namespace: str) -> int:
        """The newest row's seq (0 when empty): a change token for caches of ledger rows."""
        check_namespace(namespace)
        rows = self._rows("SELECT MAX(seq) AS m FROM revisions WHERE namespace = ?", (namespace,))
        return int(rows[0]["m"] or 0)

    def version(self, namespace: str) -> tuple[int, int]:
        """(newest revision seq, newest relation seq): changes with every row written, so caches of
        anything derived from the ledger (subjects, aliases, forget requests) know when to reload."""
        check_namespace(namespace)
        rows = self._rows(
            "SELECT (SELECT MAX(seq) FROM revisions WHERE namespace = ?) AS r, "
            "(SELECT MAX(seq) FROM relations WHERE namespace = ?) AS l",
            (namespace, namespace),
        )
        return int(rows[0]["r"] or 0), int(rows[0]["l"] or 0)

    def count(self, namespace: str) -> int:
        """Number of assertion revisions (revocations are not facts)."""
        check_namespace(namespace)
        rows = self._rows(
            "SELECT COUNT(*) AS n FROM revisions WHERE namespace = ? AND kind = 'assertion'", (namespace,)
        )
        return int(rows[0]["n"])

    def subjects(self, namespace: str) -> list[str]:
        """Display names of every subject with at least one revision, sorted case-insensitively."""
        check_namespace(namespace)
        rows = self._rows(
            "SELECT subject_key, subject FROM revisions WHERE namespace = ? ORDER BY seq", (namespace,)
        )
        names: dict[str, str] = {}
        for r in rows:
            names.setdefault(r["subject_key"], r["subject"])
        return [names[k] for k in sorted(names)]

    # ----------------------------------------------------------------------------- erasure

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
        """Erase rows, the one sanctioned exception to append-only (emem.erasure calls it).

        In one transaction: lift the no-delete triggers, delete the named revision and relation
        rows of `namespace` (secure_delete zeroes their pages), record `tombstones` as
        (id, kind, content_hash) with the erasure id, time and reason, and restore the triggers.
        No other connection ever sees the triggers missing. Returns (revisions, relations) deleted.
        """
        check_namespace(namespace)
        revs, rels = sorted(set(revision_ids)), sorted(set(relation_ids))
        now = stamp(utcnow())
        with self.transaction():
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

    def tombstones(self, namespace: str) -> list[dict[str, object]]:
        """What erasure removed from this namespace: id, kind, content hash, when and why."""
        check_namespace(namespace)
        rows = self._rows(
            "SELECT id, kind, content_hash, erasure_id, erased_at, reason FROM tombstones "
            "WHERE namespace = ? ORDER BY seq",
            (namespace,),
        )
        return [dict(r) for r in rows]

    # ----------------------------------------------------------------------------- watermarks

    def get_watermark(self, namespace: str, name: str) -> int:
        """Highest episode seq a derived process (e.g. consolidation) has covered; 0 if none."""
        check_namespace(namespace)
        rows = self._rows("SELECT seq FROM watermarks WHERE namespace = ? AND name = ?", (namespace, name))
        return int(rows[0]["seq"]) if rows else 0

    def set_watermark(self, namespace: str, name: str, seq: int) -> None:
        """Bookkeeping, not ledger data (so an upsert is fine); joins an enclosing transaction."""
        check_namespace(namespace)
        if seq < 0:
            raise InputError(f"watermark seq must be >= 0, got {seq}", "seq")
        with self.transaction():
            self._conn.execute(
                "INSERT INTO watermarks (namespace, name, seq, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, name) DO UPDATE SET seq = excluded.seq, "
                "updated_at = excluded.updated_at",
                (namespace, name, int(seq), stamp(utcnow())),
            )
