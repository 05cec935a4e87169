"""Deep mode's third hop (issue #16): as wide as the first for questions that gather members
(LIST, COUNT), `ReadConfig.late_hop_segments` wide for the rest, and seeded from what the second
hop added rather than again from the first hop's best turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emem.agents.deep import MAX_HOPS, hop_width
from emem.answer import Operation, Plan
from emem.config import MemoryConfig, ReadConfig
from emem.memory import Memory


def _plan(op: Operation) -> Plan:
    return Plan(operation=op)


@pytest.mark.parametrize("op", [Operation.LIST, Operation.COUNT])
def test_gathering_questions_keep_every_hop_wide(op: Operation) -> None:
    assert [hop_width(_plan(op), done, 5, 1) for done in (1, 2, 3)] == [5, 5, 5]


@pytest.mark.parametrize("op", [Operation.FACT, Operation.TEMPORAL_LOOKUP, Operation.TEMPORAL_ARITHMETIC])
def test_other_questions_get_a_narrow_third_hop(op: Operation) -> None:
    assert hop_width(_plan(op), 1, 5, 1) == 5  # the second hop is as wide as the first
    assert hop_width(_plan(op), 2, 5, 1) == 1
    assert hop_width(_plan(op), 2, 5, 0) == 0  # 0: two hops only
    assert hop_width(_plan(op), 2, 3, 9) == 3  # never wider than the first


def test_defaults_are_three_hops_and_a_one_segment_late_hop() -> None:
    assert MAX_HOPS == 3 and ReadConfig().late_hop_segments == 1


def _session(n: int, turns: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "session_id": f"S{n}",
        "time": f"2023-{n:02d}-01T10:00:00+00:00",
        "turns": [{"turn_id": f"S{n}:{i + 1}", "speaker": s, "text": t} for i, (s, t) in enumerate(turns)],
    }


# A chain: the question names S1's words; S1 names Ravi, whom S2 is about; S2 names the fado
# festival, which S3 is about. S3 shares no word with S1 or the question: it is reached through
# S2's words. S4-S6 are filler.
CONVERSATION: dict[str, Any] = {
    "conversation_id": "trips",
    "sessions": [
        _session(1, [
            ("Omar", "Where did you travel this spring?"),
            ("Dana", "I travelled to Lisbon with my cousin Ravi, we walked the old town for days."),
        ]),
        _session(2, [
            ("Omar", "How is Ravi doing?"),
            ("Dana", "Ravi dragged me to Porto for the fado festival, he sings now!"),
        ]),
        _session(3, [
            ("Omar", "Still listening to fado?"),
            ("Dana", "After the fado night we drove on to Coimbra and saw the university library."),
        ]),
        _session(4, [("Omar", "I fixed my bike's brakes today."), ("Dana", "I baked bread and walked the dog.")]),
        _session(5, [("Omar", "My sister adopted a kitten."), ("Dana", "Kittens are a lot of work, congrats to her.")]),
        _session(6, [("Omar", "Work was busy all week."), ("Dana", "Same here, deadlines everywhere.")]),
    ],
}  # fmt: skip


def _hops(home: Path, max_hops: int, late: int = 1) -> list[list[str]]:
    config = MemoryConfig(read=ReadConfig(activate=1, late_hop_segments=late))
    with Memory(home, config=config) as m:
        m.add_conversation(CONVERSATION, namespace="trips")
        m.read_runtime.max_hops = max_hops
        a = m.ask("Which cities has Dana travelled to?", namespace="trips", mode="deep")
    assert a.operation == Operation.LIST
    out, at = [], 0
    for n in a.usage.segments_per_hop:
        out.append([s.session_id for s in a.activated_segments[at : at + n]])
        at += n
    return out


def test_the_third_hop_follows_what_the_second_found(tmp_path: Path) -> None:
    hops = _hops(tmp_path / "three", 3)
    assert hops == [["S1"], ["S2"], ["S3"]]
    assert _hops(tmp_path / "two", 2) == hops[:2]  # ReadRuntime(max_hops=2): today's two hops


def test_the_third_hop_is_seeded_by_the_second_hops_turns_only(tmp_path: Path) -> None:
    from langgraph.runtime import Runtime

    from emem.agents.state import MasterState
    from emem.read.assistants import assistant
    from emem.read.plan import plan_node
    from emem.read.route import fan_out, hop, route

    config = MemoryConfig(read=ReadConfig(activate=1))
    with Memory(tmp_path / "home", config=config) as m:
        m.add_conversation(CONVERSATION, namespace="trips")
        rt: Runtime[Any] = Runtime(context=m.read_runtime)
        state = MasterState(question="Which cities has Dana travelled to?", namespace="trips", mode="deep",
                            as_of=None, budget=2000)  # fmt: skip
        state.update(plan_node(state, runtime=rt))  # type: ignore[typeddict-item]
        state.update(route(state, runtime=rt))  # type: ignore[typeddict-item]
        state["reports"] = []
        terms: list[list[str]] = []
        for _ in range(2):
            tasks = fan_out(state, runtime=rt)
            assert not isinstance(tasks, str)
            for task in tasks:
                state["reports"] = [*state["reports"], *assistant(task.arg, runtime=rt)["reports"]]
            before = len(state.get("hop_terms", []))
            state.update(hop(state, runtime=rt))  # type: ignore[typeddict-item]
            terms.append(state["hop_terms"][before:])
    assert {"ravi", "lisbon", "cousin"} <= set(terms[0])  # S1, the first hop's, seeds hop 2
    assert "fado" in terms[1] and "porto" in terms[1]
    # hop 1's turns do not seed hop 3 again; the ledger's values do seed every hop ("Dana visited
    # Lisbon", once the read has caught the ledger up)
    ledger_words = {w.lower() for f in state["facts"] for v in f.values for w in v.split()}
    assert not ({"lisbon", "cousin"} - ledger_words) & set(terms[1])
    assert [len(h) for h in state["hops"]] == [1, 1, 1]
