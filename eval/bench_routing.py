"""Routing study on LoCoMo categories 1-4: how far can the offline routing signals go?

    python -m emem.eval.bench_routing --data ../shared/data/locomo10.json [--k 5]

Issue #4 sets evidence-session recall >= 0.95 with <= 5 activated segments. This benchmark
measures, with the same offline signals the master's router uses, each signal alone, the shipped
router (hand-weighted fusion of the three pathways), and a logistic-regression fusion of all the
signals fitted on half the conversations and scored on the other half (2-fold, by conversation,
so no question is scored by weights fitted on it). The learned fusion estimates what re-weighting
these signals could gain at most; it is a measurement, not the shipped router.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from emem.agents.aggregate import fact_items
from emem.agents.currentness import question_time
from emem.agents.master import ReadRuntime
from emem.agents.planner import offline_plan
from emem.answer import Pathway
from emem.eval.bench_retrieval import ingest_conversation
from emem.eval.locomo_data import iter_questions, load_locomo
from emem.eval.metrics import CATEGORY_NAMES, session_number
from emem.eval.report import fmt, md_table
from emem.index.manager import turn_key
from emem.memory import Memory
from emem.retrieval.fusion import minmax_array
from emem.retrieval.routing import (
    Ranked,
    bm25_turn_scores,
    fuse,
    global_pathway,
    keyword_pathway,
    ledger_pathway,
    segment_bm25_scores,
)
from emem.retrieval.view import NamespaceView


@dataclass
class RoutedQuestion:
    conversation: int
    category: int
    evidence_sessions: list[int | None]
    """The session of each evidence turn (repeats kept: recall is over evidence turns)."""
    segment_sessions: np.ndarray
    signals: dict[str, np.ndarray]
    """Per-segment signal arrays, each min-max normalised over the conversation's segments."""
    shipped: np.ndarray
    """The router's own fused score per segment (routing.fuse); -inf where no pathway ranked it."""


def _ranked_array(ranked: Ranked, n: int) -> np.ndarray:
    out = np.zeros(n)
    for i, score, _ in ranked:
        out[i] = score
    return out


def _best_two(view: NamespaceView, turn_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best and second-best turn score per segment."""
    first = np.full(len(view.segments), -np.inf)
    second = np.full(len(view.segments), -np.inf)
    for s, seg in enumerate(view.segments):
        vals = sorted((turn_scores[view.row_of[turn_key(t)]] for t in seg.turns), reverse=True)
        first[s] = vals[0]
        second[s] = vals[1] if len(vals) > 1 else vals[0]
    return first, second


def segment_signals(
    view: NamespaceView,
    question: str,
    q_vec: np.ndarray,
    pathways: dict[str, Ranked],
    asked_vec: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The signals the router has, per segment: the three pathway scores and their raw parts.
    `q_vec` embeds the question without speaker names, as the router does; `asked_vec`, when
    given, embeds it as asked, to show what leaving the names out changes."""
    n = len(view.segments)
    bm_first, bm_second = _best_two(view, bm25_turn_scores(view, question))
    dense_first, dense_second = _best_two(view, view.turn_vectors @ q_vec)
    signals = {
        "BM25 best turn": bm_first,
        "BM25 second turn": bm_second,
        "BM25 over segments": segment_bm25_scores(view, question),
        "dense best turn": dense_first,
        "dense second turn": dense_second,
        "dense centroid": view.centroids @ q_vec,
        "dense summary": view.summary_vectors @ q_vec,
    }
    if asked_vec is not None:
        signals["dense best turn, question as asked"] = _best_two(view, view.turn_vectors @ asked_vec)[0]
    signals |= {f"pathway: {p}": _ranked_array(r, n) for p, r in pathways.items()}
    return {name: minmax_array(x) for name, x in signals.items()}


def fused_scores(view: NamespaceView, pathways: dict[str, Ranked]) -> np.ndarray:
    """Every segment's score under the router's own fusion, so the study ranks exactly as it does."""
    out = np.full(len(view.segments), -np.inf)
    for a in fuse(view, {cast(Pathway, p): r for p, r in pathways.items() if r}, top_n=len(view.segments)):
        out[view.segment_index[a.segment_id]] = a.score
    return out


def oracle_scores(q: RoutedQuestion) -> np.ndarray:
    """Segments ranked by how many evidence turns their session holds: the best any router could do."""
    return np.array([sum(s == e for e in q.evidence_sessions) for s in q.segment_sessions], dtype=float)


def session_recall_at(
    scores: np.ndarray, segment_sessions: np.ndarray, evidence_sessions: Sequence[int | None], k: int
) -> float:
    top = {int(segment_sessions[i]) for i in np.argsort(-scores, kind="stable")[:k]}
    return sum(s in top for s in evidence_sessions) / len(evidence_sessions)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method; returns weights, intercept last."""
    x1 = np.c_[x, np.ones(len(x))]
    w = np.zeros(x1.shape[1])
    penalty = np.diag(np.r_[np.full(x.shape[1], l2), 0.0])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x1 @ w)))
        grad = x1.T @ (p - y) + penalty @ w
        hess = (x1 * (p * (1 - p))[:, None]).T @ x1 + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def _design(q: RoutedQuestion, names: Sequence[str]) -> np.ndarray:
    return np.stack([q.signals[n] for n in names], axis=1)


def _labels(q: RoutedQuestion) -> np.ndarray:
    return np.array([float(s in q.evidence_sessions) for s in q.segment_sessions])


def cross_validated_scores(
    questions: Sequence[RoutedQuestion], folds: int = 2
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Score each question with logistic fusion weights fitted on the other folds' conversations."""
    names = sorted(questions[0].signals)
    convs = sorted({q.conversation for q in questions})
    fold_of = {c: i * folds // len(convs) for i, c in enumerate(convs)}
    scores: list[np.ndarray] = [np.zeros(0)] * len(questions)
    weights = []
    for f in range(folds):
        train = [q for q in questions if fold_of[q.conversation] != f]
        if not train:
            raise ValueError("cross-validation needs at least two conversations")
        w = fit_logistic(
            np.concatenate([_design(q, names) for q in train]), np.concatenate([_labels(q) for q in train])
        )
        weights.append(w)
        for i, q in enumerate(questions):
            if fold_of[q.conversation] == f:
                scores[i] = _design(q, names) @ w[:-1] + w[-1]
    return scores, weights


def route_questions(memory: Memory, data: Path, chosen: Sequence[int] | None = None) -> list[RoutedQuestion]:
    samples = load_locomo(data)
    raw = json.loads(data.read_text())
    runtime = ReadRuntime(memory, memory.roles)
    out = []
    for ci in chosen if chosen is not None else range(len(samples)):
        ns = ingest_conversation(memory, raw[ci], samples[ci].sample_id)
        view = runtime.view(ns)
        known = runtime.known_entities(ns, view)
        mask = view.visible(None)
        sessions = np.array([session_number(s.session_id) for s in view.segments])
        for q in iter_questions([samples[ci]], categories=[1, 2, 3, 4]):
            if not q.evidence:
                continue
            plan = offline_plan(q.question, known, view.turns[-1].time)
            q_vec = runtime.question_vector(view, q.question)
            pathways = {
                "global": global_pathway(view, q_vec, mask),
                "keyword": keyword_pathway(view, q.question, plan, mask),
                "ledger": ledger_pathway(
                    view, fact_items(memory.ledger, ns, plan, *question_time(plan, None))
                ),
            }
            out.append(
                RoutedQuestion(
                    ci,
                    q.category,
                    [session_number(e) for e in q.evidence],
                    sessions,
                    segment_signals(view, q.question, q_vec, pathways, runtime.embed(q.question)),
                    fused_scores(view, pathways),
                )
            )
    return out


def recall_table(
    questions: Sequence[RoutedQuestion],
    rankers: dict[str, Sequence[np.ndarray]],
    k: int,
    by: str = "category",
) -> str:
    """Evidence-session recall@k of each ranking, overall and per group: `by` is "category",
    "sessions" (how many sessions hold the question's evidence: 1, 2, 3+) or "half"
    (conversations 0-4 / 5-9; the learned fusion is fitted on the other half, so both are out of
    sample for it, and in sample for the hand weights, chosen on all ten)."""

    def group(q: RoutedQuestion) -> str:
        if by == "category":
            return f"{q.category} {CATEGORY_NAMES[q.category]}"
        if by == "sessions":
            n = len({s for s in q.evidence_sessions if s is not None})
            return str(n) if n < 3 else "3+"
        return "0-4" if q.conversation < 5 else "5-9"

    groups = sorted({group(q) for q in questions})
    rows = []
    for label, scores in rankers.items():
        by_group: dict[str, list[float]] = defaultdict(list)
        for q, s in zip(questions, scores, strict=True):
            by_group[group(q)].append(session_recall_at(s, q.segment_sessions, q.evidence_sessions, k))
        overall = statistics.fmean(v for vs in by_group.values() for v in vs)
        rows.append([label, fmt(overall), *(fmt(statistics.fmean(by_group[g])) for g in groups)])
    counts = {g: sum(1 for q in questions if group(q) == g) for g in groups}
    return md_table(
        [
            f"ranking (top {k} segments)",
            f"all (n={len(questions)})",
            *(f"{g} (n={counts[g]})" for g in groups),
        ],
        rows,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "emem-bench-locomo")
    ap.add_argument("--k", type=int, default=5, help="segments activated")
    ap.add_argument(
        "--conversations",
        default=None,
        help="comma-separated indexes (default: all; the learned fusion needs two)",
    )
    args = ap.parse_args()
    chosen = [int(x) for x in args.conversations.split(",")] if args.conversations else None
    t0 = time.perf_counter()
    with Memory(args.home) as m:
        questions = route_questions(m, args.data, chosen)
        summaries = {
            n for n in {f"locomo-{s.sample_id}" for s in load_locomo(args.data)} if m.segment_summaries(n)
        }
    learned, weights = cross_validated_scores(questions)
    rankers: dict[str, Sequence[np.ndarray]] = {
        name: [q.signals[name] for q in questions] for name in sorted(questions[0].signals)
    }
    rankers["shipped router (hand-weighted pathway fusion)"] = [q.shipped for q in questions]
    rankers["logistic fusion of all signals (2-fold CV by conversation)"] = learned
    rankers["oracle: the sessions holding most evidence (upper bound)"] = [
        oracle_scores(q) for q in questions
    ]
    print(
        f"emem routing study — LoCoMo categories 1-4, {len(questions)} questions, "
        f"{len({q.conversation for q in questions})} conversations, offline planner; segment summaries: "
        f"{'LLM-written in ' + str(len(summaries)) + ' namespace(s)' if summaries else 'extractive (offline)'}; "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print("\nPer category:\n")
    print(recall_table(questions, rankers, args.k))
    print("\nPer number of sessions holding the question's evidence:\n")
    print(recall_table(questions, rankers, args.k, by="sessions"))
    print("\nPer half (the logistic fusion of each half is fitted on the other):\n")
    print(recall_table(questions, rankers, args.k, by="half"))
    names = sorted(questions[0].signals)
    for f, w in enumerate(weights):
        print(
            f"fold {f} weights: "
            + ", ".join(f"{n} {v:+.2f}" for n, v in zip([*names, "intercept"], w, strict=True))
        )


if __name__ == "__main__":
    main()
