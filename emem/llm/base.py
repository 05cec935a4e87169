"""The one interface every chat backend implements (OpenAI-compatible HTTP, LangChain models).

Offline roles do not implement it: they are deterministic functions that record their own
`LLMCall(backend="offline")` so their output is never mistaken for a model's.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from emem.llm.usage import LLMCall


class ChatResult(BaseModel):
    text: str
    data: Any = None
    """Parsed JSON when a schema was requested and the reply parsed; else None."""
    call: LLMCall


@runtime_checkable
class ChatModel(Protocol):
    model: str

    def chat(
        self,
        role: str,
        messages: list[dict[str, str]],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        prompt_hash: str | None = None,
    ) -> ChatResult:
        """Send `messages` ([{role, content}]). With `schema` (a JSON schema), ask for JSON and
        parse it tolerantly into `ChatResult.data`. Records the call on the model's recorder.
        Raises `emem.errors.LLMError` after bounded retries; never falls back silently."""
        ...
