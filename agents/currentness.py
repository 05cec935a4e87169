"""Currentness: what the ledger knows reaches every answer, in every mode.

Similarity proposes evidence; these pure rules decide which of it still holds. A turn that is the
source of a value the ledger no longer holds at the question's time (superseded, ended, revoked)
is marked `superseded-value` and ranked after every turn that is not; where no fact speaks for a
turn, a question about the current state prefers the latest of comparably supported statements.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime, timedelta

from emem.agents.counts import GAIN, LOSS, member_names, mentions, name_list
from emem.agents.spans import about_entity, revises, salient_terms, sentences, stated_quantity
from emem.answer import EvidenceItem, FactItem, Operation, Plan
from emem.extract.sentences import split_sentences
from emem.ledger.models import Resolution, Revision
from emem.ledger.predicates import subject_key
from emem.ledger.withhold import PREDICATE as FORGET_PREDICATE
from emem.models import StoredTurn

PLAN_PREDICATE = "plans_to"
"""Intentions: one called off takes the fragments said with it along ("Two weeks, Kyoto and Tokyo.")."""

Resolve = Callable[[str, str], Resolution]
"""(subject, predicate) -> the resolution at the question's valid and known time."""

STATE_OPERATIONS = frozenset({Operation.FACT, Operation.LIST, Operation.COUNT})
"""Operations that ask for a state (a value, a set, a count); lookups and arithmetic ask about events."""
RECENCY_WEIGHT = 0.06
"""Largest bonus the latest turn gets for a current-state question: reorders near ties only."""
STALE_PENALTY = 1.0
"""Subtracted from a stale turn's score: below any turn that still holds, never removed."""


def read_now(latest: datetime | None, clock: datetime) -> datetime:
    """The present a question without `as_of` is read at (pure): the wall clock, or the newest
    turn the memory holds when that is later. A turn stamped ahead of the clock (an imported
    conversation, a client's clock or time zone set wrong) is in memory, so what the ledger
    projected from it must reach the answer, as its words already do.

    Args:
        latest: the newest turn's time in the namespace (None when it holds none).
        clock: the wall clock.

    Returns:
        The later of the two.
    """
    return max(clock, latest) if latest is not None else clock


def asks_state(plan: Plan, as_of: datetime | None) -> bool:
    """True when the answer depends on what holds at one time: now, `as_of`, or the question's date."""
    timed = plan.needs_current or as_of is not None or plan.time_from is not None
    return timed and plan.operation in STATE_OPERATIONS


def question_time(
    plan: Plan, as_of: datetime | None, now: datetime | None = None
) -> tuple[datetime | None, datetime | None]:
    """(valid_at, known_at) for the resolver. `as_of` fixes both ("what did we believe then");
    without it, both are `now` (`read_now`: the memory's present, not only the wall clock's). A
    period named in a question about the past is read at its middle, as known at `as_of`."""
    valid_at, known_at = (as_of, as_of) if as_of is not None else (now, now)
    if plan.time_from is not None and not plan.needs_current:
        end = plan.time_to or plan.time_from
        valid_at = plan.time_from + (end - plan.time_from) / 2
    return valid_at, known_at


def by_source(revisions: Iterable[Revision]) -> dict[str, list[Revision]]:
    """Turn ref ("conv/turn") -> the assertions projected from it."""
    out: dict[str, list[Revision]] = {}
    for rev in revisions:
        if rev.kind == "assertion":
            for ref in rev.sources:
                out.setdefault(ref, []).append(rev)
    return out


def stale_revisions(
    evidence: Sequence[EvidenceItem],
    sources: dict[str, list[Revision]],
    resolve: Resolve,
    predicates: Collection[str] = (),
    named: Collection[str] = (),
) -> dict[str, list[tuple[Revision, Resolution]]]:
    """For each evidence turn, the revisions it is the source of that do not hold at the
    question's time, with the resolution that says so (what holds instead).

    `named`: the proper names the question says that are not its people ("Sankofa Groove"); when
    no revision of the turn is of `predicates`, the ones whose value says such a name are judged.

    `predicates` (the plan's, when it names some): a turn that is the source of a revision of one
    of them is judged by those revisions only: "I'm leaving the call centre, and I'm staying in
    Porth" still says where its speaker lived in spring, although the job it tells of ended. A
    turn that tells nothing of them is stale only when nothing it told still holds: "I drive the
    number 42 bus and I live in Torry" still answers "What bus do I drive?" after a move."""
    cache: dict[tuple[str, str], Resolution] = {}
    out: dict[str, list[tuple[Revision, Resolution]]] = {}
    for e in evidence:
        ref = f"{e.conversation_id}/{e.turn_id}"
        told = sources.get(ref, [])
        asked = [r for r in told if r.predicate in predicates] or [
            # "Is Kofi still in Sankofa Groove?" cues no predicate, but names the band: the fact
            # whose value names it is what is asked ("a small band called Sankofa Groove")
            r
            for r in told
            if any(re.search(rf"\b{re.escape(n)}\b", r.object_text, re.I) for n in named)
        ]
        # "Sam quit Deloitte": the end holds. A forget request is no value of the world: a note
        # calling it history would quote what it names.
        judged = [r for r in (asked or told) if not tells_end(r) and r.predicate != FORGET_PREDICATE]
        stale = []
        for rev in judged:
            key = (rev.subject_key, rev.predicate)
            if key not in cache:
                cache[key] = resolve(rev.subject, rev.predicate)
            res = cache[key]
            # "When did Kofi move to Kumasi?": "I'll move there in August", replaced by the same
            # value said again ("I'm in Kumasi now"), still says what holds of what is asked.
            held = (
                {r.object for r in res.revisions}
                if res.status == "state" and rev.predicate in predicates
                else set()
            )
            if (
                rev.id not in {r.id for r in res.revisions}
                and res.status != "conflict"
                and rev.object not in held
            ):
                stale.append((rev, res))
        if stale and (asked or (len(stale) == len(judged) and not _still_tells(e.text, stale, told))):
            out[ref] = stale
    return out


UNTOLD_MIN_WORDS = 4
"""A sentence of at least this many words that no revision was read from may still hold ("Pottery,
mostly." says nothing of its own; "I go to a class at Atelier Terre every Tuesday." does)."""


def _still_tells(text: str, stale: Sequence[tuple[Revision, Resolution]], told: Sequence[Revision]) -> bool:
    """True when the turn's stale facts all ended (not replaced by a newer value, not a plan
    called off) and a sentence of it was read into none of them: "we have a basset hound called
    Filou", who died, still tells "I go to a class at Atelier Terre every Tuesday"; "Landlord put
    the rent up to 520,000. ... I love the flat" still tells the rent after "I don't like it". A
    replaced value ("a rented flat above a bakery", before a move) or a called-off plan takes
    what was said around it along."""
    ended = {(r.predicate, r.object) for r in told if r.valid_to is not None}
    if any((r.predicate, r.object) not in ended for r, _ in stale):
        return False
    # A plan's turn goes on about the plan in fragments ("Two weeks, Kyoto and Tokyo."): only a
    # sentence that states something of its own ("both mortgages are with Linwood") still holds.
    plan = any(r.predicate == PLAN_PREDICATE for r, _ in stale)
    surfaces = " ".join(r.surface for r, _ in stale)
    return any(
        s not in surfaces and len(s.split()) >= UNTOLD_MIN_WORDS and (not plan or _STATES.search(s))
        for s in (text[a:b] for a, b in split_sentences(text))
    )


_STATES = re.compile(r"\b(?:I|we|am|is|are|was|were|has|have|had)\b|['’](?:s|re|m|ve)\b", re.I)
"""A sentence with a subject or a finite copula or auxiliary: it states something."""


END_TOLD_WITHIN = timedelta(days=1)


def tells_end(rev: Revision) -> bool:
    """True for a revision whose turn says the value ended (its valid time closes by when it was
    said): that turn states what is so now, not the value that no longer holds."""
    return rev.valid_to is not None and rev.valid_to <= rev.known_from + END_TOLD_WITHIN


def rank_for_state(
    evidence: Sequence[EvidenceItem],
    stale: dict[str, list[tuple[Revision, Resolution]]],
    *,
    prefer_latest: bool,
) -> list[EvidenceItem]:
    """Evidence re-ranked for a state question: stale turns marked and moved after the rest; with
    `prefer_latest`, later turns win near ties (the latest statement is the likeliest current)."""
    if not evidence:
        return []
    order = sorted(range(len(evidence)), key=lambda i: (evidence[i].time, i))
    rank = {i: r / max(len(evidence) - 1, 1) for r, i in enumerate(order)}
    out = []
    for i, e in enumerate(evidence):
        score = e.score + (RECENCY_WEIGHT * rank[i] if prefer_latest else 0.0)
        if f"{e.conversation_id}/{e.turn_id}" in stale:
            out.append(
                e.model_copy(update={"role": "superseded-value", "score": round(score - STALE_PENALTY, 4)})
            )
        else:
            out.append(e.model_copy(update={"score": round(score, 4)}) if prefer_latest else e)
    return sorted(out, key=lambda e: -e.score)


FOLLOW_UP_TOP = 2
"""How many of the best evidence turns the follow-up hop looks past."""
FOLLOW_UP_MAX = 3


def asks_follow_up(plan: Plan) -> bool:
    """True when a later revision of the best evidence can change the answer: a value or a set
    asked for as it ended up, not what came before (a trip "we went on" may have been swapped)."""
    return plan.operation in (Operation.FACT, Operation.LIST) and not plan.asks_previous


def later_revisions(
    evidence: Sequence[EvidenceItem],
    turns: Sequence[StoredTurn],
    exclude: set[str],
    as_of: datetime | None = None,
    entities: Sequence[str] = (),
) -> list[StoredTurn]:
    """The follow-up hop: turns said after one of the best evidence turns that drop or replace
    what it names ("Iceland is off, we're doing Porto instead" after "we booked Iceland"), which
    similarity to the question alone may not retrieve. Latest first, at most FOLLOW_UP_MAX.

    Args:
        evidence: the evidence, best first.
        turns: the namespace's turns (any order).
        exclude: names that are never values (speakers, the question's people), lower case.
        as_of: turns said after it are not visible.
        entities: the question's people: only what the best turns say about them counts.

    Returns:
        Turns not already in `evidence`.
    """
    # A context turn (deep's unquoted fill) is not evidence yet: a revision among them is found.
    have = {(e.conversation_id, e.turn_id) for e in evidence if e.role != "context"}
    found: dict[tuple[str, str], StoredTurn] = {}
    for top in [e for e in evidence if e.role != "context"][:FOLLOW_UP_TOP]:
        others = [n for n in entities if n.lower() != top.speaker.lower()]
        terms = salient_terms(top.text, exclude, others)
        told = about_entity(top.text, others)
        for t in turns:
            key = (t.conversation_id, t.turn_id)
            if t.time <= top.time or key in have or (as_of is not None and t.time > as_of):
                continue
            # Described (not named) things are linked only within one speaker's own statements.
            if revises(t.text, terms, told if t.speaker == top.speaker else None):
                found[key] = t
    return sorted(found.values(), key=lambda t: t.time, reverse=True)[:FOLLOW_UP_MAX]


COUNT_FOLLOW_UP_MAX = 8
"""At most this many turns the count follow-up adds."""


def count_follow_ups(
    evidence: Sequence[EvidenceItem],
    turns: Sequence[StoredTurn],
    focus: set[str],
    until: datetime | None = None,
) -> list[StoredTurn]:
    """The count follow-up hop: for the best turns that state how many of the counted thing
    someone has ("my three cats"), the names they list next ("Nube, Tiza and Pimienta") and their
    later statements of a loss, a gain or what is left ("Tiza died last week"), which similarity
    to "how many cats" alone may not retrieve.

    Args:
        evidence: the evidence, best first.
        turns: the namespace's turns in (time, seq) order (`NamespaceView.by_time`).
        focus: the question's content words naming what is counted.
        until: turns said after it are not read (the as-of time or the period's end).

    Returns:
        Turns not already in `evidence`, in time order.
    """
    have = {(e.conversation_id, e.turn_id) for e in evidence if e.role != "context"}
    found: dict[tuple[str, str], StoredTurn] = {}
    for top in evidence[: FOLLOW_UP_TOP * 2]:
        if stated_quantity(top.text, focus) is None:
            continue
        # Names said with the total are its members ("two roommates, Jake and Sol").
        names = set(member_names(top.text))
        after = [
            t
            for t in turns
            if t.speaker == top.speaker and t.time >= top.time and (until is None or t.time <= until)
        ]
        start = next((i for i, t in enumerate(after) if t.turn_id == top.turn_id), None)
        if start is None:
            continue
        for t in after[start + 1 : start + 3]:
            if t.session_id == top.session_id and name_list(t.text):
                names |= set(member_names(sentences(t.text)[0]))
                found[(t.conversation_id, t.turn_id)] = t
        for t in after[start + 1 :]:
            key = (t.conversation_id, t.turn_id)
            if key in have or key in found:
                continue
            named = any(re.search(rf"\b{re.escape(n)}\b", t.text) for n in names)
            if (named or mentions(t.text, focus)) and (LOSS.search(t.text) or GAIN.search(t.text)):
                found[key] = t
    return sorted((t for k, t in found.items() if k not in have), key=lambda t: t.time)[:COUNT_FOLLOW_UP_MAX]


_STATE_THEN = re.compile(
    r"\b(?:was|were)\s+(?:\w+\s+){0,2}?\w+ing\b"  # "was Lorcan living", "were you reading"
    r"|\b(?:was|were)\s+(?:I|we|you|he|she|they|[A-Z]\w+)\s+(?:on|in|at|with)\b"  # "was I on"
    r"|\b(?:was|were)\s+(?:my|our|his|her|their|the user['’]s|[A-Z]\w+['’]s)\s+\w+"  # "was my rent"
    r"|\bdid\s+\S+\s+(?:live|work|have|own|study|attend|weigh|pay|earn|use|drive|keep)\b",
    re.I,
)
"""A question about a state holding at a past time, in any verb: a progressive ("Where was Lorcan
living"), a copula of a person or thing ("What diet was I on", "How much was my rent"), or a stative
verb ("Where did she live"); not an event ("What did she run in March?")."""


def said_by(question: str, plan: Plan) -> datetime | None:
    """For a question about what held in a past period, the end of the period: what was said after
    it cannot say what held then (a later change, a later plan), and among what was said by then
    the latest statement holds. None for a question about now, an event, or no time.

    Args:
        question: the question.
        plan: its plan (period, whether it asks about now).

    Returns:
        The period's end, or None.
    """
    if plan.time_to is None or plan.needs_current or plan.operation != Operation.FACT:
        return None
    return plan.time_to if _STATE_THEN.search(question) else None


def _folded(text: str) -> str:
    """Lowercased words and digits, one space apart, padded: values compare whole, not by letter."""
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "


def overruled(answer: str, plan: Plan, facts: Sequence[FactItem]) -> FactItem | None:
    """The fact whose superseded value a reader's answer gives, when the ledger holds another.

    Why: similarity proposes and the ledger decides. A model reading the context may still pick
    the older turn over the LEDGER line above it ("021 448 3107" when the ledger holds the number
    that replaced it); the answer must then carry the ledger's value, not the stale one. A
    question that asks for an earlier value ("my old number") is not overruled, and neither is an
    answer that also names a value the ledger holds (a change told as "from X to Y").

    Args:
        answer: the reader's answer.
        plan: the question's plan (its operation, whether it asks for an earlier value, the one
            subject it names).
        facts: the facts resolved at the question's time.

    Returns:
        The first fact whose history value the answer gives without any of its current values,
        or None.
    """
    if plan.asks_previous or plan.operation != Operation.FACT:
        return None
    # Only the facts of the one subject the question asks about: a number filed under the user
    # may be their sister's, and a question about the sister is not the user's fact to overrule.
    asked = {subject_key(e) for e in plan.entities}
    about = [f for f in facts if subject_key(f.subject) in asked]
    subjects = {subject_key(f.subject) for f in about}
    # a model planner lists things too ("mobile number"); another name is another person
    others = [e for e in plan.entities if e[:1].isupper() and subject_key(e) not in subjects]
    if len(subjects) != 1 or others:
        return None
    said = _folded(answer)
    for fact in about:
        if fact.status != "state" or not fact.values:
            continue
        current = {_folded(v) for v in fact.values}
        if any(v in said for v in current):
            continue
        for rev in fact.history:
            old = _folded(str(rev.get("object_text") or rev.get("object") or ""))
            if old.strip() and old not in current and old in said:
                return fact
    return None
