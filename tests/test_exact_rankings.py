"""Same data, same question, same ranking: two fresh homes built from the same turns rank every
query identically (dense scoring is exact over vectors in memory, not Chroma's approximate HNSW)."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import numpy as np

from emem.memory import Memory
from emem.retrieval.exact import exact_dense, top_rows
from emem.retrieval.hybrid import hybrid_turns

WORDS = (
    "kayak harbour trail sister Oslo bakery greyhound violin garden recipe marathon novel camera "
    "painting ferry museum guitar pottery chess lantern orchard telescope festival picnic glacier"
).split()
SPEAKERS = ["Dana", "Omar"]


class HashEmbedder:
    """Deterministic bag-of-words vectors: texts sharing words are near, as with a real model."""

    name = "hash-bow-test-embedder"
    dim = 48

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                digest = hashlib.sha256(word.strip("?.,!:").encode()).digest()
                out[row, digest[0] % self.dim] += 1.0 + digest[1] / 255
        out += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def turns(n_sessions: int = 30, per_session: int = 12) -> list[dict]:
    rng = random.Random(7)
    out = []
    for s in range(n_sessions):
        for j in range(per_session):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9)))
            out.append(
                {
                    "conversation_id": "c1",
                    "session_id": f"S{s}",
                    "turn_id": f"S{s}:{j}",
                    "speaker": SPEAKERS[j % 2],
                    "text": f"I talked about the {words}.",
                    "time": f"2023-{1 + s // 28:02d}-{1 + s % 28:02d}T10:{j:02d}:00+00:00",
                }
            )
    return out


QUERIES = [
    f"What did Dana say about the {a} and the {b}?" for a, b in zip(WORDS, WORDS[3:] + WORDS[:3], strict=True)
]


def rankings(home: Path) -> tuple[list[list[tuple[str, float]]], list[list[str]], list[list[str]]]:
    with Memory(home, embedder=HashEmbedder()) as m:
        m.add_turns(turns(), namespace="ns")
        ns = m.indexes.current("ns")
        embedder = HashEmbedder()
        dense = [exact_dense(ns).search(embedder.embed([q])[0], 20) for q in QUERIES]
        search = [[h.turn_id for h in m.search(q, namespace="ns", k=10)] for q in QUERIES]
        fast = [[e.turn_id for e in m.ask(q, namespace="ns", mode="fast").evidence] for q in QUERIES[:5]]
        # The dense half is the exact top-k: checked against a brute-force sort here.
        keys, matrix = exact_dense(ns).keys, exact_dense(ns).matrix
        for q, got in zip(QUERIES, dense, strict=True):
            sims = matrix @ embedder.embed([q])[0]
            brute = sorted(range(len(keys)), key=lambda i: (-sims[i], i))[:20]
            assert [k for k, _ in got] == [keys[i] for i in brute]
        assert len(hybrid_turns(ns, QUERIES[0], 10)) == 10
    return dense, search, fast


def test_two_fresh_homes_rank_every_query_identically(tmp_path: Path) -> None:
    first = rankings(tmp_path / "a")
    second = rankings(tmp_path / "b")
    assert first[0] == second[0]  # dense keys and scores, bit for bit
    assert first[1] == second[1]  # hybrid search
    assert first[2] == second[2]  # ask fast's evidence


def test_top_rows_is_the_full_stable_sort_cut_at_k() -> None:
    """Partial sorting must keep the full sort's order, ties by row, at every k."""
    rng = np.random.default_rng(7)
    for sims in (
        rng.standard_normal(500).astype(np.float32),
        np.round(rng.standard_normal(500), 1).astype(np.float32),  # many ties
        np.zeros(20, dtype=np.float32),
        np.array([0.5, np.nan, 0.7, np.nan, 0.1], dtype=np.float32),
    ):
        for k in (0, 1, 3, 10, len(sims) - 1, len(sims), len(sims) + 5):
            full = np.lexsort((np.arange(len(sims)), -sims))[:k]
            assert np.array_equal(top_rows(sims, k), full), (k, sims[:5])
