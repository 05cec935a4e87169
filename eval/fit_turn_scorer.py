"""Fit the deep path's calibrated turn scorer (emem.retrieval.turnscore) on part of LoCoMo and
score the rest: packed evidence-turn recall when the candidates (the activated segments' turns and
fast's turns) are packed best-first under the budget.

    python -m emem.eval.fit_turn_scorer --data ../shared/data/locomo10.json [--train 0,1,2,3,4]

Fits on every candidate turn of both hops (the second hop as agents.deep routes it) and prints
the weights (the shipped turnscore.WEIGHTS came from --train 0,1,2,3,4) and, on the training half
(in sample) and the rest (out of sample), the packed recall of: the fitted scorer, the same fit
without the typed feature (spaCy entity types), the shipped one, the older support score (assistant.support_scores) and fast's RRF alone, with the first
hop's candidates and with both hops'. Also the evidence-session recall of the first hop, of both
hops, and of the first hop plus the router's next 5 segments (what the second hop is measured
against). A simulation of the packer (turn lines only, no facts); not on the read path.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from emem.agents.aggregate import fact_items
from emem.agents.deep import (
    FEEDBACK_TURNS,
    DocumentFrequency,
    SignalCache,
    feedback_query,
    feedback_vector,
    route_hop,
    score_turns,
    segment_scores,
    visible_turns,
)
from emem.agents.master import FAST_K, ReadRuntime
from emem.agents.planner import offline_plan
from emem.eval.bench_retrieval import ingest_conversation
from emem.eval.bench_routing import fit_logistic
from emem.eval.locomo_data import iter_questions, load_locomo
from emem.eval.metrics import session_number
from emem.index.manager import turn_key
from emem.memory import Memory
from emem.retrieval.hybrid import hybrid_turns
from emem.retrieval.turnscore import FEATURES, calibrated


@dataclass
class Candidates:
    conversation: int
    category: int
    x: np.ndarray
    y: np.ndarray
    tokens: np.ndarray
    support: np.ndarray
    n_evidence: int
    s1: float
    s2: float
    s_plain: float
    n_sessions: int
    x2: np.ndarray
    y2: np.ndarray
    tokens2: np.ndarray
    segments2: np.ndarray
    """Segment (view index) of each row of x2: for per-segment packing rules."""


def collect(memory: Memory, data: Path, chosen: list[int]) -> list[Candidates]:
    samples = load_locomo(data)
    raw = json.loads(data.read_text())
    runtime = ReadRuntime(memory, memory.roles)
    cache, dfs = SignalCache(), DocumentFrequency()
    out = []
    for ci in chosen:
        ns = ingest_conversation(memory, raw[ci], samples[ci].sample_id)
        view = runtime.view(ns)
        known = runtime.known_entities(ns, view)
        for q in iter_questions([samples[ci]], categories=[1, 2, 3, 4]):
            if not q.evidence:
                continue
            subjects = runtime.question_subjects(ns, view, q.question)
            plan = offline_plan(q.question, known, view.turns[-1].time, subjects=subjects)
            facts = fact_items(memory.ledger, ns, plan, None, None)
            mask = view.visible(None)
            q_topic = runtime.question_vector(view, q.question)
            q_asked = runtime.embed(q.question)
            hop1 = route_hop(view, q.question, q_topic, plan, facts, mask)
            ids = [a.segment_id for a in hop1]
            fast = [t for t, _ in hybrid_turns(view.indexes, q.question, FAST_K, embed=runtime.embed)]
            turns = list(dict.fromkeys([*visible_turns(view, ids, None, None), *fast]))
            signals = cache.get(view, q.question, mask, runtime.embed)
            sc = score_turns(view, turns, q.question, plan, signals, q_asked, segment_scores(hop1))
            ev = set(q.evidence)
            ev_sessions = [session_number(e) for e in q.evidence]
            seeds = [sc.turns[i] for i in np.argsort(-sc.score, kind="stable")[:FEEDBACK_TURNS]]
            query, _ = feedback_query(q.question, seeds, facts, runtime.speakers(view), dfs.of(view))
            rows = [view.row_of[turn_key(t)] for t in seeds]
            vec = feedback_vector(q_topic, view.turn_vectors[rows])
            hop2 = route_hop(view, query, vec, plan, facts, mask, exclude=set(ids))
            plain = route_hop(view, q.question, q_topic, plan, facts, mask, exclude=set(ids))

            def srec(segs, ev_sessions=ev_sessions):
                got = {session_number(a.session_id) for a in segs}
                return sum(s in got for s in ev_sessions) / len(ev_sessions)

            seen = set(turns)
            t2 = [t for t in visible_turns(view, [a.segment_id for a in hop2], None, None) if t not in seen]
            sc2 = score_turns(
                view, turns + t2, q.question, plan, signals, q_asked, segment_scores(hop1 + hop2)
            )
            out.append(
                Candidates(
                    ci,
                    q.category,
                    sc.x,
                    np.array([float(t.turn_id in ev) for t in sc.turns]),
                    sc.tokens,
                    sc.support,
                    len(ev),
                    srec(hop1),
                    srec(hop1 + hop2),
                    srec(hop1 + plain),
                    len(set(ev_sessions)),
                    sc2.x,
                    np.array([float(t.turn_id in ev) for t in sc2.turns]),
                    sc2.tokens,
                    np.array([view.segment_index[view.segment_for(t).segment_id] for t in sc2.turns]),
                )
            )
    return out


def packed_recall(y: np.ndarray, tokens: np.ndarray, scores: np.ndarray, n: int, budget: int) -> float:
    """Evidence recall of packing the candidates best-first under the budget (n: evidence turns)."""
    used, got = 0, 0.0
    for i in np.argsort(-scores, kind="stable"):
        if used + tokens[i] > budget:
            continue
        used += tokens[i]
        got += y[i]
    return got / n


HELD = 0.01
"""The weight a feature the fit would weight negatively is held at (see fit_monotone)."""


def fit_monotone(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Logistic fit whose weights are all positive: the features the fit weights negatively (a
    near-duplicate of another, e.g. dense_asked beside dense_topic) are left out, the rest
    refitted, until none is negative; the left-out ones then get HELD, a token weight, so the
    score rises with every signal.

    Args:
        x: features, one row per candidate turn.
        y: 1.0 for evidence turns.
        l2: the L2 penalty.
    Returns:
        Weights in column order, intercept last.
    """
    held: set[int] = set()
    while True:
        free = [j for j in range(x.shape[1]) if j not in held]
        w_free = fit_logistic(x[:, free], y, l2=l2)
        negative = [free[i] for i, v in enumerate(w_free[: len(free)]) if v < 0]
        if not negative:
            w = np.full(x.shape[1] + 1, HELD)
            w[free] = w_free[: len(free)]
            w[-1] = w_free[-1]
            return w
        held |= set(negative)


def without_typed(x: np.ndarray) -> np.ndarray:
    """The features with the typed column zeroed (the scorer as if no NER pipeline were installed)."""
    out = x.copy()
    out[:, FEATURES.index("typed")] = 0.0
    return out


def _means(values: dict[str, list[float]]) -> str:
    return " ".join(f"{k}={statistics.fmean(v):.3f}" for k, v in values.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "emem-bench-locomo")
    ap.add_argument("--train", default="0,1,2,3,4")
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--l2", type=float, default=1.0)
    args = ap.parse_args()
    train = [int(x) for x in args.train.split(",")]
    test = [i for i in range(10) if i not in train]
    with Memory(args.home) as m:
        rows = collect(m, args.data, train + test)
    tr = [c for c in rows if c.conversation in train]
    te = [c for c in rows if c.conversation in test]
    x_train, y_train = np.concatenate([c.x2 for c in tr]), np.concatenate([c.y2 for c in tr])
    w = fit_monotone(x_train, y_train, l2=args.l2)
    fitted = dict(zip(FEATURES, w[:-1], strict=True))
    # Ablation: the same fit without the typed feature (what typed knowledge adds).
    w_plain = fit_monotone(without_typed(x_train), y_train, l2=args.l2)
    plain = dict(zip(FEATURES, w_plain[:-1], strict=True))
    print(
        f"fitted on {train}: "
        + ", ".join(f'"{k}": {v:.3f}' for k, v in fitted.items())
        + f", intercept {w[-1]:.3f}"
    )
    scorers = {
        "fitted": lambda x, c: calibrated(x, fitted, w[-1]),
        "untyped": lambda x, c: calibrated(without_typed(x), plain, w_plain[-1]),
        "shipped": lambda x, c: calibrated(x),
        "rrf": lambda x, c: x[:, 0],
    }
    for label, part in (("in sample", tr), ("out of sample", te)):
        for hops in ("hop 1", "hops 1+2"):
            for name, score in scorers.items():
                got: dict[str, list[float]] = {"all": []}
                for c in part:
                    x, y, tok = (c.x, c.y, c.tokens) if hops == "hop 1" else (c.x2, c.y2, c.tokens2)
                    r = packed_recall(y, tok, score(x, c), c.n_evidence, args.budget)
                    typed = bool(c.x2[:, FEATURES.index("typed")].any())
                    for k in (
                        "all",
                        *(("typed",) if typed else ()),
                        f"c{c.category}",
                        "multi-session" if c.n_sessions > 1 else "one session",
                    ):
                        got.setdefault(k, []).append(r)
                print(f"packed recall, {label:13s} {hops:8s} {name:8s} {_means(got)}")
        got = {"all": [packed_recall(c.y, c.tokens, c.support, c.n_evidence, args.budget) for c in part]}
        print(f"packed recall, {label:13s} hop 1    support  {_means(got)}")
    for label, part in (("train half", tr), ("test half", te)):
        for name, key in (("first hop", "s1"), ("two hops", "s2"), ("first hop + next 5", "s_plain")):
            got = {"all": [getattr(c, key) for c in part]}
            got["multi-session"] = [getattr(c, key) for c in part if c.n_sessions > 1]
            for cat in (1, 2, 3, 4):
                got[f"c{cat}"] = [getattr(c, key) for c in part if c.category == cat]
            print(f"session recall, {label}, {name:18s} {_means(got)}")


if __name__ == "__main__":
    main()
