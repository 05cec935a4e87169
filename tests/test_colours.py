"""Colours (session 31): an animal's coat is its colour ("Radish is the tabby"), and every colour
word is read as said (the index's stemmer once turned "orange" into "orang", so it never matched)."""

from __future__ import annotations

from emem.agents.spans import AnswerType, typed_span


def test_a_coat_answers_what_colour_an_animal_is() -> None:
    assert typed_span(AnswerType.COLOUR, "Radish is the tabby, Spud's the tuxedo.", None, set()) == "tabby"
    assert typed_span(AnswerType.COLOUR, "Marlena is the brindle, she's four.", None, set()) == "brindle"


def test_every_colour_word_is_read() -> None:
    for colour in ("orange", "purple", "beige", "navy", "turquoise"):
        assert (
            typed_span(AnswerType.COLOUR, f"We painted the door {colour} last week.", None, set()) == colour
        )
    assert typed_span(AnswerType.COLOUR, "We painted the door last week.", None, set()) is None
