"""A relative asked by kin ("my sister") resolves to the name the ledger holds at the time the
question is read, which is the newest turn when the conversation is dated after the wall clock
(as the reliability suite's conversations are): the ledger knows the sister only from then."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.memory import Memory

CONV = dated_conversation(
    [
        (
            "2031-03-02T18:00:00+00:00",
            [
                ("user", "My sister Oona is getting married in the spring."),
                ("assistant", "Congratulations to Oona!"),
                ("user", "Oona's a marine biologist in Galway, she studies seals."),
                ("assistant", "Oona, marine biologist in Galway."),
                ("user", "I'm a baker at Loaf & Ladle in Cork."),
            ],
        ),
    ],
    cid="k",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("kin")) / "home")
    mem.add_conversation(CONV, namespace="kin")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_my_sister_is_the_sister_the_ledger_names(memory: Memory, mode: str) -> None:
    answer = memory.ask("What does my sister do?", namespace="kin", mode=mode)
    assert "marine biologist" in answer.answer and "baker" not in answer.answer, answer.answer
