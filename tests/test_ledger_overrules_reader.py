"""A model reader may pick an older turn over the ledger's line; the ledger decides what is current.

The reader here is scripted (the house rule allows LLM stand-ins); the memory, its ledger and the
read path are real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scripted_chat import RoleChat

from emem import Memory
from emem.agents.currentness import overruled
from emem.agents.planner import offline_plan
from emem.agents.roles import RoleModels
from emem.answer import FactItem, Operation

NS = "phone-user"
OLD, NEW = "021 448 3107", "022 190 5562"


def conversation() -> dict[str, Any]:
    return {
        "conversation_id": "phones",
        "sessions": [
            {
                "session_id": "S1",
                "time": "2033-01-09T10:00:00Z",
                "turns": [
                    {
                        "turn_id": "S1:1",
                        "speaker": "user",
                        "text": f"My mobile is {OLD} if you need it for forms.",
                    },
                    {"turn_id": "S1:2", "speaker": "assistant", "text": "Noted, thanks."},
                ],
            },
            {
                "session_id": "S2",
                "time": "2033-04-02T10:00:00Z",
                "turns": [
                    {
                        "turn_id": "S2:1",
                        "speaker": "user",
                        "text": f"New number, by the way: {NEW}. The old one is gone, I switched providers.",
                    },
                    {"turn_id": "S2:2", "speaker": "assistant", "text": "Updated."},
                ],
            },
        ],
    }


def fact(values: list[str], history: list[str]) -> FactItem:
    return FactItem(
        subject="user",
        predicate="phone",
        status="state",
        values=values,
        history=[{"object_text": h} for h in history],
    )


def test_a_superseded_value_alone_is_overruled() -> None:
    plan = offline_plan("What's my mobile number?", ["user"], None, subjects=["user"])
    stale = fact([NEW], [OLD])
    assert overruled(f"It is {OLD}.", plan, [stale]) is stale
    assert overruled(NEW, plan, [stale]) is None
    assert overruled(f"It changed from {OLD} to {NEW}.", plan, [stale]) is None  # the current one is named


def test_earlier_values_asked_for_and_other_operations_are_left_alone() -> None:
    stale = fact([NEW], [OLD])
    assert (
        overruled(
            OLD, offline_plan("What was my old mobile number?", ["user"], None, subjects=["user"]), [stale]
        )
        is None
    )
    counting = offline_plan("How many numbers have I had?", ["user"], None, subjects=["user"])
    assert counting.operation is not Operation.FACT
    assert overruled(OLD, counting, [stale]) is None


def test_values_compare_as_whole_words() -> None:
    plan = offline_plan("Where do I work?", ["user"], None, subjects=["user"])
    moved = FactItem(
        subject="user",
        predicate="works_at",
        status="state",
        values=["Acme Labs"],
        history=[{"object_text": "Acme"}],
    )
    assert overruled("Acmeville Bakery", plan, [moved]) is None
    assert overruled("Acme", plan, [moved]) is moved
    assert overruled("Acme Labs", plan, [moved]) is None  # a current value that holds the old one


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_the_ledger_value_reaches_the_answer_of_a_model_reader(tmp_path: Path, mode: str) -> None:
    roles = RoleModels({"reader": RoleChat({}, default=OLD, model="scripted-reader")})
    with Memory(tmp_path / "home", roles=roles) as m:
        m.add_conversation(conversation(), namespace=NS)
        answer = m.ask("What's my mobile number?", namespace=NS, mode=mode)
        assert answer.answer == NEW
        assert answer.overruled == OLD  # what the reader said stays auditable
        assert answer.status == "answered"
        assert not answer.offline  # a model was asked; the ledger only corrected it
        earlier = m.ask("What was my old mobile number?", namespace=NS, mode=mode)
        assert earlier.answer == OLD and earlier.overruled is None


def test_a_reader_that_gives_the_current_value_is_not_overruled(tmp_path: Path) -> None:
    with Memory(
        tmp_path / "home", roles=RoleModels({"reader": RoleChat({}, default=NEW, model="scripted-reader")})
    ) as m:
        m.add_conversation(conversation(), namespace=NS)
        answer = m.ask("What's my mobile number?", namespace=NS)
        assert answer.answer == NEW and answer.overruled is None


def test_only_the_asked_subjects_fact_is_overruled() -> None:
    """A number the ledger filed under the user may be their sister's; a question naming someone
    else is not the user's fact to overrule, and a plan naming two people overrules nothing."""
    stale = fact([NEW], [OLD])
    about_aoife = offline_plan("What's Aoife's phone number?", ["user", "Aoife"], None)
    assert about_aoife.entities == ["Aoife"]
    assert overruled(OLD, about_aoife, [stale]) is None
    aoifes = FactItem(
        subject="Aoife", predicate="phone", status="state", values=[NEW], history=[{"object_text": OLD}]
    )
    assert overruled(OLD, about_aoife, [stale, aoifes]) is aoifes
    both = about_aoife.model_copy(update={"entities": ["user", "Aoife"]})
    assert overruled(OLD, both, [stale, aoifes]) is None
    assert overruled(OLD, both, [stale]) is None  # Aoife is asked about; the user's fact is not hers
    things = about_aoife.model_copy(update={"entities": ["user", "mobile number"]})
    assert overruled(OLD, things, [stale]) is stale  # a model planner's entity that is no person
