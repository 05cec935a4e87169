"""The interface the harness drives. Any memory system (emem variants, full-context, RAG
baselines) is evaluated through these two calls only, so the harness never depends on emem
internals and every system is measured identically."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from emem.llm.usage import Usage

from .locomo_data import LocomoSample


class SystemOutput(BaseModel):
    prediction: str
    retrieved_ids: list[str] = Field(default_factory=list)
    """Turn ids handed to the reader, best first, e.g. "D3:7" (empty for non-retrieving systems)."""
    retrieved_sessions: list[str] = Field(default_factory=list)
    """Session ids ("D3", "S3", "session_3" or "3") when the system retrieves whole sessions."""
    context_tokens: int = 0
    """Tokens of memory context the reader saw."""
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    """End-to-end answer latency as the system measured it (0 lets the harness use wall time)."""
    stage_latency_ms: dict[str, float] = Field(default_factory=dict)
    status: str = "ok"
    """"ok", or "error" (scored 0), or a system-specific status that is scored normally."""
    error: str | None = None


@runtime_checkable
class EvalSystem(Protocol):
    name: str
    """Unique within a run; keys the log rows."""

    def prepare(self, sample: LocomoSample) -> None:
        """Ingest one conversation; called once per conversation before its questions."""
        ...

    def answer(
        self, question: str, sample_id: str, category: int, as_of: datetime | None = None
    ) -> SystemOutput:
        """Answer one question about the conversation `sample_id` that was prepared, as known at
        `as_of` (None: everything stored)."""
        ...
