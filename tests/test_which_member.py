"""Which one of some people: the member whose clause says what the question asks, read from
clauses because one turn often tells of every member at once (agents.members)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from emem.agents.members import which_member
from emem.agents.spans import AnswerType, answer_type
from emem.answer import EvidenceItem

T = datetime(2025, 3, 1, tzinfo=UTC)


def turns(*said: tuple[str, str]) -> list[EvidenceItem]:
    return [
        EvidenceItem(
            conversation_id="c",
            session_id="S1",
            turn_id=f"S1:{i}",
            speaker=speaker,
            text=text,
            time=T + timedelta(minutes=i),
            score=0.5,
            role="evidence",
        )
        for i, (speaker, text) in enumerate(said, 1)
    ]


@pytest.mark.parametrize(
    ("question", "said", "people", "expected"),
    [
        (
            "Which of my flatmates works on seagrass?",
            [
                (
                    "user",
                    "My flatmates: Ottoline works on seagrass near Oban, and Perrin works on otters in Skye.",
                )
            ],
            {"Ottoline", "Perrin"},
            "Ottoline",
        ),
        (  # a pronoun's clause is about the person the clause before named
            "Which of my apprentices trained at Kew?",
            [("user", "I've taken on a second apprentice, Marisa, three days a week. She trained at Kew.")],
            set(),
            "Marisa",
        ),
        (  # the subject of the clause, not the company after it
            "Which of my editors wants files in Word?",
            [("user", "Hollis Brandt at Fenwick Books wants files in Word; Ayo wants PDFs.")],
            {"Fenwick"},
            "Hollis Brandt",
        ),
        (  # an opening adverb is no name
            "Which of my neighbours shouts at the bin men?",
            [("user", "Honestly the worst is Gadsby. He shouts at the bin men every Tuesday.")],
            set(),
            "Gadsby",
        ),
        (  # two friends: "I" is the speaker
            "Which of the two friends applied for a job at the Tate?",
            [("Rhona", "Big news, I've applied for a curator job at the Tate."), ("Idris", "Amazing!")],
            {"Rhona", "Idris"},
            "Rhona",
        ),
    ],
)
def test_the_member_a_clause_ties_to_the_asked_property(
    question: str, said: list[tuple[str, str]], people: set[str], expected: str
) -> None:
    assert which_member(question, turns(*said), people) == expected


def test_no_member_when_no_clause_says_the_property_or_the_form_differs() -> None:
    said = turns(("user", "Ottoline works on seagrass, and Perrin works on otters."))
    assert which_member("Which of my flatmates plays the cello?", said, {"Ottoline", "Perrin"}) is None
    assert which_member("Who works on seagrass?", said, {"Ottoline", "Perrin"}) is None
    # a clause naming both members chooses neither
    both = turns(("user", "Ottoline and Perrin both work on seagrass."))
    assert which_member("Which of my flatmates works on seagrass?", both, {"Ottoline", "Perrin"}) is None
    # a number opening the clause is no name
    one = turns(("user", "One of the baristas, Anatole, quit."))
    assert which_member("Which of my baristas quit?", one, set()) in (None, "Anatole")


@pytest.mark.parametrize(
    "question",
    [
        "Which of my labmates works on kelp?",
        "Which of Lorne's children is the elder?",
        "Which of our two sons swims?",
    ],
)
def test_which_of_some_people_asks_for_a_person(question: str) -> None:
    assert answer_type(question) is AnswerType.PERSON
    assert answer_type("Which of my bikes has the narrower tyres?") is not AnswerType.PERSON
