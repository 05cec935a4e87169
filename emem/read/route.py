"""Deep mode's routing: which segments the assistants read. The first hop routes the question
(three pathways, `agents/deep.route_hop`, or the paper's rule, `retrieval/routing.paper_route`);
each later hop routes again from what the assistants found. `fan_out` hands every newly activated
segment to its own assistant, by `Send`. Rules only: no LLM call here."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Send

from emem.agents.aggregate import fact_items
from emem.agents.currentness import question_time
from emem.agents.deep import (
    FEEDBACK_TURNS,
    feedback_query,
    feedback_vector,
    hop_width,
    route_hop,
    score_turns,
    segment_best,
    segment_scores,
)
from emem.agents.state import AssistantTask, MasterState
from emem.agents.withheld import facts_shown
from emem.answer import FactItem
from emem.index.manager import turn_key
from emem.read.context import ReadRuntime, timed, visible_mask
from emem.retrieval.filters import facts_within
from emem.retrieval.routing import paper_route


def route(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `route` node: the first hop, and the facts the plan names.

    Args:
        state: question, namespace, plan, as_of and filter.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: facts, activated and pending segments, hops, timings.
    """
    start = time.perf_counter()
    rt = runtime.context
    ns, q, plan = state["namespace"], state["question"], state["plan"]
    view = rt.view(ns)
    rt.embed_question(view, q)
    as_of = state.get("as_of")
    mask = view.visible(as_of)
    valid_at, known_at = question_time(plan, as_of, rt.now(view))
    facts = fact_items(rt.ledger(), ns, plan, valid_at=valid_at, known_at=known_at)
    if state.get("filter") is not None:
        mask = mask & state["filter"].mask(view.turns)
        facts = facts_within(facts, view.by_ref, state["filter"])
    if rt.router == "paper":
        activated = paper_route(view, rt.question_vector(view, q), q, mask, rt.activate)
    else:
        activated = route_hop(
            view,
            q,
            rt.question_vector(view, q),
            plan,
            _routable(rt, ns, facts),
            mask,
            top_n=rt.activate,
            global_weights=rt.read.global_weights,
            pathway_weights=rt.read.pathway_weights,
        )
    return {
        "facts": facts,
        "activated": activated,
        "pending": activated,
        "hops": [[a.segment_id for a in activated]],
        "timings": timed("route", start),
    }


def fan_out(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> list[Send] | str:
    """The edge after `route` and `hop`: the newly activated segments to the assistants, or on
    to `aggregate` when a hop activated none. Model assistants get one `Send` each, so their
    calls run at once; the offline rule assistants get one `Send` for the hop, read one segment
    after another (see `AssistantTask.segments` for why)."""
    if not state.get("pending"):
        return "aggregate"
    norm = segment_scores(state.get("activated", []))
    segments = [(a.segment_id, norm.get(a.segment_id, 0.0)) for a in state["pending"]]
    groups = [segments] if runtime.context.roles.get("assistant") is None else [[s] for s in segments]
    return [
        Send(
            "assistant",
            AssistantTask(
                question=state["question"],
                namespace=state["namespace"],
                segments=group,
                plan=state["plan"],
                as_of=state.get("as_of"),
                filter=state.get("filter"),
                budget=state.get("budget") or runtime.context.read.budget,
            ),
        )
        for group in groups
    ]


def hop(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `hop` node: route once more from what the latest hop's assistants found: the best
    turns of the segments it activated (a third hop thus starts from what the second added, not
    again from the first hop's best) give their rarest words and the ledger's values as keyword
    triggers, their vectors pull the dense query, and the fused ranking can be blended with the
    question's own best turn per segment (`ReadConfig.hop_turn_weight`,
    emem.retrieval.second_hop). Bounded by `ReadRuntime.max_hops`; a third hop is narrow except
    for LIST and COUNT questions (`agents.deep.hop_width`, `ReadConfig.late_hop_segments`); a
    hop that activates no new segment ends the search. Rules, like the first hop's routing: no
    LLM call (the assistants' reads of the new segments are counted).

    Args:
        state: the question, plan, facts, activated segments and the assistants' reports.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: newly activated and pending segments, hops, hop terms, timings.
    """
    start = time.perf_counter()
    rt = runtime.context
    hops = state.get("hops", [])
    if rt.router != "emem" or len(hops) >= rt.max_hops:
        return {"pending": []}
    ns, q, plan = state["namespace"], state["question"], state["plan"]
    width = hop_width(plan, len(hops), rt.activate, rt.read.late_hop_segments)
    if width == 0:
        return {"pending": []}
    view = rt.view(ns)
    mask = visible_mask(view, state.get("as_of"), state.get("filter"))
    latest = set(hops[-1]) if hops else set()
    found = sorted(
        (e for r in state.get("reports", []) if r.segment_id in latest for e in r.evidence),
        key=lambda e: (-e.score, e.turn_id),
    )
    # A turn a forget request withholds seeds nothing: its words would steer the next hop and show
    # in `usage.hop_terms`.
    withheld = rt.withheld(ns, view) if rt.currentness and rt.forget_requests(ns) else {}
    found = [e for e in found if (e.conversation_id, e.turn_id) not in withheld]
    seeds = [t for e in found[:FEEDBACK_TURNS] if (t := view.by_ref.get((e.conversation_id, e.turn_id)))]
    if not seeds:
        return {"pending": [], "hops": [*hops, []]}
    facts = _routable(rt, ns, state.get("facts", []))
    query, terms = feedback_query(q, seeds, facts, rt.speakers(view), rt.document_frequency.of(view))
    vector = feedback_vector(
        rt.question_vector(view, q), view.turn_vectors[[view.row_of[turn_key(t)] for t in seeds]]
    )
    done = {a.segment_id for a in state.get("activated", [])}
    turn_best = None
    if rt.read.hop_turn_weight > 0:
        # The question's own turn scores over every visible turn (the assistants' signals,
        # cached per question), so the hop also ranks sessions the feedback query drifts from.
        signals = rt.signals.get(view, q, mask, rt.embed, rt.tag_entities)
        shown = [t for t, alive in zip(view.turns, mask.tolist(), strict=True) if alive]
        turn_best = segment_best(view, score_turns(view, shown, q, plan, signals, rt.embed(q), {}))
    new = route_hop(
        view,
        query,
        vector,
        plan,
        facts,
        mask,
        top_n=width,
        exclude=done,
        global_weights=rt.read.global_weights,
        pathway_weights=rt.read.pathway_weights,
        turn_best=turn_best,
        turn_weight=rt.read.hop_turn_weight,
    )
    return {
        "activated": [*state.get("activated", []), *new],
        "pending": new,
        "hops": [*hops, [a.segment_id for a in new]],
        "hop_terms": [*state.get("hop_terms", []), *terms],
        "timings": timed("hop", start),
    }


def _routable(rt: ReadRuntime, namespace: str, facts: list[FactItem]) -> list[FactItem]:
    """The facts routing may use: none of a value a forget request withholds (it would steer
    the route and show in its reasons and in `usage.hop_terms`); aggregate still sees them all,
    to say that the user asked to forget what the question is about."""
    requests = rt.forget_requests(namespace) if rt.currentness else []
    return facts_shown(facts, requests)
