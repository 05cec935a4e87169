"""A reply to the conversation's own question answers that question (emem.agents.replies):
"How long have you been skating?" / "Nearly nine years." answers "How long have I been skating?",
in every mode, and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.agents.replies import reply_to_question
from emem.answer import EvidenceItem
from emem.memory import Memory

NS = "replies"


def turn(tid: str, speaker: str, text: str, day: int = 1) -> EvidenceItem:
    return EvidenceItem(
        turn_id=tid,
        session_id=tid.split(":")[0],
        conversation_id="c",
        speaker=speaker,
        time=datetime(2024, 5, day, tzinfo=UTC),
        text=text,
    )


def test_the_reply_answers_the_same_question_with_you_for_the_replier() -> None:
    turns = [
        turn("S1:1", "assistant", "That sounds lovely. How long have you been skating?"),
        turn("S1:2", "user", "Nearly nine years. Started when I moved here."),
    ]
    reply = reply_to_question("How long have I been skating?", turns)
    assert reply is not None and reply.answer == "Nearly nine years"
    assert reply.reply.turn_id == "S1:2"


def test_another_question_or_another_person_is_not_answered() -> None:
    turns = [
        turn("S1:1", "assistant", "How long have you been skating?"),
        turn("S1:2", "user", "Nearly nine years."),
    ]
    assert reply_to_question("How long have I been swimming?", turns) is None  # other content
    assert reply_to_question("How often do I go skating?", turns) is None  # other wh-phrase
    assert reply_to_question("How long has Mara been skating?", turns) is None  # someone else
    # The asking turn without its reply (not packed) answers nothing.
    assert reply_to_question("How long have I been skating?", turns[:1]) is None


def test_a_deflection_or_a_question_back_is_no_answer() -> None:
    for text in ("Why do you ask?", "Not sure, honestly.", "Hmm, a while I guess."):
        turns = [turn("S1:1", "assistant", "How long have you been skating?"), turn("S1:2", "user", text)]
        assert reply_to_question("How long have I been skating?", turns) is None, text


def test_named_speakers_and_the_latest_reply() -> None:
    turns = [
        turn("S1:4", "Ines", "How many plants do you have now?", day=1),
        turn("S1:5", "Dario", "Fourteen, the balcony is full.", day=1),
        turn("S2:7", "Ines", "So how many plants do you have now?", day=20),
        turn("S2:8", "Dario", "Seventeen! I couldn't resist.", day=20),
    ]
    reply = reply_to_question("How many plants does Dario have now?", turns)
    assert reply is not None and reply.answer == "Seventeen"
    earlier = reply_to_question(
        "How many plants does Dario have now?", turns, before=datetime(2024, 5, 10, tzinfo=UTC)
    )
    assert earlier is not None and earlier.answer == "Fourteen, the balcony is full"
    # Ines asked; a question about Ines is not answered by Dario's reply.
    assert reply_to_question("How many plants does Ines have now?", turns) is None


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
def test_memory_answers_from_the_reply_in_every_mode(tmp_path: Path, mode: str) -> None:
    conv = dated_conversation(
        [
            (
                "2024-02-03T18:00:00+00:00",
                [
                    ("user", "I finally bought proper skates for the rink on Elm Street."),
                    ("assistant", "Nice upgrade! How long have you been skating?"),
                    ("user", "Nearly nine years. I learned on a frozen pond."),
                    ("user", "My knee has been fine since the winter."),
                ],
            ),
            (
                "2024-06-10T18:00:00+00:00",
                [("user", "The rink closes in July for repairs."), ("assistant", "Good to know.")],
            ),
        ],
        cid="sk",
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        answer = mem.ask("How long have I been skating?", namespace=NS, mode=mode)
        assert answer.status == "answered"
        assert "nine years" in answer.answer.lower()


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
def test_a_reply_sharing_no_word_with_the_question_is_read_in_every_mode(tmp_path: Path, mode: str) -> None:
    """ "Swimming, mostly." shares no word with "What do I do to unwind?": fast's one retrieval
    finds the agent's question, and the reply comes along with it as context."""
    conv = dated_conversation(
        [
            (
                "2024-09-02T08:15:00+00:00",
                [
                    ("user", "Hi, I'm Ama. I teach chemistry at a school in Kumasi."),
                    ("assistant", "Lovely to meet you, Ama. What do you do to unwind?"),
                    ("user", "Swimming, mostly. Three times a week."),
                    ("user", "My sister Efua lives in Accra."),
                ],
            ),
            (
                "2024-10-02T08:15:00+00:00",
                [("user", "Marking exams all weekend."), ("assistant", "Hang in there.")],
            ),
        ],
        cid="ama",
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        answer = mem.ask("What do I do to unwind?", namespace=NS, mode=mode)
        assert answer.status == "answered" and answer.answer == "Swimming, mostly", answer.answer
        before = mem.ask(
            "What do I do to unwind?", namespace=NS, mode=mode, as_of="2024-09-01T00:00:00+00:00"
        )
        assert before.status == "abstained", before.answer  # nothing was said by then
