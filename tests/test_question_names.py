"""Who a question names: accented names and names ending in "s" are the question's subjects."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation
from test_reader_corrections import MODES

from emem.agents.planner import find_entities
from emem.memory import Memory


def test_a_possessive_takes_only_its_s() -> None:
    assert find_entities("Which street is Ines's flat on?", []) == ["Ines"]
    assert find_entities("What does James's dog eat?", []) == ["James"]
    assert find_entities("What is Lucía's cat called?", []) == ["Lucía"]


@pytest.mark.parametrize("mode", MODES)
def test_an_accented_name_in_the_question_is_its_subject(tmp_path: Path, mode: str) -> None:
    conv = dated_conversation(
        [
            (
                "2025-01-05T10:00:00Z",
                [
                    ("user", "My neighbour Lucía got a kitten."),
                    ("assistant", "Lovely! What is it called?"),
                    ("user", "Lucía's cat is called Mochi, not Miso."),
                ],
            )
        ],
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        a = m.ask("What is Lucía's cat called?", namespace="n", mode=mode)
        assert a.status == "answered" and "Mochi" in a.answer and "Miso" not in a.answer
