"""Stage 5, read: answer from the packed context only (`agents/reader.py`: offline rules or the
`reader` prompt), or abstain; then assemble the `Answer` with its evidence, provenance, usage and
prompt hashes."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from emem.agents.currentness import overruled
from emem.agents.places import TOWN_HEADS, names_town_of
from emem.agents.reader import (
    Addressed,
    llm_read,
    offline_read,
    offline_reader_call,
    unnamed_kin,
    what_head,
)
from emem.agents.state import MasterState
from emem.agents.withheld import withheld_answer
from emem.answer import Answer, Plan
from emem.config import DEFAULT
from emem.llm.usage import LLMCall, Usage
from emem.prompting import prompt_set_hash
from emem.read.context import ReadRuntime, timed
from emem.retrieval.view import NamespaceView

DEFAULT_BUDGET = DEFAULT.read.budget


def read(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `read` node: answer from the packed context only, or abstain, or report the error
    that brought the question here.

    Args:
        state: the question, plan, facts, pack, and any error or forget request met on the way.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: the `Answer`, the reader's call, the stage's timing.
    """
    start = time.perf_counter()
    q, plan = state["question"], state["plan"]
    facts = state.get("facts", [])
    packed = state.get("pack")
    calls: list[LLMCall] = []
    overruled_answer: str | None = None
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
        chat = runtime.context.roles.get("reader")
        if chat is None:
            rt = runtime.context
            view = rt.view(state["namespace"])
            people = rt.people(state["namespace"], view)
            answer, status = offline_read(q, plan, packed, facts, people, addressed(rt, view))
            calls.append(offline_reader_call(q, packed.context(), answer))
        else:
            answer, status, call = llm_read(q, plan, packed, facts, chat)
            calls.append(call)
            if status == "error":
                error = call.error
        if (
            status == "answered"
            and not unnamed_kin(q, plan)  # "my sister's number": not the user's own fact
            and (fact := overruled(answer, plan, facts)) is not None
            # "Which city do I live in?" - "Izmir", the town of the current "Alsancak": the
            # ledger's earlier "Izmir" is the same town, not a home it replaced
            and not (
                what_head(q) in TOWN_HEADS
                and names_town_of(answer, fact.values, [e for c in packed.closures for e in c.evidence])
            )
        ):
            # the reader proposed a value the ledger holds as replaced: the ledger decides
            overruled_answer, answer = answer, ", ".join(fact.values)
        near = state.get("withheld_near")
        if status == "abstained" and near is not None:
            # Nothing kept answers, and the turn nearest the question is one the user asked to
            # forget: say so, rather than that memory holds nothing.
            answer = withheld_answer(near)
    return {
        "answer": build_answer(state, answer, status, error, calls, overruled=overruled_answer),
        "calls": calls,
        "timings": timed("read", start),
    }


def addressed(rt: ReadRuntime, view: NamespaceView) -> Addressed | None:
    """The namespace's one user and its agent, when its speakers are exactly those (an agent and
    one user): whom the agent's "you" means. None for other conversations (two friends, a group).

    Args:
        rt: the read runtime (who the agents are, once per view).
        view: the namespace's view.

    Returns:
        The user and the agents, or None.
    """
    agents = rt.agents(view)
    users = [s for s in rt.speakers(view) if s not in agents]
    return Addressed(users[0], frozenset(agents)) if agents and len(users) == 1 else None


def build_answer(
    state: MasterState,
    text: str,
    status: str,
    error: str | None,
    calls: list[LLMCall],
    *,
    overruled: str | None = None,
) -> Answer:
    """The `Answer` from the final state: evidence as packed, usage over every call, prompt hashes,
    and the reader's own answer when the ledger overruled it."""
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
        overruled=overruled,
    )
