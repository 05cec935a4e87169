from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from emem.errors import InputError
from emem.timeparse import parse_iso_time, parse_locomo_time

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
LOCOMO_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10.json"


def test_every_locomo_style_date_string_parses() -> None:
    """Every hour, minute class, am/pm, day and month the LoCoMo pattern allows."""
    count = 0
    for month_index, month in enumerate(MONTHS, start=1):
        for day in range(1, 29):
            for hour in range(1, 13):
                for ampm in ("am", "pm"):
                    minute = (day * 7 + hour) % 60
                    text = f"{hour}:{minute:02d} {ampm} on {day} {month}, 2023"
                    expected_hour = hour % 12 + (12 if ampm == "pm" else 0)
                    assert parse_locomo_time(text) == datetime(
                        2023, month_index, day, expected_hour, minute, tzinfo=UTC
                    )
                    count += 1
    assert count == 12 * 28 * 24


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:00 am on 1 January, 2022", datetime(2022, 1, 1, 0, 0, tzinfo=UTC)),
        ("12:30 pm on 31 December, 2022", datetime(2022, 12, 31, 12, 30, tzinfo=UTC)),
        ("9:05 AM on 29 February, 2024", datetime(2024, 2, 29, 9, 5, tzinfo=UTC)),
    ],
)
def test_locomo_edge_cases(text: str, expected: datetime) -> None:
    assert parse_locomo_time(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "13:00 pm on 8 May, 2023",
        "1:56 pm on 30 February, 2023",
        "1:56 pm on 8 Mayo, 2023",
        "1:61 pm on 8 May, 2023",
        "2023-05-08",
    ],
)
def test_bad_locomo_dates_are_errors_not_now(text: str) -> None:
    with pytest.raises(InputError):
        parse_locomo_time(text, "session_1_date_time")


@pytest.mark.skipif(not LOCOMO_DATA.exists(), reason="LoCoMo data not present at ../shared/data")
def test_all_session_dates_of_the_real_locomo_file_parse() -> None:
    samples = json.loads(LOCOMO_DATA.read_text())
    values = [
        v for s in samples for k, v in s["conversation"].items() if re.fullmatch(r"session_\d+_date_time", k)
    ]
    assert len(values) >= 272  # some samples carry date keys for sessions they do not include
    parsed = [parse_locomo_time(v) for v in values]
    assert all(p.tzinfo is UTC for p in parsed)


def test_iso_times() -> None:
    assert parse_iso_time("2023-05-08T13:56:00Z") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_iso_time("2023-05-08T15:56:00+02:00") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_iso_time("2023-05-08") == datetime(2023, 5, 8, tzinfo=UTC)
    for bad in ["", "soon", "2023-02-30", None, 5]:
        with pytest.raises(InputError):
            parse_iso_time(bad, "time")
