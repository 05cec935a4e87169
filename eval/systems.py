"""The systems the harness compares, all over one Memory home, with the same reader and the same
budget rules: emem-deep/fast/auto, emem-routing-paper, full-context, rag-bm25, rag-dense."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from emem.agents.aggregate import build_closures
from emem.agents.assistant import supported_evidence
from emem.agents.master import DEFAULT_BUDGET, ReadRuntime, ask_graph, master_graph
from emem.agents.planner import offline_plan
from emem.agents.reader import llm_read, offline_read, offline_reader_call
from emem.agents.roles import RoleModels
from emem.answer import Answer
from emem.config import recipe
from emem.llm.usage import Usage
from emem.memory import Memory
from emem.models import StoredTurn
from emem.read.packing import pack
from emem.retrieval.routing import DEFAULT_ACTIVATE
from emem.timeparse import parse_locomo_time

from .locomo_data import LocomoSample
from .systems_base import SystemOutput

SYSTEM_NAMES = (
    "emem-deep",
    "emem-fast",
    "emem-auto",
    "emem-routing-paper",
    "full-context",
    "rag-bm25",
    "rag-dense",
)
RAG_K = 10


def sample_to_emem(sample: LocomoSample) -> dict:
    """A LoCoMo sample in emem's conversation JSON (ids kept: sessions S<n>, turns D<n>:<i>)."""
    return {
        "conversation_id": sample.sample_id,
        "sessions": [
            {
                "session_id": f"S{s.number}",
                "time": parse_locomo_time(s.date_time, f"{sample.sample_id} session_{s.number}").isoformat(),
                "turns": [
                    {
                        "turn_id": t.dia_id,
                        "speaker": t.speaker,
                        "text": t.text,
                        "image_caption": t.blip_caption,
                    }
                    for t in s.turns
                ],
            }
            for s in sample.sessions
        ],
    }


def namespace_for(sample_id: str) -> str:
    return f"eval-{sample_id}"


BENCHMARK_ABSTENTION = "No information available"
"""What LoCoMo's and LongMemEval's scorers read as an abstention. emem's abstentions explain
themselves in plain words; the harness reports every one (status "abstained") in this phrase."""


def prediction(text: str, status: str) -> str:
    return BENCHMARK_ABSTENTION if status == "abstained" else text


def to_output(a: Answer) -> SystemOutput:
    return SystemOutput(
        prediction=prediction(a.answer, a.status),
        retrieved_ids=[e.turn_id for e in a.evidence],
        retrieved_sessions=list(dict.fromkeys(s.session_id for s in a.activated_segments)),
        context_tokens=a.usage.context_tokens,
        usage=a.usage,
        latency_ms=a.latency_ms,
        stage_latency_ms=a.stage_latency_ms,
        status="error" if a.status == "error" else "ok",
        error=a.error,
    )


class Shared:
    """One Memory home and its ingested conversations, shared by every system of a run."""

    def __init__(
        self,
        home: Path,
        roles: RoleModels,
        budget: int = DEFAULT_BUDGET,
        reader_window: int = 128_000,
        activate: int = DEFAULT_ACTIVATE,
        fill_context: bool = False,
    ) -> None:
        self.memory = Memory(home, roles=roles)
        self.roles = roles
        self.budget = budget
        self.reader_window = reader_window
        self.activate = activate
        self.fill_context = fill_context
        self._prepared: set[str] = set()
        self._runtimes: dict[str, ReadRuntime] = {}

    def runtime(self, router: str) -> ReadRuntime:
        """One read runtime (the master graph's context) per router, shared by the modes (so they
        share its namespace views)."""
        if router not in self._runtimes:
            base = recipe("paper-router" if router == "paper" else "default").read
            read = base.model_copy(update={"activate": self.activate, "fill_context": self.fill_context})
            self._runtimes[router] = ReadRuntime(self.memory, self.roles, config=read)
        return self._runtimes[router]

    def prepare(self, sample: LocomoSample) -> str:
        ns = namespace_for(sample.sample_id)
        if sample.sample_id not in self._prepared:
            self.memory.add_conversation(sample_to_emem(sample), namespace=ns)
            self.memory.index(ns)
            self.memory.consolidate(ns)
            self._prepared.add(sample.sample_id)
        return ns


class EmemSystem:
    def __init__(self, shared: Shared, mode: str, router: str = "emem") -> None:
        self.shared, self.mode, self.router = shared, mode, router
        self.name = "emem-routing-paper" if router == "paper" else f"emem-{mode}"

    def prepare(self, sample: LocomoSample) -> None:
        self.shared.prepare(sample)

    def answer(
        self, question: str, sample_id: str, category: int, as_of: datetime | None = None
    ) -> SystemOutput:
        ns = namespace_for(sample_id)
        return to_output(
            ask_graph(
                master_graph(),
                question,
                ns,
                self.mode,
                as_of,
                self.shared.budget,
                context=self.shared.runtime(self.router),
            )
        )


class TurnBaseline:
    """Top-k turns (BM25, dense) or every turn (full context), handed to the same reader."""

    def __init__(self, shared: Shared, kind: str) -> None:
        self.shared, self.kind = shared, kind
        self.name = {"bm25": "rag-bm25", "dense": "rag-dense", "full": "full-context"}[kind]

    def prepare(self, sample: LocomoSample) -> None:
        self.shared.prepare(sample)

    def _turns(self, question: str, ns: str, as_of: datetime | None) -> list[StoredTurn]:
        rt = self.shared.memory.read_runtime
        view = rt.view(ns)
        seen = view.visible(as_of)
        if self.kind == "full":
            return [t for t, ok in zip(view.turns, seen, strict=True) if ok]
        if self.kind == "bm25":
            idx = view.indexes
            ranked = [idx.turns[k] for k, _ in idx.bm25.search(question, len(idx.bm25))]
            return [t for t in ranked if as_of is None or t.time <= as_of][:RAG_K]
        # Plain dense RAG embeds the question as asked (emem's own paths leave speaker names out).
        sims = np.where(seen, view.turn_vectors @ rt.embed(question), -np.inf)
        return [view.turns[i] for i in np.argsort(-sims, kind="stable")[:RAG_K] if seen[i]]

    def answer(
        self, question: str, sample_id: str, category: int, as_of: datetime | None = None
    ) -> SystemOutput:
        start = time.perf_counter()
        ns = namespace_for(sample_id)
        rt = self.shared.memory.read_runtime
        view = rt.view(ns)
        turns = self._turns(question, ns, as_of)
        t_retrieve = (time.perf_counter() - start) * 1000
        anchor = as_of or (view.turns[-1].time if view.turns else None)
        plan = offline_plan(question, sorted({t.speaker for t in view.turns}), anchor)
        full = self.kind == "full"
        # Full context: the whole conversation, in order, never cut; the offline reader still ranks it.
        evidence, relevant = supported_evidence(
            view, turns, question, plan, rt.embed(question), keep_all=full
        )
        budget = 10**9 if full else self.shared.budget
        packed = pack(build_closures(plan, evidence, [], {}, budget, None, question), budget)
        reader = self.shared.roles.get("reader")
        if full and reader is not None and packed.tokens > self.shared.reader_window:
            return SystemOutput(
                prediction="",
                status="error",
                context_tokens=packed.tokens,
                error=f"conversation is {packed.tokens} tokens, over the reader's {self.shared.reader_window}-token window; not truncated",
            )
        if full and reader is None:
            # Offline reader over everything: it sees the whole conversation ranked, or nothing
            # (it abstains) when no turn is supported enough.
            packed = packed.model_copy(
                update={"closures": sorted(packed.closures, key=lambda c: -c.priority) if relevant else []}
            )
        if reader is None:
            text, status = offline_read(question, plan, packed, [])
            calls = [offline_reader_call(question, packed.context(), text)]
        else:
            text, status, call = llm_read(question, plan, packed, [], reader)
            calls = [call]
        usage = Usage.from_calls(calls, context_tokens=packed.tokens)
        latency = (time.perf_counter() - start) * 1000
        return SystemOutput(
            prediction=prediction(text, status),
            retrieved_ids=[] if full else [t.turn_id for t in turns],
            context_tokens=packed.tokens,
            usage=usage,
            latency_ms=latency,
            stage_latency_ms={"retrieve": t_retrieve, "read": latency - t_retrieve},
            status="error" if status == "error" else "ok",
            error=calls[0].error if status == "error" else None,
        )


def build_systems(names: Sequence[str], shared: Shared) -> list:
    factories = {
        "emem-deep": lambda: EmemSystem(shared, "deep"),
        "emem-fast": lambda: EmemSystem(shared, "fast"),
        "emem-auto": lambda: EmemSystem(shared, "auto"),
        "emem-routing-paper": lambda: EmemSystem(shared, "deep", router="paper"),
        "full-context": lambda: TurnBaseline(shared, "full"),
        "rag-bm25": lambda: TurnBaseline(shared, "bm25"),
        "rag-dense": lambda: TurnBaseline(shared, "dense"),
    }
    unknown = [n for n in names if n not in factories]
    if unknown:
        from emem.errors import InputError

        raise InputError(f"unknown system(s) {unknown}; known: {', '.join(SYSTEM_NAMES)}", "--systems")
    return [factories[n]() for n in names]
