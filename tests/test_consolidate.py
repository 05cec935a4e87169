"""Consolidation with a scripted fake extractor: watermark, idempotency, retraction, conflicts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from emem.consolidate import consolidate, watermark_name
from emem.errors import InputError
from emem.extract.schema import FactCandidate
from emem.ledger import Ledger, Revision
from emem.models import StoredTurn, Turn

NS = "user-1"
T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def turn(seq: int, session: str, turn_id: str, text: str, *, ns: str = NS, day: int = 0) -> StoredTurn:
    return StoredTurn(
        conversation_id="conv-1",
        session_id=session,
        turn_id=turn_id,
        speaker="Caroline",
        text=text,
        time=T0 + timedelta(days=day, minutes=seq),
        namespace=ns,
        seq=seq,
        recorded_at=T0,
        hash=f"h{seq}",
    )


def cand(turn_id: str, predicate: str, obj: str, **kw) -> FactCandidate:
    return FactCandidate(
        subject="Caroline",
        predicate=predicate,
        object=obj,
        surface=f"said {obj}",
        source_turn_ids=[turn_id],
        **kw,
    )


class Script:
    """Fake extractor: candidates keyed by turn id; records which turns it was shown."""

    def __init__(self, by_turn: dict[str, list[FactCandidate]], fail_on: str | None = None) -> None:
        self.by_turn, self.fail_on, self.seen = by_turn, fail_on, []

    def __call__(self, turns: Sequence[Turn]) -> list[FactCandidate]:
        self.seen.append([t.turn_id for t in turns])
        if self.fail_on and any(t.turn_id == self.fail_on for t in turns):
            raise RuntimeError("extractor crashed")
        return [c for t in turns for c in self.by_turn.get(t.turn_id, [])]


TURNS = [
    turn(1, "S1", "D1:1", "I live in Denver."),
    turn(2, "S1", "D1:2", "We have a cat and a dog."),
    turn(3, "S2", "D2:1", "We moved to Austin!", day=50),
    turn(4, "S2", "D2:2", "Sadly the cat is gone.", day=50),
]
SCRIPT = {
    "D1:1": [cand("D1:1", "lives_in", "Denver")],
    "D1:2": [cand("D1:2", "has_pet", "a cat"), cand("D1:2", "has_pet", "a dog")],
    "D2:1": [cand("D2:1", "lives_in", "Austin")],
    "D2:2": [cand("D2:2", "has_pet", "cat", kind="retract")],
}


@pytest.fixture
def ledger(tmp_path):
    with Ledger(tmp_path / "ledger.sqlite") as led:
        yield led


def state(ledger: Ledger) -> tuple[set[str], set[str]]:
    return {r.id for r in ledger.revisions(NS)}, {r.id for r in ledger.relations(NS)}


def test_consolidation_projects_turns_with_provenance(ledger: Ledger):
    extractor = Script(SCRIPT)
    report = consolidate(NS, TURNS, ledger, extractor, extractor_name="fake/1")
    assert extractor.seen == [["D1:1", "D1:2"], ["D2:1", "D2:2"]]  # one call per session, in order
    assert (report.turns_processed, report.candidates) == (4, 5)
    assert (report.revisions_written, report.revocations, report.conflicts) == (4, 1, 0)
    assert report.watermark == 4 and ledger.get_watermark(NS, watermark_name("fake/1")) == 4
    assert report.seconds >= 0

    now = ledger.resolve(NS, "caroline", "lives_in")
    assert now.values == ["Austin"]
    austin = now.revisions[0]
    assert austin.known_from == TURNS[2].time and austin.valid_from == TURNS[2].time
    assert austin.sources == ["conv-1/D2:1"] and austin.asserted_by == "extractor:fake/1"
    assert austin.surface == "said Austin"
    assert ledger.resolve(NS, "Caroline", "lives_in", valid_at=TURNS[1].time).values == ["Denver"]

    pets = ledger.resolve(NS, "Caroline", "has_pet")
    assert pets.values == ["a dog"]
    assert ledger.resolve(NS, "Caroline", "has_pet", known_at=TURNS[2].time).values == ["a cat", "a dog"]
    revocation = next(r for r in ledger.revisions(NS) if r.kind == "revocation")
    assert revocation.known_from == TURNS[3].time and revocation.sources == ["conv-1/D2:2"]


def test_rerun_writes_nothing_and_skips_extraction(ledger: Ledger):
    consolidate(NS, TURNS, ledger, Script(SCRIPT))
    before = ledger.revisions(NS), ledger.relations(NS)
    extractor = Script(SCRIPT)
    report = consolidate(NS, TURNS, ledger, extractor)
    assert extractor.seen == []
    assert (report.turns_processed, report.revisions_written, report.revocations) == (0, 0, 0)
    assert (ledger.revisions(NS), ledger.relations(NS)) == before


def test_rerun_from_scratch_watermark_is_still_idempotent(ledger: Ledger):
    consolidate(NS, TURNS, ledger, Script(SCRIPT))
    before = state(ledger)
    ledger.set_watermark(NS, watermark_name("offline-rules/1"), 0)
    report = consolidate(NS, TURNS, ledger, Script(SCRIPT))
    assert report.turns_processed == 4
    assert (report.revisions_written, report.revocations) == (0, 0)
    assert state(ledger) == before


def test_watermark_only_new_turns_are_read(ledger: Ledger):
    consolidate(NS, TURNS[:2], ledger, Script(SCRIPT))
    extractor = Script(SCRIPT)
    report = consolidate(NS, TURNS, ledger, extractor)
    assert extractor.seen == [["D2:1", "D2:2"]]
    assert report.watermark_before == 2 and report.watermark == 4 and report.turns_processed == 2


def test_killed_run_resumes_to_the_same_ledger(tmp_path):
    with Ledger(tmp_path / "clean.sqlite") as clean:
        consolidate(NS, TURNS, clean, Script(SCRIPT))
        expected = state(clean)
    with Ledger(tmp_path / "killed.sqlite") as led:
        with pytest.raises(RuntimeError):
            consolidate(NS, TURNS, led, Script(SCRIPT, fail_on="D2:1"))
        assert led.get_watermark(NS, watermark_name("offline-rules/1")) == 2  # first session committed
        consolidate(NS, TURNS, led, Script(SCRIPT))
        assert state(led) == expected


def test_crash_inside_a_session_rolls_back_its_writes_and_watermark(ledger: Ledger):
    tie = {"D1:1": [cand("D1:1", "lives_in", "Denver"), cand("D1:1", "lives_in", "Boulder")]}

    def boom(a: Revision, b: Revision) -> str | None:
        raise RuntimeError("adjudicator crashed")

    with pytest.raises(RuntimeError):
        consolidate(NS, TURNS[:1], ledger, Script(tie), adjudicator=boom)
    assert ledger.revisions(NS) == [] and ledger.get_watermark(NS, watermark_name("offline-rules/1")) == 0


def test_conflicts_are_recorded_and_left_unresolved(ledger: Ledger):
    tie = {"D1:1": [cand("D1:1", "lives_in", "Denver"), cand("D1:1", "lives_in", "Boulder")]}
    report = consolidate(NS, TURNS[:1], ledger, Script(tie))
    assert report.conflicts == 1 and report.adjudicated == 0
    res = ledger.resolve(NS, "Caroline", "lives_in")
    assert res.status == "conflict" and sorted(res.values) == ["Boulder", "Denver"]
    assert [r.kind for r in ledger.relations(NS)] == ["unresolved"]


def test_adjudicator_orders_ties(ledger: Ledger):
    tie = {"D1:1": [cand("D1:1", "lives_in", "Denver"), cand("D1:1", "lives_in", "Boulder")]}
    calls = []

    def prefer_boulder(a: Revision, b: Revision) -> str | None:
        calls.append((a.object_text, b.object_text))
        return next(r.id for r in (a, b) if r.object_text == "Boulder")

    report = consolidate(NS, TURNS[:1], ledger, Script(tie), adjudicator=prefer_boulder)
    assert calls == [("Denver", "Boulder")]
    assert (report.conflicts, report.adjudicated) == (1, 1)
    assert ledger.resolve(NS, "Caroline", "lives_in").values == ["Boulder"]


def test_retract_without_object_revokes_the_current_value_and_its_restatements(ledger: Ledger):
    script = {
        "D1:1": [cand("D1:1", "works_at", "Acme")],
        "D1:2": [cand("D1:2", "works_at", "ACME")],
        "D2:1": [cand("D2:1", "works_at", "", kind="retract")],
    }
    report = consolidate(NS, TURNS[:3], ledger, Script(script))
    assert report.revocations == 2
    assert ledger.resolve(NS, "Caroline", "works_at").status == "miss"
    assert ledger.resolve(NS, "Caroline", "works_at", known_at=TURNS[1].time).values == ["ACME"]


def test_bad_candidates_are_skipped_with_a_note(ledger: Ledger):
    script = {
        "D1:1": [
            cand("D1:1", "teleports_to", "Mars"),
            cand("D9:9", "lives_in", "Denver"),
            cand("D1:1", "likes", "jazz", kind="retract"),
            cand(
                "D1:1", "lives_in", "Denver", valid_from=datetime(2020, 1, 1), valid_to=datetime(2019, 1, 1)
            ),
            cand("D1:1", "likes", "jazz", valid_from=datetime(2020, 1, 1)),
        ]
    }
    report = consolidate(NS, TURNS[:1], ledger, Script(script))
    assert (report.candidates, report.skipped, report.revisions_written) == (5, 4, 1)
    assert any("unknown predicate" in n for n in report.notes)
    assert any("nothing to retract" in n for n in report.notes)
    jazz = ledger.resolve(NS, "Caroline", "likes").revisions[0]
    assert jazz.valid_from == datetime(2020, 1, 1, tzinfo=UTC) and jazz.known_from == TURNS[0].time


def test_turns_of_another_namespace_are_refused(ledger: Ledger):
    with pytest.raises(InputError, match="namespace"):
        consolidate(NS, [turn(1, "S1", "D1:1", "hi", ns="other")], ledger, Script({}))
