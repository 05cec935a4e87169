"""A name asked of a partner ("What's my partner called?") is the name the partner value gives
("a wife named Delyth"), though "partner" also cues the relationship status ("married"), whose
value names nobody."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.memory import Memory


@pytest.mark.parametrize("mode", ["auto", "fast"])
def test_a_name_asked_of_a_partner_is_the_partners_name(tmp_path: Path, mode: str) -> None:
    m = Memory(tmp_path / "h")
    conv = dated_conversation(
        [
            (
                "2025-07-01T09:00:00+00:00",
                [("user", "My wife Delyth says hi, by the way. We've been married six years.")],
            )
        ],
        cid="c",
    )
    m.add_conversation(conv, namespace="p")
    a = m.ask("What's my partner called?", namespace="p", mode=mode)
    assert a.status == "answered" and "Delyth" in a.answer, a.answer


def test_a_name_asked_of_one_kind_is_not_another_kinds(tmp_path: Path) -> None:
    m = Memory(tmp_path / "h")
    conv = dated_conversation(
        [("2025-07-01T09:00:00+00:00", [("user", "We've got a cat named Figgy, she rules the house.")])],
        cid="c",
    )
    m.add_conversation(conv, namespace="p")
    dog = m.ask("What's my dog called?", namespace="p", mode="fast")
    assert dog.status == "abstained" and "Figgy" not in dog.answer, dog.answer
    pet = m.ask("What's my pet called?", namespace="p", mode="fast")
    assert "Figgy" in pet.answer, pet.answer
