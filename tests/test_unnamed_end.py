"""An end that names nothing ("I don't live there any more") does not end a value the speaker
gave in the same sitting: "there" is the place left, not the one just moved to. A conversation
written for this test, through Memory (a real store)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.memory import Memory

NS = "unnamed-end"
CONV = dated_conversation(
    [
        (
            "2031-01-10T10:00:00+00:00",
            [
                ("user", "I live in a flat on Elm Row in Leith. The entry code for the stair is 8812."),
                ("assistant", "Noted."),
            ],
        ),
        (
            "2031-06-10T10:00:00+00:00",
            [
                ("user", "I moved to Dundee last month, I'm at the university now."),
                ("assistant", "Big change!"),
                ("user", "And that entry code I gave you - please forget it, I don't live there any more."),
                ("assistant", "Done."),
            ],
        ),
    ],
    cid="c",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    mem = Memory(Path(tmp_path_factory.mktemp("unnamed-end")) / "home")
    mem.add_conversation(CONV, namespace=NS)
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_there_is_not_the_home_just_moved_to(memory: Memory, mode: str) -> None:
    home = memory.ask("Where do I live?", namespace=NS, mode=mode)
    assert "Dundee" in home.answer
    then = memory.ask("Where do I live?", namespace=NS, mode=mode, as_of="2031-03-01T00:00:00+00:00")
    assert "Leith" in then.answer
