"""Input checks shared by every public entry point (Python API, CLI, ingest), so one rule holds
everywhere: a string that reaches a store is real text (no lone surrogate, no NUL, not blank once
invisible characters are removed, not absurdly long), and a refusal is an `InputError` naming the
field, raised before anything changes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, TypeAdapter, ValidationError

from emem.errors import InputError

MAX_FIELD_CHARS = 10_000
"""Default cap for a name, subject, value or reason: longer is a paste or an attack, not a fact."""

_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\ufeff]")
"""Zero-width and formatting characters: text made only of these (and spaces) is blank."""

T = TypeVar("T")


def is_blank(text: str) -> bool:
    """True when nothing visible is left once whitespace and zero-width characters are removed."""
    return not _INVISIBLE.sub("", text).strip()


def text_problem(value: str, *, max_chars: int = MAX_FIELD_CHARS, allow_blank: bool = False) -> str | None:
    """Why `value` is not acceptable text, or None. Pure: the pydantic validators use it too."""
    if len(value) > max_chars:
        return f"is {len(value)} characters long; the limit is {max_chars}"
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"is not valid Unicode (a lone surrogate at position {exc.start})"
    if not allow_blank and is_blank(value):
        return "is empty (or holds only invisible characters)"
    return None


def check_text(
    value: object, field: str, *, max_chars: int = MAX_FIELD_CHARS, allow_blank: bool = False
) -> str:
    """`value` if it is acceptable text, else InputError naming `field`."""
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", field)
    problem = text_problem(value, max_chars=max_chars, allow_blank=allow_blank)
    if problem:
        raise InputError(problem, field)
    return value


def check_optional_text(value: object, field: str, *, max_chars: int = MAX_FIELD_CHARS) -> str | None:
    return None if value is None else check_text(value, field, max_chars=max_chars)


def check_text_list(value: object, field: str, *, max_items: int = 1000, max_chars: int = 1000) -> list[str]:
    """A list (or tuple) of strings; a bare string is refused rather than split into characters."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InputError(f"expected a list of strings, got {type(value).__name__}", field)
    if len(value) > max_items:
        raise InputError(f"has {len(value)} items; the limit is {max_items}", field)
    return [check_text(v, f"{field}[{i}]", max_chars=max_chars) for i, v in enumerate(value)]


def _clean(value: str) -> str:
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


CleanStr = Annotated[str, AfterValidator(_clean)]
"""The pydantic type of the same rule, for models at the boundaries."""


def validate_as(value: Any, tp: Any, field: str) -> Any:
    """Validate `value` as `tp` (strict: no coercion of 5 into "5"); InputError naming the field."""
    try:
        return TypeAdapter(tp).validate_python(value, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        raise InputError(first.get("msg", "invalid"), f"{field}.{loc}" if loc else field) from None
