"""Identifiers asked by name (session 31): "What is my insurance policy number?" is answered by
the value said beside what it identifies ("The policy number is HX-448812"), and only by such a
value; a sentence that names its own topic is not swept into a forget request beside it."""

from __future__ import annotations

from datetime import UTC, datetime

from packing import pack_items
from said import spoken

from emem.agents.planner import offline_plan
from emem.agents.reader import offline_read
from emem.agents.spans import AnswerType, answer_type, code_keys, code_value
from emem.agents.withheld import rest_of_turn
from emem.ledger.withhold import ForgetRequest, continues


def test_identifier_questions_are_their_own_type() -> None:
    for q in (
        "What is my insurance policy number?",
        "What's the number of my bus?",
        "What's the code for our side gate?",
        "What's my mobile money PIN?",  # a PIN, though "mobile" is a phone word
        "What's the registration on my pickup?",
    ):
        assert answer_type(q) is AnswerType.CODE, q
    assert answer_type("What's my mobile number?") is AnswerType.PHONE
    for q in ("What's the dress code?", "How many numbers did she call?", "What number should I text?"):
        assert answer_type(q) is not AnswerType.CODE, q


def test_the_value_beside_what_it_identifies_answers() -> None:
    def value(q: str, text: str) -> str | None:
        return code_value(text, code_keys(q))

    assert (
        value("What is my insurance policy number?", "The policy number is HX-448812. Thanks!") == "HX-448812"
    )
    assert value("What's the number of my bus?", "My bus is number 22. No, 27, they swapped us.") == "27"
    assert value("What's the stockroom code at work?", "Stockroom code at Marrow & Vine is 2791.") == "2791"
    assert (
        value("What's the wifi password?", "The wifi password is bluefinch, all lower case.") == "bluefinch"
    )
    # a number said beside nothing the question names is not the identifier
    assert value("What's the registration of my van?", "Work phone is 087 555 2190.") is None
    assert value("What's my policy number?", "I paid £420 for the policy this year.") is None


def test_the_reader_answers_the_value_or_abstains() -> None:
    q = "What is my insurance policy number?"
    said = [
        spoken("hi, I need to sort out my car insurance renewal.", 1),
        spoken("The policy number is HX-448812.", 2),
    ]
    pack = pack_items(*said)
    assert offline_read(q, offline_plan(q), pack, [])[0] == "HX-448812"
    q = "What's the registration on my pickup?"
    said = [spoken("I've got an Isuzu D-Max pickup now, second-hand.", 3)]
    answer, status = offline_read(q, offline_plan(q), pack_items(*said), [])
    assert status == "abstained", answer


def test_a_sentence_naming_its_own_topic_does_not_carry_on_a_forgotten_one() -> None:
    assert not continues("The policy number is HX-448812.")
    assert continues("The number is 4471.")  # says nothing of its own: carries on the one before
    assert continues("533918420, expires 2029.")
    request = ForgetRequest.for_topic(
        "date of birth", subject="user", revision_id="r1", known_from=datetime(2024, 4, 10, tzinfo=UTC)
    )
    text = "The policy number is HX-448812. And my date of birth is 14 May 1990 if they ask."
    assert (
        rest_of_turn(text, [request], datetime(2024, 3, 1, tzinfo=UTC)) == "The policy number is HX-448812."
    )
