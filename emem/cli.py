"""The `emem` command line. Each command is a thin layer over `Memory`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from emem.cli_common import (
    HomeOption,
    NamespaceOption,
    OneLineErrors,
    console,
    open_memory,
    print_json,
    user_errors,
)

app = typer.Typer(
    cls=OneLineErrors,
    name="emem",
    help="Auditable long-term memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


def catch_up_with_progress(memory, namespace: str) -> None:
    with progress_bar() as bar:
        task = bar.add_task("indexing", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        memory.index(namespace, progress=tick)


@app.command()
@user_errors
def ingest(
    path: Path = typer.Argument(..., help="A LoCoMo JSON, emem JSON or JSONL file."),
    namespace: str = NamespaceOption,
    format: str = typer.Option("auto", "--format", help="auto | locomo | emem | jsonl"),  # noqa: A002
    index: bool = typer.Option(True, "--index/--no-index", help="Catch the search indexes up afterwards."),
    home: Path | None = HomeOption,
) -> None:
    """Store conversation turns durably (atomic: all of the file or none of it)."""
    from emem.ingest.loader import Format

    if format not in ("auto", "locomo", "emem", "jsonl"):
        from emem.errors import InputError

        raise InputError(f"unknown format {format!r}; use auto, locomo, emem or jsonl", "--format")
    fmt: Format = format  # type: ignore[assignment]
    with open_memory(home) as memory:
        report = memory.ingest_file(path, namespace, fmt)
        console.print(
            f"stored {report.added} new turns ({report.unchanged} already present) in namespace {namespace!r}"
        )
        if index:
            catch_up_with_progress(memory, namespace)


@app.command()
@user_errors
def search(
    query: str = typer.Argument(...),
    namespace: str = NamespaceOption,
    k: int = typer.Option(10, "--k", min=1, max=1000),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of hits."),
    home: Path | None = HomeOption,
) -> None:
    """Hybrid (BM25 + dense) search over a namespace's turns."""
    with open_memory(home) as memory:
        if not memory.indexes.is_current(namespace) and not as_json:
            catch_up_with_progress(memory, namespace)
        hits = memory.search(query, namespace, k=k)
    if as_json:
        print_json(hits)
        return
    table = Table("score", "turn", "session", "time", "speaker", "text", show_lines=False)
    for h in hits:
        text = h.text + (f" [shares {h.image_caption}]" if h.image_caption else "")
        table.add_row(f"{h.score:.4f}", h.turn_id, h.session_id, h.time.strftime("%Y-%m-%d"), h.speaker, text)
    console.print(table)


@app.command()
@user_errors
def stats(
    namespace: str = NamespaceOption,
    as_json: bool = typer.Option(False, "--json"),
    home: Path | None = HomeOption,
) -> None:
    """Counts and index coverage for a namespace."""
    with open_memory(home) as memory:
        s = memory.stats(namespace)
    if as_json:
        print_json(s)
        return
    console.print(
        f"namespace {s.namespace}: {s.conversations} conversations, {s.sessions} sessions, {s.turns} turns, "
        f"{s.facts} fact revisions; last seq {s.last_seq}"
    )
    for name, seq in sorted(s.index_coverage.items()):
        state = "current" if seq >= s.last_seq else f"behind by {s.last_seq - seq} events"
        console.print(f"  index {name}: covers seq {seq} ({state})")


def _register_optional() -> None:
    """Commands contributed by other modules; each registers itself on `app`."""
    import importlib

    for name in ("cli_demo", "cli_ask", "cli_ledger", "cli_llm", "cli_eval", "cli_forget", "cli_server"):
        try:
            module = importlib.import_module(f"emem.{name}")
        except ModuleNotFoundError as exc:  # a module still being built
            if exc.name != f"emem.{name}":
                raise
            continue
        module.register(app, open_memory)


_register_optional()


def main() -> None:
    app()
