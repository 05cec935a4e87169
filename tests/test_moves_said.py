"""A move said mid-sentence ("Also we moved ...") or with its places in the next, verbless
sentence ("We moved at the weekend! Out of Headingley and into a flat in Chapel Allerton"); and a
question asking which part of a city someone lives in is answered by where they live."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from emem import Memory
from emem.extract.moves import moves
from emem.models import Turn

T = datetime(2025, 6, 11, tzinfo=UTC)


def moved(text: str) -> list[tuple[str, str]]:
    turn = Turn(conversation_id="c", session_id="s", turn_id="t", speaker="user", text=text, time=T)
    return [(f.object, f.kind) for f in moves(turn, lambda s: s)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Big news. Also we moved at the weekend! Out of Headingley and into a flat in Chapel Allerton.",
            [("Chapel Allerton", "assert"), ("Headingley", "end")],
        ),
        ("Oh and we moved to Harrogate in May.", [("Harrogate", "assert")]),
        ("We moved! Into a flat in Kirkstall, finally.", [("Kirkstall", "assert")]),
        # the place in a sentence of its own, before the move
        ("Lots to update. We're in Cottingham! We moved on the 23rd of August.", [("Cottingham", "assert")]),
        ("Greetings from Foz do Arelho! I moved in on the 2nd of October.", [("Foz do Arelho", "assert")]),
        (
            "I've moved in with my boyfriend Jolyon, in Menai Bridge, since August.",
            [("Menai Bridge", "assert")],
        ),
        # a move to a place of work is no new home
        ("I'm a crew manager now, and I'm moving to Blue Watch at Salford from the 1st of April.", []),
        # nothing moved where the speaker says they are
        ("We're in Leeds for the weekend. We moved the sofa.", []),
        ("I've moved on from Dan. I'm in Paris, by the way.", []),
        ("We moved on Saturday. I'm in bits!", []),
        # a home with more than one word before it
        (
            "I'm moving out of the shared house in March, into a one-bed flat in Kidderminster.",
            [("Kidderminster", "assert")],
        ),
    ],
)
def test_a_move_and_its_places(text: str, expected: list[tuple[str, str]]) -> None:
    assert moved(text) == expected


def test_a_next_sentence_that_is_not_about_the_move_adds_nothing() -> None:
    assert moved("We moved at the weekend! Out of milk now, though.") == []


@pytest.mark.parametrize("mode", ["auto", "deep"])
def test_which_part_of_a_city_is_where_the_user_lives(tmp_path: Path, mode: str) -> None:
    conv = {
        "conversation_id": "m1",
        "sessions": [
            {
                "session_id": "S1",
                "time": "2025-01-10T10:00:00Z",
                "turns": [
                    {"turn_id": "S1:1", "speaker": "user", "text": "I'm doing a PhD in Leeds, second year."},
                    {
                        "turn_id": "S1:2",
                        "speaker": "user",
                        "text": "The rent on the flat in Headingley is a lot.",
                    },
                ],
            },
            {
                "session_id": "S2",
                "time": "2025-06-11T10:00:00Z",
                "turns": [
                    {
                        "turn_id": "S2:1",
                        "speaker": "user",
                        "text": "Also we moved at the weekend! Out of Headingley and into a flat in Chapel Allerton.",
                    }
                ],
            },
        ],
    }
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        answer = m.ask("Which part of Leeds do I live in?", namespace="n", mode=mode)
        assert "Chapel Allerton" in answer.answer and "Headingley" not in answer.answer


def test_living_in_a_home_somewhere() -> None:
    from test_extract_referred import facts

    said = facts("I live in a shared house in Evesham with two housemates.")
    assert ("user", "lives_in", "Evesham") in [f[:3] for f in said]
    assert [f for f in facts("I live in a flat near the station.") if f[1] == "lives_in"] == []


def test_work_with_a_firm_and_a_post_taken_on_joining() -> None:
    from test_extract_referred import facts

    told = [f[:3] for f in facts("I'm a quantity surveyor with Barrow & Lisle in Ipswich.")]
    assert ("user", "works_at", "Barrow & Lisle") in told
    joined = [f[:3] for f in facts("I've left Barrow & Lisle and joined Network Rail as a track engineer.")]
    assert ("user", "job_title", "track engineer") in joined
    # no firm, no work; a group joined in a role is no job
    assert [f for f in facts("I'm a nurse with two kids.") if f[1] == "works_at"] == []
    assert [f for f in facts("I joined the choir as a soprano.") if f[1] == "job_title"] == []
