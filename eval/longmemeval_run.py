"""Run the comparison systems on the official LongMemEval JSON: ingest, ask, judge, log, report.

Each LongMemEval instance carries its own haystack, so every question gets its own namespace in one
run home, ingested once (idempotently) and released from memory after its questions. The systems
are the LoCoMo ones (eval/systems.py), reused unchanged: the haystack goes straight into the shared
Memory, then the systems answer over that namespace. Scoring follows the official protocol in
shared/data/README.md §2: a yes/no LLM judge with one prompt per question type (abstention for
`_abs` ids), and session-level recall_any/recall_all@k over the answer sessions.

Like the LoCoMo harness, every (system, question) row is appended to `rows.jsonl` as soon as it is
scored, a rerun skips logged rows, and a failure is a logged error row judged WRONG, never a gap.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from emem.agents.roles import RoleModels
from emem.errors import ConflictError, InputError
from emem.llm.usage import Usage
from emem.memory import Memory
from emem.models import check_namespace
from emem.prompting import fill, load_prompt

from .harness import JudgeVerdict
from .longmemeval_data import QUESTION_TYPES, LmeInstance, load_longmemeval
from .manifest import (
    RunManifest,
    build_manifest,
    check_resume_settings,
    continue_run,
    mark_finished,
    read_manifest,
    write_manifest,
)
from .prompts import JUDGE_PROMPTS
from .report import (
    OFFLINE_READER_LINE,
    REPORT_NAME,
    cost_section,
    errors_section,
    fmt,
    md_table,
    run_time_line,
)
from .runlog import LOG_NAME, RowBase, RunLog, read_rows
from .systems import Shared, build_systems, namespace_for
from .systems_base import EvalSystem, SystemOutput

if TYPE_CHECKING:
    from emem.llm.base import ChatModel

JUDGE_PROMPT = "judge_longmemeval"
JUDGE_MAX_TOKENS = 10
"""The official judge reads a yes/no reply with at most 10 output tokens at temperature 0."""
ABSTENTION_KEY = "abstention"
RECALL_KS: tuple[int, ...] = (5, 10)
NON_RETRIEVING = frozenset({"full-context"})
"""Systems that hand the reader everything: session recall is not defined for them."""
NO_CATEGORY = 0
"""The systems' answer() takes a LoCoMo category, which none of them uses; LongMemEval has none."""
OFFICIAL_S_CLEANED_SHA256 = "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442"
"""LFS sha256 of the official `longmemeval_s_cleaned.json` (README §2); other files are unverified."""

# --------------------------------------------------------------------------------------------
# Dates, namespaces, ingestion
# --------------------------------------------------------------------------------------------

_LME_DATE = re.compile(
    r"^\s*(?P<y>\d{4})/(?P<mo>\d{1,2})/(?P<d>\d{1,2})"  # 2023/05/30
    r"\s*\((?P<wd>[A-Za-z]{3})\)"  # (Tue)
    r"\s*(?P<h>\d{1,2}):(?P<mi>\d{2})\s*$"  # 23:40
)
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def parse_lme_date(value: object, where: str) -> datetime:
    """Parse LongMemEval's "2023/05/30 (Tue) 23:40" as UTC (the data has no zone).

    Explicit rather than dateutil: a time that does not parse must stop the run with its location,
    never become "now". The weekday is checked against the date, so a mis-ordered or corrupted
    date cannot slip through as a different valid one."""
    if not isinstance(value, str):
        raise InputError(f"expected a date like '2023/05/30 (Tue) 23:40', got {type(value).__name__}", where)
    m = _LME_DATE.match(value)
    if not m:
        raise InputError(
            f"unparsable LongMemEval date {value!r} (expected like '2023/05/30 (Tue) 23:40')", where
        )
    try:
        dt = datetime(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), tzinfo=UTC)
    except ValueError as exc:
        raise InputError(f"impossible LongMemEval date {value!r}: {exc}", where) from None
    if m["wd"].lower() != _WEEKDAYS[dt.weekday()]:
        raise InputError(
            f"LongMemEval date {value!r} says {m['wd']} but that day is a {_WEEKDAYS[dt.weekday()]}", where
        )
    return dt


def check_dates(instances: Iterable[LmeInstance]) -> None:
    """Parse every date before any work, so a bad one fails in seconds, naming its instance."""
    for inst in instances:
        parse_lme_date(inst.question_date, f"{inst.question_id} question_date")
        for sid, date in zip(inst.haystack_session_ids, inst.haystack_dates, strict=True):
            parse_lme_date(date, f"{inst.question_id} session {sid}")


_NOT_IN_NAMESPACE = re.compile(r"[^A-Za-z0-9.:@/-]")


def sample_id_for(inst: LmeInstance) -> str:
    """The id the systems know the instance by: "lme-<question_id>", with characters namespaces do
    not allow (LongMemEval ids use "_") mapped to "."."""
    return "lme-" + _NOT_IN_NAMESPACE.sub(".", inst.question_id)


def namespace_of(inst: LmeInstance) -> str:
    """The instance's namespace. It must be the one TurnBaseline derives from the sample id
    (eval/systems.namespace_for), since that system takes no namespace of its own."""
    return check_namespace(namespace_for(sample_id_for(inst)))


def check_namespaces(instances: Sequence[LmeInstance]) -> None:
    """Two ids mapping to one namespace would mix haystacks; refuse before ingesting anything."""
    seen: dict[str, str] = {}
    for inst in instances:
        ns = namespace_of(inst)
        if ns in seen and seen[ns] != inst.question_id:
            raise InputError(
                f"question ids {seen[ns]!r} and {inst.question_id!r} map to one namespace {ns!r}", "data"
            )
        seen[ns] = inst.question_id


def turn_id(session_id: str, index: int) -> str:
    """ "<session id>:<index in session>", the id `LmeInstance.evidence_turn_ids` uses."""
    return f"{session_id}:{index}"


def instance_to_emem(inst: LmeInstance) -> dict[str, Any]:
    """The haystack in emem's conversation JSON: speakers are the roles, ids are the dataset's.

    Blank turns are skipped (emem refuses empty text); indexes keep their dataset position so turn
    ids still match the has_answer flags."""
    sessions = []
    for sid, date, turns in zip(
        inst.haystack_session_ids, inst.haystack_dates, inst.haystack_sessions, strict=True
    ):
        start = parse_lme_date(date, f"{inst.question_id} session {sid}")
        sessions.append(
            {
                "session_id": sid,
                "time": start.isoformat(),
                "turns": [
                    {"turn_id": turn_id(sid, i), "speaker": t.role, "text": t.content}
                    for i, t in enumerate(turns)
                    if t.content.strip()
                ],
            }
        )
    return {"conversation_id": inst.question_id, "sessions": sessions}


def session_of_turns(inst: LmeInstance) -> dict[str, str]:
    """Turn id → session id, from the data rather than by splitting ids on ':'."""
    return {
        turn_id(sid, i): sid
        for sid, turns in zip(inst.haystack_session_ids, inst.haystack_sessions, strict=True)
        for i in range(len(turns))
    }


def ingest(memory: Memory, inst: LmeInstance) -> str:
    """Store, index and consolidate one haystack, as `Shared.prepare` does for LoCoMo. Idempotent:
    a resumed run re-adds the same turns unchanged."""
    ns = namespace_of(inst)
    memory.add_conversation(instance_to_emem(inst), namespace=ns)
    memory.index(ns)
    memory.consolidate(ns)
    return ns


def release(memory: Memory, ns: str) -> None:
    """Drop a finished namespace's in-memory indexes and views: a full run has 500 haystacks and
    keeping them all resident would grow without bound. The stores on disk are untouched."""
    memory.invalidate(ns)


# --------------------------------------------------------------------------------------------
# Roles and judge
# --------------------------------------------------------------------------------------------


def resolve_roles(reader: str, home: Path) -> RoleModels:
    return RoleModels.for_reader(reader, home)


def judge_model(judge: str, home: Path) -> ChatModel | None:
    """The judge's chat model (`openai`), or None (`none`). A separate function so tests can script it."""
    from emem.llm.config import build_chat_model, load_llm_settings

    if judge == "none":
        return None
    if judge == "openai":
        chat = build_chat_model("judge", load_llm_settings(home))
        if chat is None:
            raise InputError(
                "no judge endpoint configured (EMEM_LLM_JUDGE_MODEL / EMEM_LLM_MODEL)", "--judge"
            )
        return chat
    raise InputError(f"unknown judge {judge!r}; use none or openai", "--judge")


class JudgeTemplates(BaseModel):
    """The per-type judge prompts of `eval/prompts/judge_longmemeval.md`, keyed by question type."""

    by_key: dict[str, str]
    sha256: str

    def template_for(self, question_type: str, abstention: bool) -> str:
        key = ABSTENTION_KEY if abstention else question_type
        if key not in self.by_key:
            raise InputError(f"no judge prompt for question type {key!r} in {JUDGE_PROMPT}.md", "judge")
        return self.by_key[key]


def load_judge_templates() -> JudgeTemplates:
    """Split the prompt file on `## ` headers; the text before the first header is documentation."""
    prompt = load_prompt(JUDGE_PROMPT, JUDGE_PROMPTS)
    by_key: dict[str, str] = {}
    for block in re.split(r"^## ", prompt.text, flags=re.MULTILINE)[1:]:
        header, _, body = block.partition("\n")
        for key in (k.strip() for k in header.split(",")):
            by_key[key] = body.strip() + "\n"
    return JudgeTemplates(by_key=by_key, sha256=prompt.sha256)


def render_lme_judge(template: str, question: str, gold: str, response: str) -> str:
    """Fill the {{placeholders}} in one pass, so braces inside an answer are never substituted again."""
    return fill(template, {"question": question, "gold_answer": gold, "response": response})


def yes_verdict(text: str) -> bool:
    """The official rule: correct iff the lower-cased reply contains "yes"."""
    return "yes" in text.lower()


LmeJudge = Callable[["LmeRow"], JudgeVerdict]


def lme_judge(model: ChatModel, templates: JudgeTemplates | None = None) -> LmeJudge:
    """A judge over any ChatModel: the type's prompt (abstention for `_abs`), yes/no, usage kept."""
    templates = templates or load_judge_templates()

    def judge(row: LmeRow) -> JudgeVerdict:
        template = templates.template_for(row.question_type, row.abstention)
        prompt = render_lme_judge(template, row.question, row.gold, row.prediction)
        result = model.chat(
            "judge",
            [{"role": "user", "content": prompt}],
            max_tokens=JUDGE_MAX_TOKENS,
            temperature=0.0,
            prompt_hash=templates.sha256,
        )
        return JudgeVerdict(
            correct=yes_verdict(result.text), usage=Usage.from_calls([result.call]), raw=result.text
        )

    return judge


def check_judge_covers(instances: Iterable[LmeInstance], templates: JudgeTemplates) -> None:
    """Every question type to be judged needs a prompt; find out before hours of answering."""
    for inst in instances:
        templates.template_for(inst.question_type, inst.is_abstention)


# --------------------------------------------------------------------------------------------
# Rows and their log
# --------------------------------------------------------------------------------------------


class LmeRow(RowBase):
    """One (system, question) result; `qid` is the LongMemEval question_id. The shared fields
    (RowBase) let the LoCoMo report's cost and error sections render these rows too."""

    question_type: str
    abstention: bool
    question_date: str
    judge_raw: str | None = None
    answer_sessions: list[str] = Field(default_factory=list)
    ranked_sessions: list[str] = Field(default_factory=list)
    """Sessions of the retrieved turns, in order of first appearance: the ranking recall@k uses."""


class LmeLog(RunLog):
    """The LoCoMo run log (append + fsync, crash-tail repair) holding LongMemEval rows."""

    row_model = LmeRow


# --------------------------------------------------------------------------------------------
# Scoring one answer
# --------------------------------------------------------------------------------------------


def rank_sessions(retrieved_ids: Sequence[str], session_of: dict[str, str]) -> list[str]:
    """Collapse a turn ranking to a session ranking (first appearance wins), as the official code
    does for turn retrievers; ids that name no haystack turn are ignored."""
    return list(dict.fromkeys(session_of[t] for t in retrieved_ids if t in session_of))


def session_recall(
    answer_sessions: Sequence[str], ranked: Sequence[str], ks: Sequence[int] = RECALL_KS
) -> dict[str, float]:
    """recall_any@k: some answer session in the top k; recall_all@k: every one of them is."""
    gold = set(answer_sessions)
    out: dict[str, float] = {}
    for k in ks:
        top = set(ranked[:k])
        out[f"recall_any@{k}"] = 1.0 if gold & top else 0.0
        out[f"recall_all@{k}"] = 1.0 if gold <= top else 0.0
    return out


def retrieval_for(inst: LmeInstance, system: str, ranked: Sequence[str]) -> dict[str, float | None]:
    """Session recall, or None where the official metric excludes the question (abstention, no
    evidence session) or the system retrieves nothing by design (full context)."""
    if inst.is_abstention or not inst.answer_session_ids or system in NON_RETRIEVING:
        return {f"recall_{kind}@{k}": None for k in RECALL_KS for kind in ("any", "all")}
    return dict(session_recall(inst.answer_session_ids, ranked))


def score_row(inst: LmeInstance, system: str, out: SystemOutput, wall_ms: float) -> LmeRow:
    """A system's output as a log row; an error keeps empty retrieval (recall 0) and no answer."""
    ranked = rank_sessions(out.retrieved_ids, session_of_turns(inst))
    return LmeRow(
        qid=inst.question_id,
        system=system,
        question_type=inst.question_type,
        abstention=inst.is_abstention,
        question=inst.question,
        gold=inst.answer,
        question_date=inst.question_date,
        prediction=out.prediction,
        answer_sessions=inst.answer_session_ids,
        retrieved_ids=out.retrieved_ids,
        ranked_sessions=ranked,
        retrieval=retrieval_for(inst, system, ranked),
        context_tokens=out.context_tokens,
        usage=out.usage,
        latency_ms=out.latency_ms if out.latency_ms > 0 else wall_ms,
        stage_latency_ms=out.stage_latency_ms,
        status=out.status,
        error=out.error,
    )


def error_row(inst: LmeInstance, system: str, error: str, wall_ms: float = 0.0) -> LmeRow:
    return score_row(inst, system, SystemOutput(prediction="", status="error", error=error), wall_ms)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def ask_system(system: EvalSystem, inst: LmeInstance) -> SystemOutput:
    """Ask one system as known at the question's date (every system gets the same `as_of`)."""
    as_of = parse_lme_date(inst.question_date, f"{inst.question_id} question_date")
    return system.answer(inst.question, sample_id_for(inst), NO_CATEGORY, as_of=as_of)


def answer_one(system: EvalSystem, inst: LmeInstance) -> LmeRow:
    """Ask and score, turning any exception (or a wrong return type) into an error row."""
    start = time.perf_counter()
    try:
        out = ask_system(system, inst)
        if not isinstance(out, SystemOutput):
            raise TypeError(f"answer() returned {type(out).__name__}, expected SystemOutput")
    except Exception as exc:  # every failure becomes a logged row
        return error_row(inst, system.name, _describe(exc), (time.perf_counter() - start) * 1000)
    return score_row(inst, system.name, out, (time.perf_counter() - start) * 1000)


def apply_judge(row: LmeRow, judge: LmeJudge) -> LmeRow:
    """Judge a row. A failed row is WRONG without asking; a judge failure is recorded and leaves the
    verdict empty, so a rerun judges it again rather than losing the system's answer."""
    if row.status == "error":
        return row.model_copy(update={"judge_correct": False, "judge_error": None})
    try:
        verdict = judge(row)
    except Exception as exc:  # a judge failure must not lose the system's row
        return row.model_copy(update={"judge_error": _describe(exc)})
    return row.model_copy(
        update={
            "judge_correct": verdict.correct,
            "judge_usage": verdict.usage,
            "judge_raw": verdict.raw,
            "judge_error": None,
        }
    )


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


def _accuracy(rows: Sequence[LmeRow]) -> float | None:
    verdicts = [r.judge_correct for r in rows if r.judge_correct is not None]
    return sum(verdicts) / len(verdicts) if verdicts else None


def types_present(rows: Iterable[LmeRow]) -> list[str]:
    """The official six in their order, then any other type the data holds."""
    present = {r.question_type for r in rows}
    return [t for t in QUESTION_TYPES if t in present] + sorted(present - set(QUESTION_TYPES))


def accuracy_summary(rows: Sequence[LmeRow]) -> dict[str, Any]:
    """One system's official accuracies over judged rows: overall, per type, task-averaged (the
    unweighted mean of the per-type accuracies) and abstention (over `_abs` ids)."""
    per_type = {t: _accuracy([r for r in rows if r.question_type == t]) for t in types_present(rows)}
    typed = [v for v in per_type.values() if v is not None]
    return {
        "overall": _accuracy(rows),
        "per_type": per_type,
        "task_averaged": sum(typed) / len(typed) if typed else None,
        "abstention": _accuracy([r for r in rows if r.abstention]),
        "judged": sum(1 for r in rows if r.judge_correct is not None),
        "unjudged": sum(1 for r in rows if r.judge_correct is None),
    }


def retrieval_summary(rows: Sequence[LmeRow]) -> dict[str, tuple[float | None, int]]:
    """Mean of each recall figure over the rows where it is defined, with that count."""
    keys = [f"recall_{kind}@{k}" for k in RECALL_KS for kind in ("any", "all")]
    out: dict[str, tuple[float | None, int]] = {}
    for key in keys:
        vals = [v for r in rows if (v := r.retrieval.get(key)) is not None]
        out[key] = (sum(vals) / len(vals) if vals else None, len(vals))
    return out


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def _group(rows: Sequence[LmeRow], order: Sequence[str]) -> dict[str, list[LmeRow]]:
    names = [n for n in order if any(r.system == n for r in rows)]
    names += sorted({r.system for r in rows} - set(names))
    return {n: [r for r in rows if r.system == n] for n in names}


def _pct(value: float | None) -> str:
    return "–" if value is None else fmt(100 * value, 1)


def _dataset_status(sha: str | None) -> str:
    if sha is None:
        return "no dataset file recorded"
    if sha == OFFICIAL_S_CLEANED_SHA256:
        return "official longmemeval_s_cleaned.json, unmodified"
    return "not checked against a known official hash"


def _reader_line(manifest: RunManifest | None) -> str:
    """Say first whether answers came from an LLM: offline numbers must never pass for LLM ones."""
    offline = manifest.reader_offline if manifest is not None else None
    if manifest is None or offline is None:
        return "**Reader: unknown** (no manifest recorded it)."
    if offline:
        return (
            f"**Reader: {OFFLINE_READER_LINE}.** Answers measure memory and retrieval, not an LLM's reading."
        )
    return f"**Reader: LLM** ({manifest.models.get('reader', '?')})."


def _header(manifest: RunManifest | None, n_questions: int, judged: bool) -> str:
    lines = ["# LongMemEval evaluation report", "", _reader_line(manifest)]
    if not judged:
        lines += [
            "",
            "**No judge was used: accuracy is not computed.** Only retrieval and cost are reported "
            "(rerun with `--judge openai` on the same `--out` to judge the logged answers).",
        ]
    if manifest is not None:
        extra = manifest.extra
        dirty = " (dirty: uncommitted changes)" if manifest.code.dirty else ""
        lines += [
            "",
            f"- Dataset: `{manifest.dataset_path or '?'}`, sha256 `{manifest.dataset_sha256 or '–'}` "
            f"({_dataset_status(manifest.dataset_sha256)})",
            f"- Code: git `{manifest.code.git_revision or 'unknown'}`{dirty}",
            f"- Budget: {manifest.budget} tokens; roles: "
            + ", ".join(f"{k}: {v}" for k, v in sorted(manifest.models.items())),
            f"- Judge (latest invocation): {extra.get('judge', '?')}"
            + (f" ({extra['judge_model']})" if extra.get("judge_model") else "")
            + ", prompt "
            f"`{JUDGE_PROMPT}.md` sha256 `{manifest.prompts.get(JUDGE_PROMPT + '.md', '?')[:16]}…`",
            f"- Questions: {n_questions}; limit: {manifest.limit}",
            "- " + run_time_line(manifest.invocations),
            f"- Time anchor: {extra.get('time_anchor', '?')}",
        ]
    return "\n".join(lines)


def _accuracy_section(by_system: dict[str, list[LmeRow]]) -> str:
    types = types_present(r for rs in by_system.values() for r in rs)
    head, per_type = [], []
    for name, rs in by_system.items():
        s = accuracy_summary(rs)
        head.append([name, _pct(s["overall"]), _pct(s["task_averaged"]), _pct(s["abstention"]),
                     str(s["judged"]), str(s["unjudged"])])  # fmt: skip
        per_type.append([name, *(_pct(s["per_type"][t]) for t in types)])
    return (
        "## Accuracy (LLM judge, official LongMemEval protocol)\n\n"
        "Percent judged correct. Task-averaged: unweighted mean of the per-type accuracies. "
        "Abstention: `_abs` questions only (also counted in their type). Error rows are WRONG; "
        "unjudged rows (judge failures) are left out until a rerun judges them.\n\n"
        + md_table(["system", "overall", "task-averaged", "abstention", "judged", "unjudged"], head)
        + "\n\nPer question type:\n\n"
        + md_table(["system", *types], per_type)
    )


def _retrieval_section(by_system: dict[str, list[LmeRow]]) -> str:
    keys = [f"recall_{kind}@{k}" for k in RECALL_KS for kind in ("any", "all")]
    rows = []
    for name, rs in by_system.items():
        s = retrieval_summary(rs)
        rows.append([name, *(fmt(s[k][0]) for k in keys), str(max(n for _, n in s.values()))])
    return (
        "## Retrieval (session level)\n\n"
        "Sessions of the retrieved turns, ranked by first appearance, against `answer_session_ids`. "
        "Abstention questions and questions without an answer session are excluded (as officially); "
        "full-context retrieves nothing by design (–). Unlike the official retrievers, every turn "
        "(user and assistant) is indexed.\n\n" + md_table(["system", *keys, "n"], rows)
    )


def build_lme_report(out_dir: Path) -> Path:
    """Write `report.md` from the run's rows and manifest; rebuildable at any time."""
    manifest = read_manifest(out_dir)
    rows = read_rows(out_dir / LOG_NAME, LmeRow)
    by_system = _group(rows, manifest.systems if manifest is not None else [])
    judged = any(r.judge_correct is not None for r in rows)
    n_questions = len({r.qid for r in rows})
    sections = [_header(manifest, n_questions, judged)]
    if not rows:
        sections.append("No rows logged yet.")
    else:
        if judged:
            sections.append(_accuracy_section(by_system))
        # The LoCoMo cost and error sections read only fields LmeRow shares with RunRow.
        sections += [_retrieval_section(by_system), cost_section(by_system), errors_section(by_system)]
    path = out_dir / REPORT_NAME
    path.write_text("\n\n".join(s for s in sections if s).rstrip() + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Manifest and resume checks
# --------------------------------------------------------------------------------------------


def instances_sha256(instances: Sequence[LmeInstance]) -> str:
    """Content hash of the parsed instances evaluated."""
    digest = hashlib.sha256()
    for inst in instances:
        digest.update(inst.model_dump_json().encode("utf-8"))
    return digest.hexdigest()


def _write_manifest(
    out_dir: Path, systems: Sequence[EvalSystem], instances: Sequence[LmeInstance], *, limit: int | None,
    dataset_path: Path | None, extra: dict[str, Any],
) -> None:  # fmt: skip
    """Record what produced the rows; refuse to resume onto other data, reader or budget, which
    would mix incomparable rows in one report."""
    manifest = build_manifest(
        samples_sha256=instances_sha256(instances), systems=[s.name for s in systems],
        n_questions=len(instances), limit=limit, dataset_path=dataset_path, extra=extra,
    )  # fmt: skip
    previous = read_manifest(out_dir)
    if previous is not None:
        check_resume_settings(
            previous, manifest, out_dir, fields=("dataset_sha256", "models", "budget"), extra=False
        )
        continue_run(previous, manifest)
    write_manifest(manifest, out_dir)


def _check_resume(rows: Iterable[LmeRow], instances: Sequence[LmeInstance]) -> None:
    """Refuse to resume onto a log whose question ids mean different questions (other data)."""
    by_id = {i.question_id: i for i in instances}
    for row in rows:
        inst = by_id.get(row.qid)
        if inst is not None and (row.question != inst.question or row.gold != inst.answer):
            raise ConflictError(
                f"logged {row.qid} is a different question than the dataset's; use a fresh --out"
            )


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


def _run_instance(
    inst: LmeInstance, systems: Sequence[EvalSystem], memory: Memory, log: LmeLog,
    logged: dict[tuple[str, str], LmeRow], judge: LmeJudge | None,
) -> None:  # fmt: skip
    """Judge logged rows still lacking a verdict, then ingest and ask the systems not yet logged."""
    for system in systems:
        row = logged.get((system.name, inst.question_id))
        if row is not None and judge is not None and row.judge_correct is None:
            log.append(apply_judge(row, judge))
    pending = [s for s in systems if (s.name, inst.question_id) not in logged]
    if not pending:
        return
    try:
        ns = ingest(memory, inst)
    except Exception as exc:  # recorded on every affected row
        for system in pending:
            row = error_row(inst, system.name, f"prepare failed: {_describe(exc)}")
            log.append(apply_judge(row, judge) if judge is not None else row)
        return
    try:
        for system in pending:
            row = answer_one(system, inst)
            log.append(apply_judge(row, judge) if judge is not None else row)
    finally:
        release(memory, ns)


def run_instances(
    instances: Sequence[LmeInstance],
    systems: Sequence[EvalSystem],
    memory: Memory,
    *,
    out_dir: Path,
    judge: LmeJudge | None = None,
    limit: int | None = None,
    dataset_path: Path | None = None,
    manifest_extra: dict[str, Any] | None = None,
    progress: bool = True,
) -> Path:
    """Evaluate `systems` on `instances` (each over its own haystack in `memory`), logging to
    `out_dir/rows.jsonl`; returns the written report. Resumable, like the LoCoMo harness."""
    names = [s.name for s in systems]
    if not systems or len(set(names)) != len(names):
        raise InputError(f"need at least one system and unique names, got {names}", "--systems")
    check_dates(instances)
    check_namespaces(instances)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = LmeLog(out_dir / LOG_NAME)
    logged = {row.key: row for row in log.rows()}
    _check_resume(logged.values(), instances)
    _write_manifest(
        out_dir, systems, instances, limit=limit, dataset_path=dataset_path, extra=manifest_extra or {}
    )
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), disable=not progress) as bar:
        task = bar.add_task("longmemeval", total=len(instances))
        for inst in instances:
            bar.update(task, description=f"longmemeval {inst.question_id}")
            _run_instance(inst, systems, memory, log, logged, judge)
            bar.advance(task)
    mark_finished(out_dir)
    return build_lme_report(out_dir)


def _select(instances: Sequence[LmeInstance], limit: int | None) -> list[LmeInstance]:
    if limit is not None and limit < 0:
        raise InputError(f"limit must be >= 0, got {limit}", "--limit")
    return list(instances if limit is None else instances[:limit])


def _system_names(systems: str) -> list[str]:
    names = [s.strip() for s in systems.split(",") if s.strip()]
    if not names:
        raise InputError("no systems given", "--systems")
    return names


def _time_anchor(systems: Sequence[EvalSystem]) -> str:
    return f"{', '.join(s.name for s in systems) or 'no system'} answered with as_of = question_date"


def run_longmemeval(
    data: Path, systems: str, reader: str, judge: str, budget: int, limit: int | None, out: Path
) -> Path:
    """`emem eval longmemeval`: run `systems` (comma-separated names from eval/systems.py) on the
    official LongMemEval file `data`, with the `reader` (offline | openai | local) and `judge`
    (none | openai) given; resumable in `out`. Returns the path of `out/report.md`."""
    out = Path(out)
    home = out / "home"
    names = _system_names(systems)
    if not isinstance(budget, int) or budget < 50:
        raise InputError(f"budget must be an integer of at least 50 tokens, got {budget!r}", "--budget")
    roles = resolve_roles(reader, home)
    chat = judge_model(judge, home)
    instances = _select(load_longmemeval(data), limit)
    templates = None
    if chat is not None:
        templates = load_judge_templates()
        check_judge_covers(instances, templates)
    shared = Shared(home, roles, budget=budget)
    try:
        built = build_systems(names, shared)
        extra = {
            "benchmark": "longmemeval",
            "models": roles.describe(),
            "budget": budget,
            "seed": 0,
            "reader_offline": roles.get("reader") is None,
            "judge": judge,
            "judge_model": getattr(chat, "model", None),
            "time_anchor": _time_anchor(built),
        }
        return run_instances(
            instances, built, shared.memory, out_dir=out, limit=limit, dataset_path=Path(data),
            judge=lme_judge(chat, templates) if chat is not None else None, manifest_extra=extra,
        )  # fmt: skip
    finally:
        shared.memory.close()


__all__ = [
    "LmeRow",
    "build_lme_report",
    "instance_to_emem",
    "lme_judge",
    "parse_lme_date",
    "run_instances",
    "run_longmemeval",
    "session_recall",
]
