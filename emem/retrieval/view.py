"""A read-only, in-memory view of one namespace for the read path: turns with their vectors,
segments with summaries, summary vectors and centroids, and BM25 over segments.

Built once, then carried forward: when the indexes cover new turns, `build_view(previous=...)`
keeps every segment of an untouched session (its vectors, summary vector, tokens) and rebuilds
only the sessions the new turns extend, so a write costs the next read milliseconds, not a
re-embedding of the namespace. Segmentation is per session, so the result equals a fresh build.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from emem.index.bm25 import BM25Index
from emem.index.dense import fetch_vectors
from emem.index.manager import NamespaceIndexes, turn_key
from emem.index.text import tokenize
from emem.models import StoredTurn
from emem.retrieval.exact import exact_dense
from emem.segments import Segment, build_segments, summary_turns

EmbedTexts = Callable[[list[str]], np.ndarray]
"""texts -> (n, dim) L2-normalised vectors (the embedder, or a cache in front of it)."""


@dataclass
class NamespaceView:
    namespace: str
    covered_seq: int
    indexes: NamespaceIndexes
    turns: list[StoredTurn]
    turn_vectors: np.ndarray
    segments: list[Segment]
    summary_vectors: np.ndarray
    centroids: np.ndarray
    segment_bm25: BM25Index
    row_of: dict[str, int] = field(default_factory=dict)
    """turn key -> row in `turns` / `turn_vectors`."""
    segment_of: dict[str, int] = field(default_factory=dict)
    """turn key -> index in `segments`."""
    by_ref: dict[tuple[str, str], StoredTurn] = field(default_factory=dict)
    segment_index: dict[str, int] = field(default_factory=dict)
    """segment id -> index in `segments`."""
    segment_texts: list[str] = field(default_factory=list)
    """`Segment.text()` of each segment, built once per view (routing reads it per question)."""
    segment_tokens: list[list[str]] = field(default_factory=list)
    """`tokenize` of each segment text: what `segment_bm25` was fitted on."""
    summaries: dict[str, str] = field(default_factory=dict)
    """The LLM summaries this view was built with (a change means a fresh build)."""

    def visible(self, as_of: datetime | None) -> np.ndarray:
        """Mask of turns said at or before `as_of` (all turns when None)."""
        if as_of is None:
            return np.ones(len(self.turns), dtype=bool)
        return np.array([t.time <= as_of for t in self.turns], dtype=bool)

    @property
    def latest_time(self) -> datetime | None:
        """The newest turn's time (None for an empty view), once per view."""
        if self._latest is None and self.turns:
            self._latest = max(t.time for t in self.turns)
        return self._latest

    def segment_for(self, turn: StoredTurn) -> Segment:
        return self.segments[self.segment_of[turn_key(turn)]]

    @property
    def turn_segment(self) -> np.ndarray:
        """Segment index of each turn row (int64), built once per view: lets routing reduce turn
        scores per segment with numpy instead of a Python loop over every turn per question."""
        if self._turn_segment is None:
            self._turn_segment = np.fromiter(
                (self.segment_of[turn_key(t)] for t in self.turns), np.int64, len(self.turns)
            )
        return self._turn_segment

    @property
    def segment_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Turn rows grouped by segment, ascending within each, built once per view: (the rows,
        the index of each segment that has rows, where its group starts). A per-segment maximum
        is then a `reduceat` over the groups instead of a sort of every turn per question."""
        if self._segment_rows is None:
            seg = self.turn_segment
            rows = np.argsort(seg, kind="stable")
            counts = np.bincount(seg, minlength=len(self.segments))
            held = np.flatnonzero(counts)
            starts = (np.cumsum(counts) - counts)[held]
            self._segment_rows = (rows, held.astype(np.int64), starts.astype(np.int64))
        return self._segment_rows

    def rows_of_keys(self, keys: list[str]) -> np.ndarray:
        """View row of each key (-1 for keys the view does not hold), memoised for the turn BM25's
        key list, which only grows by appending."""
        hit = self._key_rows
        if hit is not None and hit[0] == len(keys) and (not keys or hit[1] == keys[-1]):
            return hit[2]
        rows = np.fromiter((self.row_of.get(k, -1) for k in keys), np.int64, len(keys))
        self._key_rows = (len(keys), keys[-1] if keys else None, rows)
        return rows

    def speaker_names_lower(self) -> set[str]:
        """Lower-cased speaker names, once per view."""
        if self._speakers_lower is None:
            self._speakers_lower = {t.speaker.lower() for t in self.turns}
        return self._speakers_lower

    def turn_word_counts(self) -> dict[str, int]:
        """How many of the view's turns hold each stemmed word (`tokenize(turn.render())`), built
        once per view and carried forward by `_extend`, which adds only the new turns' words: a
        write must not make the next question re-tokenise every turn of the namespace."""
        if self._word_counts is None:
            self._word_counts = _word_counts(self.turns)
        return self._word_counts

    def segment_text_lower(self, i: int) -> str:
        """Lower-cased text of segment i (memoised: routing asks for it on every question)."""
        if self._lower is None:
            self._lower = [t.lower() for t in self.segment_texts]
        return self._lower[i]

    def segments_naming(self, name: str) -> np.ndarray:
        """Which segments' lower-cased text holds `name` (lower-cased), as a bool per segment,
        memoised per name: routing's entity trigger asks the same names on every hop of a deep
        ask, and a substring scan of every segment was a tenth of the keyword pathway."""
        hit = self._naming.get(name)
        if hit is None:
            hit = np.fromiter(
                (name in self.segment_text_lower(i) for i in range(len(self.segments))),
                bool,
                len(self.segments),
            )
            if len(self._naming) >= 256:
                self._naming.clear()
            self._naming[name] = hit
        return hit

    @property
    def segment_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """Each segment's start and end in microseconds since the epoch (int64, exact), once per
        view: the date trigger compares them with a question's period without a Python loop per
        segment."""
        if self._spans is None:
            self._spans = (
                np.array([epoch_us(s.start) for s in self.segments], dtype=np.int64),
                np.array([epoch_us(s.end) for s in self.segments], dtype=np.int64),
            )
        return self._spans

    @property
    def by_time(self) -> list[StoredTurn]:
        """The turns in (time, seq) order, sorted once per view (a count question's follow-up
        hop walks them; sorting every turn per question was most of that hop)."""
        if self._by_time is None:
            self._by_time = sorted(self.turns, key=lambda t: (t.time, t.seq))
        return self._by_time

    _lower: list[str] | None = field(default=None, repr=False)
    _by_time: list[StoredTurn] | None = field(default=None, repr=False)
    _naming: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _spans: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _latest: datetime | None = field(default=None, repr=False)
    _turn_segment: np.ndarray | None = field(default=None, repr=False)
    _segment_rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _key_rows: tuple[int, str | None, np.ndarray] | None = field(default=None, repr=False)
    _speakers_lower: set[str] | None = field(default=None, repr=False)
    _word_counts: dict[str, int] | None = field(default=None, repr=False)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_us(when: datetime) -> int:
    """An aware time as whole microseconds since the epoch: exact, and ordered as the times are."""
    return (when - _EPOCH) // timedelta(microseconds=1)


def _word_counts(turns: list[StoredTurn], into: dict[str, int] | None = None) -> dict[str, int]:
    """Document counts of stemmed words over `turns`, added to a copy of `into`."""
    counts: Counter[str] = Counter(into or {})
    for t in turns:
        counts.update(set(tokenize(t.render())))
    return dict(counts)


def build_view(
    ns: NamespaceIndexes,
    summaries: dict[str, str] | None = None,
    *,
    embed: EmbedTexts | None = None,
    previous: NamespaceView | None = None,
    exact: bool = False,
) -> NamespaceView:
    """The view of `ns` as its indexes stand.

    Args:
        ns: the namespace's caught-up indexes.
        summaries: LLM-written summaries by segment id (offline extractive ones otherwise).
        embed: how summaries are embedded (default: the namespace's embedder, uncached).
        previous: a view of the same `ns` object built earlier with the same summaries; its
            untouched segments are reused (ignored when it does not qualify).
        exact: take turn vectors from the namespace's in-memory matrix (retrieval.exact), shared
            with exact dense search, instead of reading them from Chroma for this view alone.
    Returns:
        The view; equal to a fresh build from the same indexes.
    """
    summaries = dict(summaries or {})
    embed = embed or ns.dense.embedder.embed
    if previous is not None and previous.indexes is ns and previous.summaries == summaries:
        if previous.covered_seq == ns.covered_seq:
            return previous
        if previous.covered_seq < ns.covered_seq:
            return _extend(previous, ns, summaries, embed, exact)
    turns = sorted(ns.turns.values(), key=lambda t: t.seq)
    vectors = _turn_vectors(ns, turns, exact)
    segments = _with_summaries(build_segments(turns), summaries)
    texts = [s.text() for s in segments]
    tokens = [tokenize(t) for t in texts]
    row_of = {turn_key(t): i for i, t in enumerate(turns)}
    dim = vectors.shape[1]
    return NamespaceView(
        namespace=ns.namespace,
        covered_seq=ns.covered_seq,
        indexes=ns,
        turns=turns,
        turn_vectors=vectors,
        segments=segments,
        summary_vectors=_summary_vectors(segments, embed, dim, vectors, row_of, open_segments(segments)),
        centroids=_centroids(segments, vectors, row_of, dim),
        segment_bm25=BM25Index.from_tokens([s.segment_id for s in segments], tokens),
        row_of=row_of,
        segment_of={turn_key(t): i for i, s in enumerate(segments) for t in s.turns},
        by_ref={(t.conversation_id, t.turn_id): t for t in turns},
        segment_index={s.segment_id: i for i, s in enumerate(segments)},
        segment_texts=texts,
        segment_tokens=tokens,
        summaries=summaries,
    )


def _turn_vectors(ns: NamespaceIndexes, turns: list[StoredTurn], exact: bool) -> np.ndarray:
    """Vectors of `turns` (all of `ns`'s turns, in seq order), rows in that order."""
    keys = [turn_key(t) for t in turns]
    if not keys:
        return np.zeros((0, ns.dense.embedder.dim), np.float32)
    if exact:
        held, matrix = exact_dense(ns).snapshot(ns)
        if held == keys:
            return matrix
    return fetch_vectors(ns.dense, keys)


def _extend(
    old: NamespaceView, ns: NamespaceIndexes, summaries: dict[str, str], embed: EmbedTexts, exact: bool
) -> NamespaceView:
    """`old` plus the turns indexed since: only the sessions they extend are segmented again, and
    every per-turn and per-segment map is carried forward and patched where those sessions are."""
    new = sorted((t for t in ns.turns.values() if t.seq > old.covered_seq), key=lambda t: t.seq)
    if any(turn_key(t) in old.row_of for t in new):
        return build_view(ns, summaries, embed=embed, exact=exact)  # not a pure append
    turns = old.turns + new
    row_of = dict(old.row_of)
    row_of.update((turn_key(t), len(old.turns) + i) for i, t in enumerate(new))
    if exact:
        vectors = _turn_vectors(ns, turns, exact)
    else:
        vectors = np.concatenate([old.turn_vectors, fetch_vectors(ns.dense, [turn_key(t) for t in new])])
    touched = {(t.conversation_id, t.session_id) for t in new}
    was_touched = [(s.conversation_id, s.session_id) in touched for s in old.segments]
    redo = [t for s, hit in zip(old.segments, was_touched, strict=True) if hit for t in s.turns] + new
    fresh = _with_summaries(build_segments(sorted(redo, key=lambda t: t.seq)), summaries)
    fresh_texts = [s.text() for s in fresh]
    dim = vectors.shape[1]
    fresh_centroids = _centroids(fresh, vectors, row_of, dim)
    # (segment, old index or -1 when fresh, fresh index or -1 when kept)
    parts = [(s, i, -1) for i, s in enumerate(old.segments) if not was_touched[i]]
    parts += [(s, -1, j) for j, s in enumerate(fresh)]
    parts.sort(key=lambda p: (p[0].start, p[0].segment_id))
    segments = [p[0] for p in parts]
    now_open, was_open = open_segments(segments), open_segments(old.segments)
    # A kept segment that opened or closed (its conversation's latest segment changed) takes the
    # other kind of summary vector: made again here, with the fresh segments' (one embed call).
    flipped = [
        i
        for _, i, _ in parts
        if i >= 0 and (old.segments[i].segment_id in now_open) != (old.segments[i].segment_id in was_open)
    ]
    remade = _summary_vectors(
        [old.segments[i] for i in flipped] + fresh, embed, dim, vectors, row_of, now_open
    )
    kept_vecs = old.summary_vectors
    if flipped:
        kept_vecs = kept_vecs.copy()
        kept_vecs[flipped] = remade[: len(flipped)]
    fresh_vecs = remade[len(flipped) :]
    segment_of = dict(old.segment_of)
    for pos, (s, was, _) in enumerate(parts):
        if was != pos:
            segment_of.update((turn_key(t), pos) for t in s.turns)
    fresh_tokens = [tokenize(t) for t in fresh_texts]

    def pick(kept: list, made: list) -> list:
        return [kept[i] if i >= 0 else made[j] for _, i, j in parts]

    def stack(kept: np.ndarray, made: np.ndarray) -> np.ndarray:
        if not parts:
            return np.zeros((0, dim), np.float32)
        return np.stack(pick(list(kept), list(made))).astype(np.float32)

    tokens = pick(old.segment_tokens, fresh_tokens)
    view = NamespaceView(
        namespace=ns.namespace,
        covered_seq=ns.covered_seq,
        indexes=ns,
        turns=turns,
        turn_vectors=vectors,
        segments=segments,
        summary_vectors=stack(kept_vecs, fresh_vecs),
        centroids=stack(old.centroids, fresh_centroids),
        segment_bm25=old.segment_bm25.updated(
            [s.segment_id for s in segments],
            {s.segment_id: tok for s, tok in zip(fresh, fresh_tokens, strict=True)},
        ),
        row_of=row_of,
        segment_of=segment_of,
        by_ref={**old.by_ref, **{(t.conversation_id, t.turn_id): t for t in new}},
        segment_index={s.segment_id: i for i, s in enumerate(segments)},
        segment_texts=pick(old.segment_texts, fresh_texts),
        segment_tokens=tokens,
        summaries=summaries,
    )
    if old._lower is not None:
        view._lower = pick(old._lower, [t.lower() for t in fresh_texts])
    if old._word_counts is not None:
        view._word_counts = _word_counts(new, into=old._word_counts)
    if old._speakers_lower is not None:
        view._speakers_lower = old._speakers_lower | {t.speaker.lower() for t in new}
    if old._turn_segment is not None:
        view._turn_segment = _carried_turn_segment(
            old._turn_segment, parts, segment_of, turns, len(old.turns)
        )
    return view


def _carried_turn_segment(
    old: np.ndarray,
    parts: list[tuple[Segment, int, int]],
    segment_of: dict[str, int],
    turns: list[StoredTurn],
    old_rows: int,
) -> np.ndarray:
    """`NamespaceView.turn_segment` after `_extend`: kept segments' rows renumbered with one
    array lookup, only the rebuilt segments' and the new turns' rows looked up by key (a write
    must not cost a Python pass over every turn of the namespace)."""
    remap = np.full(max(int(old.max(initial=-1)) + 1, 1), -1, dtype=np.int64)
    for pos, (_, was, _) in enumerate(parts):
        if was >= 0:
            remap[was] = pos
    out = np.empty(len(turns), dtype=np.int64)
    out[:old_rows] = remap[old] if old_rows else old
    redo = np.flatnonzero(out[:old_rows] < 0).tolist() + list(range(old_rows, len(turns)))
    for row in redo:
        out[row] = segment_of[turn_key(turns[row])]
    return out


def _with_summaries(segments: list[Segment], summaries: dict[str, str]) -> list[Segment]:
    for s in segments:
        if s.segment_id in summaries:
            s.summary, s.summary_source = summaries[s.segment_id], "llm"
    return segments


def open_segments(segments: list[Segment]) -> set[str]:
    """Ids of the segments still growing: each conversation's latest (`segments` in view order,
    by start). Appended turns land there, so an extractive summary there changes with nearly every
    write; a segment closes when its conversation starts a later one."""
    latest: dict[str, str] = {}
    for s in segments:
        latest[s.conversation_id] = s.segment_id
    return set(latest.values())


def _summary_vectors(
    segments: list[Segment],
    embed: EmbedTexts,
    dim: int,
    vectors: np.ndarray,
    row_of: dict[str, int],
    open_ids: set[str],
) -> np.ndarray:
    """Each segment's summary vector. An open segment's offline extractive summary is not
    embedded: its vector is the normalised mean of the vectors of the turns that summary quotes
    (`summary_turns`), already in memory, so a write costs no summary embedding (~170 ms at 10
    LoCoMo conversations on the shared 2-core box) and a fresh process computes the same vector.
    Closed segments and LLM-written summaries (which do not change per turn) are embedded, through
    `embed` (the home's vector cache on the read path)."""
    if not segments:
        return np.zeros((0, dim), np.float32)
    out = np.zeros((len(segments), dim), np.float32)
    quoted = [s.summary_source != "llm" and s.segment_id in open_ids for s in segments]
    embedded = [i for i, q in enumerate(quoted) if not q]
    if embedded:
        out[embedded] = np.asarray(embed([segments[i].summary for i in embedded]), dtype=np.float32)
    for i, s in enumerate(segments):
        if quoted[i]:
            v = vectors[[row_of[turn_key(t)] for t in summary_turns(s)]].mean(axis=0)
            out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
    return out


def _centroids(segments: list[Segment], vectors: np.ndarray, row_of: dict[str, int], dim: int) -> np.ndarray:
    """Mean turn vector of each segment, L2-normalised."""
    centroids = np.zeros((len(segments), dim), dtype=np.float32)
    for i, s in enumerate(segments):
        c = vectors[[row_of[turn_key(t)] for t in s.turns]].mean(axis=0)
        centroids[i] = c / max(float(np.linalg.norm(c)), 1e-12)
    return centroids
