"""Guarantee 6, LLM faults: against tests/fake_openai_server.py (timeouts, 500s, truncated JSON,
prose around JSON, wrong schema, empty content) every role retries within a bound, then fails
clearly; `Memory.ask` returns an Answer with status "error" (an empty answer, never a made-up one)
with the failed calls in its usage; nothing crashes; and the eval harness logs such answers as
rows scored 0."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import small_conversation
from fake_openai_server import (
    FakeOpenAIServer,
    empty,
    http_error,
    ok,
    prose_around,
    slow,
    truncated_json,
    wrong_schema,
)

from emem.agents.roles import RoleModels
from emem.errors import LLMError
from emem.llm.openai_client import OpenAIChatModel, reset_mode_cache
from emem.memory import Memory

ROLES = ("planner", "assistant", "reader")
PLAN = {
    "operation": "FACT",
    "entities": ["Dana"],
    "predicates": ["works_at"],
    "needs_current": True,
    "time_constraint": None,
    "keywords": ["work"],
}
QUOTE = {
    "relevant": True,
    "evidence": [{"turn_id": "S1:3", "quote": "I work at a small robotics startup called Kinetica."}],
    "note": "Dana's employer",
}
MAX_RETRIES = 1
MAX_ATTEMPTS = 3 + MAX_RETRIES  # structured-output negotiation (json_schema, json_object, plain) + retries


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("faults") / "home"
    with Memory(home) as m:
        m.add_conversation(small_conversation(), namespace="ns")
        m.consolidate("ns")
        m.index("ns")
    return home


def ask(
    home: Path,
    script,
    roles=ROLES,
    mode: str = "deep",
    question: str = "Where does Dana work?",  # type: ignore[no-untyped-def]
    timeout: float = 10.0,
):
    """Ask through a fake endpoint; a short `timeout` only where a timeout is the fault under test
    (a loaded machine must not turn a good reply into a timeout)."""
    reset_mode_cache()
    with FakeOpenAIServer(script) as server:
        chat = {
            r: OpenAIChatModel(
                server.base_url, f"fake-{r}", timeout=timeout, max_retries=MAX_RETRIES, backoff=0.01
            )
            for r in roles
        }
        with Memory(home, roles=RoleModels(chat)) as memory:
            started = time.perf_counter()
            answer = memory.ask(question, namespace="ns", mode=mode)
            return answer, server.chat_requests, time.perf_counter() - started


def assert_clear_error(answer, requests) -> None:  # type: ignore[no-untyped-def]
    assert answer.status == "error" and answer.answer == ""
    assert answer.error and "LLM endpoint http://127.0.0.1" in answer.error and "attempt(s)" in answer.error
    failed = [role for role, u in answer.usage.by_role.items() if u.failed_calls]
    assert failed and answer.usage.failed_calls >= 1
    assert answer.usage.offline is False


FAULTS = {
    "timeout": slow(2.0),
    "http 500": http_error(500),
    "truncated json": truncated_json(),
    "empty content": empty(),
}


CASES = [
    (f, m)
    for f in sorted(FAULTS)
    for m in ("deep", "fast", "auto")
    if (f, m) not in {("truncated json", "fast"), ("timeout", "fast"), ("timeout", "auto")}
]
"""Truncated JSON is a fault for the structured roles (planner, assistants); the fast path calls
only the reader, which answers in plain text (a reply cut at max_tokens is taken as it is).
Timeouts are slow to provoke, so they run once per path: here (deep) and with the reader alone."""


@pytest.mark.parametrize(("fault", "mode"), CASES)
def test_a_failing_endpoint_gives_an_error_answer_never_a_made_up_one(
    home: Path, fault: str, mode: str
) -> None:
    timeout = 0.2 if fault == "timeout" else 10.0
    answer, requests, seconds = ask(home, FAULTS[fault], mode=mode, timeout=timeout)
    assert_clear_error(answer, requests)
    assert len(requests) <= MAX_ATTEMPTS  # the first failing role stops the run: bounded retries
    assert seconds < MAX_ATTEMPTS * timeout + 10


@pytest.mark.parametrize("fault", ["http 500", "empty content", "timeout"])
def test_a_failing_reader_alone_is_an_error(home: Path, fault: str) -> None:
    answer, requests, _ = ask(
        home, FAULTS[fault], roles=("reader",), timeout=0.2 if fault == "timeout" else 10.0
    )
    assert_clear_error(answer, requests)
    assert answer.usage.by_role["reader"].failed_calls == 1
    assert answer.usage.by_role["planner"].failed_calls == 0  # offline roles still recorded


def by_role(planner, assistant, reader):  # type: ignore[no-untyped-def]
    """One behaviour per role, told apart by the system prompt each role sends."""

    def behave(body: dict):  # type: ignore[no-untyped-def]
        system = str(body.get("messages", [{}])[0].get("content", ""))
        if system.startswith("You plan how a memory system"):
            return planner(body)
        if system.startswith("You answer questions about a long conversation"):
            return reader(body)
        return assistant(body)

    return behave


def test_prose_around_json_is_read_tolerantly(home: Path) -> None:
    answer, requests, _ = ask(home, by_role(prose_around(PLAN), prose_around(QUOTE), ok("Kinetica")))
    assert answer.status == "answered" and answer.answer == "Kinetica" and answer.usage.failed_calls == 0
    assert any(e.turn_id == "S1:3" for e in answer.evidence)


def test_retries_recover_from_a_transient_fault(home: Path) -> None:
    script = [http_error(503), http_error(503), http_error(503), ok(json.dumps(PLAN))] + [
        ok(json.dumps(QUOTE))
    ] * 8
    answer, requests, _ = ask(home, script, roles=("planner", "assistant"))
    assert answer.status != "error" and answer.usage.failed_calls == 0
    assert "Kinetica" in answer.answer


def test_a_planner_reply_of_the_wrong_shape_is_an_error(home: Path) -> None:
    answer, requests, _ = ask(home, wrong_schema(), roles=("planner",))
    assert_clear_error(answer, requests)


def test_failing_assistants_make_the_answer_an_error(home: Path) -> None:
    answer, requests, _ = ask(home, by_role(ok(json.dumps(PLAN)), http_error(500), ok("Kinetica")))
    assert answer.usage.by_role["assistant"].failed_calls >= 1
    assert_clear_error(answer, requests)


def test_consolidation_with_a_failing_extractor_keeps_its_watermark(tmp_path: Path) -> None:
    from emem.extract.llm_extractor import LLMExtractor

    with FakeOpenAIServer(http_error(500)) as server, Memory(tmp_path / "home") as memory:
        memory.add_conversation(small_conversation(), namespace="ns")
        extractor = LLMExtractor(
            OpenAIChatModel(server.base_url, "fake", timeout=0.3, max_retries=0, backoff=0.01)
        )
        try:
            memory.consolidate("ns", extractor)
        except LLMError:
            pass
        assert memory.ledger.get_watermark("ns", f"consolidate:{extractor.name}") == 0


def test_the_harness_logs_error_answers_as_rows_scored_zero(home: Path, tmp_path: Path) -> None:
    """A system whose answers fail (raised, or returned with status "error" even when the text is
    right) is logged row by row with status "error" and score 0; emem with a dead endpoint too."""
    from emem.eval.harness import run_eval
    from emem.eval.locomo_data import LocomoQA, LocomoSample, LocomoSession, LocomoTurn
    from emem.eval.runlog import read_rows
    from emem.eval.systems_base import SystemOutput

    sample = LocomoSample(
        sample_id="s1",
        speakers=("Dana", "Omar"),
        sessions=[
            LocomoSession(
                number=1,
                date_time="1:56 pm on 8 May, 2023",
                turns=[
                    LocomoTurn(speaker="Dana", dia_id="D1:1", text="I work at Kinetica."),
                    LocomoTurn(speaker="Omar", dia_id="D1:2", text="Nice."),
                ],
            )
        ],
        qa=[
            LocomoQA(question="Where does Dana work?", answer="Kinetica", evidence=["D1:1"], category=1),
            LocomoQA(question="Who is Omar?", answer="a friend", evidence=["D1:2"], category=4),
        ],
    )

    class ErrorButRight:
        name = "error-but-right"

        def prepare(self, sample: LocomoSample) -> None:
            pass

        def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
            return SystemOutput(prediction="Kinetica", status="error", error="LLM endpoint down")

    class Raises(ErrorButRight):
        name = "raises"

        def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
            raise LLMError("LLM endpoint http://x returned HTTP 500 [model m, 2 attempt(s)]")

    class DeadEndpoint(ErrorButRight):
        """emem itself, reading with an endpoint that only answers 500."""

        name = "emem-dead-endpoint"

        def __init__(self, memory: Memory) -> None:
            self.memory = memory

        def prepare(self, sample: LocomoSample) -> None:
            self.memory.add_turns(
                [
                    {
                        "conversation_id": "s1",
                        "session_id": "S1",
                        "turn_id": t.dia_id,
                        "speaker": t.speaker,
                        "text": t.text,
                        "time": "2023-05-08T13:56:00+00:00",
                    }
                    for t in sample.sessions[0].turns
                ],
                namespace="s1",
            )

        def answer(self, question: str, sample_id: str, category: int) -> SystemOutput:
            a = self.memory.ask(question, namespace=sample_id, mode="deep")
            return SystemOutput(
                prediction=a.answer,
                status="error" if a.status == "error" else "ok",
                error=a.error,
                usage=a.usage,
            )

    reset_mode_cache()
    with FakeOpenAIServer(http_error(500)) as server:
        chat = OpenAIChatModel(server.base_url, "fake", timeout=0.3, max_retries=0, backoff=0.01)
        with Memory(tmp_path / "home", roles=RoleModels({r: chat for r in ROLES})) as memory:
            systems = [ErrorButRight(), Raises(), DeadEndpoint(memory)]
            report = run_eval(systems, [sample], out_dir=tmp_path / "run", progress=False)
    rows = read_rows(tmp_path / "run" / "rows.jsonl")
    assert len(rows) == 6 and report.exists()
    for row in rows:
        assert row.status == "error" and row.score == 0.0 and row.error, row
    dead = [r for r in rows if r.system == "emem-dead-endpoint"]
    assert all(r.usage.failed_calls >= 1 and r.prediction == "" for r in dead)
