"""A lost or damaged vector index is noticed (issue 13, defect 6): coverage is checked against the
collection itself (every id, so count and checksum at once), `stats` reports what the index really
covers, and catch-up rebuilds what is missing instead of trusting the recorded count."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_erasure import ExactEmbedder, conversation  # type: ignore[import-not-found]

from emem.index.dense import ChromaHandle
from emem.index.manager import DENSE_TURNS
from emem.memory import Memory


def filled(home: Path) -> None:
    with Memory(home, embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
        m.add_conversation(conversation("c2", "Porto", "a chair"), namespace="ns")
        m.index("ns")
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 10


def reopen(home: Path) -> Memory:
    ChromaHandle.for_home(home).reset()  # as a new process would: no client cached
    return Memory(home, embedder=ExactEmbedder())


def test_deleted_chroma_folder_is_reported_and_rebuilt(tmp_path: Path) -> None:
    home = tmp_path / "home"
    filled(home)
    ChromaHandle.for_home(home).reset()
    shutil.rmtree(home / "chroma")
    with reopen(home) as m:
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 0  # the truth, not the recorded 10
        assert not m.indexes.is_current("ns")
        report = m.index("ns")
        assert report.repaired == 10
        assert m.indexes.current("ns").dense.count() == 10
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 10
        assert m.indexes.current("ns").dense.search("Zyxwvutopia new job", 3)


def test_missing_and_orphan_vectors_are_repaired(tmp_path: Path) -> None:
    home = tmp_path / "home"
    filled(home)
    with reopen(home) as m:
        dense = m.indexes.current("ns").dense
        with dense.chroma.writing():
            col = dense.collection()
            col.delete(ids=["3", "7"])
            col.upsert(ids=["999"], embeddings=[[0.5] * 4 + [0.0] * 12])
    with reopen(home) as m:
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 2  # turn 3's vector is gone
        report = m.index("ns")
        assert report.repaired == 3
        dense = m.indexes.current("ns").dense
        with dense.chroma.reading():
            assert dense.keys() == {str(i) for i in range(1, 11)}
        assert m.stats("ns").index_coverage[DENSE_TURNS] == 10


def test_unused_hnsw_slots_are_zeroed(tmp_path: Path) -> None:
    """hnswlib writes index files at full capacity from uninitialised memory; emem zeroes the
    unused slots so no stray bytes (another tenant's or an erased vector) stay on disk."""
    from emem.index.dense import zero_unused_slots

    home = tmp_path / "home"
    filled(home)
    ChromaHandle.for_home(home).reset()
    planted = 0
    for header in (home / "chroma").glob("*/header.bin"):
        data = header.parent / "data_level0.bin"
        raw = bytearray(data.read_bytes())
        count = int.from_bytes(header.read_bytes()[20:28], "little")
        size = int.from_bytes(header.read_bytes()[28:36], "little")
        raw[count * size + 5 : count * size + 13] = b"STRAYBYT"
        data.write_bytes(bytes(raw))
        planted += 1
    assert planted
    assert zero_unused_slots(home / "chroma") == planted
    assert not any(b"STRAYBYT" in p.read_bytes() for p in (home / "chroma").glob("*/data_level0.bin"))
    with reopen(home) as m:
        assert m.index("ns").repaired == 0 and m.indexes.current("ns").dense.count() == 10
        assert m.indexes.current("ns").dense.search("Zyxwvutopia new job", 3)
