"""The routing study: its learned fusion never scores a conversation with weights fitted on it,
its metric is the benchmark's, and its "shipped router" row ranks exactly as the master routes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from emem.agents.master import ReadRuntime, ask_graph, build_master_graph
from emem.eval.bench_routing import (
    RoutedQuestion,
    cross_validated_scores,
    fit_logistic,
    oracle_scores,
    route_questions,
    session_recall_at,
)
from emem.eval.metrics import session_number
from emem.memory import Memory


def test_session_recall_counts_evidence_turns() -> None:
    sessions = np.array([1, 2, 3, 4])
    scores = np.array([0.9, 0.1, 0.8, 0.2])
    # evidence turns in sessions 1, 1, 2: the top 2 segments (sessions 1 and 3) hold two of three
    assert session_recall_at(scores, sessions, [1, 1, 2], k=2) == pytest.approx(2 / 3)
    assert session_recall_at(scores, sessions, [1, 1, 2], k=4) == 1.0


def test_fit_logistic_weights_the_informative_signal() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((400, 2))
    y = (x[:, 0] + 0.1 * rng.standard_normal(400) > 0.5).astype(float)
    w = fit_logistic(x, y)
    assert w[0] > 3 and abs(w[1]) < 1
    p = 1 / (1 + np.exp(-(np.c_[x, np.ones(400)] @ w)))
    assert ((p > 0.5) == (y > 0.5)).mean() > 0.85


def _question(conv: int, evidence_segment: int, signals: dict[str, list[float]]) -> RoutedQuestion:
    n = len(next(iter(signals.values())))
    return RoutedQuestion(
        conversation=conv,
        category=4,
        evidence_sessions=[evidence_segment + 1],
        segment_sessions=np.arange(1, n + 1),
        signals={k: np.array(v, dtype=float) for k, v in signals.items()},
        shipped=np.zeros(n),
    )


def test_cross_validation_never_uses_the_scored_conversation() -> None:
    # In conversation 0 signal "a" points at the evidence; in conversation 1 signal "b" does.
    # Scored with weights fitted on the other conversation, each ranks the decoy first.
    conv0 = [_question(0, 0, {"a": [1, 0, 0], "b": [0, 1, 0]}) for _ in range(20)]
    conv1 = [_question(1, 0, {"a": [0, 1, 0], "b": [1, 0, 0]}) for _ in range(20)]
    scores, weights = cross_validated_scores(conv0 + conv1)
    assert len(weights) == 2
    for q, s in zip(conv0 + conv1, scores, strict=True):
        assert session_recall_at(s, q.segment_sessions, q.evidence_sessions, k=1) == 0.0
    # Fitted on both, either signal would have found it: the zeros come from the held-out fit.
    assert oracle_scores(conv0[0]).argmax() == 0


def test_cross_validation_needs_two_conversations() -> None:
    with pytest.raises(ValueError, match="two conversations"):
        cross_validated_scores([_question(0, 0, {"a": [1, 0]})])


def _turn(speaker: str, dia: str, text: str) -> dict:
    return {"speaker": speaker, "dia_id": dia, "text": text}


def _conversation(sample_id: str, a: str, b: str, topics: list[str]) -> dict:
    conv: dict = {"speaker_a": a, "speaker_b": b}
    for i, topic in enumerate(topics, start=1):
        conv[f"session_{i}_date_time"] = f"10:00 am on {i} May, 2023"
        conv[f"session_{i}"] = [
            _turn(a, f"D{i}:1", f"Guess what, I spent the weekend on {topic}."),
            _turn(b, f"D{i}:2", f"That sounds fun, tell me more about the {topic}."),
            _turn(a, f"D{i}:3", "It was relaxing and I met some nice people."),
        ]
    qa = [
        {
            "question": f"What did {a} do with the {topics[1]}?",
            "answer": topics[1],
            "evidence": ["D2:1"],
            "category": 4,
        },
        {
            "question": f"Which hobbies has {a} tried?",
            "answer": "several",
            "evidence": ["D1:1", "D3:1"],
            "category": 1,
        },
    ]
    return {"sample_id": sample_id, "conversation": conv, "qa": qa}


def test_route_questions_matches_the_master_router(tmp_path: Path) -> None:
    data = tmp_path / "mini.json"
    data.write_text(
        json.dumps(
            [
                _conversation(
                    "x",
                    "Ada",
                    "Ben",
                    [
                        "pottery wheel",
                        "kayak trip",
                        "chess club",
                        "bread baking",
                        "bird watching",
                        "salsa dancing",
                        "rock climbing",
                    ],
                ),
                _conversation("y", "Cy", "Di", ["violin lessons", "marathon training", "garden beds"]),
            ]
        )
    )
    with Memory(tmp_path / "home") as m:
        routed = route_questions(m, data)
        assert [q.conversation for q in routed] == [0, 0, 1, 1]
        assert [q.conversation for q in route_questions(m, data, [1])] == [1, 1]
        graph = build_master_graph(ReadRuntime(m, m.roles, activate=5))
        first = routed[0]
        answer = ask_graph(graph, "What did Ada do with the kayak trip?", "locomo-x", "deep", None, 2000)
    first_hop = answer.activated_segments[: answer.usage.segments_per_hop[0]]
    activated = {session_number(a.session_id) for a in first_hop}
    top5 = {int(first.segment_sessions[i]) for i in np.argsort(-first.shipped, kind="stable")[:5]}
    assert activated == top5
    assert 2 in top5  # the kayak session
    assert set(first.signals) >= {"BM25 best turn", "dense summary", "pathway: keyword", "pathway: global"}
