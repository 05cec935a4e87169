"""Values a clause states in words people use for them, read by pure rules: the year something
was built or founded (the latest telling, which may put the first right), an age in words, and
a day put right into the month of the date it takes back.

Why here: the reader's rules for a question's kind call these; each is a small reading of one
clause with no knowledge of the question, so it lives apart from the reader's orchestration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.agents.corrections import Correction
from emem.answer import EvidenceItem
from emem.numbers import CARDINALS, COMPOUND_PATTERN, compound_value
from emem.timeparse import MONTH_NAME

_ORIGIN_VERBS = r"(?:built|founded|established|constructed|opened|launched|set\s+up|started|made|dates\s+(?:back\s+)?(?:from|to))"
ASKS_ORIGIN = re.compile(
    rf"^\s*(?:when|what\s+year|which\s+year)\b.*\b{_ORIGIN_VERBS}\s*\??\s*$", re.IGNORECASE
)
"""A question about when something came to be ("When was the Corran Star built?"): a year."""
_ORIGIN_YEAR = re.compile(
    rf"\b{_ORIGIN_VERBS}\s+(?:in\s+|back\s+in\s+)?(?P<year>1\d{{3}}|20\d{{2}})\b", re.IGNORECASE
)
_YEAR_PUT_RIGHT = re.compile(
    rf"\b{_ORIGIN_VERBS}\s+(?:in\s+)?(?:1\d{{3}}|20\d{{2}})\b[^.!?]*[.!?]\s+"
    r"(?:(?:no|sorry|actually|wait)[,.]?\s+)*(?:it's|it\s+is|it\s+was|she\s+was|he\s+was|that's)?\s*"
    r"(?:actually\s+)?(?P<year>1\d{3}|20\d{2})\b",
    re.IGNORECASE,
)
"""A year put right in the next sentence ("I told you the lighthouse was built in 1838. It's 1832")."""


def origin_year(candidates: Sequence[EvidenceItem]) -> str | None:
    """The year something was built, founded or opened, from the latest candidate that says it
    (pure): a later turn that puts it right ("It's 1832") outranks the first telling.

    Args:
        candidates: the best-supported turns, as the speaker meant them.

    Returns:
        The year, or None when no candidate says one.
    """
    for e in sorted(candidates, key=lambda e: e.time, reverse=True):
        fixed = _YEAR_PUT_RIGHT.search(e.text)
        if fixed is not None:
            return fixed.group("year")
        said = _ORIGIN_YEAR.search(e.text)
        if said is not None:
            return said.group("year")
    return None


_AGE_WORDS = re.compile(
    rf"\b(?:{COMPOUND_PATTERN}|{'|'.join(sorted(CARDINALS, key=len, reverse=True))})\b", re.IGNORECASE
)


def age_in(text: str) -> str | None:
    """The age a clause states, in digits ("He's seventeen" -> "17", "she's 4" -> "4"); None when
    it states no number (pure)."""
    m = re.search(r"\b(\d{1,3})\b", text)
    if m is not None:
        return m.group(1)
    said = _AGE_WORDS.search(text)
    if said is None:
        return None
    word = said.group(0).lower()
    value = compound_value(word) or CARDINALS.get(word)
    return str(value) if value is not None else None


_DAY_OF = re.compile(r"\b(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?[A-Z])")
_DAY_IN = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?=\s+(?:of\s+)?{MONTH_NAME}\b)", re.IGNORECASE)


def with_day_of(correction: Correction) -> str:
    """A correction's replacement with a bare day ("It's the 19th") put into the date it takes
    back ("the 9th of July" -> "It's the 19th of July"); the replacement as it is otherwise (pure)."""
    day = _DAY_OF.search(correction.replacement)
    taken = " ".join(correction.retracted)
    old = _DAY_IN.search(taken)
    if day is None or old is None:
        return correction.replacement
    month = re.search(rf"{MONTH_NAME}\b", taken[old.end() :], re.IGNORECASE)
    return (
        f"{correction.replacement[: day.end()]} of {month.group(0)}{correction.replacement[day.end() :]}"
        if month
        else correction.replacement
    )
