"""Forget requests read by their parts (`emem.extract.forget_grammar`): a directive, a verb of
erasing or a refused verb of keeping, and what is named or pointed at; the topic of a request
that only points comes from the sentence or the statement before it. Sentences written for these
tests; the same shapes that ask nothing of the memory file nothing."""

from __future__ import annotations

import pytest
from said import extracted

from emem.extract.forget_grammar import find_request, fragment_topic, things_in


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        # a request in a clause after "so", naming what it erases
        ("My cousin found the spreadsheet, so get rid of the login I sent you on Monday.", "login"),
        ("We sold the van, so bin the old alarm code.", "alarm code"),
        # what was told about a thing, by the thing
        ("Erase everything I told you about that tribunal, please.", "tribunal"),
        # "from my mum" belongs to what was told, it is not where something is taken from
        ("And please delete what I told you about the gift from my mum.", "gift from my mum"),
        # an ambiguous verb with an object that is information
        ("And drop the name of my solicitor, please.", "solicitor"),
        # a wish that it were gone or never kept, pointing at the phrase before it
        ("The Aviva claim is settled now, and I'd like it gone from your memory.", "Aviva claim"),
        ("About the inhaler I mentioned in June: I'd rather there was no record of it.", "inhaler"),
        ("The scan and all the waiting after it - I'd rather that wasn't stored.", "scan"),
        # a statement, then a request in the same sentence that only points
        (
            "I stopped the evening shifts at the chip shop, so please forget I ever told you about it.",
            "chip shop",
        ),
        # a phrase named before a request, with what says it was told
        (
            "Marek's debts, what I told you in May, I'd rather you didn't hold on to any of it.",
            "Marek's debts",
        ),
        ("And Dr Okafor, the surgeon: pretend I never told you his name.", "Okafor"),
    ],
)
def test_a_request_read_by_its_parts_files_its_topic(said: str, topic: str) -> None:
    topics = [f.object for f in extracted(said, predicate="forget_request")]
    assert any(topic in t for t in topics), topics


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        # a verbless sentence names what the next one points at
        ("The egg freezing. I'd rather you removed anything I told you about it.", "egg freezing"),
        # a statement that points at a thing ("that ... code") names what "clear it out" means
        (
            "We moved out of the flat, so that door code is useless. Clear it out of your memory, would you?",
            "door code",
        ),
    ],
)
def test_a_request_that_points_back_takes_the_sentence_before(said: str, topic: str) -> None:
    topics = [f.object for f in extracted(said, predicate="forget_request")]
    assert any(topic in t for t in topics), topics


@pytest.mark.parametrize(
    "said",
    [
        "I deleted the app, it kept crashing.",
        "I won't keep you long.",
        "Could you drop me at the station on Friday?",
        "Clear the table before the guests arrive.",
        "Forget about the picnic, we're staying in.",
        "Please don't carry them both at once.",
        "Forget it, I'll ask my brother.",
        "Delete him from your phone, Maya, honestly.",
        "Done, I've forgotten the number.",
        "My dad always forgets my birthday.",
    ],
)
def test_the_same_shapes_that_ask_nothing_of_the_memory_file_nothing(said: str) -> None:
    assert extracted(said, predicate="forget_request") == []


def test_the_parts_of_a_request() -> None:
    found = find_request("The Aviva claim is settled now, and I'd like it gone from your memory.")
    assert found is not None
    assert found.obj == ""  # it only points
    assert found.front == "The Aviva claim"
    told = find_request("Remove everything I told you about that tribunal, please.")
    assert told is not None and told.told and told.obj == "that tribunal"


def test_a_fragment_names_a_thing_and_a_statement_does_not() -> None:
    assert fragment_topic("The egg freezing.") == "The egg freezing"
    assert fragment_topic("And the thing from 2020, the fine.") == "the thing from 2020, the fine"
    assert fragment_topic("The claim is settled.") is None


def test_the_thing_a_statement_names_first() -> None:
    assert things_in("I stopped the evening shifts at the chip shop when I moved")[0] == (
        "the evening shifts at the chip shop"
    )


def test_old_picks_the_value_and_the_topic_is_the_thing() -> None:
    # "old" is not said where the code was told: the topic must be the code alone
    topics = [
        f.object
        for f in extracted(
            "They changed the locks on the shed, so scrub the old code I gave you.",
            predicate="forget_request",
        )
    ]
    assert topics == ["code"]
