"""The master agent: a LangGraph `StateGraph` that plans a question, routes it through three
pathways, fans out to assistant agents with `Send`, aggregates their verbatim evidence through
the ledger, packs provenance closures under a token budget, and reads.

    plan ─┬─ fast ─► fast_retrieve ─────────────────────────────┐
          └─ deep ─► route ─► assistant ×N (Send) ─► hop ─(new)─┴─► aggregate ─► read

This module only wires the graph. Each node is a module-level function in `emem/read/` (one
module per stage) that receives its dependencies, a `ReadRuntime`, as LangGraph's run context
(`Runtime.context`), so each can be imported and tested alone.
"""

from __future__ import annotations

import functools
import time
from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from emem.agents.state import MasterState
from emem.answer import ABSTAIN, Answer
from emem.config import DEFAULT
from emem.read.aggregate import aggregate
from emem.read.assistants import assistant
from emem.read.context import ReadRuntime
from emem.read.plan import after_plan, plan_node
from emem.read.read import DEFAULT_BUDGET, read
from emem.read.retrieve import fast_retrieve
from emem.read.route import fan_out, hop, route

FAST_K = DEFAULT.read.fast_k


@functools.cache
def master_graph() -> CompiledStateGraph[Any, ReadRuntime, Any, Any]:
    """The master graph, compiled once per process. It holds no state of its own: run it with
    a `ReadRuntime` as context, `master_graph().invoke(inputs, context=runtime)`.

    Returns:
        The compiled graph (input: question, namespace, mode, as_of, budget, filter; output:
        answer).
    """
    graph = StateGraph(MasterState, context_schema=ReadRuntime)
    graph.add_node("plan", plan_node)
    graph.add_node("fast_retrieve", fast_retrieve)
    graph.add_node("route", route)
    graph.add_node("assistant", assistant)
    graph.add_node("hop", hop)
    graph.add_node("aggregate", aggregate)
    graph.add_node("read", read)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", after_plan, ["fast_retrieve", "route", "read"])
    graph.add_edge("fast_retrieve", "aggregate")
    graph.add_conditional_edges("route", fan_out, ["assistant", "aggregate"])
    graph.add_edge("assistant", "hop")
    graph.add_conditional_edges("hop", fan_out, ["assistant", "aggregate"])
    graph.add_edge("aggregate", "read")
    graph.add_edge("read", END)
    return graph.compile()


def build_master_graph(runtime: ReadRuntime) -> CompiledStateGraph[Any, None, Any, Any]:
    """The master graph bound to one `ReadRuntime`, for callers that pass no context: a graph
    with one node that runs `master_graph()` with `runtime` as its context. Embed it as a subgraph
    in your own graph (the parent's context, if any, is not emem's), or run it with `ask_graph`.

    Args:
        runtime: the dependencies the nodes share (a `Memory`'s is `memory.read_runtime`).

    Returns:
        The compiled graph, with the master graph's input and output keys.
    """

    def memory(state: MasterState) -> dict[str, Any]:
        return master_graph().invoke(state, context=runtime)

    async def amemory(state: MasterState) -> dict[str, Any]:
        return await master_graph().ainvoke(state, context=runtime)

    graph = StateGraph(MasterState)
    graph.add_node("memory", RunnableLambda(memory, afunc=amemory))
    graph.add_edge(START, "memory")
    graph.add_edge("memory", END)
    return graph.compile()


def _finished(answer: Answer, start: float, settle_ms: float) -> Answer:
    """Stamp the answer's latency, including the read-through consolidation that preceded it."""
    update: dict[str, Any] = {"latency_ms": (time.perf_counter() - start) * 1000 + settle_ms}
    if settle_ms:
        update["stage_latency_ms"] = {"consolidate": settle_ms, **answer.stage_latency_ms}
    return answer.model_copy(update=update)


def _graph_input(
    question: str, namespace: str, mode: str, as_of: datetime | None, budget: int, filter: Any = None
) -> dict[str, Any]:
    return {
        "question": question,
        "namespace": namespace,
        "mode": mode,
        "as_of": as_of,
        "budget": budget,
        "filter": filter,
    }


def ask_graph(
    graph: Any, *args: Any, settle_ms: float = 0.0, context: ReadRuntime | None = None, **kwargs: Any
) -> Answer:
    """Run the read graph on one question (arguments as `_graph_input`: question, namespace, mode,
    as_of, budget, filter); `settle_ms` is the read-through consolidation that preceded it;
    `context` is the `ReadRuntime` when `graph` is `master_graph()` (a bound graph needs none)."""
    start = time.perf_counter()
    if context is None:
        out = graph.invoke(_graph_input(*args, **kwargs))
    else:
        with context.one_view_per_ask():
            out = graph.invoke(_graph_input(*args, **kwargs), context=context)
    return _finished(out["answer"], start, settle_ms)


async def aask_graph(
    graph: Any, *args: Any, settle_ms: float = 0.0, context: ReadRuntime | None = None, **kwargs: Any
) -> Answer:
    """`ask_graph` through `ainvoke`: the graph's parallel assistants run concurrently."""
    start = time.perf_counter()
    if context is None:
        out = await graph.ainvoke(_graph_input(*args, **kwargs))
    else:
        with context.one_view_per_ask():
            out = await graph.ainvoke(_graph_input(*args, **kwargs), context=context)
    return _finished(out["answer"], start, settle_ms)


__all__ = [
    "ABSTAIN",
    "ReadRuntime",
    "master_graph",
    "build_master_graph",
    "ask_graph",
    "aask_graph",
    "DEFAULT_BUDGET",
    "FAST_K",
]
