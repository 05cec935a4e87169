"""Typed matching: the entity type a question asks for, and which turns name one (spaCy's real
English pipeline, installed by the `ner` extra that `dev` includes)."""

from __future__ import annotations

import numpy as np
import pytest

from emem.cli.demo import example_conversation
from emem.index.vector_cache import VectorCache, text_hash
from emem.memory import Memory
from emem.retrieval.ner import EntityTagger, bundled_ner
from emem.retrieval.typed import (
    LABELS,
    PLACES,
    LabelEncoder,
    TypeIndex,
    asked_labels,
    decode_labels,
    encode_labels,
    label_encoder,
    typed_signal,
)


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


def test_labels_persist_in_the_home_and_go_with_an_erasure(tmp_path) -> None:
    """The first typed question stores every turn's labels in the home's text-vector cache, so
    another process reads them back instead of running spaCy; forgetting a turn drops them."""
    tagger = bundled_ner()
    assert tagger is not None
    # A namespace no other test tags: the process's index would otherwise know its texts already.
    with Memory(tmp_path / "h") as m:
        m.add_conversation(example_conversation(), namespace="typed-home")
        answer = m.ask("Which cities has Ben visited?", namespace="typed-home", mode="deep")
        assert answer.status == "answered"
        texts = [t.text for t in m.read_runtime.view("typed-home").turns]
        cache = VectorCache(m.backend.text_vectors)
        counting = CountingTagger(tagger)
        encoder = LabelEncoder(counting, tagger.pipeline)
        stored = decode_labels(cache.embed("typed-home", encoder, texts))
        assert counting.tagged == 0, "every turn's labels were read back from the home"
        assert stored == tagger.labels(texts)
        assert any("GPE" in labels for labels in stored)

        denver = next(t for t in m.read_runtime.view("typed-home").turns if "Denver" in t.text)
        m.forget(namespace="typed-home", turn_ids=[denver.turn_id], conversation_id=denver.conversation_id)
        hashes = [text_hash(t) for t in texts]
        assert not m.backend.text_vectors.get("typed-home", encoder.name, hashes), "erasure drops the labels"


def test_label_rows_round_trip() -> None:
    found = [frozenset({"GPE", "PERSON"}), frozenset(), frozenset({"WORK_OF_ART", "NOT_A_LABEL"})]
    rows = encode_labels(found)
    assert rows.shape == (3, len(LABELS))
    assert decode_labels(rows) == [found[0], frozenset(), frozenset({"WORK_OF_ART"})]


def test_labels_of_a_view_read_before_an_erasure_are_not_stored(tmp_path) -> None:
    """A view read before a `forget` may hold erased turns: labels tagged from it are returned
    but not stored in the home (as summary vectors of such a view are not)."""
    with Memory(tmp_path / "h") as m:
        m.add_conversation(example_conversation(), namespace="typed-erased")
        view = m.read_runtime.view("typed-erased")
        texts = [t.text for t in view.turns]
        first = view.turns[0]
        m.forget(namespace="typed-erased", turn_ids=[first.turn_id], conversation_id=first.conversation_id)
        labels = m.read_runtime.tag_entities(view, texts)
        assert len(labels) == len(texts)
        encoder = label_encoder()
        assert encoder is not None
        assert not m.backend.text_vectors.get("typed-erased", encoder.name, [text_hash(t) for t in texts])


def test_benchmarks_say_whether_typed_matching_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from emem.retrieval import ner

    installed = ner.typed_matching_status()
    assert installed.startswith("typed matching: on (") == (bundled_ner() is not None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert ner.typed_matching_status().startswith("typed matching: off")
