"""Parse the official LongMemEval JSON (README §2) into typed records.

The data is not shipped (it lives on Hugging Face); a user passes the path to
`longmemeval_oracle.json` or `longmemeval_s_cleaned.json`. Only parsing lives here: the format was
described from the official code, not checked against the data, so violations fail loudly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from emem.errors import InputError

from .locomo_data import read_json_list

QUESTION_TYPES: tuple[str, ...] = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)


class LmeTurn(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    has_answer: bool = False
    """Marks evidence turns (turn-level recall)."""


class LmeInstance(BaseModel):
    question_id: str
    question_type: str
    question: str
    answer: str
    """A rubric for preference questions; an explanation for abstention questions."""
    question_date: str
    """As released, e.g. "2023/05/30 (Tue) 23:40"."""
    haystack_session_ids: list[str]
    haystack_dates: list[str]
    haystack_sessions: list[list[LmeTurn]]
    answer_session_ids: list[str] = Field(default_factory=list)

    @field_validator("answer", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        return str(value) if isinstance(value, int | float) else json.dumps(value)

    @model_validator(mode="after")
    def _aligned(self) -> LmeInstance:
        n = len(self.haystack_session_ids)
        if len(self.haystack_dates) != n or len(self.haystack_sessions) != n:
            raise ValueError(
                f"haystack ids/dates/sessions differ in length: {n}, {len(self.haystack_dates)}, "
                f"{len(self.haystack_sessions)}"
            )
        return self

    @property
    def is_abstention(self) -> bool:
        """`_abs` questions are judged on abstaining, whatever their type."""
        return self.question_id.endswith("_abs")

    def evidence_turn_ids(self) -> list[str]:
        """Ids "<session_id>:<turn index>" of turns flagged has_answer, for turn-level recall."""
        return [
            f"{sid}:{i}"
            for sid, turns in zip(self.haystack_session_ids, self.haystack_sessions, strict=True)
            for i, turn in enumerate(turns)
            if turn.has_answer
        ]


def load_longmemeval(path: str | Path) -> list[LmeInstance]:
    """Parse a LongMemEval file (a JSON list of instances)."""
    path = Path(path)
    data = read_json_list(path, "LongMemEval", "instances")
    out = []
    for i, raw in enumerate(data):
        where = f"{path}[{i}]"
        try:
            out.append(LmeInstance.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            qid = raw.get("question_id", "") if isinstance(raw, dict) else ""
            raise InputError(f"{first['msg']} at {loc}", f"{where} {qid}".strip()) from None
    return out


def iter_instances(
    instances: Sequence[LmeInstance],
    question_types: Iterable[str] | None = None,
    limit: int | None = None,
) -> Iterator[LmeInstance]:
    """Instances in file order, optionally filtered by type and capped at `limit`."""
    wanted = None if question_types is None else set(question_types)
    if wanted is not None and not wanted <= set(QUESTION_TYPES):
        raise InputError(f"unknown question type(s) {sorted(wanted - set(QUESTION_TYPES))}", "types")
    emitted = 0
    for inst in instances:
        if wanted is not None and inst.question_type not in wanted:
            continue
        if limit is not None and emitted >= limit:
            return
        emitted += 1
        yield inst
