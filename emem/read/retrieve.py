"""Fast mode's retrieval (System 1): one hybrid BM25 + dense retrieval over the visible turns,
scored for support, plus the ledger's resolution of what the plan names. No planning LLM, no
assistants. Deep mode reuses `fast_turns` so that it sees at least what fast mode sees."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from langgraph.runtime import Runtime

from emem.agents.aggregate import fact_items
from emem.agents.assistant import evidence_item, supported_and_ranked, supported_evidence
from emem.agents.currentness import question_time
from emem.agents.deep import NEIGHBOUR_WEIGHT
from emem.agents.state import MasterState
from emem.answer import EvidenceItem, Plan
from emem.read.context import ReadRuntime, timed
from emem.retrieval.filters import facts_within
from emem.retrieval.hybrid import hybrid_turns, hybrid_turns_where
from emem.retrieval.view import NamespaceView


def fast_turns(
    rt: ReadRuntime, view: NamespaceView, question: str, as_of: datetime | None, flt: Any = None
) -> list[Any]:
    """The fast path's hybrid retrieval: its top fast_k visible turns, best first."""
    k, candidates = rt.read.fast_k, rt.read.candidates
    if flt is None:
        hits = hybrid_turns(view.indexes, question, k * 3, candidates, embed=rt.embed, exact=rt.cached)
        ranked = [t for t, _ in hits if as_of is None or t.time <= as_of][:k]
    else:
        keep = lambda t: flt.matches(t) and (as_of is None or t.time <= as_of)  # noqa: E731
        hits = hybrid_turns_where(
            view.indexes, question, k, keep, candidates, embed=rt.embed, exact=rt.cached
        )
        ranked = [t for t, _ in hits]
    return ranked


def fast_evidence(
    rt: ReadRuntime,
    view: NamespaceView,
    question: str,
    plan: Plan,
    as_of: datetime | None,
    flt: Any = None,
) -> list[EvidenceItem]:
    """One hybrid retrieval over the visible turns (those said by `as_of`, inside the question's
    filter), scored for support: the fast path's evidence."""
    ranked = fast_turns(rt, view, question, as_of, flt)
    evidence, _ = supported_evidence(view, ranked, question, plan, rt.embed(question))
    return evidence


def fast_ranking(
    rt: ReadRuntime,
    view: NamespaceView,
    question: str,
    plan: Plan,
    as_of: datetime | None,
    flt: Any = None,
) -> tuple[list[EvidenceItem], list[EvidenceItem]]:
    """`fast_evidence`, and every turn of the same retrieval scored for support with none cut
    (`agents.assistant.supported_and_ranked`): the ranking `aggregate` decides from whether a
    question is about withheld content, which it would otherwise retrieve and score again.

    Args:
        rt: the read runtime.
        view: the namespace's view.
        question: the question as asked.
        plan: its plan.
        as_of: the question's time bound, or None.
        flt: the question's turn filter, or None.
    Returns:
        (fast's evidence, the whole ranking), items in retrieval order.
    """
    turns = fast_turns(rt, view, question, as_of, flt)
    return supported_and_ranked(view, turns, question, plan, rt.embed(question))


def replies_to_agent_questions(
    rt: ReadRuntime,
    view: NamespaceView,
    evidence: list[EvidenceItem],
    as_of: datetime | None,
    flt: Any = None,
) -> list[EvidenceItem]:
    """The user's reply to each retrieved question the agent asked, as context.

    Why: asked in the agent's own words ("What do I do to unwind?" after "What do you do to
    unwind?"), one retrieval ranks the agent's question high and the reply that answers it
    ("Swimming, mostly.") not at all: it shares none of the words. Deep's assistants read whole
    segments and see it; fast packs it beside the question it answers, as context, which the
    reader's rules answer from only as that question's reply (emem.agents.replies).

    Args:
        rt: the read runtime.
        view: the namespace's view.
        evidence: fast's evidence.
        as_of: the question's time bound, or None.
        flt: the question's turn filter, or None.
    Returns:
        The replies not already in `evidence`, each ranked just under the question it answers.
    """
    agents = rt.agents(view)
    have = {(e.conversation_id, e.turn_id) for e in evidence}
    out: list[EvidenceItem] = []
    for e in evidence if agents else ():
        asked = view.by_ref.get((e.conversation_id, e.turn_id))
        if asked is None or e.speaker not in agents or not e.text.rstrip().endswith("?"):
            continue
        turns = view.segment_for(asked).turns
        i = next(j for j, u in enumerate(turns) if u.turn_id == asked.turn_id)
        reply = turns[i + 1] if i + 1 < len(turns) else None
        if reply is None or reply.speaker in agents or (reply.conversation_id, reply.turn_id) in have:
            continue
        if (as_of is not None and reply.time > as_of) or (flt is not None and not flt.matches(reply)):
            continue
        score = round(NEIGHBOUR_WEIGHT * e.score, 4)
        out.append(evidence_item(reply, view.segment_for(reply), score, reply.text, "context"))
        have.add((reply.conversation_id, reply.turn_id))
    return out


def fast_retrieve(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `fast_retrieve` node.

    Args:
        state: question, namespace, plan, as_of and filter.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: evidence, facts (when currentness is on), no activated segments,
        timings, and when the namespace has forget requests the whole scored ranking
        (`fast_ranking`), which aggregate decides withholding from.
    """
    start = time.perf_counter()
    rt = runtime.context
    view = rt.view(state["namespace"])
    as_of = state.get("as_of")
    flt = state.get("filter")
    rt.embed_question(view, state["question"])
    if rt.currentness and rt.forget_requests(state["namespace"]):  # aggregate will need the ranking
        evidence, ranking = fast_ranking(rt, view, state["question"], state["plan"], as_of, flt)
    else:
        evidence, ranking = fast_evidence(rt, view, state["question"], state["plan"], as_of, flt), None
    evidence = evidence + replies_to_agent_questions(rt, view, evidence, as_of, flt)
    facts = []
    if rt.currentness:
        valid_at, known_at = question_time(state["plan"], as_of, rt.now(view))
        facts = fact_items(
            rt.ledger(), state["namespace"], state["plan"], valid_at=valid_at, known_at=known_at
        )
        if flt is not None:
            facts = facts_within(facts, view.by_ref, flt)
    update = {"evidence": evidence, "facts": facts, "activated": [], "timings": timed("retrieve", start)}
    return update if ranking is None else {**update, "fast_ranking": ranking}
