"""Filters on search and ask: only the turns a filter keeps are ever returned or used."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import small_conversation

from emem.errors import InputError
from emem.memory import Memory
from emem.models import Turn
from emem.retrieval.filters import TurnFilter, as_filter

T = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def turn(**kw: object) -> Turn:
    base = {
        "conversation_id": "c",
        "session_id": "s",
        "turn_id": "1",
        "speaker": "Ana",
        "text": "x",
        "time": T,
    }
    return Turn(**{**base, **kw})


def test_matches_is_pure_and_checks_every_condition() -> None:
    f = TurnFilter(conversation_id=["c", "d"], speaker="ana", since="2024-05-01", until=T, metadata={"k": 1})
    assert f.matches(turn(metadata={"k": 1, "other": "y"}))
    assert not f.matches(turn(metadata={"k": 2}))
    assert not f.matches(turn(metadata={"k": True}))  # True is not 1
    assert not f.matches(turn(metadata=None))
    assert not f.matches(turn(conversation_id="e", metadata={"k": 1}))
    assert not f.matches(turn(speaker="Bo", metadata={"k": 1}))
    assert not f.matches(turn(time=datetime(2024, 6, 1, tzinfo=UTC), metadata={"k": 1}))
    assert TurnFilter().is_empty() and as_filter({}) is None


def test_bad_filter_is_one_input_error() -> None:
    with pytest.raises(InputError) as err:
        as_filter({"speaker": [], "since": "not a time", "colour": "red"})
    msg = str(err.value)
    assert "speaker" in msg and "since" in msg and "colour" in msg
    empty_range = as_filter({"since": "2024-02-01", "until": "2024-01-01"})
    assert empty_range is not None and not empty_range.matches(turn(time=datetime(2024, 1, 15, tzinfo=UTC)))


@pytest.fixture
def ten(memory: Memory) -> Memory:
    for i in range(10):
        conv = small_conversation(f"c{i}")
        for s in conv["sessions"]:
            for t in s["turns"]:
                t["text"] = t["text"].replace("Lisbon", f"Lisbon (conversation {i})")
        memory.add_conversation(conv, namespace="ns")
    return memory


def test_search_filter_by_conversation_never_leaks(ten: Memory) -> None:
    hits = ten.search("Lisbon job", namespace="ns", k=10, filter={"conversation_id": "c7"})
    assert hits and {h.conversation_id for h in hits} == {"c7"}
    assert len(hits) == 6  # every turn of c7 is reachable, none of the other nine
    unfiltered = ten.search("Lisbon job", namespace="ns", k=10)
    assert len({h.conversation_id for h in unfiltered}) > 1


def test_search_filter_by_speaker_time_and_metadata(ten: Memory) -> None:
    hits = ten.search("surfing", namespace="ns", k=20, filter={"speaker": "omar", "until": "2022-04-01"})
    assert hits and all(h.speaker == "Omar" and h.time <= datetime(2022, 4, 1, tzinfo=UTC) for h in hits)
    ten.add_messages(
        [{"role": "user", "content": "Surfing lesson booked", "metadata": {"channel": "sms"}}],
        namespace="ns",
        conversation_id="chat",
    )
    hits = ten.search("surfing", namespace="ns", k=5, filter={"metadata": {"channel": "sms"}})
    assert [h.text for h in hits] == ["Surfing lesson booked"]
    assert ten.search("surfing", namespace="ns", k=5, filter={"metadata": {"channel": "email"}}) == []


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_ask_filter_keeps_evidence_inside_the_filter(ten: Memory, mode: str) -> None:
    answer = ten.ask("Where does Dana work?", namespace="ns", mode=mode, filter={"conversation_id": "c3"})
    assert answer.evidence, answer
    assert {e.conversation_id for e in answer.evidence} == {"c3"}
    assert all(a.conversation_id == "c3" for a in answer.activated_segments)
    other = ten.ask("Where does Dana work?", namespace="ns", mode=mode)
    assert len({e.conversation_id for e in other.evidence}) > 1


def test_ask_filter_by_speaker(ten: Memory) -> None:
    answer = ten.ask(
        "What did Omar say about his sister?", namespace="ns", mode="deep", filter={"speaker": "Omar"}
    )
    assert answer.evidence and {e.speaker for e in answer.evidence} == {"Omar"}
