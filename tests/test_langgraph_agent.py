"""A LangGraph agent built only from emem's packaged pieces remembers across two threads
(offline: the chat model is scripted; memory, indexes, graph and checkpointer are real)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from langchain_core.documents import Document
from langgraph.checkpoint.memory import InMemorySaver

from emem.langgraph import EmemRetriever, memory_tools
from emem.memory import Memory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import langgraph_agent  # noqa: E402


def test_agent_remembers_across_threads(memory: Memory) -> None:
    model = langgraph_agent.scripted_model()
    graph = langgraph_agent.build_agent(memory, "sam", model, InMemorySaver())
    graph.invoke(
        {"messages": [("user", "My sister Lena moved to Oslo in March.")]},
        {"configurable": {"thread_id": "monday"}},
    )
    out = graph.invoke(
        {"messages": [("user", "Where does my sister live now?")]}, {"configurable": {"thread_id": "friday"}}
    )

    assert not any(
        "Oslo" in str(m.content) for m in out["messages"][:1]
    )  # friday's thread starts empty of it
    assert "Lena moved to Oslo" in out["memory_context"]  # recalled from monday's conversation
    friday_prompt = model.seen[2]  # the model's first call on friday
    assert friday_prompt[0].type == "system" and "<memory>" in friday_prompt[0].content
    assert "Oslo" in friday_prompt[0].content
    tool_reply = json.loads(next(m.content for m in out["messages"] if m.type == "tool"))
    assert any("Oslo" in h["text"] for h in tool_reply)

    turns = memory.episodes.turns("sam")
    by_conv = {
        c: [t.text for t in turns if t.conversation_id == c] for c in {t.conversation_id for t in turns}
    }
    assert by_conv["monday"] == ["My sister Lena moved to Oslo in March.", "Noted: Lena moved to Oslo."]
    assert by_conv["notes"] == ["Sam's sister Lena moved to Oslo in March."]  # the remember tool's note
    assert by_conv["friday"][0] == "Where does my sister live now?"
    assert {t.speaker for t in turns if t.conversation_id == "monday"} == {"Sam", "assistant"}
    # a third run on friday re-sends the whole thread: nothing is stored twice
    before = len(memory.episodes.turns("sam"))
    langgraph_agent.remember_node(memory, "sam", user_name="Sam")(
        out, {"configurable": {"thread_id": "friday"}}
    )
    assert len(memory.episodes.turns("sam")) == before


def test_tools_report_input_errors_to_the_model(memory: Memory) -> None:
    tools = {t.name: t for t in memory_tools(memory, "ns")}
    assert set(tools) == {
        "remember",
        "search_memory",
        "ask_memory",
        "memory_facts",
        "fact_history",
        "forget_memory",
    }
    tools["remember"].invoke({"text": "Priya moved to Lisbon in 2021."})
    assert "Lisbon" in tools["search_memory"].invoke({"query": "Lisbon"})
    bad = tools["search_memory"].invoke({"query": "x", "since": "last Tuesday-ish"})
    assert "unparsable" in bad  # an error message the model can act on, not an exception
    answer = json.loads(tools["ask_memory"].invoke({"question": "Where did Priya move?", "mode": "fast"}))
    assert any("Lisbon" in e["text"] for e in answer["evidence"])
    assert (
        json.loads(
            asyncio.run(tools["ask_memory"].ainvoke({"question": "Where did Priya move?", "mode": "fast"}))
        )
        == answer
    )
    memory.consolidate("ns")
    assert isinstance(json.loads(tools["memory_facts"].invoke({})), list)
    assert "Priya" in tools["fact_history"].invoke({"subject": "Priya"})
    hit = json.loads(tools["search_memory"].invoke({"query": "Lisbon"}))[0]
    erased = json.loads(
        tools["forget_memory"].invoke(
            {"turn_ids": [hit["turn_id"]], "conversation_id": hit["conversation_id"]}
        )
    )
    assert erased["namespace"] == "ns" and "Lisbon" not in tools["search_memory"].invoke({"query": "Lisbon"})
    assert "forget_memory" not in {t.name for t in memory_tools(memory, "ns", allow_forget=False)}


def test_retriever_returns_documents_with_provenance(memory: Memory) -> None:
    memory.add_messages(
        [{"role": "user", "content": "The wifi password is on the fridge."}],
        namespace="ns",
        conversation_id="home",
    )
    memory.add_messages(
        [{"role": "user", "content": "The office wifi is guest-5G."}], namespace="ns", conversation_id="work"
    )
    retriever = EmemRetriever(memory=memory, namespace="ns", k=3, filter={"conversation_id": "home"})
    docs = retriever.invoke("wifi password")
    assert docs == asyncio.run(retriever.ainvoke("wifi password"))
    assert [d.metadata["conversation_id"] for d in docs] == ["home"]
    assert (
        isinstance(docs[0], Document) and docs[0].page_content == "user: The wifi password is on the fridge."
    )
