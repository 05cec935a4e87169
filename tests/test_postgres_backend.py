"""The PostgreSQL + pgvector backend against a real server (the session's `postgres_server`):
versioned migrations, append-only enforced by the database, erased rows gone from every table
and relation file after compaction, per-namespace seq order under concurrent writers on several
processes, vector isolation, and clear errors for an unreachable or foreign database."""

from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import psycopg
import pytest

from emem.errors import ConflictError, StoreError
from emem.ledger.models import make_assertion
from emem.models import Turn
from emem.storage import EpisodeStore, LedgerStore, StorageBackend, TextVectorCache, VectorIndex
from emem.storage.contract import Coordinator, ErasedTurn
from emem.storage.postgres import PostgresBackend, open_postgres
from emem.storage.postgres.db import Database
from emem.storage.postgres.schema import MIGRATIONS, current_version, migrate

NEEDLE = "Vermiculated Quasarfrost of Ybbsitz"
T0 = datetime(2023, 1, 5, 10, 0, tzinfo=UTC)


def turn(i: int, text: str | None = None, conv: str = "c1", session: str = "S1") -> Turn:
    return Turn(
        conversation_id=conv,
        session_id=session,
        turn_id=f"{session}:{i}",
        speaker="Dana",
        text=text or f"plain turn number {i}",
        time=T0,
    )


@pytest.fixture
def pg(postgres_url: str):
    backend = open_postgres(postgres_url, Path("."))
    yield backend
    backend.close()


def test_backend_satisfies_the_storage_contract(pg: PostgresBackend) -> None:
    assert isinstance(pg, StorageBackend)
    assert isinstance(pg.episodes, EpisodeStore)
    assert isinstance(pg.ledger, LedgerStore)
    assert isinstance(pg.vectors, VectorIndex)
    assert isinstance(pg.text_vectors, TextVectorCache)
    assert isinstance(pg.coordinator, Coordinator)
    assert pg.location.startswith("postgresql://127.0.0.1:") and "@" not in pg.location


# -- migrations ---------------------------------------------------------------------------------------


def test_fresh_database_is_migrated_to_the_latest_version_once(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert current_version(conn) == 0
        assert migrate(conn) == [m.version for m in MIGRATIONS]
        assert migrate(conn) == []  # idempotent
        assert current_version(conn) == MIGRATIONS[-1].version
        names = [r[0] for r in conn.execute("SELECT name FROM emem_migrations ORDER BY version")]
    assert names == [m.name for m in MIGRATIONS]


def test_an_older_schema_is_upgraded_on_open_and_keeps_its_rows(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        migrate(conn, MIGRATIONS[:1])  # a store written by an emem that knew only the episodes
        conn.execute(
            "INSERT INTO turns (namespace, conversation_id, session_id, turn_id, speaker, text, time, "
            "recorded_at, hash) VALUES ('ns', 'c1', 'S1', 'S1:1', 'Dana', 'kept across upgrades', "
            "'2023-01-05T10:00:00+00:00', '2023-01-05T10:00:00+00:00', 'h')"
        )
        assert current_version(conn) == 1
    backend = open_postgres(postgres_url, Path("."))
    try:
        assert [t.text for t in backend.episodes.turns("ns")] == ["kept across upgrades"]
        assert backend.ledger.integrity_problems() == []
        assert backend.ledger.count_assertions("ns") == 0
    finally:
        backend.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert current_version(conn) == MIGRATIONS[-1].version


def test_a_schema_newer_than_this_emem_is_refused(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        migrate(conn)
        conn.execute("INSERT INTO emem_migrations (version, name) VALUES (999, 'from the future')")
    with pytest.raises(StoreError, match="version 999, newer than this emem knows"):
        open_postgres(postgres_url, Path("."))


def _open_and_report(url: str, queue: mp.Queue) -> None:
    try:
        db = Database(url)
        db.close()
        queue.put("ok")
    except Exception as exc:  # reported to the parent, which fails the test with it
        queue.put(repr(exc))


def test_processes_opening_a_fresh_database_at_once_migrate_it_exactly_once(postgres_url: str) -> None:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_open_and_report, args=(postgres_url, queue)) for _ in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    assert results == ["ok"] * 4
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute(
            "SELECT version, count(*) FROM emem_migrations GROUP BY version ORDER BY 1"
        ).fetchall()
    assert rows == [(m.version, 1) for m in MIGRATIONS]


# -- append-only, enforced by the database ------------------------------------------------------------


def _assertion(namespace: str = "ns", obj: str = "Lisbon") -> object:
    return make_assertion(
        namespace=namespace,
        subject="Dana",
        predicate="lives_in",
        object_text=obj,
        valid_from=T0,
        valid_to=None,
        known_from=T0,
        sources=["c1/S1:1"],
        surface=None,
        confidence=1.0,
        asserted_by="user",
        declared={},
    )


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE revisions SET object_text = 'Porto'",
        "DELETE FROM revisions",
        "TRUNCATE revisions",
        "UPDATE tombstones SET reason = 'x'",
        "DELETE FROM tombstones",
        "TRUNCATE relations",
    ],
)
def test_ledger_history_cannot_be_rewritten_by_any_client(
    pg: PostgresBackend, postgres_url: str, sql: str
) -> None:
    with pg.ledger.transaction("ns"):
        rev = pg.ledger.insert_revision(_assertion())  # type: ignore[arg-type]
    pg.ledger.purge("ns", [], [], [("turn:c1/S1:9", "turn", "h")], erasure_id="e0")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.RestrictViolation, match="append-only"):
            conn.execute(sql)  # type: ignore[arg-type]
    assert pg.ledger.find("ns", rev.id) == rev
    assert len(pg.ledger.tombstones("ns")) == 1


def test_purge_lifts_the_guard_for_its_own_transaction_only(pg: PostgresBackend, postgres_url: str) -> None:
    with pg.ledger.transaction("ns"):
        keep = pg.ledger.insert_revision(_assertion(obj="Porto"))  # type: ignore[arg-type]
        gone = pg.ledger.insert_revision(_assertion(obj="Lisbon"))  # type: ignore[arg-type]
    assert pg.ledger.purge("ns", [gone.id], [], [(gone.id, "revision", "digest")], erasure_id="e1") == (1, 0)
    assert [r.id for r in pg.ledger.load("ns")[0]] == [keep.id]
    assert [t["id"] for t in pg.ledger.tombstones("ns")] == [gone.id]
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # the setting did not leak anywhere
        with pytest.raises(psycopg.errors.RestrictViolation):
            conn.execute("DELETE FROM revisions")
    assert pg.ledger.integrity_problems() == []


def test_a_disabled_guard_is_reported(pg: PostgresBackend, postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE revisions DISABLE TRIGGER revisions_append_only")
    assert pg.ledger.integrity_problems() == [
        "revisions: append-only trigger revisions_append_only is disabled"
    ]


# -- episodes -------------------------------------------------------------------------------------------


def test_episode_rules_match_the_embedded_store(pg: PostgresBackend) -> None:
    eps = pg.episodes
    report = eps.append("ns", [turn(1), turn(2)])
    assert (report.added, report.first_seq, report.last_seq) == (2, 1, 2)
    assert eps.append("ns", [turn(1)]).unchanged == 1
    with pytest.raises(ConflictError, match="different content"):
        eps.append("ns", [turn(3), turn(1, "changed text")])
    assert eps.last_seq("ns") == 2  # the batch was refused whole: turn 3 is not there either
    gone = eps.turns("ns", turn_id="S1:2")[0]
    eps.erase("ns", "e1", "forget", None, "{}", [ErasedTurn(gone.seq, "c1", "S1", "S1:2", gone.hash)])
    assert [p.erasure_id for p in eps.pending_erasures()] == ["e1"]
    with pytest.raises(ConflictError, match="was erased"):
        eps.append("ns", [turn(2)])
    assert eps.append("ns", [turn(2)], restore=True).last_seq > gone.seq  # seqs are never reused
    eps.finish_erasure("e1")
    assert eps.pending_erasures() == []
    assert eps.counts("other") == (0, 0, 0) and eps.turns("other") == []


def _append_many(url: str, writer: int, n: int) -> None:
    backend = open_postgres(url, Path("."))
    try:
        for i in range(n):
            backend.episodes.append("shared", [turn(i, conv=f"w{writer}")])
    finally:
        backend.close()


def test_concurrent_writers_on_several_processes_never_let_a_reader_skip_a_seq(postgres_url: str) -> None:
    """A reader that catches up with `turns(after_seq=last seen)` while three processes append
    must end with every turn: no seq may become visible before a smaller one of the namespace."""
    backend = open_postgres(postgres_url, Path("."))
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(postgres_url, w, 40)) for w in range(3)]
    try:
        for p in procs:
            p.start()
        seen: list[int] = []
        covered = 0
        while any(p.is_alive() for p in procs) or backend.episodes.last_seq("shared") > covered:
            new = backend.episodes.turns("shared", after_seq=covered)
            if new:
                seen += [t.seq for t in new]
                covered = new[-1].seq
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        stored = [t.seq for t in backend.episodes.turns("shared")]
        assert len(stored) == 120
        assert seen == stored  # nothing skipped, nothing twice, in order
    finally:
        backend.close()


# -- vectors ----------------------------------------------------------------------------------------------


def _unit(rows: int, dim: int = 16, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_vector_search_stays_in_its_namespace_and_finds_k_in_a_small_one(pg: PostgresBackend) -> None:
    big, small = _unit(600, seed=1), _unit(5, seed=2)
    pg.vectors.upsert("big", "turns", "m", [str(i) for i in range(600)], big)
    pg.vectors.upsert("small", "turns", "m", [f"s{i}" for i in range(5)], small)
    hits = pg.vectors.query("small", "turns", "m", big[0], 5)
    assert sorted(k for k, _ in hits) == [f"s{i}" for i in range(5)]
    top = pg.vectors.query("big", "turns", "m", big[7], 3)
    assert top[0][0] == "7" and abs(top[0][1] - 1.0) < 1e-5
    assert all(not k.startswith("s") for k, _ in pg.vectors.query("big", "turns", "m", small[0], 50))
    got = pg.vectors.get("small", "turns", "m", ["s1", "nope"])
    assert list(got) == ["s1"] and np.allclose(got["s1"], small[1])
    assert pg.vectors.count("small", "turns", "other-model") == 0 and not pg.vectors.exists("x", "turns", "m")


def test_vector_erasure_by_key_by_liveness_and_whole_namespace(pg: PostgresBackend) -> None:
    pg.vectors.upsert("ns", "turns", "m", ["1", "2", "3", "4"], _unit(4))
    pg.vectors.upsert("other", "turns", "m", ["1"], _unit(1))
    assert pg.vectors.erase("ns", {"1"}).vectors == 1
    assert pg.vectors.erase("ns", set(), live={"2", "3"}).vectors == 1
    assert pg.vectors.keys("ns", "turns", "m") == {"2", "3"}
    assert pg.vectors.erase("ns", set(), whole_namespace=True).vectors == 2
    assert not pg.vectors.exists("ns", "turns", "m")
    assert pg.vectors.keys("other", "turns", "m") == {"1"}


# -- erasure leaves no trace in rows or relation files ------------------------------------------------------


def _files_holding(server_data: Path, url: str, needle: bytes) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # flush shared buffers, so the files show what the server holds
        oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
    return [
        p.name
        for p in (server_data / "base" / str(oid)).iterdir()
        if p.is_file() and needle in p.read_bytes()
    ]


def _rows_holding(url: str, needle: str) -> list[str]:
    with psycopg.connect(url) as conn:
        tables = [
            r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        ]
        return [
            t
            for t in tables
            if conn.execute(f"SELECT count(*) FROM {t} x WHERE x::text LIKE %s", (f"%{needle}%",)).fetchone()[
                0
            ]
        ]  # type: ignore[index]


def test_erased_text_leaves_every_row_and_relation_file_after_compaction(
    pg: PostgresBackend, postgres_url: str, postgres_server
) -> None:
    secret = f"I moved to {NEEDLE} last spring."
    pg.episodes.append("ns", [turn(1, secret), turn(2, "an unrelated turn that stays")])
    pg.episodes.append("other", [turn(1, "another tenant's turn")])
    pg.episodes.put_segment_summary("ns", "c1/S1", "h", f"Dana moved to {NEEDLE}.", "offline")
    with pg.ledger.transaction("ns"):
        rev = pg.ledger.insert_revision(_assertion(obj=NEEDLE))  # type: ignore[arg-type]
    assert _rows_holding(postgres_url, NEEDLE)
    assert _files_holding(postgres_server.data, postgres_url, NEEDLE.encode())  # the scan can see it

    gone = pg.episodes.turns("ns", turn_id="S1:1")[0]
    pg.episodes.erase("ns", "e1", "forget", None, "{}", [ErasedTurn(gone.seq, "c1", "S1", "S1:1", gone.hash)])
    pg.ledger.purge(
        "ns", [rev.id], [], [(rev.id, "revision", "d"), ("turn:c1/S1:1", "turn", gone.hash)], erasure_id="e1"
    )
    assert _rows_holding(postgres_url, NEEDLE) == []
    assert _files_holding(postgres_server.data, postgres_url, NEEDLE.encode())  # deleted is not yet gone

    report = pg.compact()
    assert report.warnings == [] and {"turns", "revisions", "segment_summaries"} <= set(report.compacted)
    assert _files_holding(postgres_server.data, postgres_url, NEEDLE.encode()) == []
    assert [t.text for t in pg.episodes.turns("ns")] == ["an unrelated turn that stays"]
    assert [t.text for t in pg.episodes.turns("other")] == ["another tenant's turn"]


def _server_files_holding(root: Path, needle: bytes) -> list[str]:
    """Every file under a server's root (data directory, WAL, log) holding `needle`."""
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()
    )


@pytest.mark.parametrize("wal_recycle", ["off", "on"])
def test_after_compaction_only_recycled_wal_can_still_hold_erased_text(wal_recycle: str) -> None:
    """A server of its own, so nothing else writes the needle: after the erasure and
    `compact()`, no file of the whole data directory outside `pg_wal/`, nor the server's log,
    holds the erased text. compact() then retires the WAL segment holding the rows: with
    `wal_recycle = off` it is deleted and nothing anywhere holds the text; with the default `on`
    it is renamed for reuse and may keep the old bytes, which is what docs/postgres.md says."""
    from emem.storage.postgres.server import LocalPostgres

    with LocalPostgres() as server:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET wal_recycle = {wal_recycle}")  # type: ignore[arg-type]
            conn.execute("SELECT pg_reload_conf()")
            conn.execute("CREATE DATABASE scan")
        url = server.url("scan")
        backend = open_postgres(url, Path("."))
        try:
            backend.episodes.append("ns", [turn(1, f"I moved to {NEEDLE} last spring."), turn(2, "stays")])
            backend.episodes.put_segment_summary("ns", "c1/S1", "h", f"Dana moved to {NEEDLE}.", "offline")
            with backend.ledger.transaction("ns"):
                rev = backend.ledger.insert_revision(_assertion(obj=NEEDLE))  # type: ignore[arg-type]
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("ANALYZE")
                conn.execute("CHECKPOINT")
            held = _server_files_holding(server.root, NEEDLE.encode())
            assert any(f.startswith("data/base/") for f in held) and any(
                f.startswith("data/pg_wal/") for f in held
            )

            gone = backend.episodes.turns("ns", turn_id="S1:1")[0]
            backend.episodes.erase(
                "ns", "e1", "forget", None, "{}", [ErasedTurn(gone.seq, "c1", "S1", "S1:1", gone.hash)]
            )
            backend.ledger.purge(
                "ns",
                [rev.id],
                [],
                [(rev.id, "revision", "d"), ("turn:c1/S1:1", "turn", gone.hash)],
                erasure_id="e1",
            )
            assert backend.compact().warnings == []
        finally:
            backend.close()
        held = _server_files_holding(server.root, NEEDLE.encode())
        assert all(f.startswith("data/pg_wal/") for f in held), held
        if wal_recycle == "off":
            assert held == []


# -- errors --------------------------------------------------------------------------------------------------


def test_a_long_non_ascii_subject_is_stored_and_resolved(postgres_url: str, tmp_path: Path) -> None:
    """1000 CJK characters (3000 bytes) exceed a btree entry's limit: the subject index is a hash."""
    from emem.memory import Memory

    subject = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(1000))
    with Memory(tmp_path, backend=postgres_url) as m:
        m.assert_fact(subject, "lives_in", "Lisbon", namespace="ns", valid_from="2023-01-01T00:00:00+00:00")
        assert m.resolve(subject, "lives_in", namespace="ns").values == ["Lisbon"]


def test_a_statement_the_database_refuses_is_a_store_error_not_unreachable(pg: PostgresBackend) -> None:
    with pg.ledger.transaction("ns"):
        pg.ledger.insert_revision(_assertion())  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="refused an emem statement.*append-only"):
        pg.db.rows("DELETE FROM revisions")


def test_an_unreachable_server_is_one_clear_error(tmp_path: Path) -> None:
    from emem.storage.postgres.server import free_port

    url = f"postgresql://emem:secret@127.0.0.1:{free_port()}/nowhere?connect_timeout=2"
    code = (
        "import sys\nfrom pathlib import Path\nfrom emem.storage.postgres import db\n"
        "db.CONNECT_TIMEOUT_S = 3\nfrom emem.storage.postgres import open_postgres\n"
        "from emem.errors import StoreError\n"
        "try:\n    open_postgres(sys.argv[1], Path('.'))\nexcept StoreError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, timeout=120)
    assert "cannot connect to PostgreSQL" in out.stdout and "secret" not in out.stdout
    assert "Traceback" not in out.stderr


def test_forget_through_memory_leaves_no_trace_in_rows_statistics_or_relation_files(
    postgres_url: str, postgres_server, tmp_path: Path
) -> None:
    """`Memory.forget` end to end (erasure orchestration, then compaction): the turn's text, the
    facts and summaries quoting it, and its vector (stored bit for bit by an exact embedder) are
    gone from every row, from the planner statistics ANALYZE gathered, and from every relation file
    of the database; the other tenant keeps its copy of the same sentence shape."""
    from test_erasure import OTHER_CITY, SECRET_CITY, SECRET_TURN, ExactEmbedder, conversation

    from emem.memory import Memory

    vector = ExactEmbedder().embed([f"Dana: {SECRET_TURN}"])[0].tobytes()
    with Memory(tmp_path, backend=postgres_url, embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
        m.add_conversation(conversation("c2", city=OTHER_CITY), namespace="other")
        m.index("ns")
        m.index("other")
        assert SECRET_CITY in m.ask("Where did Dana move to?", namespace="ns", mode="deep").model_dump_json()
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("ANALYZE")  # what autovacuum does on its own once tables grow
        data = postgres_server.data
        assert _rows_holding(postgres_url, SECRET_CITY), "precondition: the rows hold it"
        assert _files_holding(data, postgres_url, SECRET_CITY.encode()), "precondition: the files hold it"
        assert _files_holding(data, postgres_url, vector), "precondition: the vector is stored bit for bit"

        report = m.forget(namespace="ns", turn_ids=["S1:1"], conversation_id="c1", reason="user request")

        assert report.complete and report.turns == 1 and report.vectors == 1, report.warnings
        assert _rows_holding(postgres_url, SECRET_CITY) == []
        with psycopg.connect(postgres_url) as conn:
            stats = conn.execute("SELECT count(*) FROM pg_stats WHERE array_to_string(histogram_bounds, ' ') "
                                 "LIKE %s OR array_to_string(most_common_vals, ' ') LIKE %s",
                                 (f"%{SECRET_CITY}%", f"%{SECRET_CITY}%")).fetchone()  # fmt: skip
        assert stats == (0,)
        assert _files_holding(data, postgres_url, SECRET_CITY.encode()) == []
        assert _files_holding(data, postgres_url, vector) == []
        assert (
            SECRET_CITY not in m.ask("Where did Dana move to?", namespace="ns", mode="deep").model_dump_json()
        )
        assert any(OTHER_CITY in t.text for t in m.episodes.turns("other"))


def test_a_server_starts_from_binaries_inside_a_private_folder(tmp_path: Path) -> None:
    """A checkout in a private folder (mode 700, as `mktemp -d` makes) hides its virtualenv's
    PostgreSQL from `nobody`, the user the server runs as under root: the binaries are then run
    from a copy every user can read, and the server starts and serves pgvector."""
    import os

    from emem.storage.postgres.server import LocalPostgres, binaries, reachable_by_others, readable_copy

    private = tmp_path / "private" / "bin"
    private.mkdir(parents=True)
    (tmp_path / "private").chmod(0o700)
    assert not reachable_by_others(private)
    copied = readable_copy(binaries())
    assert reachable_by_others(copied) and (copied / "initdb").exists()
    if os.geteuid() != 0:
        return  # not root: the server runs as this user, who can read the virtualenv anyway
    server = LocalPostgres(fsync=False)
    server.bin = copied
    with server, psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        assert conn.execute("SELECT '[1,2]'::vector").fetchone() == ("[1,2]",)
