"""Episode-layer data model: the pydantic shapes at emem's boundaries.

Valid time of a turn is when it was said; recorded time is when emem stored it. Both are kept
so that later layers (the ledger) can answer "as known at" questions.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from emem.segment_state import SegmentStateStats

MAX_TURN_CHARS = 100_000
"""A turn longer than this is refused: it is almost certainly a pasted document, not an utterance."""

_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}\Z")  # \Z: "$" would accept a trailing newline


def check_namespace(namespace: object) -> str:
    """Namespaces scope every read and write; an empty or odd one is a caller bug, so refuse it."""
    from emem.errors import InputError

    if not isinstance(namespace, str) or not _NAMESPACE.match(namespace):
        raise InputError(
            f"invalid namespace {namespace!r}: use 1-128 characters from letters, digits and ._:@/-",
            "namespace",
        )
    return namespace


MetaValue = str | int | float | bool | None
"""Metadata values are JSON scalars: equality filters on them mean one thing everywhere."""
MAX_METADATA_KEYS = 32
MAX_METADATA_KEY_CHARS = 64


METADATA_JSON_SCHEMA = {
    "type": "object",
    "maxProperties": MAX_METADATA_KEYS,
    "propertyNames": {
        "minLength": 1,
        "maxLength": MAX_METADATA_KEY_CHARS,
        "pattern": "^[^\\x00-\\x1f\\x7f]+$",
    },
    "additionalProperties": {
        "anyOf": [
            {"type": "string", "maxLength": MAX_TURN_CHARS, "pattern": "^[^\\x00]*$"},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
        ]
    },
}
"""What `check_metadata` accepts, as JSON Schema (for the HTTP API's spec)."""


def check_metadata(value: object) -> dict[str, MetaValue] | None:
    """Validate a turn's metadata: a flat object of JSON scalars (raises ValueError naming the key)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"metadata must be an object, got {type(value).__name__}")
    if len(value) > MAX_METADATA_KEYS:
        raise ValueError(f"metadata has {len(value)} keys; at most {MAX_METADATA_KEYS}")
    for k, v in value.items():
        if not isinstance(k, str) or not k or len(k) > MAX_METADATA_KEY_CHARS:
            raise ValueError(f"metadata key {k!r} must be a string of 1-{MAX_METADATA_KEY_CHARS} characters")
        if any(ord(c) < 32 or ord(c) == 127 for c in k):
            raise ValueError(f"metadata key {k!r} contains a control character")
        if v is not None and not isinstance(v, str | int | float | bool):
            raise ValueError(
                f"metadata {k!r} must be a string, number, boolean or null, got {type(v).__name__}"
            )
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"metadata {k!r} must be a finite number")
        if isinstance(v, str) and (len(v) > MAX_TURN_CHARS or "\x00" in v):
            raise ValueError(f"metadata {k!r} is longer than {MAX_TURN_CHARS} characters or holds a NUL")
    return dict(value)


class Turn(BaseModel):
    """One utterance, kept verbatim. `turn_id` is stable within its conversation (e.g. "D3:7")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    conversation_id: str = Field(min_length=1, max_length=256)
    session_id: str = Field(min_length=1, max_length=256)
    turn_id: str = Field(min_length=1, max_length=256)
    speaker: str = Field(min_length=1, max_length=256)
    text: str = Field(max_length=MAX_TURN_CHARS)
    image_caption: str | None = Field(default=None, max_length=MAX_TURN_CHARS)
    time: datetime
    """Valid time: when the turn was said."""
    metadata: dict[str, MetaValue] | None = None
    """Caller's tags (e.g. {"channel": "slack"}): stored with the turn, returned in hits, filterable."""

    @field_validator("metadata", mode="before")
    @classmethod
    def _check_metadata(cls, v: object) -> dict[str, MetaValue] | None:
        return check_metadata(v) or None

    @field_validator("time")
    @classmethod
    def _aware(cls, v: datetime) -> datetime:
        if v.tzinfo is None:
            raise ValueError("time must be timezone-aware")
        return v

    @field_validator("conversation_id", "session_id", "turn_id", "speaker")
    @classmethod
    def _clean_name(cls, v: str) -> str:
        """Ids and names end up in file names, logs and prompts: no control characters."""
        from emem.validation import text_problem

        if any(ord(c) < 32 or ord(c) == 127 for c in v):
            raise ValueError("contains a control character")
        problem = text_problem(v, max_chars=256)
        if problem:
            raise ValueError(problem)
        return v

    @field_validator("text", "image_caption")
    @classmethod
    def _clean_text(cls, v: str | None) -> str | None:
        """One rule with every other entry point (emem.validation): no NUL, no lone surrogate, and
        not blank once zero-width characters are removed."""
        from emem.validation import text_problem

        if v is None:
            return v
        problem = text_problem(v, max_chars=MAX_TURN_CHARS)
        if problem:
            raise ValueError(problem)
        return v

    def content_hash(self) -> str:
        """Stable hash of everything that makes the turn what it is (not when it was stored)."""
        fields: list[object] = [
            self.conversation_id,
            self.session_id,
            self.turn_id,
            self.speaker,
            self.text,
            self.image_caption,
            self.time.isoformat(),
        ]
        if self.metadata:  # only when present, so turns stored before metadata keep their hash
            fields.append(dict(sorted(self.metadata.items())))
        payload = json.dumps(
            fields,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def render(self) -> str:
        """Text as readers see it; an image is described by its caption, as LoCoMo does."""
        return f"{self.text} [shares {self.image_caption}]" if self.image_caption else self.text


class StoredTurn(Turn):
    """A turn as the episode store holds it."""

    namespace: str
    seq: int
    """Position in the namespace-independent event log; indexes record the seq they cover."""
    recorded_at: datetime
    hash: str


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(min_length=1, max_length=256)
    time: datetime
    turns: list[Turn]


class Conversation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    conversation_id: str = Field(min_length=1, max_length=256)
    sessions: list[Session]

    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]


class Hit(BaseModel):
    """A ranked search result."""

    turn_id: str
    session_id: str
    conversation_id: str
    speaker: str
    time: datetime
    text: str
    image_caption: str | None = None
    score: float
    metadata: dict[str, MetaValue] | None = None


class IngestReport(BaseModel):
    namespace: str
    added: int
    unchanged: int
    """Turns already stored with identical content (idempotent re-send)."""
    first_seq: int | None = None
    last_seq: int | None = None
    skipped: int = 0
    """Messages left out by `add_messages` (system, tool and tool-call-only messages)."""


class Stats(BaseModel):
    namespace: str
    conversations: int
    sessions: int
    turns: int
    last_seq: int
    index_coverage: dict[str, int]
    """Per derived index, the highest event seq it covers for this namespace."""
    facts: int = 0
    segment_states: SegmentStateStats | None = None
    """Saved model states of segment prefixes in the home (local assistants only; None: none
    were ever built). Counts the home's states and this namespace's share."""
