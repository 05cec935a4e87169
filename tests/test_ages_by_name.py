"""Ages asked about by name ("How old is Pepper?"), read from the sentence that binds an age to
the name: a relative clause, a pronoun in the next clause or sentence, a recap, "N years old"."""

from __future__ import annotations

import pytest
from said import spoken

from emem.agents.ages import age_answer, age_said, asks_age_of

TWO_PETS = (
    "At home there's my dog Pepper, a lurcher who's nine and afraid of bins, and my brother's "
    "rabbit Nutmeg, who's two and eats cables."
)


@pytest.mark.parametrize(
    ("text", "name", "age"),
    [
        (TWO_PETS, "Pepper", "9"),
        (TWO_PETS, "Nutmeg", "2"),
        # the contraction straight after the name, after another child's age
        ("Eleven. No, twelve, he hates being called eleven. Maren's six.", "Maren", "6"),
        ("We foster a pony called Juno at the farm; she's seventeen and greedy.", "Juno", "17"),
        ("Still in Leith with Bramble. He's a beagle, eleven years old, and hates rain.", "Bramble", "11"),
        ("Pepper, nine, on a diet; Nutmeg, two, a menace.", "Nutmeg", "2"),
        ("Our foal Clover is three weeks old today.", "Clover", "3 weeks"),
        ("Ines turned 40 on Sunday.", "Ines", "40"),
        # appositives: "X, a N-year-old ...", "X, an old lurcher, eleven"
        (
            "We have two: Truffle, a 3-year-old border collie, and Hopscotch, a 7-year-old greyhound.",
            "Truffle",
            "3",
        ),
        (
            "We have two: Truffle, a 3-year-old border collie, and Hopscotch, a 7-year-old greyhound.",
            "Hopscotch",
            "7",
        ),
        (
            "Two fosters: Wonton, a pug cross, three years old, and Commodore, an old lurcher, eleven.",
            "Wonton",
            "3",
        ),
        (
            "Two fosters: Wonton, a pug cross, three years old, and Commodore, an old lurcher, eleven.",
            "Commodore",
            "11",
        ),
        ("Pip, a 6-week-old kitten, arrived on Friday.", "Pip", "6 weeks"),
    ],
)
def test_an_age_bound_to_the_name(text: str, name: str, age: str) -> None:
    assert age_said(spoken(text, 1), name) == age


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # said of someone else in between
        ("I ride Juno on Mondays. My cousin owns Rocket; he's twenty.", "Juno"),
        # not an age
        ("Pepper is 30 kg now.", "Pepper"),
        ("Juno is at the farm.", "Juno"),
        # a number after an appositive that is not an age
        ("Max, a friend of mine, 40 minutes away.", "Max"),
        ("Ana, my sister, 2 kids and a dog.", "Ana"),
    ],
)
def test_no_age_is_bound_where_the_sentence_binds_none(text: str, name: str) -> None:
    assert age_said(spoken(text, 1), name) is None


def test_the_latest_turn_binding_an_age_answers() -> None:
    turns = [
        spoken("My cat Sable is seven and very vocal.", month=1),
        spoken("Correction: Sable is actually eight, not seven. I checked her papers.", month=5),
        spoken("My sister's horse is twenty-two.", month=6),
    ]
    assert age_answer("How old is Sable?", turns) == "8"
    assert age_answer("How old is Sable?", turns[:1]) == "7"


def test_only_a_question_about_a_name_is_read() -> None:
    assert asks_age_of("How old is Sable?") == "Sable"
    assert asks_age_of("How old is Archimède now?") == "Archimède"
    assert asks_age_of("How old is my cat?") is None
    assert asks_age_of("Where does Sable sleep?") is None


def test_a_relative_asked_by_kin_is_read_by_the_name_the_ledger_gives() -> None:
    turns = [spoken("Our son Tobias, who's nine, has taken up chess.", month=2)]
    assert age_answer("How old is my son?", turns, named=["Tobias"]) == "9"
    assert age_answer("How old is my son?", turns) is None  # no name resolved: nothing bound
    assert age_answer("How old is Maren?", turns, named=["Tobias"]) is None  # a name asked is that name


def test_a_name_after_the_kin_that_introduces_it_is_the_name_asked() -> None:
    assert asks_age_of("How old is Joel's daughter Maja?") == "Maja"
    assert asks_age_of("How old is my cat Pip?") == "Pip"
    assert asks_age_of("How old is Joel's daughter?") is None
    turns = [spoken("Maja turned nine last week.", 9), spoken("Correction: Maja's ten, not nine.", 10)]
    assert age_answer("How old is Joel's daughter Maja?", turns) == "10"
