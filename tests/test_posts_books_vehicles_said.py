"""A post held since a date, work said by the trade plied, the next book said without a verb of
reading, and a vehicle that replaced the old one are filed; sentences alike in form that say none
of these file nothing. Sentences are written for these tests."""

from __future__ import annotations

import pytest
from said import extracted


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("Since March I've been sous chef at Pickle & Rye in Leith.", "Pickle & Rye"),
        ("I've been head gardener at Thornbury Hall for a year now.", "Thornbury Hall"),
        ("I'm roasting at Bean & Kiln in Fitzroy now.", "Bean & Kiln"),
        ("I brew at Harbour Ales these days.", "Harbour Ales"),
    ],
)
def test_a_post_held_or_a_trade_plied_names_the_employer(text: str, employer: str) -> None:
    assert [f.object for f in extracted(text, predicate="works_at")] == [employer]


def test_a_post_held_since_a_date_is_the_job_title_too() -> None:
    titles = extracted("Since March I've been sous chef at Pickle & Rye in Leith.", predicate="job_title")
    assert [f.object for f in titles] == ["sous chef"]
    assert titles[0].valid_from is not None and titles[0].valid_from.month == 3


@pytest.mark.parametrize("text", ["I've been at Tesco all day.", "I've been a bit tired at work."])
def test_being_somewhere_is_no_employer(text: str) -> None:
    assert extracted(text, predicate="works_at") == []


def test_the_next_book_is_read_from_the_last_one_ended() -> None:
    said = (
        "Book-wise I'm on The Glass Orchard. Slow going.",
        "Finished The Glass Orchard. I'm onto Saltmarsh Letters now.",
        "Saltmarsh Letters finished. Now on Under Cold Stars by Ines Darrow.",
    )
    reading = [(f.kind, f.object) for f in extracted(*said, predicate="reading")]
    assert ("assert", "The Glass Orchard") in reading
    assert ("assert", "Saltmarsh Letters") in reading
    assert ("assert", "Under Cold Stars") in reading
    assert extracted(*said, predicate="watching") == [
        f for f in extracted(*said, predicate="watching") if f.kind == "end"
    ]


@pytest.mark.parametrize("text", ["I'm on nights this week.", "I'm onto it now."])
def test_being_on_something_is_no_book(text: str) -> None:
    assert extracted(text, predicate="reading") == []


def test_a_vehicle_that_replaced_the_old_one_is_driven() -> None:
    driven = extracted(
        "We drive a red Toyota Hilux.",
        "The Hilux finally died in May. We replaced it with a grey Skoda Octavia.",
        predicate="drives",
    )
    assert [f.object for f in driven] == ["Toyota Hilux", "Skoda Octavia"]
    assert extracted("We replaced it with a new kettle.", predicate="drives") == []


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I've started at Harbour Bikes as workshop manager.", "workshop manager"),
        ("I joined Harbour Bikes as head mechanic.", "head mechanic"),
    ],
)
def test_a_post_taken_after_the_employer_without_an_article(text: str, title: str) -> None:
    assert [f.object for f in extracted(text, predicate="job_title")] == [title]
    assert extracted("I started at Harbour Bikes as well.", predicate="job_title") == []
