"""Shared fixtures: a temporary home per test and small hand-written conversations."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from emem.memory import Memory

SMALL_CONVERSATION: dict[str, Any] = {
    "conversation_id": "c1",
    "sessions": [
        {
            "session_id": "S1",
            "time": "2022-03-01T10:00:00+00:00",
            "turns": [
                {"turn_id": "S1:1", "speaker": "Dana", "text": "I just moved to Lisbon for a new job."},
                {"turn_id": "S1:2", "speaker": "Omar", "text": "Lisbon! Where are you working?"},
                {
                    "turn_id": "S1:3",
                    "speaker": "Dana",
                    "text": "I work at a small robotics startup called Kinetica.",
                },
            ],
        },
        {
            "session_id": "S2",
            "time": "2022-06-15T19:30:00+00:00",
            "turns": [
                {"turn_id": "S2:1", "speaker": "Omar", "text": "How is the surfing going?"},
                {
                    "turn_id": "S2:2",
                    "speaker": "Dana",
                    "text": "Great, here is my new board.",
                    "image_caption": "a yellow surfboard leaning on a wall",
                },
                {
                    "turn_id": "S2:3",
                    "speaker": "Omar",
                    "text": "My sister Lena adopted a parrot called Kiwi.",
                },
            ],
        },
    ],
}


def small_conversation(conversation_id: str = "c1") -> dict[str, Any]:
    conv = copy.deepcopy(SMALL_CONVERSATION)
    conv["conversation_id"] = conversation_id
    return conv


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def memory(home: Path):
    with Memory(home) as m:
        yield m
