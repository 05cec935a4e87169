"""The offline extractor on the shapes of clauses people use for changes: a name the agent says
back, a move to "there", being somewhere "since" a date, plans turned down by name, endings that
lie ahead, dates after a verb under way, second verbs without their subject, corrections by the
wrong part only. The conversations are written for these tests, not taken from the reliability
suite; the last tests go through consolidation into a real ledger and resolve at a valid time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conftest import said

from emem.extract.anaphora import resolve_there
from emem.extract.dates import find_date_mentions
from emem.extract.introductions import introductions
from emem.extract.offline import OfflineExtractor
from emem.extract.rules import appositive_name
from emem.models import Turn
from emem.subjects import speaker_roles

T = datetime(2024, 3, 3, 12, 0, tzinfo=UTC)


def facts(*texts: str, speaker: str = "user") -> list[tuple[str, str, str, str]]:
    turns = said(texts, T, speaker)
    return [(f.subject, f.predicate, f.object, f.kind) for f in OfflineExtractor()(turns)]


def sessions(*texts: str, speaker: str = "user") -> list[Turn]:
    """One turn per session, a month apart, so later turns refer back across sessions."""
    return [
        Turn(
            conversation_id="c",
            session_id=f"s{i}",
            turn_id=f"s{i}:1",
            speaker="assistant" if t.startswith("A:") else speaker,
            text=t.removeprefix("A:"),
            time=T + timedelta(days=30 * i),
        )
        for i, t in enumerate(texts)
    ]


class TestIntroductions:
    def test_a_name_the_agent_says_back_is_the_user_s_name(self) -> None:
        turns = said(("Morning! I'm Wilhelmina, I run a bakery.", "A:Good morning, Wilhelmina."), T)
        got = introductions(turns, speaker_roles([t.speaker for t in turns]))
        assert [(f.subject, f.predicate, f.object) for f in got] == [("user", "name", "Wilhelmina")]

    def test_a_name_with_here_keeps_the_given_name(self) -> None:
        turns = said(("Tobiah Ferreira here. Need help with my garden.", "A:Hi Tobiah! Happy to help."), T)
        assert [f.object for f in introductions(turns, speaker_roles([t.speaker for t in turns]))] == [
            "Tobiah"
        ]

    def test_a_word_after_i_m_nobody_says_back_is_no_name(self) -> None:
        turns = said(("I'm Vegan, by the way.", "A:Noted, thanks."), T)
        assert introductions(turns, speaker_roles([t.speaker for t in turns])) == []

    def test_the_extractor_files_it_under_the_user(self) -> None:
        got = facts("Hello. I'm Oriane, I look after the accounts.", "A:Nice to meet you, Oriane.")
        assert ("user", "name", "Oriane", "assert") in got


class TestPlacesAndPets:
    def test_there_is_the_place_named_before_it(self) -> None:
        assert resolve_there("The firm opened an office in Ghent and I'll move there in May.").endswith(
            "I'll move to Ghent in May."
        )
        assert resolve_there("I'll move there in May.") == "I'll move there in May."

    def test_a_move_to_there_dates_where_the_speaker_lives(self) -> None:
        got = facts("My company is opening a studio in Tallinn and we're moving there in June.")
        assert ("user", "lives_in", "Tallinn", "assert") in got

    def test_being_somewhere_since_a_date_is_living_there(self) -> None:
        turns = said(("We've been in Tromsø since 3 February, the flat is tiny.",), T)
        got = OfflineExtractor()(turns)
        lives = [f for f in got if f.predicate == "lives_in"]
        assert [f.object for f in lives] == ["Tromsø"]
        assert lives[0].valid_from == datetime(2024, 2, 3, tzinfo=UTC)

    def test_an_animal_renamed_later_in_its_clause(self) -> None:
        assert appositive_name(" from the shelter, a shy tabby called Pumpkin.") == "Pumpkin"
        assert appositive_name(" and my sister has a dog called Rex.") is None
        got = facts("We adopted a third cat last week, an old ginger one called Biscuit.")
        assert ("user", "has_pet", "a cat named Biscuit", "assert") in got


class TestPlansAndEndings:
    def test_a_plan_in_the_progressive_is_a_plan(self) -> None:
        got = facts("Kasia and I are planning a long weekend in Ljubljana in October.")
        assert [f for f in got if f[1] == "plans_to" and "Ljubljana" in f[2]]

    def test_a_plan_turned_down_by_name_is_withdrawn(self) -> None:
        got = facts("We're planning a week in Kraków in May.", "Change of plans, not Kraków after all.")
        assert [f for f in got if f[1] == "plans_to" and f[3] == "retract" and "Kraków" in f[2]]

    def test_turning_down_something_never_planned_withdraws_nothing(self) -> None:
        got = facts("I live in Leeds.", "Not Kraków after all, says my sister.")
        assert not [f for f in got if f[3] == "retract"]

    def test_notice_at_a_job_says_where_one_works(self) -> None:
        got = facts("Handed in my notice at Quillon Press yesterday. Last day is 28 March.")
        assert ("user", "works_at", "Quillon Press", "assert") in got
        assert any(f[1] == "works_at" and f[3] == "end" for f in got)

    def test_a_date_after_a_verb_under_way_lies_ahead(self) -> None:
        turns = said(("We bought a house in Aarhus, moving in August.",), T)
        lives = [f for f in OfflineExtractor()(turns) if f.predicate == "lives_in"]
        assert lives and lives[0].valid_from == datetime(2024, 8, 1, tzinfo=UTC)

    def test_lower_case_march_next_to_a_day_is_a_month(self) -> None:
        assert [d.surface for d in find_date_mentions("here since 15 march", T)] == ["15 March"]
        assert find_date_mentions("we march on", T) == []


class TestClausesAndCorrections:
    def test_a_second_verb_keeps_the_subject(self) -> None:
        got = facts("I'm watching Severance at the moment, and reading Middlemarch.")
        assert ("user", "reading", "Middlemarch", "assert") in got
        got = facts("I live in Porto and work remotely for a studio called Lumafield.")
        assert ("user", "works_at", "Lumafield", "assert") in got

    def test_an_employer_ends_before_a_new_clause(self) -> None:
        got = facts("Dmitri works at Halden Foods and gets home at nine.")
        assert ("Dmitri", "works_at", "Halden Foods", "assert") in got

    def test_acronyms_stay_in_job_titles(self) -> None:
        got = facts("I'm a QA engineer at Brightpath.")
        assert ("user", "job_title", "QA engineer", "assert") in got

    def test_a_phone_number_corrected_by_its_last_digits(self) -> None:
        turns = sessions("My number is +44 7700 900123.", "Typo last time, it's +44 7700 900128, not 900123.")
        got = [(f.predicate, f.object, f.kind) for f in OfflineExtractor()(turns)]
        assert ("phone", "+44 7700 900123", "retract") in got
        assert ("phone", "+44 7700 900128", "assert") in got

    def test_an_age_corrected_without_a_comma(self) -> None:
        got = facts("I'm 41 years old.", "Small correction, I'm 42 not 41.")
        assert ("user", "age", "41", "retract") in got
        assert ("user", "age", "42", "assert") in got


class TestLedger:
    def test_a_job_left_ahead_holds_until_then(self, memory) -> None:
        memory.add_turns(said(("I'm leaving Corvid Labs at the end of the year.",), T), namespace="t")
        memory.consolidate("t")
        assert memory.resolve("user", "works_at", valid_at=T + timedelta(days=30), namespace="t").values == [
            "Corvid Labs"
        ]
        assert memory.resolve("user", "works_at", valid_at="2025-02-01", namespace="t").status == "miss"

    def test_a_named_user_resolves_by_the_name(self, memory) -> None:
        memory.add_turns(
            said(("Hi there. I'm Perpetua, I live in Galway.", "A:Nice to meet you, Perpetua."), T),
            namespace="t",
        )
        memory.consolidate("t")
        assert memory.resolve("user", "name", namespace="t").values == ["Perpetua"]

    def test_a_start_said_later_replaces_the_forecast_start(self, memory) -> None:
        said_then = sessions(
            "We're moving to Tallinn in May.",
            "A:Noted.",
            "A:How is the packing?",
            "We've been in Tallinn since 20 May.",
        )
        memory.add_turns(said_then, namespace="t")
        memory.consolidate("t")
        assert memory.resolve("user", "lives_in", valid_at="2024-05-10", namespace="t").status == "miss"
        assert memory.resolve("user", "lives_in", valid_at="2024-05-25", namespace="t").values == ["Tallinn"]

    def test_a_plan_called_off_later_was_a_plan_until_then(self, memory) -> None:
        memory.add_turns(
            sessions("I'm planning to buy a Skoda Octavia next month.", "I decided against the Octavia."),
            namespace="t",
        )
        memory.consolidate("t")
        before = memory.resolve("user", "plans_to", valid_at=T + timedelta(days=10), namespace="t")
        assert [v for v in before.values if "Octavia" in v]
        assert memory.resolve("user", "plans_to", valid_at=T + timedelta(days=40), namespace="t").values == []

    def test_an_address_said_without_my(self) -> None:
        assert ("user", "address", "12 Quarry Lane", "assert") in facts("New address is 12 Quarry Lane.")


class TestMoves:
    def test_a_move_out_of_one_place_into_another(self) -> None:
        turns = said(("I'm moving out of Clapham in August, into a flat in Deptford with my cousin.",), T)
        got = {(f.predicate, f.object, f.kind): f for f in OfflineExtractor()(turns)}
        assert got[("lives_in", "Deptford", "assert")].valid_from == datetime(2024, 8, 1, tzinfo=UTC)
        assert got[("lives_in", "Clapham", "end")].valid_to == datetime(2024, 8, 1, tzinfo=UTC)

    def test_moves_not_stated_are_not_read(self) -> None:
        for text in (
            "We're not moving out of Clapham.",
            "Are you moving to Deptford in May?",
            "If we move to Deptford in May, ...",
        ):
            assert not [f for f in facts(text) if f[1] == "lives_in"], text

    def test_he_or_she_moves_as_the_person_just_named(self) -> None:
        got = facts("Ilse got a job offer in Graz! She's moving there in March.")
        assert ("Ilse", "lives_in", "Graz", "assert") in got
        assert not [f for f in facts("She's moving to Graz in March.") if f[1] == "lives_in"]

    def test_a_start_dated_before_the_role(self) -> None:
        turns = said(("I start on May 6th as a junior UX researcher.",), T)
        titles = [f for f in OfflineExtractor()(turns) if f.predicate == "job_title"]
        assert [f.object for f in titles] == ["junior UX researcher"]
        assert titles[0].valid_from == datetime(2024, 5, 6, tzinfo=UTC)

    def test_a_sentence_opened_by_a_start_date_dates_its_state(self) -> None:
        turns = said(("From 1 July I'm a staff nurse at Harrow General.",), T)
        got = {f.predicate: f for f in OfflineExtractor()(turns)}
        assert got["works_at"].valid_from == datetime(2024, 7, 1, tzinfo=UTC)
        assert got["job_title"].valid_from == datetime(2024, 7, 1, tzinfo=UTC)

    def test_a_value_put_right_in_the_next_breath(self) -> None:
        got = facts("My new address is 48 Mill Lane. Sorry, 84 Mill Lane, I always swap them.")
        assert ("user", "address", "48 Mill Lane", "retract") in got
        assert ("user", "address", "84 Mill Lane", "assert") in got
        assert not [f for f in facts("I live in Derby. Sorry, I forgot to say hello.") if f[3] == "retract"]

    def test_a_role_ahead(self) -> None:
        got = facts("I accepted the offer, I'll be their head chef from June.")
        assert ("user", "job_title", "head chef", "assert") in got

    def test_a_title_in_title_case_without_an_article(self) -> None:
        assert ("user", "job_title", "logistics coordinator", "assert") in facts(
            "I'm Logistics Coordinator at Vantor."
        )
        assert ("user", "job_title", "head of finance", "assert") in facts(
            "Got promoted! I'm Head of Finance now."
        )
        assert not [f for f in facts("I'm Irish, from Cork.") if f[1] == "job_title"]
