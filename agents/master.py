"""The master agent: a LangGraph `StateGraph` that plans a question, routes it through three
pathways, fans out to assistant agents with `Send`, aggregates their verbatim evidence through
the ledger, packs provenance closures under a token budget, and reads.

    plan ─┬─ fast ─► fast_retrieve ─────────────────────┐
          └─ deep ─► route ─► assistant ×N (Send) ───────┴─► aggregate ─► read
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from emem.agents.aggregate import build_closures, context_closures, evidence_line, fact_closure, fact_items
from emem.agents.assistant import (
    CANDIDATE_FLOOR,
    RELEVANCE_FLOOR,
    AssistantReport,
    evidence_item,
    llm_assistant,
    ranked_assistant,
    supported_evidence,
)
from emem.agents.currentness import (
    asks_follow_up,
    asks_state,
    by_source,
    count_follow_ups,
    later_revisions,
    question_time,
    rank_for_state,
    stale_revisions,
)
from emem.agents.deep import (
    FEEDBACK_TURNS,
    MAX_HOPS,
    DocumentFrequency,
    SignalCache,
    feedback_query,
    feedback_vector,
    route_hop,
    score_turns,
    segment_scores,
    with_neighbours,
)
from emem.agents.planner import PlanReply, offline_plan, plan_from_reply
from emem.agents.reader import llm_read, offline_read, offline_reader_call
from emem.agents.roles import RoleModels
from emem.agents.spans import focus_words
from emem.agents.state import AssistantTask, MasterState
from emem.agents.withheld import apply_forget_requests, withheld_answer, withholding_ok
from emem.answer import ABSTAIN, Answer, EvidenceItem, Operation, Plan
from emem.config import DEFAULT, ReadConfig
from emem.errors import LLMError
from emem.index.manager import turn_key
from emem.index.vector_cache import VectorCache, text_hash
from emem.ledger.models import Revision
from emem.ledger.withhold import ForgetRequest
from emem.llm.jsonparse import parse_into
from emem.llm.usage import LLMCall, Usage
from emem.packing import pack
from emem.prompting import load_prompt, prompt_set_hash
from emem.retrieval.filters import facts_within
from emem.retrieval.hybrid import hybrid_turns, hybrid_turns_where
from emem.retrieval.query import topic_query
from emem.retrieval.routing import DEFAULT_ACTIVATE, paper_route
from emem.retrieval.view import NamespaceView, build_view
from emem.subjects import name_aliases, question_subjects, relatives_of, user_speaker
from emem.tokens import count_tokens

T = TypeVar("T")
DEFAULT_BUDGET = DEFAULT.read.budget
FAST_K = DEFAULT.read.fast_k
PLAN_SCHEMA = PlanReply.model_json_schema()


class ReadRuntime:
    """What the graph's nodes share: the memory, the role models, and cached namespace views."""

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
        """Deep mode's routing hops (1: the question only; 2: once more from what it found)."""
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
        self._vector_cache = VectorCache(memory.backend.text_vectors, memory.backend.coordinator.shared)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}
        self._speakers: dict[str, tuple[NamespaceView, list[str]]] = {}
        self._lock = threading.RLock()
        self._erasures = 0
        """Erasures noticed (any process): a view whose turns were read before one must not
        store summary vectors in the home's cache."""
        memory.backend.coordinator.subscribe(self._on_index_change)

    def _on_index_change(self, changed: set[str]) -> None:
        """Called under the coordinator lock (emem.storage.contract.Coordinator): only count."""
        if "erase" in changed:
            self._erasures += 1

    def view(self, namespace: str) -> NamespaceView:
        with self._lock:
            erasures = self._erasures  # before the turns are read: any erasure after it counts
            ns = self.memory.indexes.current(namespace)
            cached = self._views.get(namespace)
            # `indexes is not ns`: the index manager rebuilt this namespace (e.g. after another
            # process erased turns), so the cached view may still hold erased turns.
            if cached is not None and cached.covered_seq == ns.covered_seq and cached.indexes is ns:
                return cached
            summaries = self.memory.segment_summaries(namespace)
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
            self._vectors.clear()
            count_tokens.cache_clear()  # memoised by text: may hold erased turns

    def embed(self, text: str) -> np.ndarray:
        with self._lock:
            if text not in self._vectors:
                self._vectors[text] = self.memory.indexes.embedder.embed([text])[0]
                if len(self._vectors) > 256:
                    self._vectors.popitem(last=False)
            return self._vectors[text]

    def ledger(self) -> Any:
        return self.memory.ledger

    def _ledger_memo(self, namespace: str, name: str, compute: Callable[[], T]) -> T:
        """A value derived from the ledger, recomputed only when the ledger changed (one indexed
        query per call instead of loading rows on every question)."""
        version = self.ledger().version(namespace)
        with self._lock:
            hit = self._memo.get((namespace, name))
            if hit is not None and hit[0] == version:
                return hit[1]
        value = compute()
        with self._lock:
            self._memo[(namespace, name)] = (version, value)
        return value

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

    def known_entities(self, namespace: str, view: NamespaceView) -> list[str]:
        subjects = self._ledger_memo(namespace, "subjects", lambda: self.ledger().subjects(namespace))
        return sorted(set(self.speakers(view)) | set(subjects))

    def question_subjects(self, namespace: str, view: NamespaceView, question: str) -> list[str]:
        """Who the question is about: "I"/"my"/"the user" -> the user's subject, "you" -> the
        agent's, told names -> the subject they alias (emem.subjects, the one place for it)."""
        speakers = self.speakers(view)
        ledger = self.ledger()
        user = user_speaker(speakers)
        return question_subjects(
            question,
            speakers,
            self._ledger_memo(namespace, "subjects", lambda: ledger.subjects(namespace)),
            aliases=self._ledger_memo(namespace, "aliases", lambda: name_aliases(ledger, namespace)),
            relatives=self._ledger_memo(
                namespace, f"relatives:{user}", lambda: relatives_of(ledger, namespace, user)
            )
            if user
            else None,
        )

    def forget_requests(self, namespace: str) -> list[ForgetRequest]:
        """Forget requests in force now (none when the policy ignores them)."""
        return self._ledger_memo(namespace, "forget", lambda: self.memory.forget_requests(namespace))


def _segment_turns(runtime: ReadRuntime, state: MasterState) -> list[EvidenceItem]:
    """Every visible turn of the activated segments, scored for support as the offline assistant
    scores them: the candidates for filling the budget."""
    view = runtime.view(state["namespace"])
    as_of, q = state.get("as_of"), state["question"]
    turns = [
        t
        for a in state.get("activated", [])
        for t in view.segments[view.segment_index[a.segment_id]].turns
        if (as_of is None or t.time <= as_of) and (state.get("filter") is None or state["filter"].matches(t))
    ]
    scored, _ = supported_evidence(view, turns, q, state["plan"], runtime.embed(q), keep_all=True)
    return scored


def _fast_evidence(
    runtime: ReadRuntime,
    view: NamespaceView,
    question: str,
    plan: Plan,
    as_of: datetime | None,
    flt: Any = None,
) -> list[EvidenceItem]:
    """One hybrid retrieval over the visible turns (those said by `as_of`, inside the question's
    filter), scored for support: the fast path's evidence."""
    ranked = _fast_turns(runtime, view, question, as_of, flt)
    evidence, _ = supported_evidence(view, ranked, question, plan, runtime.embed(question))
    return evidence


def _mask(view: NamespaceView, as_of: datetime | None, flt: Any) -> np.ndarray:
    mask = view.visible(as_of)
    return mask if flt is None else mask & flt.mask(view.turns)


def _fast_turns(
    runtime: ReadRuntime, view: NamespaceView, question: str, as_of: datetime | None, flt: Any = None
) -> list[Any]:
    """The fast path's hybrid retrieval: its top fast_k visible turns, best first."""
    k, candidates = runtime.read.fast_k, runtime.read.candidates
    if flt is None:
        hits = hybrid_turns(
            view.indexes, question, k * 3, candidates, embed=runtime.embed, exact=runtime.cached
        )
        ranked = [t for t, _ in hits if as_of is None or t.time <= as_of][:k]
    else:
        keep = lambda t: flt.matches(t) and (as_of is None or t.time <= as_of)  # noqa: E731
        hits = hybrid_turns_where(
            view.indexes, question, k, keep, candidates, embed=runtime.embed, exact=runtime.cached
        )
        ranked = [t for t, _ in hits]
    return ranked


def _deep_candidates(
    runtime: ReadRuntime,
    state: MasterState,
    reports: list[AssistantReport],
    evidence: list[EvidenceItem],
    seen: set[tuple[str, str]],
) -> list[EvidenceItem]:
    """Deep mode's evidence: the assistants' turns and fast's retrieval (deep sees at least what
    fast sees), chosen best-first by the calibrated score until they fill the budget the facts
    leave. Whether the question is answerable is decided here, once, on everything: when no
    turn's support reaches the floor and no assistant found its segment relevant, no turn is kept
    and the reader abstains. Items carry their support score (assistant.support_scores), the scale
    the reader and the currentness rules compare; quotes an LLM assistant chose come first."""
    ns, q, plan = state["namespace"], state["question"], state["plan"]
    view = runtime.view(ns)
    as_of, flt = state.get("as_of"), state.get("filter")
    budget = state.get("budget") or runtime.read.budget
    llm = runtime.roles.get("assistant") is not None
    chosen = list(evidence) if llm else []
    turns = [] if llm else [view.by_ref[(e.conversation_id, e.turn_id)] for e in evidence]
    turns += [
        t for t in _fast_turns(runtime, view, q, as_of, flt) if (t.conversation_id, t.turn_id) not in seen
    ]
    signals = runtime.signals.get(view, q, _mask(view, as_of, flt), runtime.embed)
    q_vec, by_segment = runtime.embed(q), segment_scores(state.get("activated", []))
    scored = score_turns(view, turns, q, plan, signals, q_vec, by_segment)
    relevant = any(r.relevant for r in reports) or bool(
        len(scored.support) and scored.support.max() >= RELEVANCE_FLOOR
    )
    if not relevant:
        return []
    support = {turn_key(t): s for t, s in zip(scored.turns, scored.support.tolist(), strict=True)}
    ranked = [(t, s, False) for t, s in zip(scored.turns, scored.score.tolist(), strict=True)]
    if runtime.episode_context:
        usable = lambda t: (as_of is None or t.time <= as_of) and (flt is None or flt.matches(t))  # noqa: E731
        ranked = with_neighbours(view, [(t, s) for t, s, _ in ranked], usable)
        extra = [t for t, _, _ in ranked if turn_key(t) not in support]
        more = score_turns(view, extra, q, plan, signals, q_vec, by_segment)
        support |= {turn_key(t): s for t, s in zip(more.turns, more.support.tolist(), strict=True)}
    left = budget - sum(fact_closure(f, {}).tokens for f in state.get("facts", []))
    left -= sum(count_tokens(evidence_line(e)) for e in chosen)
    taken = {(e.conversation_id, e.turn_id) for e in chosen}
    for t, _, lifted in sorted(ranked, key=lambda r: (-r[1], r[0].seq)):
        item = evidence_item(t, view.segment_for(t), round(support[turn_key(t)], 4), t.text)
        cost = count_tokens(evidence_line(item))
        if cost > left or (t.conversation_id, t.turn_id) in taken:
            continue
        left -= cost
        taken.add((t.conversation_id, t.turn_id))
        # A turn shown only for its neighbour, or too weakly supported to be a candidate answer
        # (under the floor fast applies), is context: the reader's rules do not answer from it.
        weak = lifted or item.score < CANDIDATE_FLOOR
        chosen.append(item.model_copy(update={"role": "context"}) if weak else item)
    return sorted(chosen, key=lambda e: -e.score)


def _timed(name: str, start: float) -> dict[str, float]:
    return {name: (time.perf_counter() - start) * 1000}


def build_master_graph(runtime: ReadRuntime):
    """Compile the master graph. Input: question, namespace, mode, as_of, budget. Output: answer."""

    def plan_node(state: MasterState) -> dict[str, Any]:
        start = time.perf_counter()
        view = runtime.view(state["namespace"])
        known = runtime.known_entities(state["namespace"], view)
        anchor = state.get("as_of") or (view.turns[-1].time if view.turns else None)
        subjects = (
            runtime.question_subjects(state["namespace"], view, state["question"])
            if runtime.currentness
            else []
        )
        plan = offline_plan(state["question"], known, anchor, subjects=subjects)
        calls: list[LLMCall] = [
            LLMCall(
                role="planner",
                model="offline-rules",
                backend="offline",
                prompt_tokens=count_tokens(state["question"]),
                completion_tokens=count_tokens(plan.model_dump_json()),
            )
        ]
        requested = state.get("mode", "auto")
        chat = runtime.roles.get("planner")
        if requested != "fast" and chat is not None:
            prompt = load_prompt("planner")
            messages = [
                {"role": "system", "content": prompt.text},
                {"role": "user", "content": state["question"]},
            ]
            calls = []
            try:
                result = chat.chat(
                    "planner", messages, schema=PLAN_SCHEMA, max_tokens=200, prompt_hash=prompt.sha256
                )
                calls.append(result.call)
                reply = parse_into(result.data if result.data is not None else result.text, PlanReply)
                plan = plan_from_reply(reply, state["question"], known, anchor, chat.model, subjects=subjects)
            except (LLMError, ValueError) as exc:
                calls.append(
                    LLMCall(
                        role="planner",
                        model=chat.model,
                        backend="openai",
                        ok=False,
                        error=str(exc),
                        prompt_tokens=count_tokens(prompt.text + state["question"]),
                    )
                )
                return {
                    "calls": calls,
                    "error": f"planner failed: {exc}",
                    "plan": plan,
                    "mode_used": "deep",
                    "timings": _timed("plan", start),
                }
        mode_used = plan.mode if requested == "auto" else requested
        return {"plan": plan, "mode_used": mode_used, "calls": calls, "timings": _timed("plan", start)}

    def after_plan(state: MasterState) -> str:
        if state.get("error"):
            return "read"
        return "fast_retrieve" if state["mode_used"] == "fast" else "route"

    def fast_retrieve(state: MasterState) -> dict[str, Any]:
        """System 1: one hybrid retrieval over turns, plus the ledger's resolution of what the
        plan names (cheap: a few indexed reads); no planning LLM, no assistants."""
        start = time.perf_counter()
        view = runtime.view(state["namespace"])
        as_of = state.get("as_of")
        flt = state.get("filter")
        evidence = _fast_evidence(runtime, view, state["question"], state["plan"], as_of, flt)
        facts = []
        if runtime.currentness:
            valid_at, known_at = question_time(state["plan"], as_of)
            facts = fact_items(
                runtime.ledger(), state["namespace"], state["plan"], valid_at=valid_at, known_at=known_at
            )
            if flt is not None:
                facts = facts_within(facts, view.by_ref, flt)
        return {"evidence": evidence, "facts": facts, "activated": [], "timings": _timed("retrieve", start)}

    def route(state: MasterState) -> dict[str, Any]:
        start = time.perf_counter()
        ns, q, plan = state["namespace"], state["question"], state["plan"]
        view = runtime.view(ns)
        as_of = state.get("as_of")
        mask = view.visible(as_of)
        valid_at, known_at = question_time(plan, as_of)
        facts = fact_items(runtime.ledger(), ns, plan, valid_at=valid_at, known_at=known_at)
        if state.get("filter") is not None:
            mask = mask & state["filter"].mask(view.turns)
            facts = facts_within(facts, view.by_ref, state["filter"])
        if runtime.router == "paper":
            activated = paper_route(view, runtime.question_vector(view, q), q, mask, runtime.activate)
        else:
            activated = route_hop(
                view,
                q,
                runtime.question_vector(view, q),
                plan,
                facts,
                mask,
                top_n=runtime.activate,
                global_weights=runtime.read.global_weights,
                pathway_weights=runtime.read.pathway_weights,
            )
        return {
            "facts": facts,
            "activated": activated,
            "pending": activated,
            "hops": [[a.segment_id for a in activated]],
            "timings": _timed("route", start),
        }

    def fan_out(state: MasterState) -> list[Send] | str:
        if not state.get("pending"):
            return "aggregate"
        norm = segment_scores(state.get("activated", []))
        return [
            Send(
                "assistant",
                AssistantTask(
                    question=state["question"],
                    namespace=state["namespace"],
                    segment_id=a.segment_id,
                    plan=state["plan"],
                    as_of=state.get("as_of"),
                    filter=state.get("filter"),
                    budget=state.get("budget") or runtime.read.budget,
                    segment_score=norm.get(a.segment_id, 0.0),
                ),
            )
            for a in state["pending"]
        ]

    def hop(state: MasterState) -> dict[str, Any]:
        """Route once more from what the assistants found: the best turns' rarest words and the
        ledger's values become keyword triggers, their vectors pull the dense query. Bounded by
        `runtime.max_hops`; a hop that activates no new segment ends the search. Rules, like the
        first hop's routing: no LLM call (the assistants' reads of the new segments are counted)."""
        start = time.perf_counter()
        hops = state.get("hops", [])
        if runtime.router != "emem" or len(hops) >= runtime.max_hops:
            return {"pending": []}
        ns, q, plan = state["namespace"], state["question"], state["plan"]
        view = runtime.view(ns)
        mask = _mask(view, state.get("as_of"), state.get("filter"))
        found = sorted(
            (e for r in state.get("reports", []) for e in r.evidence), key=lambda e: (-e.score, e.turn_id)
        )
        seeds = [t for e in found[:FEEDBACK_TURNS] if (t := view.by_ref.get((e.conversation_id, e.turn_id)))]
        if not seeds:
            return {"pending": [], "hops": [*hops, []]}
        query, terms = feedback_query(
            q, seeds, state.get("facts", []), runtime.speakers(view), runtime.document_frequency.of(view)
        )
        vector = feedback_vector(
            runtime.question_vector(view, q), view.turn_vectors[[view.row_of[turn_key(t)] for t in seeds]]
        )
        done = {a.segment_id for a in state.get("activated", [])}
        new = route_hop(
            view,
            query,
            vector,
            plan,
            state.get("facts", []),
            mask,
            top_n=runtime.activate,
            exclude=done,
            global_weights=runtime.read.global_weights,
            pathway_weights=runtime.read.pathway_weights,
        )
        return {
            "activated": [*state.get("activated", []), *new],
            "pending": new,
            "hops": [*hops, [a.segment_id for a in new]],
            "hop_terms": terms,
            "timings": _timed("hop", start),
        }

    def assistant(task: AssistantTask) -> dict[str, Any]:
        start = time.perf_counter()
        view = runtime.view(task["namespace"])
        segment = view.segments[view.segment_index[task["segment_id"]]]
        as_of = task.get("as_of")
        flt = task.get("filter")
        visible = [
            (as_of is None or t.time <= as_of) and (flt is None or flt.matches(t)) for t in segment.turns
        ]
        chat = runtime.roles.get("assistant")
        if chat is None:
            q = task["question"]
            signals = runtime.signals.get(view, q, _mask(view, as_of, flt), runtime.embed)
            shown = [t for t, v in zip(segment.turns, visible, strict=True) if v]
            scored = score_turns(
                view, shown, q, task["plan"], signals, runtime.embed(q),
                {segment.segment_id: task.get("segment_score", 0.0)},
            )  # fmt: skip
            ranked = list(zip(scored.turns, scored.score.tolist(), scored.support.tolist(), strict=True))
            report, call = ranked_assistant(segment, q, ranked, task.get("budget") or runtime.read.budget)
        else:
            shown = segment.model_copy(
                update={"turns": [t for t, v in zip(segment.turns, visible, strict=True) if v]}
            )
            report, call = llm_assistant(
                shown, task["question"], task["plan"], chat,
                states=getattr(runtime.memory, "segment_states", None), namespace=task["namespace"],
            )  # fmt: skip
        return {"reports": [report], "calls": [call], "timings": _timed("assistants", start)}

    def aggregate(state: MasterState) -> dict[str, Any]:
        start = time.perf_counter()
        plan, budget = state["plan"], state.get("budget") or runtime.read.budget
        facts = state.get("facts", [])
        if state.get("mode_used") == "fast":
            evidence = list(state.get("evidence", []))
        else:
            reports: list[AssistantReport] = state.get("reports", [])
            seen: set[tuple[str, str]] = set()
            evidence: list[EvidenceItem] = []
            for r in sorted(reports, key=lambda r: r.segment_id):
                for e in r.evidence:
                    if (e.conversation_id, e.turn_id) not in seen:
                        seen.add((e.conversation_id, e.turn_id))
                        evidence.append(e)
            evidence = _deep_candidates(runtime, state, reports, evidence, seen)
        ns, as_of = state["namespace"], state.get("as_of")
        view = runtime.view(ns)
        # A fact's source turns travel with it (those the question's filter keeps); an assistant's
        # quote of one is kept as quoted.
        flt = state.get("filter")
        quoted = {f"{e.conversation_id}/{e.turn_id}": e for e in evidence}
        fact_sources: dict[str, EvidenceItem] = {}
        for f in facts:
            for rev in f.revisions + f.history:
                for ref in rev.get("sources", []):
                    conv, _, tid = ref.partition("/")
                    turn = view.by_ref.get((conv, tid))
                    if turn is not None and (flt is None or flt.matches(turn)):
                        quote = quoted[ref].quote if ref in quoted else turn.text
                        fact_sources[ref] = evidence_item(turn, view.segment_for(turn), 1.0, quote)
        if runtime.currentness and asks_follow_up(plan) and evidence:
            exclude = {t.lower() for t in view.indexes.speakers} | {n.lower() for n in plan.entities}
            top = evidence[0].score
            until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
            bound = min((t for t in (as_of, until) if t is not None), default=None)
            for i, turn in enumerate(later_revisions(evidence, view.turns, exclude, bound, plan.entities)):
                # Ranked just under the best turn, so packing keeps it and the reader weighs it.
                evidence.append(
                    evidence_item(turn, view.segment_for(turn), round(top - 0.001 * (i + 1), 4), turn.text)
                )
            evidence.sort(key=lambda e: -e.score)
        if runtime.currentness and plan.operation == Operation.COUNT and evidence:
            until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
            bound = min((t for t in (as_of, until) if t is not None), default=None)
            focus = focus_words(state["question"], set(plan.entities))
            for turn in count_follow_ups(evidence, view.turns, focus, bound):
                evidence.append(
                    evidence_item(turn, view.segment_for(turn), round(evidence[-1].score, 4), turn.text)
                )
        stale: dict[str, list[tuple[Revision, Any]]] = {}
        if runtime.currentness and asks_state(plan, as_of):
            valid_at, known_at = question_time(plan, as_of)
            ledger = runtime.ledger()

            def resolve(subject: str, predicate: str) -> Any:
                return ledger.resolve(ns, subject, predicate, valid_at=valid_at, known_at=known_at)

            stale = stale_revisions(evidence, runtime.sources(ns), resolve)
            # Context turns (deep's weakly supported fill) keep their place after the candidates:
            # the latest-statement rule ranks only turns that may answer.
            context = [e for e in evidence if e.role == "context"]
            candidates = [e for e in evidence if e.role != "context"]
            evidence = rank_for_state(candidates, stale, prefer_latest=plan.prefers_latest) + context
        requests = runtime.forget_requests(ns) if runtime.currentness else []
        withheld = apply_forget_requests(state["question"], evidence, facts, requests)
        evidence, facts = withheld.evidence, withheld.facts
        fact_sources = {ref: e for ref, e in fact_sources.items() if withholding_ok(ref, withheld.dropped)}
        closures = build_closures(plan, evidence, facts, stale, budget, fact_sources, state["question"])
        if runtime.fill_context and state.get("mode_used") != "fast":
            taken = {(e.conversation_id, e.turn_id) for c in closures for e in c.evidence}
            closures += context_closures(_segment_turns(runtime, state), taken)
        packed = pack(closures, budget)
        return {
            "evidence": evidence,
            "facts": facts,
            "pack": packed,
            "withheld_by": withheld.about,
            "timings": _timed("aggregate", start),
        }

    def read(state: MasterState) -> dict[str, Any]:
        start = time.perf_counter()
        q, plan = state["question"], state["plan"]
        facts = state.get("facts", [])
        packed = state.get("pack")
        calls: list[LLMCall] = []
        error = state.get("error")
        failed = [r for r in state.get("reports", []) if r.error]
        if failed and not error:
            error = f"{len(failed)} assistant call(s) failed; first: {failed[0].error}"
        withheld_by = state.get("withheld_by")
        if error or packed is None:
            answer, status = "", "error"
        elif withheld_by is not None:
            answer, status = withheld_answer(withheld_by), "abstained"
        else:
            chat = runtime.roles.get("reader")
            if chat is None:
                answer, status = offline_read(q, plan, packed, facts)
                calls.append(offline_reader_call(q, packed.context(), answer))
            else:
                answer, status, call = llm_read(q, plan, packed, facts, chat)
                calls.append(call)
                if status == "error":
                    error = call.error
        return {
            "answer": _answer(state, answer, status, error, calls),
            "calls": calls,
            "timings": _timed("read", start),
        }

    graph = StateGraph(MasterState)
    graph.add_node("plan", plan_node)
    graph.add_node("fast_retrieve", fast_retrieve)
    graph.add_node("route", route)
    graph.add_node("assistant", assistant)
    graph.add_node("aggregate", aggregate)
    graph.add_node("read", read)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", after_plan, ["fast_retrieve", "route", "read"])
    graph.add_edge("fast_retrieve", "aggregate")
    graph.add_node("hop", hop)
    graph.add_conditional_edges("route", fan_out, ["assistant", "aggregate"])
    graph.add_edge("assistant", "hop")
    graph.add_conditional_edges("hop", fan_out, ["assistant", "aggregate"])
    graph.add_edge("aggregate", "read")
    graph.add_edge("read", END)
    return graph.compile()


def _answer(state: MasterState, text: str, status: str, error: str | None, calls: list[LLMCall]) -> Answer:
    packed = state.get("pack")
    all_calls = [*state.get("calls", []), *calls]
    plan: Plan = state["plan"]
    evidence = [e for c in (packed.closures if packed else []) for e in c.evidence]
    reports = {r.segment_id: r for r in state.get("reports", [])}
    activated = [
        a.model_copy(
            update={"assistant_note": reports[a.segment_id].note, "relevant": reports[a.segment_id].relevant}
        )
        if a.segment_id in reports
        else a
        for a in state.get("activated", [])
    ]
    hashes = {"prompt-set": prompt_set_hash(), **{c.role: c.prompt_hash for c in all_calls if c.prompt_hash}}
    usage = Usage.from_calls(all_calls, context_tokens=packed.tokens if packed else 0)
    return Answer(
        question=state["question"],
        namespace=state["namespace"],
        answer=text if status != "error" else "",
        status=status,  # type: ignore[arg-type]
        operation=plan.operation,
        mode_used=state.get("mode_used", "deep"),  # type: ignore[arg-type]
        mode_requested=state.get("mode", "auto"),  # type: ignore[arg-type]
        mode_reason=plan.reason
        if state.get("mode", "auto") == "auto"
        else f"{state.get('mode')} mode requested",
        evidence=evidence,
        facts=state.get("facts", []),
        activated_segments=activated,
        usage=usage.model_copy(
            update={
                "segments_per_hop": [len(h) for h in state.get("hops", [])],
                "hop_terms": list(state.get("hop_terms", [])),
            }
        ),
        stage_latency_ms=dict(state.get("timings", {})),
        context=packed.context() if packed else "",
        budget=state.get("budget") or DEFAULT_BUDGET,
        as_of=state.get("as_of"),
        prompt_hashes=hashes,
        offline=usage.offline,
        error=error,
        withheld_by=state["withheld_by"].revision_id if state.get("withheld_by") else None,
    )


def _finished(answer: Answer, start: float, settle_ms: float) -> Answer:
    """Stamp the answer's latency, including the read-through consolidation that preceded it."""
    update: dict[str, Any] = {"latency_ms": (time.perf_counter() - start) * 1000 + settle_ms}
    if settle_ms:
        update["stage_latency_ms"] = {"consolidate": settle_ms, **answer.stage_latency_ms}
    return answer.model_copy(update=update)


def _graph_input(
    question: str, namespace: str, mode: str, as_of: datetime | None, budget: int, filter: Any = None
) -> dict[str, Any]:
    return {
        "question": question,
        "namespace": namespace,
        "mode": mode,
        "as_of": as_of,
        "budget": budget,
        "filter": filter,
    }


def ask_graph(graph: Any, *args: Any, settle_ms: float = 0.0, **kwargs: Any) -> Answer:
    """Run the read graph on one question (arguments as `_graph_input`: question, namespace, mode,
    as_of, budget, filter); `settle_ms` is the read-through consolidation that preceded it."""
    start = time.perf_counter()
    out = graph.invoke(_graph_input(*args, **kwargs))
    return _finished(out["answer"], start, settle_ms)


async def aask_graph(graph: Any, *args: Any, settle_ms: float = 0.0, **kwargs: Any) -> Answer:
    """`ask_graph` through `ainvoke`: the graph's parallel assistants run concurrently."""
    start = time.perf_counter()
    out = await graph.ainvoke(_graph_input(*args, **kwargs))
    return _finished(out["answer"], start, settle_ms)


__all__ = ["ABSTAIN", "ReadRuntime", "build_master_graph", "ask_graph", "aask_graph", "DEFAULT_BUDGET"]
