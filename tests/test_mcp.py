"""The MCP server answers the official SDK's client: in-process, over streamable HTTP on
127.0.0.1, and over stdio through `emem mcp`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from servers import serving

from emem.memory import Memory
from emem.server.mcp_app import build_mcp

TOOLS = {"remember", "search", "ask", "facts", "history", "forget"}


def data(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def exercise(client: Client) -> None:
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    assert all(t.description for t in listed.tools)
    stored = data(
        await client.call_tool(
            "remember",
            {
                "namespace": "priya",
                "messages": [
                    {
                        "role": "user",
                        "content": "I moved to Lisbon last spring.",
                        "time": "2024-04-02T10:00:00Z",
                    },
                    {"role": "assistant", "content": "Lisbon is lovely!", "time": "2024-04-02T10:00:05Z"},
                ],
                "user_name": "Priya",
                "conversation_id": "chat-1",
            },
        )
    )
    assert stored["added"] == 2
    hits = data(await client.call_tool("search", {"namespace": "priya", "query": "Lisbon", "k": 5}))["hits"]
    assert {(h["speaker"], h["text"]) for h in hits} == {
        ("Priya", "I moved to Lisbon last spring."),
        ("assistant", "Lisbon is lovely!"),
    }
    filtered = data(
        await client.call_tool(
            "search", {"namespace": "priya", "query": "Lisbon", "filter": {"speaker": "assistant"}}
        )
    )["hits"]
    assert [h["text"] for h in filtered] == ["Lisbon is lovely!"]
    answer = data(
        await client.call_tool(
            "ask", {"namespace": "priya", "question": "Where did Priya move?", "mode": "fast"}
        )
    )
    assert answer["status"] in ("answered", "abstained") and any(
        "Lisbon" in e["text"] for e in answer["evidence"]
    )
    facts = data(await client.call_tool("facts", {"namespace": "priya"}))
    assert isinstance(facts["facts"], list)
    history = data(await client.call_tool("history", {"namespace": "priya", "subject": "Priya"}))
    assert history["subject"] == "Priya"
    bad = await client.call_tool("search", {"namespace": "priya", "query": "", "k": 0})
    assert bad.is_error and "query" in bad.content[0].text and "k" in bad.content[0].text
    erased = data(await client.call_tool("forget", {"namespace": "priya", "conversation_id": "chat-1"}))
    assert erased["turns"] == 2
    gone = await client.call_tool("search", {"namespace": "priya", "query": "Lisbon"})
    assert gone.is_error and "does not exist" in gone.content[0].text  # nothing left under it


def test_in_process(memory: Memory) -> None:
    async def run() -> None:
        async with Client(build_mcp(memory)) as client:
            await exercise(client)

    asyncio.run(run())


def test_streamable_http_on_loopback(memory: Memory) -> None:
    app = build_mcp(memory).streamable_http_app()

    async def run(url: str) -> None:
        async with Client(f"{url}/mcp") as client:
            await exercise(client)

    with serving(app) as url:
        asyncio.run(run(url))


def test_namespace_allow_list_refuses_alike(memory: Memory) -> None:
    memory.add_messages([{"role": "user", "content": "secret plans"}], namespace="other")

    async def run() -> None:
        async with Client(build_mcp(memory, namespaces=["priya"])) as client:
            existing = await client.call_tool("search", {"namespace": "other", "query": "secret"})
            missing = await client.call_tool("search", {"namespace": "nobody", "query": "secret"})
            assert existing.is_error and missing.is_error
            assert existing.content[0].text.replace("other", "X") == missing.content[0].text.replace(
                "nobody", "X"
            )

    asyncio.run(run())


@pytest.mark.slow
def test_stdio_through_the_cli(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "emem", "mcp", "--home", str(tmp_path / "home")],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )

    async def run() -> None:
        async with Client(params) as client:
            await exercise(client)

    asyncio.run(run())
