"""Per-question JSONL log of an evaluation run: the single source the report is built from.

Every row is flushed and fsynced as it is written, so a crash loses at most the row in flight,
and a rerun resumes by skipping (system, question id) pairs already logged. Failed rows are
kept with status "error" and score 0: dropping them would flatter the system.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, ValidationError

from emem.errors import InputError
from emem.llm.usage import Usage

LOG_NAME = "rows.jsonl"


class RowBase(BaseModel):
    """What every benchmark's per-question row records, so reports can share their cost and error
    sections across benchmarks."""

    qid: str
    system: str
    question: str
    gold: str
    prediction: str
    judge_correct: bool | None = None
    """LLM-judge verdict; None when no judge ran (or it failed: see judge_error)."""
    judge_error: str | None = None
    judge_usage: Usage | None = None
    """What judging cost; kept apart from the system's own usage."""
    retrieved_ids: list[str] = Field(default_factory=list)
    retrieval: dict[str, float | None] = Field(default_factory=dict)
    """Retrieval figures; None where a question is excluded (no evidence)."""
    context_tokens: int = 0
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    stage_latency_ms: dict[str, float] = Field(default_factory=dict)
    status: str = "ok"
    error: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.system, self.qid)


R = TypeVar("R", bound=RowBase)


class RunRow(RowBase):
    """A LoCoMo row; `qid` is f"{sample_id}#{index}"."""

    sample_id: str
    category: int
    score: float
    """Official LoCoMo score, rounded to 3 decimals."""
    bleu1: float | None = None
    evidence: list[str] = Field(default_factory=list)
    retrieved_sessions: list[str] = Field(default_factory=list)


class RunLog:
    """Append-only JSONL file of rows (`row_model`); later rows for the same key supersede earlier ones."""

    row_model: type[RowBase] = RunRow

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._drop_partial_tail()

    def _drop_partial_tail(self) -> None:
        """A crash mid-write can leave a last line without its newline; that row never finished,
        so it is cut off and will be redone."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as fh:
                fh.truncate(data.rfind(b"\n") + 1)

    def rows(self) -> list:
        """One row per key, in first-logged order (the latest content wins)."""
        return read_rows(self.path, self.row_model)

    def done_keys(self) -> set[tuple[str, str]]:
        return {row.key for row in self.rows()}

    def append(self, row: RowBase) -> None:
        line = row.model_dump_json() + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())


def read_rows(path: str | Path, model: type[R] = RunRow) -> list[R]:  # type: ignore[assignment]
    """Parse a run log of `model` rows; a corrupt complete line is an error, never silently skipped."""
    path = Path(path)
    if not path.exists():
        return []
    latest: dict[tuple[str, str], R] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                break  # unfinished final row from a crash
            try:
                row = model.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise InputError(f"corrupt log row: {exc}", f"{path}:{lineno}") from None
            latest[row.key] = row  # keeps the key's first position, takes its latest content
    return list(latest.values())
