"""Tolerant JSON in model replies: ask for it, find it, check its shape.

Models wrap JSON in fences, add prose around it, leave trailing commas. We accept all of that,
but a reply cut off mid-object is an error: silently completing it would invent content.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n?(.*?)```", re.DOTALL)
_OPENERS = {"{": "}", "[": "]"}
_THINKING = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")


def _strip_trailing_commas(text: str) -> str:
    """Drop commas directly before a closing bracket, leaving string contents untouched."""
    out: list[str] = []
    in_str = escaped = False
    for i, ch in enumerate(text):
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
            out.append(ch)
            continue
        if ch == '"':
            in_str = True
        elif ch == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(ch)
    return "".join(out)


def _loads(text: str) -> Any:
    """`json.loads`, retried once without trailing commas."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(_strip_trailing_commas(text))


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing the one at `start`; None when the text ends first."""
    stack = [_OPENERS[text[start]]]
    in_str = escaped = False
    for i in range(start + 1, len(text)):
        ch = text[i]
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in _OPENERS:
            stack.append(_OPENERS[ch])
        elif ch in "}]":
            if ch != stack[-1]:
                return i + 1  # mismatched bracket: let json.loads report it
            stack.pop()
            if not stack:
                return i + 1
    return None


def _scan(text: str) -> Any:
    """The first balanced {...} or [...] that parses. A candidate that never closes is an error,
    not a reason to look inside it: its inner objects are fragments, not the answer."""
    pos = 0
    first_error: str | None = None
    while True:
        starts = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        end = _balanced_end(text, start)
        if end is None:
            raise ValueError(
                f"reply JSON is truncated: {text[start]!r} opened at character {start} is never "
                f"closed (the model may have hit max_tokens); reply ends {_preview(text[-60:])}"
            )
        try:
            return _loads(text[start:end])
        except json.JSONDecodeError as exc:
            first_error = first_error or f"{exc.msg} in {_preview(text[start:end])}"
            pos = end
    if first_error:
        raise ValueError(f"reply contains no valid JSON: {first_error}")
    raise ValueError(f"reply contains no JSON object or array: {_preview(text)}")


def extract_json(text: str) -> Any:
    """Parse the JSON value a model meant to send, or raise `ValueError` saying why not."""
    if not isinstance(text, str):
        raise ValueError(f"expected reply text, got {type(text).__name__}")
    # Reasoning models served raw (llama.cpp, vLLM) may put their thinking before the answer.
    stripped = _THINKING.sub("", text, count=1).strip()
    if not stripped:
        raise ValueError("reply is empty: no JSON found")
    try:
        return _loads(stripped)
    except json.JSONDecodeError:
        pass
    for fenced in _FENCE.findall(stripped):
        if fenced.strip():
            try:
                return _loads(fenced.strip())
            except json.JSONDecodeError:
                try:
                    return _scan(fenced)
                except ValueError:
                    continue
    return _scan(stripped)


def _field_names(model: type[BaseModel]) -> set[str]:
    names: set[str] = set()
    for name, field in model.model_fields.items():
        names.add(name)
        if isinstance(field.alias, str):
            names.add(field.alias)
    return names


def _lone_list_field(model: type[BaseModel]) -> str | None:
    """The only required field, when it is a list: a bare JSON array is then read as its value."""
    required = [n for n, f in model.model_fields.items() if f.is_required()]
    if len(required) != 1:
        return None
    origin = getattr(model.model_fields[required[0]].annotation, "__origin__", None)
    return required[0] if origin is list else None


def _describe(exc: ValidationError, model: type[BaseModel]) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"field {loc!r}: {err['msg']}")
    more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return f"reply does not match {model.__name__}: " + "; ".join(parts) + more


M = TypeVar("M", bound=BaseModel)


def parse_into(text_or_data: Any, model: type[M]) -> M:
    """Validate a reply (text or already-parsed JSON) into `model`.

    Extra keys are dropped and null values for optional fields are treated as absent, because
    models add commentary fields and write `null` for "unknown"; what is required stays required.
    """
    data = extract_json(text_or_data) if isinstance(text_or_data, str) else text_or_data
    if isinstance(data, BaseModel):
        data = data.model_dump()
    if isinstance(data, list) and (field := _lone_list_field(model)):
        data = {field: data}
    if isinstance(data, dict):
        known = _field_names(model)
        data = {k: v for k, v in data.items() if k in known}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        if isinstance(data, dict):
            optional = {n for n, f in model.model_fields.items() if not f.is_required()}
            cleaned = {k: v for k, v in data.items() if not (v is None and k in optional)}
            if cleaned != data:
                try:
                    return model.model_validate(cleaned)
                except ValidationError:
                    pass
        raise ValueError(_describe(exc, model)) from None


def schema_problem(data: Any, schema: dict[str, Any]) -> str | None:
    """A cheap shape check (top-level type and required keys), so a reply in the wrong shape
    counts as a failed attempt instead of reaching the caller. Full validation is `parse_into`'s."""
    expected = schema.get("type")
    if expected == "object" and not isinstance(data, dict):
        return f"expected a JSON object, got {type(data).__name__}"
    if expected == "array" and not isinstance(data, list):
        return f"expected a JSON array, got {type(data).__name__}"
    if isinstance(data, dict):
        missing = [k for k in schema.get("required", []) if k not in data]
        if missing:
            return f"JSON is missing required field(s) {', '.join(map(repr, missing))}"
    return None


def read_reply(text: str, schema: dict[str, Any] | None) -> Any:
    """The parsed data of a usable reply (None without a schema). Raises `ValueError` phrased to
    follow the backend's name ("... returned an empty reply") so both clients word failures alike."""
    if not text.strip():
        raise ValueError("returned an empty reply")
    if schema is None:
        return None
    try:
        data = extract_json(text)
    except ValueError as exc:
        raise ValueError(f"returned unusable JSON: {exc}") from None
    problem = schema_problem(data, schema)
    if problem:
        raise ValueError(f"returned JSON not matching the schema: {problem}")
    return data


def schema_instruction(schema: dict[str, Any]) -> str:
    """Text asking for JSON matching `schema`, for servers that cannot enforce it themselves."""
    return (
        "Reply with a single JSON value and nothing else (no prose, no code fences). "
        "It must match this JSON schema:\n" + json.dumps(schema, ensure_ascii=False, sort_keys=True)
    )


def with_schema_instruction(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """Append the instruction to the first system message (or add one first): some chat
    templates reject a system message anywhere but the start."""
    note = schema_instruction(schema)
    out = [dict(m) for m in messages]
    for m in out:
        if m.get("role") == "system":
            m["content"] = f"{m.get('content', '')}\n\n{note}".lstrip()
            return out
    return [{"role": "system", "content": note}, *out]
