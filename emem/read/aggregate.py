"""Stage 4, aggregate: the evidence the reader may see. Deep mode first chooses its candidates
(`deep_candidates`); then currentness through the ledger (`agents/currentness.py`), forget
requests (`agents/withheld.py`), provenance closures (`agents/aggregate.py`) and packing under
the token budget (`emem/read/packing.py`, pure)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from emem.agents.aggregate import build_closures, context_closures, fact_closure, turn_closure
from emem.agents.assistant import (
    CANDIDATE_FLOOR,
    RELEVANCE_FLOOR,
    AssistantReport,
    evidence_item,
    packed_line_tokens,
    supported_evidence,
)
from emem.agents.counts import counted_words
from emem.agents.currentness import (
    asks_follow_up,
    asks_state,
    count_follow_ups,
    later_revisions,
    question_time,
    rank_for_state,
    stale_revisions,
)
from emem.agents.deep import score_turns, segment_scores, with_neighbours
from emem.agents.planner import asks_now
from emem.agents.spans import only_when, question_names
from emem.agents.state import MasterState
from emem.agents.withheld import apply_forget_requests, shown_source
from emem.answer import EvidenceItem, FactItem, Operation
from emem.index.manager import turn_key
from emem.ledger.models import Revision
from emem.ledger.withhold import revision_withheld
from emem.read.context import ReadRuntime, timed, visible_mask
from emem.read.packing import cost, pack
from emem.read.retrieve import fast_turns


def segment_turns(rt: ReadRuntime, state: MasterState) -> list[EvidenceItem]:
    """Every visible turn of the activated segments, scored for support as the offline assistant
    scores them: the candidates for filling the budget."""
    view = rt.view(state["namespace"])
    as_of, q = state.get("as_of"), state["question"]
    turns = [
        t
        for a in state.get("activated", [])
        for t in view.segments[view.segment_index[a.segment_id]].turns
        if (as_of is None or t.time <= as_of) and (state.get("filter") is None or state["filter"].matches(t))
    ]
    scored, _ = supported_evidence(view, turns, q, state["plan"], rt.embed(q), keep_all=True)
    return scored


def source_items(
    view: Any, facts: Sequence[FactItem], flt: Any, quoted: Sequence[EvidenceItem]
) -> dict[str, EvidenceItem]:
    """The source turns of the facts, which travel with them (those the question's filter keeps);
    an assistant's quote of one is kept as quoted.

    Args:
        view: the namespace view.
        facts: the resolved facts.
        flt: the question's filter, or None.
        quoted: evidence so far (its quotes win over the turn's whole text).
    Returns:
        Evidence items by "conversation/turn" reference.
    """
    quotes = {f"{e.conversation_id}/{e.turn_id}": e for e in quoted}
    out: dict[str, EvidenceItem] = {}
    for f in facts:
        for rev in f.revisions + f.history:
            for ref in rev.get("sources", []):
                conv, _, tid = ref.partition("/")
                turn = view.by_ref.get((conv, tid))
                if turn is not None and (flt is None or flt.matches(turn)):
                    quote = quotes[ref].quote if ref in quotes else turn.text
                    out[ref] = evidence_item(turn, view.segment_for(turn), 1.0, quote)
    return out


def deep_candidates(
    rt: ReadRuntime,
    state: MasterState,
    reports: list[AssistantReport],
    evidence: list[EvidenceItem],
    seen: set[tuple[str, str]],
    fast: list[Any] | None = None,
) -> list[EvidenceItem]:
    """Deep mode's evidence: the assistants' turns and fast's retrieval (deep sees at least what
    fast sees), chosen best-first by the calibrated score until they fill the budget the facts
    leave. Whether the question is answerable is decided here, once, on everything: when no
    turn's support reaches the floor and no assistant found its segment relevant, the turns are
    still packed, all as context, which the reader's rules never answer from (so the offline
    reader abstains as it did when nothing was kept) while a model reader still sees what memory
    holds nearest the question. Items carry their support score (assistant.support_scores), the scale
    the reader and the currentness rules compare; quotes an LLM assistant chose come first.
    `fast`: fast's retrieval (`fast_turns`) when the caller already has it."""
    ns, q, plan = state["namespace"], state["question"], state["plan"]
    view = rt.view(ns)
    as_of, flt = state.get("as_of"), state.get("filter")
    budget = state.get("budget") or rt.read.budget
    llm = rt.roles.get("assistant") is not None
    chosen = list(evidence) if llm else []
    turns = [] if llm else [view.by_ref[(e.conversation_id, e.turn_id)] for e in evidence]
    if fast is None:
        fast = fast_turns(rt, view, q, as_of, flt)
    turns += [t for t in fast if (t.conversation_id, t.turn_id) not in seen]
    signals = rt.signals.get(view, q, visible_mask(view, as_of, flt), rt.embed, rt.tag_entities)
    q_vec, by_segment = rt.embed(q), segment_scores(state.get("activated", []))
    scored = score_turns(view, turns, q, plan, signals, q_vec, by_segment)
    relevant = any(r.relevant for r in reports) or bool(
        len(scored.support) and scored.support.max() >= RELEVANCE_FLOOR
    )
    support = {turn_key(t): s for t, s in zip(scored.turns, scored.support.tolist(), strict=True)}
    ranked = [(t, s, False) for t, s in zip(scored.turns, scored.score.tolist(), strict=True)]
    if rt.episode_context:
        usable = lambda t: (as_of is None or t.time <= as_of) and (flt is None or flt.matches(t))  # noqa: E731
        ranked = with_neighbours(view, [(t, s) for t, s, _ in ranked], usable)
        extra = [t for t, _, _ in ranked if turn_key(t) not in support]
        more = score_turns(view, extra, q, plan, signals, q_vec, by_segment)
        support |= {turn_key(t): s for t, s in zip(more.turns, more.support.tolist(), strict=True)}
    # The facts take what they will take when packed: with their source turns, and nothing for
    # a fact whose closure cannot fit at all (the packer drops it; reserving its size would leave
    # that share of the budget empty).
    facts = state.get("facts", [])
    sources = source_items(view, facts, flt, evidence)
    left = budget - pack([fact_closure(f, sources) for f in facts], budget).tokens
    units = [turn_closure(e, e.turn_id, e.score) for e in chosen]
    headers = {c.header for c in units if c.header is not None}
    left -= cost(units)
    taken = {(e.conversation_id, e.turn_id) for e in chosen}
    for t, _, lifted in sorted(ranked, key=lambda r: (-r[1], r[0].seq)):
        if (t.conversation_id, t.turn_id) in taken:
            continue
        # Its line alone (turn_closure's tokens, header aside) already over what is left: it
        # cannot fit, so skip it before building its item and closure, as most are once the
        # budget is nearly full (a hundred or more candidates per deep ask).
        if packed_line_tokens(t) > left:
            continue
        # A turn shown only for its neighbour, or too weakly supported to be a candidate answer
        # (under the floor fast applies), is context: the reader's rules do not answer from it.
        # When nothing reaches the relevance floor, every turn is context (abstention, above).
        score = round(support[turn_key(t)], 4)
        weak = lifted or score < CANDIDATE_FLOOR or not relevant
        item = evidence_item(t, view.segment_for(t), score, t.text, "context" if weak else "evidence")
        unit = turn_closure(item, t.turn_id, item.score)
        needs = cost([unit], headers)
        if needs > left or (t.conversation_id, t.turn_id) in taken:
            continue
        left -= needs
        headers.add(unit.header or "")
        taken.add((t.conversation_id, t.turn_id))
        chosen.append(item)
    return sorted(chosen, key=lambda e: -e.score)


def aggregate(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `aggregate` node: gather the evidence (fast's, or the assistants' with deep's
    candidates), settle currentness through the ledger, build provenance closures and pack them
    under the budget.

    Args:
        state: the plan, facts, and the fast evidence or the assistants' reports.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: evidence, facts, the pack, the forget request it withholds for, timings.
    """
    start = time.perf_counter()
    rt = runtime.context
    plan, budget = state["plan"], state.get("budget") or rt.read.budget
    facts = state.get("facts", [])
    evidence: list[EvidenceItem]
    ns, as_of = state["namespace"], state.get("as_of")
    flt = state.get("filter")
    fast: list[Any] | None = None  # fast's retrieval, once per ask
    if state.get("mode_used") == "fast":
        evidence = list(state.get("evidence", []))
    else:
        reports: list[AssistantReport] = state.get("reports", [])
        seen: set[tuple[str, str]] = set()
        evidence = []
        for r in sorted(reports, key=lambda r: r.segment_id):
            for e in r.evidence:
                if (e.conversation_id, e.turn_id) not in seen:
                    seen.add((e.conversation_id, e.turn_id))
                    evidence.append(e)
        fast = fast_turns(rt, rt.view(ns), state["question"], as_of, flt)
        evidence = deep_candidates(rt, state, reports, evidence, seen, fast)
    view = rt.view(ns)
    fact_sources = source_items(view, facts, flt, evidence)
    # The follow-up and count rules start from turns that may answer; context alone starts none.
    answerable = any(e.role != "context" for e in evidence)
    if rt.currentness and asks_follow_up(plan) and answerable:
        exclude = {t.lower() for t in view.indexes.speakers} | {n.lower() for n in plan.entities}
        top = evidence[0].score
        until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
        bound = min((t for t in (as_of, until) if t is not None), default=None)
        revisions = later_revisions(evidence, rt.revision_turns(view), exclude, bound, plan.entities)
        # A revision found among deep's context turns is promoted, not packed twice.
        promoted = {(t.conversation_id, t.turn_id) for t in revisions}
        evidence = [e for e in evidence if (e.conversation_id, e.turn_id) not in promoted]
        for i, turn in enumerate(revisions):
            # Ranked just under the best turn, so packing keeps it and the reader weighs it.
            evidence.append(
                evidence_item(turn, view.segment_for(turn), round(top - 0.001 * (i + 1), 4), turn.text)
            )
        evidence.sort(key=lambda e: -e.score)
    if rt.currentness and plan.operation == Operation.COUNT and answerable:
        until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
        bound = min((t for t in (as_of, until) if t is not None), default=None)
        focus = counted_words(state["question"], plan)
        follow = count_follow_ups(evidence, view.by_time, focus, bound)
        promoted = {(t.conversation_id, t.turn_id) for t in follow}
        last = evidence[-1].score
        evidence = [e for e in evidence if (e.conversation_id, e.turn_id) not in promoted]
        for turn in follow:
            evidence.append(evidence_item(turn, view.segment_for(turn), round(last, 4), turn.text))
    stale: dict[str, list[tuple[Revision, Any]]] = {}
    if rt.currentness and asks_state(plan, as_of):
        valid_at, known_at = question_time(plan, as_of, rt.now(view))
        ledger = rt.ledger()

        def resolve(subject: str, predicate: str) -> Any:
            return ledger.resolve(ns, subject, predicate, valid_at=valid_at, known_at=known_at)

        # the names a question says, not its speakers nor when ("February half-term")
        named = [n for n in question_names(state["question"], rt.speakers(view)) if not only_when(n)]
        stale = stale_revisions(evidence, rt.sources(ns), resolve, plan.predicates, named)
        # Context turns (deep's weakly supported fill) keep their place after the candidates:
        # the latest-statement rule ranks only turns that may answer.
        context = [e for e in evidence if e.role == "context"]
        candidates = [e for e in evidence if e.role != "context"]
        evidence = rank_for_state(candidates, stale, prefer_latest=plan.prefers_latest) + context
    requests = rt.forget_requests(ns) if rt.currentness else []
    withheld_refs = rt.withheld(ns, view) if requests else {}
    # One ranking of the question, the same in every mode, decides whether it is about withheld
    # content: fast's evidence is cut at a support floor deep's is not, so the modes' own evidence
    # would decide differently.
    # Fast mode scored that ranking already (`fast_ranking`); deep retrieved it for its candidates.
    ranked = state.get("fast_ranking") if requests else None
    if requests and ranked is None:
        turns = fast if fast is not None else fast_turns(rt, view, state["question"], as_of, flt)
        q_vec = rt.embed(state["question"])
        ranked = supported_evidence(view, turns, state["question"], plan, q_vec, keep_all=True)[0]
    withheld = apply_forget_requests(
        state["question"],
        evidence,
        facts,
        requests,
        withheld_refs,
        ranked,
        plan.entities,
        asks_now(state["question"]),
    )
    evidence, facts = withheld.evidence, withheld.facts
    if requests:
        # A note that a turn's value is history must not say a value the user asked to forget.
        stale = {
            ref: kept
            for ref, notes in stale.items()
            if (kept := [(rev, res) for rev, res in notes if revision_withheld(requests, rev) is None])
        }
    fact_sources = {
        ref: shown
        for ref, e in fact_sources.items()
        if (shown := shown_source(e, requests, withheld_refs)) is not None
    }
    if withheld.about is not None:
        # The answer says the user asked to forget it: it cites nothing on the question's topic,
        # so a turn the request's words missed ("My mobile is 07700 900412" for "forget my mobile
        # number") cannot reach the caller as evidence of a refusal.
        evidence, facts, fact_sources = [], [], {}
    closures = build_closures(plan, evidence, facts, stale, budget, fact_sources, state["question"])
    if rt.fill_context and state.get("mode_used") != "fast" and withheld.about is None:
        taken = {(e.conversation_id, e.turn_id) for c in closures for e in c.evidence}
        closures += context_closures(segment_turns(rt, state), taken)
    packed = pack(closures, budget)
    return {
        "evidence": evidence,
        "facts": facts,
        "pack": packed,
        "withheld_by": withheld.about,
        "withheld_near": withheld.nearest,
        "timings": timed("aggregate", start),
    }
