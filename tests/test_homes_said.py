"""Where someone lives, said by the home: "Home's in Rugby", "we're in a semi on the edge of
Penrith" after a move, "It's a two-bed terrace in Horbury" after buying a house."""

from __future__ import annotations

import pytest
from said import extracted


def _homes(text: str) -> list[str]:
    return [f.object for f in extracted(text, predicate="lives_in") if f.kind == "assert"]


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("Home's in Keswick with the two dogs and my husband.", "Keswick"),
        ("Our home is near Ely, right by the river.", "Ely"),
        ("We moved in March, we're in a flat at the top of Totley now.", "Totley"),
        ("Finally done. We moved last week, we're in a bungalow just outside Clitheroe.", "Clitheroe"),
        ("We've bought a house! It's a little cottage in Settle, completion was Friday.", "Settle"),
    ],
)
def test_where_the_home_is(said: str, place: str) -> None:
    assert place in _homes(said)


@pytest.mark.parametrize(
    "said",
    [
        "It's a lovely cottage in Ely. My sister bought it last year.",  # someone else's home
        "Home's where the heart is, as they say.",
        "We bought a painting. It's a little cottage in Settle, in oils.",  # a picture of a home
    ],
)
def test_what_is_not_the_speakers_home(said: str) -> None:
    assert _homes(said) == []


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("I rent a townhouse in Galway, on Sea Road. The landlord is fine.", "Galway"),
        ("I'm renting a little stone cottage in Hayfield now. Heating!", "Hayfield"),
        ("I've rented a little place in Portobello.", "Portobello"),
        ("I rent a trailer out at Cedar Flats. It leaks.", "Cedar Flats"),
        ("I rent a flat above a tea room in Hebden Bridge.", "Hebden Bridge"),
        ("I live in a rented unit in Bridgetown with my partner.", "Bridgetown"),
        ("We bought a place! A weatherboard house in Harvey, and I start there Monday.", "Harvey"),
        ("We got the keys yesterday! Three-bedroom bungalow in Nairn, by the beach.", "Nairn"),
        ("All my stuff's at Tomas's place on Kestrel Road now, so I guess I live there.", "Kestrel Road"),
        ("Guess where I'm writing from. Bergen! We moved at the start of May.", "Bergen"),
    ],
)
def test_a_home_rented_bought_or_moved_into(said: str, place: str) -> None:
    assert place in _homes(said)


@pytest.mark.parametrize(
    "said",
    [
        "We rent a flat near Beira Park.",  # near a landmark: not the town
        "I rent unit 4 at Cloonmore Business Park for the kiln.",  # a workshop
        "Bergen! What a trip that was.",  # a place exclaimed, with no move
    ],
)
def test_what_names_no_home(said: str) -> None:
    assert _homes(said) == []


def _dated_homes(*texts: str) -> dict[str, str | None]:
    return {
        f.object: (f.valid_from.date().isoformat() if f.valid_from else None)
        for f in extracted(*texts, predicate="lives_in")
        if f.kind == "assert"
    }


def test_a_home_taken_for_a_move_begins_with_the_move() -> None:
    """Said on 1 March: the flat in Partick is home from the move at the end of July, not from a
    July read backwards out of the other clause, nor from today."""
    homes = _dated_homes("I'm moving up to Glasgow at the end of July and I've rented a flat in Partick.")
    assert homes == {"Glasgow": "2025-07-21", "Partick": "2025-07-21"}


def test_a_date_in_another_clause_does_not_date_a_home() -> None:
    """ "In January" dates the trip, not the flat (said on 1 March)."""
    homes = _dated_homes("We went to Lisbon in January and I've rented a flat in Leith.")
    assert homes == {"Leith": None}


def test_a_date_before_so_still_dates_the_home() -> None:
    assert _dated_homes("We moved in January, so we live in Leith now.") == {"Leith": "2025-01-01"}


@pytest.mark.parametrize(
    "said",
    [
        "Mara got a teaching job in Kirkwall, so we're renting a house on Victoria Street there.",
        "We're renting a flat on Albert Road in Kirkwall.",
    ],
)
def test_a_home_on_a_street_in_a_town(said: str) -> None:
    assert _homes(said) == ["Kirkwall"]


def test_a_fact_read_through_there_keeps_the_words_said() -> None:
    """ "there" is read as the town, but the surface quoted is the sentence as said."""
    said = (
        "Mara got a teaching job in Kirkwall, so we're renting a house on Victoria Street there. It's cold."
    )
    (fact,) = [f for f in extracted(said, predicate="lives_in") if f.kind == "assert"]
    assert (
        fact.surface
        == "Mara got a teaching job in Kirkwall, so we're renting a house on Victoria Street there."
    )


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("I'm in a flat in Petone with two flatmates, Kenna and Mereana.", "Petone"),
        ("We're still in the flat in Biddenham, bursting at the seams.", "Biddenham"),
        ("I live in a two-flat in Logan Square with my cats.", "Logan Square"),
        ("I rent half a duplex on Hauser Boulevard.", "Hauser Boulevard"),
        ("I've moved! A one-bedroom place in Island Bay, all on my own.", "Island Bay"),
        ("And I've moved, a garden apartment in Evanston, closer to work.", "Evanston"),
        ("We're on the smallholding at Llanidloes now! Sheep everywhere.", "Llanidloes"),
        ("We're in Wanaka! Moved over at the end of March, a rented chalet.", "Wanaka"),
    ],
)
def test_the_home_one_is_in(said: str, place: str) -> None:
    assert place in _homes(said)


def test_a_home_someone_else_is_in_is_theirs() -> None:
    facts = [(f.subject, f.object) for f in extracted("Jo's in a flat in Leeds.", predicate="lives_in")]
    assert facts == [("Jo", "Leeds")]


def test_a_comma_spliced_clause_takes_no_date_from_the_other() -> None:
    """A comma joins a clause of its own ("..., I've rented"), unlike a fronted date ("In January, we
    bought"). Said on 1 March."""
    homes = _dated_homes("We're moving to Glasgow at the end of July, I've rented a flat in Partick.")
    assert homes == {"Glasgow": "2025-07-21", "Partick": "2025-07-21"}
    assert _dated_homes("In January, we bought a house in Ely.") == {"Ely": "2025-01-01"}


def test_a_move_ahead_dates_the_flat_when_its_date_holds_the_preposition() -> None:
    """ "in late June" is one date mention, "in" and all: the flat found for that move is home from
    21 June, not from the day it was said (1 March)."""
    homes = _dated_homes("I'm moving to Bristol in late June, I've found a flat in Bedminster.")
    assert homes == {"Bristol": "2025-06-21", "Bedminster": "2025-06-21"}


def test_a_farm_visited_is_no_home() -> None:
    assert _homes("We're at the farm near Tiverton for the weekend with my aunt.") == []


def test_a_move_in_a_named_week_of_a_month_starts_then() -> None:
    """Said on 1 March: "the last week of January" is its last seven days, not "last week"."""
    assert _dated_homes("We're in Oamaru! Moved over in the last week of January.") == {
        "Oamaru": "2025-01-25"
    }


def test_a_move_up_on_a_date_dates_the_home_said_now() -> None:
    """Said on 1 March: "We're in Morpeth now!" alone is undated; the move's own clause dates it.
    "Moving up in the world" names no date and no move."""
    assert _dated_homes("We're in Morpeth now! Moved up at the end of January, a flat by the river.") == {
        "Morpeth": "2025-01-21"
    }
    assert _dated_homes("I'm moving up in the world, new title and all.") == {}
