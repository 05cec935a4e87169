"""Dense vectors in pgvector, with an HNSW (cosine) index; and the cache of derived-text vectors.

A collection (namespace x kind x model, as Chroma has) is a row of `vector_collections`; its
vectors live in the table of their dimension (`vectors_<dim>`, created on first use under an
advisory lock), keyed by (collection, key). Only ids and vectors are stored, never text.

Search filters by collection inside the HNSW scan; pgvector 0.8's iterative scan
(`hnsw.iterative_scan = strict_order`) keeps scanning until k rows of that collection are found,
so a small tenant among large ones still gets k results.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence

import numpy as np

from emem.storage.contract import CompactReport, VectorErasure
from emem.storage.postgres.db import Database
from emem.storage.postgres.maintenance import vacuum_full
from emem.storage.postgres.schema import vector_table, vector_table_ddl

DDL_LOCK = "vector-ddl"
EF_SEARCH_MIN = 40
BATCH = 500


def collection_name(namespace: str, kind: str, model: str) -> str:
    digest = hashlib.sha256(f"{namespace}\x1f{kind}\x1f{model}".encode()).hexdigest()[:32]
    return f"emem-{kind}-{digest}"


def _literal(vector: np.ndarray) -> list[float]:
    return [float(x) for x in np.asarray(vector, dtype=np.float32).ravel()]


def _text(vector: np.ndarray) -> str:
    """pgvector's text form; repr of each float32 (as a Python float) round-trips exactly."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).ravel().tolist())) + "]"


class PgVectorIndex:
    """`VectorIndex` on pgvector (see emem.storage.contract for each method)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _dim(self, name: str) -> int | None:
        return self.db.scalar("SELECT dim FROM vector_collections WHERE name = %s", (name,))

    def exists(self, namespace: str, kind: str, model: str) -> bool:
        return self._dim(collection_name(namespace, kind, model)) is not None

    def count(self, namespace: str, kind: str, model: str) -> int:
        name = collection_name(namespace, kind, model)
        dim = self._dim(name)
        if dim is None:
            return 0
        return int(self.db.scalar(f"SELECT count(*) FROM {vector_table(dim)} WHERE collection = %s", (name,)))

    def keys(self, namespace: str, kind: str, model: str) -> set[str]:
        name = collection_name(namespace, kind, model)
        dim = self._dim(name)
        if dim is None:
            return set()
        rows = self.db.rows(f"SELECT key FROM {vector_table(dim)} WHERE collection = %s", (name,))
        return {r["key"] for r in rows}

    def upsert(self, namespace: str, kind: str, model: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        if not len(keys):
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        dim = int(vectors.shape[1])
        name = collection_name(namespace, kind, model)
        self._ensure(name, namespace, kind, model, dim)
        table = vector_table(dim)
        with self.db.transaction() as conn:
            for start in range(0, len(keys), BATCH):
                chunk = vectors[start : start + BATCH]
                conn.execute(
                    f"INSERT INTO {table} (collection, key, embedding) SELECT %s, k, e::vector "
                    "FROM unnest(%s::text[], %s::text[]) AS u(k, e) "
                    "ON CONFLICT (collection, key) DO UPDATE SET embedding = excluded.embedding",
                    (name, [str(k) for k in keys[start : start + BATCH]], [_text(v) for v in chunk]),
                )

    def _ensure(self, name: str, namespace: str, kind: str, model: str, dim: int) -> None:
        known = self._dim(name)
        if known is not None:
            if known != dim:
                raise ValueError(f"collection {name} holds {known}-dimensional vectors, not {dim}")
            return
        with self.db.transaction() as conn:
            self.db.lock(conn, DDL_LOCK, "all")
            conn.execute(vector_table_ddl(dim))  # type: ignore[arg-type]  # our own DDL
            conn.execute(
                "INSERT INTO vector_collections (name, namespace, kind, embedder, dim) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (name) DO NOTHING",
                (name, namespace, kind, model, dim),
            )

    def delete(self, namespace: str, kind: str, model: str, keys: Sequence[str]) -> None:
        name = collection_name(namespace, kind, model)
        dim = self._dim(name)
        if dim is None or not keys:
            return
        with self.db.transaction() as conn:
            conn.execute(
                f"DELETE FROM {vector_table(dim)} WHERE collection = %s AND key = ANY(%s)", (name, list(keys))
            )

    def query(
        self, namespace: str, kind: str, model: str, vector: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        name = collection_name(namespace, kind, model)
        dim = self._dim(name)
        if dim is None or k <= 0:
            return []
        q = _literal(vector)
        with self.db.transaction() as conn:
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(EF_SEARCH_MIN, k)),))
            conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', true)")
            rows = conn.execute(
                f"SELECT key, embedding <=> %s::real[]::vector AS d FROM {vector_table(dim)} "
                "WHERE collection = %s ORDER BY d LIMIT %s",
                (q, name, k),
            ).fetchall()
        return [(r["key"], 1.0 - float(r["d"])) for r in rows]  # type: ignore[call-overload]

    def as_stored(self, vectors: np.ndarray) -> np.ndarray:
        """pgvector keeps float4 as given."""
        return np.asarray(vectors, dtype=np.float32)

    def get(self, namespace: str, kind: str, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        name = collection_name(namespace, kind, model)
        dim = self._dim(name)
        if dim is None or not keys:
            return {}
        out: dict[str, np.ndarray] = {}
        with self.db.connection() as conn, conn.cursor(binary=True) as cur:
            for start in range(0, len(keys), 5000):
                cur.execute(
                    f"SELECT key, embedding::real[] AS v FROM {vector_table(dim)} "
                    "WHERE collection = %s AND key = ANY(%s)",
                    (name, list(keys[start : start + 5000])),
                )
                for row in cur.fetchall():
                    out[row["key"]] = np.asarray(row["v"], dtype=np.float32)  # type: ignore[call-overload]
        return out

    def flush(self) -> None:
        """Nothing to do: every write committed durably."""

    def erase(
        self,
        namespace: str,
        keys: Collection[str],
        *,
        live: Collection[str] | None = None,
        whole_namespace: bool = False,
    ) -> VectorErasure:
        report = VectorErasure()
        cols = self.db.rows("SELECT name, dim FROM vector_collections WHERE namespace = %s", (namespace,))
        with self.db.transaction() as conn:
            for col in cols:
                table = vector_table(col["dim"])
                if whole_namespace:
                    report.vectors += conn.execute(
                        f"DELETE FROM {table} WHERE collection = %s", (col["name"],)
                    ).rowcount
                    conn.execute("DELETE FROM vector_collections WHERE name = %s", (col["name"],))
                    report.collections_rebuilt += 1
                    continue
                n = conn.execute(
                    f"DELETE FROM {table} WHERE collection = %s AND key = ANY(%s)", (col["name"], list(keys))
                ).rowcount
                if live is not None:
                    n += conn.execute(
                        f"DELETE FROM {table} WHERE collection = %s AND NOT key = ANY(%s)",
                        (col["name"], list(live)),
                    ).rowcount
                report.vectors += n
        return report

    def compact(self) -> CompactReport:
        dims = [r["dim"] for r in self.db.rows("SELECT DISTINCT dim FROM vector_collections")]
        tables = [
            r["t"]
            for r in self.db.rows("SELECT tablename AS t FROM pg_tables WHERE tablename ~ '^vectors_[0-9]+$'")
        ]
        return vacuum_full(
            self.db, sorted({*tables, *(vector_table(d) for d in dims)}) + ["vector_collections"]
        )

    def close(self) -> None:
        """Nothing per store: the pool belongs to the backend."""


class PgTextVectorCache:
    """`TextVectorCache` in the `text_vectors` table (float32 bytes; a cache, so unsynced commits)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, namespace: str, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        rows = self.db.rows(
            "SELECT text_sha256, vector FROM text_vectors WHERE namespace = %s AND embedder = %s "
            "AND text_sha256 = ANY(%s)",
            (namespace, model, sorted(set(hashes))),
        )
        return {r["text_sha256"]: np.frombuffer(r["vector"], dtype=np.float32).copy() for r in rows}

    def put(self, namespace: str, model: str, vectors: dict[str, np.ndarray]) -> None:
        if not vectors:
            return
        with self.db.transaction() as conn, conn.cursor() as cur:
            cur.execute("SET LOCAL synchronous_commit = off")
            cur.executemany(
                "INSERT INTO text_vectors VALUES (%s, %s, %s, %s) ON CONFLICT (namespace, embedder, text_sha256) "
                "DO UPDATE SET vector = excluded.vector",
                [(namespace, model, h, np.asarray(v, np.float32).tobytes()) for h, v in vectors.items()],
            )

    def discard(self, namespace: str, model: str, hashes: Sequence[str]) -> None:
        if not hashes:
            return
        with self.db.transaction() as conn:
            conn.execute(
                "DELETE FROM text_vectors WHERE namespace = %s AND embedder = %s AND text_sha256 = ANY(%s)",
                (namespace, model, list(hashes)),
            )

    def count(self, namespace: str) -> int:
        return int(self.db.scalar("SELECT count(*) FROM text_vectors WHERE namespace = %s", (namespace,)))

    def erase_namespace(self, namespace: str) -> int:
        with self.db.transaction() as conn:
            return conn.execute("DELETE FROM text_vectors WHERE namespace = %s", (namespace,)).rowcount

    def compact(self) -> CompactReport:
        return vacuum_full(self.db, ["text_vectors"])

    def close(self) -> None:
        """Nothing per store: the pool belongs to the backend."""
