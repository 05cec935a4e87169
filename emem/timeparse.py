"""Explicit timestamp parsing. A time that does not parse is an error, never "now"."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from emem.errors import InputError

DAY_NAME = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
"""A weekday's name, capitalised, as a regular-expression group."""
WEEKDAY = re.compile(rf"\b{DAY_NAME}s?\b", re.IGNORECASE)
"""A weekday named in full, singular or plural ("Tuesday", "on Saturdays")."""

_LOCOMO = re.compile(
    r"^\s*(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>am|pm)\s+on\s+(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]+),?\s+(?P<y>\d{4})\s*$",
    re.IGNORECASE,
)
MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}

MONTH_NAMES = tuple(max((m for m in MONTHS if MONTHS[m] == i), key=len) for i in range(1, 13))
"""The twelve months' full names, lowercase, January first."""


MONTH_NAME = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
"""A month's name or abbreviation as a regular-expression group (no flags, longest first)."""
MONTH_TITLES = "(?:" + "|".join(m.capitalize() for m in MONTH_NAMES) + ")"
"""The twelve months' full names, capitalised, as a regular-expression group ("In March I ...")."""


def parse_locomo_time(value: object, where: str | None = None) -> datetime:
    """Parse LoCoMo's "1:56 pm on 8 May, 2023" (read as UTC, since the data has no zone)."""
    if not isinstance(value, str):
        raise InputError(
            f"expected a date string like '1:56 pm on 8 May, 2023', got {type(value).__name__}", where
        )
    m = _LOCOMO.match(value)
    if not m:
        raise InputError(f"unparsable LoCoMo date {value!r} (expected like '1:56 pm on 8 May, 2023')", where)
    hour, minute = int(m["h"]), int(m["m"])
    mon = MONTHS.get(m["mon"].lower())
    if mon is None or not 1 <= hour <= 12 or minute > 59:
        raise InputError(f"impossible LoCoMo date {value!r}", where)
    hour = hour % 12 + (12 if m["ampm"].lower() == "pm" else 0)
    try:
        return datetime(int(m["y"]), mon, int(m["d"]), hour, minute, tzinfo=UTC)
    except ValueError as exc:
        raise InputError(f"impossible LoCoMo date {value!r}: {exc}", where) from None


def parse_iso_time(value: object, where: str | None = None) -> datetime:
    """Parse ISO-8601. A naive time is taken as UTC; the result is always timezone-aware UTC."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise InputError(f"unparsable ISO-8601 time {value!r}", where) from None
    else:
        raise InputError(f"expected an ISO-8601 time string, got {type(value).__name__} {value!r}", where)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+05:00 is before year 1 in UTC
        raise InputError(f"ISO-8601 time {value!r} is out of range once converted to UTC", where) from None


def parse_optional_iso(value: object, where: str | None = None) -> datetime | None:
    return None if value is None else parse_iso_time(value, where)


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(dt: datetime) -> str:
    """Canonical storage form: UTC, seconds precision kept as given, '+00:00' suffix."""
    return dt.astimezone(UTC).isoformat()
