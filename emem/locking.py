"""Cross-process coordination of a home's derived indexes: a reader/writer file lock plus change
tokens that tell a process its in-memory caches are stale.

Why: Chroma's PersistentClient caches each collection's HNSW index in memory and never notices a
write made by another process. We reproduced three failures with chromadb 1.5: a stale reader
gets partial query results, `get(ids)` fails with "Error finding id", and a stale *writer*
persists its old index over the newer one (vectors silently lost for every later process). A
plain exclusive lock around writes does not help, because the second writer is still stale.

So every Chroma access runs under `IndexLock`: readers hold a shared `flock`, writers an exclusive
one, and two tokens in `index.gen` (rewritten by writers) say what changed since this process last
looked: `write` (vectors added or removed: reopen the Chroma client) and `erase` (turns were
erased: drop in-memory indexes such as BM25). Listeners run under the lock and must only set
flags or reopen clients, never take other locks.

One `IndexLock` exists per home per process (see `for_home`); it is re-entrant within a thread,
and serialises the threads of one process (Chroma calls are short, and writers embed under it).
A shared hold cannot be upgraded: release it and take the exclusive lock, then re-check.
"""

from __future__ import annotations

import fcntl
import inspect
import os
import threading
import uuid
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

LOCK_NAME = "index.lock"
TOKENS_NAME = "index.gen"

Listener = Callable[[set[str]], None]
"""listener(changed) with changed a subset of {"write", "erase"}."""


class IndexLock:
    _registry: dict[str, IndexLock] = {}
    _registry_lock = threading.Lock()

    @classmethod
    def for_home(cls, home: Path) -> IndexLock:
        """The process-wide lock of `home` (one per resolved path, so threads and Memory objects
        sharing a home also share what they know about other processes' writes)."""
        key = str(Path(home).expanduser().resolve())
        with cls._registry_lock:
            lock = cls._registry.get(key)
            if lock is None:
                lock = cls._registry[key] = cls(Path(key))
            return lock

    def __init__(self, home: Path) -> None:
        self.home = home
        self._mutex = threading.RLock()
        self._depth = 0
        self._exclusive = False
        self._fh: IO[str] | None = None
        self._seen: dict[str, str] | None = None
        self._listeners: list[Callable[[], Listener | None]] = []

    def subscribe(self, listener: Listener) -> None:
        """Bound methods are held weakly, so a closed Memory's index manager can be collected."""
        ref: Callable[[], Listener | None]
        if inspect.ismethod(listener):
            ref = weakref.WeakMethod(listener)  # type: ignore[arg-type]
        else:
            ref = lambda: listener  # noqa: E731
        with self._mutex:
            self._listeners = [r for r in self._listeners if r() is not None]
            self._listeners.append(ref)

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._hold(exclusive=False):
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._hold(exclusive=True):
            yield

    @property
    def held_exclusive(self) -> bool:
        return self._depth > 0 and self._exclusive and self._mutex._is_owned()  # type: ignore[attr-defined]

    def bump(self, *kinds: str, notify_local: bool = False) -> None:
        """Record that this process changed the indexes ("write") or erased turns ("erase"), so
        other processes refresh. Call under `exclusive()`, before the change is made: a writer
        killed midway still leaves the others refreshing. With `notify_local`, this process's
        own listeners hear it too (erasure: its own caches must go as well)."""
        if not self.held_exclusive:
            raise RuntimeError("IndexLock.bump needs the exclusive lock")
        kinds = kinds or ("write",)
        tokens = dict(self._read_tokens())
        for kind in kinds:
            tokens[kind] = uuid.uuid4().hex
        self._write_tokens(tokens)
        self._seen = tokens
        if notify_local:
            self._notify(set(kinds))

    # -- internals ---------------------------------------------------------------------------

    @contextmanager
    def _hold(self, exclusive: bool) -> Iterator[None]:
        with self._mutex:
            if self._depth == 0:
                self._acquire(exclusive)
            elif exclusive and not self._exclusive:
                raise RuntimeError("cannot upgrade a shared index lock; release it first")
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def _acquire(self, exclusive: bool) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        fh = open(self.home / LOCK_NAME, "a+")  # noqa: SIM115 - held across the context
        try:
            fcntl.flock(fh, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        except BaseException:
            fh.close()
            raise
        self._fh, self._exclusive = fh, exclusive
        try:
            tokens = self._read_tokens()
            if self._seen is not None:
                changed = {k for k in set(tokens) | set(self._seen) if tokens.get(k) != self._seen.get(k)}
                if changed:
                    self._notify(changed)
            self._seen = tokens
        except BaseException:
            self._release()
            raise

    def _notify(self, changed: set[str]) -> None:
        for ref in list(self._listeners):
            listener = ref()
            if listener is not None:
                listener(changed)

    def _release(self) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    def _read_tokens(self) -> dict[str, str]:
        try:
            text = (self.home / TOKENS_NAME).read_text(encoding="ascii")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError):
            return {"write": "unreadable", "erase": "unreadable"}
        tokens = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        if not tokens and text:
            return {"write": "unreadable", "erase": "unreadable"}
        return tokens

    def _write_tokens(self, tokens: dict[str, str]) -> None:
        path = self.home / TOKENS_NAME
        tmp = path.with_name(f"{TOKENS_NAME}.{os.getpid()}.tmp")
        tmp.write_text("".join(f"{k}={v}\n" for k, v in sorted(tokens.items())), encoding="ascii")
        os.replace(tmp, path)
