"""A refusal cites nothing: when the answer says the user asked to forget something, its evidence
is empty, so a turn the request's words missed cannot reach the caller through the provenance.
And a sentence that only carries on a covered one ("533918420, expires 2029" after "can you keep
my passport number?") is withheld with it. The conversation is written for these tests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.agents.withheld import rest_of_turn
from emem.ledger.withhold import ForgetRequest
from emem.memory import Memory

CONV = dated_conversation(
    [
        (
            "2025-01-10T09:00:00+00:00",
            [
                ("user", "can you keep my passport number for visa forms? 533918420, expires 2029"),
                ("assistant", "Saved: passport 533918420."),
                ("user", "I'm flying to Lima in March."),
            ],
        ),
        (
            "2025-02-10T09:00:00+00:00",
            [("user", "actually forget my passport number, I'll keep it on paper"), ("assistant", "Done.")],
        ),
    ],
    cid="p",
)


def test_a_sentence_carrying_on_a_covered_one_goes_with_it() -> None:
    r = ForgetRequest.for_topic(
        "passport number", subject="user", revision_id="r", known_from=datetime(2030, 1, 1, tzinfo=UTC)
    )
    said = datetime(2025, 1, 1, tzinfo=UTC)
    text = "I'm off to Lima in March. Can you keep my passport number? 533918420, expires 2029"
    assert rest_of_turn(text, [r], said) == "I'm off to Lima in March."


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
def test_a_refusal_cites_no_evidence(tmp_path: Path, mode: str) -> None:
    mem = Memory(tmp_path / "home", forget_policy="withhold")
    try:
        mem.add_conversation(CONV, namespace="p")
        answer = mem.ask("What's my passport number?", namespace="p", mode=mode)
        assert "forget" in answer.answer and answer.status == "abstained", answer.answer
        assert answer.evidence == [] and "533918420" not in answer.context
        assert "Lima" in mem.ask("Where am I flying in March?", namespace="p", mode=mode).answer
    finally:
        mem.close()
