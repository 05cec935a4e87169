"""Run the reliability suite through emem's public API only.

For each mode, a fresh temporary home; each conversation goes into its own namespace with
add_conversation (then add_turns for turns that arrive later), and each case is one
`Memory.ask(question, namespace, mode=..., as_of=...)`. Nothing else is called: no consolidate,
no ledger write, no index warm-up, so the suite measures what a caller gets.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from emem.eval.reliability.cases import Case, Suite
from emem.eval.reliability.scorer import score

MODES = ("auto", "deep", "fast")


class CaseResult(BaseModel):
    case_id: str
    dimension: str
    split: str
    mode: str
    conversation: str
    question: str
    as_of: str | None = None
    expected_status: str
    expect: list[str] = Field(default_factory=list)
    forbid: list[str] = Field(default_factory=list)
    answer: str
    status: str
    mode_used: str | None = None
    offline: bool | None = None
    """Whether emem's offline stand-ins produced the answer (False: a configured model did)."""
    passed: bool
    failures: list[str] = Field(default_factory=list)
    latency_ms: float = 0.0
    error: str | None = None
    evidence_leaks: list[str] = Field(default_factory=list)
    """Forbidden values found in the answer's evidence (the turns it cites and its packed
    context), which the score, reading the answer text alone, does not see: a forgotten secret
    there reaches the caller as surely as in the answer."""


def namespace_for(conversation_id: str) -> str:
    return f"rel-{conversation_id}"


def run_mode(
    suite: Suite,
    cases: list[Case],
    mode: str,
    *,
    memory_factory: Callable[[Path], Any],
    home: Path | None = None,
    progress: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Ingest the conversations the cases need into a fresh home and ask every case in `mode`.

    Args:
        suite: the loaded suite (conversations by id).
        cases: the cases to run.
        mode: auto | deep | fast.
        memory_factory: builds a `Memory` on a home directory (lets the caller share an embedder
            and pick the role models).
        home: where the home goes; a temporary directory (removed afterwards) when None.
        progress: called with each result as it is scored.

    Returns:
        One result per case, in the cases' order.
    """
    with contextlib.ExitStack() as stack:
        if home is None:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"emem-reliability-{mode}-")))
        else:
            root = home / mode
            root.mkdir(parents=True, exist_ok=True)
        memory = memory_factory(root)
        stack.callback(memory.close)
        for conv_id in dict.fromkeys(c.conversation for c in cases):
            spec = suite.conversations[conv_id]
            memory.add_conversation(spec.conversation, namespace=namespace_for(conv_id))
            if spec.append_turns:
                memory.add_turns(spec.append_turns, namespace=namespace_for(conv_id))
        results = []
        for case in cases:
            results.append(ask_case(memory, case, mode))
            if progress is not None:
                progress(results[-1])
        return results


def ask_case(memory: Any, case: Case, mode: str) -> CaseResult:
    """Ask one case and score it; an exception is recorded as status `error` (a failed case)."""
    started = time.perf_counter()
    error = None
    mode_used = None
    offline = None
    leaks: list[str] = []
    try:
        answer = memory.ask(
            case.question, namespace=namespace_for(case.conversation), mode=mode, as_of=case.as_of
        )
        text, status, mode_used, offline = answer.answer, answer.status, answer.mode_used, answer.offline
        error = answer.error
        if case.dimension == "forget_request":
            cited = " ".join([*(e.text for e in answer.evidence), answer.context]).casefold()
            leaks = [f for f in case.forbid if f.casefold() in cited]
    except Exception as exc:  # a crash is a result to report, not a reason to stop the run
        text, status, error = "", "error", f"{type(exc).__name__}: {exc}"
    verdict = score(case.expectation(), text, status)
    failures = list(verdict.failures)
    if error and status == "error":
        failures.append(f"error: {error}")
    return CaseResult(
        case_id=case.id,
        dimension=case.dimension,
        split=case.split,
        mode=mode,
        conversation=case.conversation,
        question=case.question,
        as_of=case.as_of.isoformat() if case.as_of else None,
        expected_status=case.status,
        expect=case.expect,
        forbid=case.forbid,
        answer=text,
        status=status,
        mode_used=mode_used,
        offline=offline,
        passed=verdict.passed,
        failures=failures,
        latency_ms=round((time.perf_counter() - started) * 1000, 1),
        error=error,
        evidence_leaks=leaks,
    )
