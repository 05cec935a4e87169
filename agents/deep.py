"""Deep reconstruction's rules, kept out of the graph: route segments (per hop), score every turn
of the activated segments with the calibrated scorer, and derive a second hop's triggers from
what the first hop found.

Why a second hop: a question like "which cities has he visited?" shares no word with the turn
that names Chicago; the turns the first hop found (a trip, a conference) name places, people and
activities that do occur near the missing evidence. Their rarest words and the ledger's values
become keyword triggers, and their vectors pull the dense query towards them (pseudo-relevance
feedback). A third hop starts from what the second added, not again from the first hop's best
(`hop_width` says how wide it is). A hop that activates no new segment ends the search.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from emem.agents.assistant import DATE_WORDS, packed_line_tokens, support_scores
from emem.answer import ActivatedSegment, FactItem, Operation, Plan
from emem.index.manager import turn_key
from emem.index.text import tokenize
from emem.models import StoredTurn
from emem.retrieval.query import topic_query
from emem.retrieval.routing import (
    DEFAULT_ACTIVATE,
    GLOBAL_WEIGHTS,
    PATHWAY_WEIGHTS,
    Pathway,
    Ranked,
    bm25_turn_scores,
    fuse,
    global_pathway,
    keyword_pathway,
    ledger_pathway,
)
from emem.retrieval.second_hop import blend_hop
from emem.retrieval.turnscore import FEATURES, TurnSignals, calibrated, feature_matrix, turn_signals
from emem.retrieval.turntext import turn_text
from emem.retrieval.typed import Tag, typed_signal
from emem.retrieval.view import NamespaceView

MAX_HOPS = 3
"""Routing hops per question: the question itself, then twice more, each from what the hop
before it found. The third is narrow except for gathering questions (`hop_width`)."""
GATHERING = frozenset({Operation.LIST, Operation.COUNT})
"""Operations whose answer gathers members ("Which cities has he visited?", "How many times...")
and so is spread over sessions: their later hops are as wide as the first."""
FEEDBACK_TURNS = 5
"""How many of the best turns of the latest hop's segments seed the next hop."""
FEEDBACK_TERMS = 8
"""How many of their words become keyword triggers."""
FEEDBACK_WEIGHT = 0.5
"""How far the second hop's dense query moves towards the seed turns' mean vector."""

Embed = Callable[[str], np.ndarray]
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")


@dataclass(frozen=True)
class Scored:
    """Turns with their calibrated score, support score (the abstention signal), and tokens."""

    turns: list[StoredTurn]
    score: np.ndarray
    support: np.ndarray
    x: np.ndarray
    tokens: np.ndarray


class SignalCache:
    """Per-question turn signals, shared by the assistants of one question (each would otherwise
    recompute BM25 and dense similarity over the namespace). Bounded; thread-safe."""

    def __init__(self, size: int = 64) -> None:
        self._hits: OrderedDict[tuple[Any, ...], tuple[NamespaceView, TurnSignals]] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size
        self._computing: dict[tuple[Any, ...], threading.Lock] = {}
        """One lock per key being computed: a question's assistants run in parallel and each
        missed the cache at once (up to five computed the same signals per ask at 3 LoCoMo
        conversations), so the first computes and the others wait for its result."""

    def get(
        self, view: NamespaceView, question: str, mask: np.ndarray, embed: Embed, tag: Tag | None = None
    ) -> TurnSignals:
        """The signals of every turn of `view` for `question`, `mask` the usable turns.

        Args:
            view: the namespace view.
            question: the question as asked.
            mask: usable rows (as_of, filter).
            embed: the runtime's cached query embedder.
            tag: the runtime's persisted entity tagger (None: tag in this process only).
        Returns:
            The question's TurnSignals.
        """
        key = (id(view), view.covered_seq, question, mask.tobytes())
        with self._lock:
            hit = self._hits.get(key)
            if hit is not None and hit[0] is view:
                return hit[1]
            gate = self._computing.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                hit = self._hits.get(key)
                if hit is not None and hit[0] is view:
                    return hit[1]
            try:
                bm = bm25_turn_scores(view, question)
                topic = view.turn_vectors @ embed(topic_query(question, view.indexes.speakers))
                asked = view.turn_vectors @ embed(question)
                signals = turn_signals(bm, topic, asked, mask, typed_signal(view, question, mask, tag))
                with self._lock:
                    self._hits[key] = (view, signals)
                    if len(self._hits) > self._size:
                        self._hits.popitem(last=False)
            finally:
                with self._lock:
                    self._computing.pop(key, None)
        return signals


def route_hop(
    view: NamespaceView,
    query: str,
    q_vec: np.ndarray,
    plan: Plan,
    facts: Sequence[FactItem],
    mask: np.ndarray,
    top_n: int = DEFAULT_ACTIVATE,
    exclude: set[str] | frozenset[str] = frozenset(),
    global_weights: Mapping[str, float] = GLOBAL_WEIGHTS,
    pathway_weights: Mapping[str, float] = PATHWAY_WEIGHTS,
    turn_best: Mapping[str, float] | None = None,
    turn_weight: float = 0.0,
) -> list[ActivatedSegment]:
    """The three pathways fused, best `top_n` segments not in `exclude` (weights: the read
    config's, else routing's defaults). With `turn_best` (segment id -> best calibrated turn
    score, `segment_best`), the fused ranking is blended with it at `turn_weight`
    (emem.retrieval.second_hop says why)."""
    pathways: dict[Pathway, Ranked] = {
        "global": global_pathway(view, q_vec, mask, global_weights),
        "keyword": keyword_pathway(view, query, plan, mask),
        "ledger": ledger_pathway(view, facts, mask),
    }
    blended = turn_best is not None and turn_weight > 0.0
    fused = fuse(
        view,
        {k: v for k, v in pathways.items() if v},
        top_n=len(view.segments) if blended else top_n + len(exclude),
        weights=pathway_weights,
    )
    if blended:
        assert turn_best is not None
        return blend_hop(fused, turn_best, turn_weight, top_n, exclude)
    return [a for a in fused if a.segment_id not in exclude][:top_n]


def hop_width(plan: Plan, hops_done: int, activate: int, late: int) -> int:
    """How many segments the next hop may activate.

    Why: the first two hops route every question as wide (`activate`). On LoCoMo (conversations
    0-4) a third hop as wide costs about 5,100 orchestration tokens a question, and half of what
    it adds to the evidence-session recall of multi-session questions comes from the fifth of
    questions that gather members (LIST, COUNT), whose evidence spreads over sessions. So a third
    or later hop stays as wide for them and is `late` segments wide for the rest
    (docs/benchmarks.md, "Session 11: multi-session routing").

    Args:
        plan: the question's plan (its operation).
        hops_done: routing hops already made (1 after the first).
        activate: segments per hop (`ReadConfig.activate`).
        late: segments of a third or later hop for non-gathering questions
            (`ReadConfig.late_hop_segments`; 0 ends their search after two hops).
    Returns:
        The segment count, at most `activate`.
    """
    if hops_done < 2 or plan.operation in GATHERING:
        return activate
    return min(late, activate)


def segment_best(view: NamespaceView, scored: Scored) -> dict[str, float]:
    """The best calibrated score among each segment's scored turns (segments with none absent).

    Args:
        view: the namespace view.
        scored: turns of the view scored by `score_turns`.
    Returns:
        Segment id -> best score.
    """
    best: dict[str, float] = {}
    for t, s in zip(scored.turns, scored.score.tolist(), strict=True):
        sid = view.segment_for(t).segment_id
        if s > best.get(sid, -1.0):
            best[sid] = s
    return best


def score_turns(
    view: NamespaceView,
    turns: Sequence[StoredTurn],
    question: str,
    plan: Plan,
    signals: TurnSignals,
    q_vec: np.ndarray,
    segment_score: dict[str, float],
) -> Scored:
    """Every turn given, scored by the calibrated scorer and by support.

    Args:
        view: the namespace view.
        turns: the candidate turns (visible ones only).
        question: the question as asked.
        plan: its plan (entities count as support).
        signals: the question's turn signals (SignalCache.get).
        q_vec: the question's vector as asked.
        segment_score: routing score per segment id, min-max over the activated (0 if absent).
    Returns:
        The turns with their scores, in the order given.
    """
    if not turns:
        empty = np.zeros(0)
        return Scored([], empty, empty, np.zeros((0, len(FEATURES))), empty)
    rows = [view.row_of[turn_key(t)] for t in turns]
    support = np.array(support_scores(turns, view.turn_vectors[rows], question, plan, q_vec))
    q_terms = (set(tokenize(question)) - DATE_WORDS) or set(tokenize(question))
    texts = [turn_text(t) for t in turns]
    overlap = [len(q_terms & x.words) / max(len(q_terms), 1) for x in texts]
    names = [e.lower() for e in plan.entities]
    ents = [
        sum(1 for e in names if e in x.lower or e == t.speaker.lower())
        for t, x in zip(turns, texts, strict=True)
    ]
    seg = [segment_score.get(view.segment_for(t).segment_id, 0.0) for t in turns]
    # Said by a person the question names: a list question's evidence ("What activities does
    # Melanie partake in?") is that person's own turns, which rarely repeat the question's words.
    said = [float(t.speaker.lower() in names) for t in turns]
    x = feature_matrix(signals, rows, overlap, ents, seg, said)
    tokens = np.array([packed_line_tokens(t) for t in turns])
    return Scored(list(turns), calibrated(x), support, x, tokens)


def segment_scores(activated: Sequence[ActivatedSegment]) -> dict[str, float]:
    """Activated segments' routing scores, min-max normalised (all 1.0 when equal)."""
    if not activated:
        return {}
    lo, hi = min(a.score for a in activated), max(a.score for a in activated)
    return {a.segment_id: (a.score - lo) / (hi - lo) if hi - lo > 1e-12 else 1.0 for a in activated}


def visible_turns(
    view: NamespaceView, segment_ids: Sequence[str], as_of: datetime | None, flt: Any
) -> list[StoredTurn]:
    return [
        t
        for sid in segment_ids
        for t in view.segments[view.segment_index[sid]].turns
        if (as_of is None or t.time <= as_of) and (flt is None or flt.matches(t))
    ]


def feedback_query(
    question: str,
    seeds: Sequence[StoredTurn],
    facts: Sequence[FactItem],
    speakers: Sequence[str],
    document_frequency: Callable[[str], float],
) -> tuple[str, list[str]]:
    """The second hop's keyword query: the question plus the rarest content words of the seed
    turns (names, places, activities) and the values of the ledger's facts.

    Args:
        question: the question as asked.
        seeds: the first hop's best turns.
        facts: the ledger facts the plan resolved.
        speakers: the namespace's speakers (every segment holds their names: not a trigger).
        document_frequency: share of the namespace's turns holding a stemmed word.
    Returns:
        (query text, the trigger words added).
    """
    asked = set(tokenize(question)) | {s.lower() for s in speakers}
    weight: defaultdict[str, float] = defaultdict(float)
    surface: dict[str, str] = {}
    for rank, t in enumerate(seeds):
        for word in dict.fromkeys(w.lower() for w in _WORD.findall(t.render())):
            stems = tokenize(word)
            if len(stems) != 1 or stems[0] in asked or word in asked or stems[0] in DATE_WORDS:
                continue
            df = max(document_frequency(stems[0]), 1e-3)
            weight[stems[0]] += -np.log(df) / (1 + rank)
            surface.setdefault(stems[0], word)
    for f in facts:
        for v in f.values:
            for word in _WORD.findall(v):
                stems = tokenize(word)
                if len(stems) == 1 and stems[0] not in asked:
                    weight[stems[0]] += 2.0
                    surface.setdefault(stems[0], word.lower())
    best = sorted(weight.items(), key=lambda kv: -kv[1])[:FEEDBACK_TERMS]  # stable, as most_common
    terms = [surface[s] for s, _ in best]
    return (question + " " + " ".join(terms)).strip(), terms


def feedback_vector(q_vec: np.ndarray, seed_vectors: np.ndarray) -> np.ndarray:
    """The question's vector moved towards the seed turns' mean (Rocchio), re-normalised."""
    if len(seed_vectors) == 0:
        return q_vec
    v = q_vec + FEEDBACK_WEIGHT * seed_vectors.mean(axis=0)
    return v / max(float(np.linalg.norm(v)), 1e-12)


class DocumentFrequency:
    """Share of a view's turns holding each stemmed word; built once per view."""

    def __init__(self) -> None:
        self._views: dict[int, tuple[NamespaceView, dict[str, float]]] = {}
        self._lock = threading.Lock()

    def of(self, view: NamespaceView) -> Callable[[str], float]:
        with self._lock:
            hit = self._views.get(id(view))
            if hit is None or hit[0] is not view:
                n = max(len(view.turns), 1)
                hit = (view, {w: c / n for w, c in view.turn_word_counts().items()})
                if len(self._views) > 16:
                    self._views.clear()
                self._views[id(view)] = hit
        table = hit[1]
        return lambda stem: table.get(stem, 0.0)


NEIGHBOUR_WEIGHT = 0.9
"""Episode context: a turn next to an evidence turn (the question it answers, the reply that
completes it) ranks at least this share of the evidence turn's score."""


def with_neighbours(
    view: NamespaceView,
    ranked: Sequence[tuple[StoredTurn, float]],
    usable: Callable[[StoredTurn], bool],
    weight: float = NEIGHBOUR_WEIGHT,
) -> list[tuple[StoredTurn, float, bool]]:
    """Lift each turn's neighbours in its session to `weight` x its score, so an evidence turn
    is packed with the question it answers or the reply that completes it (they still compete
    for the budget like any turn).

    Args:
        view: the namespace view.
        ranked: (turn, score) candidates.
        usable: whether a neighbour may be shown (as_of, filter).
        weight: the share of the evidence turn's score a neighbour gets.
    Returns:
        (turn, score, lifted) best first; `lifted` marks a turn whose score came from a neighbour.
    """
    best: dict[str, tuple[StoredTurn, float, bool]] = {turn_key(t): (t, s, False) for t, s in ranked}
    for t, s in ranked:
        turns = view.segment_for(t).turns
        i = next(j for j, u in enumerate(turns) if u.turn_id == t.turn_id)
        for j in (i - 1, i + 1):
            if not 0 <= j < len(turns) or not usable(turns[j]):
                continue
            n, lifted = turns[j], weight * s
            key = turn_key(n)
            if key not in best or best[key][1] < lifted:
                best[key] = (n, lifted, True)
    return sorted(best.values(), key=lambda r: (-r[1], r[0].seq))
