"""The ledger: append-only revisions and relations, scoped by namespace, over any backend.

Rows are only ever inserted (the backend's `LedgerStore` enforces it in the database), so every
answer the ledger ever gave can be reproduced by asking again "as known at" that time. Answers
come from the pure resolver; this module holds the rules (idempotent ids, predicate declarations,
audit relations, revocation) once for every backend, and the store only keeps rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
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
from emem.storage.contract import LedgerStore, Tombstone
from emem.timeparse import parse_iso_time, utcnow
from emem.validation import check_optional_text, check_text, check_text_list

TimeLike = datetime | str
MAX_SUBJECT_CHARS = 1000
MAX_OBJECT_CHARS = 10_000
"""A fact's value is a short phrase; anything longer is a pasted document or an attack."""

_RESOLVER_RELATIONS: tuple[RelationKind, ...] = ("adjudicated",)
"""The only relations that influence answers; the others are audit records."""


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


class Ledger:
    """Append-only bitemporal fact store over a backend's `LedgerStore`.

    `store` may be a path (an embedded SQLite ledger there; ":memory:" for a throwaway one in tests).
    """

    def __init__(self, store: LedgerStore | Path | str) -> None:
        if isinstance(store, (str, Path)):
            from emem.ledger.sqlite import SqliteLedgerStore

            store = SqliteLedgerStore(store)
        self.store: LedgerStore = store

    # ----------------------------------------------------------------------------- plumbing

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self, namespace: str | None = None) -> AbstractContextManager[None]:
        """One atomic unit; nests (inner blocks join the outer one), so callers can group writes.

        Args:
            namespace: the namespace written (None: any), so a networked backend locks only it.

        Returns:
            A context manager: commit on exit, roll back on an exception.
        """
        return self.store.transaction(namespace)

    def _find_prefix(self, namespace: str, revision_id: str) -> Revision:
        """Exact id, or a unique prefix of at least 8 characters (what the CLI shows)."""
        rev = self.store.find(namespace, revision_id)
        if rev is not None:
            return rev
        prefix = revision_id.strip().lower()
        if len(prefix) >= 8 and all(c in "0123456789abcdef" for c in prefix):
            found = self.store.find_by_prefix(namespace, prefix, limit=2)
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise InputError(f"revision id prefix {revision_id!r} is ambiguous; give more characters")
        raise NotFoundError(f"no revision {revision_id!r} in namespace {namespace!r}")

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
        rel = Relation(
            id=relation_id(namespace, kind, from_id, to_id, known_at),
            namespace=namespace,
            kind=kind,
            from_id=from_id,
            to_id=to_id,
            known_at=known_at,
            reason=reason,
        )
        return self.store.insert_relation(about.subject_key, about.predicate, rel)

    def _display_subject(self, namespace: str, subject: str) -> str:
        first = self.store.first_subject(namespace, subject_key(subject))
        return first if first is not None else " ".join(str(subject).split())

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
        with self.transaction(namespace):
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
            existing = self.store.find(namespace, rev.id)
            if existing is not None:
                return WriteResult(revision=existing, created=False)
            rev = self.store.insert_revision(rev)
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
        return {name: Cardinality(card) for name, card in self.store.declared_predicates(namespace).items()}

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
        declared = self.store.declared_predicates(namespace).get(name)
        if declared is None:
            canonical_predicate(predicate)  # raises the "unknown predicate" error
            raise AssertionError("unreachable: an undeclared open predicate was refused above")
        return Cardinality(declared)

    def _canonical(self, namespace: str, predicate: str) -> tuple[str, Cardinality]:
        name = predicate_name(predicate)
        return name, self.cardinality_of(name, namespace)

    def _declare(self, namespace: str, predicate: str, cardinality: Cardinality | str | None) -> Cardinality:
        """Cardinality of `predicate`, declaring an open predicate on first use (inside a write)."""
        name = predicate_name(predicate)
        wanted = None if cardinality is None else parse_cardinality(cardinality)
        known = builtin_cardinality(name)
        if known is None:
            declared = self.store.declared_predicates(namespace).get(name)
            known = Cardinality(declared) if declared is not None else None
        if known is None:
            if wanted is None:
                canonical_predicate(predicate)  # raises: unknown predicate, no cardinality to declare it
            self.store.declare_predicate(namespace, name, str(wanted))
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
        revs, _ = self.store.load(new.namespace, new.subject_key, new.predicate, relations=())
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
        with self.transaction(namespace):
            target = self._find_prefix(namespace, revision_id)
            revision_id = target.id
            earlier = self.store.revocations_of(namespace, revision_id)
            done = [r for r in earlier if r.known_from <= k]
            if done:
                return done[0]
            rev = make_revocation(
                target, known_from=k, reason=reason, asserted_by=asserted_by, sources=sources
            )
            existing = self.store.find(namespace, rev.id)
            if existing is not None:
                return existing
            rev = self.store.insert_revision(rev)
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
        with self.transaction(namespace):
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
            existing = self.store.relation(
                namespace, relation_id(namespace, "adjudicated", win.id, lose.id, k)
            )
            assert existing is not None  # the insert was ignored because this row exists
            return existing

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
        revs, rels = self.store.load(namespace, subject_key(subject), pred, relations=_RESOLVER_RELATIONS)
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
        revs, rels = self.store.load(namespace, key, pred, relations=_RESOLVER_RELATIONS)
        return resolver.facts_at(
            revs, rels, v, k, subject=subject, predicate=pred, declared=self.declared_predicates(namespace)
        )

    def history(self, namespace: str, subject: str, predicate: str | None = None) -> History:
        """Every revision ever written about the subject (revoked and superseded too), with relations."""
        check_namespace(namespace)
        check_text(subject, "subject", max_chars=MAX_SUBJECT_CHARS)
        check_optional_text(predicate, "predicate", max_chars=MAX_SUBJECT_CHARS)
        pred = self._canonical(namespace, predicate)[0] if predicate is not None else None
        revs, rels = self.store.load(namespace, subject_key(subject), pred)
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
        return self.store.load(namespace, relations=())[0]

    def relations(self, namespace: str) -> list[Relation]:
        check_namespace(namespace)
        return self.store.load(namespace)[1]

    def last_seq(self, namespace: str) -> int:
        """The newest row's seq (0 when empty): a change token for caches of ledger rows."""
        check_namespace(namespace)
        return self.store.last_seq(namespace)

    def version(self, namespace: str) -> tuple[int, int]:
        """(newest revision seq, newest relation seq): changes with every row written, so caches of
        anything derived from the ledger (subjects, aliases, forget requests) know when to reload."""
        check_namespace(namespace)
        return self.store.version(namespace)

    def count(self, namespace: str) -> int:
        """Number of assertion revisions (revocations are not facts)."""
        check_namespace(namespace)
        return self.store.count_assertions(namespace)

    def subjects(self, namespace: str) -> list[str]:
        """Display names of every subject with at least one revision, sorted case-insensitively."""
        check_namespace(namespace)
        names = self.store.subject_names(namespace)
        return [names[k] for k in sorted(names)]

    # ------------------------------------------------- erasure (emem.erasure purges via the LedgerStore)

    def tombstones(self, namespace: str) -> list[Tombstone]:
        """What erasure removed from this namespace: id, kind, content hash, when and why."""
        check_namespace(namespace)
        return self.store.tombstones(namespace)

    # ----------------------------------------------------------------------------- watermarks

    def get_watermark(self, namespace: str, name: str) -> int:
        """Highest episode seq a derived process (e.g. consolidation) has covered; 0 if none."""
        check_namespace(namespace)
        return self.store.get_watermark(namespace, name)

    def set_watermark(self, namespace: str, name: str, seq: int) -> None:
        """Bookkeeping, not ledger data (so an upsert is fine); joins an enclosing transaction."""
        check_namespace(namespace)
        if seq < 0:
            raise InputError(f"watermark seq must be >= 0, got {seq}", "seq")
        self.store.set_watermark(namespace, name, int(seq))
