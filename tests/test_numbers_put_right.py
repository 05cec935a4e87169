"""A number taken back later (session 31): "The fee is $1,400" then, a session on, "the exam fee
is $1,900, not $1,400" or "I told you 40 kilos. It was 14": the reader's number is put right."""

from __future__ import annotations

from said import spoken

from emem.agents.corrections import number_put_right


def test_a_number_taken_back_inline_or_by_a_correction_is_put_right() -> None:
    q = "How much is the Advanced Sommelier exam fee?"
    told = [
        spoken("I'm sitting the Advanced Sommelier exam in August. The fee is $1,400, which hurts.", 3),
        spoken("Correction from last time - the exam fee is $1,900, not $1,400.", 5),
    ]
    assert number_put_right(q, "$1,400", told) == "$1,900"
    q = "How much foundation wax did I order?"
    told = [
        spoken("And I've ordered 40 kilos of foundation wax for next season.", 5),
        spoken("Correction. I told you I ordered 40 kilos of wax. It was 14.", 8),
    ]
    assert number_put_right(q, "40 kilos", told) == "14 kilos"


def test_a_number_nobody_takes_back_stands() -> None:
    q = "How much is the exam fee?"
    told = [spoken("The fee is $1,400.", 3), spoken("The hotel is $200 a night, not $250.", 5)]
    assert number_put_right(q, "$1,400", told) is None
    # a correction said before the number was given takes nothing back
    told = [spoken("The exam fee is $1,900, not $1,400.", 3), spoken("The fee is $1,400 after all.", 5)]
    assert number_put_right(q, "$1,400", told) is None
    # only a number is read
    assert number_put_right(q, "the one in August", told) is None
