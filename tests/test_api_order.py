"""One argument order across the public API, and old-order calls still working with a warning."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

from emem import Memory
from emem.deprecation import EmemDeprecationWarning

CONV = {
    "conversation_id": "c1",
    "speakers": ["user", "assistant"],
    "sessions": [
        {
            "session_id": "S1",
            "time": "2024-05-01T10:00:00",
            "turns": [
                {"turn_id": "S1:1", "speaker": "user", "text": "I live in Lisbon and I work at Acme Corp."},
                {"turn_id": "S1:2", "speaker": "assistant", "text": "Noted, Lisbon and Acme Corp."},
            ],
        }
    ],
}

NAMESPACE_ONLY = {
    "index",
    "stats",
    "consolidate",
    "aconsolidate",
    "drop_namespace",
    "forget_requests",
    "namespace_exists",
    "segment_summaries",
}


def _public_methods() -> list[tuple[str, inspect.Signature]]:
    out = []
    for name, fn in inspect.getmembers(Memory, predicate=inspect.isfunction):
        if name.startswith("_"):
            continue
        sig = inspect.signature(fn)
        if "namespace" in sig.parameters:
            out.append((name, sig))
    return out


def test_every_public_method_takes_the_namespace_the_same_way() -> None:
    methods = dict(_public_methods())
    assert {"ask", "search", "resolve", "forget", "add_turns", "stats"} <= methods.keys()
    for name, sig in methods.items():
        ns = sig.parameters["namespace"]
        if name in NAMESPACE_ONLY:
            assert list(sig.parameters)[1] == "namespace", name
        else:
            assert ns.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: namespace must be keyword-only"
            assert ns.default is inspect.Parameter.empty, f"{name}: namespace must be required"


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "home")
    m.add_conversation(CONV, namespace="ns")
    return m


def test_old_order_calls_warn_and_give_the_same_results(memory: Memory) -> None:
    new_hits = memory.search("Lisbon", namespace="ns", k=2)
    with pytest.warns(EmemDeprecationWarning, match=r"search\(\.\.\., namespace='ns'\)"):
        old_hits = memory.search("Lisbon", "ns", 2)
    assert [h.turn_id for h in old_hits] == [h.turn_id for h in new_hits]

    memory.consolidate("ns")
    new_res = memory.resolve("user", "lives_in", namespace="ns")
    with pytest.warns(EmemDeprecationWarning, match="resolve"):
        old_res = memory.resolve("ns", "user", "lives_in")
    assert old_res.status == new_res.status == "state"
    assert old_res.values == new_res.values and "Lisbon" in str(new_res.values)

    with pytest.warns(EmemDeprecationWarning, match="ask"):
        old_answer = memory.ask("Where does the user live?", "ns", "fast")
    new_answer = memory.ask("Where does the user live?", "fast", namespace="ns")
    assert old_answer.answer == new_answer.answer
    assert old_answer.mode_used == new_answer.mode_used == "fast"


def test_old_order_async_calls_warn_too(memory: Memory) -> None:
    async def run() -> tuple[list[str], list[str]]:
        with pytest.warns(EmemDeprecationWarning, match="asearch"):
            old = await memory.asearch("Acme", "ns")
        new = await memory.asearch("Acme", namespace="ns")
        return [h.turn_id for h in old], [h.turn_id for h in new]

    old, new = asyncio.run(run())
    assert old == new and old


def test_old_order_forget_erases_the_same_way(memory: Memory) -> None:
    with pytest.warns(EmemDeprecationWarning, match="forget"):
        report = memory.forget("ns", turn_ids=["S1:2"])
    assert report.turns == 1
    assert [h.turn_id for h in memory.search("Acme", namespace="ns")] == ["S1:1"]


def test_new_order_emits_no_warning(memory: Memory, recwarn: pytest.WarningsRecorder) -> None:
    memory.add_turns(
        [
            {
                "conversation_id": "c1",
                "session_id": "S2",
                "turn_id": "S2:1",
                "speaker": "user",
                "text": "We moved to Porto.",
                "time": "2024-06-01T10:00:00",
            }
        ],
        namespace="ns",
    )
    memory.search("Porto", namespace="ns")
    memory.facts(namespace="ns")
    assert not [w for w in recwarn if issubclass(w.category, EmemDeprecationWarning)]
