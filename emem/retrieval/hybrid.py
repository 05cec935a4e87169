"""System 1 retrieval: BM25 and dense over turns, fused with RRF. Candidates, never truth."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from emem.config import DEFAULT
from emem.index.manager import NamespaceIndexes
from emem.models import Hit, StoredTurn
from emem.retrieval.exact import EXACT_MAX_TURNS, exact_dense
from emem.retrieval.fusion import rrf
from emem.retrieval.query import topic_query

CANDIDATES = DEFAULT.read.candidates


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


def hybrid_turns_where(
    ns: NamespaceIndexes,
    query: str,
    k: int,
    keep: Callable[[StoredTurn], bool],
    candidates: int = CANDIDATES,
    *,
    embed: QueryEmbed | None = None,
    exact: bool = True,
    allowed: set[str] | None = None,
) -> list[tuple[StoredTurn, float]]:
    """`hybrid_turns` over only the turns `keep` accepts: each ranking is masked before fusion and
    widened until it holds `candidates` kept turns (or every turn), so turns outside the filter
    never appear and never push kept turns out. `embed` and `exact` as for `hybrid_turns`;
    `allowed`: the keys `allowed_keys(ns, keep)` gives, when the caller keeps them between calls
    (scanning every turn was a third of a search at 10 LoCoMo conversations)."""
    if allowed is None:
        allowed = allowed_keys(ns, keep)
    if not allowed:
        return []
    want = min(candidates, len(allowed))
    total = len(ns.turns)
    vector = (embed or (lambda text: ns.dense.embedder.embed([text])[0]))(topic_query(query, ns.speakers))
    scorer = exact_dense(ns).search if exact and total <= EXACT_MAX_TURNS else ns.dense.search_vector
    n = candidates
    while True:
        lexical = [key for key, _ in ns.bm25.search(query, n) if key in allowed][:want]
        dense = [key for key, _ in scorer(vector, n) if key in allowed][:want]
        if n >= total or (len(lexical) >= want and len(dense) >= want):
            break
        n = min(total, n * 4)
    fused = rrf([lexical, dense])[:k]
    return [(ns.turns[key], score) for key, score in fused if key in allowed]


def allowed_keys(ns: NamespaceIndexes, keep: Callable[[StoredTurn], bool]) -> set[str]:
    """The keys of the namespace's turns that `keep` accepts (what `hybrid_turns_where` masks by).

    Args:
        ns: the namespace's caught-up indexes.
        keep: the turn predicate.
    Returns:
        The accepted turn keys.
    """
    return {key for key, t in ns.turns.items() if keep(t)}


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
