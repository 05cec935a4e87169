"""Same data, same question, same ranking: two homes holding the same turns, written and indexed
in different chunks (one bulk write against one turn at a time, each caught up alone), give the
same search results with the same scores (issue #17, item 6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from emem.index.dense import fetch_vectors
from emem.memory import Memory

LINES = [
    ("Noor", "I finally signed the lease for the flat on Rue Oberkampf."),
    ("Tomas", "Nice! Is it the one with the tiny balcony?"),
    ("Noor", "Yes, and the landlord allows cats, so Miso can come along."),
    ("Tomas", "I started my pottery class on Thursday evenings."),
    ("Noor", "How is it going? Did you make a bowl yet?"),
    ("Tomas", "Two wonky bowls and a mug with no handle."),
    ("Noor", "My sister Ines is visiting from Lisbon in October."),
    ("Tomas", "We should take her to the climbing gym near Bastille."),
    ("Noor", "She hates heights, maybe the food market instead."),
    ("Tomas", "I switched to the night shift at the hospital, so mornings are out."),
    ("Noor", "Miso knocked the new plant off the balcony again."),
    ("Tomas", "Ok"),
]
QUERIES = [
    "Where does Noor live now?",
    "What is Tomas learning on Thursdays?",
    "Who is coming from Lisbon?",
    "What happened to the plant?",
    "When does Tomas work?",
    "pets",
]


def turns() -> list[dict]:
    return [
        {
            "conversation_id": "c1",
            "session_id": "S1",
            "turn_id": f"S1:{i}",
            "speaker": speaker,
            "text": text,
            "time": f"2024-03-0{1 + i // 4}T10:{i:02d}:00+00:00",
        }
        for i, (speaker, text) in enumerate(LINES)
    ]


def rankings(m: Memory) -> list[list[tuple[str, float]]]:
    return [[(h.turn_id, h.score) for h in m.search(q, k=5, namespace="ns")] for q in QUERIES]


def stored_vectors(m: Memory) -> np.ndarray:
    """Every turn's vector as the vector index holds it, in key order."""
    dense = m.indexes.current("ns").dense
    return fetch_vectors(dense, sorted(dense.keys()))


def test_two_homes_built_in_different_chunks_rank_alike(tmp_path: Path) -> None:
    with Memory(tmp_path / "bulk") as bulk:
        bulk.add_turns(turns(), namespace="ns")
        assert bulk.index("ns").new_turns == len(LINES)
        first = rankings(bulk)
        first_vectors = stored_vectors(bulk)
    with Memory(tmp_path / "steps") as steps:
        for t in turns():
            steps.add_turns([t], namespace="ns")
            steps.index("ns")  # each turn embedded alone, in its own catch-up
        second = rankings(steps)
        second_vectors = stored_vectors(steps)
    assert first_vectors.shape == (len(LINES), 384)
    assert np.array_equal(first_vectors, second_vectors)  # a turn embedded alone = in a batch
    assert first == second
    assert all(len(r) == 5 for r in first)
    assert len({tuple(r) for r in first}) == len(QUERIES)  # the queries really rank differently
