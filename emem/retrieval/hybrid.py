"""System 1 retrieval: BM25 and dense over turns, fused with RRF. Candidates, never truth."""

from __future__ import annotations

from collections.abc import Callable

from emem.index.manager import NamespaceIndexes
from emem.models import Hit, StoredTurn
from emem.retrieval.fusion import rrf
from emem.retrieval.query import topic_query

CANDIDATES = 50


def hybrid_turns(
    ns: NamespaceIndexes, query: str, k: int, candidates: int = CANDIDATES
) -> list[tuple[StoredTurn, float]]:
    lexical = [key for key, _ in ns.bm25.search(query, candidates)]
    dense = [key for key, _ in ns.dense.search(topic_query(query, ns.speakers), candidates)]
    fused = rrf([lexical, dense])[:k]
    return [(ns.turns[key], score) for key, score in fused if key in ns.turns]


def hybrid_turns_where(
    ns: NamespaceIndexes,
    query: str,
    k: int,
    keep: Callable[[StoredTurn], bool],
    candidates: int = CANDIDATES,
) -> list[tuple[StoredTurn, float]]:
    """`hybrid_turns` over only the turns `keep` accepts: each ranking is masked before fusion and
    widened until it holds `candidates` kept turns (or every turn), so turns outside the filter
    never appear and never push kept turns out."""
    allowed = {key for key, t in ns.turns.items() if keep(t)}
    if not allowed:
        return []
    want = min(candidates, len(allowed))
    total = len(ns.turns)
    vector = ns.dense.embedder.embed([topic_query(query, ns.speakers)])[0]
    n = candidates
    while True:
        lexical = [key for key, _ in ns.bm25.search(query, n) if key in allowed][:want]
        dense = [key for key, _ in ns.dense.search_vector(vector, n) if key in allowed][:want]
        if n >= total or (len(lexical) >= want and len(dense) >= want):
            break
        n = min(total, n * 4)
    fused = rrf([lexical, dense])[:k]
    return [(ns.turns[key], score) for key, score in fused if key in allowed]


def to_hit(turn: StoredTurn, score: float) -> Hit:
    return Hit(
        turn_id=turn.turn_id,
        session_id=turn.session_id,
        conversation_id=turn.conversation_id,
        speaker=turn.speaker,
        time=turn.time,
        text=turn.text,
        image_caption=turn.image_caption,
        score=score,
        metadata=turn.metadata,
    )
