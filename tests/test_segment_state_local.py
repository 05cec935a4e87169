"""Saved segment states with a real local model (llama.cpp in-process): a restored prefix gives
the same reply as evaluating it, computes only the question's tokens, and erasure deletes every
state file that holds an erased turn's tokens.

Opt-in like tests/test_llm_local.py: marked `local_llm`, skipped unless EMEM_LOCAL_LLM_MODEL names
a GGUF file (smollm2-135m is enough) and llama_cpp is importable."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import small_conversation

from emem.agents.assistant import llm_assistant
from emem.answer import Operation, Plan
from emem.memory import Memory
from emem.segment_state import STATE_DIR

REAL_MODEL = os.environ.get("EMEM_LOCAL_LLM_MODEL")
pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.skipif(
        not REAL_MODEL or find_spec("llama_cpp") is None,
        reason="set EMEM_LOCAL_LLM_MODEL to a GGUF path and install emem[local]",
    ),
]
NS = "kv"


@pytest.fixture(scope="module")
def chat():
    from emem.llm.llama_state import LlamaStateChat

    assert REAL_MODEL is not None
    return LlamaStateChat(Path(REAL_MODEL).expanduser(), "test-model", n_ctx=2048)


def _contains(haystack: list[int], needle: list[int]) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def test_restored_prefix_answers_like_text_and_computes_only_the_question(chat, home: Path) -> None:
    with Memory(home) as memory:
        memory.add_conversation(small_conversation("c1"), namespace=NS)
        seg = memory.read_runtime.view(NS).segments[-1]
        plan = Plan(operation=Operation.FACT)
        question = "What is the name of Lena's parrot?"
        text_report, text_call = llm_assistant(seg, question, plan, chat)  # no states: text path
        cold, cold_call = llm_assistant(seg, question, plan, chat, states=memory.segment_states, namespace=NS)
        warm, warm_call = llm_assistant(seg, question, plan, chat, states=memory.segment_states, namespace=NS)
        assert cold_call.state_built and cold_call.restored_tokens == 0
        assert warm_call.restored_tokens > 0 and warm_call.restored_bytes > 0 and not warm_call.state_built
        assert text_call.prompt_tokens == cold_call.prompt_tokens == warm_call.prompt_tokens
        assert warm_call.prompt_tokens - warm_call.restored_tokens < 60  # question and format only
        # Greedy decoding over the same tokens: the same reply (hence the same report).
        assert text_report == cold == warm
        other, other_call = llm_assistant(
            seg, "Where does Dana surf?", plan, chat, states=memory.segment_states, namespace=NS
        )
        assert other_call.restored_tokens == warm_call.restored_tokens  # one state per segment
        assert memory.stats(NS).segment_states.states == 1  # type: ignore[union-attr]


def test_forget_deletes_the_state_files_holding_the_turn(chat, home: Path) -> None:
    from emem.llm.llama_state import decode_state

    with Memory(home) as memory:
        memory.add_conversation(small_conversation("c1"), namespace=NS)
        plan = Plan(operation=Operation.FACT)
        for seg in memory.read_runtime.view(NS).segments:
            llm_assistant(seg, "Who has a parrot?", plan, chat, states=memory.segment_states, namespace=NS)
        secret = chat._llm.tokenize(b" adopted a parrot called Kiwi", add_bos=False)
        root = home / STATE_DIR

        def holders() -> list[Path]:
            return [p for p in root.glob("*.state") if _contains(decode_state(p.read_bytes())[0], secret)]

        assert len(holders()) == 1 and len(list(root.glob("*.state"))) == 2
        memory.forget(namespace=NS, turn_ids=["S2:3"])
        assert holders() == [] and len(list(root.glob("*.state"))) == 1
        # Rebuilding the surviving segment without the turn gives a state without its tokens.
        seg = memory.read_runtime.view(NS).segments[-1]
        llm_assistant(seg, "Who has a parrot?", plan, chat, states=memory.segment_states, namespace=NS)
        assert holders() == []
