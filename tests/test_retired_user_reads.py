"""A retired user's conversation read right (session 28's new-user trial): who a named relative
or pet is, a pet said by its breed, a phone number changed again, grandchildren counted by an
ordinal, a weekly class's day at a past time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dated_conversations import dated_conversation

from emem.agents.identity import identity_answer, identity_name
from emem.answer import FactItem
from emem.extract.offline import OfflineExtractor
from emem.index.text import tokenize
from emem.memory import Memory
from emem.models import Turn

NS = "retired"


def conversation() -> dict[str, Any]:
    return dated_conversation(
        [
            (
                "2040-02-03T09:15:00+00:00",
                [
                    (
                        "user",
                        "Morning! I retired from teaching chemistry last summer and I live in Lyon with my husband Bernard.",
                    ),
                    ("assistant", "Nice to meet you. How do you fill your days?"),
                    (
                        "user",
                        "Pottery, mostly. I go to a class at Atelier Terre every Tuesday. Also we have a basset hound called Filou.",
                    ),
                    ("user", "My new mobile number is 06 12 48 90 33."),
                ],
            ),
            (
                "2040-04-10T17:40:00+00:00",
                [
                    (
                        "user",
                        "Change of plan: Lisbon is off, Bernard's knee is bad. We're going to Annecy instead.",
                    ),
                    ("user", "Our granddaughter Maelle was born on 2 April! Our second grandchild."),
                ],
            ),
            (
                "2040-07-22T08:05:00+00:00",
                [
                    ("user", "Sad news, Filou died last month. He was thirteen."),
                    ("user", "I switched my pottery class to Thursdays, the Tuesday teacher left."),
                ],
            ),
            (
                "2040-10-02T19:30:00+00:00",
                [
                    ("user", "We adopted a rescue greyhound, her name is Plume."),
                    ("user", "Oh and I changed numbers again, it's 07 55 21 36 80 now."),
                ],
            ),
        ],
        cid="odette",
    )


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with Memory(tmp_path_factory.mktemp("retired") / "h") as mem:
        mem.add_conversation(conversation(), namespace=NS)
        yield mem


@pytest.mark.parametrize("mode", ["fast", "deep"])
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who is Bernard?", "the user's husband"),
        ("Who's Plume?", "the user's greyhound dog"),
        ("What breed is Plume?", "greyhound"),
        ("What's my phone number?", "07 55 21 36 80"),
        ("How many grandchildren do I have?", "2"),
        ("What day was my pottery class in March 2040?", "Tuesday"),
        ("What day is my pottery class?", "Thursday"),
        ("How many pets do I have?", "1"),
        ("Where do I do pottery?", "Atelier Terre"),
    ],
)
def test_the_trial_questions_are_answered(memory: Memory, mode: str, question: str, expected: str) -> None:
    a = memory.ask(question, namespace=NS, mode=mode)
    assert expected in a.answer, (mode, question, a.answer)


def test_a_pet_that_died_is_who_it_was_until_then(memory: Memory) -> None:
    a = memory.ask("Who was Filou?", namespace=NS)
    assert a.answer.startswith("the user's hound dog (until"), a.answer
    assert "Plume" not in a.answer


def test_a_breed_said_in_place_of_the_species_files_a_pet() -> None:
    turns = [
        Turn(
            conversation_id="c",
            session_id="S1",
            turn_id="S1:1",
            speaker="user",
            text=text,
            time="2030-03-01T10:00:00Z",
        )
        for text in [
            "Also we have a basset hound called Filou.",
            "Oh and I changed numbers again, it's 07 55 21 36 80 now.",
        ]
    ]
    found = {(f.predicate, f.object) for f in OfflineExtractor()(turns)}
    assert ("has_pet", "a hound dog named Filou") in found
    assert ("phone", "07 55 21 36 80") in found


def test_identity_reads_only_a_value_that_names_the_asked_person() -> None:
    sister = FactItem(subject="user", predicate="has_sibling", status="state", values=["a sister named Ana"])
    assert identity_name("Who is Ana?") == "Ana"
    assert identity_name("Who is my sister?") is None  # asks for a name, not a relation
    assert identity_answer("Who is Ana?", [sister]) == "the user's sister"
    assert identity_answer("Who is Bea?", [sister]) is None
    named = FactItem(subject="Maya", predicate="has_partner", status="state", values=["a husband named Tom"])
    assert identity_answer("Who is Tom?", [named]) == "Maya's husband"


def test_an_irregular_plural_matches_its_singular() -> None:
    assert tokenize("grandchildren children stepchildren") == tokenize("grandchild child stepchild")


def test_a_forgotten_relative_does_not_withhold_the_speaker_s_own_home(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2041-01-08T20:00:00+00:00",
                [
                    ("Kofi", "Hi Ada. I work nights as a nurse at Korle Bu hospital in Accra."),
                    ("Kofi", "My sister Abena lives in London, she's a midwife."),
                ],
            ),
            (
                "2041-09-20T19:45:00+00:00",
                [
                    ("Kofi", "I'm in Kumasi now, I moved for the nursing programme."),
                    ("Kofi", "Please don't keep anything about my sister anymore."),
                    ("Ada", "Understood, I won't bring her up."),
                ],
            ),
        ],
        cid="kofi",
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace="k")
        for mode in ("fast", "deep"):
            then = mem.ask("Where did Kofi live in May 2041?", namespace="k", mode=mode)
            # nothing says where he lived then (work in Accra is not a home): not a refusal
            assert "forget" not in then.answer and "London" not in then.answer, (mode, then.answer)
            sister = mem.ask("Where does Kofi's sister live?", namespace="k", mode=mode)
            assert "forget" in sister.answer and "London" not in sister.answer, (mode, sister.answer)


def test_leaving_a_band_because_one_had_to_ends_the_membership() -> None:
    turns = [
        Turn(
            conversation_id="c",
            session_id="S1",
            turn_id=f"S1:{i}",
            speaker="Kofi",
            text=text,
            time="2030-03-01T10:00:00Z",
        )
        for i, text in enumerate(
            [
                "I play the talking drum in a small band called Sankofa Groove.",
                "I had to leave Sankofa Groove because of the move, which hurts.",
            ],
            start=1,
        )
    ]
    found = [(f.predicate, f.object, f.kind) for f in OfflineExtractor()(turns)]
    assert ("hobby", "talking drum", "assert") in found, found  # a kind of drum, not "talking"
    assert [(p, k) for p, _, k in found if p == "member_of"] == [
        ("member_of", "assert"),
        ("member_of", "end"),
    ]


def test_a_programme_got_into_is_studied_from_its_start() -> None:
    turn = Turn(
        conversation_id="c",
        session_id="S1",
        turn_id="S1:1",
        speaker="Kofi",
        text="Big news, I got into the anaesthesia nursing programme in Kumasi, it starts in September.",
        time="2030-03-01T10:00:00Z",
    )
    (fact,) = [f for f in OfflineExtractor()([turn]) if f.predicate == "studies"]
    assert fact.object == "anaesthesia nursing"
    assert fact.valid_from is not None and (fact.valid_from.year, fact.valid_from.month) == (2030, 9)


def test_a_group_left_is_no_longer_joined_when_its_turn_tells_more(tmp_path: Path) -> None:
    # the turn telling the band also files the instrument, which still holds: the band the
    # question names decides whether that turn is stale, not the instrument
    conv = dated_conversation(
        [
            (
                "2041-01-08T20:00:00+00:00",
                [
                    (
                        "Kofi",
                        "I play the talking drum in a small band called Sankofa Groove. We rehearse on Sundays.",
                    )
                ],
            ),
            (
                "2041-09-20T19:45:00+00:00",
                [("Kofi", "I had to leave Sankofa Groove because of the move, which hurts.")],
            ),
        ],
        cid="band",
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace="b")
        for mode in ("fast", "deep"):
            a = mem.ask("Is Kofi still in Sankofa Groove?", namespace="b", mode=mode)
            assert a.answer.startswith("No"), (mode, a.answer)
