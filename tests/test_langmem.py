"""LangMem's memory tools on EmemStore: directly, async, and inside a LangGraph agent that gets
the store from `compile(store=...)`."""

from __future__ import annotations

import asyncio
import json
import re

from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langmem import create_manage_memory_tool, create_search_memory_tool
from scripted_chat import call, script

from emem.langgraph import EmemStore
from emem.memory import Memory

NS = ("memories", "{langgraph_user_id}")
CFG = {"configurable": {"langgraph_user_id": "priya"}}


def test_manage_and_search_tools_create_update_delete(memory: Memory) -> None:
    store = EmemStore(memory, "ns")
    manage = create_manage_memory_tool(namespace=NS, store=store)
    search = create_search_memory_tool(namespace=NS, store=store)
    created = manage.invoke(
        {"content": "Priya prefers window seats on flights", "action": "create"}, config=CFG
    )
    mid = re.search(r"[0-9a-f-]{36}", created).group(0)  # type: ignore[union-attr]
    manage.invoke({"content": "Priya is vegetarian", "action": "create"}, config=CFG)
    found = json.loads(search.invoke({"query": "which seat does she like on a plane"}, config=CFG))
    assert found[0]["key"] == mid and found[0]["namespace"] == ["memories", "priya"]
    assert store.list_namespaces() == [("memories", "priya")]

    manage.invoke({"content": "Priya now prefers aisle seats", "action": "update", "id": mid}, config=CFG)
    sync = json.loads(search.invoke({"query": "seat"}, config=CFG))
    asyn = json.loads(asyncio.run(search.ainvoke({"query": "seat"}, config=CFG)))
    assert sync == asyn and sync[0]["value"] == {"content": "Priya now prefers aisle seats"}

    other = {"configurable": {"langgraph_user_id": "omar"}}
    assert json.loads(search.invoke({"query": "seat"}, config=other)) == []  # another user's namespace

    asyncio.run(manage.ainvoke({"action": "delete", "id": mid}, config=CFG))
    left = json.loads(search.invoke({"query": "seat"}, config=CFG))
    assert [r["value"]["content"] for r in left] == ["Priya is vegetarian"]
    assert not any("seat" in t.text for t in memory.episodes.turns("ns"))  # erased, not hidden


def test_langmem_tools_inside_an_agent_use_the_compiled_store(memory: Memory) -> None:
    store = EmemStore(memory, "ns")
    tools = [create_manage_memory_tool(namespace=NS), create_search_memory_tool(namespace=NS)]
    model = script(
        call("manage_memory", {"content": "Priya's dog is called Biscuit", "action": "create"}),
        "Noted.",
        call("search_memory", {"query": "dog name"}, "call-2"),
        "Your dog is called Biscuit.",
    )

    def agent(state: MessagesState) -> dict:
        return {"messages": [model.bind_tools(tools).invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    graph = builder.compile(store=store)
    graph.invoke({"messages": [("user", "Remember my dog is Biscuit")]}, CFG)
    out = graph.invoke({"messages": [("user", "What is my dog called?")]}, CFG)
    tool_reply = next(m for m in out["messages"] if m.type == "tool")
    assert "Biscuit" in tool_reply.content
    assert [i.value for i in store.search(("memories", "priya"))] == [
        {"content": "Priya's dog is called Biscuit"}
    ]
