"""A packed context built by hand, for reader tests: one closure per evidence item, in order."""

from __future__ import annotations

from emem.answer import Closure, EvidenceItem, PackResult


def pack_items(*items: EvidenceItem) -> PackResult:
    """Each item as its own closure (priority = its score), one token each, budget 2,000."""
    closures = [
        Closure(key=e.turn_id, group=e.turn_id, priority=e.score, lines=[e.text], tokens=1, evidence=[e])
        for e in items
    ]
    return PackResult(closures=closures, tokens=len(items), budget=2000)
