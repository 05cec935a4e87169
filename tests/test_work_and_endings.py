"""A title said with its employer ends when that job does; occupation questions however they are
worded; yes/no questions about a state that a later turn ended in other words. One user/assistant
conversation written for these tests, asked in every mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem import Memory
from emem.agents.planner import predicate_cues

NS = "bakery"
MODES = ("auto", "fast", "deep")


def conversation() -> dict:
    return dated_conversation(
        [
            (
                "2025-02-01T09:00:00Z",
                [
                    (
                        "user",
                        "I'm head baker at Crumb and Rye in Leeds. My studio is in a garden shed in Headingley.",
                    ),
                    ("assistant", "Head baker at Crumb and Rye, and a studio in a shed. Noted."),
                    ("user", "We're hoping to get a bulldog puppy this spring."),
                ],
            ),
            (
                "2025-06-10T09:00:00Z",
                [
                    ("user", "I quit Crumb and Rye. I'm doing wedding cakes from home now."),
                    ("assistant", "Wedding cakes from home: good luck."),
                    ("user", "We've changed our minds about the bulldog, the flat's too small."),
                    ("user", "And I'm moving the studio out of Headingley, the shed leaks."),
                    (
                        "user",
                        "My brother Anselm has left the fire brigade. He's freelancing now, as a rigger.",
                    ),
                ],
            ),
        ],
        cid="b1",
    )


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory):
    m = Memory(Path(tmp_path_factory.mktemp("work")))
    m.add_conversation(conversation(), namespace=NS)
    yield m
    m.close()


def test_a_title_held_at_an_employer_ends_with_the_job(memory: Memory) -> None:
    memory.consolidate(NS)
    assert memory.resolve("user", "job_title", namespace=NS).status == "miss"
    before = memory.resolve("user", "job_title", valid_at="2025-04-01T00:00:00Z", namespace=NS)
    assert [v for v in before.values if "baker" in v]
    assert "quit Crumb and Rye" in memory.history("user", "job_title", namespace=NS).model_dump_json()


@pytest.mark.parametrize("mode", MODES)
def test_the_ended_title_is_not_answered_now(memory: Memory, mode: str) -> None:
    answer = memory.ask("What's my job?", namespace=NS, mode=mode)
    assert "head baker" not in answer.answer.lower() and "Crumb" not in answer.answer
    assert "wedding cakes" in answer.answer


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "question",
    [
        "Are we still hoping to get a bulldog?",
        "Is my studio still in the garden shed?",
        "Is Anselm still with the fire brigade?",
    ],
)
def test_a_state_ended_in_other_words_answers_no(memory: Memory, mode: str, question: str) -> None:
    answer = memory.ask(question, namespace=NS, mode=mode)
    assert answer.answer.startswith("No"), answer.answer


@pytest.mark.parametrize(
    "question",
    ["What does Anselm do for work now?", "What does Anselm do for work these days?", "What does Anselm do?"],
)
def test_what_someone_does_for_work_asks_the_job_first(question: str) -> None:
    assert predicate_cues(question)[:2] == ["job_title", "works_at"]
