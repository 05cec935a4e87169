"""Work said in passing (session 31): "I'm still at Inkwell & Anchor", "Still at Kilnworks
Roasters, five mornings a week", "I'm Wendelin, backend developer at Kurbis Software"; a visit
("I'm still at Heathrow Airport", "still at Mum's") is not a job."""

from __future__ import annotations

from said import user_turns

from emem.extract.offline import OfflineExtractor


def _work(text: str) -> set[tuple[str, str]]:
    return {
        (f.predicate, f.object)
        for f in OfflineExtractor()(user_turns(text))
        if f.predicate in ("works_at", "job_title") and f.kind == "assert"
    }


def test_still_at_a_named_place_is_where_one_works() -> None:
    assert ("works_at", "Inkwell & Anchor") in _work("Busy. I'm still at Inkwell & Anchor in Llangefni.")
    assert ("works_at", "Kilnworks Roasters") in _work("Still at Kilnworks Roasters, five mornings a week.")


def test_a_visit_is_not_a_job() -> None:
    for text in ("I'm still at Mum's, the boiler's broken.", "I'm still at Heathrow Airport, delayed again."):
        assert not _work(text), text


def test_a_post_in_apposition_to_one_s_name() -> None:
    assert _work("Hi. I'm Wendelin, backend developer at Kurbis Software in Graz.") == {
        ("works_at", "Kurbis Software"),
        ("job_title", "backend developer"),
    }
    assert not _work("I'm Sam, just back from holiday at Center Parcs.")


def test_a_job_applied_for_is_not_read_from_the_job_held() -> None:
    from emem.agents.planner import predicate_cues

    assert predicate_cues("What job has Hamid applied for?") == []
    assert predicate_cues("Where does Hamid work?") == ["works_at"]


def test_teaching_a_subject_somewhere_is_a_post() -> None:
    assert ("job_title", "chemistry teacher") in _work("I teach chemistry at Lycée Ampère.")
    assert ("job_title", "physics and maths teacher") in _work("I teach physics and maths at Northgate.")
    assert not [w for w in _work("I teach there at Lycée Ampère.") if w[0] == "job_title"]


def test_a_promotion_said_in_the_present_perfect_is_the_new_post() -> None:
    assert ("job_title", "assistant headmaster") in _work(
        "I've been promoted to assistant headmaster, academic, from the start of July."
    )
