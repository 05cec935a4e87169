"""Typed matching: the class a question asks for ("which cities", "what kind of pets", "where")
and, per namespace, which turns name a member of a class (an index by type, built once per view
off the write path from WordNet's noun hierarchy, emem.retrieval.lexicon).

Why: type questions share no word with their evidence ("What exercises has John done?" / yoga),
so neither BM25 nor the small embedder ranks it; membership in the asked class is a signal of its
own, one feature of the deep path's calibrated turn scorer.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from emem.retrieval.lexicon import WordNet, bundled_wordnet
from emem.retrieval.view import NamespaceView

TYPE_SENSES = 3
"""Noun senses of the asked type that count ("instruments": device, means, document)."""

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SKIP = frozenset({"kind", "kinds", "type", "types", "sort", "sorts", "of", "other", "specific"})
_STOP = frozenset(
    "a an the his her their its my your our this that these those has have had did does do is are "
    "was were be been can could would will might should may must to in on at for from with by and "
    "or he she they it we you i".split()
)
_PLACE = "location"
"""The class "where" asks for."""


def asked_type(question: str, wordnet: WordNet) -> tuple[int, ...]:
    """The WordNet classes a question asks members of, or () when it asks for no type.

    "What/Which [kind of] <noun phrase> ..." asks for the phrase's head noun (a two-word compound
    first: "musical instruments"); "Where ..." asks for a location.

    Args:
        question: the question as asked.
        wordnet: the noun hierarchy.
    Returns:
        Synset offsets of the asked class's most frequent senses.
    """
    words = [w.lower() for w in _WORD.findall(question)]
    if not words:
        return ()
    if words[0] == "where":
        return wordnet.senses(_PLACE, 1)
    if words[0] not in ("what", "which"):
        return ()
    phrase: list[str] = []
    for w in words[1:]:
        if not phrase and w in _SKIP:
            continue
        if w in _STOP or not wordnet.is_noun(w) or len(phrase) == 3:
            break
        phrase.append(w)
    if not phrase:
        return ()
    if len(phrase) >= 2:
        compound = wordnet.senses("_".join(phrase[-2:]), TYPE_SENSES)
        if compound:
            return compound
    return wordnet.senses(phrase[-1], TYPE_SENSES)


def _candidates(text: str) -> list[str]:
    """A turn's words and adjacent pairs ("new_york", "hot_dog"), lower-cased."""
    words = [w.lower() for w in _WORD.findall(text)]
    return words + [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)]


class TypeIndex:
    """Per view: which rows (turns) name a member of each WordNet class. Built on first use and
    kept per view (a new view, after writes, builds its own); thread-safe."""

    def __init__(self, wordnet: WordNet) -> None:
        self._wordnet = wordnet
        self._views: dict[int, tuple[NamespaceView, dict[int, np.ndarray]]] = {}
        self._lock = threading.Lock()

    @property
    def wordnet(self) -> WordNet:
        return self._wordnet

    def _build(self, view: NamespaceView) -> dict[int, np.ndarray]:
        rows: defaultdict[int, set[int]] = defaultdict(set)
        classes: dict[str, frozenset[int]] = {}
        for row, t in enumerate(view.turns):
            for w in _candidates(t.text):
                if w in _STOP:
                    continue
                c = classes.get(w)
                if c is None:
                    c = classes[w] = self._wordnet.classes(w)
                for cls in c:
                    rows[cls].add(row)
        return {cls: np.fromiter(sorted(r), dtype=int) for cls, r in rows.items()}

    def matches(self, view: NamespaceView, classes: Sequence[int]) -> np.ndarray:
        """A 0/1 array over the view's rows: 1 where the turn names a member of any class.

        Args:
            view: the namespace view.
            classes: WordNet classes (asked_type's answer).
        Returns:
            Float array aligned with the view's rows.
        """
        out = np.zeros(len(view.turns))
        if not classes:
            return out
        with self._lock:
            hit = self._views.get(id(view))
            if hit is None or hit[0] is not view:
                hit = (view, self._build(view))
                if len(self._views) > 16:
                    self._views.clear()
                self._views[id(view)] = hit
        for cls in classes:
            idx = hit[1].get(cls)
            if idx is not None:
                out[idx] = 1.0
        return out


_INDEX: list[TypeIndex] = []
_INDEX_LOCK = threading.Lock()


def _shared_index() -> TypeIndex | None:
    """One TypeIndex per process over the bundled WordNet (None when it is not installed)."""
    with _INDEX_LOCK:
        if not _INDEX:
            wordnet = bundled_wordnet()
            if wordnet is None:
                return None
            _INDEX.append(TypeIndex(wordnet))
        return _INDEX[0]


def typed_signal(view: NamespaceView, question: str, alive: np.ndarray) -> np.ndarray:
    """Per row of the view: the asked class's inverse document frequency over the usable turns,
    log(n / matching) / log(n), where the turn names a member of the class, else 0; all zeros when
    the question asks for no type or WordNet is not installed. A broad class ("where": any
    location) thus counts for little, a narrow one ("which cities") for much.

    Args:
        view: the namespace view.
        question: the question as asked.
        alive: usable rows (as_of, filter).
    Returns:
        Float array aligned with the view's rows.
    """
    index = _shared_index()
    if index is None:
        return np.zeros(len(view.turns))
    classes = asked_type(question, index.wordnet)
    match = index.matches(view, classes) * alive
    if not match.any():
        return match
    n = max(int(alive.sum()), 2)
    return match * (np.log(n / float(match.sum())) / np.log(n))
