"""Run evaluation systems over the same LoCoMo questions, log every answer, then write the report.

The harness knows systems only through `EvalSystem` (prepare/answer), so the CLI stays a thin
layer and every system is measured by identical code. Each row is logged as soon as it is scored,
a rerun resumes where the log stops, and a failure becomes a scored-0 error row, never a gap.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from emem.errors import ConflictError, InputError, LLMError
from emem.llm.usage import Usage
from emem.prompting import Prompt, fill, load_prompt

from .locomo_data import LocomoQuestion, LocomoSample, iter_questions, samples_sha256
from .manifest import (
    MANIFEST_NAME,
    build_manifest,
    check_resume_settings,
    continue_run,
    mark_finished,
    read_manifest,
    write_manifest,
)
from .metrics import bleu1_for_category, official_score, retrieval_scores
from .prompts import JUDGE_PROMPTS
from .report import build_report
from .runlog import LOG_NAME, PublicLog, PublicRow, RunLog, RunRow, merge_rows
from .systems_base import EvalSystem, SystemOutput

if TYPE_CHECKING:
    from emem.llm.base import ChatModel

JUDGE_PROMPT = "judge"

# --------------------------------------------------------------------------------------------
# LLM judge (J)
# --------------------------------------------------------------------------------------------


class JudgeVerdict(BaseModel):
    correct: bool
    usage: Usage | None = None
    raw: str | None = None


Judge = Callable[[str, str, str], "bool | JudgeVerdict"]
"""judge(question, gold, prediction) → verdict; a plain bool is accepted for simple judges."""


def load_judge_prompt() -> Prompt:
    """The LoCoMo judge template (`eval/prompts/judge.md`), with its sha256."""
    return load_prompt(JUDGE_PROMPT, JUDGE_PROMPTS)


def render_judge_prompt(question: str, gold: str, prediction: str, template: str | None = None) -> str:
    """Fill the judge template's {{slots}} in one pass, so braces in answers cannot break it."""
    text = load_judge_prompt().text if template is None else template
    return fill(text, {"question": question, "gold_answer": gold, "generated_answer": prediction})


_VERDICT_LINE = re.compile(r"VERDICT\s*:\s*\**\s*(CORRECT|WRONG)", re.IGNORECASE)
_VERDICT_WORD = re.compile(r"\b(INCORRECT|CORRECT|WRONG)\b", re.IGNORECASE)


def parse_judge_verdict(text: str) -> bool:
    """True for CORRECT, False for WRONG: the last `VERDICT:` line wins, else the last bare label
    (so a JSON {"label": "CORRECT"} reply also parses). No label is an error, not a guess."""
    found = _VERDICT_LINE.findall(text) or _VERDICT_WORD.findall(text)
    if not found:
        raise LLMError(f"judge reply has no CORRECT/WRONG verdict: {text[:200]!r}")
    return found[-1].upper() == "CORRECT"


def chat_judge(model: ChatModel, *, max_tokens: int = 96, role: str = "judge") -> Judge:
    """A `Judge` backed by any `emem.llm.base.ChatModel` (temperature 0), recording its usage."""
    prompt = load_judge_prompt()
    template, prompt_hash = prompt.text, prompt.sha256

    def judge(question: str, gold: str, prediction: str) -> JudgeVerdict:
        prompt = render_judge_prompt(question, gold, prediction, template)
        result = model.chat(
            role,
            [{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            temperature=0.0,
            prompt_hash=prompt_hash,
        )
        return JudgeVerdict(
            correct=parse_judge_verdict(result.text), usage=Usage.from_calls([result.call]), raw=result.text
        )

    return judge


def _apply_judge(row: RunRow, judge: Judge) -> RunRow:
    """Judge answerable rows (category 5 is scored by abstention, as mem0 does). A failed row is
    WRONG without asking, as it scores 0 on every other metric."""
    if row.category == 5:
        return row
    if row.status == "error":
        return row.model_copy(update={"judge_correct": False})
    try:
        verdict = judge(row.question, row.gold, row.prediction)
    except Exception as exc:  # a judge failure must not lose the system's row
        return row.model_copy(update={"judge_error": f"{type(exc).__name__}: {exc}"})
    if isinstance(verdict, JudgeVerdict):
        return row.model_copy(update={"judge_correct": verdict.correct, "judge_usage": verdict.usage})
    return row.model_copy(update={"judge_correct": bool(verdict)})


# --------------------------------------------------------------------------------------------
# Scoring one answer
# --------------------------------------------------------------------------------------------


def score_output(q: LocomoQuestion, system: str, out: SystemOutput, wall_ms: float) -> RunRow:
    """Turn a system's output into a log row with every metric. A self-reported error scores 0."""
    failed = out.status == "error"
    return RunRow(
        qid=q.qid,
        sample_id=q.sample_id,
        system=system,
        category=q.category,
        question=q.question,
        gold=q.gold,
        prediction=out.prediction,
        score=0.0 if failed else official_score(out.prediction, q.gold, q.category),
        bleu1=bleu1_for_category("" if failed else out.prediction, q.gold, q.category),
        evidence=q.evidence,
        retrieved_ids=out.retrieved_ids,
        retrieved_sessions=out.retrieved_sessions,
        retrieval=retrieval_scores(q.evidence, out.retrieved_ids, out.retrieved_sessions),
        context_tokens=out.context_tokens,
        usage=out.usage,
        latency_ms=out.latency_ms if out.latency_ms > 0 else wall_ms,
        stage_latency_ms=out.stage_latency_ms,
        status=out.status,
        error=out.error,
    )


def error_row(q: LocomoQuestion, system: str, error: str, wall_ms: float = 0.0) -> RunRow:
    """The row for an answer that raised: kept, status "error", score 0."""
    out = SystemOutput(prediction="", status="error", error=error)
    return score_output(q, system, out, wall_ms)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def answer_one(system: EvalSystem, q: LocomoQuestion) -> RunRow:
    """Ask one question, capturing any exception (and a wrong return type) as an error row."""
    start = time.perf_counter()
    try:
        out = system.answer(q.question, q.sample_id, q.category)
        if not isinstance(out, SystemOutput):
            raise TypeError(f"answer() returned {type(out).__name__}, expected SystemOutput")
    except Exception as exc:  # every failure becomes a logged row
        return error_row(q, system.name, _describe(exc), (time.perf_counter() - start) * 1000)
    return score_output(q, system.name, out, (time.perf_counter() - start) * 1000)


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


def _check_resume(
    rows: Sequence[RunRow | PublicRow], questions: Sequence[LocomoQuestion], where: str | Path
) -> None:
    """Refuse to resume onto a log whose question ids mean different questions (other data). A
    public row has no text to compare; its category must still be the question's."""
    by_qid = {q.qid: q for q in questions}
    for row in rows:
        q = by_qid.get(row.qid)
        if q is None:
            continue
        same = row.category == q.category and row.sample_id == q.sample_id
        if isinstance(row, RunRow):
            same = same and row.question == q.question and row.gold == q.gold
        if not same:
            raise ConflictError(
                f"{where}: logged {row.qid} is a different question than the dataset's; "
                "use a fresh output directory for different data"
            )


def _write_manifest(
    out_dir: Path,
    systems: Sequence[EvalSystem],
    samples: Sequence[LocomoSample],
    questions: Sequence[LocomoQuestion],
    *,
    categories: Sequence[int] | None,
    conversations: Sequence[str] | None,
    limit: int | None,
    dataset_path: str | Path | None,
    extra: dict[str, Any] | None,
    public: PublicLog | None,
) -> None:
    """Record this start. A run found in `out_dir` or in the public log continues only with the
    settings it was started with; the public log's history wins (it is the committed record, and
    the only one on a fresh machine)."""
    manifest = build_manifest(
        samples_sha256=samples_sha256(samples),
        systems=[s.name for s in systems],
        n_questions=len(questions),
        categories=None if categories is None else sorted(categories),
        conversations=None if conversations is None else list(conversations),
        limit=limit,
        dataset_path=dataset_path,
        extra=extra,
    )
    stored, logged = read_manifest(out_dir), None
    if stored is not None:
        check_resume_settings(stored, manifest, out_dir / MANIFEST_NAME)
    if public is not None and (logged := public.manifest()) is not None:
        check_resume_settings(logged, manifest, public.path)
    previous = logged or stored
    if previous is not None:
        continue_run(previous, manifest)
    write_manifest(manifest, out_dir)
    if public is not None:
        public.append_manifest(manifest)


def run_eval(
    systems: Sequence[EvalSystem],
    samples: Sequence[LocomoSample],
    *,
    out_dir: str | Path,
    categories: Sequence[int] | None = None,
    conversations: Sequence[str] | None = None,
    limit: int | None = None,
    judge: Judge | None = None,
    manifest_extra: dict[str, Any] | None = None,
    progress: bool = True,
    dataset_path: str | Path | None = None,
    retry_errors: bool = False,
    per_category: int | None = None,
    sample: str = "first",
    public_log: str | Path | None = None,
) -> Path:
    """Evaluate every system on the same questions, logging to `out_dir/rows.jsonl`; returns the
    path of the written `report.md`.

    Resumable: (system, question id) pairs already logged are skipped; with `retry_errors` the
    failed ones are asked again and the new row supersedes the old in the report (the log keeps
    both). `manifest_extra` keys naming a manifest field (models, budget, seed, reader_offline,
    command) fill it; others are kept under `extra`, and every one is a setting a resumed run
    must repeat.

    `public_log`: also log each row, without the dataset's text, to this file (`PublicLog`), which
    can be committed. A run resumes from it alone (rows.jsonl and the manifest lost with the
    machine), and the report is built from it, the local rows lending their text where they match.
    """
    names = [s.name for s in systems]
    if not systems or len(set(names)) != len(names):
        raise InputError(f"need at least one system and unique names, got {names}", "systems")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    questions = list(iter_questions(samples, conversations, categories, limit, per_category, sample))
    log = RunLog(out_dir / LOG_NAME)
    public = PublicLog(public_log) if public_log is not None else None
    _check_resume(log.rows(), questions, log.path)
    if public is not None:
        _check_resume(public.rows(), questions, public.path)
    _write_manifest(
        out_dir, systems, samples, questions, categories=categories, conversations=conversations,
        limit=limit, dataset_path=dataset_path, extra=manifest_extra, public=public,
    )  # fmt: skip
    rows = log.rows()
    if public is not None:
        # Rows logged here before the public log was (or while its append was cut short) join it.
        in_public = {row.key for row in public.rows()}
        for row in rows:
            if row.key not in in_public:
                public.append(PublicRow.from_row(row))
        rows, _ = merge_rows(rows, public.rows())
    logged = {row.key: row for row in rows}
    done = {k for k, row in logged.items() if not (retry_errors and row.status == "error")}
    by_id = {s.sample_id: s for s in samples}
    groups: dict[str, list[LocomoQuestion]] = {}
    for q in questions:
        groups.setdefault(q.sample_id, []).append(q)

    def record(row: RunRow) -> None:
        log.append(row)
        if public is not None:
            public.append(PublicRow.from_row(row))

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), disable=not progress) as bar:
        task = bar.add_task("eval", total=len(systems) * len(questions))
        for system in systems:
            for sample_id, qs in groups.items():
                pending = [q for q in qs if (system.name, q.qid) not in done]
                bar.update(task, advance=len(qs) - len(pending), description=f"{system.name} {sample_id}")
                if not pending:
                    continue
                try:
                    system.prepare(by_id[sample_id])
                except Exception as exc:  # recorded on every affected row
                    for q in pending:
                        record(error_row(q, system.name, f"prepare failed: {_describe(exc)}"))
                        bar.advance(task)
                    continue
                for q in pending:
                    row = answer_one(system, q)
                    if judge is not None:
                        row = _apply_judge(row, judge)
                    record(row)
                    bar.advance(task)
    mark_finished(out_dir)
    if public is not None:
        finished = read_manifest(out_dir)
        if finished is not None:
            public.append_manifest(finished)
    return build_report(out_dir, public_log=public_log)
