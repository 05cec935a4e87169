"""One calibrated score for every turn of a namespace against a question: the deep path's
assistants rank their segment's turns with it, so scores from different segments compare, and
the master fills the budget best-first with them.

The score is a logistic model over signals the fast path's hybrid search already has (BM25 and
dense ranks over all turns, fused by reciprocal rank) plus the raw similarities, word overlap and
named entities. Rank features are computed over the whole namespace, not within a segment, so a
turn that ranks 3rd namespace-wide outranks the best turn of an off-topic segment.

Weights: fitted on LoCoMo conversations 0-4 (`python -m emem.eval.fit_turn_scorer`), reported on
5-9 (and the reverse fit on 5-9, reported on 0-4); see the README's read-path section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from emem.retrieval.fusion import RRF_K

FEATURES = (
    "rrf",
    "bm25",
    "dense_topic",
    "dense_asked",
    "overlap",
    "entities",
    "segment",
    "typed",
    "speaker",
)
"""rrf: 1/(k+rank BM25) + 1/(k+rank dense), ranks over every visible turn, scaled so rank 1 in
both is 1; bm25: the turn's BM25 over the namespace's best; dense_topic / dense_asked: cosine to
the question without / with speaker names; overlap: share of the question's content words the
turn holds; entities: named entities of the plan it mentions; segment: its segment's routing score
(min-max over the activated ones); typed: the turn names an entity of the type the question asks
for ("which cities" / Chicago: spaCy's entity types), times how rare such turns are in the
namespace (emem.retrieval.typed; 0 when the `ner` extra is not installed); speaker: the turn was
said by a person the question names ("What activities does Melanie partake in?": Melanie's own
turns about pottery and camping share no word with the question, but she says them)."""

WEIGHTS = {
    "rrf": 2.874,
    "bm25": 0.760,
    "dense_topic": 2.158,
    "dense_asked": 0.010,
    "overlap": 2.006,
    "entities": 0.002,
    "segment": 2.624,
    "typed": 4.497,
    "speaker": 2.797,
}
INTERCEPT = -11.380
"""Fitted on LoCoMo conversations 0-4 (L2-regularised logistic regression, every candidate turn
of both hops labelled evidence or not); the shipped scorer. A weight the fit makes negative
(dense_asked, nearly collinear with dense_topic once `speaker` carries who asked; entities on
5-9) is held at 0.01 and the others refitted without it, so the score still rises with every
signal; out of sample this costs nothing measurable (simulated packed recall 0.900 vs 0.901)."""

WEIGHTS_FIT_5_9 = {
    "rrf": 2.913,
    "bm25": 0.272,
    "dense_topic": 2.319,
    "dense_asked": 0.010,
    "overlap": 2.431,
    "entities": 0.010,
    "segment": 2.468,
    "typed": 2.480,
    "speaker": 2.949,
}
INTERCEPT_FIT_5_9 = -11.202
"""The same fit on conversations 5-9: used only by `bench_retrieval --weights reverse`, to report
conversations 0-4 out of sample."""


@dataclass(frozen=True)
class TurnSignals:
    """Per-turn signal arrays over the whole view (row order), for one question."""

    rrf: np.ndarray
    bm25: np.ndarray
    dense_topic: np.ndarray
    dense_asked: np.ndarray
    typed: np.ndarray


def rank_positions(scores: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """1-based rank of each row among the alive rows by descending score (ties by row order);
    dead rows rank after every alive one."""
    order = np.lexsort((np.arange(len(scores)), -np.where(alive, scores, -np.inf)))
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    return ranks


def turn_signals(
    bm25: np.ndarray,
    dense_topic: np.ndarray,
    dense_asked: np.ndarray,
    alive: np.ndarray,
    typed: np.ndarray | None = None,
) -> TurnSignals:
    """Signals for every row; `alive` masks the turns the question may use (as_of, filter).

    Args:
        bm25: raw BM25 score of every turn (0 where no term matches).
        dense_topic: cosine of every turn to the question without speaker names.
        dense_asked: cosine of every turn to the question as asked.
        alive: which rows may be used.
        typed: the typed-match signal of every turn (zeros when None: no type asked, or no
            WordNet installed).
    Returns:
        The signals, each aligned with the rows.
    """
    lexical_alive = alive & (bm25 > 0)
    r_bm = rank_positions(bm25, lexical_alive)
    r_dn = rank_positions(dense_topic, alive)
    rrf = np.where(lexical_alive, 1.0 / (RRF_K + r_bm), 0.0) + 1.0 / (RRF_K + r_dn)
    top = float(bm25[alive].max()) if alive.any() else 0.0
    return TurnSignals(
        rrf=rrf * (RRF_K + 1) / 2,
        bm25=bm25 / top if top > 0 else np.zeros_like(bm25),
        dense_topic=dense_topic,
        dense_asked=dense_asked,
        typed=np.zeros(len(bm25)) if typed is None else typed,
    )


def feature_matrix(
    signals: TurnSignals,
    rows: Sequence[int],
    overlap: Sequence[float],
    entities: Sequence[int],
    segment: Sequence[float],
    speaker: Sequence[float] | None = None,
) -> np.ndarray:
    """(len(rows), len(FEATURES)) features of the chosen rows, in FEATURES order.

    Args:
        signals: the question's signals over every row of the view.
        rows: the view rows of the turns to score.
        overlap / entities / segment: those features of each turn (FEATURES' docstring).
        speaker: 1.0 where a person the question names said the turn (zeros when None).
    Returns:
        The feature matrix.
    """
    idx = np.asarray(rows, dtype=int)
    return np.stack(
        [
            signals.rrf[idx],
            signals.bm25[idx],
            signals.dense_topic[idx],
            signals.dense_asked[idx],
            np.asarray(overlap, dtype=float),
            np.asarray(entities, dtype=float),
            np.asarray(segment, dtype=float),
            signals.typed[idx],
            np.zeros(len(idx)) if speaker is None else np.asarray(speaker, dtype=float),
        ],
        axis=1,
    ).reshape(len(idx), len(FEATURES))


def calibrated(
    x: np.ndarray, weights: dict[str, float] | None = None, intercept: float | None = None
) -> np.ndarray:
    """Probability that each row is evidence for the question (logistic over FEATURES)."""
    w = np.array([(weights or WEIGHTS)[f] for f in FEATURES])
    b = INTERCEPT if intercept is None else intercept
    return 1.0 / (1.0 + np.exp(-(x @ w + b)))
