"""Builds small dated conversations for end-to-end tests: sessions of (speaker, text) turns, each
session at its own time, turn ids S<i>:<j>."""

from __future__ import annotations

from typing import Any

Session = tuple[str, list[tuple[str, str]]]
"""(ISO time of the session, [(speaker, text), ...])."""


def dated_conversation(sessions: list[Session], cid: str = "c") -> dict[str, Any]:
    """An emem conversation dict.

    Args:
        sessions: the sessions in order, each with its time and turns.
        cid: the conversation id.
    Returns:
        The conversation, as `Memory.add_conversation` takes it.
    """
    return {
        "conversation_id": cid,
        "sessions": [
            {
                "session_id": f"S{i}",
                "time": time,
                "turns": [
                    {"turn_id": f"S{i}:{j}", "speaker": who, "text": text}
                    for j, (who, text) in enumerate(turns, start=1)
                ],
            }
            for i, (time, turns) in enumerate(sessions, start=1)
        ],
    }
