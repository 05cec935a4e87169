"""Homes said in reply to the agent (session 31): "Are you moving to Lisbon then?" - "Yes, we
move there at the end of April" dates the move; "How long have you been in Porto?" - "Six years."
says where the user lives; a move in the simple present is a schedule only with a date."""

from __future__ import annotations

from datetime import UTC, datetime

from conftest import said

from emem.extract.offline import OfflineExtractor

T = datetime(2046, 4, 3, 20, tzinfo=UTC)


def _facts(*texts: str) -> list[tuple[str, str, str, datetime | None]]:
    return [(f.subject, f.predicate, f.object, f.valid_from) for f in OfflineExtractor()(said(texts, T))]


def test_a_move_in_the_simple_present_with_a_date_starts_the_home() -> None:
    homes = [f for f in _facts("We move to Lisbon at the end of April.") if f[1] == "lives_in"]
    assert [(s, o) for s, _, o, _ in homes] == [("user", "Lisbon")]
    assert homes[0][3] is not None and (homes[0][3].year, homes[0][3].month) == (2046, 4)


def test_a_confirmed_move_said_with_there_is_dated() -> None:
    found = _facts(
        "I got the head chef job at Casa Vela in Lisbon, I start on 1 May.",
        "A:Congratulations! Are you moving to Lisbon then?",
        "Yes, we move there at the end of April.",
    )
    homes = [f for f in found if f[1] == "lives_in"]
    assert [o for _, _, o, _ in homes] == ["Lisbon"], found
    assert homes[0][3] is not None and homes[0][3].month == 4


def test_a_habit_or_an_undated_simple_present_is_no_move() -> None:
    for text in ("We move to the coast every summer.", "We usually move to the cottage in July."):
        assert not [f for f in _facts(text) if f[1] in ("lives_in", "plans_to")], text


def test_how_long_answered_grants_the_home_or_the_job() -> None:
    found = _facts(
        "A:Nice to meet you. How long have you been in Porto?", "Six years. My partner is here too."
    )
    assert ("user", "lives_in", "Porto") in [f[:3] for f in found]
    found = _facts("A:How long have you worked at Globex?", "Since 2041, why?")
    assert ("user", "works_at", "Globex") in [f[:3] for f in found]


def test_a_how_long_question_left_unanswered_grants_nothing() -> None:
    for reply in ("Why do you ask?", "Not telling!"):
        found = _facts("A:How long have you been in Porto?", reply)
        assert not [f for f in found if f[1] == "lives_in"], (reply, found)


def test_a_confirmation_dates_the_agent_s_guess() -> None:
    found = _facts(
        "A:Congratulations! Are you moving to Parnu then?",
        "yep, found a flat ten minutes from the beach, I move on the 26th of April.",
    )
    homes = [f for f in found if f[1] == "lives_in"]
    assert [(o, w and w.date().isoformat()) for _, _, o, w in homes] == [("Parnu", "2046-04-26")], found
    # a guess confirmed with no date stays a plan, and the home is not moved
    found = _facts("A:Are you moving to Parnu then?", "yes!")
    assert not [f for f in found if f[1] == "lives_in"], found
    assert ("user", "plans_to", "move to Parnu") in [f[:3] for f in found]


def test_being_in_the_place_one_planned_to_move_to_is_the_move() -> None:
    found = _facts(
        "Big decision: I'm leaving Saptak and moving to Mysuru to open my own workshop.",
        "I'm in Mysuru! Flat in Jayalakshmipuram.",
    )
    assert [o for _, p, o, _ in found if p == "lives_in"] == ["Mysuru"]
    # with no plan to move there, being somewhere may be a visit
    assert not [f for f in _facts("I'm in Mysuru! The conference is great.") if f[1] == "lives_in"]


def test_a_journey_said_in_the_simple_present_is_read_forward() -> None:
    from said import spoken

    from emem.agents.reader import event_date

    # said on 1 September 2025
    assert event_date(spoken("Decision made, we move to Bilbao on the 1st of November.", 9))[0].year == 2025
    assert event_date(spoken("We moved to Bilbao on the 1st of November.", 9))[0].year == 2024
