"""The read path's boundary models: the plan, evidence, provenance closures and the Answer."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from emem.llm.usage import Usage


class Operation(StrEnum):
    FACT = "FACT"
    COUNT = "COUNT"
    LIST = "LIST"
    TEMPORAL_LOOKUP = "TEMPORAL_LOOKUP"
    TEMPORAL_ARITHMETIC = "TEMPORAL_ARITHMETIC"


Mode = Literal["fast", "deep", "auto"]
Status = Literal["answered", "abstained", "conflict", "error"]
Pathway = Literal["global", "keyword", "ledger"]

ABSTAIN = "No information available"


class Plan(BaseModel):
    operation: Operation = Operation.FACT
    entities: list[str] = Field(default_factory=list)
    predicates: list[str] = Field(default_factory=list)
    """Ledger predicates the question is about (lives_in, has_pet, ...)."""
    time_from: datetime | None = None
    time_to: datetime | None = None
    needs_current: bool = False
    """The question asks what holds now (or at `as_of`): said outright ("now", "currently") or
    asked in the present tense without a date. The ledger then decides which value is current."""
    asks_previous: bool = False
    """The question asks for an earlier value ("before", "used to", "previously")."""
    prefers_latest: bool = False
    """Not asked in the past tense: of comparably supported statements, the latest one is likelier
    to hold (a correction, a changed plan)."""
    keywords: list[str] = Field(default_factory=list)
    mode: Literal["fast", "deep"] = "deep"
    reason: str = ""
    source: str = "offline"
    """'offline' (rules) or the model that planned."""


class EvidenceItem(BaseModel):
    turn_id: str
    session_id: str
    conversation_id: str
    speaker: str
    time: datetime
    text: str
    """Verbatim: exactly the stored turn text (an image shows as its caption). One exception:
    when a forget request covers some of a turn's sentences on their own, `ask` shows only the
    sentences it does not cover (emem.agents.withheld.rest_of_turn), never the covered ones."""
    image_caption: str | None = None
    quote: str | None = None
    """The span an assistant quoted; always a substring of `text`."""
    score: float = 0.0
    segment_id: str | None = None
    role: str = "evidence"
    """evidence | current-value | superseded-value | endpoint | member | context (an unquoted turn
    of an activated segment, packed by the experimental context fill)."""


class FactItem(BaseModel):
    subject: str
    predicate: str
    status: Literal["state", "miss", "conflict"]
    values: list[str]
    revisions: list[dict[str, Any]] = Field(default_factory=list)
    history: list[dict[str, Any]] = Field(default_factory=list)
    """Superseded or revoked revisions: shown as history, never as the answer."""


class ActivatedSegment(BaseModel):
    segment_id: str
    session_id: str
    conversation_id: str
    start: datetime
    score: float
    pathways: list[Pathway]
    reasons: list[str] = Field(default_factory=list)
    assistant_note: str = ""
    relevant: bool | None = None


class Closure(BaseModel):
    """One evidence unit with everything that must travel with it: source turns, revision links
    that make it current or stale, or the other members of an operation's set."""

    key: str
    group: str
    """Units of one group go into the context together or not at all."""
    priority: float
    lines: list[str]
    tokens: int
    evidence: list[EvidenceItem] = Field(default_factory=list)
    header: str | None = None
    """A line said once for every closure that shares it (a session and its date), above them:
    the turns of one session need not each repeat it. Not counted in `tokens`."""
    header_tokens: int = 0
    """What `header` costs; the packer charges it once per distinct header."""


class PackResult(BaseModel):
    closures: list[Closure]
    tokens: int
    budget: int
    dropped_groups: list[str] = Field(default_factory=list)

    def lines(self) -> list[str]:
        """The context's records in order: each closure's lines, and the closures sharing a
        header gathered under it where the first of them stands (so one header per session)."""
        out: list[str] = []
        done: set[str] = set()
        for c in self.closures:
            if c.header is None:
                out += c.lines
            elif c.header not in done:
                done.add(c.header)
                out.append(c.header)
                out += [line for d in self.closures if d.header == c.header for line in d.lines]
        return out

    def context(self) -> str:
        return "\n".join(self.lines())


class Answer(BaseModel):
    question: str
    namespace: str
    answer: str
    status: Status
    operation: Operation | None = None
    mode_used: Literal["fast", "deep"]
    mode_requested: Mode = "auto"
    mode_reason: str = ""
    evidence: list[EvidenceItem] = Field(default_factory=list)
    facts: list[FactItem] = Field(default_factory=list)
    activated_segments: list[ActivatedSegment] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    stage_latency_ms: dict[str, float] = Field(default_factory=dict)
    context: str = ""
    """The packed context the reader saw."""
    budget: int = 0
    as_of: datetime | None = None
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    offline: bool = True
    """True when the answer came from emem's deterministic stand-ins, not an LLM."""
    error: str | None = None
    withheld_by: str | None = None
    """The ledger revision of the forget request this question ran into: the answer says the user
    asked to forget it and gives no value (see emem.ledger.withhold)."""
    overruled: str | None = None
    """The reader's own answer when it gave a value the ledger holds as superseded at the
    question's time; `answer` then carries the ledger's value (emem.agents.currentness.overruled)."""
