"""The async API shares the sync implementation: same results, and a deep aask's assistant LLM
calls overlap (counted by the stand-in model, not timed)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import small_conversation

from emem.agents.roles import RoleModels
from emem.cli.demo import example_conversation
from emem.eval.slow_llm import SlowScriptedChat
from emem.llm.langchain_adapter import LangChainChatModel
from emem.memory import Memory


def strip(answer):  # latency and stage timings differ between runs, nothing else may
    return answer.model_dump(exclude={"latency_ms", "stage_latency_ms"})


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_aask_equals_ask(memory: Memory, mode: str) -> None:
    memory.add_conversation(example_conversation(), namespace="demo")
    q = "Where does Alice live?"
    assert strip(asyncio.run(memory.aask(q, namespace="demo", mode=mode))) == strip(
        memory.ask(q, namespace="demo", mode=mode)
    )


def test_async_writes_search_consolidate_forget(memory: Memory) -> None:
    async def run() -> None:
        report = await memory.aadd_turns(
            [
                {
                    "conversation_id": "c",
                    "session_id": "s",
                    "turn_id": "1",
                    "speaker": "Ana",
                    "text": "I moved to Porto.",
                    "time": "2024-01-01T10:00:00Z",
                }
            ],
            namespace="ns",
        )
        assert report.added == 1
        msgs = await memory.aadd_messages(
            [{"role": "user", "content": "My cat is called Miso."}], namespace="ns", conversation_id="chat"
        )
        assert msgs.added == 1
        assert await memory.asearch("Porto", namespace="ns", k=1) == memory.search(
            "Porto", namespace="ns", k=1
        )
        hits = await memory.asearch("cat", namespace="ns", k=5, filter={"conversation_id": "chat"})
        assert [h.text for h in hits] == ["My cat is called Miso."]
        consolidated = await memory.aconsolidate("ns")
        assert consolidated is not None
        erased = await memory.aforget(namespace="ns", turn_ids=["1"], conversation_id="c")
        assert erased.namespace == "ns"
        assert all(h.conversation_id != "c" for h in await memory.asearch("Porto", namespace="ns", k=5))

    asyncio.run(run())


def test_aask_errors_like_ask(memory: Memory) -> None:
    memory.add_conversation(small_conversation(), namespace="ns")
    for kwargs in ({"mode": "slow"}, {"budget": 3}):
        with pytest.raises(Exception) as sync_err:
            memory.ask("q?", namespace="ns", **kwargs)
        with pytest.raises(type(sync_err.value), match=str(sync_err.value).split(":")[0]):
            asyncio.run(memory.aask("q?", namespace="ns", **kwargs))


def test_deep_aask_runs_assistants_concurrently(tmp_path: Path) -> None:
    slow = SlowScriptedChat(delay=0.2)
    roles = RoleModels({"assistant": LangChainChatModel(slow, model="slow")})
    with Memory(tmp_path / "h", roles=roles) as m:
        m.add_conversation(example_conversation(), namespace="demo")
        answer = asyncio.run(m.aask("What pets do Alice and Ben have?", namespace="demo", mode="deep"))
    assert len(answer.activated_segments) >= 2
    assert slow.calls == len(answer.activated_segments)
    assert slow.max_in_flight > 1  # the fan-out overlapped
