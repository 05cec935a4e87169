"""Coordination across processes and hosts through the server: a reader/writer lock made of
session-level advisory locks, and change tokens in a table (emem.storage.contract.Coordinator).

A session advisory lock is held on its own pooled connection for the block and is released by the
server if the holder dies (its connection drops), so a killed process never leaves the lock held,
as an `flock` would not either.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from emem.storage.postgres.db import Database

LOCK_SCOPE = "coordinator"
LOCK_NAME = "indexes"
Listener = Callable[[set[str]], None]
TOKENS_SQL = "SELECT name, value FROM change_tokens"


class PgCoordinator:
    """Reader/writer lock over one database plus "write"/"erase" change tokens."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._seen = self._tokens()
        self._listeners: list[Any] = []
        self._mutex = threading.Lock()

    def _tokens(self) -> dict[str, int]:
        return {r["name"]: int(r["value"]) for r in self.db.rows(TOKENS_SQL)}

    def _check(self, rows: list[dict[str, Any]] | None) -> None:
        """Call listeners with the tokens other processes changed since this one last looked
        (`rows`: the tokens read when the lock was taken; None: it was already held)."""
        if rows is None:
            return
        now = {r["name"]: int(r["value"]) for r in rows}
        with self._mutex:
            changed = {name for name, value in now.items() if self._seen.get(name) != value}
            self._seen = now
        if changed:
            self._notify(changed)

    def _notify(self, changed: set[str]) -> None:
        for ref in list(self._listeners):
            listener = ref()
            if listener is None:
                self._listeners.remove(ref)
            else:
                listener(set(changed))

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Hold the lock shared (readers of derived indexes)."""
        with self.db.session_lock(LOCK_SCOPE, LOCK_NAME, shared=True, then=TOKENS_SQL) as rows:
            self._check(rows)
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the lock exclusively (index writers, erasure)."""
        with self.db.session_lock(LOCK_SCOPE, LOCK_NAME, then=TOKENS_SQL) as rows:
            self._check(rows)
            yield

    def bump(self, *changes: str, notify_local: bool = False) -> None:
        """Announce changes (default "write") to other processes; call under `exclusive`.

        Args:
            changes: token names ("write", "erase").
            notify_local: also call this process's listeners.
        """
        names = sorted(set(changes or ("write",)))
        with self.db.transaction() as conn:
            rows = conn.execute(
                "INSERT INTO change_tokens AS t (name, value) SELECT unnest(%s::text[]), 1 "
                "ON CONFLICT (name) DO UPDATE SET value = t.value + 1 RETURNING name, value",
                (names,),
            ).fetchall()
        with self._mutex:
            for r in rows:
                self._seen[r["name"]] = int(r["value"])  # type: ignore[call-overload]
        if notify_local:
            self._notify(set(names))

    def subscribe(self, listener: Listener) -> None:
        """Add a listener (bound methods are held weakly, like the embedded lock's)."""
        ref: Any
        if hasattr(listener, "__self__") and hasattr(listener, "__func__"):
            ref = weakref.WeakMethod(listener)  # type: ignore[arg-type]
        else:
            ref = lambda: listener  # noqa: E731
        self._listeners.append(ref)
