"""System 1 retrieval: BM25 and dense over turns, fused with RRF. Candidates, never truth."""

from __future__ import annotations

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
    )
