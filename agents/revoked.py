"""Plans called off: a question about when (or how) a planned thing happens is answered by the
latest turn on it when that turn calls it off, not by the date it was once planned for.

Why: the planned date is usually the best-supported turn (it repeats the question's words), and
the ledger holds no predicate for most plans (a marathon, a poster, a surgery). What ends a plan is
said with a handful of verbs whatever the plan ("is off", "got cancelled", "we've withdrawn",
"isn't happening"), so the rule reads those cues, in the clause naming the plan, and nothing else.
"""

from __future__ import annotations

import re

from emem.agents.spans import REVISION, about, focus_words, question_names, sentences
from emem.answer import EvidenceItem, Operation, Plan
from emem.timeparse import DAY_NAME, MONTH_TITLES

CALLED_OFF = re.compile(
    r"\bcancell?(?:ed|ing)?\b|\bcall(?:ed|ing)?\s+(?:it\s+)?off\b|\b(?:is|are|was|were|it['’]s|'s)\s+off\b"
    r"|\b(?:isn['’]t|is not|aren['’]t|not)\s+happening\b|\bwithdr(?:awn|ew)\b|\bpulled\s+(?:out|my|our|his|her|their)\b"
    r"|\bno need to\b|\b(?:fell|falls)\s+through\b|\bscrapped\b"
    r"|\bdecided\s+(?:against|not\s+to)\b|\bnever\s+(?:made\s+it|got\s+(?:round|around|to)|went|ended\s+up)\b"
    r"|\bnever\s+got\s+(?:the|my|our|his|her|their|it)\b[^.!?;]{0,40}\s+in\b"
    r"|\b(?:didn['’]t|did\s+not)\s+(?:end\s+up\s+|actually\s+|get\s+to\s+)?(?:retire|go|going|make\s+it|enter|compete|play|take\s+part)\b",
    re.I,
)
"""Cues that a plan was called off, in any topic ("We never made it to Yellowstone", "I didn't
retire", "I've decided against the second dog", "So I never got the council bid in")."""
_ASKS_PLAN = re.compile(
    r"^\s*when\s+(?:is|are|am|will)\b|^\s*when['’]s\b|\bwhat['’]s the plan\b|\bwhat is the plan\b"
    r"|\bwhat happened (?:to|with)\b",
    re.I,
)
"""Questions about a plan still ahead, or what became of one."""
_HAPPENED = re.compile(r"\bwhat happened (?:to|with)\b", re.I)
_RESCHEDULED = re.compile(r"\binstead\b|\brebook\w*\b|\bresched\w*\b|\bmoved\s+(?:it\s+)?to\b", re.I)
"""A later turn naming a replacement plan ("we rebooked for Trieste instead")."""
POOL = 6
"""How many best-supported holding turns are read."""


def called_off(question: str, plan: Plan, holding: list[EvidenceItem]) -> str | None:
    """The sentence calling off the plan the question asks about, when the latest turn on it says
    so and no later turn names a replacement for it.

    Args:
        question: the question.
        plan: its plan (operation, people, whether it asks what came before).
        holding: the holding evidence, best first.

    Returns:
        The sentence ("No running for eight weeks, so Enschede is off."), or None.
    """
    if plan.asks_previous or plan.operation not in (Operation.TEMPORAL_LOOKUP, Operation.FACT):
        return None
    if not _ASKS_PLAN.search(question):
        return None
    happened = bool(_HAPPENED.search(question))
    names = question_names(question, [e.speaker for e in holding])
    focus = focus_words(question, set(plan.entities)) | {n.lower() for n in names}
    pool = [e for e in holding[:POOL] if about(e.text, focus) and not e.text.rstrip().endswith("?")]
    offs = [
        (e, s)
        for e in pool
        for s in sentences(e.text)
        # "What happened to the season?": called off is the answer, whatever was done instead
        if CALLED_OFF.search(s) and about(s, focus) and (happened or not _RESCHEDULED.search(s))
    ]
    if not offs:
        return None
    e, sentence = max(offs, key=lambda es: es[0].time)
    for later in pool:
        if later.time <= e.time or later is e:
            continue
        if names and not all(re.search(rf"\b{re.escape(n)}\b", later.text) for n in names):
            continue  # "the Eindhoven Marathon ... instead" is another plan than Enschede
        if _RESCHEDULED.search(later.text) or not REVISION.search(later.text):
            return None  # planned again, or told of again, after it was called off
    # "The marathon's off though. ... I've deferred my place to next year.": the same turn putting
    # it to another time says when it now is
    put_off = [s for s in sentences(e.text) if _DEFERRED.search(s) and s != sentence]
    return f"{sentence} {put_off[0]}" if put_off else sentence


_DEFERRED = re.compile(
    r"\b(?:deferred|postponed|pushed\s+back|put\s+(?:it\s+)?off|moved)\b[^.!?]*\b(?:to|until|till)\s+"
    r"(?:next\s+\w+|\w+\s+\d{4}|\d{4}|(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December)\b)",
    re.IGNORECASE,
)
"""A plan put to a later time ("deferred my place to next year", "postponed until March")."""


_INSTEAD_OF = re.compile(
    r"\binstead\s+of\s+(?:the\s+|our\s+|my\s+|his\s+|her\s+|their\s+)?(?P<plan>[^?,.]+?)\s*\??\s*$", re.I
)
_INSTEAD = re.compile(r"\binstead\b", re.I)
_WHEN_WORD = rf"(?:{MONTH_TITLES}|{DAY_NAME}|Easter|Christmas|Spring|Summer|Autumn|Winter)\b"
_NAMED_PLACE = re.compile(
    rf"(?<!^)(?<![.!?]\s)\b(?:(?:at|to|in|for|on)\s+)?(?:the\s+)?(?P<place>(?!{_WHEN_WORD}|I\b|I['’])[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*"
    r"(?:\s+(?:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*|de|la|du|am))*)"
)
"""A name in a sentence, not at its start and not a month or a day ("the Blackpool congress in
March" -> "Blackpool")."""


def replacement_for(question: str, evidence: list[EvidenceItem]) -> str | None:
    """What was done or planned instead of a plan the question names ("Where did we go instead of
    Disneyland?"): the place a sentence saying "instead" names, said in the turn that called the
    plan off or the nearest turn after it.

    Args:
        question: the question.
        evidence: turns that may answer (any order).

    Returns:
        The place named ("Sylvan Lake"), else the sentence saying "instead"; None when the question
        names no plan replaced or no turn says what replaced it.
    """
    m = _INSTEAD_OF.search(question)
    if m is None:
        return None
    words = [w.lower() for w in re.findall(r"[\w'’-]+", m.group("plan")) if len(w) > 2]
    if not words:
        return None
    turns = sorted(evidence, key=lambda e: e.time)
    offs = [
        i
        for i, e in enumerate(turns)
        if any(CALLED_OFF.search(s) and all(w in s.lower() for w in words) for s in sentences(e.text))
    ]
    if not offs:
        return None
    start = turns[offs[-1]].time
    for e in turns[offs[-1] :]:
        if (e.time - start).days > 62:
            break
        for s in sentences(e.text):
            if _INSTEAD.search(s) and not all(w in s.lower() for w in words) and not CALLED_OFF.search(s):
                place = _NAMED_PLACE.search(s)
                return place.group("place") if place else s
    return None
