"""Questions asking an amount ("How much is the rent?", "How much does X cost?") are answered only
by a clause that states a number and is about what is asked.

Why: a current-state question prefers the latest turn on its topic, and the latest is often one
that mentions the topic without its value ("with the rent going up I'd rather save"); and a trap
question ("How much does my Spotify cost?") was answered with another amount ("the Japan target
goes up to £3,500"). What counts is the shape of the answer, not the phrasing of either turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.agents.spans import NUMBER_PATTERN, about, involves, number_value
from emem.answer import EvidenceItem
from emem.numbers import CARDINALS, TEENS, TENS_PATTERN, UNITS_PATTERN
from emem.timeparse import MONTH_NAME

_ASKS_AMOUNT = re.compile(
    r"^\s*how\s+much\b|\bwhat\s+(?:is|was|'s)\s+the\s+(?:price|cost|fee|rent)\b"
    r"|^\s*what\s+(?:salary|wage|pay\s+rise|price|fee|rent|budget|rate)\b"
    r"|^\s*what\s+(?:do|does|did)\s+[\w' ]{1,30}?\s+(?:charge|earn|pay|cost)\b"
    r"|^\s*what\s+(?:did|does|will)\s+[\w' ]{1,30}?\s+(?:sell|go|buy\s+\w+)\s+for\s*\??\s*$"
    r"|^\s*what\s+(?:is|was|are|were|am)\s+[\w' ]{1,30}?\s+(?:charging|paying|earning|spending|asking)\b"
    r"|\bwhat(?:'s|\s+is|\s+was)\s+(?:\w+['’]s\s+|(?:my|our|your|the|his|her|their)\s+)(?:\w+\s+)?(?:rate|rent|price|fee|salary|budget|cost)\b",
    re.I,
)
_CLAUSE = re.compile(r"[.;!?]\s+|,\s+(?=(?:so|and|but|which)\b)")


def asks_amount(question: str) -> bool:
    """True for a question whose answer is an amount ("How much ...", "What is the price of ...")."""
    return _ASKS_AMOUNT.search(question) is not None and not re.match(
        r"^\s*how\s+much\s+time\b", question, re.I
    )


def _has_number(clause: str) -> bool:
    return bool(re.search(r"\d", clause)) or any(
        number_value(w) is not None for w in re.findall(r"[a-z]+", clause.lower())
    )


_MONEY_QUESTION = re.compile(
    r"\b(?:cost|costs|price|prices|priced|pay|paying|paid|rent|fee|fees|charge|charges|charging|spend"
    r"|spent|earn|earns|earning|salary|wage|worth|budget|owe|owes|afford|costing|takings|raise|raised"
    r"|sell|sold|go\s+for|went\s+for)\b"
    r"|\b(?:day|daily|hourly|nightly|weekly|going|day's|hour's)\s+rate\b|\brates?\s+(?:for|per|an?)\b",
    re.I,
)
_COUNTED_UNIT = re.compile(
    r"\b(?:\d[\d.,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|few|several)"
    r"\s+(?:days?|weeks?|months?|years?|hours?|minutes?|times?|km|miles?|kg|kilos?"
    r"|people|kids|children|staff|clients|pages|books|sessions|classes|runs|races|nights)\b",
    re.I,
)
_CURRENCY = re.compile(
    r"[£$€¥₹]|\b(?:\d[\d.,]*\s*(?:k|grand)|pounds?|dollars?|euros?|quid|bucks|pence|cents?|kr|krone[rn]?"
    r"|yen|rupees?|francs?|CAD|USD|EUR|GBP|AUD|NZD|CHF)\b",
    re.I,
)


_PAYER = re.compile(
    r"^\s*how\s+much\s+(?:money\s+)?(?:did|does|do|will|has|have)\s+(?P<who>[\w'’ ]{1,40}?)\s+"
    r"(?:pay|charge|give|lend|owe|spend|earn|quote)\b",
    re.I,
)
_NOT_PAYER = frozenset("i we you me us my our your the a an mr mrs ms miss dr".split())


def payer_words(question: str) -> set[str]:
    """Who the question says paid or charged ("How much did the landlord charge ...?" ->
    {"landlord"}): a sum said without them is no answer. Empty for "I"/"we"/"you", who are
    whoever speaks.

    Args:
        question: the question.
    Returns:
        The payer's words (lower case), possibly empty.
    """
    m = _PAYER.match(question)
    if m is None:
        return set()
    return {w for w in re.findall(r"[a-z]+", m.group("who").lower()) if w not in _NOT_PAYER}


def asks_money(question: str) -> bool:
    """True for an amount question about money ("How much does a sandwich cost?", "How much is the
    rent?"): "5 days a week" does not answer it, whatever clause it sits in."""
    return asks_amount(question) and _MONEY_QUESTION.search(question) is not None


def _states_money(clause: str) -> bool:
    """A clause with a currency, or with a number and nothing counted ("rent is 820 a month")."""
    if _CURRENCY.search(clause):
        return True
    # "5 days a week, not 4": a clause counting days counts them in its other numbers too; a
    # date, a year or a clock time ("pushed to the 31st", "a 1912 upright") is no sum either
    return _COUNTED_UNIT.search(clause) is None and re.search(r"\d", _NOT_SUMS.sub(" ", clause)) is not None


_NOT_SUMS = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_NAME}\b|\b{MONTH_NAME}\s+\d{{1,2}}\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:1[89]|20)\d\d\b|\b\d{1,2}:\d{2}\b"
    r"|\b\d[\d,.]*\s+(?!(?:pounds|dollars|euros|cents|quid|bucks|rupees|francs|kroner|kronor)\b)[a-z]{2,}s\b",
    re.I,
)
"""Numbers that are dates, years, clock times or counts of something ("90,000 words"), not
amounts of money."""


def states_amount(text: str, focus: set[str], *, money: bool = False) -> bool:
    """True when a clause of `text` states a number and names one of the question's focus words.

    Args:
        text: a candidate turn or span.
        focus: the question's focus words.
        money: the question asks a price or sum (`asks_money`): the number must be money, not a
            count of days or people.

    Returns:
        Whether the text states an amount of what is asked.
    """
    return any(
        _has_number(c) and about(c, focus) and (not money or _states_money(c) or _bare_rate(c, focus))
        for c in _CLAUSE.split(text)
    )


def _bare_rate(text: str, focus: set[str]) -> bool:
    return any(about(m.group("per"), focus) for m in _BARE_RATE.finditer(text))


_NUMBER_WORDS = (
    rf"(?:{TENS_PATTERN}(?:[\s-]{UNITS_PATTERN})?|"
    + "|".join([*CARDINALS, *TEENS])
    + r"|a\s+hundred|a\s+thousand)"
)
_MONEY_SPAN = re.compile(
    rf"(?:\b{_NUMBER_WORDS}\s+(?:hundred\s+|thousand\s+)?(?:pounds|dollars|euros|quid|bucks)\b"
    r"|[£$€¥₹]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|million|grand)\b)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:k\b|grand\b|pounds?\b|dollars?\b|euros?\b|quid\b|bucks\b|kr\b|kroner\b|francs?\b|"
    r"(?:CAD|USD|EUR|GBP|AUD|NZD|CHF)\b)"
    r"|\b\d{1,3}(?:\.\d+)?\s?(?:p|pence|cents?)\b(?!\s*(?:m|\.m)\b))"
    r"(?:\s+(?:a|an|per)\s+(?:month|week|year|hour|night|day|session|lesson|jar|kilo|head|litre|liter|pint|"
    r"gallon|bottle|box|bag|dozen|loaf|bunch|ticket|class|visit|item|piece|unit|mile|tonne|ton|pound|kg))?",
    re.I,
)
"""A sum as said, with its rate when it has one ("£1,200", "£850 a month", "68k", "seven pounds a
jar", "38.5p a litre")."""


def money_span(text: str, focus: set[str]) -> str | None:
    """The sum a clause about the question's words states ("Cormac's deposit is £1,200" for "How
    much deposit did Cormac pay?"), or None.

    Args:
        text: a candidate turn.
        focus: the question's focus words.

    Returns:
        The first sum said in a clause about the focus, as written.
    """
    for clause in _CLAUSE.split(text):
        if about(clause, focus) and (sum_ := money_in(clause)):
            return sum_
    for m in _BARE_RATE.finditer(text):
        # "It's eighty a tuning now": a price said without its currency, per the thing asked about
        if about(m.group("per"), focus) and number_value(m.group("n")):
            return m.group(0)
    return None


_BARE_RATE = re.compile(rf"\b(?P<n>\d[\d,]*|{NUMBER_PATTERN})\s+(?:a|an|per)\s+(?P<per>[a-z]+)\b", re.I)
"""A bare number per one of something ("eighty a tuning", "40 a session")."""


def money_in(text: str) -> str | None:
    """The first sum a text states, as written ("£12,000"), whatever it is about; None if none."""
    m = _MONEY_SPAN.search(text)
    return m.group(0).strip().rstrip(",.") if m else None


_SOLD = re.compile(r"\bsold\b|\bsells?\b|\bselling\b", re.I)
_ASKS_SOLD = re.compile(r"\bsell\b", re.I)


def sold_for(
    question: str, evidence: Sequence[EvidenceItem], people: Sequence[str], focus: set[str]
) -> str | None:
    """The sum a thing sold for ("Sold! £392,000."), for a question asking what it sold for, from
    a turn that says it sold rather than one saying what it was on the market at. Only selling:
    paying and costing are said of every sum.

    Args:
        question: the question ("What did my house sell for?").
        evidence: the best-supported holding turns, best first.
        people: the question's people; a turn must be by or about one of them (any, if none).
        focus: the question's focus words; a turn about the sold thing is preferred.

    Returns:
        The sum as said, or None when the question asks no sale or no turn says one.
    """
    if not _ASKS_SOLD.search(question):
        return None
    said = [e for e in evidence if _SOLD.search(e.text) and money_in(e.text) and involves(e, people)]
    thing = focus - {"sell", "sold"}
    best = next((e for e in said if about(e.text, thing)), said[0] if said else None)
    return money_in(best.text) if best is not None else None
