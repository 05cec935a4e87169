"""Routing's per-segment reductions run in numpy over a view-level turn -> segment map; they must
pick exactly what the per-turn scans they replaced picked (best, its earliest row, the second
best), for every mask, ties included."""

from __future__ import annotations

import numpy as np
import pytest

from emem.answer import Plan
from emem.eval.isolation_probes import HashEmbedder
from emem.index.manager import turn_key
from emem.memory import Memory
from emem.retrieval.routing import _segment_max, bm25_turn_scores, keyword_pathway

WORDS = "harbour trail pixel greyhound oslo sister piano lake camping paint".split()


def scan_max(view, scores, mask):
    best = np.full(len(view.segments), -np.inf)
    arg = [-1] * len(view.segments)
    for row, t in enumerate(view.turns):
        if mask[row]:
            s = view.segment_of[turn_key(t)]
            if scores[row] > best[s]:
                best[s], arg[s] = scores[row], row
    return best, arg


def scan_top_two(view, scores):
    n = len(view.segments)
    first, second, best = np.zeros(n), np.zeros(n), [-1] * n
    for row, t in enumerate(view.turns):
        s, v = view.segment_of[turn_key(t)], scores[row]
        if v > first[s]:
            first[s], second[s], best[s] = v, first[s], row
        elif v > second[s]:
            second[s] = v
    return first, second, best


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory):
    rng = np.random.default_rng(3)
    turns = []
    for conv in ("c1", "c2"):
        for sess in range(6):
            for i in range(int(rng.integers(1, 9))):
                words = " ".join(rng.choice(WORDS, size=int(rng.integers(1, 5))))
                turns.append(
                    {
                        "conversation_id": conv,
                        "session_id": f"S{sess}",
                        "turn_id": f"S{sess}:{i}",
                        "speaker": "Dana" if i % 2 else "Omar",
                        "text": f"We talked about {words}.",
                        "time": f"2023-0{1 + sess}-0{1 + (conv == 'c2')}T10:{i:02d}:00+00:00",
                    }
                )
    with Memory(tmp_path_factory.mktemp("home"), embedder=HashEmbedder()) as m:
        m.add_turns(turns, namespace="ns")
        yield m.read_runtime.view("ns")


def test_segment_max_equals_the_scan(view) -> None:
    rng = np.random.default_rng(0)
    for trial in range(50):
        scores = rng.integers(0, 4, len(view.turns)).astype(float)  # many ties
        mask = rng.random(len(view.turns)) < (0.2 if trial % 2 else 0.9)
        best, arg = _segment_max(view, scores, mask)
        ref_best, ref_arg = scan_max(view, scores, mask)
        assert np.array_equal(best, ref_best) and arg == ref_arg


def test_keyword_top_two_equals_the_scan(view, monkeypatch: pytest.MonkeyPatch) -> None:
    from emem.retrieval import routing

    rng = np.random.default_rng(1)
    plan = Plan(mode="deep")
    for _ in range(30):
        scores = rng.integers(0, 4, len(view.turns)).astype(float)
        mask = rng.random(len(view.turns)) < 0.7
        monkeypatch.setattr(routing, "bm25_turn_scores", lambda v, q, s=scores: s.copy())
        monkeypatch.setattr(routing, "segment_bm25_scores", lambda v, q: np.zeros(len(v.segments)))
        got = keyword_pathway(view, "anything", plan, mask)
        masked = np.where(mask, scores, 0.0)
        first, second, best = scan_top_two(view, masked)
        score = routing.minmax_array(first + 0.5 * second) + 0.5 * routing.minmax_array(np.zeros(len(first)))
        alive = [any(mask[view.row_of[turn_key(t)]] for t in s.turns) for s in view.segments]
        want = [int(i) for i in np.argsort(-score, kind="stable") if alive[i] and score[i] > 0]
        assert [i for i, _, _ in got] == want
        for i, _, reason in got:
            if first[i] > 0:
                assert f"BM25 turn {view.turns[best[i]].turn_id} " in str(reason)


def test_bm25_turn_scores_are_in_row_order(view) -> None:
    bm25 = view.indexes.bm25
    raw = bm25.scores("harbour greyhound")
    got = bm25_turn_scores(view, "harbour greyhound")
    for pos, key in enumerate(bm25.keys):
        assert got[view.row_of[key]] == raw[pos]


def test_a_lazy_reason_reads_as_the_formatted_text() -> None:
    """Pathways format a segment's reason only when it is shown; shown, it is the same text."""
    from emem.retrieval.routing import Reason

    why = Reason("summary sim {:.2f}, best turn {} sim {:.2f}".format, 0.123456, "D1:3", 0.5)
    assert str(why) == "summary sim 0.12, best turn D1:3 sim 0.50"
    assert f"global: {why}" == "global: summary sim 0.12, best turn D1:3 sim 0.50"
    assert why == "summary sim 0.12, best turn D1:3 sim 0.50" and hash(why) == hash(str(why))


def test_segment_max_equals_the_sort_it_replaced(view) -> None:
    """The per-view grouped reduction picks what sorting every visible turn picked (session 13),
    for float32 cosines with ties, negative scores, and masks that hide whole segments."""
    from emem.retrieval.routing import _segment_ranked

    def by_sort(scores, mask):
        rows, starts = _segment_ranked(view, scores, mask)
        has = starts >= 0
        best = np.full(len(view.segments), -np.inf)
        arg = np.full(len(view.segments), -1, dtype=np.int64)
        arg[has] = rows[starts[has]]
        best[has] = scores[arg[has]]
        return best, arg.tolist()

    rng = np.random.default_rng(5)
    n = len(view.turns)
    for trial in range(60):
        scores = (
            (rng.integers(-3, 3, n) / 4).astype(np.float32)
            if trial % 3
            else rng.normal(size=n).astype(np.float32)
        )
        mask = rng.random(n) < (0.05, 0.5, 1.0)[trial % 3]
        best, arg = _segment_max(view, scores, mask)
        ref_best, ref_arg = by_sort(scores, mask)
        assert arg == ref_arg and np.array_equal(best, ref_best) and best.dtype == ref_best.dtype
    nothing = np.zeros(n, dtype=bool)
    assert _segment_max(view, np.ones(n, np.float32), nothing)[1] == [-1] * len(view.segments)
