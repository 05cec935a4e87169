"""Deep reconstruction's packing rules: what the assistants read and how the budget is filled."""

from __future__ import annotations

from datetime import UTC, datetime

from packing import evidence_item

from emem.agents.aggregate import build_closures, fact_closure
from emem.agents.assistant import segment_lines
from emem.answer import FactItem, Operation, Plan
from emem.models import StoredTurn
from emem.read.packing import pack


def _turn(tid: str, text: str, day: int = 1, session: str = "S1") -> StoredTurn:
    return StoredTurn(
        turn_id=tid,
        session_id=session,
        conversation_id="c",
        speaker="Ana",
        text=text,
        time=datetime(2024, 1, day, 9, tzinfo=UTC),
        namespace="n",
        seq=int(tid.split(":")[1]),
        recorded_at=datetime(2024, 1, 1, tzinfo=UTC),
        hash="0" * 64,
    )


def test_segment_lines_date_a_turn_only_when_its_day_changes() -> None:
    turns = [_turn("D1:1", "hi"), _turn("D1:2", "moved to Lyon"), _turn("D1:3", "back", day=3)]
    lines = segment_lines(turns, datetime(2024, 1, 1, tzinfo=UTC))
    assert lines == ["[D1:1] Ana: hi", "[D1:2] Ana: moved to Lyon", "[D1:3 | 2024-01-03] Ana: back"]


def test_segment_lines_date_the_first_turn_when_the_header_day_differs() -> None:
    lines = segment_lines([_turn("D1:1", "hi", day=2)], datetime(2024, 1, 1, tzinfo=UTC))
    assert lines == ["[D1:1 | 2024-01-02] Ana: hi"]


def _fact(values: int) -> FactItem:
    revisions = [
        {
            "object_text": f"dog number {i} " + "with a long name " * 5,
            "valid_from": "2024-01-01",
            "sources": ["c/D1:1"],
        }
        for i in range(values)
    ]
    return FactItem(subject="Ana", predicate="has_pet", status="state", values=["dogs"], revisions=revisions)


def test_a_fact_too_long_for_the_budget_leaves_its_source_to_compete_as_a_turn() -> None:
    plan = Plan(operation=Operation.FACT, entities=["Ana"], predicates=["has_pet"])
    source = evidence_item("D1:1", 1, 0.9, "my dogs love the snow")
    sources = {"c/D1:1": source}
    big, small = _fact(40), _fact(1)
    assert fact_closure(big, sources).tokens > 300 > fact_closure(small, sources).tokens
    kept = build_closures(plan, [source], [small], {}, 300, sources)
    assert [c.key for c in kept] == ["fact:Ana:has_pet"]  # the source goes with the fact
    dropped = build_closures(plan, [source], [big], {}, 300, sources)
    assert [c.key for c in dropped] == ["turn:c/D1:1"]
    assert pack(dropped, 300).closures[0].evidence[0].turn_id == "D1:1"
