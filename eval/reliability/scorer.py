"""Deterministic scoring of one answer against a case's expectations.

Pure functions only: the same answer text and status always score the same, so a pass rate moves
only when the answers move. Matching is on values (a city, a name, a count, a date), after
normalisation, never on paraphrase: an extractive answer that holds the value passes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_INDEX = {name: i + 1 for i, name in enumerate(MONTHS)}
_MONTH_INDEX.update({name[:3]: i + 1 for i, name in enumerate(MONTHS)})
_MONTH_INDEX["sept"] = 9

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
NUMBER_WORDS: dict[str, int] = (
    {w: i for i, w in enumerate(_UNITS)} | _TENS | {"a dozen": 12, "twice": 2, "once": 1}
)

_ORDINAL = re.compile(r"\b(\d{1,2})(st|nd|rd|th)\b")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+),?\s+(\d{4})$")
_MONTH_DAY_YEAR = re.compile(r"^([a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")
_MONTH_YEAR = re.compile(r"^([a-z]+)\s+(\d{4})$")
_DAY_MONTH = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)$")
_MONTH_DAY = re.compile(r"^([a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?$")
_DAY_OF_MONTH = re.compile(rf"\b(\d{{1,2}}) of ({'|'.join(MONTHS)}|{'|'.join(m[:3] for m in MONTHS)})\b")
_ISO_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def _fold_number_words(text: str) -> str:
    """Spell-out numbers become digits ("twenty one" -> "21", "three" -> "3") on word boundaries."""

    def tens(match: re.Match[str]) -> str:
        value = _TENS[match.group(1)]
        if match.group(2):
            value += NUMBER_WORDS[match.group(2)]
        return str(value)

    units = "|".join(_UNITS[1:10])
    text = re.sub(rf"\b({'|'.join(_TENS)})(?:[ -]({units}))?\b", tens, text)
    text = re.sub(r"\ba dozen\b", "12", text)
    return re.sub(rf"\b({'|'.join(_UNITS)})\b", lambda m: str(NUMBER_WORDS[m.group(1)]), text)


def normalise(text: str) -> str:
    """Casefold, strip accents, fold punctuation and whitespace to single spaces, number words to
    digits, ordinals to plain numbers ("3rd" -> "3") and leading zeros of short numbers ("06" -> "6").

    Args:
        text: any answer or expected value.

    Returns:
        The folded text, words separated by single spaces, without leading or trailing space.
    """
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"['\u2019]s\b", "", text)
    text = re.sub(r"[^\w]+", " ", text).replace("_", " ")
    text = _fold_number_words(text)
    text = _ORDINAL.sub(r"\1", text)
    text = _DAY_OF_MONTH.sub(r"\1 \2", text)
    text = re.sub(r"\b0(\d)\b", r"\1", text)
    return " ".join(text.split())


def date_variants(value: str) -> set[str] | None:
    """The written forms of a date value ("2024-06-03", "3 June 2024", "June 3, 2024", a month
    "June 2024" / "2024-06", or a day without a year "March 21" / "21 March"), normalised; None
    when the value is not a date.

    Args:
        value: an expected value from a case.

    Returns:
        Normalised variants (day-month-year, month-day-year, ISO, abbreviated months), or None.
    """
    raw = " ".join(value.strip().casefold().split())
    day = month = year = None
    if m := _ISO_DATE.match(raw):
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    elif (m := _DAY_MONTH_YEAR.match(raw)) and m.group(2) in _MONTH_INDEX:
        day, month, year = int(m.group(1)), _MONTH_INDEX[m.group(2)], int(m.group(3))
    elif (m := _MONTH_DAY_YEAR.match(raw)) and m.group(1) in _MONTH_INDEX:
        month, day, year = _MONTH_INDEX[m.group(1)], int(m.group(2)), int(m.group(3))
    elif (m := _MONTH_YEAR.match(raw)) and m.group(1) in _MONTH_INDEX:
        month, year = _MONTH_INDEX[m.group(1)], int(m.group(2))
    elif m := _ISO_MONTH.match(raw):
        year, month = int(m.group(1)), int(m.group(2))
    elif (m := _DAY_MONTH.match(raw)) and m.group(2) in _MONTH_INDEX:
        day, month = int(m.group(1)), _MONTH_INDEX[m.group(2)]
    elif (m := _MONTH_DAY.match(raw)) and m.group(1) in _MONTH_INDEX:
        month, day = _MONTH_INDEX[m.group(1)], int(m.group(2))
    if month is None or not 1 <= month <= 12 or (year is None and day is None):
        return None
    names = (MONTHS[month - 1], MONTHS[month - 1][:3])
    if year is None:
        forms = {f"{day} {n}" for n in names} | {f"{n} {day}" for n in names}
    elif day is None:
        forms = {f"{n} {year}" for n in names} | {f"{year}-{month:02d}"}
    else:
        forms = {f"{day} {n} {year}" for n in names} | {f"{n} {day} {year}" for n in names}
        forms |= {f"{year}-{month:02d}-{day:02d}"}
    return {normalise(f) for f in forms}


def value_forms(value: str) -> set[str]:
    """Every normalised form that counts as an occurrence of `value`."""
    return date_variants(value) or {normalise(value)}


def _digits_runs(text: str) -> set[str]:
    """Digit sequences written with separators (phone numbers: "555-0142", "(555) 014 2")."""
    return {re.sub(r"\D", "", m) for m in re.findall(r"\+?\(?\d[\d\s().\-]{3,}\d", text)}


def occurs(value: str, answer: str) -> bool:
    """Whether `value` occurs in `answer` on word boundaries after normalisation. A value made of
    digits and separators only (a phone number) also matches the same digits written differently.

    Args:
        value: an expected or forbidden value.
        answer: the answer text.

    Returns:
        True when any accepted form of the value is in the answer.
    """
    folded = f" {normalise(answer)} "
    for form in value_forms(value):
        if form and re.search(rf"(?<= ){re.escape(form)}(?:s|es)?(?= )", folded):
            return True
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 5 and not re.search(r"[A-Za-z]", value):
        return any(
            digits == run or (len(run) > len(digits) and run.endswith(digits)) for run in _digits_runs(answer)
        )
    return False


@dataclass(frozen=True)
class Expectation:
    """What a case accepts: any of `expect` (when given), none of `forbid`, the status, and any of
    `mention` as a plain substring of the folded answer (e.g. "forget" for a forget request)."""

    status: str
    expect: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    mention: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    passed: bool
    failures: tuple[str, ...] = field(default_factory=tuple)


def score(expectation: Expectation, answer: str, status: str) -> Verdict:
    """Score one answer. Every check runs, so a failure lists all that failed.

    Args:
        expectation: the case's expectations.
        answer: `Answer.answer`.
        status: `Answer.status`.

    Returns:
        The verdict, with one line per failed check ("status: ...", "expect: ...", "forbid: ...",
        "mention: ...").
    """
    failures: list[str] = []
    if status != expectation.status:
        failures.append(f"status: expected {expectation.status}, got {status}")
    if expectation.expect and not any(occurs(v, answer) for v in expectation.expect):
        failures.append(f"expect: none of {list(expectation.expect)} in the answer")
    leaked = [v for v in expectation.forbid if occurs(v, answer)]
    if leaked:
        failures.append(f"forbid: answer contains {leaked}")
    folded = normalise(answer)
    if expectation.mention and not any(normalise(m) in folded for m in expectation.mention):
        failures.append(f"mention: none of {list(expectation.mention)} in the answer")
    return Verdict(not failures, tuple(failures))
