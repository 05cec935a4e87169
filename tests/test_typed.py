"""Typed matching: the entity type a question asks for, and which turns name one (spaCy's real
English pipeline, installed by the `ner` extra that `dev` includes)."""

from __future__ import annotations

import numpy as np
import pytest

from emem.cli.demo import example_conversation
from emem.memory import Memory
from emem.retrieval.ner import EntityTagger, bundled_ner
from emem.retrieval.typed import PLACES, TypeIndex, asked_labels, typed_signal


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("Which cities has Ben visited?", PLACES),
        ("What European countries did she visit?", PLACES),
        ("Where does Alice live?", PLACES),
        ("What kind of books does Caroline have?", {"WORK_OF_ART"}),
        ("Who is Max?", {"PERSON"}),
        ("What did Alice take up?", set()),
        ("When did Ben go to Japan?", set()),
    ],
)
def test_asked_labels_follow_the_question_shape(question: str, labels: set[str]) -> None:
    assert asked_labels(question) == labels


class CountingTagger(EntityTagger):
    """The real pipeline, counting how many texts it was asked to tag."""

    def __init__(self, inner: EntityTagger) -> None:
        self.inner, self.tagged = inner, 0

    def labels(self, texts):  # type: ignore[no-untyped-def]
        self.tagged += len(texts)
        return self.inner.labels(texts)


def test_places_are_typed_and_each_turn_is_tagged_once(tmp_path) -> None:
    tagger = bundled_ner()
    assert tagger is not None, "the ner extra (spaCy + en_core_web_sm) is part of dev"
    counting = CountingTagger(tagger)
    index = TypeIndex(counting)
    with Memory(tmp_path / "h") as m:
        m.add_conversation(example_conversation(), namespace="ns")
        view = m.read_runtime.view("ns")
        match = index.matches(view, PLACES)
        named = [t.text for t, hit in zip(view.turns, match, strict=True) if hit]
        assert any("Denver" in t for t in named) and any("Kyoto" in t for t in named)
        assert not any(t.startswith("Congratulations") for t in named)
        assert counting.tagged == len(view.turns)
        index.matches(view, PLACES)
        assert counting.tagged == len(view.turns)  # cached per turn
        m.add_turns(
            [
                {
                    "conversation_id": "demo-alice-ben",
                    "session_id": "S9",
                    "turn_id": "S9:1",
                    "speaker": "Ben",
                    "text": "We flew to Osaka after Kyoto.",
                    "time": "2023-12-01T10:00:00+00:00",
                }
            ],
            namespace="ns",
        )
        m.index("ns")
        newer = m.read_runtime.view("ns")
        assert index.matches(newer, PLACES)[-1] == 1.0
        assert counting.tagged == len(view.turns) + 1  # only the new turn was tagged

        alive = np.ones(len(newer.turns), dtype=bool)
        signal = typed_signal(newer, "Which cities did Ben visit?", alive)
        assert 0 < signal.max() <= 1 and signal[-1] == signal.max()
        assert not typed_signal(newer, "What did Alice take up?", alive).any()
        hidden = alive.copy()
        hidden[-1] = False
        assert typed_signal(newer, "Which cities did Ben visit?", hidden)[-1] == 0
