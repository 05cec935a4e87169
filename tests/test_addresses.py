"""Addresses written name first, as most of Europe writes them ("Sint-Pietersplein 4", "Rue des
Capucins 14"), are addresses; the latest one answers "What's my address?" and the one said by then
answers it as of an earlier date. Not every capitalised word and number is one ("Gate 12").
The conversation is written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.agents.spans import AnswerType, typed_span
from emem.memory import Memory


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("my address is Kouter 12, Ghent", "Kouter 12"),
        ("the new address is Sint-Pietersplein 4", "Sint-Pietersplein 4"),
        ("post goes to Rue des Capucins 14, 13001 Marseille", "Rue des Capucins 14"),
        ("we rent the Bergstraße 7 flat", "Bergstraße 7"),
        ("I live at 14 Oak Lane", "14 Oak Lane"),
    ],
)
def test_an_address_written_name_first(text: str, address: str) -> None:
    assert typed_span(AnswerType.ADDRESS, text, None, set()) == address


@pytest.mark.parametrize("text", ["meet me at Gate 12", "on Monday 12 we fly", "I was at Route 66"])
def test_a_name_and_a_number_is_not_always_an_address(text: str) -> None:
    assert typed_span(AnswerType.ADDRESS, text, None, set()) is None


CONV = dated_conversation(
    [
        ("2025-01-10T09:00:00+00:00", [("user", "My address is Kouter 12, Ghent, for the parcel forms.")]),
        ("2025-09-10T09:00:00+00:00", [("user", "We moved! My new address is Sint-Pietersplein 4.")]),
    ],
    cid="a",
)


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_the_address_of_the_asked_time(tmp_path: Path, mode: str) -> None:
    mem = Memory(tmp_path / "home")
    try:
        mem.add_conversation(CONV, namespace="a")
        now = mem.ask("What's my address?", namespace="a", mode=mode)
        assert "Sint-Pietersplein 4" in now.answer and "Kouter" not in now.answer, now.answer
        then = mem.ask("What's my address?", namespace="a", mode=mode, as_of="2025-03-01T00:00:00+00:00")
        assert "Kouter 12" in then.answer, then.answer
    finally:
        mem.close()
