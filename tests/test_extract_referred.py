"""The offline extractor on corrections that refer back to what was said: about someone else than
the speaker, by question ("did I say ...? I meant ..."), with the wrong value first ("not X, it's
Y"), and the soft forget requests that name what was told ("could you drop what I told you about
..."). Sentences here are written for these tests, not taken from the reliability suite."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from conftest import said

from emem.extract.offline import OfflineExtractor, typed_replacement
from emem.ledger.withhold import matcher

T = datetime(2024, 3, 3, 12, 0, tzinfo=UTC)


def facts(*texts: str, speaker: str = "user") -> list[tuple[str, str, str, str]]:
    turns = said(texts, T, speaker)
    return [(f.subject, f.predicate, f.object, f.kind) for f in OfflineExtractor()(turns)]


class TestCorrectionsOfOthers:
    def test_it_is_not_corrects_a_relative_s_fact(self) -> None:
        got = facts("My brother Tariq lives in Lyon.", "A:Nice city.", "Sorry, it's Lille, not Lyon.")
        assert ("Tariq", "lives_in", "Lyon", "retract") in got
        assert ("Tariq", "lives_in", "Lille", "assert") in got

    def test_wrong_value_first_with_the_person_named(self) -> None:
        got = facts("Our daughter Zoe is allergic to shellfish.", "Oops, not shellfish for Zoe, it's kiwi.")
        assert ("Zoe", "allergy", "shellfish", "retract") in got
        assert ("Zoe", "allergy", "kiwi", "assert") in got

    def test_nothing_said_before_nothing_corrected(self) -> None:
        assert facts("Not Lyon, it's Lille.") == []


class TestReferredStatements:
    def test_reported_then_corrected_by_pronoun(self) -> None:
        got = facts(
            "My cousin Ravi lives in Leeds.",
            "before I said Ravi lives in Leeds, my mistake, he actually lives in York",
        )
        assert ("Ravi", "lives_in", "Leeds", "retract") in got
        assert ("Ravi", "lives_in", "York", "assert") in got
        assert got.count(("Ravi", "lives_in", "Leeds", "assert")) == 1  # the reference is not a new statement

    def test_question_then_typed_value(self) -> None:
        got = facts("My son Omar is 9.", "hmm, did I tell you Omar was 9? he's 10 actually")
        assert ("Omar", "age", "9", "retract") in got
        assert ("Omar", "age", "10", "assert") in got

    def test_told_you_then_wrong_with_a_name(self) -> None:
        got = facts(
            "My aunt Rosa lives in Porto.",
            "I told you my aunt was in Porto? wrong, she's been in Braga for ages",
        )
        assert ("Rosa", "lives_in", "Braga", "assert") in got
        assert ("Rosa", "lives_in", "Porto", "retract") in got

    def test_a_reference_inside_a_request_is_not_a_correction(self) -> None:
        got = facts("Could you drop what I told you about my therapy?")
        assert got == [("user", "forget_request", "therapy", "assert")]

    def test_typed_replacement_keeps_the_kind(self) -> None:
        assert typed_replacement("tuesday", "I meant thursday, tuesdays are yoga", set()) == "thursday"
        assert typed_replacement("9", "She's 10 now", set()) == "10"
        assert (
            typed_replacement("Marseille", "Wrong, she's been in Nice for years, I know", {"Ines"}) == "Nice"
        )
        assert typed_replacement("Marseille", "wrong, sorry", set()) is None


class TestSoftForgetRequests:
    def test_drop_needs_a_reference_to_what_was_told(self) -> None:
        assert facts("Could you drop what I told you about Mia's school?") == [
            ("user", "forget_request", "Mia's school", "assert")
        ]
        assert facts("Could you drop me at the station?") == []

    def test_topic_loses_the_told_you_tail(self) -> None:
        # ... and the filler noun after what it names ("the medication stuff")
        assert facts("pls forget the medication stuff i told you") == [
            ("user", "forget_request", "medication", "assert")
        ]

    def test_medication_without_the_word(self) -> None:
        m = matcher("medication stuff")
        assert m.words is not None
        assert re.search(m.words, "i take sertraline 50mg in the mornings")
        assert not re.search(m.words, "i take the bus in the mornings")

    def test_a_child_s_school(self) -> None:
        m = matcher("Mia's school")
        assert m.words is not None and m.owners == ("Mia",)
        assert re.search(m.words, "mia goes to st anne's primary")
        assert not re.search(m.words, "mia loves painting")
        assert not re.search(m.words, "my school run was chaos")  # someone else's school


class TestPlansCalledOffByAnyName:
    def test_lower_case_name_withdraws_the_plan(self) -> None:
        got = facts("We booked a trip to Seville for May.", "seville fell through, flights got cancelled")
        assert ("user", "plans_to", "go to Seville (May 2024)", "retract") in got

    def test_that_after_the_plan_was_named(self) -> None:
        got = facts(
            "We booked a trip to Oslo in June.", "About Oslo... the kids got sick, so that's not happening."
        )
        assert ("user", "plans_to", "go to Oslo (June 2024)", "retract") in got

    def test_a_negated_or_conditional_cue_withdraws_nothing(self) -> None:
        got = facts("We booked a trip to Oslo.", "It's not off, the Oslo trip is still on.")
        assert not [f for f in got if f[3] == "retract"]
        got = facts("We booked a trip to Oslo.", "If Oslo is cancelled we'll stay home.")
        assert not [f for f in got if f[3] == "retract"]

    def test_off_needs_a_copula_and_plain_words_name_no_plan(self) -> None:
        got = facts("We booked a trip to Boston.", "I'll have something to show off soon.")
        assert not [f for f in got if f[3] == "retract"]
        assert ("user", "plans_to", "go to Boston", "retract") in facts(
            "We booked a trip to Boston.", "The Boston thing's off."
        )

    def test_a_hedged_plan_is_a_plan_and_can_be_withdrawn(self) -> None:
        got = facts("We're thinking about a weekend trip to Galway.", "Galway never happened in the end.")
        assert ("user", "plans_to", "go to Galway", "assert") in got
        assert ("user", "plans_to", "go to Galway", "retract") in got


class TestLowerCaseHomes:
    def test_place_after_live_in_when_typed_in_lower_case(self) -> None:
        assert ("user", "lives_in", "Ghent", "assert") in facts("i live in ghent with my gf")

    def test_common_words_are_not_places(self) -> None:
        assert not [f for f in facts("we live in harmony with the cats") if f[1] == "lives_in"]
        assert not [f for f in facts("i'm moving to a new flat soon") if f[1] == "lives_in"]


class TestInstead:
    def test_the_replacement_said_with_instead_keeps_the_plan_s_shape(self) -> None:
        got = facts(
            "I'm going to study in Porto for the autumn term.",
            "The Porto course got cancelled, so I'll do the exchange in Braga instead.",
        )
        assert [f for f in got if f[3] == "retract" and "Porto" in f[2]]
        assert [f for f in got if f[3] == "assert" and f[1] == "plans_to" and "Braga" in f[2]]
