"""Erasure commands: `emem forget` and `emem drop-namespace` (see emem.erasure for what they
remove and where). User errors print one line on stderr and exit 2; an erasure that could not
finish a step (e.g. another process held the WAL) prints why and exits 1, so a script can rerun."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from emem.cli.common import one_line_errors
from emem.errors import InputError

OpenMemory = Callable[[Path | None], Any]

_HOME_HELP = "emem home directory (default: $EMEM_HOME or ~/.emem)."


def _finish(report: Any, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n")
    else:
        out = Console(highlight=False)
        out.print(
            escape(
                f"erased from namespace {report.namespace!r}: {report.turns} turns, {report.revisions} fact "
                f"revisions, {report.relations} relations, {report.vectors} vectors, "
                f"{report.segment_summaries} segment summaries, {report.log_rows_redacted} log rows; "
                f"{report.tombstones} tombstones kept (erasure {report.erasure_id})"
            ),
            soft_wrap=True,
        )
        for item in report.not_found:
            out.print(
                escape(f"note: nothing stored for {item} (already erased, or never stored)"), soft_wrap=True
            )
    err = Console(stderr=True, highlight=False)
    for warning in report.warnings:
        err.print(f"[yellow]incomplete:[/yellow] {escape(warning)}; run the command again", soft_wrap=True)
    if report.warnings:
        raise typer.Exit(1)


def register(app: typer.Typer, open_memory: OpenMemory) -> None:
    @app.command("forget")
    def forget(
        namespace: str = typer.Option(..., "--namespace", "-n", help="Namespace to erase from."),
        turn: list[str] | None = typer.Option(None, "--turn", help="Turn id to erase (repeatable)."),
        session: str | None = typer.Option(None, "--session", help="Erase every turn of this session."),
        subject: str | None = typer.Option(
            None, "--subject", help="Erase the facts about this subject and the turns they came from."
        ),
        conversation: str | None = typer.Option(
            None, "--conversation", help="Narrow to this conversation (alone: erase all of it)."
        ),
        reason: str | None = typer.Option(None, "--reason", help="Why (kept with the tombstones)."),
        as_json: bool = typer.Option(False, "--json", help="Print the erasure report as JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Erase turns and the facts projected from them from every store; keep only tombstones."""
        with one_line_errors():
            with open_memory(home) as memory:
                report = memory.forget(
                    namespace=namespace,
                    turn_ids=list(turn) if turn else None,
                    session_id=session,
                    subject=subject,
                    conversation_id=conversation,
                    reason=reason,
                )
        _finish(report, as_json)

    @app.command("drop-namespace")
    def drop_namespace(
        namespace: str = typer.Argument(..., help="The namespace (tenant) to remove entirely."),
        yes: bool = typer.Option(False, "--yes", help="Confirm: this cannot be undone."),
        as_json: bool = typer.Option(False, "--json", help="Print the erasure report as JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Remove a whole namespace from every store (turns, facts, vectors, summaries)."""
        with one_line_errors():
            if not yes:
                raise InputError(f"dropping namespace {namespace!r} cannot be undone; add --yes to confirm")
            with open_memory(home) as memory:
                report = memory.drop_namespace(namespace)
        _finish(report, as_json)
