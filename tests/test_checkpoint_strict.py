"""Answer in a LangGraph checkpoint under LangGraph's strict msgpack mode (its announced default)."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import logging, sys, tempfile
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from emem import Memory
from emem.cli.demo import example_conversation
from emem.langgraph import AskState
from typing import TypedDict


class Untyped(TypedDict, total=False):
    question: str
    namespace: str
    mode: str
    answer: object

records = []
handler = logging.Handler()
handler.emit = records.append
logging.getLogger("langgraph").addHandler(handler)

state = AskState if sys.argv[1] == "typed" else Untyped
m = Memory(tempfile.mkdtemp())
m.add_conversation(example_conversation(), namespace="demo")
g = StateGraph(state)
g.add_node("memory", m.graph())
g.add_edge(START, "memory")
g.add_edge("memory", END)
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
app.invoke({"question": "Where does Alice live?", "namespace": "demo", "mode": "fast"}, cfg)
answer = app.get_state(cfg).values["answer"]
print(type(answer).__name__)
print("LOGGED", sum("emem" in r.getMessage() for r in records))
"""


def _run(kind: str) -> list[str]:
    env = {**os.environ, "LANGGRAPH_STRICT_MSGPACK": "true"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, kind], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines()


def test_strict_mode_keeps_the_answer_when_the_state_schema_names_it() -> None:
    assert _run("typed") == ["Answer", "LOGGED 0"]


def test_strict_mode_blocks_it_when_the_state_is_untyped() -> None:
    """The control: without AskState LangGraph cannot know emem's types and blocks them."""
    kind, logged = _run("untyped")
    assert kind == "dict" and logged != "LOGGED 0"
