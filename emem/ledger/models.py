"""Bitemporal ledger records: the pydantic shapes the store writes and the resolver reads.

Every fact row carries two clocks. Valid time (`valid_from`/`valid_to`) is when it is true in the
world; known time (`known_from`) is when emem learned it. Nothing is ever overwritten: a revocation
is a new row that ends a revision's known time, and supersession is derived from valid time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from emem.ledger.predicates import Cardinality, subject_key

RevisionKind = Literal["assertion", "revocation"]
RelationKind = Literal["supersedes", "revokes", "unresolved", "adjudicated"]
Status = Literal["state", "miss", "conflict"]


def stamp(dt: datetime) -> str:
    """Fixed-width UTC text form, so stored times sort as text and hash identically."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def _utc(v: datetime | None) -> datetime | None:
    if v is None:
        return None
    if v.tzinfo is None:
        raise ValueError("time must be timezone-aware")
    return v.astimezone(UTC)


def _digest(parts: Iterable[object]) -> str:
    payload = json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def revision_id(
    *,
    namespace: str,
    kind: RevisionKind,
    subject: str,
    predicate: str,
    object: str,
    valid_from: datetime,
    valid_to: datetime | None,
    known_from: datetime,
    sources: Iterable[str],
    target_id: str | None,
) -> str:
    """Content id: re-projecting the same fact from the same evidence yields the same id (idempotent).

    Display-only fields (surface, confidence, who asserted it, reason) are deliberately left out.
    """
    return _digest(
        [
            "revision/1",
            namespace,
            kind,
            subject_key(subject),
            predicate,
            object,
            stamp(valid_from),
            stamp(valid_to) if valid_to else None,
            stamp(known_from),
            sorted(set(sources)),
            target_id,
        ]
    )


def relation_id(namespace: str, kind: RelationKind, from_id: str, to_id: str, known_at: datetime) -> str:
    return _digest(["relation/1", namespace, kind, from_id, to_id, stamp(known_at)])


class Revision(BaseModel):
    """One immutable ledger row: an assertion of a fact, or the revocation of an earlier revision."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    namespace: str
    kind: RevisionKind
    subject: str
    """Display name of the subject (matching uses `subject_key`)."""
    predicate: str
    object: str
    """Normalised value (emem.ledger.predicates.normalise_object): the equality key."""
    object_text: str
    """The value as written, for display."""
    surface: str
    """Verbatim evidence text (the span of the turn, or what the user typed)."""
    valid_from: datetime
    valid_to: datetime | None = None
    """Exclusive end of valid time; None means "until further notice"."""
    known_from: datetime
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    sources: list[str] = Field(default_factory=list)
    """Turn references like "conv-1/D3:7"."""
    asserted_by: str | None = None
    target_id: str | None = None
    """For a revocation: the revision it withdraws."""
    reason: str | None = None
    recorded_at: datetime | None = None
    """Transaction time: when the store wrote the row (audit only; the resolver uses known_from)."""
    seq: int = 0

    @field_validator("valid_from", "valid_to", "known_from", "recorded_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        return _utc(v)

    @property
    def subject_key(self) -> str:
        return subject_key(self.subject)


class Relation(BaseModel):
    """An audit edge between revisions. Only "adjudicated" edges influence the resolver."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = ""
    namespace: str = ""
    kind: RelationKind
    from_id: str
    """The winner / newer / revoking side."""
    to_id: str
    known_at: datetime
    reason: str | None = None
    recorded_at: datetime | None = None
    seq: int = 0

    @field_validator("known_at", "recorded_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        return _utc(v)


class Resolution(BaseModel):
    """The answer to "what is subject.predicate at valid time v, as known at k?"."""

    status: Status
    subject: str
    predicate: str
    cardinality: Cardinality
    values: list[str] = Field(default_factory=list)
    """Display values: the single state, all current members, or the competing values of a conflict."""
    revisions: list[Revision] = Field(default_factory=list)
    """The admissible revisions that produce the answer (its evidence)."""
    history: list[Revision] = Field(default_factory=list)
    """Revisions admissible at v/k that no longer hold (superseded or ended), oldest first."""
    valid_at: datetime
    known_at: datetime

    @field_validator("valid_at", "known_at")
    @classmethod
    def _aware(cls, v: datetime) -> datetime | None:
        return _utc(v)


class TimelineEntry(BaseModel):
    """A revision with what later knowledge says about it (derived, never stored)."""

    revision: Revision
    known_to: datetime | None = None
    """When the revision stopped being believed (its earliest revocation), None if never."""
    revoked_by: str | None = None
    revoke_reason: str | None = None
    superseded_by: list[str] = Field(default_factory=list)
    """Revisions that replace it in valid time (single-valued predicates), per current knowledge."""
    effective_valid_to: datetime | None = None
    """min(valid_to, valid_from of the superseding revisions)."""


class History(BaseModel):
    """Full bitemporal audit view for a subject: every row ever written, plus the relations."""

    namespace: str
    subject: str
    predicate: str | None = None
    entries: list[TimelineEntry] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)


def make_assertion(
    *,
    namespace: str,
    subject: str,
    predicate: str,
    object_text: str,
    valid_from: datetime,
    known_from: datetime,
    valid_to: datetime | None = None,
    sources: Iterable[str] = (),
    surface: str | None = None,
    confidence: float = 1.0,
    asserted_by: str | None = None,
    recorded_at: datetime | None = None,
    seq: int = 0,
    declared: Mapping[str, Cardinality] | None = None,
) -> Revision:
    """Build a validated assertion with its content id (pure: the store and tests share it).

    `declared` holds the namespace's open predicates (name -> cardinality) besides the built-ins.
    """
    from emem.errors import InputError
    from emem.ledger.predicates import canonical_predicate, normalise_object

    predicate = canonical_predicate(predicate, declared)
    subject = " ".join(str(subject).split())
    if not subject:
        raise InputError("subject is empty", "subject")
    obj = normalise_object(str(object_text))
    if not obj:
        raise InputError(f"object {object_text!r} is empty once normalised", "object")
    if valid_to is not None and valid_to <= valid_from:
        raise InputError(
            f"valid_to {stamp(valid_to)} must be after valid_from {stamp(valid_from)}", "valid_to"
        )
    srcs = sorted(set(sources))
    rid = revision_id(
        namespace=namespace,
        kind="assertion",
        subject=subject,
        predicate=predicate,
        object=obj,
        valid_from=valid_from,
        valid_to=valid_to,
        known_from=known_from,
        sources=srcs,
        target_id=None,
    )
    return Revision(
        id=rid,
        namespace=namespace,
        kind="assertion",
        subject=subject,
        predicate=predicate,
        object=obj,
        object_text=str(object_text).strip(),
        surface=surface if surface is not None else str(object_text).strip(),
        valid_from=valid_from,
        valid_to=valid_to,
        known_from=known_from,
        confidence=confidence,
        sources=srcs,
        asserted_by=asserted_by,
        recorded_at=recorded_at,
        seq=seq,
    )


def make_revocation(
    target: Revision,
    *,
    known_from: datetime,
    reason: str | None = None,
    asserted_by: str | None = None,
    sources: Iterable[str] = (),
    recorded_at: datetime | None = None,
    seq: int = 0,
) -> Revision:
    """A revocation copies its target's subject/predicate/value so it is found with them."""
    from emem.errors import InputError

    if target.kind != "assertion":
        raise InputError(f"revision {target.id} is a revocation; only assertions can be revoked")
    if known_from < target.known_from:
        raise InputError(
            f"revocation known_at {stamp(known_from)} precedes the revision's known_from "
            f"{stamp(target.known_from)}",
            "known_at",
        )
    srcs = sorted(set(sources))
    rid = revision_id(
        namespace=target.namespace,
        kind="revocation",
        subject=target.subject,
        predicate=target.predicate,
        object=target.object,
        valid_from=target.valid_from,
        valid_to=target.valid_to,
        known_from=known_from,
        sources=srcs,
        target_id=target.id,
    )
    return Revision(
        id=rid,
        namespace=target.namespace,
        kind="revocation",
        subject=target.subject,
        predicate=target.predicate,
        object=target.object,
        object_text=target.object_text,
        surface=reason or f"revokes {target.id}",
        valid_from=target.valid_from,
        valid_to=target.valid_to,
        known_from=known_from,
        sources=srcs,
        asserted_by=asserted_by,
        target_id=target.id,
        reason=reason,
        recorded_at=recorded_at,
        seq=seq,
    )
