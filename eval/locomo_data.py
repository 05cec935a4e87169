"""Load the LoCoMo JSON (README §1.2–1.4) into typed records and pick questions deterministically.

The data is CC BY-NC and never shipped: the user passes the path. Parsing is strict about
structure (a malformed file should fail loudly with its location) but keeps the data as released:
evidence stays raw here and is cleaned by `metrics.parse_evidence`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from emem.errors import InputError

from .metrics import CATEGORY_NAMES, parse_evidence

OFFICIAL_LOCOMO10_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
"""sha256 of the unmodified official `locomo10.json` (snap-research/locomo main); a report on any
other bytes (e.g. with community fixes applied) must say so."""

_SESSION_KEY = re.compile(r"^session_(\d+)$")


class LocomoTurn(BaseModel):
    speaker: str
    dia_id: str
    text: str
    blip_caption: str | None = None
    """Caption of a shared image; the official pipeline appends it to the turn text."""
    img_url: list[str] | None = None
    query: str | None = None


class LocomoSession(BaseModel):
    number: int
    date_time: str
    """As released, e.g. "1:56 pm on 8 May, 2023"."""
    turns: list[LocomoTurn]


class LocomoQA(BaseModel):
    question: str
    answer: str | None = None
    """Gold answer; missing for most category-5 items. Int golds are kept as their string."""
    adversarial_answer: str | None = None
    evidence: list[str] = Field(default_factory=list)
    """Raw evidence strings, possibly malformed; see `metrics.parse_evidence`."""
    category: int

    @field_validator("answer", "adversarial_answer", mode="before")
    @classmethod
    def _stringify(cls, value: Any) -> Any:
        return value if value is None or isinstance(value, str) else str(value)

    @field_validator("evidence", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: int) -> int:
        if value not in CATEGORY_NAMES:
            raise ValueError(f"category must be 1-5, got {value}")
        return value


class LocomoSample(BaseModel):
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[LocomoSession]
    qa: list[LocomoQA]
    session_summaries: dict[int, str] = Field(default_factory=dict)
    """Generated per-session summaries (not ground truth), keyed by session number."""
    observations: dict[int, dict[str, list[Any]]] = Field(default_factory=dict)
    """Generated per-speaker observations `[fact, evidence]`, keyed by session number."""

    def turn_ids(self) -> set[str]:
        return {t.dia_id for s in self.sessions for t in s.turns}


class LocomoQuestion(BaseModel):
    """One question in run order, with the id every log row and report uses."""

    qid: str
    """f"{sample_id}#{index}", index being the 0-based position in the sample's qa list."""
    sample_id: str
    index: int
    question: str
    category: int
    gold: str
    """The gold answer ("" when a category-5 item has none; category 5 ignores it)."""
    adversarial_answer: str | None = None
    evidence: list[str]
    """Cleaned evidence ids that resolve to a turn of the conversation."""


def _parse_sample(raw: dict[str, Any], where: str) -> LocomoSample:
    conv = raw.get("conversation")
    if not isinstance(conv, dict):
        raise InputError("missing or non-object 'conversation'", where)
    sessions = []
    for key, turns in conv.items():
        match = _SESSION_KEY.match(key)
        if not match:
            continue
        number = int(match.group(1))
        date_key = f"session_{number}_date_time"
        if date_key not in conv:
            raise InputError(f"missing '{date_key}'", where)
        sessions.append({"number": number, "date_time": conv[date_key], "turns": turns})
    sessions.sort(key=lambda s: s["number"])
    summaries = {
        int(k.split("_")[1]): v
        for k, v in (raw.get("session_summary") or {}).items()
        if re.match(r"^session_\d+_summary$", k)
    }
    observations = {
        int(k.split("_")[1]): v
        for k, v in (raw.get("observation") or {}).items()
        if re.match(r"^session_\d+_observation$", k)
    }
    try:
        return LocomoSample(
            sample_id=raw.get("sample_id"),
            speakers=(conv.get("speaker_a"), conv.get("speaker_b")),
            sessions=sessions,
            qa=raw.get("qa"),
            session_summaries=summaries,
            observations=observations,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{first['msg']} at {loc}", where) from None


def read_json_list(path: Path, what: str, items: str) -> list[Any]:
    """Read a benchmark file that must hold a JSON list; errors name the file and the problem."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {what} file: {exc.strerror}", str(path)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (line {exc.lineno})", str(path)) from None
    if not isinstance(data, list):
        raise InputError(f"expected a JSON list of {items}", str(path))
    return data


def load_locomo(path: str | Path) -> list[LocomoSample]:
    """Parse a LoCoMo JSON file (a list of samples) from the path the user gave."""
    path = Path(path)
    data = read_json_list(path, "LoCoMo", "samples")
    samples = []
    for i, raw in enumerate(data):
        where = f"{path}[{i}]"
        if not isinstance(raw, dict):
            raise InputError("sample is not an object", where)
        samples.append(_parse_sample(raw, f"{where} {raw.get('sample_id', '')}".strip()))
    ids = [s.sample_id for s in samples]
    if len(set(ids)) != len(ids):
        raise InputError("duplicate sample_id", str(path))
    return samples


def iter_questions(
    samples: Sequence[LocomoSample],
    conversations: Iterable[str] | None = None,
    categories: Iterable[int] | None = None,
    limit: int | None = None,
    per_category: int | None = None,
    sample: str = "first",
) -> Iterator[LocomoQuestion]:
    """Questions in file order (samples as given, then qa order), filtered by conversation ids and
    categories; `per_category` keeps N of each category (a stratified sample: the file lists
    adversarial questions last), and `limit` caps the total after filtering. Every system sees
    exactly this sequence.

    `sample` says which N: "first" takes them in file order, so a small N comes mostly from the
    first conversation; "spread" deals them round-robin over the conversations (each one's first
    question of the category, then each one's second, ...), so the sample covers every
    conversation. Both are deterministic; the questions are still emitted in file order."""
    if sample not in SAMPLE_RULES:
        raise InputError(f"sample must be one of {SAMPLE_RULES}, got {sample!r}", "sample")
    known = [s.sample_id for s in samples]
    wanted_conv = None if conversations is None else list(conversations)
    if wanted_conv is not None:
        unknown = [c for c in wanted_conv if c not in known]
        if unknown:
            raise InputError(f"unknown conversation(s) {unknown}; known: {known}", "conversations")
    wanted_cat = None if categories is None else set(categories)
    if wanted_cat is not None and not wanted_cat <= set(CATEGORY_NAMES):
        raise InputError(f"categories must be within 1-5, got {sorted(wanted_cat)}", "categories")
    if limit is not None and limit < 0:
        raise InputError(f"limit must be >= 0, got {limit}", "limit")
    chosen = [s for s in samples if wanted_conv is None or s.sample_id in wanted_conv]
    dealt = (
        _spread(chosen, wanted_cat, per_category) if per_category is not None and sample == "spread" else None
    )
    emitted = 0
    taken: dict[int, int] = {}
    for conv in chosen:
        valid = conv.turn_ids()
        for index, qa in enumerate(conv.qa):
            if wanted_cat is not None and qa.category not in wanted_cat:
                continue
            if dealt is not None and (conv.sample_id, index) not in dealt:
                continue
            if dealt is None and per_category is not None and taken.get(qa.category, 0) >= per_category:
                continue
            if limit is not None and emitted >= limit:
                return
            emitted += 1
            taken[qa.category] = taken.get(qa.category, 0) + 1
            yield LocomoQuestion(
                qid=f"{conv.sample_id}#{index}",
                sample_id=conv.sample_id,
                index=index,
                question=qa.question,
                category=qa.category,
                gold=qa.answer or "",
                adversarial_answer=qa.adversarial_answer,
                evidence=parse_evidence(qa.evidence, valid),
            )


SAMPLE_RULES = ("first", "spread")


def _spread(
    samples: Sequence[LocomoSample], categories: set[int] | None, per_category: int
) -> set[tuple[str, int]]:
    """(sample id, qa index) of N questions per category, dealt round-robin over the samples."""
    queues: dict[int, list[list[int]]] = {}
    for s in samples:
        for cat in {qa.category for qa in s.qa}:
            if categories is None or cat in categories:
                queues.setdefault(cat, [[] for _ in samples])
    for si, s in enumerate(samples):
        for index, qa in enumerate(s.qa):
            if qa.category in queues:
                queues[qa.category][si].append(index)
    dealt: set[tuple[str, int]] = set()
    for per_sample in queues.values():
        taken, depth = 0, 0
        while taken < per_category and any(depth < len(q) for q in per_sample):
            for si, q in enumerate(per_sample):
                if depth < len(q) and taken < per_category:
                    dealt.add((samples[si].sample_id, q[depth]))
                    taken += 1
            depth += 1
    return dealt


def dataset_sha256(path: str | Path) -> str:
    """sha256 of the file's bytes, recorded in every manifest so results name their data."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def samples_sha256(samples: Sequence[LocomoSample]) -> str:
    """Content hash of the parsed samples, for runs whose data did not come from a known file."""
    digest = hashlib.sha256()
    for sample in samples:
        digest.update(sample.model_dump_json().encode("utf-8"))
    return digest.hexdigest()
