"""`emem ask`: answer a question from memory, with the evidence it rests on."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from emem.answer import Answer
from emem.cli.common import (
    HomeOption,
    NamespaceOption,
    catch_up_with_progress,
    console,
    print_json,
    require_namespace,
    user_errors,
)


def print_answer(a: Answer) -> None:
    label = "offline stand-ins (deterministic rules, not an LLM)" if a.offline else "LLM"
    console.print(f"[bold]A:[/bold] {escape(a.answer)}", highlight=False)
    console.print(
        f"   [dim]{a.status} · {a.operation.value if a.operation else '-'} · {a.mode_used} mode ({escape(a.mode_reason)}) · "
        f"{label} · {a.usage.llm_calls} calls, {a.usage.prompt_tokens}+{a.usage.completion_tokens} tokens, "
        f"context {a.usage.context_tokens}/{a.budget} · {a.latency_ms:.0f} ms[/dim]",
        highlight=False,
    )
    for f in a.facts:
        console.print(
            escape(f"   ledger: {f.subject} {f.predicate} → {f.status} {', '.join(f.values)}"),
            highlight=False,
        )
    for e in a.evidence:
        role = "" if e.role == "evidence" else f" ({e.role})"
        caption = escape(f" [shares {e.image_caption}]") if e.image_caption else ""
        console.print(
            escape(f"   [{e.turn_id} · {e.time:%d %b %Y}]{role} {e.speaker}: {e.text}") + caption,
            highlight=False,
        )
    if a.error:
        console.print(f"   [red]error: {escape(a.error)}[/red]", highlight=False)


def register(app: typer.Typer, open_memory) -> None:
    @app.command()
    @user_errors
    def ask(
        question: str = typer.Argument(...),
        namespace: str = NamespaceOption,
        mode: str = typer.Option("auto", "--mode", help="fast | deep | auto"),
        as_of: str | None = typer.Option(None, "--as-of", help="Answer as known at this ISO-8601 time."),
        budget: int | None = typer.Option(None, "--budget", help="Context token budget (default 2000)."),
        as_json: bool = typer.Option(False, "--json", help="Print the whole Answer as one JSON object."),
        home: Path | None = HomeOption,
    ) -> None:
        """Answer a question from memory, with provenance."""
        from emem.validation import check_text

        check_text(question, "question")  # before indexing: refused input changes nothing
        with open_memory(home) as memory:
            require_namespace(memory, namespace)
            if not memory.indexes.is_current(namespace) and not as_json:
                catch_up_with_progress(memory, namespace)
            answer = memory.ask(question, namespace=namespace, mode=mode, as_of=as_of, budget=budget)
        if as_json:
            print_json(answer)
        else:
            print_answer(answer)
        if answer.status == "error":
            raise typer.Exit(1)
