"""Token accounting. Every LLM call (real or offline) is recorded with its role and model, so an
answer can report what it cost and nothing is hidden."""

from __future__ import annotations

import threading
from typing import Literal

from pydantic import BaseModel, Field

Backend = Literal["offline", "openai", "langchain", "llama_cpp"]


class LLMCall(BaseModel):
    role: str
    """planner, assistant, reader, summariser, extractor, adjudicator, judge."""
    model: str
    backend: Backend
    """'offline' marks the deterministic stand-in: its output is never an LLM's."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    ok: bool = True
    error: str | None = None
    prompt_hash: str | None = None
    """Hash of the prompt template used, when one was."""
    truncated: bool = False
    """The model stopped at max_tokens (finish_reason "length"): its reply may be cut off."""
    restored_tokens: int = 0
    """Of `prompt_tokens`, those not computed: restored from a saved segment state
    (emem.segment_state). `prompt_tokens` counts every token the model saw either way."""
    restored_bytes: int = 0
    """Size of the state read from disk for them."""
    restore_ms: float = 0.0
    """Time to read and load that state (part of `latency_ms`)."""
    state_built: bool = False
    """This call evaluated a segment prefix and saved its state for the next activation."""


class CallTotals(BaseModel):
    """What a set of LLM calls cost, summed: one shape for a role's share and for the whole answer,
    so the two can never count differently."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed_calls: int = 0
    truncated_calls: int = 0
    """Calls cut off at max_tokens: an answer read from one may be incomplete."""
    restored_prompt_tokens: int = 0
    """Prompt tokens restored from saved segment states (local models only) instead of computed."""
    computed_prompt_tokens: int = 0
    """Prompt tokens the models computed: prompt_tokens - restored_prompt_tokens."""
    restored_bytes: int = 0
    """Bytes of saved state read for the restored tokens."""
    restore_ms: float = 0.0
    """Time spent reading and loading those states."""
    states_built: int = 0
    """Segment states evaluated and saved by these calls."""

    def add(self, call: LLMCall) -> None:
        """Count one call in.

        Args:
            call: the recorded call.
        """
        self.llm_calls += 1
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.failed_calls += 0 if call.ok else 1
        self.truncated_calls += 1 if call.truncated else 0
        self.restored_prompt_tokens += call.restored_tokens
        self.computed_prompt_tokens += call.prompt_tokens - call.restored_tokens
        self.restored_bytes += call.restored_bytes
        self.restore_ms = round(self.restore_ms + call.restore_ms, 1)
        self.states_built += 1 if call.state_built else 0


class RoleUsage(CallTotals):
    models: list[str] = Field(default_factory=list)
    """Who served the role's calls, in order of first use ("offline-rules" for the offline
    stand-ins, whose token counts are what an LLM would have read and written)."""


class Usage(CallTotals):
    context_tokens: int = 0
    """Tokens of packed memory context handed to the reader."""
    by_role: dict[str, RoleUsage] = Field(default_factory=dict)
    offline: bool = True
    """True when every call was served by the offline stand-ins."""
    segments_per_hop: list[int] = Field(default_factory=list)
    """Deep mode: segments each routing hop activated (one entry per hop; empty in fast mode)."""
    hop_terms: list[str] = Field(default_factory=list)
    """Deep mode: the trigger words each later hop took from the previous hop's evidence and the
    facts, in hop order."""

    @classmethod
    def from_calls(cls, calls: list[LLMCall], context_tokens: int = 0) -> Usage:
        usage = cls(context_tokens=context_tokens, offline=all(c.backend == "offline" for c in calls))
        for c in calls:
            role = usage.by_role.setdefault(c.role, RoleUsage())
            if c.model not in role.models:
                role.models.append(c.model)
            usage.add(c)
            role.add(c)
        return usage


class UsageRecorder:
    """Thread-safe collector; one per request (ask, consolidate, eval row)."""

    def __init__(self) -> None:
        self._calls: list[LLMCall] = []
        self._lock = threading.Lock()

    def record(self, call: LLMCall) -> LLMCall:
        with self._lock:
            self._calls.append(call)
        return call

    @property
    def calls(self) -> list[LLMCall]:
        with self._lock:
            return list(self._calls)

    def usage(self, context_tokens: int = 0) -> Usage:
        return Usage.from_calls(self.calls, context_tokens)
