from __future__ import annotations

from pathlib import Path

from conftest import small_conversation

from emem.eval.isolation_probes import HashEmbedder
from emem.index.bm25 import BM25Index
from emem.index.manager import DENSE_TURNS
from emem.memory import Memory
from emem.retrieval.fusion import minmax, rrf


def test_incremental_index_equals_rebuild(home: Path, tmp_path: Path) -> None:
    first, second = small_conversation("c1"), small_conversation("c2")
    with Memory(home) as m:
        m.add_conversation(first, namespace="ns")
        m.search("Lisbon", namespace="ns")  # indexes built over c1 only
        m.add_conversation(second, namespace="ns")
        assert not m.indexes.is_current("ns")
        incremental = [
            (h.conversation_id, h.turn_id, round(h.score, 9))
            for h in m.search("parrot Kiwi", namespace="ns", k=6)
        ]
        assert m.indexes.is_current("ns")
    rebuilt_home = tmp_path / "rebuilt"
    with Memory(rebuilt_home) as m:
        m.add_conversation(first, namespace="ns")
        m.add_conversation(second, namespace="ns")
        rebuilt = [
            (h.conversation_id, h.turn_id, round(h.score, 9))
            for h in m.search("parrot Kiwi", namespace="ns", k=6)
        ]
    assert incremental == rebuilt
    assert incremental[0][1] == "S2:3"


def test_dense_coverage_is_persisted_and_reopened_index_catches_up(home: Path) -> None:
    with Memory(home) as m:
        m.add_conversation(small_conversation("c1"), namespace="ns")
        m.index("ns")
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 6
    with Memory(home) as m:
        m.add_conversation(small_conversation("c2"), namespace="ns")
        stats = m.stats("ns")
        assert stats.index_coverage[DENSE_TURNS] == 6 and stats.last_seq == 12
        report = m.index("ns")
        assert report.new_turns == 12  # BM25 is in memory: refit from the store in a new process
        assert m.stats("ns").index_coverage == {DENSE_TURNS: 12, "bm25_turns": 12}
        assert m.indexes._indexes("ns").dense.count() == 12


class OtherHashEmbedder(HashEmbedder):
    name = "hash-bow-64-other"


def test_dense_coverage_is_per_embedder(home: Path) -> None:
    """Reopening a home with another embedder embeds its turns into that embedder's collection;
    it does not trust the first embedder's count (which left it with no dense hits at all)."""
    with Memory(home, embedder=HashEmbedder()) as m:
        m.add_conversation(small_conversation("c1"), namespace="ns")
        m.index("ns")
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 6
    with Memory(home, embedder=OtherHashEmbedder()) as m:
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 0
        m.index("ns")
        assert m.indexes._indexes("ns").dense.count() == 6
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 6
    with Memory(home, embedder=HashEmbedder()) as m:  # the first one's coverage is still its own
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 6


def test_legacy_dense_coverage_is_kept_only_with_its_collection(home: Path) -> None:
    """Homes written before coverage was per embedder stored one plain count."""
    with Memory(home, embedder=HashEmbedder()) as m:
        m.add_conversation(small_conversation("c1"), namespace="ns")
        m.index("ns")
        cov = m.episodes.coverage("ns")
        (key,) = [k for k in cov if k.startswith(DENSE_TURNS)]
        m.episodes.set_coverage("ns", DENSE_TURNS, cov[key])  # what the old code wrote
        with m.episodes._write() as conn:
            conn.execute("DELETE FROM index_state WHERE index_name=?", (key,))
    with Memory(home, embedder=HashEmbedder()) as m:  # its collection exists: trusted
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 6
    with Memory(home, embedder=OtherHashEmbedder()) as m:  # no collection of its own: not trusted
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 0


def test_search_finds_paraphrase_through_dense_vectors(memory: Memory) -> None:
    memory.add_conversation(small_conversation(), namespace="ns")
    hits = memory.search("which bird does Omar's sibling own", namespace="ns", k=3)
    assert "S2:3" in [h.turn_id for h in hits]
    image = memory.search("surfboard", namespace="ns", k=1)[0]
    assert image.turn_id == "S2:2"  # found through its image caption


def test_bm25_in_steps_equals_at_once() -> None:
    docs = [(str(i), f"doc {i} about topic {i % 3} and moving to city {i % 5}") for i in range(30)]
    once, steps = BM25Index(), BM25Index()
    once.add(docs)
    steps.add(docs[:10])
    steps.add(docs[10:])
    assert once.search("moving city 3 topic 1", 10) == steps.search("moving city 3 topic 1", 10)


def test_rrf_and_minmax() -> None:
    fused = rrf([["a", "b", "c"], ["b", "d"]])
    assert [k for k, _ in fused] == ["b", "a", "d", "c"]
    assert minmax({"x": 2.0, "y": 4.0}) == {"x": 0.0, "y": 1.0}
    assert minmax({"x": 3.0}) == {"x": 1.0}
