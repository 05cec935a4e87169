"""The PostgreSQL + pgvector backend: episodes, ledger, tombstones and vectors in one database,
shared by any number of processes on any number of hosts (see docs/storage.md)."""

from emem.storage.postgres.backend import PostgresBackend, open_postgres

__all__ = ["PostgresBackend", "open_postgres"]
