"""The read side of self-corrections: the latest turn about the question that takes back a value
said before answers from its replacing clause, and a ledger value a later turn takes back is not
the current one.

Why: the offline extractor files corrections only in the phrasings its rules know, and the
reader's best-supported turn is often the first, wrong statement (it repeats the question's
words). Which turn is a correction and what it replaces is read from the clauses alone
(`agents/corrections.py`), so this holds for any attribute.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from emem.agents.corrections import Correction, correction_in, retracts, revises_earlier
from emem.agents.spans import AnswerType, about, answer_type, focus_words, involves, only_when
from emem.agents.stated import age_in
from emem.answer import EvidenceItem, FactItem, Operation, Plan

POOL = 6
"""How many best-supported holding turns a correction is looked for in."""


def _of_age(question: str, correction: Correction, entities: list[str]) -> bool:
    """An age put right ("I told you Reuben was sixteen. He's seventeen") for "How old is
    Reuben?": the question's words are only the type's, so the entity and the numbers decide."""
    taken = " ".join(correction.retracted)
    return (
        answer_type(question) is AnswerType.AGE
        and any(re.search(rf"\b{re.escape(n)}\b", taken) for n in entities)
        and age_in(taken) is not None
        and age_in(correction.replacement) is not None
    )


def _says_when(text: str) -> bool:
    """A phrase that only says when ("in September", "the 14th"), not an amount ("£39")."""
    return only_when(text) and not re.search(r"[£$€%]", text)


def latest_correction(
    question: str,
    plan: Plan,
    holding: list[EvidenceItem],
    ignore: frozenset[str] = frozenset(),
    value_of: Callable[[str], str | None] | None = None,
) -> tuple[EvidenceItem, Correction] | None:
    """The latest best-supported turn that corrects something about the question, when nothing
    about the question was said after it.

    Args:
        question: the question.
        plan: its plan (entities, time bound, whether it asks what came before).
        holding: the holding evidence, best first.
        ignore: words that do not make a turn about the question (type words).
        value_of: the value of the asked kind a clause states (a sum for "How much did the van
            cost?"): an explicit correction whose replacement states one is about the question
            when its turn is ("Correction on the van. I told you £11,000, but with the VAT it was
            £12,000"), or when the value it takes back was said in a turn about it ("I told you
            the Adeyemis were going to £1,200" after "Rent review: the Adeyemis go to £1,200").

    Returns:
        The turn and its correction, or None.
    """
    if plan.asks_previous:
        return None
    focus = focus_words(question, set(plan.entities)) - ignore
    pool = [e for e in holding[:POOL] if involves(e, plan.entities)]
    if plan.time_to is not None:
        pool = [e for e in pool if e.time <= plan.time_to]
    topical = [e for e in pool if about(e.text, focus)]
    found: list[tuple[EvidenceItem, Correction]] = []
    for e in pool:
        c = correction_in(e.text)
        if c is None:
            continue
        # About the question: a replacement in its words, or taking back what a turn in its words said
        # ("Sipho isn't the wicketkeeper" after "Sipho got into the team as wicketkeeper").
        # The best-supported earlier turn in the question's words is what the reader would answer.
        said_before = [x for x in topical if x is not e and x.time <= e.time]
        earlier = [x.text for x in said_before[:1]]
        if plan.operation != Operation.TEMPORAL_LOOKUP and all(_says_when(r) for r in c.retracted):
            continue  # "Freya starts on the 18th, not in September" changes when, not which school
        typed = False
        if value_of is not None and value_of(c.replacement):
            old = value_of(" ".join(c.retracted))
            typed = about(e.text, focus) or (old is not None and any(old in x.text for x in said_before))
        typed = typed or (c.explicit and _of_age(question, c, plan.entities))
        if (c.explicit and (about(c.replacement, focus) or typed)) or revises_earlier(c, earlier, focus):
            found.append((e, c))
    if not found:
        return None
    e, c = max(found, key=lambda ec: ec[0].time)
    later = [x for x in topical if x.time > e.time and correction_in(x.text) is None]
    return None if later else (e, c)


def without_retracted(states: list[FactItem], holding: list[EvidenceItem], plan: Plan) -> list[FactItem]:
    """The ledger's states less those whose every value a later holding turn takes back ("the
    allergy isn't chicken after all, it's beef" after the ledger filed chicken).

    Args:
        states: the resolved states.
        holding: the holding evidence.
        plan: the plan (a question about what came before keeps every state).

    Returns:
        The states still current.
    """
    if plan.asks_previous:
        return states
    kept = []
    for f in states:
        told = _told_at(f)
        taken_back = all(
            any(
                (c := correction_in(e.text)) is not None
                and (told is None or e.time >= told)
                and retracts(c, v)
                for e in holding[:POOL]
            )
            for v in f.values
        )
        if not taken_back:
            kept.append(f)
    return kept


def _told_at(fact: FactItem) -> datetime | None:
    times = []
    for r in fact.revisions:
        try:
            times.append(datetime.fromisoformat(str(r.get("known_from") or r.get("valid_from"))))
        except (TypeError, ValueError):
            continue
    return min(times, default=None)
