"""Chat messages (LangChain `BaseMessage`s or OpenAI-style dicts) into turns.

An agent loop holds messages, not turns: this fills in what a turn needs and a message lacks.
Speakers are "user" and "assistant" (or the names given); system, developer and tool messages are
skipped, as is an assistant message carrying only tool calls: they are instructions and plumbing,
not what was said. A message's own id (LangGraph's `add_messages` reducer gives every message one)
becomes the turn id, so writing a state's whole message list again adds only the new messages.
Without an id a turn gets a fresh one. Time defaults to now; a new session starts after an idle gap.
Every problem in the list is reported in one `InputError`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from emem.errors import InputError
from emem.ingest.batch import Batch
from emem.models import StoredTurn, Turn
from emem.timeparse import parse_iso_time

DEFAULT_IDLE_GAP = timedelta(minutes=30)
USER_ROLES = frozenset({"user", "human"})
AGENT_ROLES = frozenset({"assistant", "ai"})
SKIPPED_ROLES = frozenset({"system", "developer", "tool", "function"})
_DICT_KEYS = frozenset({"role", "content", "name", "id", "time", "metadata", "tool_calls", "tool_call_id"})
MAX_REPORTED = 20


@dataclass(frozen=True)
class Message:
    """A message reduced to what memory keeps. `index` is its position in the caller's list."""

    index: int
    role: str
    text: str
    name: str | None
    id: str | None
    time: Any
    metadata: Any


@dataclass(frozen=True)
class MessageBatch:
    batch: Batch
    skipped: int
    """System, tool and tool-call-only messages left out."""
    known: int
    """Messages whose id is already stored with the same text (re-sent state)."""


def _text(content: Any) -> str | None:
    """The text of a message's content: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str):
                parts.append(p["text"])
        return "\n".join(parts)
    return None


def read_message(index: int, message: Any, problems: list[str]) -> Message | None:
    """One message in either shape, or None after recording why it cannot be read."""
    where = f"messages[{index}]"
    try:
        from langchain_core.messages import BaseMessage
    except ImportError:  # pragma: no cover - langchain-core is a core dependency
        BaseMessage = ()  # type: ignore[assignment,misc]  # noqa: N806
    if isinstance(message, BaseMessage):
        role = getattr(message, "role", None) or message.type  # ChatMessage carries a free role
        text = _text(message.content)
        if text is None:
            problems.append(f"{where}: content must be a string or a list of parts")
            return None
        meta = (
            message.additional_kwargs.get("metadata") if isinstance(message.additional_kwargs, dict) else None
        )
        return Message(index, str(role).lower(), text, message.name, message.id, None, meta)
    if not isinstance(message, Mapping):
        problems.append(
            f"{where}: expected a LangChain message or a {{'role', 'content'}} object, got {type(message).__name__}"
        )
        return None
    bad = []
    missing = [k for k in ("role", "content") if k not in message]
    if missing:
        bad.append(f"missing field(s) {missing}")
    unknown = sorted(set(message) - _DICT_KEYS)
    if unknown:
        bad.append(f"unknown field(s) {unknown}")
    role = message.get("role")
    if "role" in message and not isinstance(role, str):
        bad.append(f"field 'role' must be a string, got {type(role).__name__}")
    text = _text(message.get("content"))
    if "content" in message and text is None and message.get("content") is not None:
        bad.append("field 'content' must be a string or a list of parts")
    for key in ("name", "id"):
        if message.get(key) is not None and not isinstance(message[key], str):
            bad.append(f"field {key!r} must be a string, got {type(message[key]).__name__}")
    if bad:
        problems.append(f"{where}: {'; '.join(bad)}")
        return None
    return Message(
        index,
        str(role).lower(),
        text or "",
        message.get("name"),
        message.get("id"),
        message.get("time"),
        message.get("metadata"),
    )


def _fresh_id() -> str:
    return f"m-{uuid.uuid4().hex[:16]}"


def _new_session(start: datetime) -> str:
    return f"session-{start.strftime('%Y%m%dT%H%M%SZ')}"


def messages_to_batch(
    messages: Sequence[Any],
    *,
    conversation_id: str,
    now: datetime,
    session_id: str | None = None,
    time: datetime | None = None,
    user_name: str | None = None,
    agent_name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    last_turn: StoredTurn | None = None,
    known: Mapping[str, StoredTurn] | None = None,
    idle_gap: timedelta = DEFAULT_IDLE_GAP,
) -> MessageBatch:
    """Turn messages into one batch (pure: the caller reads the conversation's tail and known ids).

    Args:
        messages: LangChain messages or {"role", "content"} dicts (optional "name", "id", "time",
            "metadata").
        conversation_id: the conversation every turn joins.
        now: the time for messages that carry none and when `time` is not given.
        session_id: put every turn in this session; by default the last session continues unless
            the gap since its last turn exceeds `idle_gap`.
        time: the time of every message without its own.
        user_name / agent_name: speakers for user and assistant messages ("user"/"assistant").
        metadata: merged under each message's own metadata.
        last_turn: the conversation's latest stored turn, for session continuation.
        known: stored turns of this conversation by turn id, for re-sent messages.
        idle_gap: how long a pause starts a new session.

    Returns:
        The batch to append, with counts of skipped and already-stored messages.
    """
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        raise InputError("messages must be a list of messages", "messages")
    problems: list[str] = []
    turns: list[Turn] = []
    skipped = already = 0
    known = known or {}
    prev_time = last_turn.time if last_turn is not None else None
    prev_session = last_turn.session_id if last_turn is not None else None
    for i, raw in enumerate(messages):
        m = read_message(i, raw, problems)
        if m is None:
            continue
        where = f"messages[{i}]"
        if m.role in SKIPPED_ROLES or (m.role in AGENT_ROLES and not m.text.strip()):
            skipped += 1
            continue
        if m.role in USER_ROLES:
            speaker = m.name or user_name or "user"
        elif m.role in AGENT_ROLES:
            speaker = m.name or agent_name or "assistant"
        else:
            problems.append(f"{where}: unknown role {m.role!r}; use user, assistant, system or tool")
            continue
        if m.id is not None and m.id in known:
            stored = known[m.id]
            if stored.text == m.text and stored.speaker == speaker:
                already += 1
                continue
        try:
            when = parse_iso_time(m.time, f"{where} field 'time'") if m.time is not None else (time or now)
        except InputError as exc:
            problems.append(str(exc))
            continue
        if session_id is not None:
            session = session_id
        elif prev_session is None or prev_time is None or when - prev_time > idle_gap:
            session = _new_session(when)
        else:
            session = prev_session
        prev_time, prev_session = max(when, prev_time) if prev_time else when, session
        meta = {**(metadata or {}), **(m.metadata or {})} if (metadata or m.metadata) else None
        if m.metadata is not None and not isinstance(m.metadata, Mapping):
            problems.append(f"{where}: field 'metadata' must be an object, got {type(m.metadata).__name__}")
            continue
        try:
            turns.append(
                Turn(
                    conversation_id=conversation_id,
                    session_id=session,
                    turn_id=m.id or _fresh_id(),
                    speaker=speaker,
                    text=m.text,
                    time=when,
                    metadata=meta,
                )
            )
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"]) or "message"
                field = {"turn_id": "id", "text": "content", "speaker": "name"}.get(loc, loc)
                problems.append(f"{where}: field {field!r}: {err['msg']}")
    if problems:
        more = f" (and {len(problems) - MAX_REPORTED} more)" if len(problems) > MAX_REPORTED else ""
        raise InputError(
            f"{len(problems)} problem(s): " + "; ".join(problems[:MAX_REPORTED]) + more, "messages"
        )
    return MessageBatch(Batch(turns=turns, sessions=[]), skipped, already)
