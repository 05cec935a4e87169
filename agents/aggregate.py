"""Master aggregation: settle currentness through the ledger, build each evidence unit's
provenance closure, and shape operation-aware groups for the packer."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from emem.agents.currentness import END_TOLD_WITHIN
from emem.answer import Closure, EvidenceItem, FactItem, Operation, Plan
from emem.errors import InputError
from emem.extract.patterns import PETS, pet_family
from emem.index.text import tokenize
from emem.ledger.models import Resolution, Revision
from emem.ledger.predicates import RELATION_PREDICATES, builtin_cardinality, named_value
from emem.read.packing import cost, pack
from emem.tokens import count_line_tokens, count_tokens

FACT_PRIORITY = 10.0


def fact_items(
    ledger: Any, namespace: str, plan: Plan, valid_at: datetime | None, known_at: datetime | None
) -> list[FactItem]:
    """Resolve every (entity, predicate) the plan names that the ledger knows about, at the given
    valid and known time (see `currentness.question_time`)."""
    if ledger is None or not plan.predicates:
        return []
    subjects = {s.lower(): s for s in ledger.subjects(namespace)}
    pairs = [(s, p) for e in plan.entities if (s := subjects.get(e.lower())) for p in plan.predicates]
    broad = not pairs  # the question names no subject the ledger files facts under
    naming = {e.lower() for e in plan.entities} if broad else set()
    if broad:
        # "Who was head chef in March?", "Who directs the Calder Chorale?": a role (an open
        # predicate) asked of nobody the ledger knows is whoever holds it in this namespace.
        pairs = [(s, p) for p in plan.predicates if builtin_cardinality(p) is None for s in subjects.values()]
        # "Who is Bernard?": a name no fact is filed under may be someone's relative or pet; the
        # relations whose values name him say whose ("a husband named Bernard"). "Which dog is
        # deaf in one ear?" names nobody: every relation of its kind may answer.
        pairs += [(s, p) for p in plan.predicates if p in RELATION_PREDICATES for s in subjects.values()]
    out = []
    for subject, predicate in pairs:
        try:
            res = ledger.resolve(namespace, subject, predicate, valid_at=valid_at, known_at=known_at)
        except InputError:
            continue  # an open predicate this namespace never declared: nothing is known of it
        if res.status == "miss" and not res.history:
            continue
        if broad and predicate in RELATION_PREDICATES:
            said = [*res.values, *(r.object_text for r in res.history)]
            if naming and not _names_one(said, naming):
                continue
            if not naming and not _of_asked_kind(said, plan.keywords):
                continue  # "Which cat had a tooth out?" is not about the son's hamster
        out.append(
            FactItem(
                subject=res.subject,
                predicate=res.predicate,
                status=res.status,
                values=list(res.values),
                revisions=[r.model_dump(mode="json") for r in res.revisions],
                history=[r.model_dump(mode="json") for r in res.history],
            )
        )
    return out


_PET_KIND = {t: pet_family(p) for p in PETS for t in tokenize(p)[-1:]}
"""A pet word as the index tokenises it -> the kind of animal it names ("kitten" -> "cat")."""


def _of_asked_kind(values: Sequence[str], keywords: Sequence[str]) -> bool:
    """True unless the question names a kind of animal and no value is one ("Which cat ...?" is
    not answered by "a hamster named Pippin")."""
    asked = {_PET_KIND[k] for k in keywords if k in _PET_KIND}
    return not asked or any(_PET_KIND.get(t) in asked for v in values for t in tokenize(v))


def _names_one(values: Sequence[str], names: set[str]) -> bool:
    return any((n := named_value(v)) is not None and n.lower() in names for v in values)


def _rev_line(rev: dict[str, Any], label: str) -> str:
    sources = (
        ", ".join(s.partition("/")[2] or s for s in rev.get("sources", []))
        or rev.get("asserted_by")
        or "asserted"
    )
    valid = str(rev.get("valid_from", ""))[:10]
    text = rev.get("object_text") or rev.get("object")
    return f"  {label}: {text} (valid from {valid}; source {sources})"


def fact_closure(fact: FactItem, sources: dict[str, EvidenceItem]) -> Closure:
    """A resolved fact with the revisions that make it current, the ones it excludes, and the
    verbatim turns they were projected from."""
    head = {
        "state": f"LEDGER {fact.subject} {fact.predicate} = {', '.join(fact.values)} (current)",
        "conflict": f"LEDGER CONFLICT {fact.subject} {fact.predicate}: {' vs '.join(fact.values)} (cannot be ordered)",
        "miss": f"LEDGER {fact.subject} {fact.predicate}: no current value",
    }[fact.status]
    lines = [head]
    lines += [_rev_line(r, "current" if fact.status == "state" else "candidate") for r in fact.revisions]
    lines += [_rev_line(r, "history (superseded or revoked, not current)") for r in fact.history]
    current = {s for r in fact.revisions for s in r.get("sources", [])}
    if fact.status == "state":
        # A revision replaced by the same value said again ("I'll move there in August", then
        # "I'm in Kumasi now") still says what holds.
        held = {r.get("object") for r in fact.revisions}
        current |= {s for r in fact.history if r.get("object") in held for s in r.get("sources", [])}
    # A turn that says the value ended ("Sam quit Deloitte") states what holds; it is not stale.
    ends = {s for r in fact.history if told_end(r) for s in r.get("sources", [])}
    refs = [s for r in fact.revisions + fact.history for s in r.get("sources", [])]
    items = []
    for ref in dict.fromkeys(refs):
        if ref in sources:
            role = "current-value" if ref in current and fact.status == "state" else "superseded-value"
            if role == "superseded-value" and ref in ends:
                role = "evidence"
            if fact.status == "conflict":
                role = "conflicting-value"
            items.append(sources[ref].model_copy(update={"role": role}))
    lines += [evidence_line(e) for e in items]
    return Closure(
        key=f"fact:{fact.subject}:{fact.predicate}",
        group=f"fact:{fact.subject}:{fact.predicate}",
        priority=FACT_PRIORITY,
        lines=lines,
        tokens=count_tokens("\n".join(lines)),
        evidence=items,
    )


def told_end(revision: dict[str, Any]) -> bool:
    """A revision (as the answer carries it) whose valid time closes by when it was told: its turn
    says the value ended (emem.agents.currentness.tells_end for ledger rows)."""
    try:
        until = datetime.fromisoformat(str(revision.get("valid_to")))
        told = datetime.fromisoformat(str(revision.get("known_from")))
    except (TypeError, ValueError):
        return False
    return until <= told + END_TOLD_WITHIN


def evidence_line(e: EvidenceItem) -> str:
    """A turn's record on its own line, with its date and session (a ledger fact's sources)."""
    return f"[{e.turn_id} | {e.time:%d %B %Y} | session {e.session_id}] {turn_text(e)}"


def turn_line(e: EvidenceItem) -> str:
    """A turn's record under its session header (`session_header`): the header says the date and
    session once for every packed turn of that session, which on LoCoMo's turns saves about a
    fifth of each line, so more evidence fits the same budget."""
    return f"[{e.turn_id}] {turn_text(e)}"


def session_header(e: EvidenceItem) -> str:
    """The header line of the session and day a turn was said in."""
    return f"[session {e.session_id} | {e.time:%d %B %Y}]"


def turn_text(e: EvidenceItem) -> str:
    """Speaker, text and image caption: what every rendering of a turn says."""
    caption = f" [shares {e.image_caption}]" if e.image_caption else ""
    return f"{e.speaker}: {e.text}{caption}"


def turn_closure(e: EvidenceItem, key: str, priority: float, notes: Sequence[str] = ()) -> Closure:
    """One turn as a closure: its line (and any notes), under its session header."""
    lines = [turn_line(e), *notes]
    header = session_header(e)
    return Closure(
        key=key,
        group=key,
        priority=priority,
        lines=lines,
        # Counted as the deep scorer counts the same line (count_line_tokens): its parts are memoised.
        tokens=count_line_tokens(lines[0], f" {turn_text(e)}")
        if not notes
        else count_tokens("\n".join(lines)),
        evidence=[e],
        header=header,
        header_tokens=count_tokens(header),
    )


def stale_notes(stale: Sequence[tuple[Revision, Resolution]]) -> list[str]:
    """Say, beside a turn, that the value it states no longer holds, and what holds instead."""
    notes = []
    for rev, res in stale:
        now = ", ".join(res.values) if res.status == "state" and res.values else "none recorded"
        notes.append(
            f"  note: {rev.subject} {rev.predicate} = {rev.object_text} here is history, not current; "
            f"current value: {now}"
        )
    return notes


def build_closures(
    plan: Plan,
    evidence: Sequence[EvidenceItem],
    facts: Sequence[FactItem],
    stale: dict[str, list[tuple[Revision, Resolution]]],
    budget: int,
    fact_sources: dict[str, EvidenceItem] | None = None,
    question: str = "",
) -> list[Closure]:
    """Closures in priority order. Sets (COUNT/LIST members, both temporal endpoints) form one
    group, trimmed to the budget left after the facts, lowest-supported members first. A fact
    whose closure cannot fit the budget (a long history, many sources) is left out here, as the
    packer would leave it out, so its source turns compete as turns instead of going with it."""
    closures = pack([fact_closure(f, fact_sources or {}) for f in facts], budget).closures
    in_facts = {(e.conversation_id, e.turn_id) for c in closures for e in c.evidence}
    left = budget - sum(c.tokens for c in closures)
    units = []
    for e in evidence:
        if (e.conversation_id, e.turn_id) in in_facts:
            continue
        notes = stale_notes(stale.get(f"{e.conversation_id}/{e.turn_id}", []))
        units.append(turn_closure(e, f"turn:{e.conversation_id}/{e.turn_id}", e.score, notes))
    set_ops = {
        Operation.COUNT: "set:count",
        Operation.LIST: "set:list",
        Operation.TEMPORAL_ARITHMETIC: "set:endpoints",
    }
    group = set_ops.get(plan.operation)
    if group and units:
        members = sorted(units, key=lambda c: -c.priority)
        if plan.operation == Operation.TEMPORAL_ARITHMETIC:
            members = endpoints(members, question)
        while members and cost(members) > left:
            members.pop()
        chosen = {c.key for c in members}
        rest = [c for c in units if c.key not in chosen]
        units = [c.model_copy(update={"group": group, "priority": FACT_PRIORITY - 1}) for c in members] + rest
    return closures + sorted(units, key=lambda c: -c.priority)


CONTEXT_PRIORITY_OFFSET = 10.0
"""Context closures rank below every evidence unit: they only fill what the evidence left."""


def context_closures(candidates: Sequence[EvidenceItem], taken: set[tuple[str, str]]) -> list[Closure]:
    """Closures for scored turns of the activated segments that no assistant quoted, best-supported
    first, marked role="context": they fill the budget the evidence left, never displace it."""
    out = []
    for item in sorted(candidates, key=lambda e: -e.score):
        if (item.conversation_id, item.turn_id) in taken:
            continue
        e = item.model_copy(update={"role": "context"})
        key = f"context:{e.conversation_id}/{e.turn_id}"
        out.append(turn_closure(e, key, e.score - CONTEXT_PRIORITY_OFFSET))
    return out


_SPLIT = re.compile(r"\b(?:after|before|since|until|between|and|when|from|to)\b", re.IGNORECASE)


def question_sides(question: str) -> list[set[str]]:
    """The two events an arithmetic question relates ("how long after A did B"), as word sets."""
    parts = [set(tokenize(p)) for p in _SPLIT.split(question)]
    parts = [p for p in parts if p]
    return parts[-2:] if len(parts) >= 2 else parts


def endpoints(units: list[Closure], question: str = "") -> list[Closure]:
    """One unit per side of the question (the best match for each event), said on different
    days; without two sides, the two best-supported units from different days."""
    if not units:
        return []
    sides = question_sides(question)
    chosen: list[Closure] = []
    if len(sides) == 2:
        for side in sides:
            pool = [
                u
                for u in units
                if u not in chosen
                and (not chosen or u.evidence[0].time.date() != chosen[0].evidence[0].time.date())
            ]
            if pool:
                chosen.append(
                    max(pool, key=lambda u: (len(side & set(tokenize(u.evidence[0].text))), u.priority))
                )
        if len(chosen) == 2:
            return chosen
    first = units[0]
    other = next((u for u in units[1:] if u.evidence[0].time.date() != first.evidence[0].time.date()), None)
    return [first, other] if other else [first]
