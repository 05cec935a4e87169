"""The suite's data: conversations (emem's conversation JSON, plus turns appended later) and the
cases asked of them, read from the package's JSON files and checked at load time."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from emem.eval.reliability.scorer import Expectation

Dimension = Literal[
    "hallucination_trap",
    "stale_value",
    "entity_confusion",
    "forget_request",
    "as_of",
    "count_at_time",
    "revoked_plan",
    "correction",
]
DIMENSIONS: tuple[str, ...] = Dimension.__args__  # type: ignore[attr-defined]
Split = Literal[
    "dev",
    "test",
    "holdout",
    "holdout2",
    "holdout3",
    "holdout4",
    "holdout5",
    "holdout6",
    "holdout7",
    "holdout8",
    "holdout9",
    "holdout10",
    "holdout11",
    "holdout12",
    "holdout13",
    "holdout14",
    "holdout15",
    "holdout16",
    "holdout17",
    "holdout18",
    "holdout19",
]
SPLITS: tuple[str, ...] = Split.__args__  # type: ignore[attr-defined]
HELD_OUT: tuple[str, ...] = tuple(s for s in SPLITS if s != "dev")
"""Splits nobody tunes on: reports give their figures and failing ids, not the failing answers."""
FRESH_ORDER: dict[str, int] = {
    "holdout": 1,
    "holdout2": 2,
    "holdout3": 3,
    "holdout4": 4,
    "holdout5": 5,
    "holdout6": 6,
    "holdout7": 7,
    "holdout8": 8,
    "holdout9": 9,
    "holdout10": 10,
    "holdout11": 11,
    "holdout12": 12,
    "holdout13": 13,
    "holdout14": 14,
    "holdout15": 15,
    "holdout16": 16,
    "holdout17": 17,
    "holdout18": 18,
    "holdout19": 19,
}
"""Splits added after the first two sort after them, oldest first, so adding a split never reorders
the cases that were there before it (samples over every split stay comparable across sessions)."""


class ConversationSpec(BaseModel):
    """One conversation: `style` says who talks (`agent`: a user and an assistant; `friends`: two
    named people). `conversation` is ingested with add_conversation; `append_turns` (JSONL-style
    turn events) arrive afterwards through add_turns, as an agent's later sessions do."""

    model_config = ConfigDict(extra="forbid")

    id: str
    style: Literal["agent", "friends"]
    split: Split
    conversation: dict[str, Any]
    append_turns: list[dict[str, Any]] = Field(default_factory=list)


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    dimension: Dimension
    split: Split
    conversation: str
    question: str
    as_of: datetime | None = None
    status: Literal["answered", "abstained", "conflict"]
    expect: list[str] = Field(default_factory=list)
    forbid: list[str] = Field(default_factory=list)
    mention: list[str] = Field(default_factory=list)
    note: str = ""
    """Why the expectation is what it is (e.g. the date rule behind a derived value)."""

    @field_validator("question")
    @classmethod
    def _question_nonempty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question is empty")
        return value

    @model_validator(mode="after")
    def _answerable(self) -> Case:
        if self.status == "answered" and not self.expect:
            raise ValueError(f"case {self.id}: an answered case needs expected values")
        if self.dimension == "forget_request" and self.status == "abstained" and not self.mention:
            raise ValueError(f"case {self.id}: a forget case must require the answer to mention the request")
        return self

    def expectation(self) -> Expectation:
        return Expectation(self.status, tuple(self.expect), tuple(self.forbid), tuple(self.mention))


class Suite(BaseModel):
    conversations: dict[str, ConversationSpec]
    cases: list[Case]

    def select(self, split: str = "all", ids: Iterable[str] | None = None) -> list[Case]:
        """Cases of a split (`dev`, `test`, `holdout`, `holdout2`...`holdout19` or `all`),
        optionally only the given ids, in file order."""
        wanted = set(ids) if ids is not None else None
        return [
            c
            for c in self.cases
            if (split == "all" or c.split == split) and (wanted is None or c.id in wanted)
        ]


def _data_dir() -> Path:
    return Path(str(resources.files("emem.eval.reliability")))


def load_suite(root: Path | None = None) -> Suite:
    """Read every conversations/*.json and cases/*.json under `root` (the package by default).

    Args:
        root: a directory holding `conversations/` and `cases/`.

    Returns:
        The suite, cases in file order with the later splits last (holdout, holdout2, holdout3,
        holdout4, holdout5, holdout6, holdout7, holdout8, holdout9, holdout10, holdout11, holdout12,
        holdout13, holdout14, holdout15, holdout16, holdout17, holdout18, then holdout19).
        Raises ValueError on a duplicate id, an unknown conversation, or a case whose split differs from its
        conversation's (held-out cases never share a conversation with dev).
    """
    root = root or _data_dir()
    conversations: dict[str, ConversationSpec] = {}
    for path in sorted((root / "conversations").glob("*.json")):
        items = json.loads(path.read_text(encoding="utf-8"))
        for item in items if isinstance(items, list) else [items]:
            spec = ConversationSpec.model_validate(item)
            if spec.id in conversations:
                raise ValueError(f"duplicate conversation id {spec.id!r} in {path.name}")
            conversations[spec.id] = spec
    cases: list[Case] = []
    seen: set[str] = set()
    for path in sorted((root / "cases").glob("*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            case = Case.model_validate(item)
            if case.id in seen:
                raise ValueError(f"duplicate case id {case.id!r} in {path.name}")
            seen.add(case.id)
            owner = conversations.get(case.conversation)
            if owner is None:
                raise ValueError(f"case {case.id}: unknown conversation {case.conversation!r}")
            if owner.split != case.split:
                raise ValueError(
                    f"case {case.id}: split {case.split} but conversation {owner.id} is {owner.split}"
                )
            cases.append(case)
    # the fresh held-out splits go last, oldest first, so the existing cases keep their order (and
    # `sample_cases` over every split keeps picking the cases it picked before a split existed)
    cases.sort(key=lambda c: FRESH_ORDER.get(c.split, 0))
    return Suite(conversations=conversations, cases=cases)


def sample_cases(cases: list[Case], n: int) -> list[Case]:
    """A deterministic sample of `n` cases spread over dimensions: round-robin over the dimensions,
    taking each dimension's cases in file order."""
    by_dim: dict[str, list[Case]] = {d: [c for c in cases if c.dimension == d] for d in DIMENSIONS}
    picked: list[Case] = []
    depth = 0
    while len(picked) < n and any(len(v) > depth for v in by_dim.values()):
        for dim in DIMENSIONS:
            if len(picked) < n and len(by_dim[dim]) > depth:
                picked.append(by_dim[dim][depth])
        depth += 1
    order = {c.id: i for i, c in enumerate(cases)}
    return sorted(picked, key=lambda c: order[c.id])
