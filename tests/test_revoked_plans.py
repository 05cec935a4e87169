"""A plan called off answers a question about when (or how) it happens, in whatever words the
plan and the calling off are said; a plan named again afterwards, or another plan said
"instead", is not called off."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem.memory import Memory

MODES = ("auto", "deep", "fast")


@pytest.fixture()
def memory(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "h")
    m.add_conversation(
        dated_conversation(
            [
                (
                    "2024-01-15T09:00:00Z",
                    [
                        ("user", "I've booked my wisdom tooth extraction for the 12th of March."),
                        ("assistant", "Good luck! I'll remind you the day before."),
                        ("user", "And I entered the Harbour 10k on the 6th of April."),
                    ],
                ),
                (
                    "2024-02-20T09:00:00Z",
                    [
                        (
                            "user",
                            "Good news, the dentist says the tooth is fine, so the extraction got cancelled.",
                        ),
                        (
                            "user",
                            "I'm running the Riverside 5k on the 20th of April instead of the Harbour one.",
                        ),
                    ],
                ),
            ]
        ),
        namespace="n",
    )
    return m


@pytest.mark.parametrize("mode", MODES)
def test_a_called_off_plan_answers_when_it_happens(memory: Memory, mode: str) -> None:
    a = memory.ask("When is my wisdom tooth extraction?", namespace="n", mode=mode)
    assert "cancelled" in a.answer and "12" not in a.answer


def test_another_plan_said_instead_does_not_end_one_never_called_off(tmp_path: Path) -> None:
    from conftest import evidence_turn

    from emem.agents.planner import offline_plan
    from emem.agents.revoked import called_off

    plan = offline_plan("When is the Harbour 10k?", ["Harbour"])
    turns = [
        evidence_turn(40, "Luckily the Harbour 10k is still on, the storm missed us."),
        evidence_turn(30, "The Harbour 10k on the 6th of April got called off."),
    ]
    # Told of again after it was called off: the later turn holds.
    assert called_off("When is the Harbour 10k?", plan, turns) is None
    assert called_off("When is the Harbour 10k?", plan, turns[1:]) == turns[1].text
    # A different plan named "instead" is not this one's replacement.
    other = [evidence_turn(50, "I'm doing the Riverside 5k instead, on the 20th."), turns[1]]
    assert called_off("When is the Harbour 10k?", plan, other) == turns[1].text


def test_a_plan_called_off_and_put_to_a_later_time_says_when() -> None:
    from said_evidence import said

    from emem.agents.planner import offline_plan
    from emem.agents.revoked import called_off

    q = "When will I run the Leeds half?"
    ev = said(
        "I'm running the Leeds half in May, my first.",
        "The Leeds half's off though. Shin splints. I've deferred my place to next year.",
    )
    answer = called_off(q, offline_plan(q, ["user"], subjects=["user"]), ev)
    assert answer == "The Leeds half's off though. I've deferred my place to next year."
    plain = said("I'm running the Leeds half in May.", "The Leeds half's off though. Shin splints.")
    assert (
        called_off(q, offline_plan(q, ["user"], subjects=["user"]), plain) == "The Leeds half's off though."
    )


def test_what_happened_to_a_plan_called_off_while_something_else_was_done() -> None:
    from said_evidence import said

    from emem.agents.planner import offline_plan
    from emem.agents.revoked import called_off

    q = "What happened to the Petra dig?"
    ev = said(
        "I've got a place on the Petra dig in May.",
        "The Petra dig was cancelled, so I spent May in Whitby instead.",
    )
    assert called_off(q, offline_plan(q, ["user"], subjects=["user"]), ev) == (
        "The Petra dig was cancelled, so I spent May in Whitby instead."
    )
    # when it is: the plan replaced by another is no answer to when
    when = "When is the Petra dig?"
    assert called_off(when, offline_plan(when, ["user"], subjects=["user"]), ev) is None
