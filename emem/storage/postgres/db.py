"""One connection pool per database URL per process (psycopg 3 + psycopg-pool), with the schema
migrated on open, transactions that nest by joining, and advisory locks for coordination.

Every store of the Postgres backend goes through a `Database`: a write is acknowledged only after
COMMIT returned (PostgreSQL's default `synchronous_commit=on` flushes the WAL first), and two
processes on two hosts coordinate through the server (row locks, advisory locks), never through
files.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from emem.errors import StoreError
from emem.storage.postgres.schema import migrate

POOL_MAX = 8
CONNECT_TIMEOUT_S = 30.0


def display_url(url: str) -> str:
    """host:port/dbname of a URL, never its password (for error messages)."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparseable PostgreSQL URL>"
    return f"postgresql://{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


def lock_key(scope: str, name: str) -> tuple[int, int]:
    """Two int4 advisory-lock keys for (scope, name): stable across processes and hosts."""

    def h(s: str) -> int:
        return zlib.crc32(s.encode("utf-8")) - 2**31

    return h("emem:" + scope), h(name)


class Database:
    """A pool on one PostgreSQL database; `for_url` shares it within a process."""

    _registry: dict[str, Database] = {}
    _registry_lock = threading.Lock()

    @classmethod
    def acquire(cls, url: str) -> Database:
        """The process's pool for `url` (opened, and the schema migrated, on first use); every
        `acquire` is paired with a `release`, and the pool closes with the last one."""
        with cls._registry_lock:
            db = cls._registry.get(url)
            if db is None or db.closed:
                db = cls._registry[url] = cls(url)
            db._users += 1
            return db

    def release(self) -> None:
        """Give back one `acquire`; the last one closes the pool."""
        with self._registry_lock:
            self._users -= 1
            last = self._users <= 0
        if last:
            self.close()

    def __init__(self, url: str, max_size: int = POOL_MAX) -> None:
        self.url = url
        self.where = display_url(url)
        self._local = threading.local()
        self._users = 0
        self.closed = False
        try:
            conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"not a valid PostgreSQL URL ({exc})") from None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "row_factory": dict_row},
            open=False,
            name=f"emem {self.where}",
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
            with self._pool.connection() as conn:
                migrate(conn)
        except (psycopg.OperationalError, PoolTimeout) as exc:
            self._pool.close()
            raise StoreError(f"{self.where}: cannot connect to PostgreSQL ({_first_line(exc)})") from None
        except psycopg.Error as exc:
            self._pool.close()
            raise StoreError(f"{self.where}: cannot prepare the emem schema ({_first_line(exc)})") from None

    def error(self, exc: BaseException) -> StoreError:
        """The one-line StoreError for a driver error: unreachable server, or a refused statement."""
        if _is_connection_problem(exc):
            return StoreError(f"{self.where}: PostgreSQL is unreachable ({_first_line(exc)})")
        return StoreError(f"{self.where}: the database refused an emem statement ({_first_line(exc)})")

    def close(self) -> None:
        """Close the pool (every store on it is unusable afterwards)."""
        self.closed = True
        self._pool.close()
        with self._registry_lock:
            if self._registry.get(self.url) is self:
                del self._registry[self.url]

    @property
    def _active(self) -> psycopg.Connection | None:
        return getattr(self._local, "conn", None)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """The thread's transaction connection if one is open, else a pooled one (autocommit)."""
        active = self._active
        if active is not None:
            yield active
            return
        try:
            with self._pool.connection(timeout=CONNECT_TIMEOUT_S) as conn:
                yield conn
        except (psycopg.Error, PoolTimeout) as exc:
            raise self.error(exc) from None

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """One atomic unit, committed before the block's caller continues; a block inside another
        one (same thread) joins it, as the embedded stores' transactions do."""
        active = self._active
        if active is not None:
            yield active
            return
        with self.connection() as conn:
            self._local.conn = conn
            try:
                with conn.transaction():
                    yield conn
            finally:
                self._local.conn = None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """All rows of a query, as dicts (inside the thread's transaction when one is open)."""
        with self.connection() as conn:
            return conn.execute(sql, params).fetchall()  # type: ignore[arg-type,return-value]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row (None when there is no row)."""
        rows = self.rows(sql, params)
        return next(iter(rows[0].values())) if rows else None

    def lock(self, conn: psycopg.Connection, scope: str, name: str, *, shared: bool = False) -> None:
        """Take a transaction-scoped advisory lock (released at COMMIT/ROLLBACK) on (scope, name)."""
        fn = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
        conn.execute(f"SELECT {fn}(%s, %s)", lock_key(scope, name))

    @contextmanager
    def session_lock(
        self, scope: str, name: str, *, shared: bool = False, then: str | None = None
    ) -> Iterator[list[dict[str, Any]] | None]:
        """A session-level advisory lock held for the block on a dedicated pooled connection: for
        long multi-transaction jobs (erasure, index catch-up) that must exclude each other across
        processes and hosts. Released by the server if this process dies.

        Args:
            scope, name: what the lock is on.
            shared: a shared (reader) hold instead of an exclusive one.
            then: a query run on the lock's connection right after acquiring it (same round trip).

        Yields:
            The rows of `then` when this call acquired the lock; None when the thread already held
            it (re-entrant) or no query was given.
        """
        keys = lock_key(scope, name)
        held: dict[tuple[int, int], int] = self._local.__dict__.setdefault("held", {})
        if keys in held:  # re-entrant within a thread, like the embedded file lock
            held[keys] += 1
            try:
                yield None
            finally:
                held[keys] -= 1
            return
        suffix = "_shared" if shared else ""
        try:
            with self._pool.connection(timeout=CONNECT_TIMEOUT_S) as conn:
                # Keys are our own ints, inlined so the lock and `then` share one round trip.
                cur = conn.execute(f"SELECT pg_advisory_lock{suffix}({keys[0]:d}, {keys[1]:d}); {then or ''}")  # type: ignore[arg-type]
                rows = cur.fetchall() if then and cur.nextset() else None
                held[keys] = 1
                try:
                    yield rows  # type: ignore[misc]
                finally:
                    del held[keys]
                    conn.execute(f"SELECT pg_advisory_unlock{suffix}(%s, %s)", keys)
        except (psycopg.Error, PoolTimeout) as exc:
            raise self.error(exc) from None


def _is_connection_problem(exc: BaseException) -> bool:
    """Lost or refused connections (SQLSTATE class 08, or none: the client gave up), as opposed to
    a statement the server refused."""
    if isinstance(exc, PoolTimeout):
        return True
    state = getattr(exc, "sqlstate", None)
    return isinstance(exc, psycopg.OperationalError) and (state is None or state.startswith("08"))


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
