"""Questions that name an animal, not its owner ("Whose dog is Pepa?", "What kind of animal is
Brioche?", "Is Nube a cat?"), answered from the turn that names it with its kind; and pets said
with an adjective or an appositive name ("an indie dog, Tabla"). Conversations are written for
these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dated_conversations import dated_conversation
from said import extracted, spoken

from emem.agents.pets import pet_answer
from emem.extract.patterns import pet_family
from emem.memory import Memory


@pytest.mark.parametrize(
    ("said", "pet"),
    [
        ("I have a scruffy dog, Pepa, who steals socks.", "a dog named Pepa"),
        ("We have a rabbit called Brioche.", "a rabbit named Brioche"),
    ],
)
def test_a_pet_said_with_an_adjective_or_an_appositive_name(said: str, pet: str) -> None:
    assert [f.object for f in extracted(said, predicate="has_pet")] == [pet]


def test_kinds_and_breeds_fold_to_the_animal() -> None:
    assert pet_family("border collie") == "dog"
    assert pet_family("Maine Coon") == "cat"
    assert pet_family("ferret") == "ferret"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who does Miso belong to?", "Oona"),
        ("Whose dog is Pepa?", "Lior"),
        ("What kind of animal is Brioche?", "a rabbit"),
        ("What kind of animal is Quill?", "a ferret"),
        ("Whose pet is Ledger?", "Lior"),
    ],
)
def test_the_turn_naming_the_animal_answers(question: str, answer: str) -> None:
    said = [
        spoken("My sister Oona is a dentist in Cork, and she has a cat called Miso who bites.", 2, "Lior"),
        spoken("I have a scruffy dog, Pepa, who steals socks.", 3, "Lior"),
        spoken("Brioche the rabbit has learned to open the hutch.", 4, "Dara"),
        spoken("I rescued a ferret from the sanctuary, named Quill.", 5, "Dara"),
        spoken("Ledger sends her love. Our cat thinks your parcel is hers.", 6, "Lior"),
    ]
    assert pet_answer(question, said) == answer


def test_a_kind_asked_about_is_answered_yes_or_no() -> None:
    said = [spoken("I have a scruffy dog, Pepa, who steals socks.", 3, "Lior")]
    no = pet_answer("Is Pepa a cat?", said) or ""
    assert no.startswith("No: Pepa is a scruffy dog")
    assert (pet_answer("Is Pepa a dog?", said) or "").startswith("Yes: ")


def test_a_kind_of_dog_is_a_breed_not_dog() -> None:
    said = [spoken("I've got a whippet, Olive, who hates rain.", 3, "Lior")]
    assert pet_answer("What kind of dog is Olive?", said) == "a whippet"
    plain = [spoken("I have a dog, Olive.", 3, "Lior")]
    assert pet_answer("What kind of dog is Olive?", plain) is None


def test_a_name_no_turn_gives_a_kind_is_not_answered() -> None:
    said = [spoken("Pepa was sick on the rug again.", 3, "Lior")]
    assert pet_answer("What kind of animal is Pepa?", said) is None
    assert pet_answer("Where does Pepa sleep?", said) is None


CONV = dated_conversation(
    [
        (
            "2025-03-02T09:00:00+00:00",
            [
                ("user", "I have a greyhound, Ferdie, who sleeps twenty hours a day."),
                ("assistant", "Ferdie sounds like a good roommate."),
                ("user", "My neighbour Tamsin has a tortoise called Boris who escapes every summer."),
                ("assistant", "Boris the escape artist."),
            ],
        )
    ],
    cid="pets",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    mem = Memory(Path(tmp_path_factory.mktemp("pets")) / "home")
    mem.add_conversation(CONV, namespace="pets")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who does Boris belong to?", "Tamsin"),
        ("Whose dog is Ferdie?", "the user"),
        ("Is Ferdie a cat?", "No"),
        ("What kind of animal is Boris?", "tortoise"),
    ],
)
def test_in_every_mode(memory: Memory, mode: str, question: str, expected: str) -> None:
    answer = memory.ask(question, namespace="pets", mode=mode)
    assert answer.status == "answered"
    assert expected in answer.answer
