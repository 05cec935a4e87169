"""Ledger commands for the `emem` CLI: facts (list/add/revoke), resolve, history, consolidate.

`register` only needs an `open_memory(home)` callable whose result has the ledger's method names
(assert_fact, revoke, resolve, facts, history, consolidate), so the commands stay thin and testable.
User errors print one red line on stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from emem.cli.common import existing, one_line_errors, whole_table
from emem.errors import InputError

OpenMemory = Callable[[Path | None], Any]

_HOME_HELP = "emem home directory (default: $EMEM_HOME or the built-in default)."
_NS_HELP = "Namespace to read or write (required)."


def _dump(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, list):
        return [_dump(o) for o in obj]
    return obj


def _echo_json(obj: Any) -> None:
    typer.echo(json.dumps(_dump(obj), ensure_ascii=False, indent=2))


def _day(dt: datetime | None) -> str:
    """Compact time for tables: the date, plus the time of day when it is not midnight."""
    if dt is None:
        return "…"
    return (
        dt.strftime("%Y-%m-%d")
        if (dt.hour, dt.minute, dt.second) == (0, 0, 0)
        else dt.strftime("%Y-%m-%d %H:%M")
    )


def _num(v: Any) -> Any:
    return round(v, 2) if isinstance(v, float) else v


def _short(rid: str | None) -> str:
    return (rid or "")[:12]


def _facts_table(resolutions: list[Any]) -> Table:
    rows = []
    for res in resolutions:
        conflict = res.status == "conflict"
        value = (" vs " if conflict else ", ").join(res.values)
        revs = res.revisions
        rows.append((
            escape(res.subject),
            res.predicate,
            f"[red]CONFLICT: {escape(value)}[/red]" if conflict else escape(value),
            _day(min(r.valid_from for r in revs)) if revs else "",
            _day(min(r.known_from for r in revs)) if revs else "",
            escape(", ".join(sorted({s for r in revs for s in r.sources}))),
            "\n".join(_short(r.id) for r in revs),  # one id per line: each stays whole
        ))  # fmt: skip
    columns = ("subject", "predicate", "value", "since", "known", "source", "id")
    return whole_table(columns, rows, {"since", "known", "id"}, show_lines=False)


def _print_resolution(console: Console, res: Any) -> None:
    head = f"{escape(res.subject)}.{res.predicate}"
    when = f"valid at {_day(res.valid_at)}, as known at {_day(res.known_at)}"
    if res.status == "miss":
        console.print(f"{head}: [yellow]no value[/yellow] ({when})")
    elif res.status == "conflict":
        console.print(f"{head}: [red]CONFLICT[/red] {escape(' vs '.join(res.values))} ({when})")
    else:
        console.print(f"{head} = [bold]{escape(', '.join(res.values))}[/bold] ({when})")
    for r in res.revisions:
        src = ", ".join(r.sources) or r.asserted_by or "?"
        console.print(
            f"  evidence {_short(r.id)} {escape(r.object_text)}: valid from {_day(r.valid_from)}, "
            f"known since {_day(r.known_from)}, from {escape(src)}; {escape(repr(r.surface))}"
        )
    for r in res.history:
        console.print(
            f"  [dim]earlier {_short(r.id)} {escape(r.object_text)}: valid from {_day(r.valid_from)}[/dim]"
        )


def _print_history(console: Console, hist: Any) -> None:
    title = f"history of {hist.subject}" + (f".{hist.predicate}" if hist.predicate else "")
    rows = []
    values = {e.revision.id: e.revision.object_text for e in hist.entries}
    for e in hist.entries:
        r = e.revision
        if r.kind == "revocation":
            continue
        notes = []
        for sid in e.superseded_by:
            verb = "restated" if values.get(sid, "").casefold() == r.object_text.casefold() else "superseded"
            notes.append(f"{verb} by {_short(sid)} ({escape(values.get(sid, '?'))})")
        if e.known_to is not None:
            why = f": {escape(e.revoke_reason)}" if e.revoke_reason else ""
            notes.append(f"[red]revoked at {_day(e.known_to)}[/red]{why}")
        end = e.effective_valid_to
        rows.append((
            _short(r.id),
            r.predicate,
            escape(r.object_text),
            f"{_day(r.valid_from)} → {_day(end)}",
            f"{_day(r.known_from)} → {_day(e.known_to)}",
            escape(", ".join(r.sources) or (r.asserted_by or "")),
            "; ".join(notes) or "current",
        ))  # fmt: skip
    columns = ("id", "predicate", "value", "valid", "known", "source", "what happened")
    console.print(whole_table(columns, rows, {"id", "valid", "known"}, title=escape(title)))
    for rel in hist.relations:
        reason = f" ({escape(rel.reason)})" if rel.reason else ""
        console.print(
            f"  {_day(rel.known_at)}  {_short(rel.from_id)} {rel.kind} {_short(rel.to_id)}{reason}",
            soft_wrap=True,
        )


def _exit_if_incomplete(report: Any) -> None:
    """A partial consolidation says so on stderr and exits 1 (a script can rerun it)."""
    failures = list(getattr(report, "failures", []) or [])
    if getattr(report, "stopped", False):
        failures.append("extraction stopped early")
    if not failures:
        return
    err = Console(stderr=True, highlight=False)
    for line in failures:
        err.print(f"[yellow]incomplete:[/yellow] {escape(line)}; run the command again", soft_wrap=True)
    raise typer.Exit(1)


def register(app: typer.Typer, open_memory: OpenMemory) -> None:
    """Add the ledger commands to `app`."""
    facts_app = typer.Typer(help="List current facts, or add / revoke one.")

    @facts_app.callback(invoke_without_command=True)
    def facts(
        ctx: typer.Context,
        namespace: str | None = typer.Option(None, "--namespace", "-n", help=_NS_HELP),
        subject: str | None = typer.Option(None, "--subject", help="Only this subject."),
        predicate: str | None = typer.Option(None, "--predicate", help="Only this predicate."),
        valid_at: str | None = typer.Option(None, "--valid-at", help="ISO-8601 valid time (default now)."),
        known_at: str | None = typer.Option(None, "--known-at", help="ISO-8601 known time (default now)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """List the current state of every fact (conflicts included)."""
        if ctx.invoked_subcommand is not None:
            return
        with one_line_errors():
            if namespace is None:
                raise InputError("missing option '--namespace' / '-n'")
            out = existing(open_memory(home), namespace).facts(
                namespace=namespace,
                subject=subject,
                predicate=predicate,
                valid_at=valid_at,
                known_at=known_at,
            )
        if as_json:
            _echo_json(out)
        elif not out:
            Console().print("no facts")
        else:
            Console().print(_facts_table(out))

    @facts_app.command("add")
    def facts_add(
        subject: str = typer.Argument(..., help="Who the fact is about."),
        predicate: str = typer.Argument(..., help="A ledger predicate, e.g. lives_in."),
        object: str = typer.Argument(..., metavar="OBJECT", help="The value."),
        namespace: str = typer.Option(..., "--namespace", "-n", help=_NS_HELP),
        valid_from: str = typer.Option(..., "--valid-from", help="ISO-8601: when it became true."),
        valid_to: str | None = typer.Option(
            None, "--valid-to", help="ISO-8601: when it stopped (exclusive)."
        ),
        known_at: str | None = typer.Option(None, "--known-at", help="ISO-8601: when it was learned (now)."),
        source: list[str] | None = typer.Option(None, "--source", help="Turn reference (repeatable)."),
        cardinality: str | None = typer.Option(
            None, "--cardinality", help="single or multi: declares a new (open) predicate on first use."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Assert a fact by hand (recorded as asserted by the user)."""
        with one_line_errors():
            rev = open_memory(home).assert_fact(
                subject,
                predicate,
                object,
                valid_from,
                valid_to,
                known_at,
                tuple(source or ()),
                cardinality=cardinality,
                namespace=namespace,
            )
        if as_json:
            _echo_json(rev)
        else:
            Console().print(
                f"recorded {rev.id} {escape(rev.subject)}.{rev.predicate} = {escape(rev.object_text)} "
                f"(valid from {_day(rev.valid_from)}, known since {_day(rev.known_from)})",
                soft_wrap=True,
            )

    @facts_app.command("revoke")
    def facts_revoke(
        revision_id: str = typer.Argument(..., help="Revision id (or a unique prefix of 8+ characters)."),
        namespace: str = typer.Option(..., "--namespace", "-n", help=_NS_HELP),
        reason: str | None = typer.Option(None, "--reason", help="Why it is withdrawn."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Withdraw a revision from now on; it stays in the history."""
        with one_line_errors():
            rev = open_memory(home).revoke(revision_id, reason=reason, namespace=namespace)
        if as_json:
            _echo_json(rev)
        else:
            Console().print(f"revoked {rev.target_id} by {rev.id}", soft_wrap=True)

    app.add_typer(facts_app, name="facts")

    @app.command("resolve")
    def resolve(
        subject: str = typer.Argument(..., help="Who the question is about."),
        predicate: str = typer.Argument(..., help="A ledger predicate, e.g. lives_in."),
        namespace: str = typer.Option(..., "--namespace", "-n", help=_NS_HELP),
        valid_at: str | None = typer.Option(None, "--valid-at", help="ISO-8601 valid time (default now)."),
        known_at: str | None = typer.Option(None, "--known-at", help="ISO-8601 known time (default now)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Answer one fact: state, miss or conflict, with its evidence."""
        with one_line_errors():
            res = existing(open_memory(home), namespace).resolve(
                subject, predicate, namespace=namespace, valid_at=valid_at, known_at=known_at
            )
        if as_json:
            _echo_json(res)
        else:
            _print_resolution(Console(), res)

    @app.command("history")
    def history(
        subject: str = typer.Option(..., "--subject", help="Whose history."),
        namespace: str = typer.Option(..., "--namespace", "-n", help=_NS_HELP),
        predicate: str | None = typer.Option(None, "--predicate", help="Only this predicate."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Audit timeline: every revision, what superseded it, when it was known and revoked."""
        with one_line_errors():
            hist = existing(open_memory(home), namespace).history(
                subject, namespace=namespace, predicate=predicate
            )
        if as_json:
            _echo_json(hist)
        elif not hist.entries:
            Console().print(f"no history for {escape(subject)}")
        else:
            _print_history(Console(), hist)

    @app.command("consolidate")
    def consolidate(
        namespace: str = typer.Option(..., "--namespace", "-n", help=_NS_HELP),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        home: Path | None = typer.Option(None, "--home", envvar="EMEM_HOME", help=_HOME_HELP),
    ) -> None:
        """Project new episodes into the ledger (resumable; re-running writes nothing new)."""
        with one_line_errors():
            report = existing(open_memory(home), namespace).consolidate(namespace)
        if as_json:
            _echo_json(report)
            _exit_if_incomplete(report)
            return
        data = _dump(report)
        if isinstance(data, dict):
            keys = (
                "turns_processed",
                "candidates",
                "revisions_written",
                "revocations",
                "conflicts",
                "summaries_written",
                "summaries_failed",
                "seconds",
            )
            Console().print(
                ", ".join(f"{k.replace('_', ' ')}: {_num(data[k])}" for k in keys if k in data),
                soft_wrap=True,
            )
        else:
            Console().print(escape(str(data)))
        _exit_if_incomplete(report)
