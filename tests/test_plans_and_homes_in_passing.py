"""Plans and homes said in passing (session 30): a move said in the present progressive is a plan
even with no date; a schedule said in the simple present ("Lina starts school in September") is
read forward from when it was said; "our apartment in Limoilou is too small" says where the
speaker lives."""

from __future__ import annotations

from said import spoken, user_turns

from emem.agents.planner import predicate_cues
from emem.agents.reader import event_date
from emem.extract.offline import OfflineExtractor


def _facts(text: str) -> set[tuple[str, str, str]]:
    return {(f.predicate, f.object, f.kind) for f in OfflineExtractor()(user_turns(text))}


def test_an_undated_move_is_a_plan_and_leaves_the_home_alone() -> None:
    for text in ("We're moving to York.", "It's fine. We're moving to York though, Sam got a job there."):
        found = _facts(text)
        assert ("plans_to", "move to York", "assert") in found, (text, found)
        assert not [f for f in found if f[0] == "lives_in"], (text, found)


def test_the_speaker_s_home_named_in_the_present_is_where_they_live() -> None:
    assert ("lives_in", "Limoilou", "assert") in _facts(
        "Our apartment in Limoilou is already too small, so we're planning to move to Lévis."
    )
    assert ("lives_in", "Leith", "assert") in _facts("My flat in Leith has no heating again.")
    for text in (
        "My old flat in Leeds is still empty.",
        "Our flat in Leeds was tiny.",
        "My parents' house in York is huge.",
    ):
        assert not [f for f in _facts(text) if f[0] == "lives_in"], text


def test_travel_said_in_the_present_is_not_a_plan_without_a_date() -> None:
    assert not [f for f in _facts("I'm driving to work now, talk later.") if f[0] == "plans_to"]


def test_a_schedule_in_the_simple_present_is_ahead() -> None:
    # said on 1 March 2025
    assert event_date(spoken("My daughter Lina starts school in September.", 3))[0].year == 2025
    assert event_date(spoken("The course begins classes on the 3rd.", 3))[0].month == 3
    # said in the past tense, the same words date the past
    assert event_date(spoken("Lina started school in September.", 3))[0].year == 2024


def test_a_question_about_a_planned_move_reads_the_plan_first() -> None:
    for q in (
        "In February 2031, where were Dawit's family planning to move?",
        "Where do I want to move?",
    ):
        assert predicate_cues(q)[:2] == ["plans_to", "lives_in"], q
    # a move that happened asks for the home
    assert predicate_cues("Where did Dawit move to?")[0] == "lives_in"
