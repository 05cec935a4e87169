"""`Memory`: emem's public contract. A thin facade: every method names its namespace and delegates
to the store, index, ledger or read path that owns the job."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from emem.config import MemoryConfig, recipe
from emem.deprecation import namespace_keyword
from emem.embedding import Embedder, embedder_for_home
from emem.errors import InputError
from emem.index.manager import CatchUpReport, IndexManager, NamespaceIndexes, Progress
from emem.ingest.batch import Batch
from emem.ingest.loader import Format, parse_object, read_path
from emem.models import Conversation, Hit, IngestReport, Stats, Turn, check_namespace
from emem.retrieval.filters import TurnFilter, as_filter
from emem.retrieval.hybrid import allowed_keys, hybrid_turns, hybrid_turns_where, to_hit
from emem.segment_state import STATE_DIR, SegmentStateCache
from emem.storage.contract import StorageBackend
from emem.storage.select import open_backend
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

if TYPE_CHECKING:
    from emem.agents.roles import RoleModels
    from emem.answer import Answer
    from emem.consolidate import ConsolidationReport
    from emem.erasure import ErasureReport
    from emem.ledger.models import History, Resolution, Revision
    from emem.ledger.store import Ledger


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
        consolidate_on_read: bool | None = None,
        forget_policy: str | None = None,
        backend: str | StorageBackend | None = None,
        config: MemoryConfig | str | None = None,
    ) -> None:
        """Open (or create) a memory home.

        Every setting can come from `config` (an `emem.config.MemoryConfig`, or the name of a
        recipe such as "default" or "paper-router"); a keyword argument given explicitly wins over
        the config's value.

        Args:
            home: the local directory (default `EMEM_HOME` or `~/.emem`): `llm.json`, logs, and
                with the embedded backend every store.
            embedder: the embedding model (default: the bundled offline MiniLM).
            roles: which model serves each LLM role (default: `<home>/llm.json`, else offline).
            consolidate_on_read: before a ledger read (`ask`, `resolve`, `facts`, `history`), project
                the turns written since the offline extractor's watermark, so no answer sees a ledger
                older than the turns it reads. Off: call `consolidate` yourself (e.g. with an LLM
                extractor).
            forget_policy: what forget requests said in conversation do: "withhold" (default),
                "erase" or "ignore" (else EMEM_FORGET_POLICY; see emem.ledger.withhold).
            backend: where the stores live: "embedded" (SQLite + Chroma under `home`, the default),
                a URL such as "postgres://user@host/db", or an open `emem.storage.StorageBackend`
                (not closed by `close`). Default: env EMEM_BACKEND, else "embedded".
            config: the whole setup as data (default: the "default" recipe).
        """
        from emem.blas import limit_blas_threads
        from emem.ledger.withhold import forget_policy as _forget_policy

        limit_blas_threads()
        cfg = recipe(config) if isinstance(config, str) else config or recipe("default")
        self.config = cfg
        """The config this memory was opened with (keyword arguments given explicitly win)."""
        if home is None:
            home = cfg.home
        if embedder is None and cfg.embedder.kind != "offline":
            embedder = cfg.embedder.build()
        if roles is None and cfg.roles is not None:
            from emem.agents.roles import RoleModels

            roles = RoleModels.from_settings(cfg.roles)
        self.consolidate_on_read = (
            cfg.consolidate_on_read if consolidate_on_read is None else consolidate_on_read
        )
        self.forget_policy = _forget_policy(forget_policy if forget_policy is not None else cfg.forget_policy)
        self.home = open_home(home if home is not None else default_home())
        self._owns_backend = backend is None or isinstance(backend, str)
        self.backend: StorageBackend = open_backend(backend, self.home)
        self.episodes = self.backend.episodes
        self._embedder = embedder
        self.indexes = IndexManager(self.backend, self._get_embedder)
        self._ledger: Ledger | None = None
        self._roles = roles
        self._segment_states: SegmentStateCache | None = None
        self._read_runtime = None
        self._graph = None
        self._search_memo: dict[str, tuple[Any, tuple[int, int], Any, set[str]]] = {}
        """Per namespace: (indexes, their coverage, withheld turns, keys a search may return)."""
        self.last_summary_report = None
        self._finish_erasures()

    def _finish_erasures(self) -> None:
        """Finish any erasure a crash interrupted before this process serves a read from the home."""
        from emem.erasure import complete_pending

        complete_pending(self)

    def _get_embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = embedder_for_home(self.home)
        return self._embedder

    @property
    def ledger(self) -> Ledger:
        """The bitemporal fact ledger of this home (opened on first use)."""
        if self._ledger is None:
            from emem.ledger.store import Ledger

            self._ledger = Ledger(self.backend.ledger)
        return self._ledger

    def close(self) -> None:
        """Write the turn vectors reads held in memory (emem.index.manager.PENDING_MAX), then
        close the backend this Memory opened (the Memory is unusable afterwards)."""
        self.indexes.flush_pending()
        if self._owns_backend:
            self.backend.close()
        if self._segment_states is not None:
            self._segment_states.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- write path (System 1) ----------------------------------------------------------------

    @namespace_keyword(1)
    def add_conversation(
        self, conversation: dict[str, Any] | Conversation, *, namespace: str, restore: bool = False
    ) -> IngestReport:
        """Store a conversation given in emem's or LoCoMo's JSON shape (or the pydantic model).

        Args:
            conversation: the conversation (a dict in emem or LoCoMo shape, or a `Conversation`).
            namespace: the tenant.
            restore: store again turns that `forget` erased (refused otherwise, for every write).

        Returns:
            The ingest report (turns added, already present).
        """
        check_namespace(namespace)
        return self._append(
            namespace, parse_object(conversation, "auto", "conversation"), "conversation", restore
        )

    @namespace_keyword(1)
    def add_turns(
        self, turns: Sequence[dict[str, Any] | Turn], *, namespace: str, restore: bool = False
    ) -> IngestReport:
        """Store individual turns (each names its conversation and session).

        Args:
            turns: turn dicts (conversation_id, session_id, turn_id, speaker, text, time, optional
                image_caption, session_time and metadata) or `Turn` objects.
            namespace: the tenant.
            restore: store again turns that `forget` erased.

        Returns:
            The ingest report. Every missing field of a turn is named in one `InputError`.
        """
        check_namespace(namespace)
        if isinstance(turns, (str, bytes, dict)) or not isinstance(turns, Sequence):
            raise InputError(f"turns must be a list of turn objects, got {type(turns).__name__}", "turns")
        events = [t.model_dump() if isinstance(t, Turn) else t for t in turns]
        return self._append(namespace, parse_object(events, "jsonl", "turns"), "turns", restore)

    @namespace_keyword(1)
    def add_messages(
        self,
        messages: Sequence[Any],
        conversation_id: str = "default",
        session_id: str | None = None,
        time: datetime | str | None = None,
        *,
        namespace: str,
        user_name: str | None = None,
        agent_name: str | None = None,
        metadata: dict[str, Any] | None = None,
        idle_gap: timedelta | float | None = None,
    ) -> IngestReport:
        """Store chat messages as turns: LangChain messages or {"role", "content"} dicts.

        Args:
            messages: the messages, oldest first. System, tool and tool-call-only messages are
                skipped; a message whose id is already stored with the same text is not added again.
            namespace: the tenant.
            conversation_id: the conversation the turns join.
            session_id: the session for every turn; by default the conversation's last session
                continues unless it has been idle longer than `idle_gap`.
            time: when the messages were said (default: now), unless a message carries "time".
            user_name: speaker for user messages (default "user").
            agent_name: speaker for assistant messages (default "assistant").
            metadata: tags stored on every turn (a message's own "metadata" wins per key).
            idle_gap: a pause this long starts a new session (timedelta or seconds; default 30 min).

        Returns:
            The ingest report (added, unchanged for re-sent messages, skipped).

        Raises:
            InputError: naming every bad message and field at once; nothing is stored.
        """
        from emem.ingest.messages import DEFAULT_IDLE_GAP, messages_to_batch
        from emem.timeparse import utcnow

        check_namespace(namespace)
        problems = []
        if not isinstance(conversation_id, str) or not conversation_id.strip() or len(conversation_id) > 256:
            problems.append(
                f"conversation_id must be a non-empty string of at most 256 characters, got {conversation_id!r}"
            )
        if session_id is not None and (not isinstance(session_id, str) or not session_id.strip()):
            problems.append(f"session_id must be a non-empty string, got {session_id!r}")
        if metadata is not None and not isinstance(metadata, dict):
            problems.append(f"metadata must be an object, got {type(metadata).__name__}")
        gap = DEFAULT_IDLE_GAP
        if idle_gap is not None:
            if isinstance(idle_gap, timedelta):
                gap = idle_gap
            elif isinstance(idle_gap, int | float) and not isinstance(idle_gap, bool) and idle_gap > 0:
                gap = timedelta(seconds=idle_gap)
            else:
                problems.append(
                    f"idle_gap must be a timedelta or a positive number of seconds, got {idle_gap!r}"
                )
        when = None
        if time is not None:
            try:
                when = parse_iso_time(time, "time")
            except InputError as exc:
                problems.append(str(exc))
        if problems:
            raise InputError("; ".join(problems), "add_messages")
        ids = [
            m.get("id") if isinstance(m, dict) else getattr(m, "id", None)
            for m in (messages if isinstance(messages, list | tuple) else [])
        ]
        refs = [(conversation_id, i) for i in ids if isinstance(i, str)]
        known = {t.turn_id: t for t in self.episodes.get_turns(namespace, refs)} if refs else {}
        result = messages_to_batch(
            messages,
            conversation_id=conversation_id,
            now=utcnow(),
            session_id=session_id,
            time=when,
            user_name=user_name,
            agent_name=agent_name,
            metadata=metadata,
            last_turn=self.episodes.last_turn(namespace, conversation_id),
            known=known,
            idle_gap=gap,
        )
        extra = {"skipped": result.skipped}
        if not result.batch.turns:
            return IngestReport(namespace=namespace, added=0, unchanged=result.known, **extra)
        report = self._append(namespace, result.batch, "messages")
        return report.model_copy(update={"unchanged": report.unchanged + result.known, **extra})

    @namespace_keyword(1)
    def ingest_file(
        self, path: str | Path, fmt: Format = "auto", *, namespace: str, restore: bool = False
    ) -> IngestReport:
        """Store a LoCoMo JSON, emem JSON or JSONL file atomically (all of it or none).

        Args:
            path: the file.
            namespace: the tenant.
            fmt: "auto", "locomo", "emem" or "jsonl".
            restore: store again turns that `forget` erased.

        Returns:
            The ingest report.
        """
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
        """Catch the derived indexes up with the episode store (search does this on demand).

        Args:
            namespace: the tenant.
            progress: called as progress(done, total) while embedding.

        Returns:
            What the catch-up did (new turns, seconds, coverage).
        """
        check_namespace(namespace)
        self._finish_erasures()
        return self.indexes.catch_up(namespace, progress)

    # -- read path -----------------------------------------------------------------------------

    @namespace_keyword(1)
    def search(
        self, query: str, k: int = 10, *, namespace: str, filter: TurnFilter | dict[str, Any] | None = None
    ) -> list[Hit]:
        """Hybrid (BM25 + dense, RRF-fused) search over this namespace's turns.

        Args:
            query: what to look for.
            namespace: the tenant.
            k: how many hits at most.
            filter: only turns it keeps (conversation_id, session_id, speaker, since, until,
                metadata); a `TurnFilter` or a dict of its fields.

        Returns:
            Hits, best first, each with its turn's provenance and metadata.
        """
        check_namespace(namespace)
        check_text(query, "query")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InputError(f"k must be a positive integer, got {k!r}", "k")
        flt = as_filter(filter)
        self._finish_erasures()
        self._catch_up_ledger(namespace)
        ns = self.indexes.current(namespace)
        runtime = self._runtime()
        requests = runtime.forget_requests(namespace)
        # What the user asked to forget is withheld from every read, search included: the same
        # set of turns `ask` drops in every mode (agent replies that repeat it included).
        withheld = runtime.withheld(namespace, runtime.view(namespace)) if requests else {}

        def keep(t: Any) -> bool:
            return (flt is None or flt.matches(t)) and (t.conversation_id, t.turn_id) not in withheld

        # The read runtime's query vectors: an agent that asks and then searches (or searches
        # again) embeds a query once; `ReadRuntime.forget` drops them on erasure.
        embed = runtime.embed
        candidates = self.config.read.candidates
        if flt is None and not requests:
            return [to_hit(t, s) for t, s in hybrid_turns(ns, query, k, candidates, embed=embed)]
        allowed = self._unwithheld_keys(ns, withheld, keep) if flt is None else None
        hits = hybrid_turns_where(ns, query, k, keep, candidates, embed=embed, allowed=allowed)
        return [to_hit(t, s) for t, s in hits]

    def _unwithheld_keys(
        self, ns: NamespaceIndexes, withheld: dict[Any, Any], keep: Callable[[Any], bool]
    ) -> set[str]:
        """The namespace's turn keys a search without a filter may return: those `withheld` does
        not hold. Kept while the same indexes cover the same turns and `withheld` is the same
        object (`ReadRuntime.withheld` returns one per view and requests): rescanning every turn
        was a third of a new query's search at 10 LoCoMo conversations. The indexes only grow
        with their coverage, and an erasure replaces them."""
        memo = self._search_memo.get(ns.namespace)
        if (
            memo is not None
            and memo[0] is ns
            and memo[1] == (ns.covered_seq, len(ns.turns))
            and memo[2] is withheld
        ):
            return memo[3]
        allowed = allowed_keys(ns, keep)
        self._search_memo[ns.namespace] = (ns, (ns.covered_seq, len(ns.turns)), withheld, allowed)
        return allowed

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
        # A request said in a turn not yet projected counts: catch the ledger up first.
        return self._ledger_read(namespace, lambda: active_forget_requests(self.ledger, namespace))

    def namespace_exists(self, namespace: str) -> bool:
        """Whether the namespace holds any turn or fact (read commands refuse one that does not,
        so a typo is an error rather than an empty result).

        Args:
            namespace: the tenant.

        Returns:
            True when something is stored under it.
        """
        check_namespace(namespace)
        if self.episodes.last_seq(namespace) > 0:
            return True
        return self.backend.has_ledger() and self.ledger.count(namespace) > 0

    def stats(self, namespace: str) -> Stats:
        """Counts and index coverage.

        Args:
            namespace: the tenant.

        Returns:
            Conversations, sessions, turns, facts, last event seq and per-index coverage.
        """
        check_namespace(namespace)
        self._finish_erasures()
        conversations, sessions, turns = self.episodes.counts(namespace)
        facts = self.ledger.count(namespace) if self.backend.has_ledger() else 0
        return Stats(
            namespace=namespace,
            conversations=conversations,
            sessions=sessions,
            turns=turns,
            last_seq=self.episodes.last_seq(namespace),
            index_coverage=self.indexes.coverage(namespace),
            facts=facts,
            segment_states=self.segment_states.stats(namespace) if self.segment_states.exists else None,
        )

    # -- the ledger (what is current) ------------------------------------------------------------

    @namespace_keyword(0)
    def assert_fact(
        self,
        subject: str,
        predicate: str,
        object: str,  # noqa: A002 - the documented parameter name
        valid_from: datetime | str,
        valid_to: datetime | str | None = None,
        known_at: datetime | str | None = None,
        sources: Sequence[str] = (),
        cardinality: str | None = None,
        *,
        namespace: str,
    ) -> Revision:
        """Assert a fact by hand (a user's statement), versioned in the ledger.

        Args:
            namespace: the tenant.
            subject, predicate, object: the fact (predicate from the vocabulary, e.g. lives_in, or
                an open snake_case predicate declared by `cardinality`).
            valid_from / valid_to: when it holds in the world.
            known_at: when it became known (default now).
            sources: "conversation_id/turn_id" refs it rests on (each must be a stored turn).
            cardinality: "single" or "multi", to declare an open predicate on first use.

        Returns:
            The new revision.
        """
        check_namespace(namespace)
        refs = check_text_list(sources, "sources")
        stored = {
            f"{t.conversation_id}/{t.turn_id}" for t in self.episodes.get_turns(namespace, map(_ref, refs))
        }
        missing = [r for r in refs if r not in stored]
        if missing:
            raise InputError(
                f"no stored turn {missing[0]!r} in namespace {namespace!r} (a source is 'conversation_id/turn_id')",
                "sources",
            )
        return self.ledger.assert_fact(
            namespace,
            subject,
            predicate,
            object,
            valid_from,
            valid_to,
            known_at,
            refs,
            cardinality=cardinality,
        )

    @namespace_keyword(0)
    def revoke(
        self,
        revision_id: str,
        known_at: datetime | str | None = None,
        reason: str | None = None,
        *,
        namespace: str,
    ) -> Revision:
        """Withdraw a revision as of `known_at` (it stays in history, no longer believed).

        Args:
            namespace: the tenant.
            revision_id: the revision (or a unique prefix of its id).
            known_at: when it was withdrawn (default now).
            reason: why.

        Returns:
            The revocation revision.
        """
        check_namespace(namespace)
        return self.ledger.revoke(namespace, revision_id, known_at=known_at, reason=reason)

    @namespace_keyword(0)
    def resolve(
        self,
        subject: str,
        predicate: str,
        valid_at: datetime | str | None = None,
        known_at: datetime | str | None = None,
        *,
        namespace: str,
    ) -> Resolution:
        """What is subject.predicate at valid time `valid_at`, as known at `known_at`?

        Args:
            namespace: the tenant.
            subject, predicate: the question.
            valid_at / known_at: the two times (default now).

        Returns:
            The resolution: status state / miss / conflict, values and the revisions behind them.
        """
        check_namespace(namespace)
        found = self._ledger_read(
            namespace,
            lambda: self.ledger.resolve(namespace, subject, predicate, valid_at=valid_at, known_at=known_at),
        )
        return self._withhold_facts(namespace, [found])[0]

    @namespace_keyword(0)
    def facts(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        valid_at: datetime | str | None = None,
        known_at: datetime | str | None = None,
        *,
        namespace: str,
    ) -> list[Resolution]:
        """Every current fact, optionally of one subject and/or predicate.

        Args:
            namespace: the tenant.
            subject / predicate: narrow the listing.
            valid_at / known_at: the two times (default now).

        Returns:
            One resolution per (subject, predicate).
        """
        check_namespace(namespace)
        found = self._ledger_read(
            namespace,
            lambda: self.ledger.facts(
                namespace, subject=subject, predicate=predicate, valid_at=valid_at, known_at=known_at
            ),
        )
        # A fact whose every value is withheld is not listed at all.
        return [
            w
            for r, w in zip(found, self._withhold_facts(namespace, found), strict=True)
            if w is r or w.values
        ]

    def _withhold_facts(self, namespace: str, found: list[Resolution]) -> list[Resolution]:
        """Resolutions without what forget requests withhold: the same turns and facts `ask`
        and `search` withhold (`emem.ledger.withhold.withhold_resolution`)."""
        from emem.ledger.withhold import withhold_resolution

        requests, withheld = self._withheld_refs(namespace)
        if not requests:
            return found
        return [withhold_resolution(r, requests, withheld) for r in found]

    def _withheld_refs(self, namespace: str) -> tuple[list[Any], set[str]]:
        """The forget requests in force and the refs ("conv/turn") of the turns they withhold, as
        the read runtime computes them for `ask` and `search`; ledger reads filter with them."""
        runtime = self._runtime()
        requests = runtime.forget_requests(namespace)
        if not requests:
            return [], set()
        return requests, {f"{c}/{t}" for c, t in runtime.withheld(namespace, runtime.view(namespace))}

    @namespace_keyword(0)
    def history(self, subject: str, predicate: str | None = None, *, namespace: str) -> History:
        """The full bitemporal record of a subject: every revision and what superseded it.

        Args:
            namespace: the tenant.
            subject: whose history.
            predicate: narrow to one predicate.

        Returns:
            The history (timeline entries and relations).
        """
        check_namespace(namespace)
        found = self._ledger_read(
            namespace, lambda: self.ledger.history(namespace, subject, predicate=predicate)
        )
        # Audit keeps every row and the forget requests themselves, but not what they withhold.
        from emem.ledger.withhold import withhold_history

        requests, withheld = self._withheld_refs(namespace)
        return withhold_history(found, requests, withheld) if requests else found

    def consolidate(self, namespace: str, extractor: Any = None) -> ConsolidationReport:
        """System 2: project facts from episodes not yet consolidated, and (when a summariser model
        is configured) write segment summaries. Never runs inside a write.

        Args:
            namespace: the tenant.
            extractor: the fact extractor (default the offline rules).

        Returns:
            What was projected (revisions, revocations, conflicts).
        """
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
        turns = self.episodes.turns(
            namespace, after_seq=self.ledger.get_watermark(namespace, watermark_name(name))
        )
        judge = self.roles.get("adjudicator")
        adjudicator = None
        if judge is not None:
            from emem.adjudicate import LLMAdjudicator

            adjudicator = LLMAdjudicator(judge)
        report = consolidate(
            namespace, turns, self.ledger, extractor, adjudicator=adjudicator, extractor_name=name
        )
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

    @namespace_keyword(0)
    def forget(
        self,
        turn_ids: Sequence[str] | None = None,
        session_id: str | None = None,
        subject: str | None = None,
        *,
        namespace: str,
        conversation_id: str | None = None,
        reason: str | None = None,
    ) -> ErasureReport:
        """Erase content from every store it was copied to; the ledger keeps only a tombstone.

        Args:
            namespace: the tenant.
            turn_ids: turns to erase.
            session_id: a session to erase.
            subject: erase every fact about it and the turns they came from.
            conversation_id: narrows the selectors; alone, erases the whole conversation.
            reason: kept with the tombstones.

        Returns:
            Counts, ids and hashes of what was erased (never the content).
        """
        from emem.erasure import forget

        check_namespace(namespace)
        self.invalidate(namespace)
        return forget(
            self,
            namespace,
            turn_ids=turn_ids,
            session_id=session_id,
            subject=subject,
            conversation_id=conversation_id,
            reason=reason,
        )

    def drop_namespace(self, namespace: str, *, reason: str | None = None) -> ErasureReport:
        """Remove a whole tenant from every store.

        Args:
            namespace: the tenant.
            reason: recorded on the namespace tombstone.

        Returns:
            What was erased.
        """
        from emem.erasure import drop_namespace

        check_namespace(namespace)
        self.invalidate(namespace)
        return drop_namespace(self, namespace, reason=reason)

    def invalidate(self, namespace: str) -> None:
        """Drop this process's in-memory derived state of a namespace (BM25, read views), so
        nothing erased is served from a cache; it is rebuilt from the stores on next use.

        Args:
            namespace: the tenant.
        """
        self.indexes.drop(namespace)
        self._search_memo.pop(namespace, None)
        if self._read_runtime is not None:
            self._read_runtime.forget(namespace)

    # -- the deep read path --------------------------------------------------------------------

    @property
    def segment_states(self) -> SegmentStateCache:
        """Saved model states of segment prefixes (`<home>/segment-state`), used by assistants
        that run a local model in-process; empty (no file) until one is built."""
        if self._segment_states is None:
            self._segment_states = SegmentStateCache(self.home / STATE_DIR)
        return self._segment_states

    @property
    def roles(self) -> RoleModels:
        """Which model serves each LLM role (offline stand-ins unless configured); read once."""
        if self._roles is None:
            from emem.agents.roles import RoleModels

            self._roles = RoleModels.from_home(self.home)
        return self._roles

    def _runtime(self):
        if self._read_runtime is None:
            from emem.agents.master import ReadRuntime

            self._read_runtime = ReadRuntime(self, self.roles, config=self.config.read)
        return self._read_runtime

    @property
    def read_runtime(self):  # -> emem.agents.master.ReadRuntime
        """What the read graph's nodes share (cached views, the question-vector cache); created
        on first use. Benchmarks switch its `cached` flag to time today's code path."""
        return self._runtime()

    def graph(self) -> Any:
        """The LangGraph master graph bound to this memory (embed it as a subgraph, or invoke it
        directly; `emem.agents.master.master_graph()` is the unbound one, run with
        `context=memory.read_runtime`).

        Returns:
            A `CompiledStateGraph` (input: question, namespace, mode, as_of, budget, filter;
            output: answer).
        """
        if self._graph is None:
            from emem.agents.master import build_master_graph

            self._graph = build_master_graph(self._runtime())
        return self._graph

    @namespace_keyword(1)
    def ask(
        self,
        question: str,
        mode: str = "auto",
        as_of: datetime | str | None = None,
        budget: int | None = None,
        *,
        namespace: str,
        filter: TurnFilter | dict[str, Any] | None = None,
    ) -> Answer:
        """Answer from memory with provenance: `fast` (hybrid RAG), `deep` (episodic
        reconstruction by the master and assistant agents) or `auto` (the master decides).

        Args:
            question: the question, in natural language.
            namespace: the tenant.
            mode: "fast", "deep" or "auto".
            as_of: answer as known at this time (ISO-8601 or datetime); later turns are hidden.
            budget: token budget for the packed context (at least 50).
            filter: a `TurnFilter` or a dict of its fields; only the turns and facts it keeps are
                used as evidence.

        Returns:
            The `Answer`, with evidence, facts, usage and timings.
        """
        from emem.agents.master import ask_graph, master_graph

        inputs = self._ask_inputs(question, namespace, mode, as_of, budget, filter)  # builds the runtime
        return ask_graph(master_graph(), **inputs, context=self._read_runtime)

    def _ask_inputs(
        self,
        question: str,
        namespace: str,
        mode: str,
        as_of: datetime | str | None,
        budget: int | None,
        filter: TurnFilter | dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Validate an ask once for `ask` and `aask`; build the read graph's input."""
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
        flt = as_filter(filter)
        settle_ms = self._catch_up_ledger(namespace)
        self._runtime()
        return {
            "question": question,
            "namespace": namespace,
            "mode": mode,
            "as_of": when,
            "budget": budget or self.config.read.budget,
            "filter": flt,
            "settle_ms": settle_ms,
        }

    def segment_summaries(self, namespace: str) -> dict[str, str]:
        """LLM-written segment summaries, when a summariser has run; offline ones are derived.

        Args:
            namespace: the tenant.

        Returns:
            segment id -> summary.
        """
        check_namespace(namespace)
        return self.episodes.segment_summaries(namespace)

    # -- async API: the same implementations, awaited ---------------------------------------------
    # Writes, search and erasure are SQLite/Chroma work: they run in a worker thread so an event
    # loop is never blocked. `aask` runs the read graph with `ainvoke`, so the assistants' LLM
    # calls of a deep ask run concurrently, and many asks can share one loop.

    @namespace_keyword(1)
    async def aadd_turns(
        self, turns: Sequence[dict[str, Any] | Turn], *, namespace: str, restore: bool = False
    ) -> IngestReport:
        """`add_turns`, awaited (one implementation: the sync method in a worker thread).

        Args:
            The same as `add_turns`.

        Returns:
            The same as `add_turns`: the ingest report.
        """
        return await asyncio.to_thread(self.add_turns, turns, namespace=namespace, restore=restore)

    @namespace_keyword(1)
    async def aadd_messages(
        self, messages: Sequence[Any], *args: Any, namespace: str, **kwargs: Any
    ) -> IngestReport:
        """`add_messages`, awaited (one implementation: the sync method in a worker thread).

        Args:
            The same as `add_messages`.

        Returns:
            The same as `add_messages`: the ingest report.
        """
        return await asyncio.to_thread(self.add_messages, messages, *args, namespace=namespace, **kwargs)

    @namespace_keyword(1)
    async def asearch(self, query: str, k: int = 10, *, namespace: str, **kwargs: Any) -> list[Hit]:
        """`search`, awaited (one implementation: the sync method in a worker thread).

        Args:
            The same as `search`.

        Returns:
            The same as `search`: the hits.
        """
        return await asyncio.to_thread(self.search, query, k, namespace=namespace, **kwargs)

    @namespace_keyword(1)
    async def aask(
        self,
        question: str,
        mode: str = "auto",
        as_of: datetime | str | None = None,
        budget: int | None = None,
        *,
        namespace: str,
        filter: TurnFilter | dict[str, Any] | None = None,
    ) -> Answer:
        """`ask` through the read graph's `ainvoke` (validated by the same code as `ask`).

        Args:
            The same as `ask`.

        Returns:
            The `Answer`, as `ask` returns it.
        """
        from emem.agents.master import aask_graph, master_graph

        inputs = await asyncio.to_thread(self._ask_inputs, question, namespace, mode, as_of, budget, filter)
        return await aask_graph(master_graph(), **inputs, context=self._read_runtime)

    async def aconsolidate(self, namespace: str, extractor: Any = None) -> ConsolidationReport:
        """`consolidate`, awaited (one implementation: the sync method in a worker thread).

        Args:
            The same as `consolidate`.

        Returns:
            The same as `consolidate`: the consolidation report.
        """
        return await asyncio.to_thread(self.consolidate, namespace, extractor)

    @namespace_keyword(0)
    async def aforget(self, *args: Any, namespace: str, **kwargs: Any) -> ErasureReport:
        """`forget`, awaited (one implementation: the sync method in a worker thread).

        Args:
            The same as `forget`.

        Returns:
            The same as `forget`: the erasure report.
        """
        return await asyncio.to_thread(self.forget, *args, namespace=namespace, **kwargs)
