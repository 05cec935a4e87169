"""Birthdays asked about by whose they are, when dates were mixed up and put right in one breath
or a recap gives each person theirs."""

from __future__ import annotations

import pytest
from said import spoken

from emem.agents.birthdays import asks_birthday_of, birthday_answer
from emem.answer import EvidenceItem

MIXED = spoken(
    "Ruaridh's birthday is the 5th of March. Wait, no, that's his dad's. Ruaridh's is the 25th of March. "
    "His dad's is the 5th.",
    2,
)
REPAIRED = spoken("The boys' birthday is the 4th of October. Sorry - the 14th. The 4th is Orla's.", 3)


@pytest.mark.parametrize(
    ("question", "evidence", "date"),
    [
        ("When is Ruaridh's dad's birthday?", [MIXED], "5 March"),
        ("When is Ruaridh's birthday?", [MIXED], "25 March"),
        ("When is Orla's birthday?", [REPAIRED], "4 October"),
        ("When is the boys' birthday?", [REPAIRED], "14 October"),
        # a later recap gives each their own
        (
            "When is Ruaridh's dad's birthday?",
            [MIXED, spoken("Ruaridh 25 March, his dad 5 March.", 4, "assistant")],
            "5 March",
        ),
    ],
)
def test_the_date_bound_to_exactly_that_person(
    question: str, evidence: list[EvidenceItem], date: str
) -> None:
    assert birthday_answer(question, evidence) == date


def test_only_someone_named_is_read() -> None:
    assert asks_birthday_of("When is Orla's birthday?") == "Orla"
    assert asks_birthday_of("When is my birthday?") is None
    assert birthday_answer("When is Niamh's birthday?", [MIXED]) is None


def test_a_later_turn_putting_it_right_in_other_words_is_left_to_the_corrections() -> None:
    told = spoken("Don't let me forget Ines's birthday, the 12th of May.", 1)
    corrected = spoken("I told you Ines's birthday was the 12th of May. Wrong: it's the 21st.", 5)
    assert birthday_answer("When is Ines's birthday?", [told]) == "12 May"
    assert birthday_answer("When is Ines's birthday?", [told, corrected]) is None
