"""BM25 updated in place of a refit: scores equal rank-bm25's BM25Okapi, and every way of reaching
the same documents (at once, appended in steps, documents replaced or removed) scores identically."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from emem.index.bm25 import EMPTY, BM25Index
from emem.index.text import tokenize

WORDS = "moving city dog pixel harbour trail sister oslo greyhound piano camping paint book lake".split()


def corpus(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 12))]
        docs.append((f"d{i}", " ".join(words)))
    return docs


QUERIES = [
    "moving city",
    "pixel the greyhound",
    "sister in oslo oslo",
    "nothing matches",
    "lake camping paint",
]


@pytest.mark.parametrize("seed", range(5))
def test_scores_equal_rank_bm25(seed: int) -> None:
    docs = corpus(seed, 40)
    ours = BM25Index()
    ours.add(docs)
    theirs = BM25Okapi([tokenize(t) or [EMPTY] for _, t in docs])
    for q in QUERIES:
        expected = theirs.get_scores(tokenize(q)) if tokenize(q) else np.zeros(len(docs))
        assert np.allclose(ours.scores(q), expected, rtol=1e-12, atol=1e-12)


def test_locomo_turn_rankings_equal_rank_bm25() -> None:
    data = Path("/work/shared/data/locomo10.json")
    if not data.exists():
        pytest.skip("LoCoMo data not on this machine")
    sample = json.loads(data.read_text())[0]
    texts = [
        f"{t['speaker']}: {t['text']}"
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ]
    ours = BM25Index()
    ours.add([(str(i), t) for i, t in enumerate(texts)])
    theirs = BM25Okapi([tokenize(t) or [EMPTY] for t in texts])
    for qa in sample["qa"][:60]:
        terms = tokenize(qa["question"])
        expected = theirs.get_scores(terms) if terms else np.zeros(len(texts))
        got = ours.scores(qa["question"])
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12)
        top = [int(k) for k, _ in ours.search(qa["question"], 10)]
        want = [int(i) for i in np.lexsort((np.arange(len(expected)), -expected)) if expected[i] > 0][:10]
        assert top == want


def test_appending_in_steps_is_identical_to_at_once() -> None:
    docs = corpus(7, 60)
    once, steps = BM25Index(), BM25Index()
    once.add(docs)
    for i in range(0, 60, 7):
        steps.add(docs[i : i + 7])
    for q in QUERIES:
        assert np.array_equal(once.scores(q), steps.scores(q))
        assert once.search(q, 10) == steps.search(q, 10)


def test_updated_equals_a_fresh_build_and_leaves_the_old_index_alone() -> None:
    docs = corpus(11, 30)
    tokens = {k: tokenize(t) for k, t in docs}
    old = BM25Index.from_tokens(list(tokens), list(tokens.values()))
    before = {q: old.scores(q) for q in QUERIES}
    # Replace two documents, remove three, insert two new ones in the middle.
    new_tokens = dict(tokens)
    new_tokens["d3"] = tokenize("pixel pixel harbour oslo")
    new_tokens["d20"] = []
    for k in ("d5", "d6", "d29"):
        del new_tokens[k]
    keys = [k for k in new_tokens]
    keys[10:10] = ["n1", "n2"]
    new_tokens["n1"], new_tokens["n2"] = tokenize("moving to the lake city"), tokenize("sister sister")
    changed = {k: new_tokens[k] for k in ("d3", "d20", "n1", "n2")}
    carried = old.updated(keys, changed)
    fresh = BM25Index.from_tokens(keys, [new_tokens[k] for k in keys])
    assert carried.keys == fresh.keys == keys
    for q in QUERIES:
        assert np.array_equal(carried.scores(q), fresh.scores(q))
        assert carried.search(q, 30) == fresh.search(q, 30)
        assert np.array_equal(old.scores(q), before[q])  # the old snapshot is unchanged
    again = carried.updated(keys, {"d3": tokens["d3"]})  # and back: equal to a fresh build again
    refit = BM25Index.from_tokens(keys, [tokens["d3"] if k == "d3" else new_tokens[k] for k in keys])
    for q in QUERIES:
        assert np.array_equal(again.scores(q), refit.scores(q))


def test_add_refuses_a_key_it_holds() -> None:
    index = BM25Index()
    index.add([("a", "pixel")])
    with pytest.raises(ValueError):
        index.add([("a", "harbour")])
    assert index.keys == ["a"]
