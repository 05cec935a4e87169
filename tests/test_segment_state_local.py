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


def _ask(chat, memory: Memory, seg, question: str, states: bool = True):
    """One assistant prompt on `seg`, with a short reply (the 135M model rambles to max_tokens)."""
    from emem.agents.assistant import _task, segment_prefix
    from emem.prompting import load_prompt

    messages = [
        {"role": "system", "content": load_prompt("assistant").text},
        {"role": "user", "content": _task(seg, question, "FACT")},
    ]
    if not states:
        return chat.chat("assistant", messages, max_tokens=24)
    prefix = segment_prefix(seg, messages, NS, chat.model_id, "p")
    return chat.chat_segment("assistant", messages, prefix, memory.segment_states, max_tokens=24)


def test_restored_prefix_answers_like_text_and_computes_only_the_question(chat, home: Path) -> None:
    with Memory(home) as memory:
        memory.add_conversation(small_conversation("c1"), namespace=NS)
        seg = memory.read_runtime.view(NS).segments[-1]
        question = "What is the name of Lena's parrot?"
        text = _ask(chat, memory, seg, question, states=False)
        cold = _ask(chat, memory, seg, question)
        warm = _ask(chat, memory, seg, question)
        assert cold.call.state_built and cold.call.restored_tokens == 0
        assert warm.call.restored_tokens > 0 and warm.call.restored_bytes > 0 and not warm.call.state_built
        assert cold.call.prompt_tokens == warm.call.prompt_tokens
        # The text path tokenises the prompt whole: the cut may merge differently by a token.
        assert abs(text.call.prompt_tokens - cold.call.prompt_tokens) <= 2
        # Computed: the question, the operation and the reply format (about 100 tokens).
        assert warm.call.prompt_tokens - warm.call.restored_tokens < 130 < warm.call.restored_tokens
        # Greedy decoding over the same tokens: the same reply.
        assert cold.text == warm.text
        other = _ask(chat, memory, seg, "Where does Dana surf?")
        assert other.call.restored_tokens == warm.call.restored_tokens  # one state per segment
        assert memory.stats(NS).segment_states.states == 1  # type: ignore[union-attr]


def test_forget_deletes_the_state_files_holding_the_turn(chat, home: Path) -> None:
    from emem.llm.llama_state import decode_state

    with Memory(home) as memory:
        memory.add_conversation(small_conversation("c1"), namespace=NS)
        for seg in memory.read_runtime.view(NS).segments:
            _ask(chat, memory, seg, "Who has a parrot?")
        secret = chat._llm.tokenize(b" adopted a parrot called Kiwi", add_bos=False)
        root = home / STATE_DIR

        def holders() -> list[Path]:
            return [p for p in root.glob("*.state") if _contains(decode_state(p.read_bytes())[0], secret)]

        assert len(holders()) == 1 and len(list(root.glob("*.state"))) == 2
        memory.forget(namespace=NS, turn_ids=["S2:3"])
        assert holders() == [] and len(list(root.glob("*.state"))) == 1
        # Rebuilding the surviving segment without the turn gives a state without its tokens.
        _ask(chat, memory, memory.read_runtime.view(NS).segments[-1], "Who has a parrot?")
        assert holders() == []
