"""Forget requests that name whom they ask ("Noor, would you forget ...?") and requests that point
back at a value just said ("£52,000. Actually, forget I said the number"): both are recorded, and
what they name never reaches an answer while the rest of the conversation still does.
Conversations are written for these tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.ledger.withhold import active_forget_requests
from emem.memory import Memory

NS = "addressed"

FRIENDS = dated_conversation(
    [
        (
            "2025-03-01T10:00:00+00:00",
            [
                ("Noor", "How's the new job treating you?"),
                (
                    "Tobias",
                    "Honestly I've been having nightmares about the night shifts since the crash in May.",
                ),
                ("Noor", "That sounds awful, please talk to someone."),
                (
                    "Tobias",
                    "They're paying me well though. £52,000. Actually, forget I said the number, it's crass.",
                ),
                ("Noor", "Ha, fine. Where are they sending you next?"),
                ("Tobias", "I'm based at the Harwick depot from April."),
            ],
        ),
        (
            "2025-06-01T10:00:00+00:00",
            [
                ("Tobias", "Noor, would you forget what I told you about the nightmares? I'm fine now."),
                ("Noor", "Of course."),
            ],
        ),
    ],
    cid="f",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("addressed")) / "home", forget_policy="withhold")
    mem.add_conversation(FRIENDS, namespace=NS)
    yield mem
    mem.close()


def test_both_requests_are_recorded(memory: Memory) -> None:
    memory.consolidate(NS)
    topics = {r.topic: r.source for r in active_forget_requests(memory.ledger, NS)}
    assert topics.get("nightmares") == "f/S2:1", topics
    assert any("52,000" in t and s == "f/S1:4" for t, s in topics.items()), topics


@pytest.mark.parametrize(
    ("question", "secret"),
    [
        ("How much is Tobias paid?", r"52,000|52k"),
        ("What has Tobias been having since the crash?", r"nightmare"),
    ],
)
@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_what_was_asked_to_be_forgotten_is_not_answered(
    memory: Memory, question: str, secret: str, mode: str
) -> None:
    answer = memory.ask(question, mode=mode, namespace=NS)
    assert not re.search(secret, answer.answer, re.I), answer.answer
    assert not any(re.search(secret, e.text, re.I) for e in answer.evidence)


def test_a_question_to_a_friend_is_not_a_request() -> None:
    from emem.extract.offline import OfflineExtractor
    from emem.models import Turn

    turn = Turn(
        conversation_id="x",
        session_id="s",
        turn_id="t1",
        speaker="Tobias",
        text="Noor, would you like a coffee before the shift?",
        time=FRIENDS["sessions"][0]["time"],
    )
    assert [f for f in OfflineExtractor()([turn]) if f.predicate == "forget_request"] == []


WORK = dated_conversation(
    [
        (
            "2025-02-01T09:00:00+00:00",
            [
                ("user", "I'm a line cook at Ortolan in Bristol."),
                ("assistant", "Noted: line cook at Ortolan."),
                ("user", "my door code at work is 4471, I always forget it"),
                ("assistant", "Saved."),
            ],
        ),
        (
            "2025-04-01T09:00:00+00:00",
            [("user", "please forget my door code, they changed the locks"), ("assistant", "Done.")],
        ),
    ],
    cid="w",
)


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_a_question_naming_what_was_forgotten_is_not_answered_by_another_fact(
    tmp_path: Path, mode: str
) -> None:
    mem = Memory(tmp_path / "home", forget_policy="withhold")
    try:
        mem.add_conversation(WORK, namespace="w")
        answer = mem.ask("What's my door code at work?", namespace="w", mode=mode)
        assert "forget" in answer.answer and "4471" not in answer.answer, answer.answer
        assert "Ortolan" not in answer.answer
    finally:
        mem.close()
