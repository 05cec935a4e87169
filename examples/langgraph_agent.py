"""A LangGraph agent that remembers across threads, built only from emem's packaged pieces
(runs offline; the chat model is a scripted stand-in, so swap in a real one to use it).

    python examples/langgraph_agent.py [HOME]

Thread "monday" tells the agent something; thread "friday" (a new thread: its checkpoint holds
none of Monday's messages) asks about it. `recall_node` brings Monday's turns into the model's
prompt as delimited data, `memory_tools` let the model search and write memory, and
`remember_node` stores every new message of each run.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from emem import Memory
from emem.langgraph import MemoryState, memory_prompt, memory_tools, recall_node, remember_node


def build_agent(memory: Memory, namespace: str, model: Any, checkpointer: Any = None):
    """recall -> agent <-> tools -> remember. `model` is any tool-calling LangChain chat model."""
    tools = memory_tools(memory, namespace)
    bound = model.bind_tools(tools)

    def agent(state: MemoryState) -> dict:
        return {"messages": [bound.invoke(memory_prompt(state) + state["messages"])]}

    builder = StateGraph(MemoryState)
    builder.add_node("recall", recall_node(memory, namespace))
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_node("remember", remember_node(memory, namespace, user_name="Sam"))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "agent")
    builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: "remember"})
    builder.add_edge("tools", "agent")
    builder.add_edge("remember", END)
    return builder.compile(checkpointer=checkpointer)


class ScriptedModel(GenericFakeChatModel):
    """Offline stand-in: replies from a script and records what it was shown."""

    seen: list[list[Any]] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def tool_call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


def scripted_model() -> ScriptedModel:
    replies = [
        tool_call("remember", {"text": "Sam's sister Lena moved to Oslo in March."}, "c1"),
        AIMessage(content="Noted: Lena moved to Oslo."),
        tool_call("search_memory", {"query": "sister Lena moved"}, "c2"),
        AIMessage(content="Your sister Lena lives in Oslo (you told me on Monday)."),
    ]
    return ScriptedModel(messages=iter(replies), seen=[])


def main() -> None:
    home = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="emem-agent-")
    with Memory(home) as memory:
        model = scripted_model()
        graph = build_agent(memory, "sam", model, InMemorySaver())
        graph.invoke(
            {"messages": [("user", "My sister Lena moved to Oslo in March.")]},
            {"configurable": {"thread_id": "monday"}},
        )
        out = graph.invoke(
            {"messages": [("user", "Where does my sister live now?")]},
            {"configurable": {"thread_id": "friday"}},
        )
        print("friday's thread holds", len(out["messages"]), "messages, none from monday")
        print("recalled for the model:\n" + out["memory_context"])
        print("search_memory returned:", next(m.content for m in out["messages"] if m.type == "tool")[:200])
        print("agent:", out["messages"][-1].content)


if __name__ == "__main__":
    main()
