"""Which implementation serves each LLM role: a chat model (OpenAI-compatible endpoint or any
LangChain chat model) or, when none is configured, emem's deterministic offline stand-in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from emem.llm.base import ChatModel
from emem.llm.config import LLMSettings, build_chat_model, load_llm_settings

READ_ROLES = ("planner", "assistant", "reader", "summariser")


@dataclass
class RoleModels:
    models: dict[str, ChatModel | None] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> RoleModels:
        return cls({role: build_chat_model(role, settings) for role in READ_ROLES})

    @classmethod
    def from_home(cls, home: Path | None) -> RoleModels:
        return cls.from_settings(load_llm_settings(home))

    def get(self, role: str) -> ChatModel | None:
        return self.models.get(role)

    @property
    def offline(self) -> bool:
        return all(m is None for m in self.models.values())

    def describe(self) -> dict[str, str]:
        return {role: (getattr(m, "model", "chat-model") if m is not None else "offline") for role, m in self.models.items()}
