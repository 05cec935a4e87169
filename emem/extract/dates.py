"""Resolve the date expressions people use in conversation against the time a turn was said.

Everything here is a pure function of `(text, anchor)`: the anchor is the turn's valid time, never
"now", so re-running extraction on an old conversation gives the same dates.

Conventions (documented because several phrases are genuinely ambiguous):

* Weeks run Monday to Sunday; a weekend is that week's Saturday and Sunday.
* "last Friday" is the most recent Friday strictly before the anchor's day, "next Friday" the
  first one strictly after it, "this Friday" the one in the anchor's week.
* "last weekend" is the weekend of the previous week, "this weekend" of the anchor's week.
* "last summer" is the latest summer that has already ended; seasons are northern-hemisphere
  meteorological seasons (spring Mar-May, summer Jun-Aug, autumn Sep-Nov, winter Dec-Feb) and
  carry granularity "month" with a three-month span.
* Vague quantities are approximate and widened to a range: "a couple of" = 2, "a few" = 2-4,
  "several" = 3-7 units; `approximate` is set and [start, end) covers the whole range.
* A month, weekday or day-month without a year is placed by `prefer`: "past" (the default, as
  most remembered events are) picks the latest occurrence not after the anchor, "future" the
  first not before it.
* "the week before" / "the day before" with nothing after them are read relative to the anchor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from emem.numbers import CARDINALS, ORDINALS
from emem.timeparse import MONTHS

Granularity = Literal["day", "week", "month", "year"]
Prefer = Literal["past", "future"]

_DAY = timedelta(days=1)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_UNIT = {
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    **CARDINALS,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}
_VAGUE = {
    "a couple of": (2, 2),
    "a couple": (2, 2),
    "couple of": (2, 2),
    "a few": (2, 4),
    "few": (2, 4),
    "several": (3, 7),
}


class DateMention(BaseModel):
    """A date expression found in text and the interval [start, end) it denotes."""

    model_config = ConfigDict(frozen=True)

    surface: str
    span: tuple[int, int]
    """Character offsets of `surface` in the text it was found in."""
    start: datetime
    end: datetime
    """Exclusive."""
    granularity: Granularity
    approximate: bool = False

    def label(self) -> str:
        """An absolute rendering ("8 May 2023", "May 2023", "week of 1 May 2023") for readers."""
        last = self.end - _DAY
        if self.granularity == "day" and last.date() == self.start.date():
            text = f"{self.start.day} {self.start:%B %Y}"
        elif self.granularity == "day":
            text = f"{self.start.day} {self.start:%B %Y} to {last.day} {last:%B %Y}"
        elif self.granularity == "week" and self.end - self.start <= 7 * _DAY:
            text = f"week of {self.start.day} {self.start:%B %Y}"
        elif self.granularity == "week":
            text = f"{self.start.day} {self.start:%B %Y} to {last.day} {last:%B %Y}"
        elif self.granularity == "month" and (self.start.year, self.start.month) == (last.year, last.month):
            text = f"{self.start:%B %Y}"
        elif self.granularity == "month":
            text = f"{self.start:%B %Y} to {last:%B %Y}"
        elif self.start.year == last.year:
            text = f"{self.start.year}"
        else:
            text = f"{self.start.year} to {last.year}"
        return f"about {text}" if self.approximate else text


# --- calendar helpers (pure) -------------------------------------------------------------------

Span = tuple[datetime, datetime, Granularity, bool]


def _midnight(anchor: datetime) -> datetime:
    return anchor.replace(hour=0, minute=0, second=0, microsecond=0)


def _date(anchor: datetime, year: int, month: int, day: int = 1) -> datetime:
    return datetime(year, month, day, tzinfo=anchor.tzinfo)


def _add_months(year: int, month: int, k: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + k
    return index // 12, index % 12 + 1


def _day(d: datetime, approx: bool = False) -> Span:
    return d, d + _DAY, "day", approx


def _week(d: datetime, approx: bool = False) -> Span:
    monday = d - d.weekday() * _DAY
    return monday, monday + 7 * _DAY, "week", approx


def _month(anchor: datetime, year: int, month: int, approx: bool = False) -> Span:
    ny, nm = _add_months(year, month, 1)
    return _date(anchor, year, month), _date(anchor, ny, nm), "month", approx


def _year(anchor: datetime, year: int, approx: bool = False) -> Span:
    return _date(anchor, year, 1), _date(anchor, year + 1, 1), "year", approx


def _season(anchor: datetime, season: str, year: int) -> Span:
    """The season that starts in `year` (winter starts in December)."""
    first = _SEASONS[season]
    ey, em = _add_months(year, first, 3)
    return _date(anchor, year, first), _date(anchor, ey, em), "month", False


def _shift(anchor: datetime, unit: str, k: int, approx: bool = False) -> Span:
    """The `unit` (day/week/month/year) that lies `k` units from the anchor's."""
    day = _midnight(anchor)
    if unit == "day":
        return _day(day + k * _DAY, approx)
    if unit == "week":
        return _week(day + 7 * k * _DAY, approx)
    if unit == "month":
        return _month(anchor, *_add_months(anchor.year, anchor.month, k), approx)
    return _year(anchor, anchor.year + k, approx)


def _shift_range(anchor: datetime, unit: str, lo: int, hi: int, approx: bool) -> Span:
    """Covering span from `lo` to `hi` units away (lo <= hi, may be negative)."""
    first, last = _shift(anchor, unit, lo), _shift(anchor, unit, hi)
    return first[0], last[1], first[2], approx


def _pick_year(anchor: datetime, month: int, day: int | None, prefer: Prefer) -> int | None:
    """Year for a month (and day, if given) said without one, per `prefer`."""
    years = (anchor.year, anchor.year - 1) if prefer == "past" else (anchor.year, anchor.year + 1)
    if day is None:
        now = (anchor.year, anchor.month)
        for year in years:
            if (prefer == "past" and (year, month) <= now) or (prefer == "future" and (year, month) >= now):
                return year
        return None
    today = _midnight(anchor)
    for year in years:
        try:
            candidate = _date(anchor, year, month, day)
        except ValueError:
            continue
        if (prefer == "past" and candidate <= today) or (prefer == "future" and candidate >= today):
            return year
    return None


def _count(word: str) -> int | None:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS.get(word)


# --- resolvers: (match, anchor, prefer) -> Span | None -----------------------------------------

Resolver = Callable[[re.Match[str], datetime, Prefer], Span | None]


def _r_iso_day(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    try:
        return _day(_date(anchor, int(m["y"]), int(m["m"]), int(m["d"])))
    except ValueError:
        return None


def _r_iso_month(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    month = int(m["m"])
    return _month(anchor, int(m["y"]), month) if 1 <= month <= 12 else None


def _r_day_month(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    month, day = MONTHS[m["mon"].lower()], int(m["d"])
    year = int(m["y"]) if m["y"] else _pick_year(anchor, month, day, prefer)
    if year is None:
        return None
    try:
        return _day(_date(anchor, year, month, day))
    except ValueError:
        return None


def _r_day_of_month(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """ "on the 27th": that day of the anchor's month, or of the month after (before) it when the
    day has passed (not yet come) for a future (past) reading."""
    day = int(m["d"])
    if not 1 <= day <= 31:
        return None
    year, month = anchor.year, anchor.month
    for _ in range(3):
        try:
            candidate = _date(anchor, year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and (
            (prefer == "future" and candidate.date() >= anchor.date())
            or (prefer == "past" and candidate.date() <= anchor.date())
        ):
            return _day(candidate)
        step = 1 if prefer == "future" else -1
        month += step
        if month == 13:
            year, month = year + 1, 1
        elif month == 0:
            year, month = year - 1, 12
    return None


def _r_day_range(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """ "from the 14th to the 21st of March", "March 3-9": the month said once holds both days."""
    month, first, last = MONTHS[m["mon"].lower()], int(m["d1"]), int(m["d"])
    if not 1 <= first < last <= 31:
        return None
    year = int(m["y"]) if m["y"] else _pick_year(anchor, month, first, prefer)
    if year is None:
        return None
    try:
        return _date(anchor, year, month, first), _date(anchor, year, month, last) + _DAY, "day", False
    except ValueError:
        return None


_PART_OF_MONTH = re.compile(
    r"\b(?P<early>early|beginning|start)|\b(?P<mid>mid|middle)|\b(?P<late>late|end)\b", re.I
)
"""Words that put a date in a third of its month: "at the end of July" is not 1 July."""


def _part_of_month(m: re.Match[str], span: Span) -> Span:
    """`span` (a whole month) narrowed to the third the match names ("early", "mid-", "the end
    of"): days 1-10, 11-20, or 21 to the month's end; else the whole month."""
    part = _PART_OF_MONTH.search(m.group(0))
    if part is None:
        return span
    start, end, granularity, approx = span
    if part["early"]:
        return start, start + 10 * _DAY, granularity, approx
    if part["mid"]:
        return start + 10 * _DAY, start + 20 * _DAY, granularity, approx
    return start + 20 * _DAY, end, granularity, approx


def _r_month_year(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    return _part_of_month(m, _month(anchor, int(m["y"]), MONTHS[m["mon"].lower()]))


def _r_month(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    span = _r_whole_month(m, anchor, prefer)
    return None if span is None else _part_of_month(m, span)


def _r_whole_month(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    month = MONTHS[m["mon"].lower()]
    which = (m.groupdict().get("which") or "").lower()
    if which == "this":
        return _month(anchor, anchor.year, month)
    if which == "last":
        return _month(anchor, anchor.year if month < anchor.month else anchor.year - 1, month)
    if which == "next":
        return _month(anchor, anchor.year if month > anchor.month else anchor.year + 1, month)
    year = _pick_year(anchor, month, None, prefer)
    return None if year is None else _month(anchor, year, month)


_NTH_WEEK = {w: ORDINALS[w] - 1 for w in ("first", "second", "third", "fourth")}
"""Weeks counted from a month's start (0: its first seven days)."""


def _r_week_of_month(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """ "the last week of July": its seven days, not last week, and not all of July."""
    span = _r_whole_month(m, anchor, prefer)
    if span is None:
        return None
    start, end, _granularity, approx = span
    nth = m["nth"].lower()
    if nth in _NTH_WEEK:
        start = start + 7 * _NTH_WEEK[nth] * _DAY
        return start, start + 7 * _DAY, "week", approx
    return end - 7 * _DAY, end, "week", approx


def _r_month_of_year_said(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    year = anchor.year + {"next": 1, "this": 0, "last": -1}[m["rel"].lower()]
    return _month(anchor, year, MONTHS[m["mon"].lower()])


def _r_year(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    return _year(anchor, int(m["y"]))


def _r_named_day(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    offsets = {
        "yesterday": -1,
        "last night": -1,
        "today": 0,
        "tonight": 0,
        "this morning": 0,
        "this afternoon": 0,
        "this evening": 0,
        "earlier today": 0,
        "tomorrow": 1,
        "the day before yesterday": -2,
        "the day after tomorrow": 2,
    }
    key = re.sub(r"\s+", " ", m[0].lower())
    return _day(_midnight(anchor) + offsets[key] * _DAY)


def _r_relative_unit(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """last/this/next/past/coming + week/weekend/month/year."""
    which, unit = m["which"].lower().split()[-1], m["unit"].lower()
    k = {"last": -1, "past": -1, "this": 0, "next": 1, "coming": 1}[which]
    if unit == "weekend":
        if m["which"].lower() == "this past":
            k = 0 if anchor.weekday() >= 5 else -1
        saturday = _week(_midnight(anchor) + 7 * k * _DAY)[0] + 5 * _DAY
        return saturday, saturday + 2 * _DAY, "day", False
    if which == "past" and m["which"].lower() != "this past":
        # "the past month": a rolling window ending at the anchor's day.
        days = {"week": 7, "month": 30, "year": 365}[unit]
        end = _midnight(anchor) + _DAY
        return end - days * _DAY, end, unit, unit != "week"  # type: ignore[return-value]
    return _shift(anchor, unit, k)


def _r_weekend(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """'over the weekend' / 'on the weekend': the closest weekend in the preferred direction."""
    day = _midnight(anchor)
    if prefer == "past":
        k = 0 if anchor.weekday() >= 5 else -1
    else:
        k = 0 if anchor.weekday() < 5 else 1
    saturday = _week(day + 7 * k * _DAY)[0] + 5 * _DAY
    return saturday, saturday + 2 * _DAY, "day", False


def _r_edge_of_unit(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """'earlier this week' / 'later this month': the anchor's unit."""
    return _shift(anchor, m["unit"].lower(), 0)


def _r_end_of_unit(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    """'at the end of the year' / 'by the end of next month': the last day of that unit."""
    which = (m["which"] or "this").lower()
    unit = m["unit"].lower()
    k = {"this": 0, "the": 0, "next": 1, "last": -1}.get(which, 0)
    _, end, _, _ = _shift(anchor, unit, k)
    return _day(end - _DAY, True)


def _r_ago(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    unit = _UNIT[m["unit"].lower()]
    qty = re.sub(r"\s+", " ", m["n"].lower())
    if qty in _VAGUE:
        lo, hi = _VAGUE[qty]
        return _shift_range(anchor, unit, -hi, -lo, True)
    n = _count(qty)
    return None if n is None else _shift(anchor, unit, -n)


def _r_ahead(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    unit = _UNIT[m["unit"].lower()]
    qty = re.sub(r"\s+", " ", m["n"].lower())
    if qty in _VAGUE:
        lo, hi = _VAGUE[qty]
        return _shift_range(anchor, unit, lo, hi, True)
    n = _count(qty)
    return None if n is None else _shift(anchor, unit, n)


def _r_weekday(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    target = _WEEKDAYS.index(m["wd"].lower())
    which = re.sub(r"\s+", " ", (m["which"] or "").lower())
    today = _midnight(anchor)
    back = (anchor.weekday() - target) % 7 or 7  # days back to the previous such weekday
    ahead = (target - anchor.weekday()) % 7 or 7
    if which == "this":
        return _day(today + (target - anchor.weekday()) * _DAY)
    if which in ("last", "this past"):
        return _day(today - back * _DAY)
    if which in ("next", "this coming", "coming"):
        return _day(today + ahead * _DAY)
    return _day(today - back * _DAY if prefer == "past" else today + ahead * _DAY)


def _r_season(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    season = m["season"].lower()
    which = (m.groupdict().get("which") or "").lower()
    if m["y"]:
        return _season(anchor, season, int(m["y"]))
    instances = [_season(anchor, season, y) for y in range(anchor.year - 2, anchor.year + 2)]
    if which == "last":
        return [s for s in instances if s[1] <= anchor][-1]
    if which == "next":
        return [s for s in instances if s[0] > anchor][0]
    if which == "this":
        current = [s for s in instances if s[0] <= anchor < s[1]]
        if current:
            return current[0]
        return [s for s in instances if s[0].year == anchor.year][0]
    if prefer == "past":
        return [s for s in instances if s[0] <= anchor][-1]
    return [s for s in instances if s[1] > anchor][0]


def _r_unit_before(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    unit = m["unit"].lower()
    k = -1 if m["dir"].lower() == "before" else 1
    span = _shift(anchor, unit, k)
    return span[0], span[1], span[2], True


def _r_other_day(m: re.Match[str], anchor: datetime, prefer: Prefer) -> Span | None:
    today = _midnight(anchor)
    return today - 7 * _DAY, today, "week", True


# --- the table -----------------------------------------------------------------------------------

_MONTH_NAMES = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Sept|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
)
# Month names must be capitalised where they are also ordinary words ("may", "march"); people
# typing in lower case still write "in july", "since january".
_LOWER_MONTHS = "january|february|april|june|july|august|september|october|november|december|sept"
_MON = rf"(?P<mon>(?-i:{_MONTH_NAMES}|{_LOWER_MONTHS}))\.?"
_FULL_MON = (
    r"(?P<mon>(?-i:January|February|March|April|May|June|July|August|September|October|November|December|"
    rf"{_LOWER_MONTHS.removesuffix('|sept')}))"
)
_YEAR = r"(?P<y>(?:19|20)\d{2})"
_NUM = r"(?:\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)"
_QTY = rf"(?P<n>{_NUM}|a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several)"
_UNITS = r"(?P<unit>days?|weeks?|months?|years?)"
_WD = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?!s)"

_ORD = r"(?:st|nd|rd|th)?"
_TO = r"\s*(?:-|–|to|till|until|through|and)\s*"
_TABLE: list[tuple[str, Resolver]] = [
    (  # a range of days of one month: "from the 14th to the 21st of March", "14-21 March"
        rf"\b(?:(?:from|between)\s+)?(?:the\s+)?(?P<d1>\d{{1,2}}){_ORD}{_TO}(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}"
        rf"(?:\s+of)?\s+{_MON}(?:,?\s+{_YEAR})?\b",
        _r_day_range,
    ),
    (  # "from March 14th to 21st", "March 3-9"
        rf"\b(?:(?:from|between)\s+)?{_MON}\s+(?:the\s+)?(?P<d1>\d{{1,2}}){_ORD}{_TO}(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}"
        rf"(?!\d)(?:,?\s+{_YEAR})?\b",
        _r_day_range,
    ),
    (rf"\b{_YEAR}-(?P<m>\d{{2}})-(?P<d>\d{{2}})\b", _r_iso_day),
    (rf"\b{_YEAR}/(?P<m>\d{{1,2}})/(?P<d>\d{{1,2}})\b", _r_iso_day),
    (rf"\b{_YEAR}-(?P<m>\d{{2}})\b(?!-)", _r_iso_month),
    (
        rf"\b(?:on\s+)?(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MON}(?:,?\s+{_YEAR})?\b",
        _r_day_month,
    ),
    (
        rf"\b(?:on\s+)?{_MON}\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+{_YEAR})?\b",
        _r_day_month,
    ),
    (rf"\b(?:(?:in|during|since|by|of)\s+)?(?:(?:early|late|mid-?)\s*)?{_MON},?\s+{_YEAR}\b", _r_month_year),
    (
        r"\b(?:on|from|until|till|by)\s+the\s+(?P<d>\d{1,2})(?:st|nd|rd|th)\b"
        r"(?!\s+(?:floor|time|go|attempt|try|place|row|grade|lap|hole|round|stop|page|anniversary|birthday|"
        r"century|day|week|year)\b)"
        rf"(?!\s+(?:of\s+)?{_FULL_MON})",  # "by the 12th of January": the date said whole
        _r_day_of_month,
    ),
    (
        rf"\b(?:the\s+)?(?P<nth>first|second|third|fourth|last|final)\s+week\s+(?:of|in)\s+{_FULL_MON}\b(?!\s*\d)",
        _r_week_of_month,
    ),
    (
        rf"\b(?:(?:in|during|since|by|until|till|from|for)\s+(?:(?:early|late|mid-?)\s*)?|(?P<which>last|this|next)\s+"
        rf"|(?:early|late|mid-?)\s*|(?:the\s+)?(?:end|beginning|start|middle)\s+of\s+){_FULL_MON}\b(?!\s*\d)",
        _r_month,
    ),
    (  # "March next year": the month of the year said after it
        rf"\b{_FULL_MON}\s+(?P<rel>next|this|last)\s+year\b",
        _r_month_of_year_said,
    ),
    (
        rf"\b(?:(?:back\s+)?in|during|since|of|around|from|until|till|by)\s+(?:(?:early|late|mid-?)\s*)?{_YEAR}\b",
        _r_year,
    ),
    (  # "Deferring to 2031", "pushed it back to 2032"
        rf"\b(?:deferr\w*|postpon\w*|push\w*(?:\s+(?:it|them))?(?:\s+back)?|put\s+(?:it\s+)?off|delay\w*|mov\w+\s+(?:it|them))"
        rf"\s+(?:to|until|till)\s+{_YEAR}\b",
        _r_year,
    ),
    (
        r"\b(?:the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow"
        r"|this\s+(?:morning|afternoon|evening)|last\s+night|earlier\s+today)\b",
        _r_named_day,
    ),
    (
        r"\b(?P<which>this\s+past|last|this|next|past|coming)\s+(?P<unit>weekend|week|month|year)\b",
        _r_relative_unit,
    ),
    (r"\b(?:over|on|during)\s+the\s+weekend\b", _r_weekend),
    (r"\b(?:earlier|later)\s+this\s+(?P<unit>week|month|year)\b", _r_edge_of_unit),
    (
        r"\b(?:(?:at|by|until|till|before|from)\s+)?the\s+end\s+of\s+(?P<which>the|this|next|last)\s+"
        r"(?P<unit>week|month|year)\b",
        _r_end_of_unit,
    ),
    (rf"\b{_QTY}\s+{_UNITS}\s+(?:ago|back|earlier)\b", _r_ago),
    (rf"\bin\s+{_QTY}\s+{_UNITS}\b(?!\s+(?:ago|old))", _r_ahead),
    (rf"\b{_QTY}\s+{_UNITS}\s+from\s+now\b", _r_ahead),
    (rf"\b(?:(?P<which>this\s+past|this\s+coming|last|this|next|coming|on)\s+)?{_WD}\b", _r_weekday),
    (
        rf"\b(?:(?P<which>last|this|next)\s+|(?:in|during|over)\s+the\s+)?(?P<season>spring|summer|autumn|fall|winter)"
        rf"(?:\s+(?:of\s+)?{_YEAR})?\b",
        _r_season,
    ),
    (
        r"\bthe\s+(?P<unit>day|week|month|year)\s+(?P<dir>before|after)\b"
        r"(?!\s+(?:the|my|our|his|her|their|a|an|that|this|last|we|I|he|she|they)\b)",
        _r_unit_before,
    ),
    (r"\bthe\s+other\s+day\b", _r_other_day),
]
_COMPILED = [(re.compile(p, re.IGNORECASE), r) for p, r in _TABLE]


_LOWER_AMBIGUOUS = re.compile(
    r"(?P<pre>\b(?i:in|since|by|until|till|from|early|late|mid-?|(?:the\s+)?(?:end|start|beginning|middle)\s+of)"
    r"\s+)(?P<m>march)\b(?!\s+(?:on|in|to|through|past|down|up|into|out)\b)"
    r"|(?P<pre2>\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)(?P<m3>march|may)\b"
    r"|\b(?P<m2>march|may)(?=\s+\d{1,2}(?:st|nd|rd|th)?\b)"
)
"""Lower-case "march" and "may" where only a month fits: after a day number ("since 15 march",
"the 3rd of may") or before one ("may 3rd"), and "march" after a preposition of time ("moving in
march"). "we met in may" stays a modal verb's company: "may" is too common a word to guess."""


def _unambiguous_months(text: str) -> str:
    """`text` with lower-case "march"/"may" capitalised where they can only be months (same length,
    so spans stay valid); "you may", "we march on" are left alone."""
    return _LOWER_AMBIGUOUS.sub(
        lambda m: (
            (m.group("pre") or m.group("pre2") or "")
            + (m.group("m") or m.group("m2") or m.group("m3")).capitalize()
        ),
        text,
    )


def find_date_mentions(text: str, anchor: datetime, prefer: Prefer = "past") -> list[DateMention]:
    """Every date expression in `text`, resolved against `anchor`, left to right, non-overlapping.

    Where two expressions overlap, the one starting first wins, then the longer one. Memoised
    (`DATE_MENTION_CACHE` texts; a new list each call): the offline reader dates the same
    evidence turns ask after ask, ~3% of a deep ask at ten LoCoMo conversations."""
    if anchor.tzinfo is None:
        raise ValueError("anchor must be timezone-aware")
    # Equal datetimes in other zones resolve differently ("yesterday" is a local day): the wall
    # time and zone are part of the key, not only the instant `datetime.__eq__` compares.
    return list(_date_mentions(text, anchor, prefer, (anchor.isoformat(), repr(anchor.tzinfo))))


DATE_MENTION_CACHE = 16_384
"""(text, anchor, direction) triples whose date mentions `find_date_mentions` remembers."""


def forget_date_mentions() -> None:
    """Drop the memoised date mentions (they hold the text of turns that may be erased)."""
    _date_mentions.cache_clear()


_SINCE = re.compile(r"since\b", re.IGNORECASE)
_SINCE_BEFORE = re.compile(r"\bsince\s+$", re.IGNORECASE)


@lru_cache(maxsize=DATE_MENTION_CACHE)
def _date_mentions(
    text: str, anchor: datetime, prefer: Prefer, zone: tuple[str, str]
) -> tuple[DateMention, ...]:
    text = _unambiguous_months(text)
    found: list[tuple[int, int, Span]] = []
    for pattern, resolve in _COMPILED:
        for m in pattern.finditer(text):
            # "since mid-August" is behind whatever the clause looks ahead to
            since = _SINCE.match(m.group(0)) or _SINCE_BEFORE.search(text, 0, m.start())
            span = resolve(m, anchor, "past" if since else prefer)
            if span is not None:
                found.append((m.start(), m.end(), span))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    out: list[DateMention] = []
    taken_to = -1
    for start, end, (s, e, gran, approx) in found:
        if start < taken_to:
            continue
        out.append(
            DateMention(
                surface=text[start:end],
                span=(start, end),
                start=s,
                end=e,
                granularity=gran,
                approximate=approx,
            )
        )
        taken_to = end
    return tuple(out)


def resolve_relative_date(text: str, anchor: datetime, prefer: Prefer = "past") -> DateMention | None:
    """The first date expression in `text` (e.g. "last Friday"), or None if there is none."""
    mentions = find_date_mentions(text, anchor, prefer)
    return mentions[0] if mentions else None
