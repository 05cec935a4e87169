"""Number words read as numbers, in one place: the extractor's dates and the reader's counts and
ages each extend this table with the words their own phrasings need."""

from __future__ import annotations

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
