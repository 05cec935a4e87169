"""Measured quantities (a weight, a dose, a journey's length) that change over months: the value
with the asked kind of unit answers, the latest one for a question about now, the one said by then
for a question about a past date, and nothing for someone whose quantity was never said.
The conversation is written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.agents.planner import classify_operation
from emem.agents.spans import AnswerType, answer_type, measure_family, typed_span
from emem.answer import Operation
from emem.memory import Memory

NS = "measures"

CONV = dated_conversation(
    [
        (
            "2024-02-10T09:00:00+00:00",
            [
                ("user", "We adopted a greyhound, Juniper! The shelter says Juniper is 24 kg, a bit skinny."),
                ("assistant", "Congratulations on Juniper!"),
                (
                    "user",
                    "My cat Pip is not impressed. Also my GP started me on ramipril 2.5mg for blood pressure.",
                ),
                ("assistant", "Ramipril 2.5mg, noted."),
                ("user", "is the drive to the depot bad? yes: 55 minutes each way from Kelso."),
            ],
        ),
        (
            "2024-06-02T09:00:00+00:00",
            [
                ("user", "vet check today, Juniper is 28 kg now, filling out nicely."),
                ("assistant", "Good news."),
                ("user", "the GP put my ramipril up to 5mg."),
                ("assistant", "How's the drive since the move to Melrose?"),
                ("user", "the drive is 20 minutes from Melrose, so much better."),
            ],
        ),
    ],
    cid="m",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("measures")) / "home")
    mem.add_conversation(CONV, namespace=NS)
    yield mem
    mem.close()


def test_the_question_names_the_family_of_units() -> None:
    assert measure_family("How much does Juniper weigh?") == "weight"
    assert measure_family("What dose of ramipril am I on?") == "dose"
    assert measure_family("How long is my drive to work?") == "duration"
    assert measure_family("How long have I lived in Melrose?") is None
    assert measure_family("How much is the rent?") is None
    assert answer_type("How many kilos is Juniper?") is AnswerType.MEASURE
    assert classify_operation("How many kilos is Juniper?") is Operation.FACT
    assert typed_span(AnswerType.MEASURE, "the GP put my ramipril up to 5mg", None, set(), "dose") == "5mg"
    assert typed_span(AnswerType.MEASURE, "the GP put my ramipril up to 5mg", None, set(), "weight") is None


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
@pytest.mark.parametrize(
    ("question", "as_of", "expected"),
    [
        ("How much does Juniper weigh?", None, "28 kg"),
        ("How much did Juniper weigh in February?", None, "24 kg"),
        ("How much does Juniper weigh?", "2024-03-01T00:00:00+00:00", "24 kg"),
        ("What dose of ramipril am I on?", None, "5mg"),
        ("How long is my drive to the depot?", None, "20 minutes"),
        ("How long is my drive to the depot?", "2024-03-01T00:00:00+00:00", "55 minutes"),
    ],
)
def test_the_quantity_of_the_asked_time(
    memory: Memory, mode: str, question: str, as_of: str | None, expected: str
) -> None:
    answer = memory.ask(question, namespace=NS, mode=mode, as_of=as_of)
    assert answer.status == "answered", answer.answer
    assert expected in answer.answer, answer.answer


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_a_quantity_never_said_of_someone_is_not_borrowed(memory: Memory, mode: str) -> None:
    answer = memory.ask("How much does Pip weigh?", namespace=NS, mode=mode)
    assert answer.status == "abstained", answer.answer
    assert "kg" not in answer.answer
