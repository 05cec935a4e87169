"""A thing's year ("What year is my Pajero?") answered with the year said of it, the latest one,
not with when a turn was said; a time said before the subject ("This week I sold ...") does not
hide the statement from the rules; a role said after "so" is read. Sentences written for these
tests."""

from __future__ import annotations

import pytest
from said import extracted, spoken

from emem.agents.vintages import vintage_answer


@pytest.mark.parametrize(
    ("question", "turns", "answer"),
    [
        ("What year is my Corolla?", ["I drive a 2014 Toyota Corolla, silver."], "2014"),
        # put right later: the latest turn's year, not the one after "not"
        (
            "What year was my Volvo?",
            [
                "My car's a 2009 Volvo V70.",
                "Correction on the Volvo: the logbook says it's a 2008, not a 2009.",
            ],
            "2008",
        ),
        ("What year is the Rioja?", ["We opened a 2015 Rioja for the anniversary."], "2015"),
    ],
)
def test_the_year_said_of_the_thing(question: str, turns: list[str], answer: str) -> None:
    evidence = [spoken(t, month) for month, t in enumerate(turns, 1)]
    assert vintage_answer(question, evidence) == answer


@pytest.mark.parametrize(
    ("question", "turns"),
    [
        ("What year was Priya born?", ["Priya was born in a 1990 heatwave."]),  # an event, not a vintage
        ("What year is my Corolla?", ["I moved to Leeds in 2019."]),  # nothing said of the car
        ("What year did I move?", ["I moved in a 2019 rush."]),  # not "what year is/was X"
    ],
)
def test_no_vintage_when_none_is_asked_or_said(question: str, turns: list[str]) -> None:
    evidence = [spoken(t, month) for month, t in enumerate(turns, 1)]
    assert vintage_answer(question, evidence) is None


def test_a_time_said_before_the_subject() -> None:
    facts = extracted("This week I sold the Astra and bought a Kia Ceed.", predicate="drives")
    assert [f.object for f in facts] == ["Kia Ceed"]
    moved = extracted("Last month we moved to Harrogate.", predicate="lives_in")
    assert [f.object for f in moved] == ["Harrogate"]


def test_a_role_said_after_so() -> None:
    facts = extracted(
        "Mr Dace has retired, so Ama is my line manager from this week.", predicate="line_manager"
    )
    assert [f.object for f in facts] == ["Ama"]


def test_a_rented_room_is_a_home() -> None:
    facts = extracted("I rent a room in Moseley now, near the park.", predicate="lives_in")
    assert [f.object for f in facts] == ["Moseley"]


def test_a_home_on_a_street_is_where_one_lives() -> None:
    facts = extracted("I'm in a ground-floor flat on Alma Road now, with a garden.", predicate="lives_in")
    assert [f.object for f in facts] == ["Alma Road"]
    assert extracted("I'm in a flat on the top floor now.", predicate="lives_in") == []


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("I live in a top-floor flat on Gorgie Road in Dalry, five flights up.", "Dalry"),
        ("Home is a first-floor flat on Rua da Rosa in Bairro Alto.", "Bairro Alto"),
        ("I live on Elm Row in Leith with my sister.", "Leith"),
        ("I live in a shared house on Cowley Road.", "Cowley Road"),
    ],
)
def test_a_home_on_a_street_in_an_area(said: str, place: str) -> None:
    assert [f.object for f in extracted(said, predicate="lives_in")] == [place]


def test_the_street_a_home_is_on_is_its_address() -> None:
    facts = extracted("We live in a brick semi on Marsh Lane in Ormskirk.", predicate="address")
    assert [f.object for f in facts] == ["Marsh Lane, Ormskirk"]


def test_a_move_scheduled_in_the_present_with_the_home_in_the_same_sentence() -> None:
    facts = extracted(
        "We've found a place! It's a little rental with a yard in Tooting, and we move on the 3rd of May.",
        predicate="lives_in",
    )
    assert [f.object for f in facts] == ["Tooting"]
    assert facts[0].valid_from is not None and (facts[0].valid_from.month, facts[0].valid_from.day) == (5, 3)
    assert extracted("We move the piano on Saturday to the church hall in Bury.", predicate="lives_in") == []


def test_a_move_done_with_the_land_said_to_be_ours() -> None:
    facts = extracted(
        "We moved! The smallholding near Crediton is ours, the keys came on Friday.", predicate="lives_in"
    )
    assert [f.object for f in facts] == ["Crediton"]


def test_what_replaced_a_plan_called_off() -> None:
    from emem.agents.revoked import replacement_for

    evidence = [
        spoken("Half-term plan: we're taking the kids to Legoland from the 14th.", 2),
        spoken("Legoland got cancelled, Ivy has chickenpox.", 3),
        spoken("We did a cottage at Robin Hood's Bay at Easter instead.", 4),
    ]
    assert replacement_for("Where did we go instead of Legoland?", evidence) == "Robin Hood's Bay"
    assert replacement_for("Where did we go at half-term?", evidence) is None


def test_an_answer_of_the_questions_own_words_says_nothing() -> None:
    from emem.agents.reader import echoes_question

    assert echoes_question("roller derby", "What position did I play in roller derby?")
    assert not echoes_question("jammer", "What position did I play in roller derby?")
    assert not echoes_question("", "What position did I play?")


def test_which_street_asks_the_address_and_an_instead_names_no_pronoun() -> None:
    from emem.agents.planner import predicate_cues
    from emem.agents.revoked import replacement_for

    assert predicate_cues("Which street do I live on?")[0] == "address"
    evidence = [
        spoken("The Skye trip is off, the ferry's cancelled.", 3),
        spoken("So I'm doing my walking on Arran instead, in June.", 3),
    ]
    assert replacement_for("Where am I walking instead of the Skye trip?", evidence) == "Arran"


def test_an_address_left_by_a_later_move() -> None:
    from emem.agents.reader import _address_left
    from emem.answer import FactItem

    address = FactItem(
        subject="user",
        predicate="address",
        status="state",
        values=["Marsh Lane, Ormskirk"],
        revisions=[{"object": "marsh lane ormskirk", "valid_from": "2031-01-10T10:00:00Z"}],
    )
    moved = FactItem(
        subject="user",
        predicate="lives_in",
        status="state",
        values=["Glasgow"],
        revisions=[{"object": "Glasgow", "valid_from": "2031-05-10T10:00:00Z"}],
    )
    same = moved.model_copy(
        update={
            "values": ["Ormskirk"],
            "revisions": [{"object": "Ormskirk", "valid_from": "2031-05-10T10:00:00Z"}],
        }
    )
    assert _address_left(address, [address, moved])
    assert not _address_left(address, [address, same])


def test_a_job_started_as_a_title_at_an_employer_on_a_day() -> None:
    said = "I start as head chef at Rowan & Vine in Stirling on the 1st of July."
    assert [f.object for f in extracted(said, predicate="works_at")] == ["Rowan & Vine"]
    assert [f.object for f in extracted(said, predicate="job_title")] == ["head chef"]
    # "starting as ..." is the title without "as"
    titles = extracted("I'm starting as a junior designer at Forma in September.", predicate="job_title")
    assert [f.object for f in titles] == ["junior designer"]
