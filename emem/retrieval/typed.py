"""Typed matching: the kind of entity a question asks for ("which cities", "what books",
"where", "who") and, per namespace, which turns name an entity of that kind (an index by entity
type, built off the write path from spaCy's named entities, emem.retrieval.ner).

Why: type questions share no word with their evidence ("Which cities has he visited?" /
"Chicago"), so neither BM25 nor the small embedder ranks it; naming an entity of the asked type
is a signal of its own, one feature of the deep path's calibrated turn scorer.

Measured (README, read path): WordNet 3.0's noun classes as the type source added nothing out of
sample; spaCy's entity types add about one point on multi-hop questions.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

import numpy as np

from emem.retrieval.ner import EntityTagger, bundled_ner
from emem.retrieval.view import NamespaceView

PLACES = frozenset({"GPE", "LOC", "FAC"})
_HEAD = r"^(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?:\w+\s+)?"
SHAPES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"^where\b"), PLACES),
    (re.compile(_HEAD + r"(?:cit(?:y|ies)|countr(?:y|ies)|states?|places?|locations?|towns?)\b"), PLACES),
    (re.compile(_HEAD + r"(?:books?|novels?|songs?|albums?|movies?|films?|shows?|series|paintings?)\b"), frozenset({"WORK_OF_ART"})),
    (re.compile(_HEAD + r"(?:events?|festivals?|concerts?|competitions?|tournaments?)\b"), frozenset({"EVENT"})),
    (re.compile(_HEAD + r"(?:compan(?:y|ies)|organi[sz]ations?|bands?|teams?|charit(?:y|ies)|brands?)\b"), frozenset({"ORG"})),
    (re.compile(r"^who\b"), frozenset({"PERSON"})),
)  # fmt: skip
"""Question shapes and the entity types (OntoNotes labels, as spaCy's English pipelines use)
that answer them: the wording of English questions, not of any data set."""


def asked_labels(question: str) -> frozenset[str]:
    """The entity types a question asks for, or an empty set when it asks for none.

    Args:
        question: the question as asked.
    Returns:
        OntoNotes entity labels.
    """
    q = " ".join(question.lower().split())
    return next((labels for pattern, labels in SHAPES if pattern.search(q)), frozenset())


class TypeIndex:
    """Per namespace: the entity labels of each turn's text, tagged once (turns are immutable: a
    view built after writes tags only its new turns). Keyed by the text, which is all the labels
    depend on, so two homes holding a namespace of the same name cannot mix. Bounded; thread-safe."""

    def __init__(self, tagger: EntityTagger, namespaces: int = 16) -> None:
        self._tagger = tagger
        self._labels: OrderedDict[str, dict[str, frozenset[str]]] = OrderedDict()
        self._lock = threading.Lock()
        self._namespaces = namespaces

    def _labels_of(self, view: NamespaceView) -> list[frozenset[str]]:
        with self._lock:
            known = self._labels.setdefault(view.namespace, {})
            self._labels.move_to_end(view.namespace)
            while len(self._labels) > self._namespaces:
                self._labels.popitem(last=False)
            new = list(dict.fromkeys(t.text for t in view.turns if t.text not in known))
        if new:
            tagged = self._tagger.labels(new)
            with self._lock:
                known.update(zip(new, tagged, strict=True))
        return [known[t.text] for t in view.turns]

    def matches(self, view: NamespaceView, labels: frozenset[str]) -> np.ndarray:
        """A 0/1 array over the view's rows: 1 where the turn names an entity of any label.

        Args:
            view: the namespace view.
            labels: entity labels (asked_labels' answer).
        Returns:
            Float array aligned with the view's rows.
        """
        if not labels:
            return np.zeros(len(view.turns))
        return np.array([bool(found & labels) for found in self._labels_of(view)], dtype=float)


_INDEX: list[TypeIndex] = []
_INDEX_LOCK = threading.Lock()


def _shared_index() -> TypeIndex | None:
    """One TypeIndex per process over the installed pipeline (None when it is not installed)."""
    with _INDEX_LOCK:
        if not _INDEX:
            tagger = bundled_ner()
            if tagger is None:
                return None
            _INDEX.append(TypeIndex(tagger))
        return _INDEX[0]


def typed_signal(view: NamespaceView, question: str, alive: np.ndarray) -> np.ndarray:
    """Per row of the view: the asked type's inverse document frequency over the usable turns,
    log(n / matching) / log(n), where the turn names an entity of that type, else 0; all zeros
    when the question asks for no type or no pipeline is installed. A type most turns hold thus
    counts for little, a rare one for much.

    Args:
        view: the namespace view.
        question: the question as asked.
        alive: usable rows (as_of, filter).
    Returns:
        Float array aligned with the view's rows.
    """
    labels = asked_labels(question)
    index = _shared_index() if labels else None
    if index is None:
        return np.zeros(len(view.turns))
    match = index.matches(view, labels) * alive
    if not match.any():
        return match
    n = max(int(alive.sum()), 2)
    return match * (np.log(n / float(match.sum())) / np.log(n))
