"""The common shape every ingestion format is parsed into before one atomic append."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from emem.errors import InputError
from emem.models import Turn


class Batch(BaseModel):
    turns: list[Turn]
    sessions: list[tuple[str, str, datetime]]
    """(conversation_id, session_id, start time) declared by the input."""


def make_turn(fields: dict[str, Any], where: str) -> Turn:
    """Build a Turn, turning pydantic's error into one line that names the place and the field."""
    try:
        return Turn(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "turn"
        raise InputError(f"field {loc!r}: {err['msg']}", where) from None


def require(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict):
        raise InputError(f"expected an object, got {type(obj).__name__}", where)
    if key not in obj:
        raise InputError(f"missing field {key!r}", where)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(f"field {key!r} must be {names}, got {type(value).__name__}", where)
    return value


def optional_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"field {key!r} must be a string or null, got {type(value).__name__}", where)
    return value
