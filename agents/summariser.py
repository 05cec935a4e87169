"""The summariser role: writes each segment's summary with an LLM when the segment closes, off the
write path (during consolidation). Offline, summaries are extractive and derived on the fly, so
nothing is stored. A summary is keyed by the segment's content hash and rewritten only when the
segment changes."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from pydantic import BaseModel, Field

from emem.agents.assistant import turn_line
from emem.errors import LLMError
from emem.llm.base import ChatModel
from emem.llm.usage import LLMCall
from emem.prompting import load_prompt, memory_block
from emem.segments import Segment


class SummaryReport(BaseModel):
    written: int = 0
    unchanged: int = 0
    failed: int = 0
    calls: list[LLMCall] = Field(default_factory=list)


def segment_hash(segment: Segment) -> str:
    return hashlib.sha256("".join(t.hash for t in segment.turns).encode()).hexdigest()


def summarise_segments(store, namespace: str, segments: Sequence[Segment], chat: ChatModel) -> SummaryReport:
    """Summarise segments whose stored summary is missing or stale. One failed call is recorded
    and skipped (the offline summary stays in use for that segment); it never stops the rest."""
    prompt = load_prompt("summariser")
    stored = store.segment_summary_hashes(namespace)
    report = SummaryReport()
    for seg in segments:
        digest = segment_hash(seg)
        if stored.get(seg.segment_id) == digest:
            report.unchanged += 1
            continue
        messages = [
            {"role": "system", "content": prompt.text},
            {
                "role": "user",
                "content": f"Session date: {seg.start:%d %B %Y}\n"
                + memory_block([turn_line(t) for t in seg.turns]),
            },
        ]
        try:
            result = chat.chat("summariser", messages, max_tokens=200, prompt_hash=prompt.sha256)
        except LLMError as exc:
            report.failed += 1
            report.calls.append(
                LLMCall(
                    role="summariser",
                    model=getattr(chat, "model", "?"),
                    backend="openai",
                    ok=False,
                    error=str(exc),
                    prompt_hash=prompt.sha256,
                )
            )
            continue
        report.calls.append(result.call)
        text = result.text.strip()
        if not text:
            report.failed += 1
            continue
        store.put_segment_summary(namespace, seg.segment_id, digest, text, getattr(chat, "model", "llm"))
        report.written += 1
    return report
