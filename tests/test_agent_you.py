"""In a conversation between an agent and one user, the agent's "your ..." is said of the user:
"Congratulations, your studio is in Leith now" answers "Where is my studio now?" though it names
nobody. A bare "you" is left alone, and two friends' "your" is not read as anyone's.
Conversations are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.agents.reader import Addressed, _as_meant
from emem.answer import EvidenceItem
from emem.memory import Memory

NAMED = dated_conversation(
    [
        (
            "2025-01-05T09:00:00+00:00",
            [
                ("Marit", "Hi Pell, it's Marit. I'm a potter with a little studio in my shed in Portobello."),
                ("Pell", "Hi Marit! A shed studio in Portobello, lovely."),
            ],
        ),
        (
            "2025-06-05T09:00:00+00:00",
            [
                ("Marit", "Big step: I've taken a unit with two kilns. Moved in on Monday!"),
                ("Pell", "Congratulations, your studio is in Leith now."),
            ],
        ),
    ],
    cid="p",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("you")) / "home")
    mem.add_conversation(NAMED, namespace="you")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
def test_the_agents_your_is_the_users(memory: Memory, mode: str) -> None:
    answer = memory.ask("Where is my studio now?", namespace="you", mode=mode)
    assert "Leith" in answer.answer and "Portobello" not in answer.answer, answer.answer
    assert any(e.text == "Congratulations, your studio is in Leith now." for e in answer.evidence)


def _turn(speaker: str, text: str) -> EvidenceItem:
    return EvidenceItem.model_validate(
        {
            "conversation_id": "c",
            "session_id": "s",
            "turn_id": "t",
            "speaker": speaker,
            "text": text,
            "time": "2025-01-01T00:00:00+00:00",
            "score": 1.0,
            "role": "evidence",
        }
    )


def test_only_the_agents_turns_and_only_your() -> None:
    who = Addressed("Marit", frozenset({"Pell"}))
    assert _as_meant(_turn("Pell", "your kiln is booked"), who).text == "Marit's kiln is booked"
    assert _as_meant(_turn("Pell", "Nice to meet you!"), who).text == "Nice to meet you!"
    assert _as_meant(_turn("Marit", "your advice helped"), who).text == "your advice helped"
    assert _as_meant(_turn("Pell", "your kiln is booked"), None).text == "your kiln is booked"
