"""A scripted chat model for agent tests: replies come from a list, tool calls included. It is
the LLM stand-in (the house rule allows scripted LLMs); everything else in the tests is real."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from emem.llm.base import ChatResult
from emem.llm.usage import LLMCall


class ScriptedChat(GenericFakeChatModel):
    """Returns the scripted messages in order; binding tools is accepted and changes nothing."""

    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChat:  # noqa: ARG002
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def script(*replies: AIMessage | str) -> ScriptedChat:
    msgs = [r if isinstance(r, AIMessage) else AIMessage(content=r) for r in replies]
    return ScriptedChat(messages=iter(msgs), seen=[])


def call(name: str, args: dict[str, Any], call_id: str = "call-1") -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


Reply = str | dict[str, Any]


class RoleChat:
    """An emem `ChatModel` (no network) that answers each role from a table and records every
    prompt: a dict reply is sent as JSON and parsed, as a model honouring the schema would."""

    def __init__(self, replies: Mapping[str, Reply], default: Reply = "", model: str = "scripted") -> None:
        self.model = model
        self.replies = dict(replies)
        self.default = default
        self.sent: list[tuple[str, list[dict[str, str]]]] = []

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
        self.sent.append((role, messages))
        reply = self.replies.get(role, self.default)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        call = LLMCall(role=role, model=self.model, backend="langchain", prompt_hash=prompt_hash)
        return ChatResult(text=text, data=None if isinstance(reply, str) else reply, call=call)
