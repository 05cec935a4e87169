"""Builds evidence items for the reader's pure rules: one user turn a month, from T on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from emem.answer import EvidenceItem

T = datetime(2024, 3, 1, tzinfo=UTC)
"""When the first of `said`'s turns was said."""


def said(*texts: str) -> list[EvidenceItem]:
    """Evidence items of the user's turns, in order, thirty days apart from `T`.

    Args:
        texts: the turns' texts.
    Returns:
        One item per text, turn ids t0, t1, ...
    """
    return [
        EvidenceItem(
            conversation_id="c",
            turn_id=f"t{i}",
            session_id="s",
            speaker="user",
            time=T + timedelta(days=30 * i),
            text=text,
            score=0.5,
            role="evidence",
        )
        for i, text in enumerate(texts)
    ]
