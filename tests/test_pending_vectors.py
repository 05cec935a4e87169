"""Turn vectors a read's catch-up holds in memory instead of writing (emem.index.manager
PENDING_MAX): reads find them as if written, `close` and `index` write them with the usual scrub,
and an erasure in between means they are never written at all."""

from __future__ import annotations

from pathlib import Path

from conftest import small_conversation

from emem.eval.isolation_probes import HashEmbedder
from emem.index.chroma import ChromaHandle
from emem.index.manager import DENSE_TURNS, PENDING_MAX
from emem.memory import Memory

NEW = {str(s) for s in range(7, 13)}
"""Keys (seqs) of the second conversation's six turns."""


def started(home: Path) -> Memory:
    """A memory with c1 indexed durably and c2 appended, not indexed yet."""
    m = Memory(home, embedder=HashEmbedder())
    m.add_conversation(small_conversation("c1"), namespace="ns")
    m.index("ns")
    m.add_conversation(small_conversation("c2"), namespace="ns")
    return m


def hits(m: Memory, query: str) -> list[tuple[str, str, float]]:
    return [(h.conversation_id, h.turn_id, round(h.score, 9)) for h in m.search(query, namespace="ns", k=6)]


def test_a_read_holds_new_vectors_and_finds_them_like_written_ones(tmp_path: Path) -> None:
    m = started(tmp_path / "a")
    held = hits(m, "parrot Kiwi")
    dense = m.indexes.namespace_indexes("ns").dense
    assert set(dense.pending) == NEW  # held ...
    assert not NEW & dense.keys()  # ... not written
    assert m.backend.episodes.coverage("ns")[f"{DENSE_TURNS}@{dense.model}"] == 6
    # The approximate index's search sees the held vectors too (scored exactly beside it).
    query = dense.embedder.embed(["parrot Kiwi"])[0]
    assert {k for k, _ in dense.search_vector(query, 12)} == {str(s) for s in range(1, 13)}
    with started(tmp_path / "b") as written:  # the same steps, every vector written first
        written.index("ns")
        assert hits(written, "parrot Kiwi") == held
    m.close()
    ChromaHandle.for_home(tmp_path / "a").reset()  # as a new process would
    with Memory(tmp_path / "a", embedder=HashEmbedder()) as again:
        dense = again.indexes.namespace_indexes("ns").dense
        assert again.backend.episodes.coverage("ns")[f"{DENSE_TURNS}@{dense.model}"] == 12
        assert dense.keys() == {str(s) for s in range(1, 13)}
        assert hits(again, "parrot Kiwi") == held
        assert not again.indexes.namespace_indexes("ns").dense.pending


def test_index_and_stats_write_what_is_held(tmp_path: Path) -> None:
    with started(tmp_path / "h") as m:
        m.search("parrot", namespace="ns")
        assert m.indexes.namespace_indexes("ns").dense.pending
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 12  # reported as written, so written
        assert not m.indexes.namespace_indexes("ns").dense.pending
        m.add_conversation(small_conversation("c3"), namespace="ns")
        m.search("parrot", namespace="ns")
        assert m.indexes.namespace_indexes("ns").dense.pending
        m.index("ns")
        dense = m.indexes.namespace_indexes("ns").dense
        assert not dense.pending and len(dense.keys()) == 18


def test_more_than_the_limit_is_written_at_once(tmp_path: Path) -> None:
    with Memory(tmp_path / "h", embedder=HashEmbedder()) as m:
        for i in range(PENDING_MAX // 6 + 2):
            m.add_conversation(small_conversation(f"c{i}"), namespace="ns")
        m.search("parrot", namespace="ns")
        dense = m.indexes.namespace_indexes("ns").dense
        assert not dense.pending and len(dense.keys()) > PENDING_MAX


def test_held_vectors_of_erased_turns_are_never_written(tmp_path: Path) -> None:
    home = tmp_path / "h"
    m = started(home)
    m.search("parrot Kiwi", namespace="ns")
    assert "12" in m.indexes.namespace_indexes("ns").dense.pending  # c2's S2:3, the parrot turn
    with Memory(home, embedder=HashEmbedder()) as other:  # another Memory erases it
        other.forget(["S2:3"], namespace="ns", conversation_id="c2")
    m.close()  # would write what it held
    ChromaHandle.for_home(home).reset()
    with Memory(home, embedder=HashEmbedder()) as again:
        assert "12" not in again.indexes.namespace_indexes("ns").dense.keys()
        assert all(
            h.turn_id != "S2:3" or h.conversation_id != "c2" for h in again.search("parrot", namespace="ns")
        )
