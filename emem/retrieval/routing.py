"""The master's three routing pathways over segments, and their fusion.

Each pathway ranks segments and says why (the reasons are shown in the Answer); the fused list is
a candidate set for the assistants to read, not truth.

- global alignment: the question (without speaker names) against each segment's best turn, its
  summary and its centroid;
- keyword/symbolic: BM25 over turns and segments, plus entity and date triggers;
- ledger-validated: segments holding the source turns of the facts the resolver admits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from emem.answer import ActivatedSegment, FactItem, Pathway, Plan
from emem.config import DEFAULT
from emem.index.manager import turn_key
from emem.retrieval.fusion import minmax, minmax_array
from emem.retrieval.view import NamespaceView, epoch_us

DEFAULT_ACTIVATE = DEFAULT.read.activate
PATHWAY_WEIGHTS: Mapping[str, float] = DEFAULT.read.pathway_weights
"""The ledger pathway is sparse and nearly binary (a segment holds a fact's source or not), so at
full weight it outvotes the graded pathways; at half weight it breaks ties and surfaces the
segments that make a value current without displacing strong lexical matches."""

GLOBAL_WEIGHTS: Mapping[str, float] = DEFAULT.read.global_weights
"""Within the global pathway. The segment's best-matching turn carries the signal; the summary and
the centroid (mean of the turn vectors) break ties: extractive summaries and centroids blur a
segment's many topics, and alone they route far worse than the best turn (LoCoMo evidence-session
recall@5, `python -m emem.eval.bench_routing`). Chosen on that benchmark, so in-sample. Summaries
written by qwen2.5-1.5b routed better than extractive ones on two conversations but still far
below the best turn (README, routing study), so the weights do not depend on who wrote them."""


class Reason:
    """A pathway's reason for one segment, formatted only when shown (`str()`/f-strings).

    Why: a pathway ranks every segment of the namespace (about 300 at ten LoCoMo conversations)
    but an answer shows the reasons of the few segments activated; formatting all of them was
    the largest Python cost of a routing hop, paid three times per deep ask."""

    __slots__ = ("_args", "_write")

    def __init__(self, write: Callable[..., str], *args: object) -> None:
        """A reason to write when shown.

        Args:
            write: what writes the text (a pathway's function, or a template's `str.format`).
            *args: its arguments (cheap ones: it runs only when the text is shown).
        """
        self._write = write
        self._args = args

    def __str__(self) -> str:
        return self._write(*self._args)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return repr(str(self))


@dataclass(frozen=True, slots=True)
class Ranked:
    """A pathway's ranking: segment indices best first, their scores, and why, written on demand.

    Why arrays and a function: a pathway ranks every segment of the namespace and fusion reads
    all their scores, but an answer shows the reasons of a few; a tuple and a reason object per
    segment were a tenth of a deep ask. Iterating yields (segment index, score, `Reason`)."""

    segments: np.ndarray
    """Segment indices (int64), best first."""
    scores: np.ndarray
    """Their scores (float64)."""
    why: Callable[[int], str]
    """Segment index -> the pathway's reason for it."""

    @classmethod
    def of(cls, rows: Sequence[tuple[int, float, str]]) -> Ranked:
        """A ranking from (segment index, score, reason) rows, best first."""
        reasons = {i: r for i, _, r in reversed(rows)}  # a segment's first reason
        return cls(
            np.fromiter((i for i, _, _ in rows), np.int64, len(rows)),
            np.fromiter((s for _, s, _ in rows), np.float64, len(rows)),
            reasons.__getitem__,
        )

    def __len__(self) -> int:
        return len(self.segments)

    def __iter__(self) -> Iterator[tuple[int, float, Reason]]:
        for i, s in zip(self.segments.tolist(), self.scores.tolist(), strict=True):
            yield i, s, Reason(self.why, i)


def bm25_turn_scores(view: NamespaceView, question: str) -> np.ndarray:
    """The question's BM25 score for every turn of the view, in view row order."""
    bm25 = view.indexes.bm25
    raw = bm25.scores(question)
    rows = view.rows_of_keys(bm25.keys)[: len(raw)]
    out = np.zeros(len(view.turns))
    held = rows >= 0
    out[rows[held]] = raw[: len(rows)][held]
    return out


def segment_bm25_scores(view: NamespaceView, question: str) -> np.ndarray:
    """The question's BM25 score for every segment (0 where no term matches), in segment order."""
    out = np.zeros(len(view.segments))
    for key, score in view.segment_bm25.search(question, len(view.segments)):
        out[view.segment_index[key]] = score
    return out


def _segment_ranked(
    view: NamespaceView, values: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Visible turn rows grouped by segment, best value first and, among equals, lowest row first:
    (rows in that order, start of each segment's group or -1 for a segment with none)."""
    rows = np.flatnonzero(mask)
    seg = view.turn_segment[rows]
    order = np.lexsort((rows, -values[rows], seg))
    rows, seg = rows[order], seg[order]
    starts = np.full(len(view.segments), -1, dtype=np.int64)
    if len(rows):
        first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        starts[seg[first]] = first
    return rows, starts


def _segment_max(
    view: NamespaceView, turn_scores: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, list[int]]:
    """Best visible turn score per segment and which turn it was (row index, -1 if none; the
    earliest row among equal bests).

    Why: reductions over the view's rows grouped by segment (`NamespaceView.segment_rows`, made
    once per view) pick what sorting every visible turn per question picked (`_segment_ranked`),
    which was about a third of the global pathway, run three times per deep ask."""
    n = len(view.segments)
    rows, held, starts = view.segment_rows
    best = np.full(n, -np.inf)
    arg = np.full(n, -1, dtype=np.int64)
    if len(rows) != len(turn_scores) or not len(rows):
        ranked, first = _segment_ranked(view, turn_scores, mask)
        has = first >= 0
        arg[has] = ranked[first[has]]
    else:
        shown = mask[rows]
        vals = np.where(shown, turn_scores[rows], -np.inf)
        top = np.maximum.reduceat(vals, starts)
        sizes = np.diff(np.append(starts, len(rows)))
        positions = np.where(shown & (vals == np.repeat(top, sizes)), np.arange(len(rows)), len(rows))
        first = np.minimum.reduceat(positions, starts)
        has = first < len(rows)  # a segment with a visible turn
        arg[held[has]] = rows[first[has]]
    best[arg >= 0] = turn_scores[arg[arg >= 0]]
    return best, arg.tolist()


def global_pathway(
    view: NamespaceView,
    q_vec: np.ndarray,
    mask: np.ndarray,
    weights: Mapping[str, float] = GLOBAL_WEIGHTS,
) -> Ranked:
    if not view.segments:
        return Ranked.of([])
    turn_sims = view.turn_vectors @ q_vec
    best, arg = _segment_max(view, turn_sims, mask)
    alive = np.isfinite(best)
    summary = view.summary_vectors @ q_vec
    centroid = view.centroids @ q_vec
    w = weights
    score = (
        w["summary"] * minmax_array(summary)
        + w["centroid"] * minmax_array(centroid)
        + w["best_turn"] * minmax_array(np.where(alive, best, 0.0))
    )
    # Reasons formatted from Python floats: numpy scalars' __format__ cost ~40 ms per question
    # over ~300 segments (the same text: `.2f` of the same double).
    found = (view, summary.tolist(), centroid.tolist(), best.tolist(), arg)
    order = np.argsort(-score, kind="stable")
    order = order[alive[order]]
    return Ranked(order, score[order], functools.partial(_global_text, found))


def _global_text(
    found: tuple[NamespaceView, list[float], list[float], list[float], list[int]], i: int
) -> str:
    view, sums, cents, bests, arg = found
    return (
        f"summary sim {sums[i]:.2f}, centroid sim {cents[i]:.2f}, "
        f"best turn {view.turns[arg[i]].turn_id} sim {bests[i]:.2f}"
    )


def keyword_pathway(view: NamespaceView, question: str, plan: Plan, mask: np.ndarray) -> Ranked:
    if not view.segments:
        return Ranked.of([])
    turn_scores = bm25_turn_scores(view, question)
    turn_scores[~mask] = 0.0
    n = len(view.segments)
    # Per segment: the best positive turn score (earliest row among equals) and the second best
    # (equal to the first when two turns tie), as a scan in row order keeping the top two would.
    rows, starts = _segment_ranked(view, turn_scores, turn_scores > 0)
    has = starts >= 0
    first, second = np.zeros(n), np.zeros(n)
    best_turn = np.full(n, -1, dtype=np.int64)
    best_turn[has] = rows[starts[has]]
    first[has] = turn_scores[best_turn[has]]
    seg_of_rows = view.turn_segment[rows]
    nxt = starts[has] + 1
    pair = nxt < len(rows)
    pair[pair] = seg_of_rows[nxt[pair]] == np.flatnonzero(has)[pair]
    second_idx = np.flatnonzero(has)[pair]
    second[second_idx] = turn_scores[rows[nxt[pair]]]
    best_rows: list[int] = best_turn.tolist()
    seg_lex = segment_bm25_scores(view, question)
    score = minmax_array(first + 0.5 * second) + 0.5 * minmax_array(seg_lex)
    # Symbolic triggers: names the question mentions that are not the speakers, and dates.
    speakers = view.speaker_names_lower()
    names = [e for e in plan.entities if e.lower() not in speakers]
    named = [view.segments_naming(e.lower()) for e in names]
    if named:
        score += 0.5 * np.sum(named, axis=0) / len(names)
    dated = np.zeros(n, dtype=bool)
    if plan.time_from is not None and plan.time_to is not None:
        starts_us, ends_us = view.segment_spans
        dated = (starts_us < epoch_us(plan.time_to)) & (epoch_us(plan.time_from) <= ends_us)
        score += dated
    alive = (np.bincount(view.turn_segment[mask], minlength=n) > 0) & (score > 0)
    shared = _KeywordFindings(
        view, best_rows, first.tolist(), names, [h.tolist() for h in named], plan, dated.tolist()
    )
    order = np.argsort(-score, kind="stable")
    order = order[alive[order]]
    return Ranked(order, score[order], functools.partial(_keyword_text, shared))


@dataclass(frozen=True, slots=True)
class _KeywordFindings:
    """What the keyword pathway found per segment, shared by its reasons."""

    view: NamespaceView
    best_rows: list[int]
    """Row of each segment's best BM25 turn (-1 for none)."""
    bm25: list[float]
    """That turn's BM25 score."""
    names: list[str]
    """The question's names that are not speakers."""
    holds: list[list[bool]]
    """Per name, whether each segment's text holds it."""
    plan: Plan
    dated: list[bool]
    """Whether each segment overlaps the question's period."""


def _keyword_text(f: _KeywordFindings, i: int) -> str:
    parts = []
    if f.best_rows[i] >= 0 and f.bm25[i] > 0:
        parts.append(f"BM25 turn {f.view.turns[f.best_rows[i]].turn_id} ({f.bm25[i]:.1f})")
    hits = [e for e, held in zip(f.names, f.holds, strict=True) if held[i]]
    if hits:
        parts.append("entity " + ", ".join(repr(h) for h in hits))
    if f.dated[i] and f.plan.time_from is not None and f.plan.time_to is not None:
        parts.append(f"date trigger {f.plan.time_from:%Y-%m-%d}..{f.plan.time_to:%Y-%m-%d}")
    return "; ".join(parts) or "weak lexical match"


def ledger_pathway(view: NamespaceView, facts: Sequence[FactItem], mask: np.ndarray | None = None) -> Ranked:
    """Segments holding source turns of admitted facts: current values first, then history. With
    `mask` (turns visible as of the question, inside its filter), only visible source turns count."""
    scores: dict[int, tuple[float, str]] = {}
    for fact in facts:
        for weight, revs in ((1.0, fact.revisions), (0.5, fact.history)):
            for rev in revs:
                for ref in rev.get("sources", []):
                    conv, _, tid = ref.partition("/")
                    turn = view.by_ref.get((conv, tid))
                    if turn is None or (mask is not None and not mask[view.row_of[turn_key(turn)]]):
                        continue
                    seg = view.segment_of[turn_key(turn)]
                    label = "current" if weight == 1.0 else "superseded"
                    reason = f"{label} {fact.predicate}({fact.subject}) = {rev.get('object')} from {tid}"
                    if seg not in scores or scores[seg][0] < weight:
                        scores[seg] = (weight, reason)
    return Ranked.of([(s, w, r) for s, (w, r) in sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))])


def fuse(
    view: NamespaceView,
    pathways: dict[Pathway, Ranked],
    top_n: int = DEFAULT_ACTIVATE,
    weights: Mapping[str, float] = PATHWAY_WEIGHTS,
) -> list[ActivatedSegment]:
    """Weighted sum of min-max-normalised pathway scores (a segment a pathway did not rank scores
    0 there). On LoCoMo this beat reciprocal-rank fusion: RRF discards how far ahead the keyword
    pathway's leaders are, which is the strongest signal the offline pathways have."""
    names = list(pathways)
    n = len(view.segments)
    total, listed = np.zeros(n), np.zeros(n, dtype=bool)
    # Each pathway's first entry per segment: its rank (-1 where unlisted) and its reasons.
    ranks: dict[str, np.ndarray] = {}
    for p in names:
        idx = pathways[p].segments
        first_idx, first_pos = np.unique(idx, return_index=True)
        rank = np.full(n, -1, dtype=np.int64)
        rank[first_idx] = first_pos
        ranks[p] = rank
        # min-max over the pathway's segments, its last score per segment (as a dict keeps)
        last_pos = len(idx) - 1 - np.unique(idx[::-1], return_index=True)[1]
        total[first_idx] += weights[p] * minmax_array(pathways[p].scores[last_pos])
        listed[first_idx] = True
    held = np.flatnonzero(listed)
    order = held[np.lexsort((held, -total[held]))][:top_n]
    fused = list(zip(order.tolist(), total[order].tolist(), strict=True))
    out = []
    for i, score in fused:
        seg = view.segments[i]
        ranked = {p: int(ranks[p][i]) for p in names if ranks[p][i] >= 0}
        by = [p for p in names if p in ranked and ranked[p] < 2 * top_n]
        if not by:
            by = [min((p for p in names if p in ranked), key=lambda p: ranked[p])]
        reasons = [f"{p}: {pathways[p].why(i)}" for p in ranked][:3]
        out.append(
            ActivatedSegment(
                segment_id=seg.segment_id,
                session_id=seg.session_id,
                conversation_id=seg.conversation_id,
                start=seg.start,
                score=score,
                pathways=by,
                reasons=reasons,
            )
        )
    return out


def paper_route(
    view: NamespaceView, q_vec: np.ndarray, question: str, mask: np.ndarray, top_n: int
) -> list[ActivatedSegment]:
    """The E-mem paper's published routing rule, for comparison on equal terms: min-max
    normalised summary similarity x 0.3 + segment similarity x 0.4 + segment BM25 x 0.3."""
    n = len(view.segments)
    if n == 0:
        return []
    summary = minmax({str(i): float(v) for i, v in enumerate(view.summary_vectors @ q_vec)})
    segment = minmax({str(i): float(v) for i, v in enumerate(view.centroids @ q_vec)})
    lexical = minmax({str(i): float(v) for i, v in enumerate(segment_bm25_scores(view, question))})
    alive = [any(mask[view.row_of[turn_key(t)]] for t in s.turns) for s in view.segments]
    total = {
        i: 0.3 * summary[str(i)] + 0.4 * segment[str(i)] + 0.3 * lexical[str(i)] for i in range(n) if alive[i]
    }
    best = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:top_n]
    return [
        ActivatedSegment(
            segment_id=view.segments[i].segment_id,
            session_id=view.segments[i].session_id,
            conversation_id=view.segments[i].conversation_id,
            start=view.segments[i].start,
            score=score,
            pathways=["global"],
            reasons=["paper rule: 0.3 summary + 0.4 segment + 0.3 BM25 (min-max normalised)"],
        )
        for i, score in best
    ]
