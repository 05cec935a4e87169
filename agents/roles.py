"""Which implementation serves each LLM role: a chat model (OpenAI-compatible endpoint or any
LangChain chat model) or, when none is configured, emem's deterministic offline stand-in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from emem.llm.base import ChatModel
from emem.llm.config import LLMSettings, build_chat_model, load_llm_settings

READ_ROLES = ("planner", "assistant", "reader", "summariser", "adjudicator")
"""The roles a Memory uses: the read path's, plus the summariser and adjudicator of consolidation."""


@dataclass
class RoleModels:
    models: dict[str, ChatModel | None] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> RoleModels:
        return cls({role: build_chat_model(role, settings) for role in READ_ROLES})

    @classmethod
    def from_home(cls, home: Path | None) -> RoleModels:
        return cls.from_settings(load_llm_settings(home))

    @classmethod
    def for_reader(cls, reader: str, home: Path | None) -> RoleModels:
        """`offline`: every role offline; `openai`/`local`: the configured endpoints, and an error
        when none is configured (a run that asked for a model never silently runs offline)."""
        from emem.errors import InputError

        if reader == "offline":
            return cls({r: None for r in READ_ROLES})
        if reader in ("openai", "local"):
            roles = cls.from_home(home)
            if roles.offline:
                raise InputError(
                    "no LLM endpoint configured: set EMEM_LLM_BASE_URL and EMEM_LLM_MODEL, or run `emem llm serve`",
                    "--reader",
                )
            return roles
        raise InputError(f"unknown reader {reader!r}; use offline, openai or local", "--reader")

    def get(self, role: str) -> ChatModel | None:
        return self.models.get(role)

    @property
    def offline(self) -> bool:
        return all(m is None for m in self.models.values())

    def describe(self) -> dict[str, str]:
        return {
            role: (getattr(m, "model", "chat-model") if m is not None else "offline")
            for role, m in self.models.items()
        }
