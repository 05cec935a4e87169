"""Dense vectors in an embedded Chroma collection, one per namespace and embedder.

Chroma stores only ids, vectors and small metadata, never turn text: the episode store is the one
place content lives, which keeps erasure and tenant isolation simple to prove.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from emem.embedding import ChromaEmbeddingFunction, Embedder


def open_chroma(path: Path):  # -> chromadb.ClientAPI
    import chromadb
    from chromadb.config import Settings

    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(
        path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
    )


def collection_name(namespace: str, kind: str, embedder: Embedder) -> str:
    digest = hashlib.sha256(f"{namespace}\x1f{kind}\x1f{embedder.name}".encode()).hexdigest()[:32]
    return f"emem-{kind}-{digest}"


class DenseIndex:
    def __init__(self, client, namespace: str, kind: str, embedder: Embedder) -> None:
        self.namespace = namespace
        self.embedder = embedder
        self.name = collection_name(namespace, kind, embedder)
        self._collection = client.get_or_create_collection(
            name=self.name,
            embedding_function=ChromaEmbeddingFunction(embedder),
            metadata={"hnsw:space": "cosine", "namespace": namespace, "kind": kind},
        )

    def count(self) -> int:
        return self._collection.count()

    def upsert(self, keys: list[str], texts: list[str], batch: int = 256) -> None:
        """Embed and store; upsert makes a replay after a crash harmless."""
        for start in range(0, len(keys), batch):
            ks, ts = keys[start : start + batch], texts[start : start + batch]
            vectors = self.embedder.embed(ts)
            self._collection.upsert(ids=ks, embeddings=[v.tolist() for v in vectors])

    def delete(self, keys: list[str]) -> None:
        if keys:
            self._collection.delete(ids=keys)

    def search_vector(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        n = self.count()
        if n == 0:
            return []
        res = self._collection.query(
            query_embeddings=[vector.tolist()], n_results=min(k, n), include=["distances"]
        )
        return [(key, 1.0 - float(d)) for key, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        return self.search_vector(self.embedder.embed([query])[0], k)


def fetch_vectors(index: DenseIndex, keys: list[str], batch: int = 1000) -> np.ndarray:
    """Read stored vectors back in `keys` order (for segment centroids and in-memory scoring)."""
    out = np.zeros((len(keys), index.embedder.dim), dtype=np.float32)
    pos = {k: i for i, k in enumerate(keys)}
    for start in range(0, len(keys), batch):
        res = index._collection.get(ids=keys[start : start + batch], include=["embeddings"])
        for key, vec in zip(res["ids"], res["embeddings"], strict=True):
            out[pos[key]] = np.asarray(vec, dtype=np.float32)
    return out
