"""Forget requests said the way people say them: a pronoun for the person just named, a wrapper
("the stuff about ..."), two things in one request, "you don't need to remember ...", and "I don't
want X stored". Each is recorded with its topic and what it names never reaches an answer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from dated_conversations import Session, dated_conversation

from emem.ledger.withhold import active_forget_requests
from emem.memory import Memory

NS = "agent-forget"


def chat(*sessions: Session) -> dict[str, Any]:
    return dated_conversation(list(sessions), cid="c")


CONV = chat(
    (
        "2024-02-03T09:00:00+00:00",
        [
            ("user", "My cousin Radek runs a bakery in Brno and he is coming to stay in May."),
            ("assistant", "That sounds fun."),
            ("user", "My son Ilya started at Greenfield Academy, his teacher is Mr Brandt."),
            ("user", "I take amlodipine for my blood pressure, 5mg every morning."),
            ("user", "I live in Leeds with my partner."),
        ],
    ),
    (
        "2024-04-10T18:30:00+00:00",
        [
            ("user", "Radek and I had a falling out. Please forget everything about him."),
            ("assistant", "Understood."),
            ("user", "Also, you don't need to remember which school Ilya goes to or his teacher's name."),
            ("user", "And I don't want my blood pressure stuff stored anywhere."),
        ],
    ),
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("forget")) / "home", forget_policy="withhold")
    mem.add_conversation(CONV, namespace=NS)
    yield mem
    mem.close()


def test_each_phrasing_is_recorded_with_what_it_names(memory: Memory) -> None:
    memory.consolidate(NS)
    topics = {r.topic: r.source for r in active_forget_requests(memory.ledger, NS)}
    assert topics.get("Radek") == "c/S2:1"  # "him" is the person the turn named before
    assert any("Ilya" in t and "school" in t for t in topics)  # the wh-clause names the school
    assert "Ilya's teacher's name" in topics  # "his" is Ilya, named earlier in the sentence
    assert any("blood pressure" in t for t in topics)


@pytest.mark.parametrize(
    ("question", "secret"),
    [
        ("Where does my cousin live?", r"Brno"),
        ("Who is Ilya's teacher?", r"Brandt"),
        ("Which school does Ilya go to?", r"Greenfield"),
        ("What medication do I take?", r"amlodipine"),
    ],
)
@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_what_was_asked_to_be_forgotten_is_not_answered(
    memory: Memory, question: str, secret: str, mode: str
) -> None:
    answer = memory.ask(question, mode=mode, namespace=NS)
    assert not re.search(secret, answer.answer), answer.answer
    assert not any(re.search(secret, e.text) for e in answer.evidence)


def test_what_no_request_names_is_still_answered(memory: Memory) -> None:
    answer = memory.ask("Where do I live?", mode="fast", namespace=NS)
    assert "Leeds" in answer.answer
