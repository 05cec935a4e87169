"""The operations emem serves (remember, search, ask, facts, history, forget): one pydantic
request and response per operation and one function each, shared by the MCP server and the HTTP
API so both validate, scope and answer identically. Every request names its namespace."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from emem.answer import EvidenceItem, FactItem
from emem.erasure import ErasureReport
from emem.errors import InputError
from emem.ledger.models import History
from emem.models import MAX_TURN_CHARS, Hit, IngestReport, MetaValue
from emem.retrieval.filters import TurnFilter

MAX_MESSAGES = 1000
MAX_QUERY_CHARS = 4000
Namespace = Field(min_length=1, max_length=128, description="The memory (tenant) to use.")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageIn(Strict):
    role: Literal["user", "assistant", "human", "ai", "system", "tool"]
    content: str = Field(max_length=MAX_TURN_CHARS)
    name: str | None = Field(
        default=None, max_length=256, description="Speaker name (default: user / assistant)."
    )
    id: str | None = Field(
        default=None, max_length=256, description="Message id; a re-sent id is stored once."
    )
    time: datetime | None = Field(default=None, description="When it was said (default: now).")
    metadata: dict[str, MetaValue] | None = None


class RememberRequest(Strict):
    namespace: str = Namespace
    messages: list[MessageIn] | None = Field(default=None, max_length=MAX_MESSAGES)
    text: str | None = Field(default=None, max_length=MAX_TURN_CHARS, description="A single note to store.")
    conversation_id: str = Field(default="default", min_length=1, max_length=256)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    user_name: str | None = Field(default=None, min_length=1, max_length=256)
    agent_name: str | None = Field(default=None, min_length=1, max_length=256)
    metadata: dict[str, MetaValue] | None = None

    @model_validator(mode="after")
    def _one(self) -> RememberRequest:
        if (self.messages is None) == (self.text is None):
            raise ValueError("give either messages or text")
        return self


class SearchRequest(Strict):
    namespace: str = Namespace
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(default=10, ge=1, le=100)
    filter: TurnFilter | None = None


class SearchResponse(BaseModel):
    hits: list[Hit]


class AskRequest(Strict):
    namespace: str = Namespace
    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    mode: Literal["fast", "deep", "auto"] = "auto"
    as_of: datetime | None = None
    budget: int | None = Field(default=None, ge=50, le=100_000)
    filter: TurnFilter | None = None


class AskResponse(BaseModel):
    answer: str
    status: str
    mode_used: str
    evidence: list[EvidenceItem]
    facts: list[FactItem]
    error: str | None = None


class FactsRequest(Strict):
    namespace: str = Namespace
    subject: str | None = Field(default=None, min_length=1, max_length=256)
    predicate: str | None = Field(default=None, min_length=1, max_length=256)
    as_of: datetime | None = None


class FactOut(BaseModel):
    subject: str
    predicate: str
    status: str
    values: list[str]
    sources: list[str]


class FactsResponse(BaseModel):
    facts: list[FactOut]


class HistoryRequest(Strict):
    namespace: str = Namespace
    subject: str = Field(min_length=1, max_length=256)
    predicate: str | None = Field(default=None, min_length=1, max_length=256)


class ForgetRequest(Strict):
    namespace: str = Namespace
    turn_ids: list[str] | None = Field(default=None, max_length=10_000)
    conversation_id: str | None = Field(default=None, min_length=1, max_length=256)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    subject: str | None = Field(default=None, min_length=1, max_length=256)
    reason: str | None = Field(default=None, max_length=1000)


def remember(memory: Any, req: RememberRequest) -> IngestReport:
    """Store messages (or one note, spoken by the agent) as turns."""
    if req.text is not None:
        messages: list[dict[str, Any]] = [{"role": "assistant", "content": req.text}]
    else:
        messages = [m.model_dump(exclude_none=True) for m in req.messages or []]
    return memory.add_messages(
        messages,
        req.namespace,
        conversation_id=req.conversation_id,
        session_id=req.session_id,
        user_name=req.user_name,
        agent_name=req.agent_name,
        metadata=req.metadata,
    )


def search(memory: Any, req: SearchRequest) -> SearchResponse:
    return SearchResponse(hits=memory.search(req.query, req.namespace, req.k, filter=req.filter))


def ask(memory: Any, req: AskRequest) -> AskResponse:
    a = memory.ask(
        req.question, req.namespace, mode=req.mode, as_of=req.as_of, budget=req.budget, filter=req.filter
    )
    return AskResponse(
        answer=a.answer,
        status=a.status,
        mode_used=a.mode_used,
        evidence=a.evidence,
        facts=a.facts,
        error=a.error,
    )


def facts(memory: Any, req: FactsRequest) -> FactsResponse:
    found = memory.facts(
        req.namespace, subject=req.subject, predicate=req.predicate, valid_at=req.as_of, known_at=req.as_of
    )
    return FactsResponse(
        facts=[
            FactOut(
                subject=r.subject,
                predicate=r.predicate,
                status=r.status,
                values=r.values,
                sources=sorted({s for rev in r.revisions for s in rev.sources}),
            )
            for r in found
        ]
    )


def history(memory: Any, req: HistoryRequest) -> History:
    return memory.history(req.namespace, req.subject, predicate=req.predicate)


def forget(memory: Any, req: ForgetRequest) -> ErasureReport:
    if not (req.turn_ids or req.conversation_id or req.session_id or req.subject):
        raise InputError("name what to forget: turn_ids, conversation_id, session_id or subject", "forget")
    return memory.forget(
        req.namespace,
        req.turn_ids,
        req.session_id,
        req.subject,
        conversation_id=req.conversation_id,
        reason=req.reason,
    )


OPERATIONS = {
    "remember": (remember, RememberRequest),
    "search": (search, SearchRequest),
    "ask": (ask, AskRequest),
    "facts": (facts, FactsRequest),
    "history": (history, HistoryRequest),
    "forget": (forget, ForgetRequest),
}
"""name -> (function, request model): what both servers expose."""
