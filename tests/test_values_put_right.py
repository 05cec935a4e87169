"""Values put right: a repair said value first ("nine in care. Eleven, sorry"), a number under
twenty in words put right ("eighteen a week. Sorry, twenty"), a day put right into the date it
takes back ("the 9th of July. It's the 19th"), an age put right in words, and the year something
was built, put right in a later turn."""

from __future__ import annotations

import pytest
from said import spoken

from emem.agents.corrections import correction_in
from emem.agents.stated import age_in, origin_year, with_day_of
from emem.repairs import repaired


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "We've got seven ewes left. Nine, sorry, I forgot the two in the top field.",
            "We've got nine ewes left. I forgot the two in the top field.",
        ),
        (
            "The mill was rebuilt in 1874. 1847, I mean, after the fire.",
            "The mill was rebuilt in 1847. After the fire.",
        ),
        (
            "I cycle about fourteen miles a day. Sorry, forty, it's a long way.",
            "I cycle about forty miles a day. It's a long way.",
        ),
    ],
)
def test_a_value_put_right_is_read_as_meant(said: str, meant: str) -> None:
    assert repaired(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "I have two kids. Sorry, one of them is at uni.",  # a new statement, not a repair
        "Five, sorry, I was miles away.",  # nothing before it to put right
        "It was built in 1874. 12, sorry, I mean the house number.",  # not the same kind of number
    ],
)
def test_what_is_no_repair_is_left_assaid(said: str) -> None:
    assert repaired(said) == said


def test_a_day_put_right_keeps_the_month_it_takes_back() -> None:
    c = correction_in("I told you Bryn's birthday was the 3rd of March. It's the 13th, silly me.")
    assert c is not None
    assert with_day_of(c).startswith("It's the 13th of March")


def test_an_age_in_words() -> None:
    assert age_in("She's nineteen now") == "19"
    assert age_in("He turned twenty-two in May") == "22"
    assert age_in("No idea") is None


def test_the_year_something_was_built_is_the_latest_said() -> None:
    told = [
        spoken("The chapel was built in 1761, I've been reading up.", 2),
        spoken("I told you the chapel was built in 1761. It's 1716, I misread the board.", 6),
    ]
    assert origin_year(told) == "1716"
    assert origin_year(told[:1]) == "1761"
    assert origin_year([spoken("We opened the shop on a Tuesday.", 3)]) is None


def test_a_price_in_pence_is_a_sum() -> None:
    from emem.agents.amounts import money_in

    assert money_in("They pay 38.5p a litre now.") == "38.5p a litre"
    assert money_in("Stamps went up to 85 pence.") == "85 pence"
    assert money_in("We left at 3p.m. sharp.") is None
