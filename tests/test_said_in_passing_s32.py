"""Homes and jobs said in passing: a home one "has", moving in said apart from where, a move
without its subject, the business one set up alone, the station one works from, an offer once
taken; and a post got at a place is no vehicle."""

from __future__ import annotations

import pytest
from said import extracted


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("And we moved. Tomek and I have a flat in Podgórze, near the Bernatek footbridge.", "Podgórze"),
        ("I've got a two-bed flat in Leith now.", "Leith"),
    ],
)
def test_a_home_one_has_is_where_one_lives(said: str, place: str) -> None:
    assert [f.object for f in extracted(said, predicate="lives_in")] == [place]


@pytest.mark.parametrize(
    "said", ["I have a holiday flat in Spain.", "We have a flat in Lisbon that we rent out."]
)
def test_a_holiday_or_let_home_is_not_where_one_lives(said: str) -> None:
    assert extracted(said, predicate="lives_in") == []


def test_moving_in_said_apart_from_where_files_the_planned_home() -> None:
    homes = extracted(
        "Malgosia and I are moving to Huntingdon. We found a house with a garden.",
        "We're in. The Huntingdon house is chaos but it's ours.",
        predicate="lives_in",
    )
    assert [f.object for f in homes] == ["Huntingdon"]
    # without a plan to move there, a house named by its town is not a home
    assert extracted("We're in. The Ely house sold in a week.", predicate="lives_in") == []


@pytest.mark.parametrize(
    ("said", "employer"),
    [
        ("I've set up on my own, Oolite Stoneworks, restoration and letter-cutting.", "Oolite Stoneworks"),
        ("I'm a paramedic, working out of the Bunbury station.", "Bunbury station"),
        ("I've transferred to the Donnybrook branch. Much quieter.", "Donnybrook branch"),
    ],
)
def test_where_one_works_said_in_passing(said: str, employer: str) -> None:
    assert employer in [f.object for f in extracted(said, predicate="works_at")]


def test_a_move_said_without_its_subject_in_lower_case() -> None:
    homes = extracted(
        "we're in! moved into Shawlands on the 16th of August, the van broke down", predicate="lives_in"
    )
    assert [f.object for f in homes] == ["Shawlands"]


def test_a_post_got_at_a_place_is_no_vehicle() -> None:
    said = ("Linnea got a lectureship at Strathclyde, starts in September.", "The van broke down on the way.")
    assert extracted(*said, predicate="drives") == []
    assert [
        f.object for f in extracted("I bought a green 2019 Outback, the mileage is low.", predicate="drives")
    ] == ["Outback"]


def test_a_job_title_in_capitals_still_says_where() -> None:
    said = "I work as a QA tester at Somes Labs in Cluj."
    assert [f.object for f in extracted(said, predicate="works_at")] == ["Somes Labs"]


@pytest.mark.parametrize(
    ("said", "employer"),
    [
        (
            "I got an offer from Westfield College, head of science from September! I accepted yesterday.",
            ["Westfield College"],
        ),
        ("I got an offer from Harlow Ltd. I start in May.", ["Harlow Ltd"]),
        ("I got an offer from Harlow Ltd but I turned it down.", []),
        ("I got an offer from Harlow Ltd, still thinking about it.", []),
    ],
)
def test_an_offer_is_a_job_once_taken(said: str, employer: list[str]) -> None:
    assert [f.object for f in extracted(said, predicate="works_at")] == employer
