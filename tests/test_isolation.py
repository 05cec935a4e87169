"""Guarantee 4, tenant isolation: randomised probes over many namespaces with overlapping names,
ids, entities and texts; no read in one namespace returns anything of another. The long run is
`python -m emem.eval.isolation_probes --probes 10000`."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from emem.errors import InputError
from emem.eval import isolation_probes as iso
from emem.memory import Memory


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("isolation") / "home"
    memory = Memory(home, embedder=iso.HashEmbedder())
    yield memory, iso.build_world(memory, iso.NAMESPACES, seed=11)
    memory.close()


def test_three_hundred_random_probes_find_no_leak(world) -> None:
    memory, w = world
    rng = random.Random(5)
    kinds, leaks = set(), []
    for i in range(300):
        kind, ns, leaked = iso.probe(memory, w, rng)
        kinds.add(kind)
        leaks += [f"probe {i} {kind} in {ns!r}: {t}" for t in leaked]
    assert leaks == []
    assert {"search", "ask-fast", "ask-deep", "ask-auto", "facts", "resolve", "history", "stats"} <= kinds


def test_the_probe_does_catch_a_leak(world, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sanity check of the detector: a search that ignores its namespace is caught."""
    memory, w = world
    real = Memory.search
    monkeypatch.setattr(
        memory,
        "search",
        lambda q, k=10, *, namespace: real(
            memory, q, k, namespace="acme.prod" if namespace != "acme.prod" else "acme"
        ),
    )
    rng = random.Random(1)
    leaks = [
        t
        for _ in range(60)
        for kind, _, leaked in [iso.probe(memory, w, rng)]
        if kind == "search"
        for t in leaked
    ]
    assert leaks


def test_same_ids_and_names_in_every_namespace_stay_apart(world) -> None:
    memory, w = world
    for ns in ("acme", "Acme", "ACME", "acme/prod", "a/b"):
        turns = memory.episodes.turns(ns, conversation_id="c1", session_id="S0")
        assert [t.turn_id for t in turns] == ["S0:0", "S0:1", "S0:2", "S0:3", "S0:4"]
        assert all(w.tokens[ns] in t.text.lower() for t in turns)
        values = {v for f in memory.facts(namespace=ns, subject="Dana") for v in f.values}
        assert f"{w.tokens[ns]} cake" in values and not any(
            o in " ".join(values).lower() for o in w.others(ns)
        )


def test_erasure_in_one_namespace_touches_no_other(tmp_path: Path) -> None:
    with Memory(tmp_path / "home", embedder=iso.HashEmbedder()) as memory:
        w = iso.build_world(memory, ["acme", "Acme", "acme/prod"], seed=3)
        memory.forget(namespace="acme", conversation_id="c1")
        memory.forget(namespace="acme", subject="Dana")
        assert memory.stats("acme").turns < 15
        for ns in ("Acme", "acme/prod"):
            assert memory.stats(ns).turns == w.turns_per_namespace
            assert memory.search(w.tokens[ns], namespace=ns, k=1)
            assert {v for f in memory.facts(namespace=ns, subject="Dana") for v in f.values}
        memory.drop_namespace("Acme")
        assert memory.stats("acme/prod").turns == w.turns_per_namespace
        assert memory.stats("Acme").turns == 0


@pytest.mark.parametrize("bad", ["", " ", "acme prod", "../x", "%", "*", "a" * 129, None, 7, "ns\n"])
def test_every_read_and_write_refuses_an_invalid_namespace(memory: Memory, bad: object) -> None:
    calls = [
        lambda: memory.search("x", namespace=bad),  # type: ignore[arg-type]
        lambda: memory.ask("x?", namespace=bad),  # type: ignore[arg-type]
        lambda: memory.facts(namespace=bad),  # type: ignore[arg-type]
        lambda: memory.history("Dana", namespace=bad),  # type: ignore[arg-type]
        lambda: memory.stats(bad),  # type: ignore[arg-type]
        lambda: memory.add_turns([], namespace=bad),  # type: ignore[arg-type]
        lambda: memory.forget(namespace=bad, turn_ids=["x"]),  # type: ignore[arg-type]
        lambda: memory.drop_namespace(bad),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(InputError, match="namespace"):
            call()


@pytest.mark.slow
def test_eval_harness_rows_do_not_leak_between_samples(tmp_path: Path) -> None:
    pytest.importorskip("emem.eval.systems")
    leaks = iso.harness_probe(tmp_path / "home", 2, ["emem-fast", "emem-deep", "rag-bm25"], tmp_path / "run")
    assert leaks == []
