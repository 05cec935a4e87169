"""The resolver: a pure function from ledger rows to an answer (state, miss or conflict).

Rules, for valid time v and known time k:

* visible at k: an assertion with known_from <= k that no revocation with known_from <= k targets;
* valid at v: valid_from <= v and (valid_to is None or v < valid_to);
* multi-valued: the state is every visible member valid at v (one per normalised value);
* single-valued: among visible assertions with valid_from <= v, only those with the greatest
  valid_from remain (a newer value replaces older ones from its valid_from on, leaving their
  history intact); valid_to then applies. One value left -> state; several -> conflict, unless
  "adjudicated" relations known at k order them. Nothing is ever picked arbitrarily.

Store-recorded "supersedes"/"unresolved" relations are audit only: the answer is derived from the
rows' times, so it is the same whether or not those relations were written.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from emem.ledger.models import History, Relation, Resolution, Revision, TimelineEntry
from emem.ledger.predicates import Cardinality, subject_key
from emem.ledger.predicates import cardinality as cardinality_of


def _order(r: Revision) -> tuple:
    return (r.valid_from, r.known_from, r.seq, r.id)


def _revocations(rows: Iterable[Revision]) -> dict[str, list[Revision]]:
    out: dict[str, list[Revision]] = defaultdict(list)
    for r in rows:
        if r.kind == "revocation" and r.target_id:
            out[r.target_id].append(r)
    return out


def visible(revisions: Iterable[Revision], known_at: datetime) -> list[Revision]:
    """Assertions emem believed at `known_at` (known by then, not yet revoked by then)."""
    rows = list(revisions)
    revs = _revocations(rows)
    return [
        r
        for r in rows
        if r.kind == "assertion"
        and r.known_from <= known_at
        and not any(x.known_from <= known_at for x in revs.get(r.id, ()))
    ]


def is_valid_at(r: Revision, valid_at: datetime) -> bool:
    return r.valid_from <= valid_at and (r.valid_to is None or valid_at < r.valid_to)


def _display_values(rows: Sequence[Revision]) -> list[str]:
    """One display value per normalised object, in order of first evidence."""
    seen: dict[str, str] = {}
    for r in sorted(rows, key=lambda r: (r.known_from, r.seq, r.id)):
        seen.setdefault(r.object, r.object_text)
    return list(seen.values())


def _adjudicate(current: list[Revision], relations: Sequence[Relation], known_at: datetime) -> set[str]:
    """Objects still standing after the adjudications known at k between current revisions.

    An adjudication orders the two values it names; the latest ruling on a pair of values wins.
    A cycle of rulings leaves every value standing (conflict), never an arbitrary pick.
    """
    obj_of = {r.id: r.object for r in current}
    latest: dict[frozenset[str], Relation] = {}
    for rel in relations:
        if rel.kind != "adjudicated" or rel.known_at > known_at:
            continue
        if rel.from_id not in obj_of or rel.to_id not in obj_of:
            continue
        win, lose = obj_of[rel.from_id], obj_of[rel.to_id]
        if win == lose:
            continue
        pair = frozenset((win, lose))
        prev = latest.get(pair)
        if prev is None or (rel.known_at, rel.seq, rel.id) > (prev.known_at, prev.seq, prev.id):
            latest[pair] = rel
    objects = set(obj_of.values())
    losers = {obj_of[rel.to_id] for rel in latest.values()}
    standing = objects - losers
    return standing or objects


def resolve(
    revisions: Sequence[Revision],
    relations: Sequence[Relation],
    subject: str,
    predicate: str,
    cardinality: Cardinality,
    valid_at: datetime,
    known_at: datetime,
) -> Resolution:
    """Answer subject.predicate at valid time `valid_at` as known at `known_at` (pure)."""
    key = subject_key(subject)
    rows = [r for r in revisions if r.subject_key == key and r.predicate == predicate]
    display = min(rows, key=lambda r: (r.seq, r.known_from)).subject if rows else subject
    admissible = sorted((r for r in visible(rows, known_at) if r.valid_from <= valid_at), key=_order)

    if cardinality == Cardinality.MULTI:
        current = [r for r in admissible if is_valid_at(r, valid_at)]
    else:
        top = max((r.valid_from for r in admissible), default=None)
        current = [r for r in admissible if r.valid_from == top and is_valid_at(r, valid_at)]
        if len({r.object for r in current}) > 1:
            standing = _adjudicate(current, relations, known_at)
            current = [r for r in current if r.object in standing]

    in_answer = {r.id for r in current}
    history = [r for r in admissible if r.id not in in_answer]
    values = _display_values(current)
    if not current:
        status = "miss"
    elif cardinality == Cardinality.SINGLE and len(values) > 1:
        status = "conflict"
    else:
        status = "state"
    return Resolution(
        status=status,
        subject=display,
        predicate=predicate,
        cardinality=cardinality,
        values=values,
        revisions=current,
        history=history,
        valid_at=valid_at,
        known_at=known_at,
    )


def facts_at(
    revisions: Sequence[Revision],
    relations: Sequence[Relation],
    valid_at: datetime,
    known_at: datetime,
    subject: str | None = None,
    predicate: str | None = None,
    declared: Mapping[str, Cardinality] | None = None,
) -> list[Resolution]:
    """Current state (conflicts included, misses left out) for every subject/predicate pair.

    `declared`: the namespace's open predicates (name -> cardinality) besides the built-ins.
    """
    key = subject_key(subject) if subject is not None else None
    pairs: dict[tuple[str, str], str] = {}
    for r in sorted(revisions, key=lambda r: (r.seq, r.known_from)):
        if r.kind != "assertion" or (key is not None and r.subject_key != key):
            continue
        if predicate is not None and r.predicate != predicate:
            continue
        pairs.setdefault((r.subject_key, r.predicate), r.subject)
    out = []
    for (_, pred), name in sorted(pairs.items(), key=lambda kv: kv[0]):
        res = resolve(revisions, relations, name, pred, cardinality_of(pred, declared), valid_at, known_at)
        if res.status != "miss":
            out.append(res)
    return out


def timeline(
    revisions: Sequence[Revision],
    relations: Sequence[Relation],
    namespace: str,
    subject: str,
    predicate: str | None = None,
    declared: Mapping[str, Cardinality] | None = None,
) -> History:
    """Every row about a subject with derived audit fields, per everything known now.

    known_to is the earliest revocation's known time; superseded_by lists the next values in valid
    time (single-valued predicates only) and effective_valid_to where they cut this one short.
    """
    key = subject_key(subject)
    rows = sorted(
        (r for r in revisions if r.subject_key == key and (predicate is None or r.predicate == predicate)),
        key=lambda r: (r.predicate, *_order(r)),
    )
    display = min(rows, key=lambda r: (r.seq, r.known_from)).subject if rows else subject
    revs = _revocations(rows)
    believed = [r for r in rows if r.kind == "assertion" and r.id not in revs]
    entries = []
    for r in rows:
        entry = TimelineEntry(revision=r, effective_valid_to=r.valid_to)
        if r.id in revs:
            first = min(revs[r.id], key=lambda x: (x.known_from, x.seq))
            entry.known_to, entry.revoked_by, entry.revoke_reason = first.known_from, first.id, first.reason
        if r.kind == "assertion" and cardinality_of(r.predicate, declared) == Cardinality.SINGLE:
            later = [o for o in believed if o.predicate == r.predicate and o.valid_from > r.valid_from]
            nxt = min((o.valid_from for o in later), default=None)
            if nxt is not None and (r.valid_to is None or nxt < r.valid_to):
                entry.superseded_by = [o.id for o in later if o.valid_from == nxt]
                entry.effective_valid_to = nxt
        entries.append(entry)
    ids = {r.id for r in rows}
    rels = sorted(
        (x for x in relations if x.from_id in ids or x.to_id in ids), key=lambda x: (x.known_at, x.seq, x.id)
    )
    return History(namespace=namespace, subject=display, predicate=predicate, entries=entries, relations=rels)
