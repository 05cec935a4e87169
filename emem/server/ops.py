"""The operations emem serves (remember, search, ask, facts, history, forget): one pydantic
request and response per operation and one function each, shared by the MCP server and the HTTP
API so both validate, scope and answer identically. Every request names its namespace."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema, WithJsonSchema

from emem.answer import EvidenceItem, FactItem
from emem.erasure import ErasureReport
from emem.errors import InputError, NotFoundError
from emem.ledger.models import History
from emem.ledger.predicates import PREDICATES
from emem.models import MAX_TURN_CHARS, METADATA_JSON_SCHEMA, Hit, IngestReport, MetaValue
from emem.retrieval.filters import TurnFilter

MAX_MESSAGES = 1000
MAX_QUERY_CHARS = 4000
# The spec states what the code enforces, so a schema-valid request is never refused as bad input.
END = r"(?![\s\S])"
"""End of string in both ECMA and Python regexes (Python's `$` also matches before a final newline)."""
NAMESPACE_PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9._:@/-]{{0,127}}{END}"
# Lengths live in the patterns: generators mishandle a pattern combined with maxLength.
NAME_PATTERN = rf"^(?=[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f])[^\x00-\x1f\x7f]{{1,256}}{END}"
"""Ids and names: 1-256 characters, no control character, not blank."""


def text_pattern(max_chars: int) -> str:
    """Texts: 1-max_chars characters, not blank, no NUL."""
    return rf"^(?=[^\x00]*\S)[^\x00]{{1,{max_chars}}}{END}"


MetaJson = Annotated[dict[str, MetaValue], WithJsonSchema(METADATA_JSON_SCHEMA)]


def _known_predicate(value: str) -> str:
    if value not in PREDICATES:
        raise ValueError(f"unknown predicate {value!r}; known: {', '.join(sorted(PREDICATES))}")
    return value


Predicate = Annotated[
    str, AfterValidator(_known_predicate), WithJsonSchema({"type": "string", "enum": sorted(PREDICATES)})
]
"""The ledger's closed predicate registry, by exact name."""
Namespace = Field(pattern=NAMESPACE_PATTERN, description="The memory (tenant) to use.")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", regex_engine="python-re")  # the patterns use lookahead


class MessageIn(Strict):
    role: Literal["user", "assistant", "human", "ai", "system", "tool"]
    content: str = Field(pattern=text_pattern(MAX_TURN_CHARS))
    name: str | None = Field(
        default=None, pattern=NAME_PATTERN, description="Speaker name (default: user / assistant)."
    )
    id: str | None = Field(
        default=None, pattern=NAME_PATTERN, description="Message id; a re-sent id is stored once."
    )
    time: datetime | None = Field(default=None, description="When it was said (default: now).")
    metadata: MetaJson | None = None


class RememberRequest(Strict):
    namespace: str = Namespace
    messages: (
        Annotated[list[MessageIn], Field(min_length=1, max_length=MAX_MESSAGES)] | SkipJsonSchema[None]
    ) = None
    text: Annotated[str, Field(pattern=text_pattern(MAX_TURN_CHARS))] | SkipJsonSchema[None] = Field(
        default=None, description="A single note to store."
    )
    conversation_id: str = Field(default="default", pattern=NAME_PATTERN)
    session_id: str | None = Field(default=None, pattern=NAME_PATTERN)
    user_name: str | None = Field(default=None, pattern=NAME_PATTERN)
    agent_name: str | None = Field(default=None, pattern=NAME_PATTERN)
    metadata: MetaJson | None = None

    model_config = ConfigDict(
        extra="forbid",
        regex_engine="python-re",
        json_schema_extra={"oneOf": [{"required": ["messages"]}, {"required": ["text"]}]},
    )

    @model_validator(mode="before")
    @classmethod
    def _one(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("messages" in data) == ("text" in data):
            raise ValueError("give either messages or text")
        return data


class SearchRequest(Strict):
    namespace: str = Namespace
    query: str = Field(pattern=text_pattern(MAX_QUERY_CHARS))
    k: int = Field(default=10, ge=1, le=100)
    filter: TurnFilter | None = None


class SearchResponse(BaseModel):
    hits: list[Hit]


class AskRequest(Strict):
    namespace: str = Namespace
    question: str = Field(pattern=text_pattern(MAX_QUERY_CHARS))
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
    subject: str | None = Field(default=None, pattern=NAME_PATTERN)
    predicate: Predicate | None = None
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
    subject: str = Field(pattern=NAME_PATTERN)
    predicate: Predicate | None = None


def _present(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": [name], "properties": {name: schema}}


class ForgetRequest(Strict):
    model_config = ConfigDict(
        extra="forbid",
        regex_engine="python-re",
        json_schema_extra={
            "anyOf": [
                _present("turn_ids", {"type": "array", "minItems": 1}),
                _present("conversation_id", {"type": "string"}),
                _present("session_id", {"type": "string"}),
                _present("subject", {"type": "string"}),
            ]
        },
    )

    namespace: str = Namespace
    turn_ids: list[Annotated[str, Field(pattern=NAME_PATTERN)]] | None = Field(
        default=None, max_length=10_000
    )
    conversation_id: str | None = Field(default=None, pattern=NAME_PATTERN)
    session_id: str | None = Field(default=None, pattern=NAME_PATTERN)
    subject: str | None = Field(default=None, pattern=NAME_PATTERN)
    reason: str | None = Field(default=None, pattern=text_pattern(1000))


def remember(memory: Any, req: RememberRequest) -> IngestReport:
    """Store messages (or one note, spoken by the agent) as turns."""
    if req.text is not None:
        messages: list[dict[str, Any]] = [{"role": "assistant", "content": req.text}]
    else:
        messages = [m.model_dump(exclude_none=True) for m in req.messages or []]
    return memory.add_messages(
        messages,
        namespace=req.namespace,
        conversation_id=req.conversation_id,
        session_id=req.session_id,
        user_name=req.user_name,
        agent_name=req.agent_name,
        metadata=req.metadata,
    )


def existing(memory: Any, namespace: str) -> str:
    """Reads name a namespace that exists: a typo is an error, not an empty answer."""
    if not memory.namespace_exists(namespace):
        raise NotFoundError(f"namespace {namespace!r} does not exist")
    return namespace


def search(memory: Any, req: SearchRequest) -> SearchResponse:
    existing(memory, req.namespace)
    return SearchResponse(hits=memory.search(req.query, req.k, namespace=req.namespace, filter=req.filter))


def ask(memory: Any, req: AskRequest) -> AskResponse:
    existing(memory, req.namespace)
    a = memory.ask(
        req.question,
        namespace=req.namespace,
        mode=req.mode,
        as_of=req.as_of,
        budget=req.budget,
        filter=req.filter,
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
    existing(memory, req.namespace)
    found = memory.facts(
        namespace=req.namespace,
        subject=req.subject,
        predicate=req.predicate,
        valid_at=req.as_of,
        known_at=req.as_of,
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
    existing(memory, req.namespace)
    return memory.history(req.subject, namespace=req.namespace, predicate=req.predicate)


def forget(memory: Any, req: ForgetRequest) -> ErasureReport:
    if not (req.turn_ids or req.conversation_id or req.session_id or req.subject):
        raise InputError("name what to forget: turn_ids, conversation_id, session_id or subject", "forget")
    existing(memory, req.namespace)
    return memory.forget(
        req.turn_ids,
        req.session_id,
        req.subject,
        namespace=req.namespace,
        conversation_id=req.conversation_id,
        reason=req.reason,
    )


OPERATIONS: dict[str, tuple[Callable[..., Any], type[Strict]]] = {
    "remember": (remember, RememberRequest),
    "search": (search, SearchRequest),
    "ask": (ask, AskRequest),
    "facts": (facts, FactsRequest),
    "history": (history, HistoryRequest),
    "forget": (forget, ForgetRequest),
}
"""name -> (function, request model): what both servers expose."""
