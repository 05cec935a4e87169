"""Per-question JSONL log of an evaluation run: the single source the report is built from.

Every row is flushed and fsynced as it is written, so a crash loses at most the row in flight,
and a rerun resumes by skipping (system, question id) pairs already logged. Failed rows are
kept with status "error" and score 0: dropping them would flatter the system.

Rows quote the dataset (question, gold, prediction), and LoCoMo's licence (CC BY-NC 4.0) keeps
them out of the repository. `PublicLog` is the same log without that text: ids, scores, usage,
latencies, retrieval figures and status, plus the run's manifest at each start. It can be
committed, so a run longer than one machine's life resumes from it and its report is rebuilt
from it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from emem.errors import InputError
from emem.llm.usage import Usage

from .manifest import RunManifest

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

    def append(self, row: BaseModel) -> None:
        _append_line(self.path, row)


def _append_line(path: Path, record: BaseModel) -> None:
    """One JSON line, flushed and fsynced before returning."""
    line = record.model_dump_json() + "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) of every complete line; an unfinished final line (a crash
    mid-write) ends the file, a corrupt complete one is an error."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                break  # unfinished final row from a crash
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"corrupt log row: {exc}", f"{path}:{lineno}") from None


def read_rows(path: str | Path, model: type[R] = RunRow) -> list[R]:  # type: ignore[assignment]
    """Parse a run log of `model` rows; a corrupt complete line is an error, never silently skipped."""
    path = Path(path)
    if not path.exists():
        return []
    latest: dict[tuple[str, str], R] = {}
    for lineno, data in _json_lines(path):
        try:
            row = model.model_validate(data)
        except ValidationError as exc:
            raise InputError(f"corrupt log row: {exc}", f"{path}:{lineno}") from None
        latest[row.key] = row  # keeps the key's first position, takes its latest content
    return list(latest.values())


# --------------------------------------------------------------------------------------------
# The public log: the run log without the dataset's text
# --------------------------------------------------------------------------------------------

DATASET_TEXT: dict[str, Any] = {
    "question": True,
    "gold": True,
    "prediction": True,
    # Free text that can quote the question, the conversation or a model's reply (an LLM error,
    # a judge's unparsable verdict): only its class is kept (PublicRow.error / judge_error).
    "error": True,
    "judge_error": True,
    # Deep mode's later-hop trigger words are words of the conversation.
    "usage": {"hop_terms": True},
    "judge_usage": {"hop_terms": True},
}
"""The one place that says which parts of a `RunRow` quote the dataset (a pydantic `exclude`
spec): everything else is public. `PublicRow` forbids unknown fields, so a field added to
`RunRow` must be declared on `PublicRow` or listed here before any public row is written."""

_ERROR_CLASS = re.compile(
    r"(?:prepare failed: )?[A-Z][A-Za-z0-9_]*(?:Error|Exception|Timeout|Interrupt|Exit|Failure)(?=:|$)"
)


def error_class(error: str | None) -> str | None:
    """The exception class an error string starts with ("RuntimeError", "prepare failed:
    ValueError"), never its message, which may quote data; "error" when it names none."""
    if error is None:
        return None
    match = _ERROR_CLASS.match(error)
    return match.group(0) if match else "error"


class PublicRow(BaseModel):
    """A `RunRow` without the dataset's text (`DATASET_TEXT`): safe to commit."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["row"] = "row"
    qid: str
    system: str
    sample_id: str
    category: int
    score: float
    bleu1: float | None = None
    judge_correct: bool | None = None
    judge_error: str | None = None
    """The judge failure's exception class only (`error_class`)."""
    judge_usage: Usage | None = None
    evidence: list[str] = Field(default_factory=list)
    """Dialogue ids ("D1:3"), not their text."""
    retrieved_ids: list[str] = Field(default_factory=list)
    retrieved_sessions: list[str] = Field(default_factory=list)
    retrieval: dict[str, float | None] = Field(default_factory=dict)
    context_tokens: int = 0
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    stage_latency_ms: dict[str, float] = Field(default_factory=dict)
    status: str = "ok"
    error: str | None = None
    """The exception class only (`error_class`)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.system, self.qid)

    @classmethod
    def from_row(cls, row: RunRow) -> PublicRow:
        fields = row.model_dump(exclude=DATASET_TEXT)
        fields["error"] = error_class(row.error)
        fields["judge_error"] = error_class(row.judge_error)
        return cls.model_validate(fields)

    def to_row(self) -> RunRow:
        """The row the report reads: the dataset's text left empty (not available here)."""
        return RunRow.model_validate(
            {**self.model_dump(exclude={"kind"}), "question": "", "gold": "", "prediction": ""}
        )


class ManifestLine(BaseModel):
    """The run's manifest as it stood when a start began or ended; the latest one is the run's."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["manifest"] = "manifest"
    manifest: RunManifest


_LINE: TypeAdapter[PublicRow | ManifestLine] = TypeAdapter(
    Annotated[PublicRow | ManifestLine, Field(discriminator="kind")]
)


class PublicLog(RunLog):
    """Append-only JSONL of `PublicRow`s and `ManifestLine`s, written beside rows.jsonl."""

    row_model = RunRow  # not used: rows() reads PublicRow lines

    def _read(self) -> tuple[list[PublicRow], RunManifest | None]:
        if not self.path.exists():
            return [], None
        latest: dict[tuple[str, str], PublicRow] = {}
        manifest = None
        for lineno, data in _json_lines(self.path):
            try:
                line = _LINE.validate_python(data)
            except ValidationError as exc:
                raise InputError(f"corrupt public log line: {exc}", f"{self.path}:{lineno}") from None
            if isinstance(line, ManifestLine):
                manifest = line.manifest
            else:
                latest[line.key] = line
        return list(latest.values()), manifest

    def rows(self) -> list[PublicRow]:
        return self._read()[0]

    def manifest(self) -> RunManifest | None:
        """The manifest recorded last (None before any start)."""
        return self._read()[1]

    def append_manifest(self, manifest: RunManifest) -> None:
        _append_line(self.path, ManifestLine(manifest=manifest))


def merge_rows(rows: Sequence[RunRow], public: Sequence[PublicRow]) -> tuple[list[RunRow], int]:
    """The rows of a run kept in both logs: the public log decides which rows exist and what they
    scored (it is the committed record); a local row lends its text to the public row it matches.
    Local rows the public log lacks follow. Returns the rows and how many have no text."""
    local = {row.key: row for row in rows}
    merged: list[RunRow] = []
    without_text = 0
    for pub in public:
        row = local.pop(pub.key, None)
        if row is None or PublicRow.from_row(row) != pub:
            row, without_text = pub.to_row(), without_text + 1
        merged.append(row)
    return [*merged, *local.values()], without_text
