"""Small builders for the tests of what is said: user turns for the extractor, and evidence items
said a given month apart for the reader's rules (one place, so each test shows only its sentences)."""

from __future__ import annotations

from datetime import UTC, datetime

from emem.answer import EvidenceItem
from emem.extract.offline import OfflineExtractor
from emem.extract.schema import FactCandidate
from emem.models import Turn


def user_turns(*texts: str, speaker: str = "user") -> list[Turn]:
    """One session of turns, all said by `speaker` on 1 March 2025."""
    return [
        Turn(
            conversation_id="c",
            session_id="S1",
            turn_id=f"S1:{i}",
            speaker=speaker,
            text=t,
            time=datetime(2025, 3, 1, tzinfo=UTC),
        )
        for i, t in enumerate(texts, 1)
    ]


def extracted(*texts: str, predicate: str) -> list[FactCandidate]:
    """What the offline extractor files under `predicate` from turns the user said."""
    return [f for f in OfflineExtractor()(user_turns(*texts)) if f.predicate == predicate]


def spoken(text: str, month: int, speaker: str = "user") -> EvidenceItem:
    """A piece of evidence said on the first of `month` 2025 (later months are later turns)."""
    return EvidenceItem(
        conversation_id="c",
        turn_id=f"S{month}:1",
        session_id=f"S{month}",
        speaker=speaker,
        text=text,
        time=datetime(2025, month, 1, tzinfo=UTC),
        score=0.5,
    )
