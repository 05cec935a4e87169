"""Deep reconstruction's pure rules: the calibrated turn scorer and the second hop's triggers."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from emem.agents.deep import feedback_query, feedback_vector, segment_scores
from emem.answer import ActivatedSegment, FactItem
from emem.models import StoredTurn
from emem.retrieval.turnscore import FEATURES, calibrated, rank_positions, turn_signals


def _turn(tid: str, speaker: str, text: str) -> StoredTurn:
    return StoredTurn(
        turn_id=tid,
        session_id="S1",
        conversation_id="c",
        speaker=speaker,
        text=text,
        time=datetime(2024, 1, 1, tzinfo=UTC),
        namespace="n",
        seq=int(tid.split(":")[1]),
        recorded_at=datetime(2024, 1, 1, tzinfo=UTC),
        hash="0" * 64,
    )


def test_rank_positions_put_dead_rows_last_and_break_ties_by_row() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.99])
    alive = np.array([True, True, True, False])
    assert rank_positions(scores, alive).tolist() == [2, 1, 3, 4]


def test_turn_signals_rank_over_the_whole_namespace() -> None:
    bm25 = np.array([0.0, 3.0, 1.0, 0.0])
    dense = np.array([0.1, 0.8, 0.3, 0.9])
    alive = np.array([True, True, True, False])
    s = turn_signals(bm25, dense, dense, alive)
    assert s.rrf.argmax() == 1 and s.rrf[1] == 1.0  # first in both rankings
    assert s.bm25.tolist() == [0.0, 1.0, 1 / 3, 0.0]
    assert s.rrf[0] > 0 and s.rrf[3] < s.rrf[2]  # dense-only credit; dead row ranks last


def test_calibrated_score_is_a_probability_rising_with_every_feature() -> None:
    base = np.full((1, len(FEATURES)), 0.3)
    p = calibrated(base)[0]
    assert 0.0 < p < 1.0
    for j in range(len(FEATURES)):
        up = base.copy()
        up[0, j] += 0.2
        assert calibrated(up)[0] > p, FEATURES[j]


def test_feedback_query_adds_the_seeds_rare_words_not_the_question_or_speakers() -> None:
    seeds = [
        _turn("D1:1", "Jon", "We flew to Chicago for the conference, Gina loved it"),
        _turn("D1:2", "Gina", "Chicago was windy but the deep-dish pizza was great"),
    ]
    common = {"great": 0.5, "love": 0.4}
    query, terms = feedback_query(
        "Which cities has Jon visited?", seeds, [], ["Jon", "Gina"], lambda w: common.get(w, 0.01)
    )
    assert query.startswith("Which cities has Jon visited?")
    assert terms[0] == "chicago"  # in both seeds, rare
    assert "jon" not in terms and "gina" not in terms and "visited" not in terms
    assert terms.index("conference") < terms.index("great")


def test_feedback_query_takes_the_ledgers_values() -> None:
    fact = FactItem(subject="Jon", predicate="visited", status="state", values=["Boston"])
    _, terms = feedback_query("Where has Jon been?", [], [fact], ["Jon"], lambda w: 0.1)
    assert terms == ["boston"]


def test_feedback_vector_moves_towards_the_seeds_and_stays_normalised() -> None:
    q = np.array([1.0, 0.0])
    v = feedback_vector(q, np.array([[0.0, 1.0], [0.0, 1.0]]))
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-9 and 0 < v[1] < v[0]
    assert feedback_vector(q, np.zeros((0, 2))) is q


def test_segment_scores_are_min_max_over_the_activated() -> None:
    def seg(sid: str, score: float) -> ActivatedSegment:
        return ActivatedSegment(
            segment_id=sid,
            session_id="S1",
            conversation_id="c",
            start=datetime(2024, 1, 1, tzinfo=UTC),
            score=score,
            pathways=["global"],
        )

    assert segment_scores([seg("a", 2.0), seg("b", 1.0), seg("c", 1.5)]) == {"a": 1.0, "b": 0.0, "c": 0.5}
    assert segment_scores([seg("a", 2.0)]) == {"a": 1.0}
