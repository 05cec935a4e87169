"""`TurnFilter`: which turns a search or an ask may see. One model, one pure `matches`, used by
`Memory.search` (masking candidates before fusion) and by the read graph (fast retrieval, routing
masks and the assistants' segments), so a filtered question never sees another turn."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from pydantic.json_schema import WithJsonSchema

from emem.errors import InputError
from emem.models import METADATA_JSON_SCHEMA, MetaValue, Turn, check_metadata
from emem.timeparse import parse_iso_time

Names = Annotated[
    tuple[str, ...],
    WithJsonSchema(
        {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]}
    ),
]
"""One name or a non-empty list of names (the spec says so: a single string is accepted)."""


def _names(value: object) -> object:
    """One name or a list of names; both become a tuple."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple | set | frozenset):
        return tuple(value)
    return value


class TurnFilter(BaseModel):
    """Turns kept: every given condition holds (unset conditions keep everything).

    `conversation_id`, `session_id` and `speaker` take one value or a list (any of them);
    speakers compare case-insensitively. `since`/`until` bound the turn's valid time (inclusive).
    `metadata` keys must all be present with equal values. `since` after `until` is an empty range
    (nothing matches), not an error: JSON Schema cannot state the order, so the API accepts it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    conversation_id: Names | None = None
    session_id: Names | None = None
    speaker: Names | None = None
    since: datetime | None = None
    until: datetime | None = None
    metadata: Annotated[dict[str, MetaValue], WithJsonSchema(METADATA_JSON_SCHEMA)] | None = None

    @field_validator("conversation_id", "session_id", "speaker", mode="before")
    @classmethod
    def _listify(cls, v: object) -> object:
        v = _names(v)
        if isinstance(v, tuple) and not v:
            raise ValueError("an empty list matches nothing; leave the condition out instead")
        return v

    @field_validator("since", "until", mode="before")
    @classmethod
    def _time(cls, v: object) -> datetime | None:
        return None if v is None else parse_iso_time(v)

    @field_validator("metadata", mode="before")
    @classmethod
    def _meta(cls, v: object) -> object:
        return check_metadata(v)

    def is_empty(self) -> bool:
        return not any(getattr(self, f) is not None for f in type(self).model_fields)

    def matches(self, turn: Turn) -> bool:
        """Whether `turn` passes every condition (pure)."""
        if self.conversation_id is not None and turn.conversation_id not in self.conversation_id:
            return False
        if self.session_id is not None and turn.session_id not in self.session_id:
            return False
        if self.speaker is not None and turn.speaker.casefold() not in {s.casefold() for s in self.speaker}:
            return False
        if self.since is not None and turn.time < self.since:
            return False
        if self.until is not None and turn.time > self.until:
            return False
        if self.metadata:
            have = turn.metadata or {}
            for key, want in self.metadata.items():
                if key not in have or not _same(have[key], want):
                    return False
        return True

    def mask(self, turns: list[Any]) -> np.ndarray:
        """Boolean mask over `turns` (the read path's per-turn masks)."""
        return np.array([self.matches(t) for t in turns], dtype=bool)


def _same(a: MetaValue, b: MetaValue) -> bool:
    """JSON equality: True is not 1, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def as_filter(value: TurnFilter | Mapping[str, Any] | None, where: str = "filter") -> TurnFilter | None:
    """A `TurnFilter` from a filter or a dict; None (or an empty filter) means no filter.

    Raises:
        InputError: naming every bad condition at once.
    """
    if value is None:
        return None
    if isinstance(value, TurnFilter):
        flt = value
    elif isinstance(value, Mapping):
        try:
            flt = TurnFilter.model_validate(dict(value))
        except ValidationError as exc:
            problems = [f"{'.'.join(str(p) for p in e['loc']) or 'filter'}: {e['msg']}" for e in exc.errors()]
            raise InputError("; ".join(problems), where) from None
        except InputError as exc:
            raise InputError(str(exc), where) from None
    else:
        raise InputError(f"expected a TurnFilter or an object, got {type(value).__name__}", where)
    return None if flt.is_empty() else flt


def facts_within(
    facts: list[Any], by_ref: Mapping[tuple[str, str], Turn], flt: TurnFilter | None
) -> list[Any]:
    """Fact items (emem.answer.FactItem) with at least one source turn the filter keeps: under a
    filter, a fact stated only elsewhere (or asserted with no source) is not evidence."""
    if flt is None:
        return list(facts)

    def kept(item: Any) -> bool:
        for rev in [*item.revisions, *item.history]:
            for ref in rev.get("sources", []):
                conv, _, tid = str(ref).partition("/")
                turn = by_ref.get((conv, tid))
                if turn is not None and flt.matches(turn):
                    return True
        return False

    return [f for f in facts if kept(f)]
