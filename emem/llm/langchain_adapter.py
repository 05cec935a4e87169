"""ChatModel over any LangChain chat model, so users can bring an integration emem lacks and
tests can script replies with LangChain's fake models.

Sampling settings (temperature, max tokens) belong to the wrapped model: invoke-time kwargs are
not portable across LangChain integrations, so the adapter does not pass them. With a schema it
asks for JSON in the system prompt and parses tolerantly; there is no server to negotiate with.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, convert_to_messages

from emem.errors import LLMError
from emem.llm.base import ChatResult
from emem.llm.jsonparse import read_reply, with_schema_instruction
from emem.llm.usage import LLMCall, UsageRecorder
from emem.tokens import count_tokens


def _model_name(chat_model: BaseChatModel) -> str:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(chat_model, attr, None)
        if isinstance(value, str) and value:
            return value
    return chat_model._llm_type


def _text(message: BaseMessage) -> str:
    text = message.text  # a property in langchain-core 1.x, a method before
    return str(text() if callable(text) else text)


class LangChainChatModel:
    """Adapts a `BaseChatModel`; `max_retries` bounds re-asks after an empty or unparsable reply."""

    backend = "langchain"

    def __init__(
        self,
        chat_model: BaseChatModel,
        model: str | None = None,
        recorder: UsageRecorder | None = None,
        *,
        max_retries: int = 1,
    ) -> None:
        self.chat_model = chat_model
        self.model = model or _model_name(chat_model)
        self.recorder = recorder
        self.max_retries = max_retries

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
        """See `ChatModel.chat`; tokens are summed over attempts (`usage_metadata`, else counted)."""
        start = time.perf_counter()
        sent = with_schema_instruction(messages, schema) if schema is not None else messages
        prompt_text = "\n".join(str(m.get("content", "")) for m in sent)
        tokens = [0, 0]
        cut_off = [False]

        def record(ok: bool, error: str | None = None) -> LLMCall:
            call = LLMCall(
                role=role,
                model=self.model,
                backend="langchain",
                prompt_tokens=tokens[0] or count_tokens(prompt_text),
                completion_tokens=tokens[1],
                latency_ms=(time.perf_counter() - start) * 1000,
                ok=ok,
                error=error,
                prompt_hash=prompt_hash,
                truncated=cut_off[0],
            )
            return self.recorder.record(call) if self.recorder else call

        attempts = 0
        while True:
            attempts += 1
            try:
                reply = self.chat_model.invoke(convert_to_messages(sent))
            except Exception as exc:  # any integration's failure becomes one clear LLMError
                message = f"LangChain model {self.model} failed: {type(exc).__name__}: {exc}"
                message = " ".join(message.split())[:300]
                record(False, message)
                raise LLMError(message) from exc
            text = _text(reply)
            finish = (getattr(reply, "response_metadata", None) or {}).get("finish_reason")
            cut_off[0] = finish == "length"
            meta = getattr(reply, "usage_metadata", None) or {}
            tokens[0] += meta.get("input_tokens") or count_tokens(prompt_text)
            tokens[1] += meta.get("output_tokens") or count_tokens(text)
            try:
                data = read_reply(text, schema)
            except ValueError as problem:
                if attempts <= self.max_retries:
                    continue
                message = f"LangChain model {self.model} {problem} [{attempts} attempt(s)]"
                record(False, message)
                raise LLMError(message) from None
            return ChatResult(text=text, data=data, call=record(True))
