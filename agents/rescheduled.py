"""Things moved to another time: "When is the wedding?" is answered by the latest "the wedding's
been moved to December", not by the date it was first planned for.

Why: the first statement of a date is usually the best-supported turn (it repeats the question's
words and holds a date), and most scheduled things (a deadline, a trip, a class) have no ledger
predicate to supersede. A move is said with a few verbs whatever the thing ("moved", "postponed",
"pushed back", "rescheduled" ... "to <time>"), so the rule reads those verbs, in a sentence about
what the question names, and the time after them. Pure rules.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import datetime

from emem.agents.spans import about, focus_words, question_names, sentences
from emem.answer import EvidenceItem

_ASKS_TIME = re.compile(
    r"^\s*(?:when\b|what\s+(?:date|day|time|month|week)\b|which\s+(?:date|day|month|week|evening|morning)\b)",
    re.IGNORECASE,
)
_ASKS_BEFORE = re.compile(r"\b(?:originally|first|before|initially|at\s+first|used\s+to)\b", re.IGNORECASE)
_TIME = (
    r"(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?"
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?"
    r"|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?"
    r"|the\s+\d{1,2}(?:st|nd|rd|th)(?:\s+of\s+\w+)?"
    r"|next\s+(?:week|month|year|spring|summer|autumn|winter)"
    r"|(?:the\s+)?(?:spring|summer|autumn|fall|winter)(?:\s+\d{4})?"
)
MOVED_TO = re.compile(
    r"\b(?:moved|postponed|pushed(?:\s+back)?|rescheduled|shifted|bumped|delayed|changed|switched)"
    r"(?:\s+(?P<what>it|him|her|them|(?:the|their|our|his|her|my)\s+\w+(?:\s+\w+)?))?\s+(?:back\s+)?"
    rf"(?:from\s+(?:{_TIME})\s+)?(?:to|until|till|for)\s+(?P<to>{_TIME})\b",
    re.IGNORECASE,
)
"""A thing put to another time (`what`, when said), and the time ("moved the deadline to 15
September")."""
_THEIR_DATE = re.compile(r"(?:the|their|our|his|her|my)\s+(?:date|day|booking|big\s+day)")
"""A thing moved that is the date itself, whoever's it is."""
_GENERIC = frozenset("happen happening planned plan going due held".split())


def rescheduled(
    question: str,
    evidence: Sequence[EvidenceItem],
    asks_previous: bool = False,
    until: datetime | None = None,
    people: Collection[str] = (),
) -> str | None:
    """The time the asked thing was last moved to, when a sentence about it says so.

    Args:
        question: a when / which-day question (others return None).
        evidence: the evidence to read, any order.
        asks_previous: the question asks what came before (then the move does not answer).
        until: for a question about a past period, its end: a move said later did not hold then.
        people: the namespace's known people: their names do not make a sentence about the thing.

    Returns:
        The time ("15 September", "December", "Wednesdays"), or None.
    """
    if asks_previous or not _ASKS_TIME.match(question) or _ASKS_BEFORE.search(question):
        return None
    # What was moved is the thing the question names, not the person it belongs to: "When is
    # Maëlys's birthday?" is not answered by "the trip moved to September, Maëlys couldn't ...".
    focus = {w for w in focus_words(question, set()) if w not in _GENERIC}
    things = {w for w in focus if not any(about(p, {w}) for p in people)}
    focus = things or focus
    if not focus:
        return None
    named = [re.escape(n) for n in question_names(question)]
    moves = []
    for e in evidence:
        if until is not None and e.time > until:
            continue
        said = sentences(e.text)
        for i, s in enumerate(said):
            m = MOVED_TO.search(s)
            if m is None:
                continue
            # "the wedding's been moved": about the wedding; "The wedding is off for September.
            # ... They've moved it to April": "it" is what the turn spoke of before.
            what = (m.group("what") or "").lower()
            if (
                about(s, focus)
                or (what in ("it", "them") and any(about(p, focus) for p in said[:i]))
                # "Talia and Emeric have moved their date to the 5th of July", asked "When was
                # Talia and Emeric's wedding?": the date of the people the question names
                or (_THEIR_DATE.fullmatch(what) and named and all(re.search(rf"\b{n}\b", s) for n in named))
            ):
                moves.append((e.time, m.group("to").strip()))
    if not moves:
        return None
    return max(moves, key=lambda x: x[0])[1]
