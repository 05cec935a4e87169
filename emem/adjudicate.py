"""The LLM adjudicator: the escalation step of cheap-then-escalate conflict handling.

Rules settle what they can (same slot, clear valid-time order); only two values that tie go to an
adjudicator, and only when a model is configured for the role. Its verdict is recorded as an
"adjudicated" relation that the resolver honours; "unknown" (or any failure) leaves the conflict
visible. It never overwrites either revision.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from emem.errors import LLMError
from emem.ledger.models import Revision
from emem.llm.base import ChatModel
from emem.llm.jsonparse import parse_into
from emem.llm.usage import LLMCall
from emem.prompting import load_prompt, memory_block


class Verdict(BaseModel):
    winner: Literal["A", "B", "unknown"]
    reason: str = ""


VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"winner": {"type": "string", "enum": ["A", "B", "unknown"]}, "reason": {"type": "string"}},
    "required": ["winner"],
}


def _describe(label: str, r: Revision) -> str:
    return (
        f"{label}: {r.subject} {r.predicate} = {r.object_text or r.object} (valid from {r.valid_from:%Y-%m-%d}, "
        f'known {r.known_from:%Y-%m-%d %H:%M}; said: "{r.surface}"; sources {", ".join(r.sources) or r.asserted_by})'
    )


class LLMAdjudicator:
    """Callable (older, newer) -> winning revision id, or None to leave the conflict unresolved."""

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat
        self.calls: list[LLMCall] = []

    def __call__(self, a: Revision, b: Revision) -> str | None:
        prompt = load_prompt("adjudicate")
        messages = [
            {"role": "system", "content": prompt.text},
            {"role": "user", "content": memory_block([_describe("A", a), _describe("B", b)])},
        ]
        try:
            result = self.chat.chat(
                "adjudicator", messages, schema=VERDICT_SCHEMA, max_tokens=120, prompt_hash=prompt.sha256
            )
        except LLMError as exc:
            self.calls.append(
                LLMCall(
                    role="adjudicator",
                    model=getattr(self.chat, "model", "?"),
                    backend="openai",
                    ok=False,
                    error=str(exc),
                    prompt_hash=prompt.sha256,
                )
            )
            return None
        self.calls.append(result.call)
        try:
            verdict = parse_into(result.data if result.data is not None else result.text, Verdict)
        except ValueError:
            return None
        return {"A": a.id, "B": b.id}.get(verdict.winner)
