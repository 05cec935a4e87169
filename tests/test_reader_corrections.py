"""Self-corrections read as clauses (what a turn takes back, which clause replaces it), the read
path answering from the replacing clause, and a past state read from what was said by then."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import evidence_turn
from dated_conversations import dated_conversation

from emem.agents.corrected import without_retracted
from emem.agents.corrections import correction_in, retracts
from emem.agents.currentness import said_by
from emem.agents.planner import offline_plan
from emem.agents.reader import newer_typed
from emem.answer import FactItem
from emem.memory import Memory

MODES = ("auto", "deep", "fast")


def test_a_correction_names_what_it_takes_back_and_what_replaces_it() -> None:
    said = correction_in(
        "Quick fix: I told you my locker was number 12. It's number 21, I swapped the digits."
    )
    assert said is not None and said.replacement == "It's number 21" and "12" in said.retracted_words()
    tail = correction_in("The tram pass is €52 a month, not €49.")
    assert tail is not None and tail.replacement == "The tram pass is €52 a month"
    negated = correction_in("Pepper's allergy isn't salmon after all, it's lamb.")
    assert negated is not None and negated.replacement == "it's lamb" and retracts(negated, "salmon")
    # Abbreviations do not end a clause; a mistake said without a value states none.
    titled = correction_in("I got it wrong: my dentist is Dr. Okafor, not Dr. Okoro.")
    assert titled is not None and titled.replacement == "my dentist is Dr. Okafor"


def test_a_name_spelled_out_then_not_the_old_one() -> None:
    # "with a K" says how it is spelled; the sentence splitter keeps "K." as an initial
    spelled = correction_in("And it's Marta Kowal, with a K. Not Coval. She emailed to say so.")
    assert spelled is not None
    assert spelled.retracted == ("Coval",) and "Kowal" in spelled.replacement


def test_turns_that_take_nothing_back_are_no_corrections() -> None:
    assert correction_in("Not really my thing, I cycle to work.") is None
    assert correction_in("I'm not sure yet, but the hike was fun.") is None
    assert correction_in("We adopted a puppy called Fig.") is None


@pytest.mark.parametrize("mode", MODES)
def test_the_replacing_clause_answers_not_the_first_statement(tmp_path: Path, mode: str) -> None:
    conv = dated_conversation(
        [
            (
                "2024-02-01T09:00:00Z",
                [
                    ("user", "My sister Ines just moved, her flat is on Baker Lane now."),
                    ("assistant", "Noted, Baker Lane."),
                    ("user", "Also Pepper, our spaniel, is allergic to salmon, so no fish treats."),
                ],
            ),
            (
                "2024-05-10T09:00:00Z",
                [
                    (
                        "user",
                        "One thing: I told you Ines's flat was on Baker Lane. It's on Mill Lane, Baker Lane is her office.",
                    ),
                    ("user", "And the vet says Pepper's allergy isn't salmon after all, it's lamb."),
                ],
            ),
        ],
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        street = m.ask("Which street is Ines's flat on?", namespace="n", mode=mode)
        assert "Mill Lane" in street.answer and "Baker" not in street.answer
        allergy = m.ask("What is Pepper allergic to?", namespace="n", mode=mode)
        assert "lamb" in allergy.answer and "salmon" not in allergy.answer


def test_a_ledger_value_a_later_turn_takes_back_is_not_current() -> None:
    fact = FactItem(
        subject="Pepper",
        predicate="allergy",
        status="state",
        values=["salmon"],
        revisions=[{"known_from": "2024-01-03T00:00:00+00:00", "sources": ["c/S2:1"]}],
    )
    plan = offline_plan("What is Pepper allergic to?", ["Pepper"])
    later = [evidence_turn(40, "Pepper's allergy isn't salmon after all, it's lamb.")]
    assert without_retracted([fact], later, plan) == []
    # A turn that takes back something else leaves the value alone.
    other = [evidence_turn(40, "Pepper isn't the calm one, Bramble is.")]
    assert without_retracted([fact], other, plan) == [fact]
    # Said before the ledger's value, a "correction" corrects an older statement, not it.
    earlier = [evidence_turn(1, "Pepper's allergy isn't salmon after all, it's lamb.")]
    assert without_retracted([fact], earlier, plan) == [fact]


@pytest.mark.parametrize("mode", MODES)
def test_named_speakers_correct_an_amount_with_a_trailing_not(tmp_path: Path, mode: str) -> None:
    conv = dated_conversation(
        [
            (
                "2024-03-01T18:00:00Z",
                [("Oskar", "The new tram pass costs €49 a month."), ("Wren", "Not bad!")],
            ),
            (
                "2024-03-08T18:00:00Z",
                [("Oskar", "Small fix: the tram pass is €52 a month, not €49."), ("Wren", "Still fine.")],
            ),
        ],
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        a = m.ask("How much is Oskar's tram pass per month?", namespace="n", mode=mode)
        assert "52" in a.answer and "49" not in a.answer


def test_a_correction_of_when_does_not_answer_which() -> None:
    # "not in September" takes back a time: it says nothing of which school.
    c = correction_in("I was wrong about school: Tove starts on the 18th of August, not in September.")
    assert c is not None and c.retracted == ("in September",)


def test_a_past_state_is_read_from_what_was_said_by_then(tmp_path: Path) -> None:
    plan = offline_plan("How much was my rent in February 2024?", [], datetime(2024, 6, 1, tzinfo=UTC))
    assert said_by("How much was my rent in February 2024?", plan) == plan.time_to
    event = offline_plan("What did I bake in February 2024?", [], datetime(2024, 6, 1, tzinfo=UTC))
    assert said_by("What did I bake in February 2024?", event) is None  # an event may be told later
    conv = dated_conversation(
        [
            (
                "2024-01-10T09:00:00Z",
                [("user", "Budget time. My rent is £900 a month for the flat in Leith.")],
            ),
            ("2024-04-02T09:00:00Z", [("user", "Ugh, the landlord put my rent up to £980 a month.")]),
        ],
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        a = m.ask("How much was my rent in February 2024?", namespace="n", mode="auto")
        assert "900" in a.answer and "980" not in a.answer


def test_the_latest_new_email_answers_a_question_that_names_nobody() -> None:
    # "Which email should society mail go to?" names no one, so no ledger value is looked up:
    # the latest turn the user calls new decides; an agent's echo is not the user's word.
    question = "Which email should society mail go to?"
    plan = offline_plan(question, ["user", "assistant"])
    holding = [
        evidence_turn(1, "my email for society mail is plotholder.jo@mailbox.org"),
        evidence_turn(1, "Society mail goes to plotholder.jo@mailbox.org.", speaker="assistant"),
        evidence_turn(
            90, "and I'm using a new email, jo.plots@fastmail.com, the mailbox one is full of spam"
        ),
        evidence_turn(91, "New one noted: old.echo@example.com", speaker="assistant"),
    ]
    assert newer_typed(question, plan, [], holding) == "jo.plots@fastmail.com"


@pytest.mark.parametrize("mode", MODES)
def test_a_corrected_breed_replaces_the_first(tmp_path: Path, mode: str) -> None:
    conv = dated_conversation(
        [
            ("2025-01-05T10:00:00Z", [("user", "we adopted a whippet called Sorrel last weekend")]),
            (
                "2025-03-09T10:00:00Z",
                [
                    (
                        "user",
                        "oh, I told you Sorrel is a whippet, she's actually a saluki cross. The vet says so",
                    )
                ],
            ),
        ],
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        breed = m.ask("What breed is Sorrel?", namespace="n", mode=mode)
        assert "saluki" in breed.answer and "whippet" not in breed.answer
