"""`emem demo`: ingest the bundled example conversation and answer a few questions, printing each
answer with the turns and session dates it rests on."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

import typer

from emem.cli.ask import print_answer
from emem.cli.common import HomeOption, console, open_memory, user_errors

DEMO_NAMESPACE = "demo"
DEMO_QUESTIONS = [
    "Where does Alice live now?",
    "Where did Alice live in February 2023?",
    "What pets do Alice and Ben have?",
    "What did Alice make in pottery class?",
    "Where does Ben work now?",
    "How many months after Ben's trip to Japan did Alice move to Austin?",
    "What is Ben's favourite football team?",
]


def example_conversation() -> dict[str, Any]:
    return json.loads((files("emem") / "data" / "example_conversation.json").read_text(encoding="utf-8"))


def register(app: typer.Typer, open_memory=open_memory) -> None:
    @app.command()
    @user_errors
    def demo(home: Path | None = HomeOption) -> None:
        """Ingest a small example conversation and answer questions about it (offline)."""
        with open_memory(home) as memory:
            report = memory.add_conversation(example_conversation(), namespace=DEMO_NAMESPACE)
            console.print(
                f"[bold]emem demo[/bold] — home {memory.home}, namespace {DEMO_NAMESPACE!r}: "
                f"{report.added} turns stored, {report.unchanged} already present"
            )
            memory.index(DEMO_NAMESPACE)
            facts = memory.consolidate(DEMO_NAMESPACE)
            console.print(
                f"consolidation projected {facts.revisions_written} new fact revisions "
                f"({facts.conflicts} conflicts); answering on the deep path "
                "(master + assistant agents) with offline stand-ins for every LLM role"
            )
            for q in DEMO_QUESTIONS:
                console.print(f"\n[bold]Q: {q}[/bold]", highlight=False)
                print_answer(memory.ask(q, namespace=DEMO_NAMESPACE, mode="deep"))
