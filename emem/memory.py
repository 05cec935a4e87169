"""`Memory`: emem's public contract. A thin facade: every method names its namespace and delegates
to the store, index, ledger or read path that owns the job."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from emem.embedding import Embedder, default_embedder
from emem.errors import InputError
from emem.index.manager import CatchUpReport, IndexManager, Progress
from emem.ingest.batch import Batch
from emem.ingest.loader import Format, parse_object, read_path
from emem.ledger.withhold import withholding_said
from emem.models import Conversation, Hit, IngestReport, Stats, Turn, check_namespace
from emem.retrieval.hybrid import hybrid_turns, to_hit
from emem.store.episodes import EpisodeStore
from emem.timeparse import parse_iso_time
from emem.validation import check_text, check_text_list


def _ref(source: str) -> tuple[str, str]:
    conv, _, tid = source.partition("/")
    return conv, tid


def open_home(home: str | Path) -> Path:
    """The home directory, created if missing; InputError (not a traceback) when it cannot be."""
    if not isinstance(home, (str, Path)):
        raise InputError(f"expected a directory path, got {type(home).__name__}", "home")
    path = Path(check_text(str(home), "home", max_chars=4096)).expanduser()
    if path.exists() and not path.is_dir():
        raise InputError("is not a directory (emem keeps its store in a directory)", f"home {path}")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the store directory: {exc.strerror}", f"home {path}") from None
    return path


T = TypeVar("T")


def default_home() -> Path:
    return Path(os.environ.get("EMEM_HOME") or Path.home() / ".emem").expanduser()


class Memory:
    """Long-term memory for agents, scoped by namespace (tenant) on every call.

    Writes (`add_conversation`, `add_turns`) append durable, immutable episodes and return once
    committed; they never call an LLM or an embedder. Indexes and facts are derived later.
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        embedder: Embedder | None = None,
        roles: Any = None,
        consolidate_on_read: bool = True,
        forget_policy: str | None = None,
    ) -> None:
        """Open (or create) a memory home.

        Args:
            home: the directory holding every store (default `EMEM_HOME` or `~/.emem`).
            embedder: the embedding model (default: the bundled offline MiniLM).
            roles: which model serves each LLM role (default: `<home>/llm.json`, else offline).
            consolidate_on_read: before a ledger read (`ask`, `resolve`, `facts`, `history`), project
                the turns written since the offline extractor's watermark, so no answer sees a ledger
                older than the turns it reads. Off: call `consolidate` yourself (e.g. with an LLM
                extractor).
            forget_policy: what forget requests said in conversation do: "withhold" (default),
                "erase" or "ignore" (else EMEM_FORGET_POLICY; see emem.ledger.withhold).
        """
        from emem.ledger.withhold import forget_policy as _forget_policy

        self.consolidate_on_read = consolidate_on_read
        self.forget_policy = _forget_policy(forget_policy)
        self.home = open_home(home if home is not None else default_home())
        self.episodes = EpisodeStore(self.home / "episodes.sqlite3")
        self._embedder = embedder
        self.indexes = IndexManager(self.episodes, self.home, self._get_embedder)
        self._ledger = None
        self._roles = roles
        self._read_runtime = None
        self._graph = None
        self.last_summary_report = None
        self._finish_erasures()

    def _finish_erasures(self) -> None:
        """Finish any erasure a crash interrupted before this process serves a read from the home."""
        from emem.erasure import complete_pending

        complete_pending(self)

    def _get_embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    @property
    def ledger(self):  # -> emem.ledger.store.Ledger
        if self._ledger is None:
            from emem.ledger.store import Ledger

            self._ledger = Ledger(self.home / "ledger.sqlite3")
        return self._ledger

    def close(self) -> None:
        self.episodes.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- write path (System 1) ----------------------------------------------------------------

    def add_conversation(
        self, conversation: dict[str, Any] | Conversation, namespace: str, *, restore: bool = False
    ) -> IngestReport:
        """Store a conversation given in emem's or LoCoMo's JSON shape (or the pydantic model).
        A turn erased by `forget` is refused unless `restore=True` (the same for every write)."""
        check_namespace(namespace)
        return self._append(namespace, parse_object(conversation, "auto", "conversation"), "conversation", restore)

    def add_turns(
        self, turns: Sequence[dict[str, Any] | Turn], namespace: str, *, restore: bool = False
    ) -> IngestReport:
        """Store individual turns (each names its conversation and session)."""
        check_namespace(namespace)
        if isinstance(turns, (str, bytes, dict)) or not isinstance(turns, Sequence):
            raise InputError(f"turns must be a list of turn objects, got {type(turns).__name__}", "turns")
        events = [t.model_dump() if isinstance(t, Turn) else t for t in turns]
        return self._append(namespace, parse_object(events, "jsonl", "turns"), "turns", restore)

    def ingest_file(
        self, path: str | Path, namespace: str, fmt: Format = "auto", *, restore: bool = False
    ) -> IngestReport:
        check_namespace(namespace)
        if not isinstance(path, (str, Path)):
            raise InputError(f"expected a file path, got {type(path).__name__}", "path")
        path = Path(check_text(str(path), "path", max_chars=4096))
        return self._append(namespace, read_path(path, fmt), str(path), restore)

    def _append(self, namespace: str, batch: Batch, source: str, restore: bool = False) -> IngestReport:
        if not batch.turns:
            raise InputError("no turns to store", source)
        if not isinstance(restore, bool):
            raise InputError("restore must be True or False", "restore")
        return self.episodes.append(namespace, batch.turns, batch.sessions, source=source, restore=restore)

    # -- derived indexes ------------------------------------------------------------------------

    def index(self, namespace: str, progress: Progress | None = None) -> CatchUpReport:
        """Catch the derived indexes up with the episode store (search does this on demand)."""
        check_namespace(namespace)
        self._finish_erasures()
        return self.indexes.catch_up(namespace, progress)

    # -- read path -----------------------------------------------------------------------------

    def search(self, query: str, namespace: str, k: int = 10) -> list[Hit]:
        """Hybrid (BM25 + dense, RRF-fused) search over this namespace's turns."""
        check_namespace(namespace)
        check_text(query, "query")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InputError(f"k must be a positive integer, got {k!r}", "k")
        self._finish_erasures()
        self._catch_up_ledger(namespace)
        ns = self.indexes.current(namespace)
        requests = self.forget_requests(namespace)
        ranked = hybrid_turns(ns, query, k + (4 * k if requests else 0))
        # What the user asked to forget is withheld from every read, search included.
        kept = [(t, s) for t, s in ranked if withholding_said(requests, t.time, text=t.render()) is None]
        return [to_hit(t, s) for t, s in kept[:k]]

    def forget_requests(self, namespace: str) -> list[Any]:
        """Forget requests said in conversation that reads honour now.

        Args:
            namespace: the tenant.
        Returns:
            `emem.ledger.withhold.ForgetRequest`s, oldest first; none under the "ignore" policy.
        """
        from emem.ledger.withhold import active_forget_requests, policy_withholds

        check_namespace(namespace)
        if not policy_withholds(self.forget_policy):
            return []
        return active_forget_requests(self.ledger, namespace)

    def stats(self, namespace: str) -> Stats:
        check_namespace(namespace)
        self._finish_erasures()
        conversations, sessions, turns = self.episodes.counts(namespace)
        facts = self.ledger.count(namespace) if (self.home / "ledger.sqlite3").exists() else 0
        return Stats(
            namespace=namespace,
            conversations=conversations,
            sessions=sessions,
            turns=turns,
            last_seq=self.episodes.last_seq(namespace),
            index_coverage=self.indexes.coverage(namespace),
            facts=facts,
        )

    # -- the ledger (what is current) ------------------------------------------------------------

    def assert_fact(
        self,
        namespace: str,
        subject: str,
        predicate: str,
        object: str,  # noqa: A002 - the documented parameter name
        valid_from: datetime | str,
        valid_to: datetime | str | None = None,
        known_at: datetime | str | None = None,
        sources: Sequence[str] = (),
        cardinality: str | None = None,
    ):
        """Record a fact; `cardinality` ("single"/"multi") declares an open predicate on first use."""
        check_namespace(namespace)
        refs = check_text_list(sources, "sources")
        stored = {f"{t.conversation_id}/{t.turn_id}" for t in self.episodes.get_turns(namespace, map(_ref, refs))}
        missing = [r for r in refs if r not in stored]
        if missing:
            raise InputError(
                f"no stored turn {missing[0]!r} in namespace {namespace!r} (a source is 'conversation_id/turn_id')",
                "sources",
            )
        return self.ledger.assert_fact(
            namespace, subject, predicate, object, valid_from, valid_to, known_at, refs, cardinality=cardinality
        )

    def revoke(
        self,
        namespace: str,
        revision_id: str,
        known_at: datetime | str | None = None,
        reason: str | None = None,
    ):
        check_namespace(namespace)
        return self.ledger.revoke(namespace, revision_id, known_at=known_at, reason=reason)

    def resolve(
        self,
        namespace: str,
        subject: str,
        predicate: str,
        valid_at: datetime | str | None = None,
        known_at: datetime | str | None = None,
    ):
        check_namespace(namespace)
        return self._ledger_read(
            namespace, lambda: self.ledger.resolve(namespace, subject, predicate, valid_at=valid_at, known_at=known_at)
        )

    def facts(
        self,
        namespace: str,
        subject: str | None = None,
        predicate: str | None = None,
        valid_at: datetime | str | None = None,
        known_at: datetime | str | None = None,
    ):
        check_namespace(namespace)
        return self._ledger_read(
            namespace,
            lambda: self.ledger.facts(
                namespace, subject=subject, predicate=predicate, valid_at=valid_at, known_at=known_at
            ),
        )

    def history(self, namespace: str, subject: str, predicate: str | None = None):
        check_namespace(namespace)
        return self._ledger_read(namespace, lambda: self.ledger.history(namespace, subject, predicate=predicate))

    def consolidate(self, namespace: str, extractor: Any = None):
        """System 2: project facts from episodes not yet consolidated, and (when a summariser model
        is configured) write segment summaries. Never runs inside a write."""
        check_namespace(namespace)
        summariser = self.roles.get("summariser")
        if summariser is not None:
            from emem.agents.summariser import summarise_segments

            runtime = self._runtime()
            view = runtime.view(namespace)
            self.last_summary_report = summarise_segments(self.episodes, namespace, view.segments, summariser)
            runtime.forget(namespace)  # rebuild the view with the new summaries
        report = self._project_facts(namespace, extractor)
        summaries = self.last_summary_report if summariser is not None else None
        if summaries is not None:
            report.summaries_written = summaries.written
            report.summaries_failed = summaries.failed
            errors = [c.error for c in summaries.calls if not c.ok and c.error]
            if summaries.failed:
                first = f" (first error: {errors[0]})" if errors else ""
                report.failures.append(
                    f"{summaries.failed} of {summaries.failed + summaries.written} segment summaries failed{first}"
                )
        return report

    def _project_facts(self, namespace: str, extractor: Any = None):
        from emem.consolidate import consolidate, watermark_name
        from emem.extract.offline import OfflineExtractor

        extractor = extractor or OfflineExtractor()
        name = getattr(extractor, "name", "custom")
        turns = self.episodes.turns(namespace, after_seq=self.ledger.get_watermark(namespace, watermark_name(name)))
        judge = self.roles.get("adjudicator")
        adjudicator = None
        if judge is not None:
            from emem.adjudicate import LLMAdjudicator

            adjudicator = LLMAdjudicator(judge)
        report = consolidate(namespace, turns, self.ledger, extractor, adjudicator=adjudicator, extractor_name=name)
        if self.forget_policy == "erase":
            from emem.consolidate import erase_forgotten

            erase_forgotten(self, namespace, report)
        return report

    def _ledger_read(self, namespace: str, read: Callable[[], T]) -> T:
        """Run a ledger read on a ledger that has caught up with the turns. The read runs first as
        it is, so bad arguments are refused by the ledger's own checks before anything is written."""
        self._finish_erasures()
        result = read()
        if self._catch_up_ledger(namespace):
            result = read()
        return result

    def _ledger_lags(self, namespace: str) -> bool:
        """True when turns were written after the offline extractor's watermark."""
        from emem.consolidate import watermark_name
        from emem.extract.offline import OfflineExtractor

        mark = self.ledger.get_watermark(namespace, watermark_name(OfflineExtractor.name))
        return self.episodes.last_seq(namespace) > mark

    def _catch_up_ledger(self, namespace: str) -> float:
        """Read-through consolidation: the offline rules project what was written since their
        watermark before a ledger read, so a read never sees facts older than the turns it reads.
        Writes stay LLM-free and fast; the cost falls on the first read after them (milliseconds
        for a few turns). Returns the milliseconds spent (0 when nothing was pending)."""
        if not self.consolidate_on_read or not self._ledger_lags(namespace):
            return 0.0
        start = time.perf_counter()
        self._project_facts(namespace)
        return (time.perf_counter() - start) * 1000

    # -- erasure ---------------------------------------------------------------------------------

    def forget(
        self,
        namespace: str,
        turn_ids: Sequence[str] | None = None,
        session_id: str | None = None,
        subject: str | None = None,
        *,
        conversation_id: str | None = None,
        reason: str | None = None,
    ):
        """Erase content from every store it was copied to; the ledger keeps only a tombstone."""
        from emem.erasure import forget

        check_namespace(namespace)
        self._invalidate(namespace)
        return forget(self, namespace, turn_ids=turn_ids, session_id=session_id, subject=subject,
                      conversation_id=conversation_id, reason=reason)

    def drop_namespace(self, namespace: str, *, reason: str | None = None):
        """Remove a whole tenant from every store."""
        from emem.erasure import drop_namespace

        check_namespace(namespace)
        self._invalidate(namespace)
        return drop_namespace(self, namespace, reason=reason)

    def _invalidate(self, namespace: str) -> None:
        """Drop in-memory derived state so nothing erased is served from a cache."""
        self.indexes.drop(namespace)
        if self._read_runtime is not None:
            self._read_runtime.forget(namespace)

    # -- the deep read path --------------------------------------------------------------------

    @property
    def roles(self):  # -> emem.agents.roles.RoleModels
        """Which model serves each LLM role (offline stand-ins unless configured); read once."""
        if self._roles is None:
            from emem.agents.roles import RoleModels

            self._roles = RoleModels.from_home(self.home)
        return self._roles

    def _runtime(self):
        if self._read_runtime is None:
            from emem.agents.master import ReadRuntime, build_master_graph

            self._read_runtime = ReadRuntime(self, self.roles)
            self._graph = build_master_graph(self._read_runtime)
        return self._read_runtime

    @property
    def read_runtime(self):  # -> emem.agents.master.ReadRuntime
        """What the read graph's nodes share (cached views, the question-vector cache); created
        on first use. Benchmarks switch its `cached` flag to time today's code path."""
        return self._runtime()

    def graph(self):
        """The compiled LangGraph master graph (embed it as a subgraph, or invoke it directly)."""
        self._runtime()
        return self._graph

    def ask(
        self,
        question: str,
        namespace: str,
        mode: str = "auto",
        as_of: datetime | str | None = None,
        budget: int | None = None,
    ):
        """Answer from memory with provenance: `fast` (hybrid RAG), `deep` (episodic
        reconstruction by the master and assistant agents) or `auto` (the master decides)."""
        from emem.agents.master import DEFAULT_BUDGET, ask_graph

        check_namespace(namespace)
        check_text(question, "question")
        if mode not in ("fast", "deep", "auto"):
            raise InputError(f"unknown mode {mode!r}; use fast, deep or auto", "mode")
        if budget is not None and (not isinstance(budget, int) or budget < 50):
            raise InputError(f"budget must be an integer of at least 50 tokens, got {budget!r}", "budget")
        when = parse_iso_time(as_of, "as_of") if as_of is not None else None
        self._finish_erasures()
        if self.episodes.last_seq(namespace) == 0:
            raise InputError(f"namespace {namespace!r} holds no turns", "namespace")
        settle_ms = self._catch_up_ledger(namespace)
        self._runtime()
        answer = ask_graph(self._graph, question, namespace, mode, when, budget or DEFAULT_BUDGET)
        if settle_ms:
            stages = {"consolidate": settle_ms, **answer.stage_latency_ms}
            answer = answer.model_copy(update={"stage_latency_ms": stages, "latency_ms": answer.latency_ms + settle_ms})
        return answer

    def segment_summaries(self, namespace: str) -> dict[str, str]:
        """LLM-written segment summaries, when a summariser has run; offline ones are derived."""
        check_namespace(namespace)
        return self.episodes.segment_summaries(namespace)
