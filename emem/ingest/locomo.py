"""LoCoMo's conversation JSON: `session_N` turn lists with `session_N_date_time` like
"1:56 pm on 8 May, 2023", turns with `dia_id`, `speaker`, `text` and optional `blip_caption`."""

from __future__ import annotations

import re
from typing import Any

from emem.errors import InputError
from emem.ingest.batch import Batch, make_turn, optional_str, require
from emem.timeparse import parse_locomo_time

_SESSION_KEY = re.compile(r"^session_(\d+)$")


def looks_like_locomo(data: Any) -> bool:
    sample = data[0] if isinstance(data, list) and data else data
    if not isinstance(sample, dict):
        return False
    conv = sample.get("conversation", sample)
    return isinstance(conv, dict) and any(_SESSION_KEY.match(k) for k in conv)


def parse_locomo(data: Any, source: str = "input") -> Batch:
    """Accept one sample, a list of samples, or a bare `conversation` dict."""
    samples = data if isinstance(data, list) else [data]
    turns, sessions = [], []
    for i, sample in enumerate(samples):
        where = f"{source}[{i}]" if isinstance(data, list) else source
        if not isinstance(sample, dict):
            raise InputError(f"expected a LoCoMo sample object, got {type(sample).__name__}", where)
        conv = sample.get("conversation", sample)
        if not isinstance(conv, dict):
            raise InputError("field 'conversation' must be an object", where)
        conv_id = sample.get("sample_id") or sample.get("conversation_id") or f"conv-{i}"
        if not isinstance(conv_id, str):
            raise InputError("field 'sample_id' must be a string", where)
        numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
        if not numbers:
            raise InputError("no session_N keys found", where)
        for n in numbers:
            s_where = f"{where} {conv_id} session_{n}"
            sid = f"S{n}"
            start = parse_locomo_time(
                require(conv, f"session_{n}_date_time", str, s_where), f"{s_where}_date_time"
            )
            raw_turns = require(conv, f"session_{n}", list, s_where)
            sessions.append((conv_id, sid, start))
            for j, raw in enumerate(raw_turns):
                t_where = f"{s_where} turn {j + 1}"
                dia = require(raw, "dia_id", str, t_where)
                t_where = f"{s_where} turn {dia}"
                turns.append(
                    make_turn(
                        {
                            "conversation_id": conv_id,
                            "session_id": sid,
                            "turn_id": dia,
                            "speaker": require(raw, "speaker", str, t_where),
                            "text": require(raw, "text", str, t_where),
                            "image_caption": optional_str(raw, "blip_caption", t_where),
                            "time": start,
                        },
                        t_where,
                    )
                )
    return Batch(turns=turns, sessions=sessions)
