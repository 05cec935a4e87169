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
        self.pending: dict[str, np.ndarray] = {}
        """Vectors computed but not written to the vector index yet (`hold`), as the store will
        return them; insertion order."""
        self._unwritten: dict[str, np.ndarray] = {}
        """The same vectors as the embedder gave them (what `drop_pending` hands over to write)."""
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
            self.store(ks, self.embedder.embed(ts))

    def store(self, keys: list[str], vectors: np.ndarray) -> None:
        """Write vectors already computed (e.g. held pending) to the vector index.

        Args:
            keys: turn keys, one per row.
            vectors: their L2-normalised vectors.
        """
        if not keys:
            return
        self.vectors.upsert(self.namespace, self.kind, self.model, keys, vectors)
        # Read back (a store may return vectors that differ from those given in the last bit,
        # and a later reader gets the stored ones).
        self._remember(self.vectors.get(self.namespace, self.kind, self.model, keys))
        gone = set(keys)
        if self.pending and gone & set(self.pending):
            self.pending = {k: v for k, v in self.pending.items() if k not in gone}
            self._unwritten = {k: v for k, v in self._unwritten.items() if k not in gone}

    def hold(self, keys: list[str], vectors: np.ndarray) -> None:
        """Keep vectors in memory, not yet written to the vector index: searches score them
        exactly beside it (`search_vector`) until `store` writes them.

        Args:
            keys: turn keys, one per row.
            vectors: their L2-normalised vectors.
        """
        vectors = np.asarray(vectors, dtype=np.float32)
        stored = self.vectors.as_stored(vectors)  # equal to what a later reader gets back
        held = dict(zip(keys, stored, strict=True))
        self.pending = {**self.pending, **held}  # replaced, never mutated (as `recent`)
        self._unwritten = {**self._unwritten, **dict(zip(keys, vectors, strict=True))}
        self._remember(held)

    def drop_pending(self) -> dict[str, np.ndarray]:
        """Take the held vectors out (to write them, or to discard them).

        Returns:
            The embedder's vectors by key, as given to `hold`: writing those (not the stored
            form, which the store would change again) gives what readers were shown.
        """
        out, self._unwritten, self.pending = self._unwritten, {}, {}
        return out

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
            self.pending = {k: v for k, v in self.pending.items() if k not in gone}
            self._unwritten = {k: v for k, v in self._unwritten.items() if k not in gone}
            self.vectors.delete(self.namespace, self.kind, self.model, keys)

    def search_vector(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k (key, cosine) from the vector index, with the held vectors scored exactly beside
        it: a turn indexed by a read's catch-up is found before it is written."""
        hits = self.vectors.query(self.namespace, self.kind, self.model, vector, k)
        pending = self.pending
        if not pending:
            return hits
        keys = [key for key in pending if key not in {h for h, _ in hits}]
        if keys:
            sims = np.stack([pending[key] for key in keys]) @ np.asarray(vector, dtype=np.float32)
            hits = hits + [(key, float(s)) for key, s in zip(keys, sims, strict=True)]
        return sorted(hits, key=lambda h: -h[1])[:k]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        return self.search_vector(self.embedder.embed([query])[0], k)


def fetch_vectors(index: DenseIndex, keys: list[str]) -> np.ndarray:
    """Read stored vectors back in `keys` order (for segment centroids and in-memory scoring);
    a key with no vector reads as zeros. Those this process has just stored come from
    `index.recent`, without asking the store."""
    out = np.zeros((len(keys), index.embedder.dim), dtype=np.float32)
    recent, pending = index.recent, index.pending
    missing: list[tuple[int, str]] = []
    for i, key in enumerate(keys):
        vec = recent.get(key)
        if vec is None:
            vec = pending.get(key)
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
