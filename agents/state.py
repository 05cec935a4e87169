"""The master graph's state. Lists that parallel assistants write to carry reducers, so the
fan-out (`Send`) merges instead of overwriting."""

from __future__ import annotations

import operator
from datetime import datetime
from typing import Annotated, Any, NotRequired, TypedDict

from emem.answer import ActivatedSegment, Answer, EvidenceItem, FactItem, PackResult, Plan
from emem.llm.usage import LLMCall


def merge_max(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """Stage timings: parallel assistants report the slowest one as the stage's latency."""
    out = dict(a)
    for k, v in b.items():
        out[k] = max(out.get(k, 0.0), v)
    return out


class MasterState(TypedDict, total=False):
    question: str
    namespace: str
    mode: str
    as_of: datetime | None
    budget: int
    plan: Plan
    mode_used: str
    activated: list[ActivatedSegment]
    reports: Annotated[list[Any], operator.add]
    evidence: list[EvidenceItem]
    fast_ranking: list[EvidenceItem]
    """Fast mode: every turn fast retrieved, scored for support with none cut, for `aggregate`'s
    decision whether the question is about withheld content (emem.read.retrieve.fast_ranking)."""
    facts: list[FactItem]
    pack: PackResult
    answer: Answer
    calls: Annotated[list[LLMCall], operator.add]
    timings: Annotated[dict[str, float], merge_max]
    error: str | None
    withheld_by: Any
    """The forget request (emem.ledger.withhold.ForgetRequest) the question is about, if any."""
    withheld_near: Any
    """The forget request withholding the turn ranked first for the question, if any: an
    abstention names it."""
    filter: Any
    """emem.retrieval.filters.TurnFilter or None: the turns this question may use."""
    hops: list[list[str]]
    """Deep mode: the segment ids each routing hop activated, in hop order."""
    hop_terms: list[str]
    """Deep mode: the trigger words the later hops added to the question, in hop order."""
    pending: list[Any]
    """Deep mode: the segments (ActivatedSegment) the latest hop added, for the assistants."""


class AssistantTask(TypedDict):
    """What one `Send` hands the assistant node: the question and the segments its assistants
    hold, one assistant (one report, one call) per segment."""

    question: str
    namespace: str
    segments: list[tuple[str, float]]
    """(segment id, routing score min-max over the segments activated so far). One segment per
    `Send` when the assistants are models, whose calls overlap; all of a hop's segments in one
    `Send` for the offline rule assistants, which are pure Python under one interpreter lock: a
    thread per segment bought them no parallelism and cost about 0.4 ms each
    (`emem.read.route.fan_out`)."""
    plan: Plan
    as_of: datetime | None
    filter: NotRequired[Any]
    budget: NotRequired[int]
