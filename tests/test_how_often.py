"""How often something happens, answered with the frequency said of it, the latest one, put right
in the next breath or said later of the same person in other words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from said import spoken

from emem.agents.frequency import frequency_answer


@pytest.mark.parametrize(
    ("question", "turns", "answer"),
    [
        ("How often do I swim?", ["I swim twice a week at the lido."], "twice a week"),
        (
            "How often am I on call?",
            ["I'm on call one weekend in three.", "New rota: on call is one weekend in five now."],
            "one weekend in five",
        ),
        (
            "How often is Maud on nights?",
            ["Maud is on nights every third week. Fourth, actually."],
            "every fourth week",
        ),
        (
            "How often do I see my physio?",
            [
                "My physio is Dr. Okafor, I see her every two weeks.",
                "Dr. Okafor says every month is fine now.",
            ],
            "every month",
        ),
        ("How often do we get the veg box?", ["We get the veg box fortnightly."], "fortnightly"),
    ],
)
def test_the_latest_frequency_said_of_it(question: str, turns: list[str], answer: str) -> None:
    evidence = [spoken(t, month) for month, t in enumerate(turns, 1)]
    assert answer in (frequency_answer(question, evidence) or "")


def test_a_period_asked_about_reads_what_was_said_by_then() -> None:
    evidence = [spoken("I swim twice a week.", 1), spoken("I swim every day now.", 6)]
    assert frequency_answer(
        "How often did I swim in March?", evidence, datetime(2025, 3, 31, tzinfo=UTC)
    ) == ("twice a week")


def test_nothing_when_no_frequency_is_said_or_asked() -> None:
    assert frequency_answer("How often do I swim?", [spoken("I love swimming.", 1)]) is None
    assert frequency_answer("Where do I swim?", [spoken("I swim twice a week.", 1)]) is None


def test_several_weekdays_said_as_one_habit() -> None:
    evidence = [spoken("I swim on Mondays, Wednesdays and Fridays with the masters group.", 1)]
    assert frequency_answer("How often do I swim?", evidence) == "on Mondays, Wednesdays and Fridays"
