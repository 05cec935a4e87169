"""How a `Memory` is set up, as data: where it lives, which embedder and LLM roles it uses, and how
the read path reads. Named recipes are ready-made configs (`default`, the E-mem paper's router,
context fill), so a setting is chosen by name instead of by a kwarg threaded through modules or a
constant edited in place. Defaults here are the one source of the values the library reads
(`DEFAULT_BUDGET`, `FAST_K`, `PATHWAY_WEIGHTS`, `GLOBAL_WEIGHTS`, `CANDIDATES` derive from them)."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from emem.errors import ConfigError
from emem.llm.config import LLMSettings

if TYPE_CHECKING:
    from emem.embedding import Embedder


class EmbedderConfig(BaseModel):
    """The embedding model: the bundled offline MiniLM (default) or an OpenAI-compatible
    `/embeddings` endpoint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["offline", "openai"] = "offline"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = Field(default=None, repr=False)

    @model_validator(mode="after")
    def _endpoint_is_complete(self) -> EmbedderConfig:
        if self.kind == "openai" and not (self.base_url and self.model):
            raise ValueError("an openai embedder needs base_url and model")
        return self

    def build(self) -> Embedder:
        """Create the embedder this config names.

        Returns:
            The offline MiniLM embedder `EMEM_EMBEDDER` selects, or an `OpenAIEmbedder`.
        """
        from emem.embedding import OpenAIEmbedder, offline_embedder

        if self.kind == "offline":
            return offline_embedder()
        assert self.base_url and self.model  # checked by the validator
        return OpenAIEmbedder(self.base_url, self.model, self.api_key)


class ReadConfig(BaseModel):
    """The read path's settings (see ARCHITECTURE.md, "read path")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: int = Field(default=2000, ge=50)
    """Tokens of packed context an answer may use when the caller gives no budget."""
    fast_k: int = Field(default=30, ge=1)
    """Turns fast mode retrieves (it asks hybrid search for three times as many, then filters)."""
    candidates: int = Field(default=50, ge=1)
    """Candidates each half of hybrid search (BM25, dense) contributes before fusion."""
    activate: int = Field(default=5, ge=1)
    """Segments deep mode activates per question."""
    router: Literal["emem", "paper"] = "emem"
    """'emem': three pathways (global, keyword, ledger) fused by weight; 'paper': the E-mem
    paper's published rule, kept for comparison on equal terms."""
    pathway_weights: dict[str, float] = Field(
        default_factory=lambda: {"global": 1.0, "keyword": 1.0, "ledger": 0.5}
    )
    """Weight of each routing pathway in the fusion (emem.retrieval.routing.fuse says why)."""
    global_weights: dict[str, float] = Field(
        default_factory=lambda: {"best_turn": 0.8, "summary": 0.1, "centroid": 0.1}
    )
    """Within the global pathway (emem.retrieval.routing.GLOBAL_WEIGHTS says how they were chosen)."""
    hop_turn_weight: float = Field(default=0.0, ge=0.0, le=1.0)
    """Deep mode's second hop: the share of the question's own calibrated turn scorer (each
    segment's best turn) in its segment ranking, against the pathways fused on the feedback
    query (emem.retrieval.second_hop). Off (0) by default: 0.5, chosen on LoCoMo conversations
    0-4, raised their 2+-session session recall but lowered it on 5-9 (docs/benchmarks.md,
    "Session 10: multi-session routing")."""
    late_hop_segments: int = Field(default=1, ge=0)
    """Deep mode's third hop (and any later one, `ReadRuntime.max_hops`): how many segments it
    activates for questions that do not gather members; LIST and COUNT questions keep
    `activate` (emem.agents.deep.hop_width says why). 0: those questions stop after two hops.
    1 was chosen on LoCoMo conversations 0-4 as the cheapest setting reaching 0.88
    evidence-session recall on their 2+-session questions (docs/benchmarks.md, "Session 11")."""
    fill_context: bool = False
    """Deep mode: fill the budget left with the activated segments' unquoted turns. Experimental."""
    currentness: bool = True
    """The ledger's part of the read path; off only to measure what it costs."""


class MemoryConfig(BaseModel):
    """Everything `Memory(config=...)` needs; every field has a working offline default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path | None = None
    """The directory holding every store; None: `EMEM_HOME`, else `~/.emem`."""
    embedder: EmbedderConfig = Field(default_factory=lambda: EmbedderConfig())
    roles: LLMSettings | None = None
    """Which model serves each LLM role; None: `<home>/llm.json` and `EMEM_LLM_*`, else offline."""
    consolidate_on_read: bool = True
    """Project new turns into the ledger before a ledger read (see `Memory.__init__`)."""
    forget_policy: Literal["withhold", "erase", "ignore"] | None = None
    """What forget requests said in conversation do; None: `EMEM_FORGET_POLICY`, else withhold."""
    read: ReadConfig = Field(default_factory=lambda: ReadConfig())


DEFAULT = MemoryConfig()
"""Offline embedder and roles, emem's three-pathway router, no context fill."""
PAPER_ROUTER = MemoryConfig(read=ReadConfig(router="paper"))
"""Deep mode routes with the E-mem paper's rule instead of emem's pathways (for comparison)."""
CONTEXT_FILL = MemoryConfig(read=ReadConfig(fill_context=True))
"""Deep mode fills the budget left after the evidence with unquoted turns (experimental)."""

RECIPES: MappingProxyType[str, MemoryConfig] = MappingProxyType(
    {"default": DEFAULT, "paper-router": PAPER_ROUTER, "context-fill": CONTEXT_FILL}
)


def recipe(name: str, **changes: object) -> MemoryConfig:
    """A named recipe, optionally with some top-level fields changed.

    Args:
        name: one of `RECIPES` ("default", "paper-router", "context-fill").
        **changes: fields of `MemoryConfig` to replace (e.g. `home=...`).

    Returns:
        The validated config.
    """
    if name not in RECIPES:
        raise ConfigError(f"unknown config recipe {name!r}; recipes are {', '.join(RECIPES)}")
    if not changes:
        return RECIPES[name]
    return MemoryConfig.model_validate({**RECIPES[name].model_dump(), **changes})


__all__ = [
    "CONTEXT_FILL",
    "DEFAULT",
    "PAPER_ROUTER",
    "RECIPES",
    "EmbedderConfig",
    "MemoryConfig",
    "ReadConfig",
    "recipe",
]
