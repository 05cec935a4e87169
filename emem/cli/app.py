"""The `emem` application and its core commands (ingest, search, stats); the other commands\nlive in sibling modules and register themselves. Each command is a thin layer over `Memory`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from emem.cli.common import (
    HomeOption,
    NamespaceOption,
    OneLineErrors,
    catch_up_with_progress,
    console,
    open_memory,
    print_json,
    require_namespace,
    user_errors,
    whole_table,
)

app = typer.Typer(
    cls=OneLineErrors,
    name="emem",
    help="Auditable long-term memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from emem import __version__

        typer.echo(f"emem {__version__}")
        raise typer.Exit(0)


def _defaults_for(command: Any, values: dict[str, Any]) -> dict[str, Any]:
    """A click default_map giving `values` to every (sub)command under `command`."""
    subcommands = getattr(command, "commands", {})
    return {name: {**values, **_defaults_for(cmd, values)} for name, cmd in subcommands.items()}


@app.callback()
def global_options(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print emem's version and exit."
    ),
    home: Path | None = typer.Option(
        None, "--home", help="Store location for any command (default ~/.emem)."
    ),
    json_output: bool = typer.Option(False, "--json", help="JSON output (and JSON errors) for any command."),
    backend: str | None = typer.Option(
        None,
        "--backend",
        envvar="EMEM_BACKEND",
        help="Storage backend for any command: 'embedded' (default: SQLite + Chroma under --home) or a "
        "URL such as postgres://user@host/db. Give it before the command.",
    ),
) -> None:
    """Auditable long-term memory for LLM agents. Global options go before or after the command."""
    if home is not None:
        os.environ["EMEM_HOME"] = str(home)  # every command's --home reads EMEM_HOME when not given
    if json_output:
        ctx.default_map = {**(ctx.default_map or {}), **_defaults_for(ctx.command, {"as_json": True})}


@app.command()
@user_errors
def ingest(
    path: Path = typer.Argument(..., help="A LoCoMo JSON, emem JSON or JSONL file."),
    namespace: str = NamespaceOption,
    format: str = typer.Option("auto", "--format", help="auto | locomo | emem | jsonl"),  # noqa: A002
    index: bool = typer.Option(True, "--index/--no-index", help="Catch the search indexes up afterwards."),
    restore: bool = typer.Option(False, "--restore", help="Store again turns that were erased by forget."),
    home: Path | None = HomeOption,
) -> None:
    """Store conversation turns durably (atomic: all of the file or none of it)."""
    from emem.ingest.loader import Format

    if format not in ("auto", "locomo", "emem", "jsonl"):
        from emem.errors import InputError

        raise InputError(f"unknown format {format!r}; use auto, locomo, emem or jsonl", "--format")
    fmt: Format = format  # type: ignore[assignment]
    with open_memory(home) as memory:
        report = memory.ingest_file(path, fmt, namespace=namespace, restore=restore)
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
    from emem.validation import check_text

    check_text(query, "query")  # before indexing: refused input changes nothing
    with open_memory(home) as memory:
        require_namespace(memory, namespace)
        if not memory.indexes.is_current(namespace) and not as_json:
            catch_up_with_progress(memory, namespace)
        hits = memory.search(query, namespace=namespace, k=k)
    if as_json:
        print_json(hits)
        return
    rows = [
        (f"{h.score:.4f}", escape(h.turn_id), escape(h.session_id), h.time.strftime("%Y-%m-%d"), escape(h.speaker),
         escape(h.text + (f" [shares {h.image_caption}]" if h.image_caption else "")))
        for h in hits
    ]  # fmt: skip
    console.print(
        whole_table(
            ("score", "turn", "session", "time", "speaker", "text"),
            rows,
            {"score", "turn", "session", "time"},
        )
    )


@app.command()
@user_errors
def stats(
    namespace: str = NamespaceOption,
    as_json: bool = typer.Option(False, "--json"),
    home: Path | None = HomeOption,
) -> None:
    """Counts and index coverage for a namespace."""
    with open_memory(home) as memory:
        require_namespace(memory, namespace)
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
    st = s.segment_states
    if st is not None:
        console.print(
            f"  segment states (local assistants): {st.namespace_states} of this namespace, "
            f"{st.states} in the home holding {st.tokens} prompt tokens, "
            f"{st.bytes / 2**20:.1f} of {st.budget_bytes / 2**20:.0f} MB; models {', '.join(st.models) or '-'}"
        )


def _register_commands() -> None:
    """Commands kept in their own modules of this package; each registers itself on `app`."""
    from emem.cli import ask, demo, evaluate, forget, ledger, llm, server

    for module in (demo, ask, ledger, llm, evaluate, forget, server):
        module.register(app, open_memory)


_register_commands()


def main() -> None:
    app()
