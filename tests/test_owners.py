"""Whose a named pet or relative is, read from how the turns speak of the name: a speaker's own, the
listener's, a named possessor's, else the one speaker who talks of it most. Sentences are written
for these tests."""

from __future__ import annotations

import pytest
from said import spoken

from emem.agents.owners import asked_name, owner_answer


def _said(*lines: tuple[str, str]) -> list:
    return [spoken(text, month, speaker=who) for month, (who, text) in enumerate(lines, start=1)]


@pytest.mark.parametrize(
    ("lines", "question", "owner"),
    [
        (
            (("Tove", "My grandson Elio is coming for the summer."), ("Brann", "Lovely!")),
            "Whose grandson is Elio?",
            "Tove",
        ),
        (
            (("Tove", "Pesto and I walked the whole ridge today."), ("Brann", "Go Pesto!")),
            "Whose dog is Pesto?",
            "Tove",
        ),
        (
            (("Tove", "Six hens here. I've only got Pesto otherwise."), ("Brann", "Ha.")),
            "Whose dog is Pesto?",
            "Tove",
        ),
        (
            (
                ("Brann", "Ilse's collie had pups and she kept one."),
                ("Tove", "Clover, Ilse's new pup. Cute."),
            ),
            "Whose dog is Clover?",
            "Ilse",
        ),
        (
            (("Tove", "You're thinking of your own sister Runa, the vet."), ("Brann", "Right.")),
            "Whose sister is Runa?",
            "Brann",
        ),
        (
            (("Tove", "Mika lives in Oslo with his wife and their son Aksel."), ("Brann", "Nice.")),
            "Whose son is Aksel?",
            "Mika",
        ),
        (
            (
                ("Tove", "Fennel ate my sandwich again."),
                ("Brann", "Poor you."),
                ("Tove", "Fennel is asleep on my feet now."),
            ),
            "Whose cat is Fennel?",
            "Tove",
        ),
    ],
)
def test_the_keeper(lines: tuple[tuple[str, str], ...], question: str, owner: str) -> None:
    assert owner_answer(question, _said(*lines)) == owner


@pytest.mark.parametrize(
    ("lines", "question"),
    [
        # hers, said of someone not speaking: no guess from who talks of it most
        (
            (
                ("Tove", "Her cat moved in too, a ragdoll called Mochi."),
                ("Tove", "Mochi hates me."),
                ("Brann", "Ha."),
            ),
            "Whose cat is Mochi?",
        ),
        # named once each: nobody talks of it most
        ((("Tove", "How's Basil?"), ("Brann", "Basil is fine.")), "Whose dog is Basil?"),
        # the user's own is not named by the user's label
        ((("user", "My dog Rolo is ten."), ("assistant", "Noted.")), "Whose dog is Rolo?"),
    ],
)
def test_no_keeper(lines: tuple[tuple[str, str], ...], question: str) -> None:
    assert owner_answer(question, _said(*lines)) is None


def test_only_a_name_asked_by_whose_is_read() -> None:
    assert asked_name("Whose dog is Pesto?") == "Pesto"
    assert asked_name("Whose dog hurt a paw?") is None
    assert asked_name("Who owns Pesto?") is None
