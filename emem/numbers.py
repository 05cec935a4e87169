"""Number words read as numbers, in one place: the extractor's dates and the reader's counts and
ages each extend this table with the words their own phrasings need."""

from __future__ import annotations

import re

CARDINALS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
"""One to twelve, the number words people write out."""

TEENS: dict[str, int] = {
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
ORDINALS: dict[str, int] = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
}
"""First to twelfth, the ordinals people write out ("every third weekend", "the last week" aside)."""
TENS: dict[str, int] = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
TENS_PATTERN = "(?:" + "|".join(TENS) + ")"
"""Twenty, thirty ... ninety."""
UNITS_PATTERN = "(?:one|two|three|four|five|six|seven|eight|nine)"
"""The units a tens word takes ("thirty-three")."""
COMPOUND_PATTERN = (
    rf"{TENS_PATTERN}(?:[\s-]{UNITS_PATTERN}\b)?|" + "|".join(TEENS) + r"|\d{1,3}(?:,\d{3})+(?![\d,])"
)
"""Numbers past twelve as people write them: "thirty-three", "ninety five", "nineteen", "2,800"."""


def compound_value(text: str) -> int | None:
    """ "thirty-three" -> 33, "ninety five" -> 95, "nineteen" -> 19, "2,800" -> 2800; None for any
    other text (one to twelve are `CARDINALS`)."""
    w = text.strip().lower()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", w):
        return int(w.replace(",", ""))
    if w in TEENS:
        return TEENS[w]
    tens, _, unit = w.replace("-", " ").partition(" ")
    if tens in TENS:
        if not unit:
            return TENS[tens]
        if unit in CARDINALS and CARDINALS[unit] < 10:
            return TENS[tens] + CARDINALS[unit]
    return None
