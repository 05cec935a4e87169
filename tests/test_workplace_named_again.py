"""An employer named again by its kind ("I've left the vet centre"), a new one named with "the"
and small words ("I'm at the Bay of Plenty Wildlife Hospital now"), and places and names that
start with an accented capital ("Ōhope", "Łódź", "Archimède")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from dated_conversations import dated_conversation
from said import extracted, user_turns

from emem.extract.offline import OfflineExtractor
from emem.memory import Memory


def test_leaving_the_workplace_by_its_kind_ends_the_employer() -> None:
    ends = [
        (f.object, f.kind)
        for f in extracted(
            "I'm a nurse at Riverside Dental Centre.",
            "I've left the dental centre. I'm at the Port of Tyne Medical Centre now.",
            predicate="works_at",
        )
    ]
    assert ("dental centre", "end") in ends
    assert ("Port of Tyne Medical Centre", "assert") in ends


def test_an_ending_by_kind_needs_the_kind_to_end_the_phrase() -> None:
    # "I left the office at six" names no workplace kind; "the school gates" are not the school
    assert extracted("I left the office at six.", predicate="works_at") == []
    assert extracted("I left the school gates in a hurry.", predicate="works_at") == []
    [weak] = extracted("I left the bakery last month.", predicate="works_at")
    assert weak.kind == "end" and weak.confidence < 0.7  # it ends only a running employer


def test_places_starting_with_an_accented_capital() -> None:
    homes = [f.object for f in extracted("We moved to Łódź in May.", predicate="lives_in")]
    assert homes == ["Łódź"]
    bought = [
        f.object
        for f in extracted(
            "We bought a tiny cottage in Ōhope and got the keys in June.", predicate="lives_in"
        )
    ]
    assert bought == ["Ōhope"]


def test_a_pet_named_with_an_accented_letter() -> None:
    facts = OfflineExtractor()(user_turns("My dog Archimède is a basset."))
    assert any(f.predicate == "has_pet" and "Archimède" in f.object for f in facts)


def test_quitting_what_was_done_there_ends_that_employer() -> None:
    facts = [
        (f.object, f.kind)
        for f in extracted(
            "I drive long-haul for Prairie Sky Freight, mostly at night.",
            "I've quit long-haul. I'm driving local for Qu'Appelle Brewing now.",
            predicate="works_at",
        )
    ]
    assert ("long-haul", "end") in facts and ("Prairie Sky Freight", "assert") in facts
    assert extracted("I quit smoking in May.", predicate="works_at") == []


def test_another_attribute_no_longer_so_does_not_undo_the_fact() -> None:
    employers = [
        f.object
        for f in extracted(
            "I'm a data analyst at Tern Insurance now, no longer a trainee.", predicate="works_at"
        )
    ]
    assert employers == ["Tern Insurance"]


def test_a_diet_said_against_the_one_it_replaces() -> None:
    diets = [f.object for f in extracted("So pescatarian rather than vegetarian now.", predicate="diet")]
    assert diets == ["pescatarian"]


def test_a_vehicle_gone_for_in_the_end_but_not_a_dog() -> None:
    cars = [
        f.object
        for f in extracted(
            "The Corsa finally gave up on the motorway. I went for a second-hand Kia Niro in the end.",
            predicate="drives",
        )
    ]
    assert cars == ["Kia Niro"]
    assert (
        extracted("We looked at cars for ages. I went for a Labrador in the end.", predicate="drives") == []
    )


def test_a_weak_end_closes_the_employer_told_with_it(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2025-01-10T09:00:00+00:00",
                [("user", "I drive long-haul for Prairie Sky Freight, mostly at night.")],
            ),
            (
                "2025-09-02T09:00:00+00:00",
                [("user", "I've quit long-haul. Taking the rest of the year off to fix up the house.")],
            ),
        ]
    )
    with Memory(tmp_path / "home") as memory:
        memory.add_conversation(conv, namespace="ns")
        memory.consolidate("ns")
        now = memory.resolve("user", "works_at", namespace="ns")
        assert now.values == []  # ended, and nothing named after it
        before = memory.resolve("user", "works_at", namespace="ns", valid_at=datetime(2025, 5, 1, tzinfo=UTC))
        assert before.values == ["Prairie Sky Freight"]


def test_workplaces_of_other_trades() -> None:
    facts = [
        (f.object, f.kind)
        for f in extracted(
            "I'm a stillman at Craigmore Distillery.",
            "Big news: I've left the distillery. I'm at the Strathy Cooperage now, on the repair bench.",
            predicate="works_at",
        )
    ]
    assert ("distillery", "end") in facts and ("Strathy Cooperage", "assert") in facts


def test_a_diet_said_with_more_after_it() -> None:
    diets = [
        f.object
        for f in extracted(
            "So vegetarian rather than vegan now, the egg man comes on Tuesdays.", predicate="diet"
        )
    ]
    assert diets == ["vegetarian"]
