"""Stage 1, plan: what operation the question needs, about whom, when, and which mode answers it.

The rules (`agents/planner.py`: `offline_plan`) always run; when a model serves the planner role
and the caller did not ask for fast mode, `llm_plan` (beside the rules) replaces their plan. A
planner that fails sends the question straight to `read`, which reports the error.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from emem.agents.planner import llm_plan, offline_plan, offline_planner_call
from emem.agents.state import MasterState
from emem.read.context import ReadRuntime, timed


def plan_node(state: MasterState, *, runtime: Runtime[ReadRuntime]) -> dict[str, Any]:
    """The `plan` node.

    Args:
        state: question, namespace, mode and as_of.
        runtime: LangGraph's runtime; its `context` is the `ReadRuntime`.

    Returns:
        The state update: plan, mode_used, calls, timings (and error when the LLM planner failed).
    """
    start = time.perf_counter()
    rt = runtime.context
    ns, question = state["namespace"], state["question"]
    view = rt.view(ns)
    known = rt.known_entities(ns, view)
    anchor = state.get("as_of") or (view.turns[-1].time if view.turns else None)
    subjects = rt.question_subjects(ns, view, question) if rt.currentness else []
    plan = offline_plan(question, known, anchor, subjects=subjects)
    calls = [offline_planner_call(question, plan)]
    requested = state.get("mode", "auto")
    chat = rt.roles.get("planner")
    if requested != "fast" and chat is not None:
        planned, calls, error = llm_plan(question, known, anchor, chat, subjects=subjects)
        if planned is None:
            return {
                "calls": calls,
                "error": f"planner failed: {error}",
                "plan": plan,
                "mode_used": "deep",
                "timings": timed("plan", start),
            }
        plan = planned
    mode_used = plan.mode if requested == "auto" else requested
    return {"plan": plan, "mode_used": mode_used, "calls": calls, "timings": timed("plan", start)}


def after_plan(state: MasterState) -> str:
    """The edge after `plan`: fast mode retrieves, deep mode routes, a failed plan goes to read."""
    if state.get("error"):
        return "read"
    return "fast_retrieve" if state["mode_used"] == "fast" else "route"
