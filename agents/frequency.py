"""How often something happens, read as the frequency said of it (pure rules).

"How often am I on call at weekends?" is answered by the words that say a frequency ("one
weekend in four", "every other weekend", "twice a day", "every four months"), in the latest turn
that says one of what is asked; not by a count of the turns mentioning it. A frequency put right
in the next breath ("every third weekend. Fourth, actually") is read as put right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from emem.agents.counts import said_order
from emem.agents.spans import about, focus_words, sentences
from emem.answer import EvidenceItem
from emem.repairs import repaired
from emem.timeparse import DAY_NAME

_N = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+couple\s+of|a\s+few)"
_ORDINAL = r"(?:other|second|third|fourth|fifth|sixth|\d+(?:st|nd|rd|th))"
_UNIT = (
    r"(?:days?|nights?|weeks?|weekends?|fortnights?|months?|years?|mornings?|evenings?|hours?|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?)"
)
_DAYS = rf"{DAY_NAME}s"
"""A weekday said as a habit ("Tuesdays")."""
FREQUENCY = re.compile(
    rf"\bevery\s+(?:{_ORDINAL}\s+|{_N}\s+)?{_UNIT}\b"
    rf"|\b(?:once|twice|{_N}\s+times)\s+(?:a|an|per|every)\s+{_UNIT}\b"
    rf"|\b{_N}\s+{_UNIT}\s+(?:in|out\s+of)\s+{_N}\b"
    r"|\b(?:daily|weekly|fortnightly|monthly|yearly|annually|nightly)\b"
    rf"|\bon\s+(?:alternate|{_DAYS}(?:(?:,\s*|\s+and\s+|\s*&\s*){_DAYS})*|weekends)\b",
    re.IGNORECASE,
)
"""A frequency as people say it ("every four months", "twice a day", "one weekend in four")."""
_ASKS = re.compile(r"^\s*how\s+often\b", re.IGNORECASE)


def frequency_answer(
    question: str, evidence: Sequence[EvidenceItem], until: datetime | None = None
) -> str | None:
    """The frequency the latest turn on the asked thing says; None when the question is not a
    "How often ...?" or no turn says one.

    A turn naming whom or what the first answer's sentence named ("I see her every three months"
    after "my endocrinologist, Dr. Perrin") speaks of the same thing when it says a frequency
    later in other words ("Dr. Perrin says every four months is enough now").

    Args:
        question: as asked.
        evidence: turns that may answer (any order).
        until: the end of the period asked about ("in April 2024"); None: now, or the as-of
            time, by which the read path has already cut the evidence.

    Returns:
        The frequency as said ("one weekend in four"), or None.
    """
    if not _ASKS.match(question):
        return None
    focus = focus_words(question, set()) - {"often"}
    if not focus:
        return None
    turns = sorted((e for e in evidence if until is None or e.time <= until), key=said_order, reverse=True)
    for k, e in enumerate(turns):
        told = sentences(repaired(e.text))
        found = [
            (m.group(0), " ".join(told[max(i - 1, 0) : i + 1]))
            for i, sentence in enumerate(told)
            if about(sentence, focus) or (i > 0 and about(told[i - 1], focus))
            for m in FREQUENCY.finditer(sentence)
        ]
        if not found:
            continue
        said, where = found[-1]  # said last: what a correction in the turn settles on
        names = set(_NAMED.findall(where)) - _NOT_NAMES
        unit = _UNIT_OF.findall(said)
        for later in turns[:k]:  # newer turns naming the same one, or changing it in its units
            again = [
                m.group(0)
                for sentence in sentences(repaired(later.text))
                for m in FREQUENCY.finditer(sentence)
                if any(re.search(rf"\b{re.escape(n)}\b", sentence) for n in names)
                or (_CHANGED.search(sentence) and _UNIT_OF.findall(m.group(0))[-1:] == unit[-1:])
            ]
            if again:
                return again[-1]
        return said
    return None


_NAMED = re.compile(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]{2,}\b")
_UNIT_OF = re.compile(rf"{_UNIT}", re.IGNORECASE)
_CHANGED = re.compile(
    r"\b(?:bumped|upped|cut|dropped|moved|changed|switched|increased|reduced|down\s+to|up\s+to|now)\b",
    re.IGNORECASE,
)
"""A later sentence changing a frequency without naming what it is of ("I bumped it to four
times a week"): it counts when its frequency is in the same units."""
_NOT_NAMES = frozenset({"I", "The", "My", "Our", "Dr", "Mr", "Mrs", "Ms"})
