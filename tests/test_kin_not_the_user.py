"""A question about the user's relative ("Where does my dad live now?") is not answered by the
user's own facts: the ledger's home of the user is not the dad's, in every mode and in a
conversation whose user has a name."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.memory import Memory


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(Path(tmp_path_factory.mktemp("kin")) / "h")
    for cid, user in (("u", "user"), ("n", "Orla")):
        conv = dated_conversation(
            [
                (
                    "2025-02-03T09:00:00+00:00",
                    [
                        (user, "My dad moved in with me after his hip operation."),
                        ("assistant", "How is he doing?"),
                        (user, "We're in my two-bedroom flat in Shawlands, so it's tight."),
                    ],
                ),
                (
                    "2025-07-20T09:00:00+00:00",
                    [(user, "Dad moved out at the start of July, into sheltered housing in Partick.")],
                ),
            ],
            cid=cid,
        )
        m.add_conversation(conv, namespace=cid)
    return m


@pytest.mark.parametrize("namespace", ["u", "n"])
@pytest.mark.parametrize("mode", ["auto", "deep", "fast"])
def test_my_dads_home_is_not_mine(memory: Memory, namespace: str, mode: str) -> None:
    dad = memory.ask("Where does my dad live now?", namespace=namespace, mode=mode)
    assert "Partick" in dad.answer and "Shawlands" not in dad.answer, dad.answer
    mine = memory.ask("Where do I live?", namespace=namespace, mode=mode)
    assert "Shawlands" in mine.answer, mine.answer
