"""A question cues several predicates by its words ("work email" cues works_at and email): the
value of the type it asks for answers, not the most-cued predicate's ("Crumb & Co" is no email)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_forget_phrasings import chat

from emem.agents.spans import AnswerType, answer_type
from emem.memory import Memory


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(Path(tmp_path_factory.mktemp("typed")) / "h")
    conv = chat(
        (
            "2025-02-03T09:00:00+00:00",
            [
                ("user", "I'm a baker at Hartley's in Frome. Work email is ana@hartleys.co.uk."),
                ("assistant", "Noted."),
            ],
        ),
        (
            "2025-06-10T09:00:00+00:00",
            [
                ("user", "I've left Hartley's. I'm opening my own bakery, Crumb and Rye, in Bath."),
                ("assistant", "Congratulations!"),
                ("user", "New email: ana@crumbandrye.com. The old one is closed."),
            ],
        ),
    )
    m.add_conversation(conv, namespace="typed")
    return m


@pytest.mark.parametrize("mode", ("auto", "deep", "fast"))
def test_the_asked_type_answers(memory: Memory, mode: str) -> None:
    email = memory.ask("What's my work email?", namespace="typed", mode=mode)
    assert "ana@crumbandrye.com" in email.answer and "hartleys" not in email.answer, email.answer
    work = memory.ask("Where do I work now?", namespace="typed", mode=mode)
    assert "Crumb and Rye" in work.answer, work.answer


@pytest.mark.parametrize(
    ("question", "phone"),
    [
        ("What's my work number?", True),
        ("What's Ilse's home number?", True),
        ("What's my studio number?", True),
        ("What number do my customers call me on?", True),
        ("What number is my flat?", False),
        ("What number did Ilse wear in the final?", False),
    ],
)
def test_a_number_to_call_asks_for_a_phone(question: str, phone: bool) -> None:
    assert (answer_type(question) is AnswerType.PHONE) is phone
