"""Cheap-then-escalate: a tie the rules cannot order goes to the adjudicator only when a model
is configured; without one it stays a visible conflict; "unknown" never picks."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from emem.agents.roles import RoleModels
from emem.extract.schema import FactCandidate
from emem.llm.langchain_adapter import LangChainChatModel
from emem.memory import Memory

CONV = {
    "conversation_id": "c",
    "sessions": [
        {
            "session_id": "S1",
            "time": "2023-05-01T10:00:00+00:00",
            "turns": [
                {"turn_id": "S1:1", "speaker": "Ana", "text": "I live in Boston."},
                {"turn_id": "S1:2", "speaker": "Ana", "text": "Well, Chicago, since the move is done."},
            ],
        }
    ],
}


class TwoCities:
    name = "test-two-cities"

    def __call__(self, turns):
        city = {"S1:1": "Boston", "S1:2": "Chicago"}
        return [
            FactCandidate(
                subject="Ana",
                predicate="lives_in",
                object=city[t.turn_id],
                surface=t.text,
                source_turn_ids=[t.turn_id],
            )
            for t in turns
        ]


def roles(reply: str | None) -> RoleModels:
    judge = (
        None
        if reply is None
        else LangChainChatModel(FakeListChatModel(responses=[reply]), model="fake-judge")
    )
    return RoleModels(
        {"planner": None, "assistant": None, "reader": None, "summariser": None, "adjudicator": judge}
    )


def test_without_an_adjudicator_the_tie_stays_a_conflict(tmp_path) -> None:
    with Memory(tmp_path / "h", roles=roles(None)) as m:
        m.add_conversation(CONV, namespace="ns")
        report = m.consolidate("ns", TwoCities())
        assert report.conflicts == 1 and report.adjudicated == 0
        assert m.resolve("Ana", "lives_in", namespace="ns").status == "conflict"


def test_the_adjudicator_orders_a_tie(tmp_path) -> None:
    with Memory(tmp_path / "h", roles=roles(json.dumps({"winner": "B", "reason": "the move is done"}))) as m:
        m.add_conversation(CONV, namespace="ns")
        report = m.consolidate("ns", TwoCities())
        assert report.adjudicated == 1
        res = m.resolve("Ana", "lives_in", namespace="ns")
        assert res.status == "state" and res.values == ["Chicago"]
        assert any(r.kind == "adjudicated" for r in m.ledger.relations("ns"))


def test_an_unknown_verdict_never_picks(tmp_path) -> None:
    with Memory(tmp_path / "h", roles=roles(json.dumps({"winner": "unknown"}))) as m:
        m.add_conversation(CONV, namespace="ns")
        assert m.consolidate("ns", TwoCities()).adjudicated == 0
        assert m.resolve("Ana", "lives_in", namespace="ns").status == "conflict"
