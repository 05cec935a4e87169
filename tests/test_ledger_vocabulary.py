"""Issue 12, write side: open predicates, the wider vocabulary, ending facts and dated starts, and
what consolidation makes of an agent conversation (real SQLite ledger, offline extractor)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from dated_conversations import Session, dated_conversation

from emem.errors import InputError
from emem.ledger import Ledger
from emem.ledger.predicates import Cardinality, named_value, predicate_name
from emem.memory import Memory

NS = "agent-1"


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    with Ledger(tmp_path / "ledger.sqlite3") as led:
        yield led


class TestOpenPredicates:
    def test_unknown_predicate_without_cardinality_names_it(self, ledger: Ledger) -> None:
        with pytest.raises(InputError, match="unknown predicate 'shoe_size'"):
            ledger.assert_fact(NS, "user", "shoe_size", "42", "2024-01-01T00:00:00+00:00")
        assert ledger.revisions(NS) == []

    def test_declared_on_first_write_and_resolved_by_its_cardinality(self, ledger: Ledger) -> None:
        ledger.assert_fact(NS, "user", "shoe_size", "42", "2024-01-01T00:00:00+00:00", cardinality="single")
        ledger.assert_fact(NS, "user", "shoe_size", "43", "2024-06-01T00:00:00+00:00")
        assert ledger.cardinality_of("shoe_size", NS) == Cardinality.SINGLE
        assert ledger.resolve(NS, "user", "shoe_size").values == ["43"]
        assert ledger.resolve(NS, "user", "shoe_size", valid_at="2024-03-01T00:00:00+00:00").values == ["42"]
        ledger.assert_fact(NS, "user", "speaks", "French", "2024-01-01T00:00:00+00:00", cardinality="multi")
        ledger.assert_fact(NS, "user", "speaks", "Hindi", "2024-06-01T00:00:00+00:00")
        assert sorted(ledger.resolve(NS, "user", "speaks").values) == ["French", "Hindi"]
        assert {r.predicate for r in ledger.facts(NS, "user")} == {"shoe_size", "speaks"}
        assert len(ledger.history(NS, "user", "shoe_size").entries) == 2

    def test_contradicting_cardinality_is_refused(self, ledger: Ledger) -> None:
        ledger.assert_fact(NS, "user", "speaks", "French", "2024-01-01T00:00:00+00:00", cardinality="multi")
        with pytest.raises(InputError, match="multi-valued"):
            ledger.assert_fact(
                NS, "user", "speaks", "Hindi", "2024-06-01T00:00:00+00:00", cardinality="single"
            )
        with pytest.raises(InputError, match="single-valued"):
            ledger.assert_fact(
                NS, "user", "lives_in", "Oslo", "2024-06-01T00:00:00+00:00", cardinality="multi"
            )
        with pytest.raises(InputError, match="cardinality must be"):
            ledger.assert_fact(NS, "user", "mood", "calm", "2024-06-01T00:00:00+00:00", cardinality="several")
        assert len(ledger.revisions(NS)) == 1

    def test_declarations_are_per_namespace(self, ledger: Ledger) -> None:
        ledger.assert_fact(NS, "user", "speaks", "French", "2024-01-01T00:00:00+00:00", cardinality="multi")
        with pytest.raises(InputError, match="unknown predicate"):
            ledger.resolve("other", "user", "speaks")
        ledger.assert_fact(
            "other", "user", "speaks", "Urdu", "2024-01-01T00:00:00+00:00", cardinality="single"
        )
        assert ledger.cardinality_of("speaks", "other") == Cardinality.SINGLE
        assert ledger.cardinality_of("speaks", NS) == Cardinality.MULTI

    def test_a_failed_write_declares_nothing(self, ledger: Ledger) -> None:
        with pytest.raises(InputError):
            ledger.assert_fact(NS, "user", "speaks", "   ", "2024-01-01T00:00:00+00:00", cardinality="multi")
        assert ledger.declared_predicates(NS) == {}

    def test_not_snake_case_is_refused(self, ledger: Ledger) -> None:
        for bad in ("Shoe Size!", "1st_pet", "x" * 70):
            with pytest.raises(InputError, match="snake_case"):
                ledger.assert_fact(NS, "user", bad, "v", "2024-01-01T00:00:00+00:00", cardinality="single")

    def test_favourites_are_single_valued_per_category_without_declaration(self, ledger: Ledger) -> None:
        ledger.assert_fact(NS, "user", "favorite_colour", "green", "2024-01-01T00:00:00+00:00")
        ledger.assert_fact(NS, "user", "favourite_colour", "teal", "2024-06-01T00:00:00+00:00")
        ledger.assert_fact(NS, "user", "favourite_food", "pho", "2024-06-01T00:00:00+00:00")
        assert predicate_name("Favorite Colour") == "favourite_colour"
        assert ledger.resolve(NS, "user", "favourite_colour").values == ["teal"]
        assert ledger.resolve(NS, "user", "favourite_food").values == ["pho"]

    def test_an_existing_home_is_migrated_on_open(self, tmp_path: Path) -> None:
        path = tmp_path / "old.sqlite3"
        with Ledger(path) as led:
            led.assert_fact(NS, "user", "lives_in", "Oslo", "2024-01-01T00:00:00+00:00")
        with sqlite3.connect(path) as conn:  # a home written before open predicates existed
            conn.execute("DROP TABLE predicates")
        with Ledger(path) as led:
            led.assert_fact(
                NS, "user", "speaks", "Norwegian", "2024-01-01T00:00:00+00:00", cardinality="multi"
            )
            assert led.resolve(NS, "user", "lives_in").values == ["Oslo"]
            assert led.resolve(NS, "user", "speaks").values == ["Norwegian"]

    def test_memory_assert_fact_takes_a_cardinality(self, tmp_path: Path) -> None:
        with Memory(tmp_path / "home") as mem:
            mem.assert_fact(
                "user", "speaks", "French", "2024-01-01T00:00:00+00:00", namespace=NS, cardinality="multi"
            )
            assert mem.resolve("user", "speaks", namespace=NS).values == ["French"]
            with pytest.raises(InputError, match="unknown predicate 'sings'"):
                mem.assert_fact("user", "sings", "alto", "2024-01-01T00:00:00+00:00", namespace=NS)

    def test_named_value(self) -> None:
        assert named_value("a dog named Max") == "Max"
        assert named_value("a sister named Ana Maria") == "Ana Maria"
        assert named_value("two cats") is None


def agent_conversation(*sessions: Session) -> dict[str, Any]:
    return dated_conversation(list(sessions), "chat")


PRIYA = agent_conversation(
    (
        "2024-03-01T10:00:00+00:00",
        [
            ("user", "Hi! My name is Priya."),
            ("assistant", "Nice to meet you, Priya! You live in Denver, right?"),
            ("user", "I live in Boston and I work at Acme Corp as a software engineer."),
            ("user", "My phone number is 555-867-5309."),
        ],
    ),
    (
        "2024-06-03T09:00:00+00:00",
        [  # a Monday
            ("user", "I quit Acme Corp last Friday."),
            ("user", "I accepted an offer from Globex, I will be a product manager there, starting in July."),
            ("user", "We're moving to Seattle next month."),
            ("user", "Sorry, my number is actually (415) 555-0132."),
            ("user", "Actually, I'm vegetarian now."),
        ],
    ),
)


@pytest.fixture
def priya(tmp_path: Path) -> Memory:
    mem = Memory(tmp_path / "home", forget_policy="withhold")
    mem.add_conversation(PRIYA, namespace=NS)
    mem.consolidate(NS)
    yield mem
    mem.close()


def at(mem: Memory, predicate: str, day: str, subject: str = "user") -> tuple[str, list[str]]:
    res = mem.resolve(subject, predicate, namespace=NS, valid_at=f"{day}T12:00:00+00:00")
    return res.status, res.values


class TestAgentConversation:
    def test_facts_are_filed_under_the_user_not_the_agent(self, priya: Memory) -> None:
        assert priya.ledger.subjects(NS) == ["user"]
        assert at(priya, "name", "2024-03-02") == ("state", ["Priya"])
        # The agent's "You live in Denver, right?" is not a fact.
        assert "Denver" not in at(priya, "lives_in", "2024-03-02")[1]

    def test_quitting_ends_the_job_at_the_date_said(self, priya: Memory) -> None:
        assert at(priya, "works_at", "2024-04-01") == ("state", ["Acme Corp"])
        assert at(priya, "works_at", "2024-05-30") == ("state", ["Acme Corp"])
        assert at(priya, "works_at", "2024-06-15") == ("miss", [])  # quit 31 May; Globex starts in July

    def test_an_accepted_offer_starts_on_its_date(self, priya: Memory) -> None:
        assert at(priya, "works_at", "2024-07-15") == ("state", ["Globex"])
        assert at(priya, "job_title", "2024-05-15") == ("state", ["software engineer"])
        # The title was said with its employer ("I work at Acme Corp as a software engineer"), so
        # it ended when she quit Acme: between the two jobs she holds neither.
        assert at(priya, "job_title", "2024-06-15") == ("miss", [])
        assert at(priya, "job_title", "2024-07-15") == ("state", ["product manager"])

    def test_a_planned_move_is_dated(self, priya: Memory) -> None:
        assert at(priya, "lives_in", "2024-06-15") == ("state", ["Boston"])
        assert at(priya, "lives_in", "2024-07-15") == ("state", ["Seattle"])

    def test_a_correction_withdraws_the_wrong_number(self, priya: Memory) -> None:
        assert at(priya, "phone", "2024-06-15") == ("state", ["(415) 555-0132"])
        # As known now, the first number was never right: not even for March.
        assert at(priya, "phone", "2024-03-15")[1] != ["555-867-5309"]
        # As known in March, it was.
        res = priya.resolve(
            "user",
            "phone",
            namespace=NS,
            valid_at="2024-03-15T00:00:00+00:00",
            known_at="2024-03-15T00:00:00+00:00",
        )
        assert res.values == ["555-867-5309"]

    def test_a_change_of_diet(self, priya: Memory) -> None:
        assert at(priya, "diet", "2024-06-15") == ("state", ["vegetarian"])

    def test_history_shows_the_ending(self, priya: Memory) -> None:
        entries = priya.history("user", "works_at", namespace=NS).entries
        ended = [e for e in entries if e.revision.object == "acme corp" and e.revision.valid_to is not None]
        assert ended and ended[0].revision.valid_to.date().isoformat() == "2024-05-31"
        assert any(e.revoked_by for e in entries if e.revision.object == "acme corp")

    def test_consolidation_is_idempotent(self, priya: Memory) -> None:
        before = len(priya.ledger.revisions(NS))
        report = priya.consolidate(NS)
        assert report.turns_processed == 0 and len(priya.ledger.revisions(NS)) == before


class TestEndsAndCancellations:
    def test_finishing_a_book_ends_reading(self, tmp_path: Path) -> None:
        conv = agent_conversation(
            ("2024-03-01T10:00:00+00:00", [("user", "I'm reading Dune right now.")]),
            ("2024-03-20T10:00:00+00:00", [("user", "I finished reading Dune yesterday.")]),
        )
        with Memory(tmp_path / "h") as mem:
            mem.add_conversation(conv, namespace=NS)
            mem.consolidate(NS)
            assert at(mem, "reading", "2024-03-10") == ("state", ["Dune"])
            assert at(mem, "reading", "2024-03-25") == ("miss", [])

    def test_a_called_off_trip_and_move(self, tmp_path: Path) -> None:
        conv = agent_conversation(
            (
                "2024-03-01T10:00:00+00:00",
                [("user", "We're going to Japan next month."), ("user", "We're moving to Austin in June.")],
            ),
            (
                "2024-03-20T10:00:00+00:00",
                [("user", "We cancelled the trip to Japan."), ("user", "We called off the move to Austin.")],
            ),
        )
        with Memory(tmp_path / "h") as mem:
            mem.add_conversation(conv, namespace=NS)
            mem.consolidate(NS)
            before = "2024-03-10T00:00:00+00:00"  # as known before the plans were called off
            plans = mem.resolve("user", "plans_to", namespace=NS, valid_at=before, known_at=before).values
            assert any("Japan" in p for p in plans) and any("Austin" in p for p in plans)
            assert mem.resolve(
                "user", "lives_in", namespace=NS, valid_at="2024-07-01T00:00:00+00:00", known_at=before
            ).values == ["Austin"]
            assert at(mem, "plans_to", "2024-03-25") == ("miss", [])
            assert at(mem, "lives_in", "2024-07-01") == ("miss", [])


class TestNamedSpeakers:
    def test_each_person_is_the_subject_of_their_own_statements(self, tmp_path: Path) -> None:
        conv = agent_conversation(
            (
                "2024-03-01T10:00:00+00:00",
                [
                    ("Caroline", "I'm allergic to peanuts."),
                    ("Melanie", "I have asthma, so running is hard."),
                ],
            )
        )
        with Memory(tmp_path / "h") as mem:
            mem.add_conversation(conv, namespace=NS)
            mem.consolidate(NS)
            assert at(mem, "allergy", "2024-03-02", "Caroline") == ("state", ["peanuts"])
            assert at(mem, "health_condition", "2024-03-02", "Melanie") == ("state", ["asthma"])
            assert at(mem, "health_condition", "2024-03-02", "Caroline") == ("miss", [])


class TestConsolidationOfCandidates:
    """Consolidation applies what an extractor proposes: open predicates, endings without a past."""

    def _turn(self, text: str) -> Any:
        from datetime import UTC, datetime

        from emem.models import StoredTurn

        t = datetime(2024, 6, 3, 9, tzinfo=UTC)
        return StoredTurn(
            conversation_id="c",
            session_id="S1",
            turn_id="S1:1",
            speaker="user",
            text=text,
            time=t,
            namespace=NS,
            seq=1,
            recorded_at=t,
            hash="h1",
        )

    def test_open_predicate_candidates_declare_their_cardinality(self, ledger: Ledger) -> None:
        from emem.consolidate import consolidate
        from emem.extract.schema import FactCandidate

        turn = self._turn("I speak French.")
        good = FactCandidate(
            subject="user",
            predicate="speaks",
            object="French",
            surface="I speak French",
            source_turn_ids=["S1:1"],
            cardinality="multi",
        )
        bad = FactCandidate(
            subject="user", predicate="hums", object="jazz", surface="x", source_turn_ids=["S1:1"]
        )
        report = consolidate(NS, [turn], ledger, lambda turns: [good, bad])
        assert report.revisions_written == 1 and report.skipped == 1
        assert "unknown predicate 'hums'" in report.notes[0]
        assert ledger.cardinality_of("speaks", NS) == Cardinality.MULTI

    def test_an_ending_with_nothing_before_it_records_the_day_before(self, ledger: Ledger) -> None:
        from datetime import UTC, datetime

        from emem.consolidate import consolidate
        from emem.extract.offline import OfflineExtractor

        report = consolidate(NS, [self._turn("I quit Acme Corp last Friday.")], ledger, OfflineExtractor())
        assert report.ended == 1
        friday = datetime(2024, 5, 31, tzinfo=UTC)
        assert ledger.resolve(
            NS, "user", "works_at", valid_at=datetime(2024, 5, 30, 12, tzinfo=UTC)
        ).values == ["Acme Corp"]
        assert ledger.resolve(NS, "user", "works_at", valid_at=friday).status == "miss"
        assert (
            ledger.resolve(NS, "user", "works_at", valid_at=datetime(2024, 1, 1, tzinfo=UTC)).status == "miss"
        )


def test_dropping_a_namespace_drops_its_declarations(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_turns(
            [
                {
                    "conversation_id": "c",
                    "session_id": "s",
                    "turn_id": "1",
                    "speaker": "user",
                    "text": "hello",
                    "time": "2024-01-01T00:00:00+00:00",
                }
            ],
            namespace=NS,
        )
        mem.assert_fact(
            "user", "speaks", "French", "2024-01-01T00:00:00+00:00", namespace=NS, cardinality="multi"
        )
        mem.drop_namespace(NS)
        assert mem.ledger.declared_predicates(NS) == {}


def test_anymore_ends_a_fact_and_keeps_its_past(tmp_path: Path) -> None:
    conv = agent_conversation(
        ("2024-01-10T10:00:00+00:00", [("user", "I live in Austin."), ("user", "I'm vegetarian.")]),
        (
            "2024-05-10T10:00:00+00:00",
            [("user", "I don't live in Austin anymore."), ("user", "I started eating meat again.")],
        ),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        mem.consolidate(NS)
        assert at(mem, "lives_in", "2024-03-01") == ("state", ["Austin"])
        assert at(mem, "lives_in", "2024-06-01") == ("miss", [])
        assert at(mem, "diet", "2024-03-01") == ("state", ["vegetarian"])
        assert at(mem, "diet", "2024-06-01") == ("miss", [])


def test_a_doubtful_ending_only_ends_what_is_running(tmp_path: Path) -> None:
    conv = agent_conversation(
        ("2024-03-01T10:00:00+00:00", [("user", "I'm reading Dune right now.")]),
        (
            "2024-03-20T10:00:00+00:00",
            [("user", "Finished Dune yesterday."), ("user", "Finished Severance too.")],
        ),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        mem.consolidate(NS)
        assert at(mem, "reading", "2024-03-10") == ("state", ["Dune"])
        assert at(mem, "reading", "2024-03-25") == ("miss", [])
        # Nothing says Severance was being read or watched: nothing is recorded for it.
        assert not [r for r in mem.ledger.revisions(NS) if "severance" in r.object]
