"""An in-memory BM25 index (rank-bm25) that can be caught up with new documents.

rank-bm25 has no incremental add, so catching up re-fits the model over the cached token lists;
fitting is linear in the corpus and cheap at conversation scale. Building from the same documents
in the same order always gives the same index, whether built at once or in steps.
"""

from __future__ import annotations

import numpy as np
from rank_bm25 import BM25Okapi

from emem.index.text import tokenize


class BM25Index:
    def __init__(self) -> None:
        self.keys: list[str] = []
        self._tokens: list[list[str]] = []
        self._model: BM25Okapi | None = None
        self.covered_seq = 0

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, items: list[tuple[str, str]], covered_seq: int | None = None) -> None:
        """Add (key, text) documents; keys must be unique."""
        for key, text in items:
            self.keys.append(key)
            self._tokens.append(tokenize(text) or ["\x00empty"])
        self._model = BM25Okapi(self._tokens) if self._tokens else None
        if covered_seq is not None:
            self.covered_seq = covered_seq

    @classmethod
    def from_tokens(cls, keys: list[str], tokens: list[list[str]], covered_seq: int = 0) -> BM25Index:
        """An index over documents already tokenised (with `tokenize`): lets a caller that keeps
        token lists (a read view's segments) refit without tokenising unchanged documents again."""
        index = cls()
        index.keys = list(keys)
        index._tokens = [t or ["\x00empty"] for t in tokens]
        index._model = BM25Okapi(index._tokens) if index._tokens else None
        index.covered_seq = covered_seq
        return index

    def scores(self, query: str) -> np.ndarray:
        terms = tokenize(query)
        if self._model is None or not terms:
            return np.zeros(len(self.keys))
        return np.asarray(self._model.get_scores(terms), dtype=np.float64)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top-k (key, score) with positive score, ties broken by insertion order."""
        scores = self.scores(query)
        if not len(scores):
            return []
        order = np.lexsort((np.arange(len(scores)), -scores))[:k]
        return [(self.keys[i], float(scores[i])) for i in order if scores[i] > 0]
