"""Dense vectors of one namespace's turns, for one embedder: embeds texts and keeps the vectors in
the backend's `VectorIndex` (one collection per namespace, kind and embedder).

The vector index holds only keys and vectors, never turn text: the episode store is the one place
content lives, which keeps erasure and tenant isolation simple to prove.
"""

from __future__ import annotations

import numpy as np

from emem.embedding import Embedder
from emem.index.chroma import ChromaHandle, open_chroma, zero_unused_slots
from emem.storage.contract import VectorIndex

__all__ = ["ChromaHandle", "DenseIndex", "fetch_vectors", "open_chroma", "zero_unused_slots"]
"""The Chroma names are re-exported from emem.index.chroma, where they moved."""

RECENT_VECTORS = 1024


class DenseIndex:
    """A namespace's collection of one kind ("turns") for one embedder."""

    def __init__(self, vectors: VectorIndex, namespace: str, kind: str, embedder: Embedder) -> None:
        self.vectors = vectors
        self.namespace = namespace
        self.kind = kind
        self.embedder = embedder
        self.recent: dict[str, np.ndarray] = {}
        """Vectors this object stored last (at most RECENT_VECTORS): a read right after a write
        takes them from here instead of asking the store for what it just wrote."""

    @property
    def model(self) -> str:
        return self.embedder.name

    def exists(self) -> bool:
        """Whether the collection has been created."""
        return self.vectors.exists(self.namespace, self.kind, self.model)

    def keys(self) -> set[str]:
        """Every key the collection holds (empty when it does not exist)."""
        return self.vectors.keys(self.namespace, self.kind, self.model)

    def count(self) -> int:
        return self.vectors.count(self.namespace, self.kind, self.model)

    def upsert(self, keys: list[str], texts: list[str], batch: int = 256) -> None:
        """Embed and store, `batch` texts at a time; upsert makes a replay after a crash harmless."""
        for start in range(0, len(keys), batch):
            ks, ts = keys[start : start + batch], texts[start : start + batch]
            self.vectors.upsert(self.namespace, self.kind, self.model, ks, self.embedder.embed(ts))
            # Read back (a store may return vectors that differ from those given in the last bit,
            # and a later reader gets the stored ones).
            self._remember(self.vectors.get(self.namespace, self.kind, self.model, ks))

    def _remember(self, stored: dict[str, np.ndarray]) -> None:
        recent = dict(self.recent)  # replaced, never mutated: readers iterate without the lock
        recent.update((k, np.asarray(v, dtype=np.float32)) for k, v in stored.items())
        while len(recent) > RECENT_VECTORS:
            del recent[next(iter(recent))]
        self.recent = recent

    def delete(self, keys: list[str]) -> None:
        if keys:
            gone = set(keys)
            self.recent = {k: v for k, v in self.recent.items() if k not in gone}
            self.vectors.delete(self.namespace, self.kind, self.model, keys)

    def search_vector(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        return self.vectors.query(self.namespace, self.kind, self.model, vector, k)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        return self.search_vector(self.embedder.embed([query])[0], k)


def fetch_vectors(index: DenseIndex, keys: list[str]) -> np.ndarray:
    """Read stored vectors back in `keys` order (for segment centroids and in-memory scoring);
    a key with no vector reads as zeros. Those this process has just stored come from
    `index.recent`, without asking the store."""
    out = np.zeros((len(keys), index.embedder.dim), dtype=np.float32)
    recent = index.recent
    missing: list[tuple[int, str]] = []
    for i, key in enumerate(keys):
        vec = recent.get(key)
        if vec is not None:
            out[i] = vec
        else:
            missing.append((i, key))
    if missing:
        found = index.vectors.get(index.namespace, index.kind, index.model, [k for _, k in missing])
        for i, key in missing:
            vec = found.get(key)
            if vec is not None:
                out[i] = vec
    return out
