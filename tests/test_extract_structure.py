"""The offline extractor's structural rules: informal lead-ins, forget requests by verb class,
contact values by shape, trips and what replaces them, pets named in reply to the agent's
question, and what a forget request about someone's thing withholds. Sentences here are written
for these tests (not the reliability suite's conversations); each positive case has a near miss
the same mechanism must leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import said

from emem.extract.dates import find_date_mentions
from emem.extract.offline import OfflineExtractor
from emem.ledger.withhold import ForgetRequest

T = datetime(2024, 5, 15, 12, 0, tzinfo=UTC)


def facts(*texts: str, speaker: str = "user") -> list[tuple[str, str, str, str]]:
    """(subject, predicate, object, kind) of every candidate; "A:" marks the assistant's turn."""
    turns = said(texts, T, speaker)
    return [(f.subject, f.predicate, f.object, f.kind) for f in OfflineExtractor()(turns)]


def of(predicate: str, got: list[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
    return [(o, k) for _, p, o, k in got if p == predicate]


class TestLeadIns:
    @pytest.mark.parametrize(
        ("text", "predicate", "value"),
        [
            ("fyi i'm vegetarian, have been for years.", "diet", "vegetarian"),
            ("update: we signed the lease on a flat in York!", "lives_in", "York"),
            ("oh and also, not vegan any more", "diet", "vegan"),
        ],
    )
    def test_a_statement_after_a_lead_in_is_read(self, text: str, predicate: str, value: str) -> None:
        assert value in [o for o, _ in of(predicate, facts(text))]

    def test_words_that_open_ordinary_sentences_stay(self) -> None:
        # "Right now" and "No longer" are part of what is said, not lead-ins
        assert of("watching", facts("Right now it's just one show, Severance.")) == [("Severance", "assert")]
        assert of("works_at", facts("No longer at Vela.")) == [("Vela", "end")]


class TestForgetRequests:
    @pytest.mark.parametrize(
        ("text", "topic"),
        [
            ("Can you not keep my health stuff?", "health"),
            ("And I'd rather you didn't remember my date of birth either.", "date of birth"),
            ("I don't want you to remember anything about my dentist, delete that", "dentist"),
            ("forget about Harriet, we had a falling out", "Harriet"),
            ("and scrub the therapy info too", "therapy"),
            ("also don't store my PIN, that was dumb of me", "PIN"),
        ],
    )
    def test_a_request_is_an_opener_a_verb_of_erasing_and_a_topic(self, text: str, topic: str) -> None:
        assert of("forget_request", facts(text)) == [(topic, "assert")]

    @pytest.mark.parametrize(
        "text",
        [
            "Please remove the onions from the recipe.",
            "Don't forget my birthday!",
            "I forgot my keys.",
            "Forget that, I meant Leeds.",
            "Can you remember my address?",
        ],
    )
    def test_tasks_reminders_and_retractions_are_not_requests(self, text: str) -> None:
        assert of("forget_request", facts(text)) == []

    def test_a_topic_naming_someones_thing_withholds_that_and_not_the_person(self) -> None:
        request = ForgetRequest.for_topic("Theo's new job", subject="Sam", revision_id="r", known_from=T)
        assert request.covers(text="Theo's got a new job at Harbour Labs.")
        assert request.covers(predicate="works_at", obj="Harbour Labs", subject="Theo")
        assert not request.covers(text="Theo's dog is a beagle called Biscuit.")
        assert not request.covers(predicate="works_at", obj="Orbis", subject="Sam")


class TestContactValuesByShape:
    def test_a_number_after_the_word_for_it(self) -> None:
        got = facts("My number's new btw: 07911 123456. The old one is dead.")
        assert of("phone", got) == [("07911 123456", "assert")]
        assert of("phone", facts("scrap that number, it's 07700 900877 now")) == [("07700 900877", "assert")]

    def test_an_email_said_as_it_s_is_an_email(self) -> None:
        got = facts("my email is sam@orbis.io", "oh wait, wrong email. it's sam@orbis.co not .io, sorry")
        assert ("sam@orbis.co", "assert") in of("email", got)

    def test_someone_elses_number_is_not_the_speakers(self) -> None:
        assert of("phone", facts("Theo's number is 07700 900111.")) == []
        assert of("email", facts("her email is ana@example.com")) == []


class TestTrips:
    def test_a_booked_trip_and_its_replacement(self) -> None:
        got = facts(
            "I booked a weekend in Paris for June.",
            "Ugh, the Paris weekend is off. Rebooked for Amsterdam in July.",
        )
        assert of("plans_to", got) == [
            ("go to Paris (June 2024)", "assert"),
            ("go to Paris (June 2024)", "retract"),  # the earlier plan it names
            ("go to Amsterdam (July 2024)", "assert"),
        ]

    def test_x_instead_is_a_plan_only_for_a_place(self) -> None:
        assert of("plans_to", facts("We scrapped Snowdonia. Lake District instead.")) == [
            ("go to Lake District", "assert")
        ]
        assert of("plans_to", facts("Swimming instead.")) == []

    def test_lower_case_months_and_days_of_the_month_date_a_plan(self) -> None:
        assert [d.surface for d in find_date_mentions("in july, back on the 27th", T, "future")] == [
            "in july",
            "on the 27th",
        ]
        assert find_date_mentions("we met in may", T, "past") == []  # "may" is an ordinary word
        assert find_date_mentions("on the 2nd floor", T, "future") == []


class TestNamesGivenInReply:
    def test_the_reply_names_the_pets_just_counted(self) -> None:
        got = facts(
            "my three cats knocked over the tree again.",
            "A:What are their names?",
            "Nube, Tiza and Pimienta.",
        )
        assert of("has_pet", got) == [
            ("three cats", "assert"),
            ("three cats", "retract"),
            ("a cat named Nube", "assert"),
            ("a cat named Tiza", "assert"),
            ("a cat named Pimienta", "assert"),
        ]

    def test_a_count_that_disagrees_names_nothing(self) -> None:
        got = facts("my two dogs ate my shoes.", "A:What are their names?", "Rex, Bo and Pip.")
        assert of("has_pet", got) == [("two dogs", "assert")]
