"""Helpers shared by the CLI modules: opening a Memory, printing JSON, and turning user errors
into one clear line with a non-zero exit instead of a traceback."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from pydantic import BaseModel
from rich.console import Console

from emem.errors import EmemError

console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

HomeOption = typer.Option(None, "--home", envvar="EMEM_HOME", help="Store location (default ~/.emem).")
NamespaceOption = typer.Option(..., "--namespace", "-n", help="Namespace (tenant) to read or write.")


def open_memory(home: Path | None):  # -> emem.memory.Memory
    from emem.memory import Memory

    return Memory(home)


def fail(message: str, code: int = 2) -> None:
    err_console.print(f"[red]error:[/red] {message}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def user_errors(func: F) -> F:
    """Report EmemError (bad input, conflicts, missing things) as one line; exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except EmemError as exc:
            fail(str(exc))
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
