"""Read a file or an in-memory object in any supported format into one Batch."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from emem.errors import InputError
from emem.ingest.batch import Batch
from emem.ingest.emem_json import looks_like_emem, parse_emem
from emem.ingest.jsonl import parse_events, parse_lines
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


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json `object_pairs_hook`: a key given twice is ambiguous (which "text" is the turn?), so refuse."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(f"duplicate key {key!r} in a JSON object")
        out[key] = value
    return out


def read_path(path: Path, fmt: Format = "auto") -> Batch:
    """Parse a file. Only regular files are read, and the size is checked before reading (a
    device such as /dev/zero never ends); JSONL is streamed line by line."""
    source = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError("file not found", source) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read file: {getattr(exc, 'strerror', None) or exc}", source) from None
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, pipe or socket)"
        )
        raise InputError(f"is {kind}; give a JSON or JSONL file", source)
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(f"file is {info.st_size} bytes, larger than the {MAX_FILE_BYTES}-byte limit", source)
    if fmt == "jsonl" or (fmt == "auto" and path.suffix == ".jsonl"):
        return _stream_jsonl(path, source)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", source) from None
    if len(raw) > MAX_FILE_BYTES:  # it grew since stat
        raise InputError(f"file is larger than {MAX_FILE_BYTES} bytes", source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid UTF-8 at byte {exc.start}", source) from None
    try:
        data = json.loads(text, object_pairs_hook=no_duplicate_keys)
    except InputError as exc:
        raise InputError(str(exc), source) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", source
        ) from None
    except RecursionError:
        raise InputError("malformed JSON: nested too deeply", source) from None
    return parse_object(data, fmt, source)


def _stream_jsonl(path: Path, source: str) -> Batch:
    def lines() -> Iterator[tuple[int, str]]:
        read = 0
        with open(path, "rb") as fh:
            for n, raw in enumerate(fh, start=1):
                read += len(raw)
                if read > MAX_FILE_BYTES:
                    raise InputError(f"file is larger than {MAX_FILE_BYTES} bytes", source)
                try:
                    yield n, raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputError(f"invalid UTF-8 at byte {read - len(raw) + exc.start}", source) from None

    try:
        return parse_lines(lines(), source)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", source) from None
