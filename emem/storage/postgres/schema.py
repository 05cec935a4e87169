"""The PostgreSQL schema of an emem store, as versioned migrations run on open.

Each migration runs once, in its own transaction, under a database-wide advisory lock, and is
recorded in `emem_migrations`; so any number of processes on any number of hosts can open the
same database at once and exactly one of them applies a pending step. Steps are only ever
appended to `MIGRATIONS` (never edited once released): a store written by an older emem is
brought up to date by running the ones it lacks. A database written by a *newer* emem (a version
this code does not know) is refused rather than misread.

Times are stored as the same ISO-8601 text the embedded backend writes (emem.timeparse.iso and
emem.ledger.models.stamp), so both backends return identical values, offsets included.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
from psycopg.rows import tuple_row

from emem.errors import StoreError

MIGRATION_LOCK = 0x656D656D_0001
"""Advisory lock key held while migrating ("emem" in ASCII, then 1)."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


_EPISODES = """
CREATE TABLE turns (
    seq BIGSERIAL PRIMARY KEY,
    namespace TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    image_caption TEXT,
    time TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    hash TEXT NOT NULL,
    metadata TEXT,
    UNIQUE (namespace, conversation_id, turn_id)
);
CREATE INDEX turns_ns_seq ON turns (namespace, seq);
CREATE TABLE sessions (
    namespace TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    time TEXT NOT NULL,
    PRIMARY KEY (namespace, conversation_id, session_id)
);
CREATE TABLE segment_summaries (
    namespace TEXT NOT NULL,
    segment_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    summary TEXT NOT NULL,
    model TEXT NOT NULL,
    PRIMARY KEY (namespace, segment_id)
);
CREATE TABLE index_state (
    namespace TEXT NOT NULL,
    index_name TEXT NOT NULL,
    covered_seq BIGINT NOT NULL,
    PRIMARY KEY (namespace, index_name)
);
CREATE TABLE erasures (
    erasure_id TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT,
    plan TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE erased_turns (
    erasure_id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (erasure_id, namespace, conversation_id, turn_id)
);
CREATE INDEX erased_turns_by_id ON erased_turns (namespace, conversation_id, turn_id);
CREATE INDEX erased_turns_by_hash ON erased_turns (namespace, hash);
"""

_LEDGER = """
CREATE TABLE revisions (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('assertion', 'revocation')),
    subject TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    object_text TEXT NOT NULL,
    surface TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    known_from TEXT NOT NULL,
    confidence DOUBLE PRECISION NOT NULL,
    sources TEXT NOT NULL,
    asserted_by TEXT,
    target_id TEXT,
    reason TEXT,
    recorded_at TEXT NOT NULL
);
-- Subjects may be up to 1000 characters (4000 bytes), beyond a btree entry's 2704-byte limit: a
-- hash index holds 4 bytes per row whatever the key, and serves the equality lookups the ledger does.
CREATE INDEX revisions_by_subject ON revisions USING hash (subject_key);
CREATE INDEX revisions_by_target ON revisions (namespace, target_id);
CREATE INDEX revisions_by_ns_seq ON revisions (namespace, seq);
CREATE TABLE relations (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    predicate TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('supersedes', 'revokes', 'unresolved', 'adjudicated')),
    from_id TEXT NOT NULL,
    to_id TEXT NOT NULL,
    known_at TEXT NOT NULL,
    reason TEXT,
    recorded_at TEXT NOT NULL
);
CREATE INDEX relations_by_subject ON relations USING hash (subject_key);
CREATE INDEX relations_by_ns_seq ON relations (namespace, seq);
CREATE TABLE watermarks (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    seq BIGINT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (namespace, name)
);
CREATE TABLE predicates (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    cardinality TEXT NOT NULL CHECK (cardinality IN ('single', 'multi')),
    declared_at TEXT NOT NULL,
    PRIMARY KEY (namespace, name)
);
CREATE TABLE tombstones (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('turn', 'revision', 'relation', 'namespace')),
    content_hash TEXT NOT NULL,
    erasure_id TEXT NOT NULL,
    erased_at TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX tombstones_by_ns ON tombstones (namespace, seq);

-- Append-only, enforced by the database for every client: UPDATE is always refused; DELETE only
-- inside a transaction that declared an erasure (SET LOCAL emem.erasure_id), which is what
-- emem's erasure does and nothing else does. Tombstones are never deleted.
CREATE FUNCTION emem_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND TG_ARGV[0] = 'erasable'
       AND coalesce(current_setting('emem.erasure_id', true), '') <> '' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'ledger % are append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER revisions_append_only BEFORE UPDATE OR DELETE ON revisions
    FOR EACH ROW EXECUTE FUNCTION emem_append_only('erasable');
CREATE TRIGGER relations_append_only BEFORE UPDATE OR DELETE ON relations
    FOR EACH ROW EXECUTE FUNCTION emem_append_only('erasable');
CREATE TRIGGER tombstones_append_only BEFORE UPDATE OR DELETE ON tombstones
    FOR EACH ROW EXECUTE FUNCTION emem_append_only('kept');
-- TRUNCATE bypasses row triggers: refuse it with a statement trigger.
CREATE FUNCTION emem_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger % are append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER revisions_no_truncate BEFORE TRUNCATE ON revisions
    FOR EACH STATEMENT EXECUTE FUNCTION emem_no_truncate();
CREATE TRIGGER relations_no_truncate BEFORE TRUNCATE ON relations
    FOR EACH STATEMENT EXECUTE FUNCTION emem_no_truncate();
CREATE TRIGGER tombstones_no_truncate BEFORE TRUNCATE ON tombstones
    FOR EACH STATEMENT EXECUTE FUNCTION emem_no_truncate();
"""

_VECTORS = """
CREATE EXTENSION IF NOT EXISTS vector;
-- One row per dense collection (namespace x kind x embedder), as Chroma has collections; the
-- vectors of each embedder dimension live in their own table (created on first use: an HNSW
-- index needs a fixed dimension), named in this catalogue.
CREATE TABLE vector_collections (
    name TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    embedder TEXT NOT NULL,
    dim INTEGER NOT NULL CHECK (dim > 0 AND dim <= 2000)
);
CREATE INDEX vector_collections_by_ns ON vector_collections (namespace);
CREATE TABLE text_vectors (
    namespace TEXT NOT NULL,
    embedder TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    vector BYTEA NOT NULL,
    PRIMARY KEY (namespace, embedder, text_sha256)
);
"""

_COORDINATION = """
-- Change tokens of the Coordinator ("write": vectors changed; "erase": turns were erased): a
-- process compares them with what it last saw whenever it takes the coordination lock.
CREATE TABLE change_tokens (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO change_tokens VALUES ('write', 0), ('erase', 0);
"""

_NO_CONTENT_STATISTICS = """
-- ANALYZE (run by autovacuum) copies sample values of each column into pg_statistic: histogram
-- bounds and most common values, i.e. turn text, subjects, values. Those copies would outlive an
-- erasure of the rows (VACUUM FULL of emem's tables does not touch the catalog). Columns that hold
-- content get no statistics; emem never filters on them, so the planner does not need them.
ALTER TABLE turns ALTER COLUMN speaker SET STATISTICS 0, ALTER COLUMN text SET STATISTICS 0,
    ALTER COLUMN image_caption SET STATISTICS 0, ALTER COLUMN metadata SET STATISTICS 0;
ALTER TABLE segment_summaries ALTER COLUMN summary SET STATISTICS 0;
ALTER TABLE revisions ALTER COLUMN subject SET STATISTICS 0, ALTER COLUMN subject_key SET STATISTICS 0,
    ALTER COLUMN object SET STATISTICS 0, ALTER COLUMN object_text SET STATISTICS 0,
    ALTER COLUMN surface SET STATISTICS 0, ALTER COLUMN sources SET STATISTICS 0,
    ALTER COLUMN reason SET STATISTICS 0;
ALTER TABLE relations ALTER COLUMN subject_key SET STATISTICS 0, ALTER COLUMN reason SET STATISTICS 0;
ALTER TABLE text_vectors ALTER COLUMN vector SET STATISTICS 0;
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "episodes", _EPISODES),
    Migration(2, "ledger", _LEDGER),
    Migration(3, "vectors", _VECTORS),
    Migration(4, "coordination", _COORDINATION),
    Migration(5, "no statistics on content", _NO_CONTENT_STATISTICS),
)


def vector_table(dim: int) -> str:
    """Name of the table holding vectors of this dimension."""
    return f"vectors_{int(dim)}"


def vector_table_ddl(dim: int) -> str:
    """DDL for one dimension's vector table with its HNSW (cosine) index; idempotent."""
    t = vector_table(dim)
    return f"""
CREATE TABLE IF NOT EXISTS {t} (
    collection TEXT NOT NULL REFERENCES vector_collections (name) ON DELETE CASCADE,
    key TEXT NOT NULL,
    embedding vector({int(dim)}) NOT NULL,
    PRIMARY KEY (collection, key)
);
CREATE INDEX IF NOT EXISTS {t}_hnsw ON {t} USING hnsw (embedding vector_cosine_ops);
ALTER TABLE {t} ALTER COLUMN embedding SET STATISTICS 0;
"""


def current_version(conn: psycopg.Connection) -> int:
    """The highest migration applied (0 for an empty database)."""
    cur = conn.cursor(row_factory=tuple_row)
    exists = cur.execute("SELECT to_regclass('emem_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = cur.execute("SELECT coalesce(max(version), 0) FROM emem_migrations").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: psycopg.Connection, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Apply every pending migration, each in its own transaction; returns the versions applied.

    Args:
        conn: an autocommit connection (each step opens its own transaction).
        migrations: the steps, in version order (tests pass a prefix to build an older schema).

    Returns:
        The versions applied by this call (empty when the schema was current).
    """
    applied: list[int] = []
    known = max((m.version for m in migrations), default=0)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS emem_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        _refuse_newer(current_version(conn), known)
    for step in migrations:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            if step.version <= current_version(conn):
                continue  # another process applied it meanwhile
            conn.execute(step.sql)  # type: ignore[arg-type]  # our own constant DDL
            conn.execute(
                "INSERT INTO emem_migrations (version, name) VALUES (%s, %s)", (step.version, step.name)
            )
            applied.append(step.version)
    return applied


def _refuse_newer(have: int, known: int) -> None:
    if have > known:
        raise StoreError(
            f"the database's emem schema is version {have}, newer than this emem knows ({known}): "
            "upgrade emem before opening it"
        )
