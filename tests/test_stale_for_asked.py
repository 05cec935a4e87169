"""A turn is stale for what the question asks, not for everything it says: a turn telling of a job
that later ended still says where its speaker lived then (`stale_revisions` with the plan's
predicates); a turn telling nothing of the asked predicates is judged by all it says. Values here
are written for this test."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from emem.agents.currentness import stale_revisions
from emem.answer import EvidenceItem

T = datetime(2024, 4, 1, tzinfo=UTC)


def rev(rid: str, predicate: str) -> Any:
    return SimpleNamespace(
        id=rid, subject="user", subject_key="user", predicate=predicate, valid_to=None, known_from=T
    )


def test_only_the_asked_predicates_make_a_turn_stale() -> None:
    turn = EvidenceItem(
        conversation_id="c",
        turn_id="t1",
        session_id="s",
        speaker="user",
        time=T,
        text="I'm leaving the bakery, and I'm staying in my flat in Ostend.",
        score=0.5,
    )
    sources = {"c/t1": [rev("job", "works_at"), rev("home", "lives_in")]}
    held = {"works_at": [], "lives_in": [rev("home", "lives_in")]}

    def resolve(subject: str, predicate: str) -> Any:
        return SimpleNamespace(revisions=held[predicate], status="state" if held[predicate] else "miss")

    assert "c/t1" in stale_revisions([turn], sources, resolve)
    assert stale_revisions([turn], sources, resolve, ["lives_in"]) == {}
    assert "c/t1" in stale_revisions([turn], sources, resolve, ["works_at"])
    # a turn telling nothing of what is asked is judged by all it says
    assert "c/t1" in stale_revisions([turn], {"c/t1": [rev("job", "works_at")]}, resolve, ["lives_in"])
