"""A read-only, in-memory view of one namespace for the read path: turns with their vectors,
segments with summaries, summary vectors and centroids, and BM25 over segments. Rebuilt only when
the indexes cover new events."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from emem.index.bm25 import BM25Index
from emem.index.dense import fetch_vectors
from emem.index.manager import NamespaceIndexes, turn_key
from emem.models import StoredTurn
from emem.segments import Segment, build_segments


@dataclass
class NamespaceView:
    namespace: str
    covered_seq: int
    indexes: NamespaceIndexes
    turns: list[StoredTurn]
    turn_vectors: np.ndarray
    segments: list[Segment]
    summary_vectors: np.ndarray
    centroids: np.ndarray
    segment_bm25: BM25Index
    row_of: dict[str, int] = field(default_factory=dict)
    """turn key -> row in `turns` / `turn_vectors`."""
    segment_of: dict[str, int] = field(default_factory=dict)
    """turn key -> index in `segments`."""
    by_ref: dict[tuple[str, str], StoredTurn] = field(default_factory=dict)
    segment_index: dict[str, int] = field(default_factory=dict)
    """segment id -> index in `segments`."""

    def visible(self, as_of: datetime | None) -> np.ndarray:
        """Mask of turns said at or before `as_of` (all turns when None)."""
        if as_of is None:
            return np.ones(len(self.turns), dtype=bool)
        return np.array([t.time <= as_of for t in self.turns], dtype=bool)

    def segment_for(self, turn: StoredTurn) -> Segment:
        return self.segments[self.segment_of[turn_key(turn)]]


def build_view(ns: NamespaceIndexes, summaries: dict[str, str] | None = None) -> NamespaceView:
    turns = sorted(ns.turns.values(), key=lambda t: t.seq)
    keys = [turn_key(t) for t in turns]
    vectors = fetch_vectors(ns.dense, keys) if keys else np.zeros((0, ns.dense.embedder.dim), np.float32)
    segments = build_segments(turns)
    for s in segments:
        if summaries and s.segment_id in summaries:
            s.summary, s.summary_source = summaries[s.segment_id], "llm"
    row_of = {k: i for i, k in enumerate(keys)}
    segment_of = {turn_key(t): i for i, s in enumerate(segments) for t in s.turns}
    centroids = np.zeros((len(segments), vectors.shape[1]), dtype=np.float32)
    for i, s in enumerate(segments):
        c = vectors[[row_of[turn_key(t)] for t in s.turns]].mean(axis=0)
        centroids[i] = c / max(float(np.linalg.norm(c)), 1e-12)
    summary_vectors = ns.dense.embedder.embed([s.summary for s in segments]) if segments else centroids
    seg_bm25 = BM25Index()
    seg_bm25.add([(s.segment_id, s.text()) for s in segments])
    return NamespaceView(
        namespace=ns.namespace,
        covered_seq=ns.covered_seq,
        indexes=ns,
        turns=turns,
        turn_vectors=vectors,
        segments=segments,
        summary_vectors=summary_vectors,
        centroids=centroids,
        segment_bm25=seg_bm25,
        row_of=row_of,
        segment_of=segment_of,
        by_ref={(t.conversation_id, t.turn_id): t for t in turns},
        segment_index={s.segment_id: i for i, s in enumerate(segments)},
    )
