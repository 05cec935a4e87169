"""Typed matching: the kind of entity a question asks for ("which cities", "what books",
"where", "who") and, per namespace, which turns name an entity of that kind (an index by entity
type, built off the write path from spaCy's named entities, emem.retrieval.ner).

Why: type questions share no word with their evidence ("Which cities has he visited?" /
"Chicago"), so neither BM25 nor the small embedder ranks it; naming an entity of the asked type
is a signal of its own, one feature of the deep path's calibrated turn scorer.

Measured (README, read path): WordNet 3.0's noun classes as the type source added nothing out of
sample; spaCy's entity types add about one point on multi-hop questions.

Tagging every turn of a namespace costs spaCy about 20 ms a turn on this project's machine, so a
process that asks its first typed question would pay seconds (minutes at ten LoCoMo
conversations). The read runtime therefore persists each turn's labels in the home's text-vector
cache (`LabelEncoder`, `Tag`): a later process reads them back instead of tagging again, and
erasure drops them with the namespace's other cached rows.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from emem.retrieval.ner import EntityTagger, bundled_ner
from emem.retrieval.view import NamespaceView

LABELS: tuple[str, ...] = (
    "PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART",
    "LAW", "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL",
)  # fmt: skip
"""OntoNotes' 18 entity labels, the ones spaCy's English pipelines emit, in a fixed order: the
columns of a persisted label row."""

Tag = Callable[[NamespaceView, Sequence[str]], list[frozenset[str]]]
"""Labels of texts of one view, `(view, texts) -> one label set per text`: the read runtime's
persisted tagger (emem.read.context.ReadRuntime.tag_entities)."""

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


class LabelEncoder:
    """The tagger seen as an `emem.embedding.Embedder` whose rows are 0/1 indicators over
    `LABELS` (not unit vectors), so the home's text-vector cache (emem.index.vector_cache) stores
    labels as it stores summary vectors: by namespace, model name and text hash. The name carries
    the pipeline's name and version, so labels of two pipelines never mix."""

    def __init__(self, tagger: EntityTagger, pipeline: str) -> None:
        """Args:
        tagger: the entity tagger.
        pipeline: the pipeline's name and version (part of the cache key)."""
        self.tagger = tagger
        self.name = f"ner-labels:{pipeline}"
        self.dim = len(LABELS)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Label rows of `texts`.

        Args:
            texts: the texts to tag.
        Returns:
            An (n, len(LABELS)) float32 array of 0/1.
        """
        return encode_labels(self.tagger.labels(texts))


def encode_labels(found: Sequence[frozenset[str]]) -> np.ndarray:
    """Label sets as 0/1 rows over `LABELS` (labels outside it are dropped: no question asks for them).

    Args:
        found: one label set per text.
    Returns:
        An (n, len(LABELS)) float32 array.
    """
    rows = np.zeros((len(found), len(LABELS)), dtype=np.float32)
    for i, labels in enumerate(found):
        for label in labels:
            if label in _COLUMN:
                rows[i, _COLUMN[label]] = 1.0
    return rows


def decode_labels(rows: np.ndarray) -> list[frozenset[str]]:
    """The inverse of `encode_labels`.

    Args:
        rows: an (n, len(LABELS)) array of 0/1.
    Returns:
        One label set per row.
    """
    return [frozenset(LABELS[j] for j in np.flatnonzero(row > 0.5)) for row in rows]


_COLUMN = {label: j for j, label in enumerate(LABELS)}


def _key(text: str) -> str:
    """Memo key: the text's hash, so the process keeps no erased text as a key."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class TypeIndex:
    """Per namespace: the entity labels of each turn's text, tagged once (turns are immutable: a
    view built after writes tags only its new turns). Keyed by the text's hash, which is all the
    labels depend on, so two homes holding a namespace of the same name cannot mix. Bounded;
    thread-safe. Texts it has not seen go to `tag` when one is given (the read runtime's
    persisted tagger), else straight to the tagger."""

    def __init__(self, tagger: EntityTagger, namespaces: int = 16) -> None:
        self._tagger = tagger
        self._labels: OrderedDict[str, dict[str, frozenset[str]]] = OrderedDict()
        self._lock = threading.Lock()
        self._namespaces = namespaces

    @property
    def tagger(self) -> EntityTagger:
        return self._tagger

    def _labels_of(self, view: NamespaceView, tag: Tag | None) -> list[frozenset[str]]:
        keys = [_key(t.text) for t in view.turns]
        with self._lock:
            known = self._labels.setdefault(view.namespace, {})
            self._labels.move_to_end(view.namespace)
            while len(self._labels) > self._namespaces:
                self._labels.popitem(last=False)
            new = {k: t.text for k, t in zip(keys, view.turns, strict=True) if k not in known}
        if new:
            texts = list(new.values())
            tagged = tag(view, texts) if tag is not None else self._tagger.labels(texts)
            with self._lock:
                known.update(zip(new, tagged, strict=True))
        return [known[k] for k in keys]

    def matches(self, view: NamespaceView, labels: frozenset[str], tag: Tag | None = None) -> np.ndarray:
        """A 0/1 array over the view's rows: 1 where the turn names an entity of any label.

        Args:
            view: the namespace view.
            labels: entity labels (asked_labels' answer).
            tag: tags texts this index has not seen (None: the tagger itself).
        Returns:
            Float array aligned with the view's rows.
        """
        if not labels:
            return np.zeros(len(view.turns))
        return np.array([bool(found & labels) for found in self._labels_of(view, tag)], dtype=float)

    def forget(self, namespace: str) -> None:
        """Drop a namespace's labels (after an erasure).

        Args:
            namespace: the namespace.
        """
        with self._lock:
            self._labels.pop(namespace, None)


_INDEX: list[TypeIndex] = []
_INDEX_LOCK = threading.Lock()


def shared_index() -> TypeIndex | None:
    """One TypeIndex per process over the installed pipeline (None when it is not installed)."""
    with _INDEX_LOCK:
        if not _INDEX:
            tagger = bundled_ner()
            if tagger is None:
                return None
            _INDEX.append(TypeIndex(tagger))
        return _INDEX[0]


def label_encoder() -> LabelEncoder | None:
    """The process's tagger as a `LabelEncoder` (None when no pipeline is installed), for the read
    runtime to persist labels through the home's text-vector cache."""
    index = shared_index()
    return LabelEncoder(index.tagger, index.tagger.pipeline) if index is not None else None


def forget_labels(namespace: str) -> None:
    """Drop a namespace's labels from the process's index, if one is loaded (never loads spaCy).

    Args:
        namespace: the namespace erased.
    """
    with _INDEX_LOCK:
        loaded = _INDEX[0] if _INDEX else None
    if loaded is not None:
        loaded.forget(namespace)


def typed_signal(view: NamespaceView, question: str, alive: np.ndarray, tag: Tag | None = None) -> np.ndarray:
    """Per row of the view: the asked type's inverse document frequency over the usable turns,
    log(n / matching) / log(n), where the turn names an entity of that type, else 0; all zeros
    when the question asks for no type or no pipeline is installed. A type most turns hold thus
    counts for little, a rare one for much.

    Args:
        view: the namespace view.
        question: the question as asked.
        alive: usable rows (as_of, filter).
        tag: the read runtime's persisted tagger (None: tag in this process only).
    Returns:
        Float array aligned with the view's rows.
    """
    labels = asked_labels(question)
    index = shared_index() if labels else None
    if index is None:
        return np.zeros(len(view.turns))
    match = index.matches(view, labels, tag) * alive
    if not match.any():
        return match
    n = max(int(alive.sum()), 2)
    return match * (np.log(n / float(match.sum())) / np.log(n))
