"""Extraction: reading fact candidates out of episodes, by offline rules or by a chat model.

Both extractors are callables `(turns) -> list[FactCandidate]` with a `name`; consolidation
writes their candidates to the ledger. Submodules load lazily so that importing the schema (as
consolidation does) stays cheap and free of import cycles.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from emem.extract.schema import FactCandidate

if TYPE_CHECKING:
    from emem.extract.dates import DateMention, find_date_mentions, resolve_relative_date
    from emem.extract.entities import AliasResolver
    from emem.extract.llm_extractor import LLMExtractor
    from emem.extract.offline import OfflineExtractor

_LAZY = {
    "DateMention": "emem.extract.dates",
    "find_date_mentions": "emem.extract.dates",
    "resolve_relative_date": "emem.extract.dates",
    "AliasResolver": "emem.extract.entities",
    "LLMExtractor": "emem.extract.llm_extractor",
    "OfflineExtractor": "emem.extract.offline",
}

__all__ = [
    "AliasResolver",
    "DateMention",
    "FactCandidate",
    "LLMExtractor",
    "OfflineExtractor",
    "find_date_mentions",
    "resolve_relative_date",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'emem.extract' has no attribute {name!r}")
