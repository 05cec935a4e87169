"""Evidence items and packed contexts built by hand, for reader tests."""

from __future__ import annotations

from datetime import UTC, datetime

from emem.answer import Closure, EvidenceItem, PackResult


def evidence_item(
    tid: str, day: int, score: float, text: str, speaker: str = "user", *, month: int = 1
) -> EvidenceItem:
    """One turn of conversation "c", session "S", said on `day` of `month` 2024."""
    return EvidenceItem(
        turn_id=tid,
        session_id="S",
        conversation_id="c",
        speaker=speaker,
        time=datetime(2024, month, day, tzinfo=UTC),
        text=text,
        score=score,
    )


def pack_items(*items: EvidenceItem) -> PackResult:
    """Each item as its own closure (priority = its score), one token each, budget 2,000."""
    closures = [
        Closure(key=e.turn_id, group=e.turn_id, priority=e.score, lines=[e.text], tokens=1, evidence=[e])
        for e in items
    ]
    return PackResult(closures=closures, tokens=len(items), budget=2000)
