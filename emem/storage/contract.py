"""The storage contract: what every backend provides, and what each guarantee means.

Everything above storage (ingest, indexes, consolidation, erasure, the read path, eval) talks to
these protocols only, never to SQL, files or a vector library. A backend is a bundle of four stores
and one coordinator (`StorageBackend`); the embedded one (SQLite WAL + Chroma + a file lock) is the
default, PostgreSQL + pgvector the second. Logic that does not depend on where rows live (the
ledger's resolver and audit relations, index catch-up, erasure's selection) stays above the
contract, written once.

Shared rules for every method of every store:

* Namespace scoping: every read and write names its namespace and sees only that namespace's rows
  (the only cross-namespace call is `EpisodeStore.namespaces`). An unknown namespace is empty,
  never an error. Namespaces are checked by the caller (`emem.models.check_namespace`).
* Durability: a write method returns only once its change is durable (committed and synced:
  SQLite `synchronous=FULL`, Postgres `synchronous_commit=on`). A crash at any point leaves each
  store with every acknowledged write, and each multi-row write either whole or absent.
* Errors: bad input and conflicts raise `emem.errors` types (`InputError`, `ConflictError`,
  `NotFoundError`) naming what and where; a damaged or unreachable store raises `StoreError`
  with one line saying which store and what to do. Never a driver traceback.
* Content is data: stores never interpret text.
* Concurrency: any number of threads and processes (and, for a networked backend, hosts) may use
  one backend at once; each method is atomic on its own. Cross-method sequences that must not
  interleave with another process run under the `Coordinator`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: the stores' modules import this one
    import numpy as np

    from emem.ledger.models import Relation, RelationKind, Revision
    from emem.models import IngestReport, StoredTurn, Turn

# -- small shared types -----------------------------------------------------------------------------


@dataclass
class CompactReport:
    """What a compaction did: the files (or relations/tables) rewritten, and what could not finish."""

    compacted: list[str] = field(default_factory=list)
    """Names of what was rewritten (file names for the embedded backend, table names for Postgres)."""
    warnings: list[str] = field(default_factory=list)
    """Steps that could not finish (e.g. a reader kept the WAL busy): rerun to complete them."""

    def merge(self, other: CompactReport) -> CompactReport:
        """Both reports' findings, in order (for a backend compacting several stores)."""
        return CompactReport([*self.compacted, *other.compacted], [*self.warnings, *other.warnings])


class ErasedTurn(NamedTuple):
    """A turn `EpisodeStore.erase` deletes: ids and hash only, never content."""

    seq: int
    conversation_id: str
    session_id: str
    turn_id: str
    hash: str


class TurnTombstone(NamedTuple):
    """A turn an erasure deleted, as the episode store remembers it (to refuse re-ingestion)."""

    seq: int
    conversation_id: str
    turn_id: str
    hash: str


@dataclass(frozen=True)
class PendingErasure:
    """An erasure whose turns are deleted but whose derived copies may still exist."""

    erasure_id: str
    namespace: str
    kind: str
    """"forget" (selected turns) or "drop" (the whole namespace)."""
    reason: str | None
    plan: str
    """JSON written by emem.erasure (revision/relation ids and hashes to purge); opaque here."""


@dataclass
class VectorErasure:
    """What `VectorIndex.erase` removed."""

    vectors: int = 0
    collections_rebuilt: int = 0
    warnings: list[str] = field(default_factory=list)


Listener = Callable[[set[str]], None]
"""listener(changed), changed a subset of {"write", "erase"} (see `Coordinator`)."""

Tombstone = dict[str, object]
"""A ledger tombstone: {"id", "kind", "content_hash", "erasure_id", "erased_at", "reason"}."""

ERASURE_KINDS = ("forget", "drop")
TOMBSTONE_KINDS = ("turn", "revision", "relation", "namespace")


# -- episode store ----------------------------------------------------------------------------------


@runtime_checkable
class EpisodeStore(Protocol):
    """The append-only log of turns (the one place turn text lives), plus the small bookkeeping
    that must share its transactions: sessions, segment summaries, index coverage, erasure intents.

    Sequence numbers (`seq`): assigned by `append`, positive, unique in the store, never reused
    (not even after an erasure: vector keys and tombstones name turns by seq). Within a namespace,
    seq order is commit order: once a reader has seen seq N, no turn with seq <= N can appear later
    in that namespace (derived indexes catch up with `turns(after_seq=...)` and would miss it). A
    backend with concurrent writers must serialise appends per namespace to keep this (Postgres:
    a transaction-scoped advisory lock on the namespace taken before the seq is drawn).
    """

    def append(
        self,
        namespace: str,
        turns: Sequence[Turn],
        sessions: Sequence[tuple[str, str, datetime]] = (),
        source: str | None = None,
        *,
        restore: bool = False,
    ) -> IngestReport:
        """Append turns in ONE transaction and return only once it is durable.

        Args:
            namespace: the tenant.
            turns: the turns, in order (their seqs follow this order).
            sessions: (conversation_id, session_id, start time) declared by the source; a turn whose
                session is not declared registers it with the turn's own time.
            source: names the input in error messages.
            restore: allow turns that an erasure tombstoned (same ids or same content hash).

        Returns:
            The ingest report (added, unchanged, first and last new seq).

        Raises:
            ConflictError: a turn id already stored with a different content hash, a session already
                stored with a different time, or (without `restore`) a tombstoned turn. Nothing of
                the batch is stored then. Identical re-sent turns are counted `unchanged`.
        """
        ...

    def turns(
        self,
        namespace: str,
        *,
        after_seq: int = 0,
        upto_seq: int | None = None,
        conversation_id: str | None = None,
        session_id: str | None = None,
        turn_id: str | None = None,
    ) -> list[StoredTurn]:
        """Stored turns with after_seq < seq <= upto_seq, optionally of one conversation, session
        and/or turn id, in seq order."""
        ...

    def get_turns(self, namespace: str, refs: Iterable[tuple[str, str]]) -> list[StoredTurn]:
        """Turns by (conversation_id, turn_id), in the order asked, unknown ones skipped."""
        ...

    def last_turn(self, namespace: str, conversation_id: str) -> StoredTurn | None:
        """The conversation's turn with the highest seq, or None."""
        ...

    def sessions(self, namespace: str) -> list[tuple[str, str, datetime]]:
        """(conversation_id, session_id, start time), ordered by time then session id."""
        ...

    def last_seq(self, namespace: str) -> int:
        """The namespace's highest seq (0 when empty): the change token of every derived index."""
        ...

    def counts(self, namespace: str) -> tuple[int, int, int]:
        """(conversations, sessions, turns) of the namespace."""
        ...

    def namespaces(self) -> list[str]:
        """Every namespace holding a turn, sorted (admin and erasure only)."""
        ...

    def segment_summaries(self, namespace: str) -> dict[str, str]:
        """segment id -> summary (derived text written off the write path)."""
        ...

    def segment_summary_hashes(self, namespace: str) -> dict[str, str]:
        """segment id -> content hash of the turns the summary was written from."""
        ...

    def put_segment_summary(
        self, namespace: str, segment_id: str, content_hash: str, summary: str, model: str
    ) -> None:
        """Insert or replace one segment's summary (durable on return)."""
        ...

    def coverage(self, namespace: str) -> dict[str, int]:
        """index name -> highest seq that derived index covers (bookkeeping of emem.index)."""
        ...

    def set_coverage(self, namespace: str, index_name: str, covered_seq: int) -> None:
        """Record an index's coverage (upsert; durable on return)."""
        ...

    def erase(
        self,
        namespace: str,
        erasure_id: str,
        kind: str,
        reason: str | None,
        plan: str,
        turns: Sequence[ErasedTurn],
        *,
        whole_namespace: bool = False,
    ) -> dict[str, int]:
        """The commit that makes an erasure happen, in ONE transaction: record the intent
        (`erasure_id`, `kind` in ERASURE_KINDS, `reason`, `plan`; pending until `finish_erasure`),
        a tombstone per turn (ids and hash, so `append` refuses them later), and delete the turns,
        the segment summaries of every touched session (segment ids "conv/session" and
        "conv/session#..."), and sessions left without turns. With `whole_namespace`, every turn,
        session, summary and coverage row of the namespace goes. A crash leaves all or nothing.
        Deleted content must not stay readable in the store's live pages (SQLite: secure_delete);
        `compact` removes what the engine keeps elsewhere.

        Returns:
            Counts deleted: {"turns", "sessions", "segment_summaries"}.
        """
        ...

    def pending_erasures(self) -> list[PendingErasure]:
        """Erasures recorded by `erase` and not yet finished, oldest first, across namespaces
        (a process opening the backend finishes them before serving a read)."""
        ...

    def erased_turns(self, erasure_id: str) -> list[TurnTombstone]:
        """The turn tombstones one erasure recorded, in seq order."""
        ...

    def finish_erasure(self, erasure_id: str) -> None:
        """Mark the erasure done (durable), leaving no copy of that last write in a log."""
        ...

    def compact(self) -> CompactReport:
        """Rewrite storage so no freed page, stale index entry or write-ahead log still holds
        deleted bytes (SQLite: VACUUM + wal_checkpoint(TRUNCATE); Postgres: VACUUM (FULL) of the
        tables, plus whatever the backend documents it cannot reach). Idempotent."""
        ...

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...


# -- ledger store -----------------------------------------------------------------------------------


@runtime_checkable
class LedgerStore(Protocol):
    """Rows of the bitemporal ledger: revisions, relations, open-predicate declarations,
    watermarks and tombstones. Pure persistence: `emem.ledger.store.Ledger` holds the logic
    (idempotent ids, audit relations, the resolver) once, for every backend.

    Revisions, relations and tombstones are append-only and the database itself enforces it
    (SQLite and Postgres: triggers refusing UPDATE and DELETE), so a bug above cannot rewrite
    history. The one exception is `purge`, run by erasure. Watermarks and predicate declarations
    are bookkeeping (upserts allowed).
    """

    def transaction(self, namespace: str | None = None) -> AbstractContextManager[None]:
        """One atomic, isolated unit of ledger writes. Nests (inner blocks join the outer one, which
        must name the same namespace or None). Writers of `namespace` (None: of every namespace)
        are serialised for the whole block (SQLite: BEGIN IMMEDIATE, which serialises all;
        Postgres: a transaction-scoped advisory lock on the namespace), because the ledger reads,
        decides and inserts inside it ("is this revision already stored?"). Reads inside see the
        block's own writes. Commits durably when the outermost block exits; rolls back everything
        on an exception."""
        ...

    def insert_revision(self, rev: Revision) -> Revision:
        """Insert a new revision (its id must be new); returns it with `seq` (unique, increasing)
        and `recorded_at` (now) set. Call inside `transaction`."""
        ...

    def insert_relation(self, subject_key: str, predicate: str, rel: Relation) -> Relation | None:
        """Insert an audit relation about (subject_key, predicate), its `id` and `namespace` set by
        the caller; returns it with `seq` and `recorded_at` set, or None when that id is already
        stored (nothing written). Call inside `transaction`."""
        ...

    def find(self, namespace: str, revision_id: str) -> Revision | None:
        """The revision with exactly this id in the namespace."""
        ...

    def find_by_prefix(self, namespace: str, prefix: str, limit: int = 2) -> list[Revision]:
        """Up to `limit` revisions whose id starts with `prefix` (lower-case hex), in id order."""
        ...

    def revocations_of(self, namespace: str, target_id: str) -> list[Revision]:
        """Revisions whose target_id is `target_id`, in seq order."""
        ...

    def relation(self, namespace: str, relation_id: str) -> Relation | None:
        """One relation by id."""
        ...

    def load(
        self,
        namespace: str,
        subject_key: str | None = None,
        predicate: str | None = None,
        *,
        relations: tuple[RelationKind, ...] | None = None,
    ) -> tuple[list[Revision], list[Relation]]:
        """Revisions of the namespace (optionally of one subject key and/or predicate) and the
        relations recorded about the same (subject_key, predicate) scope, of the given kinds
        (None: every kind; (): none), both in seq order."""
        ...

    def first_subject(self, namespace: str, subject_key: str) -> str | None:
        """The display name of the first revision written with this subject key."""
        ...

    def subject_names(self, namespace: str) -> dict[str, str]:
        """subject_key -> display name of its first revision."""
        ...

    def last_seq(self, namespace: str) -> int:
        """The newest revision seq (0 when empty)."""
        ...

    def version(self, namespace: str) -> tuple[int, int]:
        """(newest revision seq, newest relation seq), each 0 when none: changes with every row."""
        ...

    def count_assertions(self, namespace: str) -> int:
        """Number of revisions of kind "assertion"."""
        ...

    def declared_predicates(self, namespace: str) -> dict[str, str]:
        """Open predicates declared in the namespace: name -> "single" | "multi"."""
        ...

    def declare_predicate(self, namespace: str, name: str, cardinality: str) -> None:
        """Record an open predicate's cardinality (first declaration wins; call inside
        `transaction`, after checking none exists)."""
        ...

    def get_watermark(self, namespace: str, name: str) -> int:
        """Highest episode seq a derived process covered; 0 if none."""
        ...

    def set_watermark(self, namespace: str, name: str, seq: int) -> None:
        """Upsert a watermark; joins an enclosing `transaction`."""
        ...

    def purge(
        self,
        namespace: str,
        revision_ids: Iterable[str] = (),
        relation_ids: Iterable[str] = (),
        tombstones: Iterable[tuple[str, str, str]] = (),
        *,
        erasure_id: str,
        reason: str | None = None,
        drop_watermarks: bool = False,
    ) -> tuple[int, int]:
        """Erasure's exception to append-only, in ONE transaction: delete the named revisions and
        relations of `namespace` (ids not stored are ignored), with `drop_watermarks` also its
        watermarks and predicate declarations, and append `tombstones` as (id, kind in
        TOMBSTONE_KINDS, content_hash) with erasure_id, now and reason. No other session may
        ever observe the append-only guard lifted (lift and restore it inside the transaction, or
        use a privileged path that bypasses it only for this statement). Deleted content must not
        stay readable in live pages. Returns (revisions deleted, relations deleted)."""
        ...

    def tombstones(self, namespace: str) -> list[Tombstone]:
        """Every tombstone of the namespace, in write order."""
        ...

    def integrity_problems(self) -> list[str]:
        """What is wrong with the store's own guarantees right now (e.g. an append-only guard
        missing after a crash); empty when sound. Crash tests assert on it."""
        ...

    def compact(self) -> CompactReport:
        """As `EpisodeStore.compact`, for the ledger's tables."""
        ...

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...


# -- vector index -----------------------------------------------------------------------------------


@runtime_checkable
class VectorIndex(Protocol):
    """Dense vectors, one collection per (namespace, kind, model): e.g. ("team-a", "turns",
    "minilm-l6/1"). Holds ids (keys) and vectors only, never text: the episode store is the one
    place content lives. Keys are strings (for turns: str(seq)). Upserts are idempotent per key,
    so replaying a catch-up after a crash is harmless. Similarity is cosine, higher is closer.

    Reads and writes lock internally as the backend needs; a caller that needs several calls to
    see one consistent state (index catch-up) also holds the `Coordinator` around them.
    """

    def exists(self, namespace: str, kind: str, model: str) -> bool:
        """Whether the collection has been created."""
        ...

    def count(self, namespace: str, kind: str, model: str) -> int:
        """Vectors in the collection (0 when it does not exist)."""
        ...

    def keys(self, namespace: str, kind: str, model: str) -> set[str]:
        """Every key in the collection (empty when it does not exist)."""
        ...

    def upsert(self, namespace: str, kind: str, model: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors (row i for keys[i]), creating the collection on first use; durable on
        return (or on the next `flush`, which the index manager calls before recording coverage)."""
        ...

    def delete(self, namespace: str, kind: str, model: str, keys: Sequence[str]) -> None:
        """Remove vectors by key (unknown keys ignored)."""
        ...

    def query(
        self, namespace: str, kind: str, model: str, vector: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        """The k nearest keys with cosine similarity, best first ([] when the collection is empty
        or missing). Approximate (HNSW) search is allowed."""
        ...

    def get(self, namespace: str, kind: str, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by key (float32); unknown keys are left out."""
        ...

    def as_stored(self, vectors: np.ndarray) -> np.ndarray:
        """The vectors as `get` would return them after `upsert` (a store may change the last
        bits, e.g. Chroma renormalises for cosine), without storing them: vectors held in memory
        before they are written (emem.index.manager.PENDING_MAX) then equal what a later
        reader gets from the store."""
        ...

    def flush(self) -> None:
        """Make every write so far durable and release in-memory state that could leak into
        files (embedded Chroma: persist, close the client, zero hnswlib's unused slots)."""
        ...

    def erase(
        self,
        namespace: str,
        keys: Collection[str],
        *,
        live: Collection[str] | None = None,
        whole_namespace: bool = False,
    ) -> VectorErasure:
        """Remove from every collection of the namespace the vectors whose key is in `keys` or,
        when `live` is given, not in `live` (orphans of an interrupted erasure); with
        `whole_namespace`, every collection of the namespace. Afterwards no file, page or index
        structure of the backend may still hold a removed vector once `compact` has run (Chroma:
        the collection is rebuilt from its survivors). Idempotent."""
        ...

    def compact(self) -> CompactReport:
        """As `EpisodeStore.compact`, for the vector storage (Chroma: orphan segment folders
        removed, unused HNSW slots zeroed, chroma.sqlite3 vacuumed; pgvector: VACUUM FULL and
        REINDEX of the HNSW index)."""
        ...

    def close(self) -> None:
        """Release clients and connections."""
        ...


@runtime_checkable
class TextVectorCache(Protocol):
    """Vectors of derived texts (segment summaries; turns' entity labels as 0/1 rows), keyed by
    (namespace, model, sha256 of the text). A cache: losing it costs time only, so writes need not
    be synced. Erasure drops a namespace's rows because a summary quotes the turns it summarises
    and a label row is keyed by an erased turn's text."""

    def get(self, namespace: str, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors by text hash (float32); misses left out."""
        ...

    def put(self, namespace: str, model: str, vectors: dict[str, np.ndarray]) -> None:
        """Insert or replace vectors by text hash."""
        ...

    def discard(self, namespace: str, model: str, hashes: Sequence[str]) -> None:
        """Delete vectors no view uses any more."""
        ...

    def count(self, namespace: str) -> int:
        """Rows cached for the namespace (every model)."""
        ...

    def erase_namespace(self, namespace: str) -> int:
        """Delete every row of the namespace; returns the rows deleted."""
        ...

    def compact(self) -> CompactReport:
        """As `EpisodeStore.compact`."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


# -- coordination -----------------------------------------------------------------------------------


@runtime_checkable
class Coordinator(Protocol):
    """A reader/writer lock over one backend, shared by every process (and host) using it, plus
    change tokens telling a process that its in-memory caches are stale.

    Index catch-up reads under `shared` and writes vectors and coverage under `exclusive`;
    erasure runs entirely under `exclusive`. Both are re-entrant within a thread; a shared hold
    cannot be upgraded (release, take exclusive, re-check). Embedded: `flock` on a file in the
    home; Postgres: session advisory locks.

    Change tokens: "write" (vectors were added or removed: reopen clients that cache indexes) and
    "erase" (turns were erased: drop in-memory indexes such as BM25). When this process acquires
    the lock and finds a token changed since it last looked, it calls every subscribed listener
    with the changed names, under the lock; listeners only set flags or reset clients.
    """

    def shared(self) -> AbstractContextManager[None]:
        """Hold the lock shared (readers)."""
        ...

    def exclusive(self) -> AbstractContextManager[None]:
        """Hold the lock exclusively (writers of derived indexes, erasure)."""
        ...

    def bump(self, *changes: str, notify_local: bool = False) -> None:
        """Announce changes (default "write") to other processes; call under `exclusive`, before
        making them. With `notify_local`, this process's listeners hear it too."""
        ...

    def subscribe(self, listener: Listener) -> None:
        """Add a listener (bound methods are held weakly)."""
        ...


# -- the bundle -------------------------------------------------------------------------------------


@runtime_checkable
class StorageBackend(Protocol):
    """One backend: the four stores and the coordinator a `Memory` uses. Opened by
    `emem.storage.open_backend` from a spec ("embedded", "postgres://...", env EMEM_BACKEND,
    CLI --backend). Several `Memory` objects, threads and processes may open the same backend."""

    name: str
    """"embedded" or "postgres" (shown by `stats`, benchmarks and errors)."""
    location: str
    """Where the data lives, without secrets (a directory, or a DSN with the password removed)."""
    episodes: EpisodeStore
    vectors: VectorIndex
    text_vectors: TextVectorCache
    coordinator: Coordinator

    @property
    def ledger(self) -> LedgerStore:
        """The ledger store, opened (and created) on first use."""
        ...

    def has_ledger(self) -> bool:
        """Whether a ledger exists yet, without creating one (a read of a fresh home stays
        read-only)."""
        ...

    def compact(self) -> CompactReport:
        """Compact every store (erasure's last step)."""
        ...

    def close(self) -> None:
        """Close every store."""
        ...


BackendOpener = Callable[[str, Path], StorageBackend]
"""opener(spec, home) -> backend; `home` is the Memory's local directory (llm.json, logs, and for
the embedded backend every store)."""
