"""JSONL events: one turn per line, for streaming producers.

{"conversation_id": "c1", "session_id": "S1", "turn_id": "S1:1", "speaker": "Alice",
 "text": "...", "time": "2023-05-08T13:56:00+00:00", "image_caption": null}

`session_time` may declare the session's start; otherwise the first turn's time is used.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from emem.errors import InputError
from emem.ingest.batch import Batch, make_turn, optional_str, require
from emem.timeparse import parse_iso_time

_KEYS = {
    "conversation_id",
    "session_id",
    "turn_id",
    "speaker",
    "text",
    "time",
    "image_caption",
    "session_time",
    "metadata",
}
_REQUIRED = ("conversation_id", "session_id", "turn_id", "speaker", "text", "time")


def parse_jsonl(text: str, source: str = "input") -> Batch:
    # split("\n"), not splitlines(): JSON strings may hold raw U+2028, U+0085 and friends
    return parse_lines(enumerate(text.split("\n"), start=1), source)


def parse_lines(lines: Iterable[tuple[int, str]], source: str = "input") -> Batch:
    """(line number, line) pairs, e.g. streamed from a file without reading it whole."""
    from emem.ingest.loader import no_duplicate_keys

    turns, sessions = [], []
    for n, line in lines:
        if not line.strip():
            continue
        where = f"{source} line {n}"
        try:
            event = json.loads(line, object_pairs_hook=no_duplicate_keys)
        except InputError as exc:
            raise InputError(str(exc), where) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON: {exc.msg} at column {exc.colno}", where) from None
        except RecursionError:
            raise InputError("malformed JSON: nested too deeply", where) from None
        turns.append(_event_turn(event, where))
        if event.get("session_time") is not None:  # a wrong type is an error, not ignored
            t = turns[-1]
            sessions.append(
                (
                    t.conversation_id,
                    t.session_id,
                    parse_iso_time(event["session_time"], f"{where} 'session_time'"),
                )
            )
    return Batch(turns=turns, sessions=sessions)


def parse_events(events: list[Any], source: str = "input") -> Batch:
    """Turn dicts already in memory (the Python API's `add_turns`)."""
    return Batch(turns=[_event_turn(e, f"{source}[{i}]") for i, e in enumerate(events)], sessions=[])


def _event_turn(event: Any, where: str):
    if not isinstance(event, dict):
        raise InputError(f"expected a JSON object per line, got {type(event).__name__}", where)
    unknown = set(event) - _KEYS
    missing = [k for k in _REQUIRED if k not in event]
    if unknown or missing:  # every problem with the event's shape in one message
        if isinstance(event.get("turn_id"), str):
            where = f"{where} turn {event['turn_id']}"
        names = ", ".join(repr(k) for k in missing)
        problems = [f"missing field{'s' if len(missing) > 1 else ''} {names}"] if missing else []
        problems += [f"unknown field(s) {sorted(unknown)}"] if unknown else []
        raise InputError("; ".join(problems), where)
    tid = require(event, "turn_id", str, where)
    where = f"{where} turn {tid}"
    return make_turn(
        {
            "conversation_id": require(event, "conversation_id", str, where),
            "session_id": require(event, "session_id", str, where),
            "turn_id": tid,
            "speaker": require(event, "speaker", str, where),
            "text": require(event, "text", str, where),
            "image_caption": optional_str(event, "image_caption", where),
            "time": parse_iso_time(require(event, "time", (str, datetime), where), f"{where} field 'time'"),
            "metadata": event.get("metadata"),
        },
        where,
    )
