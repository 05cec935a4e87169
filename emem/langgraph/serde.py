"""emem's types registered for LangGraph checkpoints.

A graph that keeps emem objects in its state (the `answer` of the master graph embedded as a
subgraph, a plan, evidence, a filter) checkpoints them with msgpack. LangGraph's default
serializer then warns "Deserializing unregistered type emem.answer.Answer ... will be blocked in
a future version" on every load, and strict mode (LANGGRAPH_STRICT_MSGPACK=true) blocks types it
cannot find in a state schema. `checkpoint_serializer()` allows exactly emem's types, explicitly:

    saver = InMemorySaver(serde=checkpoint_serializer())

Under LangGraph's strict mode (LANGGRAPH_STRICT_MSGPACK=true, announced as the future default)
nothing needs registering: LangGraph allows the types a graph's state schema names, so a parent
graph whose state is (or extends) `AskState` checkpoints the `Answer` of an embedded
`memory.graph()` without a warning and without being blocked.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TypedDict

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from emem.agents.assistant import AssistantReport
from emem.answer import ActivatedSegment, Answer, Closure, EvidenceItem, FactItem, Operation, PackResult, Plan
from emem.llm.usage import LLMCall, RoleUsage, Usage
from emem.retrieval.filters import TurnFilter

CHECKPOINT_TYPES: tuple[type, ...] = (
    Answer, Operation, Plan, EvidenceItem, FactItem, ActivatedSegment, Closure, PackResult,
    LLMCall, RoleUsage, Usage, AssistantReport, TurnFilter,
)  # fmt: skip
"""Every emem type the read graph's state can hold."""


class AskState(TypedDict, total=False):
    """The keys `memory.graph()` reads and writes, typed, for a parent graph's state schema."""

    question: str
    """The question to answer from memory."""
    namespace: str
    """The tenant to read."""
    mode: str
    """"fast", "deep" or "auto"."""
    as_of: datetime | None
    """Answer as known at this time."""
    budget: int
    """Token budget for the packed context."""
    answer: Answer
    """What the memory graph answered, with its evidence and cost."""


def checkpoint_serializer(extra: Iterable[type] = ()) -> JsonPlusSerializer:
    """LangGraph's serializer with emem's types (and `extra`) on its msgpack allowlist.

    Args:
        extra: your own types kept in graph state, to allow as well.

    Returns:
        A `JsonPlusSerializer` to pass as `serde=` to a checkpoint saver.
    """
    return JsonPlusSerializer(
        allowed_msgpack_modules=[(t.__module__, t.__name__) for t in (*CHECKPOINT_TYPES, *extra)]
    )
