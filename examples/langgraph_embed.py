"""Embedding emem in your own LangGraph agent, two ways (runs offline):

1. as a subgraph node: emem's compiled master graph is a node of your graph;
2. as a tool: a LangChain tool your agent's model can call.

    python examples/langgraph_embed.py [HOME]
"""

from __future__ import annotations

import sys
import tempfile
from typing import TypedDict

from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph

from emem import Memory
from emem.cli.demo import example_conversation

NAMESPACE = "demo"


class AgentState(TypedDict, total=False):
    question: str
    namespace: str
    mode: str
    answer: object  # emem.answer.Answer, written by the memory subgraph
    reply: str


def build_agent(memory: Memory):
    """Your graph: the memory subgraph answers, then your own node composes the reply."""

    def compose(state: AgentState) -> dict:
        a = state["answer"]
        cited = ", ".join(e.turn_id for e in a.evidence[:3]) or "no evidence"
        return {"reply": f"{a.answer} (sources: {cited})"}

    graph = StateGraph(AgentState)
    graph.add_node("memory", memory.graph())  # shares the keys question/namespace/mode/answer
    graph.add_node("compose", compose)
    graph.add_edge(START, "memory")
    graph.add_edge("memory", "compose")
    graph.add_edge("compose", END)
    return graph.compile()


def memory_tool(memory: Memory, namespace: str):
    @tool
    def recall(question: str) -> str:
        """Answer a question from long-term memory, citing the turns it rests on."""
        a = memory.ask(question, namespace=namespace, mode="auto")
        lines = [f"{a.answer} [{a.status}]"] + [
            f"- {e.turn_id} ({e.time:%Y-%m-%d}) {e.speaker}: {e.text}" for e in a.evidence[:5]
        ]
        return "\n".join(lines)

    return recall


def main() -> None:
    home = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="emem-example-")
    with Memory(home) as memory:
        memory.add_conversation(example_conversation(), namespace=NAMESPACE)
        memory.consolidate(NAMESPACE)
        agent = build_agent(memory)
        out = agent.invoke({"question": "Where does Alice live now?", "namespace": NAMESPACE, "mode": "deep"})
        print("subgraph:", out["reply"])
        print(
            "tool:", memory_tool(memory, NAMESPACE).invoke({"question": "What pets do Alice and Ben have?"})
        )


if __name__ == "__main__":
    main()
