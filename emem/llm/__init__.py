"""LLM access: the ChatModel protocol, its OpenAI-compatible and LangChain backends, per-role
settings, tolerant JSON parsing and token accounting.

The backends load lazily so that importing `emem.llm.usage` (which every module does) does not
pull in the openai SDK or langchain-core for a fully offline run.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from emem.llm.base import ChatModel, ChatResult
from emem.llm.usage import LLMCall, Usage, UsageRecorder

if TYPE_CHECKING:
    from emem.llm.config import ROLES, LLMSettings, RoleConfig, build_chat_model, load_llm_settings
    from emem.llm.jsonparse import extract_json, parse_into
    from emem.llm.langchain_adapter import LangChainChatModel
    from emem.llm.openai_client import OpenAIChatModel

_LAZY = {
    "ROLES": "emem.llm.config",
    "LLMSettings": "emem.llm.config",
    "RoleConfig": "emem.llm.config",
    "build_chat_model": "emem.llm.config",
    "load_llm_settings": "emem.llm.config",
    "extract_json": "emem.llm.jsonparse",
    "parse_into": "emem.llm.jsonparse",
    "LangChainChatModel": "emem.llm.langchain_adapter",
    "OpenAIChatModel": "emem.llm.openai_client",
}

__all__ = [
    "ROLES",
    "ChatModel",
    "ChatResult",
    "LLMCall",
    "LLMSettings",
    "LangChainChatModel",
    "OpenAIChatModel",
    "RoleConfig",
    "Usage",
    "UsageRecorder",
    "build_chat_model",
    "extract_json",
    "load_llm_settings",
    "parse_into",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'emem.llm' has no attribute {name!r}")
