"""Forget requests kept to what they name: a question naming only a child is not withheld by the
parent's medical request, "therapy" is not every medical word, and a season ("the stuff from the
summer") bounds what a request covers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from packing import evidence_item
from said import extracted

from emem.agents.withheld import apply_forget_requests
from emem.ledger.withhold import ForgetRequest, told_month


def request(topic: str, day: int = 20) -> ForgetRequest:
    return ForgetRequest.for_topic(
        topic, subject="user", revision_id="r", known_from=datetime(2024, 1, day, tzinfo=UTC)
    )


def test_a_question_naming_only_a_child_is_not_about_the_parents_medical_request() -> None:
    medical = request("the medical thing")
    likes = evidence_item("S1:5", 2, 0.6, "Ilyas likes bin lorries, which I try not to take personally.")
    sick = evidence_item("S2:1", 9, 0.7, "We came home early because Ilyas got a chest infection.")
    got = apply_forget_requests("What is Ilyas into?", [sick, likes], [], [medical], entities=["Ilyas"])
    assert got.about is None and got.nearest is None
    assert [e.turn_id for e in got.evidence] == ["S1:5"]
    # the request's own topic in the question: still withheld
    asked = apply_forget_requests(
        "What infection did Ilyas get?", [sick, likes], [], [medical], entities=["Ilyas"]
    )
    assert asked.about is medical
    # a request about the person asked about: withheld
    him = request("Ilyas")
    assert (
        apply_forget_requests("What is Ilyas into?", [sick, likes], [], [him], entities=["Ilyas"]).about
        is him
    )


def test_two_people_named_ask_what_is_between_them() -> None:
    divorce = request("my sister's divorce")
    told = evidence_item("S1:9", 2, 0.7, "My sister Citlali and her husband Iván are getting divorced.")
    job = evidence_item("S4:1", 19, 0.5, "Citlali has a new job at a clinic in Mexico City.")
    got = apply_forget_requests(
        "What's going on between Citlali and Iván?", [told, job], [], [divorce], entities=["Citlali", "Iván"]
    )
    assert got.about is divorce


def test_therapy_is_not_every_medical_word() -> None:
    therapy = request("therapy")
    assert therapy.covers(text="I've started seeing a therapist for my anxiety, Thursday evenings.")
    assert therapy.covers(text="My counsellor says the panic attacks are easing.")
    assert not therapy.covers(text="Unai is four and allergic to kiwi fruit.")
    assert not therapy.covers(text="Ilyas got a chest infection.")
    assert request("my medical information").covers(text="Unai is four and allergic to kiwi fruit.")


@pytest.mark.parametrize(
    ("said", "known", "inside", "outside"),
    [
        (
            "And the therapy stuff from the summer - I'd rather you didn't keep it.",
            (2031, 10, 28),
            (2031, 7, 12),
            (2031, 1, 20),
        ),
        ("the stuff I told you in the winter, forget it", (2031, 1, 28), (2030, 12, 20), (2031, 4, 2)),
        ("the business from the spring - wipe it", (2031, 2, 10), (2030, 4, 15), (2031, 1, 15)),
    ],
)
def test_a_season_bounds_what_a_request_covers(
    said: str, known: tuple[int, int, int], inside: tuple[int, int, int], outside: tuple[int, int, int]
) -> None:
    window = told_month(said, datetime(*known, tzinfo=UTC))
    assert window is not None
    assert window[0] <= datetime(*inside, tzinfo=UTC) < window[1]
    assert not window[0] <= datetime(*outside, tzinfo=UTC) < window[1]


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("That staff entrance code from Hafenküche is useless now. Please forget it.", "staff entrance code"),
        ("That gate code from the old flat is useless now. Please forget it.", "gate code"),
        ("That staff entrance code is useless now. Please forget it.", "staff entrance code"),
    ],
)
def test_a_secret_pointed_at_with_where_it_is_from_is_the_topic(said: str, topic: str) -> None:
    assert [f.object for f in extracted(said, predicate="forget_request")] == [topic]
