"""Yes/no questions about plans and states: "No: <what ended it>" when a later statement on the
asked thing calls it off, replaces it or moves it to another time, even in other words than the
question's (the plan's own words stand in for them); "Yes: ..." to a still-question nothing
ended; nothing for a question that is not yes/no. Conversations are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from said_evidence import said
from test_forget_phrasings import chat

from emem.agents.yesno import yes_no
from emem.memory import Memory


def test_a_plan_called_off_in_other_words_is_a_no() -> None:
    ev = said(
        "I'm saving for a kayak, a Perception Pescador, I'll buy it in May.",
        "Work is busy this month.",
        "The kayak's off, the garage roof needs fixing first.",
    )
    assert yes_no("Am I buying the Perception Pescador in May?", ev) == (
        "No: The kayak's off, the garage roof needs fixing first."
    )


def test_what_was_given_up_for_another_is_a_no() -> None:
    ev = said(
        "The retreat is booked at Glenmore Lodge for the spring.",
        "Retreat update: we're holding it at Aviemore Hostel instead of Glenmore Lodge, cheaper.",
    )
    assert yes_no("Is the retreat going to be at Glenmore Lodge?", ev) == (
        "No: Retreat update: we're holding it at Aviemore Hostel instead of Glenmore Lodge, cheaper."
    )
    assert yes_no(
        "Is the retreat going to be at Aviemore Hostel?",
        ev,
    ).startswith("Yes")


def test_a_plan_moved_to_another_time_is_a_no_for_the_old_time() -> None:
    ev = said("We're off to Lisbon in April for the reunion.", "The reunion has been moved to October.")
    assert yes_no("Are we going to Lisbon for the reunion in April?", ev) == (
        "No: The reunion has been moved to October."
    )


def test_waiting_until_another_time_is_a_no_for_the_old_time() -> None:
    ev = said("I'm sitting my grade 6 piano in June.", "I've decided to wait until November for grade 6.")
    assert (
        yes_no("Am I sitting grade 6 in June?", ev) == "No: I've decided to wait until November for grade 6."
    )


def test_switching_to_something_else_ends_a_state() -> None:
    ev = said(
        "I use Todoist for my lists, it's fine.",
        "The cat knocked my tea over.",
        "I finally switched to Things, Todoist kept logging me out.",
    )
    assert yes_no("Am I still using Todoist?", ev) == (
        "No: I finally switched to Things, Todoist kept logging me out."
    )


def test_not_any_more_and_a_loss_end_a_state() -> None:
    ev = said(
        "Jonah is vegetarian, remember that for the barbecue.",
        "Funny thing, Jonah isn't vegetarian any more, he eats chicken.",
    )
    assert yes_no("Is Jonah vegetarian?", ev) == (
        "No: Funny thing, Jonah isn't vegetarian any more, he eats chicken."
    )
    ev = said("We've got two goats now, Pickle and Bean.", "We lost a goat to the cold in January.")
    assert yes_no("Do we still have two goats?", ev) == "No: We lost a goat to the cold in January."


def test_a_still_question_nothing_ended_is_a_yes() -> None:
    ev = said("I've started pottery classes on Wednesdays.", "The weather has been awful.")
    assert (
        yes_no("Do I still have pottery classes?", ev) == "Yes: I've started pottery classes on Wednesdays."
    )


def test_a_statement_the_ledger_replaced_is_a_no_in_any_words() -> None:
    """No cue of an ending in "We're moving to Alnwick in August": the ledger set the first turn
    aside as superseded, so a still-question about it is a no, with what was said later."""
    ev = said(
        "I live in Diss, in a rented flat above a bakery on Mere Street.",
        "So we're moving to Alnwick in August. We've found a terraced house to rent on Pottergate.",
    )
    ev[0] = ev[0].model_copy(update={"role": "superseded-value"})
    assert yes_no("Do I still rent the flat above the bakery?", ev) == (
        "No: We've found a terraced house to rent on Pottergate."
    )
    # the same turns without the ledger's word: nothing said ends the flat, so a yes
    assert yes_no("Do I still rent the flat above the bakery?", said(ev[0].text, ev[1].text)).startswith(
        "Yes"
    )


def test_what_replaced_a_plan_is_a_yes_when_it_is_what_is_asked() -> None:
    ev = said(
        "For the bank holiday we're driving up to see Aoife's sister in Sligo.",
        "Change of plan for the bank holiday: Aoife's sister is coming down to us instead, the car's in the garage.",
    )
    assert yes_no("Did Aoife's sister come down to us for the bank holiday?", ev) == (
        "Yes: Change of plan for the bank holiday: Aoife's sister is coming down to us instead, the car's in the garage."
    )


def test_a_later_replacement_that_is_what_is_asked_is_a_yes() -> None:
    ev = said(
        "For the long weekend we're meant to be flying out to Moira's brother in Belfast.",
        "Change of plan for the long weekend: Moira's brother came over to us instead, flights were silly.",
    )
    assert (yes_no("Did Moira's brother come over for the long weekend?", ev) or "").startswith("Yes")
    # the plan it replaced, named by its place, is a no
    assert (yes_no("Are we flying to Belfast for the long weekend?", ev) or "").startswith("No")


@pytest.mark.parametrize(
    ("question", "replacement"),
    [
        # what the replacement gave up is asked
        (
            "Did we sell the cottage in Dornoch?",
            "The cottage in Dornoch didn't sell, so we're letting it out instead.",
        ),
        # the replacement set against the plan it replaced
        (
            "Are we moving to a bigger flat?",
            "We were going to move to a bigger flat, but the landlord is building us an extension instead.",
        ),
        # the replacement is about something else
        ("Did Ronan run the Dublin marathon?", "Ronan is running the Cork half in October instead."),
    ],
)
def test_a_replacement_that_is_not_what_is_asked_is_no_yes(question: str, replacement: str) -> None:
    ev = said("Some news from the family this month.", replacement)
    assert not (yes_no(question, ev) or "").startswith("Yes")


def test_not_a_yes_no_question() -> None:
    ev = said("I'm vegan now.")
    assert yes_no("What do I eat?", ev) is None
    assert yes_no("Is she vegan or vegetarian?", ev) is None


CONV = chat(
    (
        "2024-02-03T09:00:00+00:00",
        [
            ("user", "I'm planning to sail the Hebrides with my cousin Ottilie in August."),
            ("assistant", "Sounds wonderful."),
            ("user", "And I'm learning the cello on Tuesdays."),
        ],
    ),
    (
        "2024-05-10T18:30:00+00:00",
        [
            ("user", "The Hebrides trip fell through, Ottilie's boat needs a new mast."),
            ("assistant", "What a shame."),
        ],
    ),
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("yesno")) / "home")
    mem.add_conversation(CONV, namespace="yn")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ("auto", "deep", "fast"))
def test_every_mode_answers_no_to_a_plan_called_off(memory: Memory, mode: str) -> None:
    a = memory.ask("Am I still sailing the Hebrides with Ottilie?", namespace="yn", mode=mode)
    assert a.answer.startswith("No:") and "fell through" in a.answer, a.answer


JOB_CHANGE = chat(
    (
        "2024-01-08T09:00:00+00:00",
        [
            ("user", "I live in Tartu and I work as a baker at Leivakoda."),
            ("assistant", "Early mornings, then!"),
        ],
    ),
    (
        "2024-04-02T18:00:00+00:00",
        [
            ("user", "I got a job as pastry chef at Hotel Tamme, I start next month."),
            ("assistant", "Congratulations!"),
        ],
    ),
    (
        "2024-07-15T20:00:00+00:00",
        [("user", "I was going to run the Tartu marathon in August but I cancelled, my ankle hurts.")],
    ),
)


@pytest.mark.parametrize("mode", ("auto", "deep", "fast"))
def test_a_value_the_ledger_holds_as_replaced_is_a_no_naming_the_current_one(
    tmp_path: Path, mode: str
) -> None:
    """The ledger decides what is current: "Do I still work at Leivakoda?" is answered with the
    employer it holds now, not with a later, unrelated plan called off in the same city."""
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(JOB_CHANGE, namespace="yn")
        a = mem.ask("Do I still work at Leivakoda?", namespace="yn", mode=mode)
        assert a.answer == "No: Hotel Tamme", a.answer
