"""Homes and jobs said in passing (session 31): "Leyla lives in Utrecht and I'm in Rotterdam";
"I work as a ward nurse at St. Mary's Hospital in Leeds" when nothing else says where the user
lives; "I moved to Denver for a new job at Vantage Labs"."""

from __future__ import annotations

from said import user_turns

from emem.extract.offline import OfflineExtractor
from emem.extract.schema import FactCandidate


def _facts(*texts: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in OfflineExtractor()(user_turns(*texts))}


def test_being_somewhere_set_against_another_s_home_is_a_home() -> None:
    found = _facts("Leyla lives in Utrecht and I'm in Rotterdam, so it's a short train ride.")
    assert {("Leyla", "lives_in", "Utrecht"), ("user", "lives_in", "Rotterdam")} <= found
    # alone it may be a visit
    assert not [f for f in _facts("I'm in Rotterdam.") if f[1] == "lives_in"]


def test_the_town_of_one_s_workplace_is_home_until_a_home_is_said() -> None:
    assert ("user", "lives_in", "Leeds") in _facts("I work as a ward nurse at St. Mary's Hospital in Leeds.")
    found = _facts("I'm a nurse at the Royal Infirmary in Edinburgh. I live in Musselburgh.")
    assert [f for f in found if f[1] == "lives_in"] == [("user", "lives_in", "Musselburgh")]
    assert not [f for f in _facts("I started at Google in March.") if f[1] == "lives_in"]


def test_a_home_the_ledger_holds_is_not_replaced_by_one_inferred() -> None:
    held = FactCandidate(subject="user", predicate="lives_in", object="York", surface="I live in York.")
    facts = OfflineExtractor()(
        user_turns("I work as a ward nurse at St. Mary's Hospital in Leeds."),
        known=lambda s: [held] if s == "user" else [],
    )
    assert not [f for f in facts if f.predicate == "lives_in"]


def test_a_move_for_a_job_says_the_job() -> None:
    found = _facts("I moved to Denver in July for a new job at Vantage Labs.")
    assert {("user", "lives_in", "Denver"), ("user", "works_at", "Vantage Labs")} <= found


def test_a_new_job_s_town_is_not_a_move() -> None:
    for text in (
        "I got a job as a marine guide with Blue Fin Safaris in Ballito.",
        "I start at Casa Vela in Lisbon on 1 May.",
    ):
        assert not [f for f in _facts(text) if f[1] == "lives_in"], text


def test_staying_put_and_moving_in_with_someone_say_the_home() -> None:
    assert ("user", "lives_in", "Oosterpoort") in _facts(
        "I never moved in. I'm staying in my place in the Oosterpoort."
    )
    dated = [
        (f.object, f.valid_from is not None)
        for f in OfflineExtractor()(
            user_turns("Jolijn and I are moving in together in January, her place in Paddepoel.")
        )
        if f.predicate == "lives_in"
    ]
    assert dated == [("Paddepoel", True)]
    # with no date, moving in is no schedule the ledger can place
    assert not [f for f in _facts("I'm moving in with Wietske, her flat in Helpman.") if f[1] == "lives_in"]


def test_a_home_had_since_a_date() -> None:
    homes = [
        (f.object, f.valid_from is not None)
        for f in OfflineExtractor()(
            user_turns(
                "Since the 1st of August I've had a studio on Oudegracht in Utrecht, closer to the lab."
            )
        )
        if f.predicate == "lives_in"
    ]
    assert homes == [("Utrecht", True)]
    assert not [f for f in _facts("I've got a room in Leeds for the conference.") if f[1] == "lives_in"]
