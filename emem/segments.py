"""Segments: a session, or consecutive turns of a long session up to a token bound. Each is held
uncompressed by one assistant agent, with a short summary for global alignment."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel

from emem.index.text import tokenize
from emem.models import StoredTurn
from emem.tokens import count_tokens

MAX_SEGMENT_TOKENS = 1500
SUMMARY_TURNS = 4


class Segment(BaseModel):
    segment_id: str
    conversation_id: str
    session_id: str
    start: datetime
    end: datetime
    turns: list[StoredTurn]
    tokens: int
    summary: str = ""
    summary_source: str = "offline-extractive"

    def text(self) -> str:
        return "\n".join(f"{t.speaker}: {t.render()}" for t in self.turns)

    def speakers(self) -> list[str]:
        return sorted({t.speaker for t in self.turns})


def turn_tokens(turn: StoredTurn) -> int:
    return count_tokens(f"{turn.speaker}: {turn.render()}") + 12  # + id/date header when packed


def build_segments(turns: Sequence[StoredTurn], max_tokens: int = MAX_SEGMENT_TOKENS) -> list[Segment]:
    """Cut turns (in seq order) into per-session segments, splitting a session that exceeds the bound."""
    by_session: dict[tuple[str, str], list[StoredTurn]] = {}
    for t in turns:
        by_session.setdefault((t.conversation_id, t.session_id), []).append(t)
    segments: list[Segment] = []
    for (conv, sid), members in by_session.items():
        chunk: list[StoredTurn] = []
        size = 0
        part = 0
        for t in members:
            n = turn_tokens(t)
            if chunk and size + n > max_tokens:
                segments.append(_segment(conv, sid, part, chunk, size))
                chunk, size, part = [], 0, part + 1
            chunk.append(t)
            size += n
        if chunk:
            segments.append(_segment(conv, sid, part, chunk, size))
    segments.sort(key=lambda s: (s.start, s.segment_id))
    for s in segments:
        s.summary = extractive_summary(s)
    return segments


def _segment(conv: str, sid: str, part: int, turns: list[StoredTurn], tokens: int) -> Segment:
    return Segment(
        segment_id=f"{conv}/{sid}" + (f"#{part}" if part else ""),
        conversation_id=conv,
        session_id=sid,
        start=min(t.time for t in turns),
        end=max(t.time for t in turns),
        turns=list(turns),
        tokens=tokens,
    )


_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'’-]+(?:\s+[A-Z][a-zA-Z'’-]+)*")


def summary_turns(segment: Segment, n_turns: int = SUMMARY_TURNS) -> list[StoredTurn]:
    """The most content-dense turns of a segment (best first): the ones its extractive summary
    quotes. Turns are scored by how many of the segment's frequent content terms they carry, so
    the summary favours what the session is about rather than greetings.

    Args:
        segment: the segment.
        n_turns: how many turns to pick.

    Returns:
        At most `n_turns` turns, densest first, earlier first among equals.
    """
    words = [tokenize(t.render()) for t in segment.turns]
    terms = Counter(w for ws in words for w in set(ws))
    density = [sum(terms[w] > 1 for w in ws) + 0.2 * len(ws) for ws in words]
    order = sorted(range(len(segment.turns)), key=lambda i: (-density[i], segment.turns[i].seq))
    return [segment.turns[i] for i in order[:n_turns]]


def extractive_summary(segment: Segment, n_turns: int = SUMMARY_TURNS) -> str:
    """Offline summary: the date, the speakers, the salient names and the most content-dense
    turns (`summary_turns`)."""
    top = summary_turns(segment, n_turns)
    speakers = segment.speakers()
    names = Counter(
        m.group(0)
        for t in segment.turns
        for m in _CAPITALISED.finditer(t.render())
        if m.start() > 0 and m.group(0) not in speakers
    )
    parts = [
        f"{segment.start:%d %B %Y}: {', '.join(speakers)} talk.",
        ("Mentions: " + ", ".join(n for n, _ in names.most_common(8)) + ".") if names else "",
        " ".join(f"{t.speaker}: {t.render()}" for t in sorted(top, key=lambda t: t.seq)),
    ]
    return " ".join(p for p in parts if p)
