"""Read a file or an in-memory object in any supported format into one Batch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from emem.errors import InputError
from emem.ingest.batch import Batch
from emem.ingest.emem_json import looks_like_emem, parse_emem
from emem.ingest.jsonl import parse_events, parse_jsonl
from emem.ingest.locomo import looks_like_locomo, parse_locomo
from emem.models import Conversation

Format = Literal["auto", "locomo", "emem", "jsonl"]
MAX_FILE_BYTES = 512 * 1024 * 1024


def parse_object(data: Any, fmt: Format = "auto", source: str = "input") -> Batch:
    if isinstance(data, Conversation):
        data = data.model_dump(mode="json")
    if fmt == "auto":
        if looks_like_emem(data):
            fmt = "emem"
        elif looks_like_locomo(data):
            fmt = "locomo"
        elif isinstance(data, list) and all(isinstance(d, dict) and "turn_id" in d for d in data):
            return parse_events(data, source)
        else:
            raise InputError(
                "cannot tell the format: expected emem JSON (with 'sessions'), LoCoMo JSON (with 'session_N'), "
                "or a list of turn events",
                source,
            )
    if fmt == "emem":
        return parse_emem(data, source)
    if fmt == "locomo":
        return parse_locomo(data, source)
    if fmt == "jsonl":
        if not isinstance(data, list):
            raise InputError("expected a list of turn events", source)
        return parse_events(data, source)
    raise InputError(f"unknown format {fmt!r}; use auto, locomo, emem or jsonl", source)


def read_path(path: Path, fmt: Format = "auto") -> Batch:
    source = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", source) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", source) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"file is larger than {MAX_FILE_BYTES} bytes", source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid UTF-8 at byte {exc.start}", source) from None
    if fmt == "jsonl" or (fmt == "auto" and path.suffix == ".jsonl"):
        return parse_jsonl(text, source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", source
        ) from None
    except RecursionError:
        raise InputError("malformed JSON: nested too deeply", source) from None
    return parse_object(data, fmt, source)
