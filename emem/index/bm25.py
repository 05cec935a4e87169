"""An in-memory BM25 index (Okapi, rank-bm25's variant and constants) that updates in O(what changed).

rank-bm25 has no incremental add: refitting it over every turn after each write cost an agent loop
tens of milliseconds at 10 LoCoMo conversations, and scoring looped over every document in Python.
This index keeps postings per term, so adding, replacing or removing a document touches only its
own terms (plus one vectorised pass over the vocabulary for the idf floor), and a query touches
only the documents holding its terms.

Scores equal rank-bm25's `BM25Okapi` (same formula, constants and idf floor; tests compare them).
Every state is an immutable snapshot: `updated` returns a new index sharing what did not change,
so a reader holding an older snapshot never sees a half-applied update. The result depends only on
the documents and their order, never on the steps that built it: the average idf behind the floor
is an exactly rounded sum (math.fsum), so building at once or in steps gives identical scores.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from emem.index.text import tokenize

K1, B, EPSILON = 1.5, 0.75, 0.25  # rank-bm25's BM25Okapi defaults
EMPTY = "\x00empty"
"""Token standing for a document with no terms (it still counts in the corpus, as before)."""


@dataclass(frozen=True)
class _State:
    """One immutable BM25 corpus. Documents live in slots; `order` maps positions to slots."""

    keys: tuple[str, ...]
    order: np.ndarray
    slot_of: Mapping[str, int]
    doc_terms: tuple[Mapping[int, int] | None, ...]
    """Per slot: term id -> frequency (None for a removed document's slot)."""
    doc_len: np.ndarray
    postings: Mapping[int, tuple[np.ndarray, np.ndarray]]
    """term id -> (slots, frequencies as float64) of the live documents holding it."""
    df: np.ndarray
    idf: np.ndarray
    total_len: int

    @property
    def size(self) -> int:
        return len(self.keys)


class _Vocabulary:
    """Term -> id, append-only and shared by every snapshot of one index lineage."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def id(self, term: str) -> int:
        tid = self.ids.get(term)
        if tid is None:
            with self._lock:
                tid = self.ids.setdefault(term, len(self.ids))
        return tid


def _idf(df: np.ndarray, n: int) -> np.ndarray:
    """rank-bm25's idf: log((N - df + 0.5) / (df + 0.5)) as a difference of logs; a negative idf
    (a term in more than half the documents) is floored at EPSILON x the mean idf of the corpus's
    terms. Terms no live document holds get 0 and are not part of the mean."""
    idf = np.zeros(len(df), dtype=np.float64)
    live = df > 0
    if n == 0 or not live.any():
        return idf
    f = df[live].astype(np.float64)
    values = np.log(n - f + 0.5) - np.log(f + 0.5)
    floor = EPSILON * (math.fsum(values.tolist()) / len(values))
    idf[live] = np.where(values < 0, floor, values)
    return idf


_EMPTY_STATE = _State(
    keys=(),
    order=np.zeros(0, dtype=np.int64),
    slot_of={},
    doc_terms=(),
    doc_len=np.zeros(0, dtype=np.float64),
    postings={},
    df=np.zeros(0, dtype=np.int64),
    idf=np.zeros(0, dtype=np.float64),
    total_len=0,
)


def _apply(
    vocab: _Vocabulary,
    old: _State,
    keys: Sequence[str],
    docs: Mapping[str, list[str]],
) -> _State:
    """The corpus `keys` (in that order): documents named in `docs` are (re)indexed from those
    tokens, other keys keep their document from `old`, and keys of `old` not in `keys` go."""
    wanted = set(keys)
    gone = [old.slot_of[k] for k in old.slot_of if k not in wanted or k in docs]
    added = [k for k in keys if k in docs]
    doc_terms = list(old.doc_terms)
    doc_len = old.doc_len
    total_len = old.total_len
    removed: dict[int, list[int]] = {}
    for slot in gone:
        for tid in doc_terms[slot] or {}:
            removed.setdefault(tid, []).append(slot)
        total_len -= int(doc_len[slot])
        doc_terms[slot] = None
    slot_of = {k: s for k, s in old.slot_of.items() if k in wanted and k not in docs}
    grown: dict[int, list[tuple[int, int]]] = {}
    new_len = []
    for k in added:
        tokens = docs[k] or [EMPTY]
        slot = len(doc_terms)
        counts = Counter(vocab.id(t) for t in tokens)
        doc_terms.append(dict(counts))
        slot_of[k] = slot
        new_len.append(len(tokens))
        total_len += len(tokens)
        for tid, tf in counts.items():
            grown.setdefault(tid, []).append((slot, tf))
    if new_len:
        doc_len = np.concatenate([doc_len, np.asarray(new_len, dtype=np.float64)])
    df = np.zeros(len(vocab.ids), dtype=np.int64)
    df[: len(old.df)] = old.df
    postings = dict(old.postings)
    for tid in removed.keys() | grown.keys():
        slots, tfs = postings.get(tid, (np.zeros(0, np.int64), np.zeros(0, np.float64)))
        if tid in removed:
            gone_slots = removed[tid]  # one slot nearly always (a document replaced): no isin
            keep = slots != gone_slots[0] if len(gone_slots) == 1 else ~np.isin(slots, gone_slots)
            slots, tfs = slots[keep], tfs[keep]
        if tid in grown:
            extra = grown[tid]
            slots = np.concatenate([slots, np.fromiter((s for s, _ in extra), np.int64, len(extra))])
            tfs = np.concatenate([tfs, np.fromiter((f for _, f in extra), np.float64, len(extra))])
        df[tid] = len(slots)
        if len(slots):
            postings[tid] = (slots, tfs)
        else:
            postings.pop(tid, None)
    n = len(keys)
    return _State(
        keys=tuple(keys),
        order=np.fromiter((slot_of[k] for k in keys), np.int64, n),
        slot_of=slot_of,
        doc_terms=tuple(doc_terms),
        doc_len=doc_len,
        postings=postings,
        df=df,
        idf=_idf(df, n),
        total_len=total_len,
    )


class BM25Index:
    """BM25 over (key, document) pairs in a fixed order; ties rank by that order."""

    def __init__(self) -> None:
        self._vocab = _Vocabulary()
        self._state = _EMPTY_STATE
        self.covered_seq = 0
        self._lock = threading.Lock()  # writers only: readers take one snapshot per call

    def __len__(self) -> int:
        return self._state.size

    @property
    def keys(self) -> list[str]:
        """Document keys in index order."""
        return list(self._state.keys)

    def add(self, items: list[tuple[str, str]], covered_seq: int | None = None) -> None:
        """Append (key, text) documents in place; keys must be new.

        Args:
            items: documents to append, tokenised with `tokenize`.
            covered_seq: the event seq the index now covers (unchanged when None).
        """
        docs = {key: tokenize(text) for key, text in items}
        with self._lock:
            old = self._state
            if len(docs) != len(items) or any(k in old.slot_of for k in docs):
                raise ValueError("BM25Index.add: keys must be unique and new")
            self._state = _apply(self._vocab, old, [*old.keys, *docs], docs)
            if covered_seq is not None:
                self.covered_seq = covered_seq

    @classmethod
    def from_tokens(cls, keys: list[str], tokens: list[list[str]], covered_seq: int = 0) -> BM25Index:
        """An index over documents already tokenised (with `tokenize`).

        Args:
            keys: unique document keys, in index order.
            tokens: each document's tokens.
            covered_seq: the event seq the index covers.
        Returns:
            The new index.
        """
        index = cls()
        docs = dict(zip(keys, tokens, strict=True))
        if len(docs) != len(keys):
            raise ValueError("BM25Index.from_tokens: keys must be unique")
        index._state = _apply(index._vocab, _EMPTY_STATE, keys, docs)
        index.covered_seq = covered_seq
        return index

    def updated(self, keys: list[str], changed: Mapping[str, list[str]]) -> BM25Index:
        """A new index over `keys`, sharing what did not change with this one (which is untouched).

        Args:
            keys: every document key of the new index, in index order (unique).
            changed: tokens of the documents that are new or whose text changed; every other key
                must be in this index and keeps its document.
        Returns:
            An index equal to `from_tokens` over the same documents, built in O(changed).
        """
        old = self._state
        if len(set(keys)) != len(keys) or any(k not in changed and k not in old.slot_of for k in keys):
            raise ValueError("BM25Index.updated: keys must be unique, and unknown keys need tokens")
        index = BM25Index()
        index._vocab = self._vocab
        index._state = _apply(self._vocab, old, keys, changed)
        index.covered_seq = self.covered_seq
        return index

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for `query`, in index order (rank-bm25's `get_scores`)."""
        return self._scores(self._state, tokenize(query))

    def _scores(self, state: _State, terms: list[str]) -> np.ndarray:
        n_slots = len(state.doc_terms)
        if not state.size or not terms:
            return np.zeros(state.size)
        by_slot = np.zeros(n_slots)
        avgdl = state.total_len / state.size
        ids = self._vocab.ids
        for term in terms:  # repeated query terms count again, as in rank-bm25
            tid = ids.get(term)
            hit = state.postings.get(tid) if tid is not None and tid < len(state.idf) else None
            if hit is None:
                continue
            slots, tf = hit
            dl = state.doc_len[slots]
            by_slot[slots] += state.idf[tid] * (tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl)))
        return by_slot[state.order]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top-k (key, score) with positive score, ties broken by index order."""
        state = self._state
        scores = self._scores(state, tokenize(query))
        positive = np.flatnonzero(scores > 0)
        order = positive[np.lexsort((positive, -scores[positive]))][:k]
        return [(state.keys[i], float(scores[i])) for i in order]
