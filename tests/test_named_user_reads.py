"""An agent and a user who speaks under their own name (Tomasz, with the agent Ava): the user's
own name, a count said by an ordinal ("my third half marathon"), and a move called off, read
right in every mode. Written from a new-user trial, not from a benchmark's cases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dated_conversations import dated_conversation

from emem.agents.spans import AnswerType, answer_type, stated_quantity, typed_span
from emem.memory import Memory

NS = "named"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    conv = dated_conversation(
        [
            (
                "2035-02-03T18:30:00+00:00",
                [
                    ("Tomasz", "Hey Ava, I'm Tomasz. I'm vegetarian and I live in Gdansk."),
                    ("Ava", "Hi Tomasz! Noted."),
                    ("Tomasz", "I ran my first half marathon last October."),
                    ("Ava", "Congratulations on the half marathon!"),
                ],
            ),
            (
                "2035-05-10T18:30:00+00:00",
                [
                    ("Tomasz", "We adopted a cat! Her name is Miso."),
                    ("Tomasz", "Also, I ran another half marathon in April, in Warsaw."),
                    ("Tomasz", "And we're planning to move to Krakow in the autumn."),
                ],
            ),
            (
                "2035-09-14T18:30:00+00:00",
                [
                    ("Tomasz", "Change of plan, we're not moving to Krakow after all. Staying in Gdansk."),
                    ("Ava", "Understood."),
                    ("Tomasz", "Ran my third half marathon last Sunday, in Gdynia."),
                ],
            ),
        ],
        cid="tomasz",
    )
    with Memory(tmp_path_factory.mktemp("named") / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        yield mem


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
def test_the_users_own_name_is_their_speaker_name(memory: Memory, mode: str) -> None:
    # "Her name is Miso" names the cat, not the user
    assert memory.ask("What's my name?", namespace=NS, mode=mode).answer == "Tomasz"


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
@pytest.mark.parametrize(
    "question", ["How many half marathons have I run?", "How many half marathons did I run?"]
)
def test_a_count_said_by_an_ordinal(memory: Memory, mode: str, question: str) -> None:
    # the agent's congratulation is no fourth race
    assert memory.ask(question, namespace=NS, mode=mode).answer == "3"


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
def test_a_move_called_off_is_not_where_the_user_is_moving(memory: Memory, mode: str) -> None:
    assert "Krakow" not in memory.ask("Where am I moving to?", namespace=NS, mode=mode).answer


def test_an_ordinal_after_a_possessive_is_a_count() -> None:
    focus = {"half", "marathon", "marathons"}
    assert stated_quantity("Ran my third half marathon last Sunday.", focus) == 3
    assert stated_quantity("She got a second guitar.", {"guitar"}) == 2
    # "first" is no count: "my first guitar was a Yamaha" says nothing of how many came after
    assert stated_quantity("My first guitar was a Yamaha.", {"guitar"}) is None


def test_a_denied_place_is_no_answer_to_where() -> None:
    said = "Change of plan, we're not moving to Krakow after all. Staying in Gdansk."
    assert typed_span(AnswerType.PLACE, said, None, set()) == "Gdansk"
    assert typed_span(AnswerType.PLACE, "We didn't go to Rome.", None, set()) is None
    assert typed_span(AnswerType.PLACE, "We're moving to Krakow.", None, set()) == "Krakow"


def test_the_names_of_several_ask_for_names() -> None:
    assert answer_type("What are the names of my rabbits?") is AnswerType.NAME
    assert answer_type("What are my rabbits' names?") is AnswerType.NAME


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
def test_the_names_of_the_users_pets_are_not_the_users_name(memory: Memory, mode: str) -> None:
    assert memory.ask("What are the names of my cats?", namespace=NS, mode=mode).answer == "Miso"
