"""Forget requests after a short lead-in ("One request: please forget ...", "Last thing: ..."),
topics covering their word families ("counselling" covers "counsellor"), and a fact read from
forgotten words withheld with them whatever predicate it was filed under."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_forget_phrasings import chat

from emem.ledger.withhold import ForgetRequest, active_forget_requests
from emem.memory import Memory

NS = "lead-ins"
MODES = ("auto", "deep", "fast")

CONV = chat(
    (
        "2024-03-01T09:00:00+00:00",
        [
            ("user", "My mum Ilse is staying with us, she's coeliac so we cook gluten-free."),
            ("assistant", "Noted."),
            ("user", "Also I've started seeing a physiotherapist for my back, Mondays at 8."),
            ("user", "My brother Tomasz is leaving Brightwell, he got an offer from Norland Bank."),
        ],
    ),
    (
        "2024-04-10T09:00:00+00:00",
        [
            ("user", "Quick request: please forget about Mum's coeliac disease. She's private about it."),
            ("user", "Last thing, delete what I said about Tomasz leaving. It isn't public yet."),
            ("user", "Could you also delete what I told you about the physiotherapy?"),
            ("assistant", "Done."),
        ],
    ),
)


@pytest.fixture()
def memory(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "h")
    m.add_conversation(CONV, namespace=NS)
    return m


def test_a_request_after_a_lead_in_is_recorded(memory: Memory) -> None:
    memory.consolidate(NS)
    topics = {r.topic for r in active_forget_requests(memory.ledger, NS)}
    assert any("coeliac" in t for t in topics) and any("Tomasz" in t for t in topics)


def test_a_topic_covers_its_word_family() -> None:
    from datetime import UTC, datetime

    r = ForgetRequest.for_topic(
        "the physiotherapy", subject="user", revision_id="r", known_from=datetime(2024, 1, 1, tzinfo=UTC)
    )
    assert r.covers(text="I've started seeing a physiotherapist for my back.")
    assert not r.covers(text="I've started running on Mondays.")


@pytest.mark.parametrize("mode", MODES)
def test_what_the_user_asked_to_forget_is_not_answered(memory: Memory, mode: str) -> None:
    for q, secret in [
        ("Where did Tomasz get an offer from?", "Norland"),
        ("Who am I seeing for my back?", "physiotherapist"),
    ]:
        a = memory.ask(q, namespace=NS, mode=mode)
        assert secret not in a.answer and a.status == "abstained", (q, a.answer)
