"""Birthdays asked about by whose they are, read from the sentence that gives the date to them
(pure rules).

Dates of birthdays get mixed up and put right in one breath: "Tamsin's birthday is the 4th of
May. No wait, that's her dad's. Tamsin's is the 14th. Her dad's is the 4th." A question about
one of them ("When is Tamsin's dad's birthday?") is answered by the last sentence of the latest
turn that binds a date to exactly that person ("her dad's is the 4th", "the 4th is her dad's",
an agent's recap "Tamsin 14 May, her dad 4 May"), not by the first date near the name. A
"his"/"her" stands for the owner the question names when that owner is named in the same turn;
a bare day ("the 4th") takes its month from the turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.agents.counts import said_order
from emem.agents.spans import sentences
from emem.answer import EvidenceItem
from emem.repairs import repaired
from emem.timeparse import MONTH_NAMES, MONTHS

_MONTH = (
    rf"(?:{'|'.join(m.title() for m in MONTH_NAMES)}|{'|'.join(m[:3].title() for m in MONTH_NAMES)})\b\.?"
)
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_DATE = (
    rf"(?:the\s+)?{_DAY}(?:\s+of)?\s+(?P<month>{_MONTH})|(?P<month2>{_MONTH})\s+(?:the\s+)?(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"|the\s+(?P<day3>\d{1,2})(?:st|nd|rd|th)\b"
)
_ASKS = re.compile(
    r"^\s*(?:when\s+is|when['’]s|what\s+is|what['’]s|what\s+date\s+is)\s+(?P<who>.+?)['’]s?\s+birthday\s*\??\s*$",
    re.IGNORECASE,
)
_KIN = r"(?:mum|mom|mother|dad|father|brother|sister|son|daughter|wife|husband|partner|gran|grandma|grandad|grandpa|aunt|uncle|cousin|niece|nephew|boss|friend)"


def asks_birthday_of(question: str) -> str | None:
    """Whose birthday the question asks ("Tamsin's dad", "Adwoa"), else None."""
    m = _ASKS.match(question)
    if m is None:
        return None
    who = m.group("who").strip()
    if re.match(r"(?i)(?:my|our|your|the\s+user)\b", who):
        return None  # the user's own: other rules read those
    return who


def _forms(who: str) -> list[str]:
    """How a sentence may name `who`: as asked, and "his/her/their <kin>" for "<Owner>'s <kin>"."""
    bare = re.sub(r"(?i)^the\s+", "", who)
    forms = [rf"(?:the\s+)?{re.escape(bare)}"]
    kin = re.fullmatch(rf"(?P<owner>[^\W\d_][\w'’-]*)['’]s\s+(?P<kin>{_KIN})", who, re.IGNORECASE)
    if kin is not None:
        forms.append(rf"(?:his|her|their)\s+{re.escape(kin.group('kin'))}")
    return forms


def _bindings(sentence: str, form: str) -> list[tuple[int, re.Match[str]]]:
    """Dates the sentence gives to the person `form` names, with where they are said."""
    who = rf"(?<![\w'’]){form}(?![\w-])"
    out = []
    for pattern in (
        # "Adwoa's birthday is the 9th", "her dad's is the 4th of May", "his mum's 3 August"
        rf"{who}['’]s?(?:\s+birthday)?(?:\s+is|['’]s)?(?:\s+on)?,?\s+(?:{_DATE})",
        # "the 9th is Adwoa's", "The 21st is Tamsin's dad's birthday"
        rf"(?:{_DATE})\s+is\s+{who}['’]s?\b",
        # a recap: "Twins 19 June, Adwoa 9 June"
        rf"(?:^|[,;:]\s*){who},?\s+(?:{_DATE})",
    ):
        out += [(m.start(), m) for m in re.finditer(pattern, sentence, re.IGNORECASE)]
    # a name is not the same person as the name with more after it ("Tamsin" in "Tamsin's dad's")
    return [
        (at, m) for at, m in out if not re.match(rf"['’]s\s+{_KIN}\b", sentence[m.end() :], re.IGNORECASE)
    ]


def _month_near(text: str, at: int) -> str | None:
    before = [m for m in re.finditer(_MONTH, text) if m.start() < at]
    if before:
        return before[-1].group(0)
    after = re.search(_MONTH, text[at:])
    return after.group(0) if after else None


def _date(m: re.Match[str], text: str, at: int) -> str:
    day = m.group("day") or m.group("day2") or m.group("day3")
    month = m.group("month") or m.group("month2") or _month_near(text, at)
    number = MONTHS.get(month.rstrip(".").lower()[:3]) if month else None
    return f"{int(day)} {MONTH_NAMES[number - 1].title()}" if number else f"the {day}"


def birthday_answer(question: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """The date of the birthday the question asks about, from the latest turn binding one to
    that person (its last such sentence); None when the question is of another form or no turn
    does.

    Args:
        question: as asked.
        evidence: turns that may answer (any order).

    Returns:
        The date ("4 May"), or None.
    """
    who = asks_birthday_of(question)
    if who is None:
        return None
    owner = who.split("'")[0].split("’")[0]
    for e in sorted(evidence, key=said_order, reverse=True):
        text = repaired(e.text)  # "the 9th of June. Sorry - the 19th" says the 19th of June
        forms = _forms(who) if re.search(rf"\b{re.escape(owner)}\b", text) else _forms(who)[:1]
        found: list[tuple[int, str]] = []
        offset = 0
        for sentence in sentences(text):
            offset = text.find(sentence, offset)
            for form in forms:
                for at, m in _bindings(sentence, form):
                    found.append((offset + at, _date(m, text, offset + at)))
        if found:
            return max(found)[1]  # said last in the turn: what a correction settles on
        if any(re.search(rf"\b{f}\b[^.!?]*\bbirthday", text, re.IGNORECASE) for f in forms):
            return None  # the latest word on it binds no date here ("I told you ... was the 22nd.
            # Wrong: it's the 24th"): the reader's corrections read it, not an older turn
    return None
