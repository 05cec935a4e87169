"""The offline rules for the wider vocabulary: dates of starts and ends, corrections, agent turns,
and the held-out figure on phrasings written before the rules (tests/heldout_vocabulary.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from heldout_vocabulary import HELD_OUT_VOCABULARY
from test_extract_offline import score_held_out

from emem.extract.offline import OfflineExtractor, split_sentences
from emem.extract.schema import FactCandidate
from emem.models import Turn

T = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def extract(*lines: tuple[str, str]) -> list[FactCandidate]:
    turns = [
        Turn(conversation_id="c", session_id="S1", turn_id=f"D1:{i}", speaker=s, text=t, time=T)
        for i, (s, t) in enumerate(lines, start=1)
    ]
    return OfflineExtractor()(turns)


def facts(text: str, speaker: str = "user") -> dict[str, FactCandidate]:
    return {f.predicate: f for f in extract((speaker, text))}


class TestDates:
    def test_an_offer_starts_on_the_date_ahead(self) -> None:
        got = facts("I accepted an offer from Globex, I will be a product manager there, starting in July.")
        assert got["works_at"].object == "Globex" and got["works_at"].valid_from == datetime(
            2023, 7, 1, tzinfo=UTC
        )
        assert got["job_title"].object == "product manager"
        assert got["job_title"].valid_from == datetime(2023, 7, 1, tzinfo=UTC)

    def test_a_planned_move_starts_next_month_and_keeps_its_value_clean(self) -> None:
        got = facts("We're moving to Seattle next month.")
        assert got["lives_in"].object == "Seattle"
        assert got["lives_in"].valid_from == datetime(2023, 6, 1, tzinfo=UTC)
        assert "plans_to" in got  # the plan is recorded too, with its date in the value

    def test_a_move_without_a_date_is_only_a_plan(self) -> None:
        assert "lives_in" not in facts("We're moving to Seattle.")

    def test_quitting_ends_at_the_date_said(self) -> None:
        end = facts("I quit Acme Corp last Friday.")["works_at"]
        assert (end.kind, end.object, end.valid_to) == ("end", "Acme Corp", datetime(2023, 5, 5, tzinfo=UTC))
        assert facts("I got laid off.")["works_at"].kind == "end"

    def test_a_diet_since_a_month(self) -> None:
        got = facts("I've been keto since January.")["diet"]
        assert (got.object, got.valid_from) == ("keto", datetime(2023, 1, 1, tzinfo=UTC))


class TestCorrectionsAndChanges:
    def test_a_correction_withdraws_the_previous_value_first(self) -> None:
        got = extract(
            ("user", "My number is 555-867-5309."), ("user", "Sorry, my number is actually 555-867-0000.")
        )
        assert [(f.kind, f.object) for f in got] == [
            ("assert", "555-867-5309"),
            ("retract", "555-867-5309"),
            ("assert", "555-867-0000"),
        ]

    def test_a_change_is_not_a_correction(self) -> None:
        got = extract(("user", "I'm vegan."), ("user", "Actually, I'm vegetarian now."))
        assert [(f.kind, f.object) for f in got] == [("assert", "vegan"), ("assert", "vegetarian")]

    def test_back_to_a_diet_is_that_diet_again(self) -> None:
        got = extract(
            ("user", "I've gone vegan."), ("user", "Also, I'm back to vegetarian. Vegan lasted a month.")
        )
        assert [(f.kind, f.object) for f in got if f.predicate == "diet"] == [
            ("assert", "vegan"),
            ("assert", "vegetarian"),
        ]


class TestWhoSaidIt:
    def test_the_agent_s_turns_are_not_facts(self) -> None:
        got = extract(
            ("user", "Hi there!"),
            ("assistant", "You live in Boston, right? My name is Nova."),
            ("user", "My name is Priya."),
        )
        assert [(f.subject, f.predicate, f.object) for f in got] == [("user", "name", "Priya")]

    def test_a_named_user_talking_with_an_agent(self) -> None:
        got = extract(
            ("Priya", "I'm allergic to peanuts."), ("assistant", "I'm allergic to nothing, I'm an AI.")
        )
        assert [(f.subject, f.predicate, f.object) for f in got] == [("Priya", "allergy", "peanuts")]


class TestForgetRequests:
    @pytest.mark.parametrize(
        ("text", "topic"),
        [
            ("Please forget my social security number.", "social security number"),
            ("Delete my medical information.", "medical information"),
            ("I don't want to talk about Alex anymore.", "Alex"),
            ("Forget what I said about my address.", "address"),
            ("Don't remember my phone number.", "phone number"),
        ],
    )
    def test_detected(self, text: str, topic: str) -> None:
        got = facts(text)["forget_request"]
        assert (got.subject, got.object, got.kind) == ("user", topic, "assert")

    @pytest.mark.parametrize(
        "text",
        [
            "Forget it, it doesn't matter.",
            "I forgot my phone at home.",
            "I can't remember my phone number.",
            "Did you forget my birthday?",
            "I don't want to talk about it.",
        ],
    )
    def test_not_requests(self, text: str) -> None:
        assert "forget_request" not in facts(text)

    def test_forget_what_i_said_without_a_topic_still_retracts(self) -> None:
        got = extract(("user", "I live in Boston."), ("user", "Forget what I said."))
        assert [(f.predicate, f.kind) for f in got] == [("lives_in", "assert"), ("lives_in", "retract")]


def test_emails_do_not_split_sentences() -> None:
    text = "Mail me at priya.k@example.com today. It is 3.5 km away."
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "Mail me at priya.k@example.com today.",
        "It is 3.5 km away.",
    ]


def score() -> tuple[float, float, list[str]]:
    """Precision and recall on the wider vocabulary's held-out phrasings, scored as
    tests/test_extract_offline scores its own."""
    return score_held_out(HELD_OUT_VOCABULARY)


def test_held_out_precision_and_recall() -> None:
    precision, recall, misses = score()
    print(f"held-out (vocabulary) precision={precision:.3f} recall={recall:.3f}", *misses, sep="\n")
    assert precision >= 0.9, misses
    assert recall >= 0.8, misses


class TestConfirmations:
    def test_the_user_confirming_the_agent_s_guess_makes_it_a_fact(self) -> None:
        got = extract(
            ("assistant", "Welcome back! You live in Boston, right?"), ("user", "Yes, that's right.")
        )
        assert [(f.subject, f.predicate, f.object, f.source_turn_ids) for f in got] == [
            ("user", "lives_in", "Boston", ["D1:1", "D1:2"])
        ]
        assert "You live in Boston" in got[0].surface and "that's right" in got[0].surface

    @pytest.mark.parametrize("reply", ["No, Denver.", "Yes, but not for long.", "What do you mean?"])
    def test_anything_else_is_not(self, reply: str) -> None:
        got = extract(("assistant", "You live in Boston, right?"), ("user", reply))
        assert [f for f in got if f.object == "Boston"] == []


def test_a_forget_request_can_be_taken_back() -> None:
    got = extract(("user", "Forget my address."), ("user", "Actually, you can remember my address again."))
    assert [(f.predicate, f.object, f.kind) for f in got] == [
        ("forget_request", "address", "assert"),
        ("forget_request", "address", "retract"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We moved from Boston to Seattle last month.", ("lives_in", "Seattle", "assert")),
        ("I was promoted to senior engineer.", ("job_title", "senior engineer", "assert")),
        ("I'm unemployed at the moment.", ("works_at", "", "end")),
        ("I'm not vegetarian anymore.", ("diet", "vegetarian", "end")),
        ("I started eating meat again.", ("diet", "", "end")),
        ("Our dog Max died last week.", ("has_pet", "a dog named Max", "end")),
        ("We had a baby girl named Zoe in March.", ("has_child", "a baby girl named Zoe", "assert")),
        ("I got married to Tom last year.", ("has_partner", "a spouse named Tom", "assert")),
        ("I recovered from covid last month.", ("health_condition", "covid", "end")),
        ("I prefer tea over coffee.", ("likes", "tea", "assert")),
        ("My cell is 555-010-2030.", ("phone", "555-010-2030", "assert")),
        ("I work as a barista at Blue Bottle.", ("works_at", "Blue Bottle", "assert")),
        ("I don't eat meat anymore, I'm vegetarian.", ("diet", "vegetarian", "assert")),
        ("My phone number changed, it's now 555-222-3333.", ("phone", "555-222-3333", "assert")),
        ("I'm watching The Bear on Hulu.", ("watching", "The Bear", "assert")),
        ("My daughter's name is Emma.", ("has_child", "a daughter named Emma", "assert")),
        ("I have a brother named Carlos.", ("has_sibling", "a brother named Carlos", "assert")),
        ("I'm lactose intolerant.", ("health_condition", "lactose intolerance", "assert")),
        ("We're planning a trip to Japan in October.", ("plans_to", "go to Japan (October 2023)", "assert")),
        ("We're not going to Japan anymore.", ("plans_to", "Japan", "end")),
        ("Got a new number, it's 555-301-2222.", ("phone", "555-301-2222", "assert")),
        ("I have a new cell number: 555 301 2222.", ("phone", "555 301 2222", "assert")),
        ("Our Lisbon trip is off.", ("plans_to", "Lisbon", "retract")),
        ("We cancelled Rome, sadly.", ("plans_to", "Rome", "retract")),
        ("Finished Dune last night.", ("reading", "Dune", "end")),
        ("My new flat is at 3 Elm Row, Leeds.", ("address", "3 Elm Row, Leeds", "assert")),
        ("My new flat is at 3 Elm Row, Leeds.", ("lives_in", "Leeds", "assert")),
        ("Okay, now please forget my email address.", ("forget_request", "email address", "assert")),
        (
            "Also, please forget the old Birch Lane address.",
            ("forget_request", "old Birch Lane address", "assert"),
        ),
        ("Please delete my email from your memory.", ("forget_request", "email", "assert")),
        ("We live in Boston right now, so it's cold.", ("lives_in", "Boston", "assert")),
        ("We're planning to move to Austin in August.", ("lives_in", "Austin", "assert")),
    ],
)
def test_more_ways_of_saying_it(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in {(f.predicate, f.object, f.kind) for f in extract(("user", text))}


@pytest.mark.parametrize(
    "text", ["If I get the job, I'm a teacher.", "If it works out, I'm vegan.", "Our cat Luna passed away."]
)
def test_no_assertion(text: str) -> None:
    assert [f for f in extract(("user", text)) if f.kind == "assert"] == []


def test_a_value_corrected_in_the_same_breath_withdraws_the_first() -> None:
    got = extract(("user", "Mia is 8 and Noah is 6. Sorry, Mia is 9 now, her birthday was on Sunday."))
    assert [(f.subject, f.object, f.kind) for f in got if f.predicate == "age"] == [
        ("Mia", "8", "assert"),
        ("Noah", "6", "assert"),
        ("Mia", "8", "retract"),
        ("Mia", "9", "assert"),
    ]


def test_a_new_number_is_not_a_possession() -> None:
    got = {(f.predicate, f.object) for f in extract(("user", "I got a new phone number: 555-301-2222."))}
    assert got == {("phone", "555-301-2222")}
