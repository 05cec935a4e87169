"""Helpers shared by the CLI modules: opening a Memory, printing JSON, and turning user errors
into one clear line with a non-zero exit instead of a traceback."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from typer.core import TyperGroup

from emem.errors import EmemError

console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

HomeOption = typer.Option(None, "--home", envvar="EMEM_HOME", help="Store location (default ~/.emem).")
NamespaceOption = typer.Option(..., "--namespace", "-n", help="Namespace (tenant) to read or write.")


def open_memory(home: Path | None):  # -> emem.memory.Memory
    from emem.memory import Memory

    return Memory(home, backend=backend_requested())


def _contexts() -> Iterable[Any]:
    """The live click contexts, innermost first (empty outside a command)."""
    try:  # this typer vendors its own click; its context stack is the live one
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - typer built on the click package
        from click import get_current_context  # type: ignore[no-redef]

    ctx = get_current_context(silent=True)
    while ctx is not None:
        yield ctx
        ctx = ctx.parent


def json_requested() -> bool:
    """Whether this invocation asked for JSON (`--json` on the command or before it)."""
    return any(ctx.params.get("as_json") or ctx.params.get("json_output") for ctx in _contexts())


def backend_requested() -> str | None:
    """The global `--backend` of this invocation (None: EMEM_BACKEND, else the embedded one)."""
    return next((ctx.params["backend"] for ctx in _contexts() if ctx.params.get("backend")), None)


def error_json(message: str, kind: str = "error") -> str:
    return json.dumps(
        {"error": {"type": kind, "message": " ".join(str(message).split())}}, ensure_ascii=False
    )


def fail(message: str, code: int = 2, kind: str = "error") -> None:
    if json_requested():  # a script reading JSON gets its error as JSON too (on stderr)
        sys.stderr.write(error_json(message, kind) + "\n")
        raise typer.Exit(code)
    # escape: a message quoting user input such as "[/x]" must not be read as rich markup;
    # joined: one line, whatever the message holds
    line = " ".join(str(message).split())
    err_console.print(f"[red]error:[/red] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def require_namespace(memory: Any, namespace: str) -> None:
    """Read commands refuse a namespace that holds nothing: a typo is an error (exit 2), not an
    empty result."""
    from emem.errors import NotFoundError

    if not memory.namespace_exists(namespace):
        where = getattr(memory, "home", None)
        raise NotFoundError(f"namespace {namespace!r} does not exist" + (f" in {where}" if where else ""))


def existing(memory: Any, namespace: str) -> Any:
    """`memory`, after `require_namespace` (for one-line command bodies)."""
    require_namespace(memory, namespace)
    return memory


def whole_table(
    columns: Sequence[str], rows: Sequence[Sequence[str]], whole: Iterable[str], **kwargs: Any
) -> Any:
    """A rich table whose `whole` columns (ids, dates) are never cut or wrapped on a narrow
    terminal; the other columns wrap instead. Cells may hold rich markup."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    keep = set(whole)
    table = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, **kwargs)
    for i, name in enumerate(columns):
        if name in keep:
            lines = [line for r in rows for line in Text.from_markup(str(r[i])).split()]
            width = max([len(name), *(line.cell_len for line in lines)])
            table.add_column(name, no_wrap=True, min_width=width)
        else:
            table.add_column(name, overflow="fold", min_width=min(len(name), 4))
    for r in rows:
        table.add_row(*[str(c) for c in r])
    return table


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Inside a command: an EmemError becomes one `error:` line and exit 2 (see `fail`)."""
    try:
        yield
    except EmemError as exc:
        fail(str(exc), kind=type(exc).__name__)


def user_errors(func: F) -> F:
    """Report EmemError (bad input, conflicts, missing things) as one line; exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            if isinstance(kwargs.get("namespace"), str):  # before anything uses it (e.g. an index check)
                from emem.models import check_namespace

                check_namespace(kwargs["namespace"])
            return func(*args, **kwargs)
        except EmemError as exc:
            fail(str(exc), kind=type(exc).__name__)
        except KeyboardInterrupt:
            fail("interrupted", 130)

    return wrapper  # type: ignore[return-value]


def to_jsonable(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(o) for o in obj]
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    return obj


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(obj), ensure_ascii=False, indent=2, default=str) + "\n")


class OneLineErrors(TyperGroup):
    """The root command: usage errors (unknown option, missing argument, bad value) become one
    line on stderr with exit code 2, like emem's own user errors, instead of a usage panel."""

    def main(  # type: ignore[override]  # the same call as click's, minus Windows-only options
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.TyperException as exc:  # typer's (vendored) ClickException and subclasses
            ctx = getattr(exc, "ctx", None)
            if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
                typer.echo(ctx.get_help())
                sys.exit(2)
            where = f"{ctx.command_path}: " if ctx is not None else ""
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            if "--json" in (args if args is not None else sys.argv[1:]):
                sys.stderr.write(error_json(where + message, "UsageError") + "\n")
                sys.exit(getattr(exc, "exit_code", 2))
            err_console.print(
                f"[red]error:[/red] {escape(' '.join((where + message).split()) + hint)}",
                highlight=False,
                soft_wrap=True,
            )
            sys.exit(getattr(exc, "exit_code", 2))
        except typer.Abort:
            err_console.print("[red]error:[/red] aborted", highlight=False)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


def catch_up_with_progress(memory: Any, namespace: str) -> None:
    """Index a namespace's new turns, with a progress bar once there is work: a first read after a
    bulk ingest can take minutes of embedding, and a silent terminal looks hung."""
    bar: Progress | None = None
    task: Any = None

    def tick(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            bar = progress_bar()
            bar.start()
            task = bar.add_task("indexing", total=total)
        bar.update(task, completed=done, total=total)

    try:
        memory.index(namespace, progress=tick)
    finally:
        if bar is not None:
            bar.stop()
