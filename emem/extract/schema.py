"""What an extractor (offline rules or an LLM) proposes from episodes. Candidates are not truth:
consolidation writes them to the ledger, whose resolver decides what is current."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class FactCandidate(BaseModel):
    subject: str
    """A person, by the name they go by in the conversation (the speaker for first person)."""
    predicate: str
    """One of the ledger's predicates (emem.ledger.predicates), or an open snake_case predicate
    proposed with its `cardinality`."""
    object: str
    """The value, short (e.g. "Austin", "a dog named Max")."""
    surface: str
    """The verbatim span of the turn the fact was read from."""
    valid_from: datetime | None = None
    """When it became true; None means "from the turn's time"."""
    valid_to: datetime | None = None
    source_turn_ids: list[str] = Field(default_factory=list)
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    kind: Literal["assert", "retract", "end"] = "assert"
    """'retract' withdraws an earlier fact with the same subject/predicate (and object, if given):
    it was never so. 'end' says it stopped holding at `valid_to` (default: the turn's time), as in
    "I quit Acme last Friday": what held before stays true for the past."""
    cardinality: Literal["single", "multi"] | None = None
    """Declares an open predicate on first use; None for built-in or already declared ones."""
