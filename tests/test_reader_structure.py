"""Question structure, not phrasing: paraphrases of one question get the same answer type and
head noun; counts read changes by their verbs; a future-tense month reads ahead; a turn telling
an end is not stale (pure functions, no store)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import evidence_turn

from emem.agents.aggregate import told_end
from emem.agents.counts import count_over_time
from emem.agents.planner import asked_ahead, offline_plan, predicate_cues
from emem.agents.reader import (
    abstention,
    bare_value,
    copular_question,
    copular_value,
    names_people,
    unmentioned,
)
from emem.agents.spans import AnswerType, answer_type, asked_head, head_noun, stated_total, typed_span
from emem.answer import FactItem, Plan
from emem.index.text import tokenize

_turn = evidence_turn


@pytest.mark.parametrize(
    "question",
    [
        "What is the name of the user's daughter?",
        "What is the user's daughter called?",
        "What's my daughter's name?",
        "What is the name of the user's new daughter?",
    ],
)
def test_name_questions_take_the_head_of_their_noun_phrase(question: str) -> None:
    assert answer_type(question) is AnswerType.NAME
    assert head_noun(question) == "daughter"


def test_name_heads_stop_at_relative_clauses_and_possessors() -> None:
    assert head_noun("What is the name of the school where Hannah teaches?") == "school"
    assert head_noun("What is Samir's wife called?") == "wife"
    assert head_noun("What's the name of the user's employer?") == "employer"
    assert head_noun("Where does the user live?") is None


def test_modifiers_do_not_hide_the_asked_kind() -> None:
    assert asked_head("Which music school does Leo teach at?") == "school"
    assert answer_type("Which music school does Leo teach at?") is AnswerType.PROPER
    assert asked_head("In which city does Hana live?") == "city"
    assert answer_type("In which city does Hana live?") is AnswerType.PLACE
    assert asked_head("What is the user reading?") is None


def test_a_name_beside_the_noun_answers_which_school_a_city_does_not() -> None:
    text = "Nice. I'm living in Oslo now, I teach at a music school."
    assert typed_span(AnswerType.PROPER, text, None, set(), "school") is None
    assert typed_span(
        AnswerType.PROPER, "She teaches at a school called Hillcrest.", None, set(), "school"
    ) == ("Hillcrest")


def test_employers_are_said_as_a_job_at_them() -> None:
    text = "I moved to Denver in July for a new job at Vantage Labs."
    assert typed_span(AnswerType.PROPER, text, None, set(), "company") == "Vantage Labs"
    assert typed_span(AnswerType.NAME, text, None, set(), "employer") == "Vantage Labs"


def test_name_said_after_the_noun_asked_about() -> None:
    text = "We've got a dog named Juniper and a rabbit named Clove."
    assert typed_span(AnswerType.NAME, text, None, set(), "rabbit") == "Clove"
    assert typed_span(AnswerType.NAME, text, None, set(), "dog") == "Juniper"


def test_kind_questions_read_like_breed_and_a_class_is_no_kind() -> None:
    assert copular_question("What kind of dog is Rufus?") == "Rufus"
    text = "We got a second dog, a beagle named Toast. Our first, Rufus, is a labrador."
    assert copular_value(text, "Rufus") == "labrador"
    assert copular_value(text, "Toast") == "beagle"
    assert copular_value("We adopted a puppy named Bolt on Saturday!", "Bolt") is None


def test_values_lose_a_lower_case_article_only() -> None:
    assert bare_value("the UMC Utrecht") == "UMC Utrecht"
    assert bare_value("The Night Circus") == "The Night Circus"
    assert bare_value("the hospital") == "the hospital"


def test_who_questions_need_someone_named() -> None:
    assert not names_people("Also I'm reading Middlemarch at the moment.", {"middlemarch"})
    assert names_people("I went with my sister.")
    assert names_people("Samir got married to Leila.")


def test_a_name_nothing_mentions_is_missing() -> None:
    plan = Plan(entities=["Tom", "Berlin"])
    said = [_turn(1, "I finished the Paris half in 1:52.", "Tom")]
    assert unmentioned("What was Tom's time in the Berlin marathon?", plan, said, []) == ["Berlin"]
    assert (
        unmentioned("What was Tom's time in the Paris half?", Plan(entities=["Tom", "Paris"]), said, []) == []
    )
    # A name asked about as the subject or possessor may be a told name of another subject.
    assert unmentioned("Where does Lena work?", Plan(entities=["user", "Lena"]), said, []) == []
    assert unmentioned("What is Lena's phone number?", Plan(entities=["user", "Lena"]), said, []) == []
    # A subject the question only implies ("I" -> user) is never missing.
    implied = Plan(entities=["assistant", "user"])
    assert unmentioned("Which country did you suggest I look at?", implied, said, []) == []
    fact = FactItem(subject="Hana", predicate="lives_in", status="state", values=["Boston"])
    assert unmentioned("Where does Omar's Hana live?", Plan(entities=["Omar", "Hana"]), [], [fact]) == []


def test_counts_read_the_number_after_a_loss_as_the_change() -> None:
    turns = [
        _turn(1, "Ha! I'm more into guitars, I have three of them.", "Leo"),
        _turn(40, "Oh no. I sold one guitar to pay for my trip to Oslo.", "Leo"),
    ]
    trace = count_over_time(turns, {"guitars"})
    assert trace is not None and trace.value == 2
    assert count_over_time(turns[:1], {"guitars"}).value == 3  # type: ignore[union-attr]


def test_counts_take_named_members_not_weekdays() -> None:
    kin = {t for w in ("pets", "cats", "dogs", "puppy") for t in tokenize(w)}  # as the index reads them
    turns = [
        _turn(1, "Two cats, Pip and Moss."),
        _turn(100, "Sad news: Moss died last week."),
        _turn(200, "We adopted a puppy named Bolt on Saturday!"),
    ]
    assert count_over_time(turns, kin).value == 2  # type: ignore[union-attr]
    assert count_over_time(turns[:2], kin).value == 1  # type: ignore[union-attr]


def test_an_ordinal_states_a_total() -> None:
    assert stated_total("We got a second dog, a beagle named Toast.", {"dog"})
    assert not stated_total("We got a dog.", {"dog"})


def test_a_multiword_cue_takes_its_words() -> None:
    living = predicate_cues("What does Hana do for a living?")  # "living" is not lives_in's cue here
    assert living[0] == "job_title" and "lives_in" not in living
    assert predicate_cues("Where does Hana live?") == ["lives_in"]


def test_future_questions_read_a_bare_month_ahead() -> None:
    anchor = datetime(2024, 8, 19, tzinfo=UTC)
    assert asked_ahead("Where is the user travelling in October?") == "future"
    assert asked_ahead("Where did the user travel in October?") == "past"
    assert asked_ahead("Where was the user living last spring?") == "past"
    ahead = offline_plan("Where is the user travelling in October?", [], anchor)
    assert ahead.time_from == datetime(2024, 10, 1, tzinfo=UTC)
    before = offline_plan("Where did the user travel in October?", [], anchor)
    assert before.time_from == datetime(2023, 10, 1, tzinfo=UTC)


def test_a_revision_told_as_an_end_is_not_stale() -> None:
    end = {"valid_to": "2023-07-02T00:00:00+00:00", "known_from": "2023-07-02T20:00:00+00:00"}
    assert told_end(end)
    earlier = {"valid_to": "2023-03-01T00:00:00+00:00", "known_from": "2023-07-02T20:00:00+00:00"}
    assert told_end(earlier)
    assert not told_end({"valid_to": None, "known_from": "2023-07-02T20:00:00+00:00"})
    planned = {"valid_to": "2024-09-01T00:00:00+00:00", "known_from": "2024-03-03T00:00:00+00:00"}
    assert not told_end(planned)


def test_an_abstention_names_what_memory_does_not_say() -> None:
    assert abstention("What is the name of the user's son?") == (
        "I don't know: nothing in memory says what the user's son is called."
    )
    assert abstention("What is my daughter called?") == (
        "I don't know: nothing in memory says what your daughter is called."
    )
    assert (
        abstention("What brand is the guitar?")
        == 'I don\'t know: nothing in memory answers "What brand is the guitar?"'
    )


def test_a_bare_what_does_someone_do_asks_their_occupation() -> None:
    assert predicate_cues("What does Ruth do?")[:2] == ["job_title", "works_at"]
    assert predicate_cues("What does Ruth do these days?")[:2] == ["job_title", "works_at"]
    assert "job_title" not in predicate_cues("What does Ruth do on Sundays?")
