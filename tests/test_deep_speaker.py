"""The calibrated turn scorer's `speaker` feature over a real memory: a turn said by the person
the question names outranks the same kind of turn said by someone else (a list question's
evidence is that person's own turns, which rarely repeat the question's words)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from emem.agents.deep import score_turns, segment_scores
from emem.agents.planner import offline_plan
from emem.memory import Memory
from emem.read.context import ReadRuntime
from emem.retrieval.turnscore import FEATURES

NS = "speakers"
CONVERSATION = {
    "conversation_id": "c1",
    "sessions": [
        {
            "session_id": "S1",
            "time": "2023-05-08T10:00:00+00:00",
            "turns": [
                {
                    "turn_id": "S1:1",
                    "speaker": "Melanie",
                    "text": "I signed up for a pottery class yesterday.",
                },
                {
                    "turn_id": "S1:2",
                    "speaker": "Caroline",
                    "text": "I signed up for a pottery class last week.",
                },
                {"turn_id": "S1:3", "speaker": "Melanie", "text": "The kids and I went camping by the lake."},
                {
                    "turn_id": "S1:4",
                    "speaker": "Caroline",
                    "text": "My friends and I went camping by the lake.",
                },
            ],
        }
    ],
}


def test_a_turn_said_by_the_person_asked_about_outranks_its_mirror(tmp_path: Path) -> None:
    with Memory(tmp_path / "home") as m:
        m.add_conversation(CONVERSATION, namespace=NS)
        m.index(NS)
        rt = ReadRuntime(m, m.roles)
        view = rt.view(NS)
        question = "What activities does Melanie partake in?"
        plan = offline_plan(question, rt.known_entities(NS, view), view.turns[-1].time)
        signals = rt.signals.get(view, question, view.visible(None), rt.embed)
        scored = score_turns(
            view, view.turns, question, plan, signals, rt.embed(question), segment_scores([])
        )
    by_id = {t.turn_id: i for i, t in enumerate(scored.turns)}
    said = scored.x[:, FEATURES.index("speaker")]
    assert [said[by_id[t]] for t in ("S1:1", "S1:2", "S1:3", "S1:4")] == [1.0, 0.0, 1.0, 0.0]
    for own, mirror in (("S1:1", "S1:2"), ("S1:3", "S1:4")):
        assert scored.score[by_id[own]] > scored.score[by_id[mirror]], own


def test_fit_monotone_holds_a_negatively_weighted_duplicate_at_a_token_weight() -> None:
    from emem.eval.fit_turn_scorer import HELD, fit_monotone

    rng = np.random.default_rng(0)
    signal = rng.normal(size=2000)
    # The second column is the first plus noise and a pull the other way: an unconstrained fit
    # weights it negatively.
    twin = signal + 0.3 * rng.normal(size=2000)
    y = (signal - 0.5 * twin + 0.3 * rng.normal(size=2000) > 0).astype(float)
    x = np.c_[signal, twin]
    w = fit_monotone(x, y, l2=1.0)
    assert w[1] == HELD and w[0] > 0
