"""What the read graph's nodes share: the memory, the role models, cached namespace views and
ledger-derived values. The compiled graph receives it as LangGraph's run context
(`graph.invoke(inputs, context=runtime)`); each node reads it from `Runtime.context`, so a node is
a plain module-level function that a test can call with any `ReadRuntime`."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from emem.agents.currentness import by_source, read_now
from emem.agents.deep import MAX_HOPS, DocumentFrequency, SignalCache
from emem.agents.roles import RoleModels
from emem.agents.spans import has_revision_cue
from emem.config import ReadConfig
from emem.extract.dates import forget_date_mentions
from emem.index.text import forget_tokens
from emem.index.vector_cache import VectorCache, text_hash
from emem.instructions import looks_like_instruction
from emem.ledger.models import Revision
from emem.ledger.withhold import ForgetRequest, withheld_turns, withholding
from emem.models import StoredTurn
from emem.retrieval.query import topic_query
from emem.retrieval.routing import DEFAULT_ACTIVATE
from emem.retrieval.typed import decode_labels, forget_labels, label_encoder
from emem.retrieval.view import NamespaceView, build_view
from emem.subjects import (
    likely_user,
    name_aliases,
    question_subjects,
    relatives_of,
    speaker_roles,
    user_speaker,
)
from emem.timeparse import utcnow
from emem.tokens import count_tokens

T = TypeVar("T")

_ASK_VIEWS: ContextVar[dict[str, tuple[int, NamespaceView]] | None] = ContextVar(
    "emem_ask_views", default=None
)
"""Within one ask (`ReadRuntime.one_view_per_ask`): namespace -> (erasures seen, its view). The
graph's nodes run in LangGraph's threads or tasks, which copy the context, so they share it."""
_ASK_LEDGER: ContextVar[dict[str, tuple[int, tuple[int, int]]] | None] = ContextVar(
    "emem_ask_ledger", default=None
)
"""Within one ask: namespace -> (erasures seen, the ledger's version), read once per ask."""


@dataclass(init=False, repr=False, eq=False)
class ReadRuntime:
    """What the graph's nodes share: the memory, the role models, and cached namespace views.

    A dataclass (with no generated methods) only because LangGraph types a run context as a
    dataclass, TypedDict or pydantic model; its state is set up in `__init__`."""

    def __init__(
        self,
        memory: Any,
        roles: RoleModels,
        activate: int = DEFAULT_ACTIVATE,
        router: str = "emem",
        fill_context: bool = False,
        currentness: bool = True,
        max_hops: int = MAX_HOPS,
        episode_context: bool = False,
        config: ReadConfig | None = None,
    ) -> None:
        """`config` (emem.config.ReadConfig) gives every read setting at once; without it the
        keyword arguments fill a default ReadConfig, as before."""
        self.read = config or ReadConfig.model_validate(
            {"activate": activate, "router": router, "fill_context": fill_context, "currentness": currentness}
        )
        """The read settings the nodes use (budget, fast_k, candidates, routing weights...)."""
        activate, router = self.read.activate, self.read.router
        fill_context, currentness = self.read.fill_context, self.read.currentness
        self.memory = memory
        self.max_hops = max_hops
        self.episode_context = episode_context
        """Deep mode: pack an evidence turn's neighbours (the question it answers, the reply
        completing it) ranked just under it (agents.deep.with_neighbours)."""
        """Deep mode's routing hops (1: the question only; 2: once more from what it found; 3,
        the default: once more from what the second hop added, narrow except for LIST and COUNT
        questions, `ReadConfig.late_hop_segments`)."""
        self.signals = SignalCache()
        self.document_frequency = DocumentFrequency()
        self.roles = roles
        self.activate = activate
        self.router = router
        """'emem' (three pathways) or 'paper' (the E-mem paper's weighted rule, for comparison)."""
        self.fill_context = fill_context
        """Deep mode: after the assistants' evidence, fill the budget left with the activated
        segments' best-supported unquoted turns (role "context"). Off by default: experimental."""
        self.currentness = currentness
        """The ledger's part of the read path: subjects ("my" -> the user), the plan's facts in
        fast mode, stale turns ranked last, forget requests. Off only to measure what it costs
        (eval.bench_currentness): without it answers may be stale or name what was forgotten."""
        self.cached = True
        """Carry views forward across writes, with summary vectors cached in the home, and score
        fast mode's dense half exactly over vectors in memory (retrieval.exact). Off only to
        measure today's code path (eval.bench_loop): every write then makes the next read
        re-embed every summary, and fast mode queries Chroma's approximate index."""
        self._views: dict[str, NamespaceView] = {}
        self._view_erasures: dict[str, int] = {}
        """The erasure count each cached view was read under: derived rows (label rows) computed
        from a view read before a later erasure are not stored."""
        self._vector_cache = VectorCache(memory.backend.text_vectors, memory.backend.coordinator.shared)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}
        self._speakers: dict[str, tuple[NamespaceView, list[str]]] = {}
        self._withheld: dict[
            str,
            tuple[NamespaceView, list[ForgetRequest], set[str], dict[tuple[str, str], ForgetRequest]],
        ] = {}
        self._inferred: dict[str, tuple[NamespaceView, tuple[str, str] | None]] = {}
        self._revision_turns: dict[str, tuple[NamespaceView, list[StoredTurn]]] = {}
        self._lock = threading.RLock()
        self._erasures = 0
        """Erasures noticed (any process): a view whose turns were read before one must not
        store summary vectors in the home's cache."""
        memory.backend.coordinator.subscribe(self._on_index_change)

    def _on_index_change(self, changed: set[str]) -> None:
        """Called under the coordinator lock (emem.storage.contract.Coordinator): only count."""
        if "erase" in changed:
            self._erasures += 1

    @contextmanager
    def one_view_per_ask(self) -> Iterator[None]:
        """Within this block (one ask), `view` catches the indexes up and carries the view
        forward once per namespace, then hands every node that same view: a node asked it about
        six times per deep ask, each a catch-up under the home's file lock with its queries. One
        ask thus reads one snapshot; an erasure in the meantime (any process) still drops it. The
        ledger's version, which every ledger memo checks (six to ten queries per ask), is read
        once per ask and namespace too, and read again after an erasure."""
        token = _ASK_VIEWS.set({})
        ledger_token = _ASK_LEDGER.set({})
        try:
            yield
        finally:
            _ASK_LEDGER.reset(ledger_token)
            _ASK_VIEWS.reset(token)

    def view(self, namespace: str) -> NamespaceView:
        pinned = _ASK_VIEWS.get()
        with self._lock:
            if pinned is None:
                return self._current_view(namespace)
            hit = pinned.get(namespace)
            if hit is None or hit[0] != self._erasures:
                # The count is read before the view: an erasure noticed while building it counts.
                hit = pinned[namespace] = (self._erasures, self._current_view(namespace))
            return hit[1]

    def _current_view(self, namespace: str) -> NamespaceView:
        """The namespace's view after catching its indexes up (carried forward across writes)."""
        with self._lock:
            erasures = self._erasures  # before the turns are read: any erasure after it counts
            ns = self.memory.indexes.current(namespace)
            cached = self._views.get(namespace)
            # `indexes is not ns`: the index manager rebuilt this namespace (e.g. after another
            # process erased turns), so the cached view may still hold erased turns.
            if cached is not None and cached.covered_seq == ns.covered_seq and cached.indexes is ns:
                return cached
            summaries = self.memory.segment_summaries(namespace)
            self._view_erasures[namespace] = erasures
            if not self.cached:
                cached = self._views[namespace] = build_view(ns, summaries)
                return cached
            # build_view reuses `cached` only while it was built from this very `ns` object (the
            # index manager rebuilds it after another process erased turns) and these summaries.
            embedder = ns.dense.embedder
            built = self._views[namespace] = build_view(
                ns,
                summaries,
                embed=lambda texts: self._vector_cache.embed(
                    namespace, embedder, texts, still_valid=lambda: self._erasures == erasures
                ),
                previous=cached,
                exact=True,
            )
            if cached is not None:  # summaries replaced as their segments grew
                stale = {s.summary for s in cached.segments} - {s.summary for s in built.segments}
                self._vector_cache.discard(namespace, embedder.name, [text_hash(t) for t in stale])
            return built

    def question_vector(self, view: NamespaceView, question: str) -> np.ndarray:
        """The question's vector for routing segments: without the speakers' names, which every
        segment shares (retrieval.query). Scoring turns within a segment keeps the question as
        asked (`embed`): there the name does tell turns apart, by who said them."""
        return self.embed(topic_query(question, view.indexes.speakers))

    def forget(self, namespace: str) -> None:
        with self._lock:
            self._views.pop(namespace, None)
            for key in [k for k in self._memo if k[0] == namespace]:
                del self._memo[key]
            self._speakers.pop(namespace, None)
            self._withheld.pop(namespace, None)
            self._inferred.pop(namespace, None)
            self._revision_turns.pop(namespace, None)
            forget_labels(namespace)
            self._vectors.clear()
            count_tokens.cache_clear()  # memoised by text: may hold erased turns
            forget_tokens()
            looks_like_instruction.cache_clear()
            forget_date_mentions()

    def tag_entities(self, view: NamespaceView, texts: Sequence[str]) -> list[frozenset[str]]:
        """Entity labels of a view's turn texts (emem.retrieval.typed), read from the home's
        text-vector cache where an earlier process stored them, tagged by spaCy otherwise and
        stored for the next one; so only the first typed question a home is ever asked pays
        for tagging. Stored only while `view` is the namespace's current view and no erasure was
        noticed since it was read (as summary vectors are): otherwise the texts may be erased.

        Args:
            view: the view the texts come from.
            texts: turn texts.
        Returns:
            One label set per text.
        """
        encoder = label_encoder()
        if encoder is None:
            return [frozenset() for _ in texts]
        ns = view.namespace

        def still_valid() -> bool:
            return self._views.get(ns) is view and self._view_erasures.get(ns) == self._erasures

        return decode_labels(self._vector_cache.embed(ns, encoder, list(texts), still_valid=still_valid))

    def embed(self, text: str) -> np.ndarray:
        with self._lock:
            if text not in self._vectors:
                self._vectors[text] = self.memory.indexes.embedder.embed([text])[0]
                if len(self._vectors) > 256:
                    self._vectors.popitem(last=False)
            return self._vectors[text]

    def embed_question(self, view: NamespaceView, question: str) -> None:
        """Embed the question and its speaker-free form (`question_vector`, fast mode's dense
        half) in one embedder call, so that `embed` finds both: every mode uses both, and the
        default embedder runs two short texts as one padded batch with the same vectors
        (MiniLMEmbedder's `pad_exact`), one inference call instead of two; any other embedder
        embeds each alone, as `embed` would.

        Args:
            view: the namespace's view (its speakers).
            question: the question as asked.
        """
        texts = list(dict.fromkeys([question, topic_query(question, view.indexes.speakers)]))
        with self._lock:
            missing = [t for t in texts if t not in self._vectors]
            if not missing:
                return
            embedder = self.memory.indexes.embedder
            # Another embedder may round a text differently in company: embed each alone there.
            together = getattr(embedder, "pad_exact", False)
            vectors = embedder.embed(missing) if together else [embedder.embed([t])[0] for t in missing]
            for text, vector in zip(missing, vectors, strict=True):
                self._vectors[text] = vector
            while len(self._vectors) > 256:
                self._vectors.popitem(last=False)

    def ledger(self) -> Any:
        return self.memory.ledger

    def now(self, view: NamespaceView) -> datetime:
        """The present a question without `as_of` is read at (`read_now`): the wall clock, or the
        newest turn of the view when that is later."""
        return read_now(view.latest_time, utcnow())

    def _read_at(self, view: NamespaceView) -> str:
        """What `now` is for a memo key: the newest turn when it is later than the wall clock
        (a conversation dated ahead), else "now" (the wall clock moves, the facts known do not)."""
        latest = view.latest_time
        return latest.isoformat() if latest is not None and latest > utcnow() else "now"

    def _ledger_memo(self, namespace: str, name: str, compute: Callable[[], T]) -> T:
        """A value derived from the ledger, recomputed only when the ledger changed (one indexed
        query per call instead of loading rows on every question)."""
        version = self._ledger_version(namespace)
        with self._lock:
            hit = self._memo.get((namespace, name))
            if hit is not None and hit[0] == version:
                return hit[1]
        value = compute()
        with self._lock:
            self._memo[(namespace, name)] = (version, value)
        return value

    def _ledger_version(self, namespace: str) -> tuple[int, int]:
        """The ledger's version for `namespace`: once per ask (`one_view_per_ask`, whose views
        are one snapshot too), or read now outside an ask."""
        pinned = _ASK_LEDGER.get()
        if pinned is None:
            return self.ledger().version(namespace)  # type: ignore[no-any-return]
        erasures = self._erasures  # before the read: an erasure noticed meanwhile reads again
        hit = pinned.get(namespace)
        if hit is None or hit[0] != erasures:
            hit = pinned[namespace] = (erasures, self.ledger().version(namespace))
        return hit[1]

    def sources(self, namespace: str) -> dict[str, list[Revision]]:
        """Turn ref -> assertions projected from it; reloaded only when the ledger changed."""
        return self._ledger_memo(namespace, "sources", lambda: by_source(self.ledger().revisions(namespace)))

    def speakers(self, view: NamespaceView) -> list[str]:
        """The namespace's speakers, once per view."""
        with self._lock:
            hit = self._speakers.get(view.namespace)
            if hit is None or hit[0] is not view:
                hit = self._speakers[view.namespace] = (view, sorted({t.speaker for t in view.turns}))
            return hit[1]

    def inferred_user(self, view: NamespaceView) -> tuple[str, str] | None:
        """(user, agent) of a conversation whose speaker labels name neither, once per view
        (`emem.subjects.likely_user`)."""
        with self._lock:
            hit = self._inferred.get(view.namespace)
            if hit is not None and hit[0] is view:
                return hit[1]
        # More than two speakers: likely_user says None; skip its pass over every turn.
        many = len(view.speaker_names_lower()) > 2
        value = None if many else likely_user([(t.speaker, t.text) for t in view.turns])
        with self._lock:
            self._inferred[view.namespace] = (view, value)
        return value

    def agents(self, view: NamespaceView) -> set[str]:
        """The speakers who are the agent: by their labels, or the one `inferred_user` found in a
        conversation whose labels name neither."""
        roles = speaker_roles(self.speakers(view))
        agents = {s for s, r in roles.items() if r == "agent"}
        if not agents and (inferred := self.inferred_user(view)) is not None:
            agents.add(inferred[1])  # only labels that name nobody leave the agent to infer
        return agents

    def revision_turns(self, view: NamespaceView) -> list[StoredTurn]:
        """The view's turns that carry a revision cue (`has_revision_cue`), in view order: the only
        ones the follow-up hop (`later_revisions`) can accept (47 of LoCoMo's 5,882 turns), so
        it scans these instead of every turn of the namespace on each question. Once per view;
        a view that extends the last one (its turns start with the same objects) tests only its
        new turns.

        Args:
            view: the namespace's current view.

        Returns:
            The turns, in `view.turns` order.
        """
        with self._lock:
            hit = self._revision_turns.get(view.namespace)
        if hit is not None and hit[0] is view:
            return hit[1]
        start, found = 0, []
        if hit is not None and _extends(view.turns, hit[0].turns):
            start, found = len(hit[0].turns), list(hit[1])
        found += [t for t in view.turns[start:] if has_revision_cue(t.text)]
        with self._lock:
            self._revision_turns[view.namespace] = (view, found)
        return found

    def known_entities(self, namespace: str, view: NamespaceView) -> list[str]:
        subjects = self._ledger_memo(namespace, "subjects", lambda: self.ledger().subjects(namespace))
        return sorted(set(self.speakers(view)) | set(subjects))

    def people(self, namespace: str, view: NamespaceView) -> frozenset[str]:
        """Known people and animals: speakers, ledger subjects and the named relatives and pets of
        each speaker (a son named Dario), so that a reader can tell a person's name from a value."""
        ledger = self.ledger()

        def named() -> frozenset[str]:
            names = set(self.known_entities(namespace, view))
            for speaker in self.speakers(view):
                for kin in relatives_of(ledger, namespace, speaker, self.now(view)).values():
                    names.update(kin)
            return frozenset(names)

        return self._ledger_memo(
            namespace, f"people:{self._read_at(view)}:" + ",".join(self.speakers(view)), named
        )

    def question_subjects(self, namespace: str, view: NamespaceView, question: str) -> list[str]:
        """Who the question is about: "I"/"my"/"the user" -> the user's subject, "you" -> the
        agent's, told names -> the subject they alias (emem.subjects, the one place for it)."""
        speakers = self.speakers(view)
        ledger = self.ledger()
        inferred = self.inferred_user(view)
        user = user_speaker(speakers) or (inferred[0] if inferred else None)
        now, at = self.now(view), self._read_at(view)
        requests = self.forget_requests(namespace) if self.currentness else []

        def kept(relatives: dict[str, list[str]]) -> dict[str, list[str]]:
            # "What's my boyfriend's name?" after "forget him": the name is not the question's
            # subject, or it would show in the route's reasons
            if not requests:
                return relatives
            return {
                k: [n for n in v if withholding(requests, subject=n) is None] for k, v in relatives.items()
            }

        return question_subjects(
            question,
            speakers,
            self._ledger_memo(namespace, "subjects", lambda: ledger.subjects(namespace)),
            aliases=self._ledger_memo(namespace, "aliases", lambda: name_aliases(ledger, namespace)),
            relatives=kept(
                self._ledger_memo(
                    namespace, f"relatives:{user}:{at}", lambda: relatives_of(ledger, namespace, user, now)
                )
            )
            if user
            else None,
            inferred=inferred,
            relatives_for=lambda s: kept(
                self._ledger_memo(
                    namespace, f"relatives:{s}:{at}", lambda: relatives_of(ledger, namespace, s, now)
                )
            ),
        )

    def forget_requests(self, namespace: str) -> list[ForgetRequest]:
        """Forget requests in force now (none when the policy ignores them)."""
        return self._ledger_memo(namespace, "forget", lambda: self.memory.forget_requests(namespace))

    def withheld(self, namespace: str, view: NamespaceView) -> dict[tuple[str, str], ForgetRequest]:
        """The view's turns that forget requests withhold (`withheld_turns`), once per view and
        ledger version: every mode, and search, drop the same set. A view that extends the last
        one (a write) under the same requests and agents rescans only the sessions its new turns
        joined: `withheld_turns` carries state within a session only (an agent's reply follows
        the withheld turn it answers), so every other session's turns keep their result. The
        rescan was ~8% of the first ask after a write at 10 LoCoMo conversations."""
        requests = self.forget_requests(namespace)
        if not requests:
            return {}
        with self._lock:
            hit = self._withheld.get(namespace)
            if hit is not None and hit[0] is view and hit[1] is requests:
                return hit[3]
        agents = self.agents(view)
        if hit is not None and hit[1] == requests and hit[2] == agents and _extends(view.turns, hit[0].turns):
            value = _withheld_extended(view, hit[0], hit[1], hit[3], requests, agents)
        else:
            value = withheld_turns(view.turns, requests, agents)
        with self._lock:
            self._withheld[namespace] = (view, requests, agents, value)
        return value


def visible_mask(view: NamespaceView, as_of: datetime | None, flt: Any) -> np.ndarray:
    """The view's turns a question may use: said by `as_of`, kept by its filter."""
    mask = view.visible(as_of)
    return mask if flt is None else mask & flt.mask(view.turns)


def timed(name: str, start: float) -> dict[str, float]:
    """A stage's latency since `start` (perf_counter), as the state's `timings` update."""
    return {name: (time.perf_counter() - start) * 1000}


def _withheld_extended(
    view: NamespaceView,
    before: NamespaceView,
    old_requests: list[ForgetRequest],
    old: dict[tuple[str, str], ForgetRequest],
    requests: list[ForgetRequest],
    agents: set[str],
) -> dict[tuple[str, str], ForgetRequest]:
    """`withheld_turns(view.turns, requests, agents)` for a view that extends `before` (whose
    result under equal requests and agents was `old`): the sessions its new turns joined are
    scanned again, every other turn keeps its result (with the equal request of `requests`)."""
    touched = {(t.conversation_id, t.session_id) for t in view.turns[len(before.turns) :]}
    same = {id(a): b for a, b in zip(old_requests, requests, strict=True)}
    kept = [
        (ref, same[id(req)])
        for ref, req in old.items()
        if (ref[0], view.by_ref[ref].session_id) not in touched
    ]
    rescan = [t for t in view.turns if (t.conversation_id, t.session_id) in touched]
    found = [*kept, *withheld_turns(rescan, requests, agents).items()]
    return dict(sorted(found, key=lambda item: view.by_ref[item[0]].seq))  # a full scan's order


def _extends(turns: list[StoredTurn], prefix: list[StoredTurn]) -> bool:
    """True when `turns` starts with the very objects of `prefix` (a view carried forward by
    `build_view(previous=...)` keeps them; a rebuilt one does not)."""
    return len(turns) >= len(prefix) and all(a is b for a, b in zip(turns, prefix, strict=False))
