"""System 1 retrieval: BM25 and dense over turns, fused with RRF. Candidates, never truth."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from emem.index.manager import NamespaceIndexes
from emem.models import Hit, StoredTurn
from emem.retrieval.exact import EXACT_MAX_TURNS, exact_dense
from emem.retrieval.fusion import rrf
from emem.retrieval.query import topic_query

CANDIDATES = 50


QueryEmbed = Callable[[str], np.ndarray]
"""text -> its L2-normalised vector (the read runtime passes its cached embed)."""


def hybrid_turns(
    ns: NamespaceIndexes,
    query: str,
    k: int,
    candidates: int = CANDIDATES,
    *,
    embed: QueryEmbed | None = None,
    exact: bool = True,
) -> list[tuple[StoredTurn, float]]:
    """Top-k turns for `query`, BM25 and dense fused by RRF.

    Args:
        ns: the namespace's caught-up indexes.
        query: the text searched for.
        k: how many turns to return.
        candidates: how many each half contributes before fusion.
        embed: how the (speaker-free) query is embedded (default: the namespace's embedder).
        exact: score the dense half exactly over vectors in memory while the namespace is small
            (retrieval.exact: deterministic); False queries Chroma's approximate index.
    Returns:
        (turn, fused score) pairs, best first.
    """
    lexical = [key for key, _ in ns.bm25.search(query, candidates)]
    vector = (embed or (lambda text: ns.dense.embedder.embed([text])[0]))(topic_query(query, ns.speakers))
    if exact and len(ns.turns) <= EXACT_MAX_TURNS:
        dense = [key for key, _ in exact_dense(ns).search(vector, candidates)]
    else:
        dense = [key for key, _ in ns.dense.search_vector(vector, candidates)]
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
