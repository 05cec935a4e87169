"""The storage contract (emem.storage, docs/storage.md): every backend conforms to the protocols
and keeps their semantics; backends are chosen by argument, EMEM_BACKEND or --backend. The
conformance tests take the parametrised `backend` fixture, so they run once per backend."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from emem.cli import app
from emem.errors import ConflictError, InputError
from emem.ledger.store import Ledger
from emem.memory import Memory
from emem.models import Turn
from emem.storage import (
    BACKEND_ENV,
    Coordinator,
    EpisodeStore,
    ErasedTurn,
    LedgerStore,
    StorageBackend,
    TextVectorCache,
    VectorIndex,
    open_backend,
)
from emem.storage.select import redact

T0 = datetime(2024, 1, 1, tzinfo=UTC)
MakeMemory = Callable[..., Memory]


def turn(tid: str, text: str, conv: str = "c", session: str = "s") -> Turn:
    return Turn(conversation_id=conv, session_id=session, turn_id=tid, speaker="A", text=text, time=T0)


# -- selection ------------------------------------------------------------------------------------


def test_default_is_embedded_and_env_and_argument_choose(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    with Memory(tmp_path / "a") as m:
        assert m.backend.name == "embedded" and m.backend.location == str(tmp_path / "a")
    monkeypatch.setenv(BACKEND_ENV, "nosuch://x")
    with pytest.raises(InputError, match="unknown backend 'nosuch://x'.*embedded"):
        Memory(tmp_path / "b")
    with Memory(tmp_path / "b", backend="embedded") as m:  # the argument wins over the environment
        assert m.backend.name == "embedded"


def test_bad_specs_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="backend"):
        Memory(tmp_path, backend="  ")
    with pytest.raises(InputError, match="takes no URL"):
        Memory(tmp_path, backend="embedded://elsewhere")
    with pytest.raises(InputError, match="StorageBackend"):
        Memory(tmp_path, backend=42)  # type: ignore[arg-type]
    with pytest.raises(InputError) as err:
        open_backend("mysql://bob:hunter2@db/x", tmp_path)
    assert "hunter2" not in str(err.value)
    assert redact("postgres://bob:hunter2@db:5432/x") == "postgres://bob:***@db:5432/x"
    assert redact("postgres://db/x") == "postgres://db/x"


def test_an_open_backend_is_shared_and_not_closed_by_memory(tmp_path: Path) -> None:
    backend = open_backend("embedded", tmp_path)
    with Memory(tmp_path, backend=backend) as m:
        m.add_turns([turn("1", "hello there")], "ns")
    with Memory(tmp_path, backend=backend) as m:  # still open: the first Memory did not close it
        assert m.stats("ns").turns == 1
    backend.close()


def test_cli_backend_option(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["--backend", "nosuch://x", "stats", "-n", "ns", "--home", str(tmp_path)])
    assert res.exit_code == 2 and "unknown backend" in res.stderr and "Traceback" not in res.output
    res = CliRunner().invoke(app, ["--backend", "embedded", "stats", "-n", "ns", "--home", str(tmp_path)])
    assert "unknown backend" not in res.output


# -- conformance (once per backend) ---------------------------------------------------------------


def test_backend_provides_every_protocol(memory_factory: MakeMemory) -> None:
    b = memory_factory().backend
    assert isinstance(b, StorageBackend)
    assert isinstance(b.episodes, EpisodeStore) and isinstance(b.vectors, VectorIndex)
    assert isinstance(b.text_vectors, TextVectorCache) and isinstance(b.coordinator, Coordinator)
    assert isinstance(b.ledger, LedgerStore) and b.has_ledger()


def test_seqs_grow_are_never_reused_and_erased_turns_stay_refused(memory_factory: MakeMemory) -> None:
    eps = memory_factory().backend.episodes
    first = eps.append("ns", [turn("1", "one"), turn("2", "two")])
    other = eps.append("other", [turn("1", "one")])
    assert first.last_seq > first.first_seq > 0
    assert other.first_seq > first.last_seq  # unique in the store, across namespaces
    gone = eps.turns("ns", turn_id="2")[0]
    counts = eps.erase("ns", "e1", "forget", "test", "{}", [ErasedTurn(gone.seq, "c", "s", "2", gone.hash)])
    assert counts["turns"] == 1 and [p.erasure_id for p in eps.pending_erasures()] == ["e1"]
    assert [t.turn_id for t in eps.erased_turns("e1")] == ["2"]
    with pytest.raises(ConflictError, match="erased"):
        eps.append("ns", [turn("2", "two")])
    again = eps.append("ns", [turn("2", "two")], restore=True)
    assert again.first_seq > other.last_seq  # the erased seq is not reused
    eps.finish_erasure("e1")
    assert eps.pending_erasures() == []
    assert eps.turns("other")[0].text == "one" and eps.counts("other") == (1, 1, 1)


def test_a_refused_batch_stores_nothing(memory_factory: MakeMemory) -> None:
    eps = memory_factory().backend.episodes
    eps.append("ns", [turn("1", "one")])
    with pytest.raises(ConflictError, match="different content"):
        eps.append("ns", [turn("2", "two"), turn("1", "changed")])
    assert [t.turn_id for t in eps.turns("ns")] == ["1"] and eps.last_seq("ns") == eps.turns("ns")[0].seq
    assert eps.append("ns", [turn("1", "one")]).unchanged == 1


def test_ledger_rows_are_append_only_except_purge(memory_factory: MakeMemory) -> None:
    m = memory_factory()
    store = m.backend.ledger
    ledger = Ledger(store)
    rev = ledger.assert_fact("ns", "Dana", "lives_in", "Lisbon", T0)
    ledger.assert_fact("other", "Dana", "lives_in", "Porto", T0)
    assert store.find("ns", rev.id) == rev and store.find("other", rev.id) is None
    with pytest.raises(RuntimeError), store.transaction("ns"):
        ledger.assert_fact("ns", "Dana", "likes", "tea", T0)
        raise RuntimeError("rolled back")
    assert ledger.count("ns") == 1
    assert store.purge("ns", [rev.id], tombstones=[(rev.id, "revision", "h")], erasure_id="e") == (1, 0)
    assert store.integrity_problems() == []
    assert [t["id"] for t in store.tombstones("ns")] == [rev.id] and store.tombstones("other") == []
    assert ledger.count("other") == 1


def test_vector_index_scopes_upserts_and_erases(memory_factory: MakeMemory) -> None:
    vectors = memory_factory().backend.vectors
    basis = np.eye(4, dtype=np.float32)
    assert not vectors.exists("ns", "turns", "m") and vectors.query("ns", "turns", "m", basis[0], 3) == []
    vectors.upsert("ns", "turns", "m", ["1", "2", "3"], basis[:3])
    vectors.upsert("ns", "turns", "m", ["1"], basis[:1])  # idempotent
    vectors.upsert("other", "turns", "m", ["1"], basis[3:])
    vectors.flush()
    assert vectors.count("ns", "turns", "m") == 3 and vectors.keys("other", "turns", "m") == {"1"}
    assert vectors.query("ns", "turns", "m", basis[1], 1)[0][0] == "2"
    assert np.allclose(vectors.get("other", "turns", "m", ["1", "9"])["1"], basis[3])
    done = vectors.erase("ns", {"1"}, live={"1", "2"})  # "3" has no live turn: an orphan, gone too
    assert done.vectors == 2 and vectors.keys("ns", "turns", "m") == {"2"}
    vectors.compact()
    assert vectors.keys("other", "turns", "m") == {"1"}
    assert vectors.erase("ns", set(), whole_namespace=True).vectors == 1
    assert not vectors.exists("ns", "turns", "m") and vectors.exists("other", "turns", "m")


def test_text_vector_cache_is_per_namespace(memory_factory: MakeMemory) -> None:
    cache = memory_factory().backend.text_vectors
    v = np.ones(4, dtype=np.float32)
    cache.put("ns", "m", {"a": v, "b": v})
    cache.put("other", "m", {"a": v})
    assert set(cache.get("ns", "m", ["a", "b", "z"])) == {"a", "b"} and cache.get("ns", "m2", ["a"]) == {}
    cache.discard("ns", "m", ["b"])
    assert cache.count("ns") == 1 and cache.erase_namespace("ns") == 1
    assert cache.count("ns") == 0 and cache.count("other") == 1


def test_coordinator_announces_changes(memory_factory: MakeMemory) -> None:
    coordinator = memory_factory().backend.coordinator
    heard: list[set[str]] = []
    coordinator.subscribe(heard.append)
    with coordinator.exclusive():
        coordinator.bump("erase", notify_local=True)
        with coordinator.shared():  # re-entrant: joins the exclusive hold
            pass
    assert {"erase"} in heard


def test_stores_take_the_protocols_parameters(memory_factory: MakeMemory) -> None:
    """isinstance only checks that methods exist; callers pass arguments by name, so each store's
    methods must take the protocol's parameters (names, kinds and defaults; extras need defaults)."""
    b = memory_factory().backend
    pairs = [
        (EpisodeStore, b.episodes),
        (LedgerStore, b.ledger),
        (VectorIndex, b.vectors),
        (TextVectorCache, b.text_vectors),
        (Coordinator, b.coordinator),
    ]
    problems = []
    for proto, store in pairs:
        for name, member in vars(proto).items():
            if name.startswith("_") or not callable(member):
                continue
            want = list(inspect.signature(member).parameters.values())[1:]
            have = inspect.signature(getattr(store, name)).parameters
            for p in want:
                if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):  # names of *args do not matter
                    if not any(q.kind == p.kind for q in have.values()):
                        problems.append(f"{type(store).__name__}.{name}: takes no {p}")
                    continue
                q = have.get(p.name)
                if q is None or q.kind != p.kind or q.default != p.default:
                    problems.append(f"{type(store).__name__}.{name}: {p.name} is {q}, protocol says {p}")
            extra = [q for n, q in have.items() if n not in {p.name for p in want}]
            problems += [
                f"{type(store).__name__}.{name}: extra {q} has no default"
                for q in extra
                if q.default is q.empty and q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD)
            ]
    assert problems == []
