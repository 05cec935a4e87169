"""Relative dates resolved against fixed anchors (never the clock)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from emem.extract.dates import find_date_mentions, resolve_relative_date

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # Monday 8 May 2023
SATURDAY = datetime(2023, 5, 13, 9, 0, tzinfo=UTC)


def span(text: str, anchor: datetime = MONDAY, prefer: str = "past") -> tuple[date, date, str]:
    m = resolve_relative_date(text, anchor, prefer)  # type: ignore[arg-type]
    assert m is not None, text
    return m.start.date(), m.end.date(), m.granularity


@pytest.mark.parametrize(
    ("text", "start", "end", "gran"),
    [
        ("yesterday", date(2023, 5, 7), date(2023, 5, 8), "day"),
        ("today", date(2023, 5, 8), date(2023, 5, 9), "day"),
        ("last night", date(2023, 5, 7), date(2023, 5, 8), "day"),
        ("tomorrow", date(2023, 5, 9), date(2023, 5, 10), "day"),
        ("the day before yesterday", date(2023, 5, 6), date(2023, 5, 7), "day"),
        ("last week", date(2023, 5, 1), date(2023, 5, 8), "week"),
        ("next week", date(2023, 5, 15), date(2023, 5, 22), "week"),
        ("last weekend", date(2023, 5, 6), date(2023, 5, 8), "day"),
        ("this weekend", date(2023, 5, 13), date(2023, 5, 15), "day"),
        ("next month", date(2023, 6, 1), date(2023, 7, 1), "month"),
        ("last month", date(2023, 4, 1), date(2023, 5, 1), "month"),
        ("last year", date(2022, 1, 1), date(2023, 1, 1), "year"),
        ("two years ago", date(2021, 1, 1), date(2022, 1, 1), "year"),
        ("3 days ago", date(2023, 5, 5), date(2023, 5, 6), "day"),
        ("a week ago", date(2023, 5, 1), date(2023, 5, 8), "week"),
        ("last Friday", date(2023, 5, 5), date(2023, 5, 6), "day"),
        ("next Tuesday", date(2023, 5, 9), date(2023, 5, 10), "day"),
        ("this Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
        ("in May", date(2023, 5, 1), date(2023, 6, 1), "month"),
        ("in March", date(2023, 3, 1), date(2023, 4, 1), "month"),
        ("May 2022", date(2022, 5, 1), date(2022, 6, 1), "month"),
        ("on 8 May", date(2023, 5, 8), date(2023, 5, 9), "day"),
        ("May 8, 2022", date(2022, 5, 8), date(2022, 5, 9), "day"),
        ("the 3rd of March", date(2023, 3, 3), date(2023, 3, 4), "day"),
        ("in 2019", date(2019, 1, 1), date(2020, 1, 1), "year"),
        ("last summer", date(2022, 6, 1), date(2022, 9, 1), "month"),
        ("last winter", date(2022, 12, 1), date(2023, 3, 1), "month"),
        ("the summer of 2021", date(2021, 6, 1), date(2021, 9, 1), "month"),
        ("the week before", date(2023, 5, 1), date(2023, 5, 8), "week"),
        ("2023-04-01", date(2023, 4, 1), date(2023, 4, 2), "day"),
        ("2022-11", date(2022, 11, 1), date(2022, 12, 1), "month"),
        ("in two weeks", date(2023, 5, 22), date(2023, 5, 29), "week"),
        ("earlier this month", date(2023, 5, 1), date(2023, 6, 1), "month"),
    ],
)
def test_resolves_against_the_anchor(text: str, start: date, end: date, gran: str) -> None:
    assert span(text) == (start, end, gran)


def test_vague_quantities_are_approximate_ranges() -> None:
    few = resolve_relative_date("a few weeks ago", MONDAY)
    assert few is not None and few.approximate
    # "a few" = 2 to 4 weeks back, whole weeks.
    assert (few.start.date(), few.end.date()) == (date(2023, 4, 10), date(2023, 5, 1))
    couple = resolve_relative_date("a couple of months ago", MONDAY)
    assert couple is not None and couple.approximate
    assert (couple.start.date(), couple.end.date(), couple.granularity) == (
        date(2023, 3, 1),
        date(2023, 4, 1),
        "month",
    )


def test_weekend_depends_on_the_anchor_weekday() -> None:
    assert span("last weekend", SATURDAY)[:2] == (date(2023, 5, 6), date(2023, 5, 8))
    assert span("this weekend", SATURDAY)[:2] == (date(2023, 5, 13), date(2023, 5, 15))
    assert span("over the weekend", MONDAY)[:2] == (date(2023, 5, 6), date(2023, 5, 8))


def test_prefer_future_places_months_and_weekdays_forward() -> None:
    assert span("in March", MONDAY, "future")[:2] == (date(2024, 3, 1), date(2024, 4, 1))
    assert span("in June", MONDAY, "future")[:2] == (date(2023, 6, 1), date(2023, 7, 1))
    assert span("on Friday", MONDAY, "future")[:2] == (date(2023, 5, 12), date(2023, 5, 13))
    assert span("on Friday", MONDAY, "past")[:2] == (date(2023, 5, 5), date(2023, 5, 6))


def test_since_looks_back_even_where_the_clause_looks_ahead() -> None:
    said = datetime(2031, 9, 14, tzinfo=UTC)
    [since] = find_date_mentions("I've been driving for Tanner's since mid-August.", said, "future")
    assert since.start.date() == date(2031, 8, 11)
    [since] = find_date_mentions("at the depot since August", said, "future")
    assert since.start.date() == date(2031, 8, 1)
    # without "since" a future reading still goes ahead
    [ahead] = find_date_mentions("starting in August", said, "future")
    assert ahead.start.year == 2032


def test_ordinary_words_are_not_dates() -> None:
    for text in (
        "I may go there",
        "we march on",
        "I love Fridays",
        "I'm 5 minutes away",
        "the week before the wedding",
        "I sold 2019 copies",
    ):
        assert find_date_mentions(text, MONDAY) == [], text


def test_finds_every_mention_with_exact_spans() -> None:
    text = "I moved here last year and started my job 3 days ago, before the trip in June."
    mentions = find_date_mentions(text, MONDAY)
    assert [m.surface for m in mentions] == ["last year", "3 days ago", "in June"]
    for m in mentions:
        assert text[m.span[0] : m.span[1]] == m.surface


def test_keeps_the_anchor_timezone_and_refuses_naive_anchors() -> None:
    tz = timezone(timedelta(hours=-5))
    m = resolve_relative_date("yesterday", datetime(2023, 5, 8, 23, 30, tzinfo=tz))
    assert m is not None and m.start == datetime(2023, 5, 7, tzinfo=tz)
    with pytest.raises(ValueError):
        find_date_mentions("yesterday", datetime(2023, 5, 8))


def test_impossible_dates_are_skipped() -> None:
    assert resolve_relative_date("on 31 February", MONDAY) is None


def test_labels_are_absolute() -> None:
    labels = {t: resolve_relative_date(t, MONDAY).label() for t in ("yesterday", "next month", "in 2019")}  # type: ignore[union-attr]
    assert labels == {"yesterday": "7 May 2023", "next month": "June 2023", "in 2019": "2019"}
    assert resolve_relative_date("a few weeks ago", MONDAY).label().startswith("about ")  # type: ignore[union-attr]


def test_is_a_pure_function_of_its_inputs() -> None:
    assert find_date_mentions("last Friday", MONDAY) == find_date_mentions("last Friday", MONDAY)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("at the end of July", date(2023, 7, 21), date(2023, 8, 1)),
        ("in early March 2024", date(2024, 3, 1), date(2024, 3, 11)),
        ("mid-June", date(2023, 6, 11), date(2023, 6, 21)),
        ("the beginning of September", date(2023, 9, 1), date(2023, 9, 11)),
        ("in July", date(2023, 7, 1), date(2023, 8, 1)),
    ],
)
def test_a_part_of_a_month_is_that_third_of_it(text: str, start: date, end: date) -> None:
    """ "At the end of July" is not 1 July: a move said so must not be current on the 15th."""
    assert span(text, MONDAY, "future") == (start, end, "month")


def test_a_month_of_a_year_said_after_it_and_a_year_deferred_to() -> None:
    labels = {
        t: [m.label() for m in find_date_mentions(t, MONDAY, "future")]
        for t in ("They're thinking March next year.", "Deferring to 2026.", "We pushed it back to 2027.")
    }
    assert labels == {
        "They're thinking March next year.": ["March 2024"],
        "Deferring to 2026.": ["2026"],
        "We pushed it back to 2027.": ["2027"],
    }
    assert find_date_mentions("up to 2000 people came", MONDAY) == []
    whole = find_date_mentions("How many had I sold by the 12th of January?", MONDAY)
    assert [m.surface for m in whole] == ["the 12th of January"]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("We're off to Porto from the 14th to the 21st of June.", date(2023, 6, 14), date(2023, 6, 22)),
        ("away from 3 to 9 July", date(2023, 7, 3), date(2023, 7, 10)),
        ("between the 2nd and the 5th of September", date(2023, 9, 2), date(2023, 9, 6)),
        ("from June 14th to 21st", date(2023, 6, 14), date(2023, 6, 22)),
        ("the festival, August 3-6 2024", date(2024, 8, 3), date(2024, 8, 7)),
    ],
)
def test_a_range_of_days_takes_the_month_said_once(text: str, start: date, end: date) -> None:
    mentions = find_date_mentions(text, MONDAY, "future")
    assert [(m.start.date(), m.end.date()) for m in mentions] == [(start, end)]


def test_a_range_that_runs_backwards_is_no_range() -> None:
    mentions = find_date_mentions("from the 21st to the 14th of June", MONDAY, "future")
    assert mentions and all(m.end - m.start == timedelta(days=1) for m in mentions)
