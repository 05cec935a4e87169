"""emem's own conversation JSON (documented in the README):

{"conversation_id": "c1", "sessions": [{"session_id": "S1", "time": "2023-05-08T13:56:00+00:00",
  "turns": [{"turn_id": "S1:1", "speaker": "Alice", "text": "...", "image_caption": null}]}]}

A turn may carry its own `time`; otherwise it takes its session's.
"""

from __future__ import annotations

from typing import Any

from emem.errors import InputError
from emem.ingest.batch import Batch, make_turn, optional_str, require
from emem.timeparse import parse_iso_time

_TURN_KEYS = {"turn_id", "speaker", "text", "image_caption", "time"}


def looks_like_emem(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(isinstance(d, dict) and "sessions" in d for d in items)


def parse_emem(data: Any, source: str = "input") -> Batch:
    """Accept one conversation object or a list of them."""
    convs = data if isinstance(data, list) else [data]
    turns, sessions = [], []
    for i, conv in enumerate(convs):
        where = f"{source}[{i}]" if isinstance(data, list) else source
        conv_id = require(conv, "conversation_id", str, where)
        where = f"{where} conversation {conv_id}"
        for k, session in enumerate(require(conv, "sessions", list, where)):
            s_where = f"{where} session #{k + 1}"
            sid = require(session, "session_id", str, s_where)
            s_where = f"{where} session {sid}"
            start = parse_iso_time(require(session, "time", str, s_where), f"{s_where} field 'time'")
            sessions.append((conv_id, sid, start))
            for j, raw in enumerate(require(session, "turns", list, s_where)):
                t_where = f"{s_where} turn #{j + 1}"
                tid = require(raw, "turn_id", str, t_where)
                t_where = f"{s_where} turn {tid}"
                unknown = set(raw) - _TURN_KEYS
                if unknown:
                    raise InputError(f"unknown field(s) {sorted(unknown)}", t_where)
                when = raw.get("time")
                turns.append(
                    make_turn(
                        {
                            "conversation_id": conv_id,
                            "session_id": sid,
                            "turn_id": tid,
                            "speaker": require(raw, "speaker", str, t_where),
                            "text": require(raw, "text", str, t_where),
                            "image_caption": optional_str(raw, "image_caption", t_where),
                            "time": start
                            if when is None
                            else parse_iso_time(when, f"{t_where} field 'time'"),
                        },
                        t_where,
                    )
                )
    return Batch(turns=turns, sessions=sessions)
