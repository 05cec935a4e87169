"""Deep mode's assistants: one per activated segment, each reading one uncompressed segment and
returning verbatim evidence (the `Send`s that carry them: `emem.read.route.fan_out`). With a
model in the assistant role it quotes (`agents/assistant.llm_assistant`); offline, the turns are
scored by rules (`agents/deep.score_turns`) and ranked (`agents/assistant.ranked_assistant`)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from emem.agents.assistant import AssistantReport, llm_assistant, ranked_assistant
from emem.agents.deep import score_turns
from emem.agents.state import AssistantTask
from emem.llm.usage import LLMCall
from emem.read.context import ReadRuntime, timed, visible_mask


def assistant(state: AssistantTask, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `assistant` node: each of the task's segments read by its own assistant, as the
    question's as_of and filter allow.

    Args:
        state: the task `route.fan_out` sent: the question, plan and segments.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: one report and one call per segment, the stage's timing.
    """
    start = time.perf_counter()
    reports, calls = [], []
    for segment_id, score in state["segments"]:
        report, call = _read_segment(state, segment_id, score, runtime.context)
        reports.append(report)
        calls.append(call)
    return {"reports": reports, "calls": calls, "timings": timed("assistants", start)}


def _read_segment(
    state: AssistantTask, segment_id: str, segment_score: float, rt: ReadRuntime
) -> tuple[AssistantReport, LLMCall]:
    """One assistant: the segment it holds, read by the model in the assistant role or, offline,
    scored by rules and ranked."""
    view = rt.view(state["namespace"])
    segment = view.segments[view.segment_index[segment_id]]
    as_of = state.get("as_of")
    flt = state.get("filter")
    visible = [(as_of is None or t.time <= as_of) and (flt is None or flt.matches(t)) for t in segment.turns]
    chat = rt.roles.get("assistant")
    if chat is None:
        q = state["question"]
        signals = rt.signals.get(view, q, visible_mask(view, as_of, flt), rt.embed, rt.tag_entities)
        shown = [t for t, v in zip(segment.turns, visible, strict=True) if v]
        scored = score_turns(
            view, shown, q, state["plan"], signals, rt.embed(q), {segment.segment_id: segment_score}
        )
        ranked = list(zip(scored.turns, scored.score.tolist(), scored.support.tolist(), strict=True))
        return ranked_assistant(segment, q, ranked, state.get("budget") or rt.read.budget)
    shown_segment = segment.model_copy(
        update={"turns": [t for t, v in zip(segment.turns, visible, strict=True) if v]}
    )
    return llm_assistant(
        shown_segment, state["question"], state["plan"], chat,
        states=getattr(rt.memory, "segment_states", None), namespace=state["namespace"],
    )  # fmt: skip
