"""Saved model state of segment prefixes: the disk cache behind local assistants' KV mode.

Why: an assistant's prompt is the system prompt and its whole segment, then the question. The
first part never depends on the question, so a local model can evaluate it once, save its state
(the KV cache) and restore it on the next activation, computing only the question and the answer.
This module owns those saved states as opaque bytes; what is in them is the model backend's
business (`emem/llm/llama_state.py`).

Layout under `<home>/segment-state/`: one file per state (`<key digest>.state`) and a SQLite
manifest (`index.sqlite3`) with, per state, its key (namespace, model, prompt hash, segment id,
segment content hash), size, token count, last use, and the refs ("conversation_id/turn_id") of
the turns it encodes. The manifest row is written before the file and deleted after it, so every
state file on disk has a row naming its turns: erasure finds every state that encodes an erased
turn by its refs, and deletes it.

Lifecycle: states are built lazily, on a segment's first activation; a segment that grew (or lost
a turn) has a new content hash, and storing its new state deletes the segment's older states;
the disk budget is kept by evicting the least recently used states.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

STATE_DIR = "segment-state"
DEFAULT_BUDGET_MB = 2048
BUDGET_ENV = "EMEM_SEGMENT_STATE_MB"
"""Overrides the disk budget (MB) of a home's segment states."""
_SUFFIX = ".state"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS states (
    digest TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    segment_id TEXT NOT NULL,
    segment_hash TEXT NOT NULL,
    n_tokens INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    created REAL NOT NULL,
    last_used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS states_segment ON states(namespace, model, prompt_hash, segment_id);
CREATE TABLE IF NOT EXISTS state_turns (
    digest TEXT NOT NULL REFERENCES states(digest) ON DELETE CASCADE,
    namespace TEXT NOT NULL,
    turn_ref TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS state_turns_ref ON state_turns(namespace, turn_ref);
CREATE INDEX IF NOT EXISTS state_turns_digest ON state_turns(digest);
"""


class StateKey(BaseModel):
    """What a saved state depends on: the tenant, the exact model, the prompt templates and the
    segment's rendered content. Any change to one of them is another state."""

    model_config = ConfigDict(frozen=True)

    namespace: str
    model: str
    """The model's identity (name and weights' size, or hash): states do not transfer."""
    prompt_hash: str
    segment_id: str
    segment_hash: str
    """sha256 of the prefix text the state encodes (system prompt + segment)."""

    @property
    def digest(self) -> str:
        parts = (self.namespace, self.model, self.prompt_hash, self.segment_id, self.segment_hash)
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class StateEntry(BaseModel):
    """One saved state, as the manifest lists it."""

    key: StateKey
    n_tokens: int
    bytes: int
    created: float
    last_used: float
    turn_refs: list[str] = Field(default_factory=list)


class SegmentStateStats(BaseModel):
    """What `emem stats` shows about a home's saved segment states."""

    states: int = 0
    bytes: int = 0
    tokens: int = 0
    """Prompt tokens the saved states hold (each is computed once, then restored)."""
    budget_bytes: int = 0
    models: list[str] = Field(default_factory=list)
    namespace_states: int = 0
    """States of the namespace asked about."""
    namespace_bytes: int = 0


def segment_hash(prefix_text: str) -> str:
    """The content hash of a segment prefix (what the state encodes)."""
    return hashlib.sha256(prefix_text.encode()).hexdigest()


def budget_from_env(default_mb: int = DEFAULT_BUDGET_MB) -> int:
    """The disk budget in bytes: EMEM_SEGMENT_STATE_MB when set, else `default_mb`."""
    raw = (os.environ.get(BUDGET_ENV) or "").strip()
    mb = int(raw) if raw.isdigit() else default_mb
    return mb << 20


class SegmentStateCache:
    """Saved segment states of one home: get, put (with invalidation and LRU eviction), erase.

    Safe across threads and processes: the manifest is SQLite in WAL mode and state files are
    written to a temporary name and renamed.
    """

    def __init__(self, root: Path, budget_bytes: int | None = None) -> None:
        """Args:
        root: the folder of states (`<home>/segment-state`); created on first write.
        budget_bytes: disk budget for the state files (default: `budget_from_env()`).
        """
        self.root = root
        self.budget_bytes = budget_from_env() if budget_bytes is None else budget_bytes
        self._conn: sqlite3.Connection | None = None

    # -- plumbing ---------------------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            from emem.store.sqlite import connect  # lazily: emem.models imports this module

            self.root.mkdir(parents=True, exist_ok=True)
            conn = connect(self.root / "index.sqlite3")
            conn.executescript(_SCHEMA)
            self._conn = conn
        return self._conn

    @property
    def exists(self) -> bool:
        return (self.root / "index.sqlite3").exists()

    def path_of(self, key: StateKey) -> Path:
        return self.root / f"{key.digest}{_SUFFIX}"

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _delete(self, digests: Iterable[str]) -> int:
        """Delete states: files first, then rows (a row without a file is a harmless miss; a file
        without a row would escape erasure)."""
        digests = list(digests)
        for d in digests:
            (self.root / f"{d}{_SUFFIX}").unlink(missing_ok=True)
        db = self._db()
        with db:
            db.executemany("DELETE FROM states WHERE digest = ?", [(d,) for d in digests])
        return len(digests)

    # -- the cache --------------------------------------------------------------------------------

    def get(self, key: StateKey) -> bytes | None:
        """The saved state for `key`, or None (never built, evicted, or its file is gone).

        Args:
            key: the state's key.
        Returns:
            The state's bytes; its last use is updated (LRU).
        """
        if not self.exists:
            return None
        db = self._db()
        row = db.execute("SELECT digest FROM states WHERE digest = ?", (key.digest,)).fetchone()
        if row is None:
            return None
        try:
            data = self.path_of(key).read_bytes()
        except FileNotFoundError:
            self._delete([key.digest])
            return None
        with db:
            db.execute("UPDATE states SET last_used = ? WHERE digest = ?", (time.time(), key.digest))
        return data

    def put(self, key: StateKey, data: bytes, n_tokens: int, turn_refs: Iterable[str]) -> list[str]:
        """Save a state. The segment's states for an older content (it grew, or lost a turn) are
        deleted, then the least recently used states until the files fit the budget.

        Args:
            key: the state's key.
            data: the state, opaque.
            n_tokens: prompt tokens it holds.
            turn_refs: "conversation_id/turn_id" of every turn it encodes (erasure finds it by them).
        Returns:
            Digests of the states deleted (stale or evicted).
        """
        if len(data) > self.budget_bytes:
            return []  # would evict everything and still not fit
        db = self._db()
        now = time.time()
        refs = sorted(set(turn_refs))
        with db:
            db.execute("DELETE FROM states WHERE digest = ?", (key.digest,))
            db.execute(
                "INSERT INTO states VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key.digest, key.namespace, key.model, key.prompt_hash, key.segment_id,
                 key.segment_hash, n_tokens, len(data), now, now),
            )  # fmt: skip
            db.executemany(
                "INSERT INTO state_turns VALUES (?, ?, ?)", [(key.digest, key.namespace, r) for r in refs]
            )
        target = self.path_of(key)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            f.write(data)
        os.replace(tmp, target)
        stale = [
            r["digest"]
            for r in db.execute(
                "SELECT digest FROM states WHERE namespace = ? AND model = ? AND prompt_hash = ? "
                "AND segment_id = ? AND digest != ?",
                (key.namespace, key.model, key.prompt_hash, key.segment_id, key.digest),
            )
        ]
        self._delete(stale)
        return stale + self._evict(keep=key.digest)

    def _evict(self, keep: str) -> list[str]:
        rows = self._db().execute("SELECT digest, bytes FROM states ORDER BY last_used DESC").fetchall()
        total, out = 0, []
        for r in rows:
            total += r["bytes"]
            if total > self.budget_bytes and r["digest"] != keep:
                out.append(r["digest"])
                total -= r["bytes"]
        self._delete(out)
        return out

    def erase(self, namespace: str, turn_refs: Iterable[str] | None = None) -> int:
        """Delete every state of `namespace` that encodes one of `turn_refs` (all of the
        namespace's states when None), and any temporary file a crashed write left.

        Args:
            namespace: the tenant.
            turn_refs: "conversation_id/turn_id" of the erased turns, or None for all.
        Returns:
            How many states were deleted.
        """
        if not self.exists:
            return 0
        db = self._db()
        if turn_refs is None:
            rows = db.execute("SELECT digest FROM states WHERE namespace = ?", (namespace,)).fetchall()
        else:
            refs = sorted(set(turn_refs))
            rows = []
            for i in range(0, len(refs), 500):
                chunk = refs[i : i + 500]
                rows += db.execute(
                    "SELECT DISTINCT digest FROM state_turns WHERE namespace = ? AND turn_ref IN "
                    f"({','.join('?' * len(chunk))})",
                    (namespace, *chunk),
                ).fetchall()
        for tmp in self.root.glob(f"*{_SUFFIX}.*.tmp"):
            tmp.unlink(missing_ok=True)
        n = self._delete({r["digest"] for r in rows})
        with db:
            db.execute("DELETE FROM state_turns WHERE digest NOT IN (SELECT digest FROM states)")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return n

    def entries(self, namespace: str | None = None) -> list[StateEntry]:
        """The saved states, most recently used first (of one namespace, or all).

        Args:
            namespace: the tenant, or None for every namespace.
        Returns:
            One entry per state, with the refs of the turns it encodes.
        """
        if not self.exists:
            return []
        db = self._db()
        sql = (
            "SELECT * FROM states"
            + (" WHERE namespace = ?" if namespace else "")
            + " ORDER BY last_used DESC"
        )
        out = []
        for r in db.execute(sql, (namespace,) if namespace else ()).fetchall():
            refs = [
                t["turn_ref"]
                for t in db.execute(
                    "SELECT turn_ref FROM state_turns WHERE digest = ? ORDER BY turn_ref", (r["digest"],)
                )
            ]
            key = StateKey(
                namespace=r["namespace"], model=r["model"], prompt_hash=r["prompt_hash"],
                segment_id=r["segment_id"], segment_hash=r["segment_hash"],
            )  # fmt: skip
            out.append(
                StateEntry(
                    key=key,
                    n_tokens=r["n_tokens"],
                    bytes=r["bytes"],
                    created=r["created"],
                    last_used=r["last_used"],
                    turn_refs=refs,
                )  # fmt: skip
            )
        return out

    def stats(self, namespace: str | None = None) -> SegmentStateStats:
        """Counts and bytes of the saved states (the home's, and `namespace`'s).

        Args:
            namespace: the tenant whose share is reported too.
        Returns:
            The figures `emem stats` lists.
        """
        out = SegmentStateStats(budget_bytes=self.budget_bytes)
        for e in self.entries():
            out.states += 1
            out.bytes += e.bytes
            out.tokens += e.n_tokens
            if e.key.model not in out.models:
                out.models.append(e.key.model)
            if e.key.namespace == namespace:
                out.namespace_states += 1
                out.namespace_bytes += e.bytes
        return out
