"""Each node of the master graph, imported and run alone: a plain function given a state and
LangGraph's `Runtime` whose context is a `ReadRuntime` over a real memory (offline roles, a
scripted chat model only where a node's LLM branch is under test)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.runtime import Runtime
from langgraph.types import Send

from emem.agents.master import master_graph
from emem.agents.roles import RoleModels
from emem.agents.state import MasterState
from emem.answer import Operation
from emem.cli.demo import example_conversation
from emem.llm.langchain_adapter import LangChainChatModel
from emem.memory import Memory
from emem.read.aggregate import aggregate
from emem.read.assistants import assistant
from emem.read.context import ReadRuntime
from emem.read.plan import after_plan, plan_node
from emem.read.read import read
from emem.read.retrieve import fast_retrieve
from emem.read.route import fan_out, hop, route

NS = "demo"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    with Memory(tmp_path_factory.mktemp("home")) as m:
        m.add_conversation(example_conversation(), namespace=NS)
        m.consolidate(NS)
        yield m


@pytest.fixture(scope="module")
def runtime(demo: Memory) -> Runtime[ReadRuntime]:
    return Runtime(context=ReadRuntime(demo, demo.roles))


def _state(question: str, mode: str = "auto", **more: Any) -> MasterState:
    return MasterState(question=question, namespace=NS, mode=mode, as_of=None, budget=300, **more)


def _planned(runtime: Runtime[ReadRuntime], question: str, mode: str = "auto") -> MasterState:
    state = _state(question, mode)
    state.update(plan_node(state, runtime=runtime))  # type: ignore[typeddict-item]
    return state


def test_plan_node_plans_offline_and_picks_the_mode(runtime: Runtime[ReadRuntime]) -> None:
    count = plan_node(_state("How many pets do Alice and Ben have?"), runtime=runtime)
    assert count["plan"].operation == Operation.COUNT and count["mode_used"] == "deep"
    assert [(c.role, c.backend) for c in count["calls"]] == [("planner", "offline")]
    assert "plan" in count["timings"] and "error" not in count
    forced = plan_node(_state("How many pets do Alice and Ben have?", mode="fast"), runtime=runtime)
    assert forced["mode_used"] == "fast"
    assert after_plan({**_state("q"), **forced}) == "fast_retrieve"  # type: ignore[typeddict-item]
    assert after_plan({**_state("q"), **count}) == "route"  # type: ignore[typeddict-item]


def test_plan_node_reports_a_failed_llm_planner_and_goes_to_read(demo: Memory) -> None:
    broken = LangChainChatModel(FakeListChatModel(responses=["not a plan"]), model="fake-planner")
    rt: Runtime[ReadRuntime] = Runtime(context=ReadRuntime(demo, RoleModels({"planner": broken})))
    out = plan_node(_state("Where does Alice live?"), runtime=rt)
    assert out["error"].startswith("planner failed") and out["mode_used"] == "deep"
    assert out["calls"][-1].ok is False and out["calls"][-1].model == "fake-planner"
    assert after_plan({**_state("q"), **out}) == "read"  # type: ignore[typeddict-item]


def test_fast_retrieve_finds_the_turn_and_activates_no_segment(runtime: Runtime[ReadRuntime]) -> None:
    state = _planned(runtime, "What did Alice make in pottery class?", mode="fast")
    out = fast_retrieve(state, runtime=runtime)
    assert out["activated"] == [] and out["evidence"]
    assert any("pottery" in e.text.lower() for e in out["evidence"][:3])


def test_route_activates_segments_and_fan_out_hands_each_to_an_assistant(
    demo: Memory, runtime: Runtime[ReadRuntime]
) -> None:
    state = _planned(runtime, "What pets do Alice and Ben have?", mode="deep")
    out = route(state, runtime=runtime)
    ids = [a.segment_id for a in out["activated"]]
    assert len(ids) > 1 and out["pending"] == out["activated"] and out["hops"] == [ids]
    view = runtime.context.view(NS)
    assert set(ids) <= set(view.segment_index)
    state.update(out)  # type: ignore[typeddict-item]
    # Offline rule assistants: one Send for the hop, one assistant (one report) per segment in it.
    sends = fan_out(state, runtime=runtime)
    assert isinstance(sends, list) and len(sends) == 1
    assert sends[0].node == "assistant" and [sid for sid, _ in sends[0].arg["segments"]] == ids
    done = assistant(sends[0].arg, runtime=runtime)
    assert [r.segment_id for r in done["reports"]] == ids and len(done["calls"]) == len(ids)
    # Model assistants: one Send per segment, so their calls run at once.
    chat = LangChainChatModel(FakeListChatModel(responses=["{}"]), model="fake-assistant")
    llm: Runtime[ReadRuntime] = Runtime(context=ReadRuntime(demo, RoleModels({"assistant": chat})))
    sends = fan_out(state, runtime=llm)
    assert isinstance(sends, list) and all(isinstance(s, Send) and s.node == "assistant" for s in sends)
    assert [s.arg["segments"] for s in sends] == [[pair] for pair in sends_pairs(state)]
    assert fan_out({**state, "pending": []}, runtime=runtime) == "aggregate"


def sends_pairs(state: MasterState) -> list[tuple[str, float]]:
    """(segment id, min-max routing score) of the pending segments, as fan_out hands them."""
    scores = [a.score for a in state["activated"]]
    lo, hi = min(scores), max(scores)
    return [(a.segment_id, (a.score - lo) / (hi - lo) if hi > lo else 1.0) for a in state["pending"]]


def test_assistant_reads_only_its_segment(runtime: Runtime[ReadRuntime]) -> None:
    state = _planned(runtime, "What pets do Alice and Ben have?", mode="deep")
    segment = route(state, runtime=runtime)["activated"][0].segment_id
    task = {"question": state["question"], "namespace": NS, "segments": [(segment, 1.0)], "plan": state["plan"],
            "as_of": None, "budget": 300}  # fmt: skip
    out = assistant(task, runtime=runtime)  # type: ignore[arg-type]
    (report,) = out["reports"]
    assert report.segment_id == segment and out["calls"][0].backend == "offline"
    turns = {
        t.turn_id
        for t in runtime.context.view(NS).segments[runtime.context.view(NS).segment_index[segment]].turns
    }
    assert report.evidence and {e.turn_id for e in report.evidence} <= turns


def test_hop_stops_at_max_hops_and_otherwise_routes_from_the_evidence(demo: Memory) -> None:
    one: Runtime[ReadRuntime] = Runtime(context=ReadRuntime(demo, demo.roles, max_hops=1))
    two: Runtime[ReadRuntime] = Runtime(context=ReadRuntime(demo, demo.roles, max_hops=2))
    state = _planned(two, "What pets do Alice and Ben have?", mode="deep")
    state.update(route(state, runtime=two))  # type: ignore[typeddict-item]
    assert hop(state, runtime=one) == {"pending": []}
    reports = [r for task in fan_out(state, runtime=two) for r in assistant(task.arg, runtime=two)["reports"]]  # type: ignore[union-attr]
    out = hop({**state, "reports": reports}, runtime=two)
    done = {a.segment_id for a in state["activated"]}
    assert len(out["hops"]) == 2 and not done & {a.segment_id for a in out["pending"]}
    assert [a.segment_id for a in out["activated"]][: len(done)] == [a.segment_id for a in state["activated"]]


def test_aggregate_packs_under_the_budget_and_read_answers_from_the_pack(
    runtime: Runtime[ReadRuntime],
) -> None:
    state = _planned(runtime, "What did Alice make in pottery class?", mode="fast")
    state.update(fast_retrieve(state, runtime=runtime))  # type: ignore[typeddict-item]
    out = aggregate({**state, "budget": 120}, runtime=runtime)
    assert out["pack"].budget == 120 and 0 < out["pack"].tokens <= 120
    packed = {(e.conversation_id, e.turn_id) for c in out["pack"].closures for e in c.evidence}
    assert packed <= {(e.conversation_id, e.turn_id) for e in out["evidence"]}
    state.update(out)  # type: ignore[typeddict-item]
    answer = read(state, runtime=runtime)["answer"]
    assert (
        answer.status == "answered" and answer.mode_used == "fast" and answer.context == out["pack"].context()
    )
    failed = read({**state, "error": "planner failed: x"}, runtime=runtime)["answer"]
    assert failed.status == "error" and failed.answer == "" and failed.error == "planner failed: x"


def test_the_graph_wires_these_functions() -> None:
    nodes = master_graph().builder.nodes
    wired = {name: spec.runnable.func for name, spec in nodes.items()}  # type: ignore[attr-defined]
    assert wired == {
        "plan": plan_node,
        "fast_retrieve": fast_retrieve,
        "route": route,
        "assistant": assistant,
        "hop": hop,
        "aggregate": aggregate,
        "read": read,
    }
