"""A "which/what <noun>" answer that is no value at all is an abstention: a possessor alone, a
count in words for a thing that is not a number, a scrap of a clause. Questions written for it."""

from __future__ import annotations

import pytest

from emem.agents.reader import no_value_of_kind


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which band did Tomasz play with last?", "Agnieszka's"),
        ("What's the name of the vet who treated Biscuit?", "Marta's"),
        ("Which magazine printed my third story?", "Three"),
        ("In which town did we buy the rug?", "We've been"),
        ("Where does my brother live?", "Wait, no"),
    ],
)
def test_no_value(question: str, answer: str) -> None:
    assert no_value_of_kind(question, answer)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Whose bike is the red one?", "Agnieszka's"),
        ("Which magazine printed my third story?", "Northern Pages"),
        ("What number is our house?", "14"),
        ("Which place did she finish in?", "fifth"),
        ("How many stories did I sell?", "Three"),
        # "Saskia's doing them": a contraction, not a possessor
        ("Who's doing the deliveries now?", "Saskia's"),
        ("What position does Tam play?", "he's a bowler"),
    ],
)
def test_a_value(question: str, answer: str) -> None:
    assert not no_value_of_kind(question, answer)
