"""Erasure: make content disappear from every place emem copied it to, keeping only tombstones.

This module is orchestration over the storage contract (emem.storage): it selects what goes,
then asks each store of the backend to erase it; it never touches SQL, files of a store or a
vector library. Where a turn's content can live, and what `forget` does there:

* episode store: `EpisodeStore.erase` deletes the turns, with sessions left empty and the
  segment summaries of every touched session, and records the erasure's intent and a tombstone
  per turn, in one transaction;
* ledger: every revision projected from an erased turn (its `sources` name the turn) or about an
  erased subject, every revocation of those, and every relation touching them are deleted through
  `LedgerStore.purge`, the one guarded exception to append-only, which records a tombstone per
  erased turn, revision and relation (id, content hash, time, reason);
* vector index: `VectorIndex.erase` removes the turns' vectors (and any whose turn is no longer
  stored) so that no structure keeps them; the text-vector cache drops the namespace's rows
  (summaries quote the turns);
* compaction: `StorageBackend.compact` rewrites every store so no freed page, stale index key,
  write-ahead log or vector file keeps erased bytes (what each backend does: docs/storage.md);
* in-memory state (BM25, read views, caches): dropped here, and in other processes through the
  coordinator's "erase" token, checked on their next search;
* saved segment states (`<home>/segment-state`, local assistants' KV mode): every state that
  encodes an erased turn is deleted (all of the namespace's on a drop);
* JSONL logs under the home (e.g. eval run logs written there): rows quoting erased text are
  removed (see `_redact_logs` for the rule).

Erasure runs under the coordinator's exclusive lock and is idempotent: rerunning it after a crash
finishes the job (orphan vectors are reconciled against the episode store on every run). A
consolidation running at the same time in another process may re-project a turn just read;
run `forget` again after it (or run erasure when consolidation is idle).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from emem.errors import InputError
from emem.index.manager import is_dense_coverage_key
from emem.ledger.models import Relation, Revision
from emem.ledger.predicates import subject_key
from emem.models import StoredTurn, check_namespace
from emem.storage.contract import ErasedTurn, LedgerStore, StorageBackend
from emem.validation import check_text

MAX_REASON_CHARS = 1000
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
MIN_NEEDLE_CHARS = 12
"""Erased text shorter than this is not used to redact logs (it would match unrelated rows)."""


class ErasureReport(BaseModel):
    """What an erasure removed. Counts, ids and hashes only: never the erased content."""

    namespace: str
    erasure_id: str
    reason: str | None = None
    turns: int = 0
    turn_refs: list[str] = Field(default_factory=list)
    """"conversation_id/turn_id" of every erased turn."""
    not_found: list[str] = Field(default_factory=list)
    """Requested turn ids / session / subject with nothing stored (already erased, or a typo)."""
    sessions: int = 0
    segment_summaries: int = 0
    revisions: int = 0
    relations: int = 0
    vectors: int = 0
    collections_rebuilt: int = 0
    tombstones: int = 0
    log_rows_redacted: int = 0
    segment_states: int = 0
    """Saved segment states deleted (they encode the erased turns)."""
    files_compacted: list[str] = Field(default_factory=list)
    resumed: list[str] = Field(default_factory=list)
    """Ids of earlier, interrupted erasures this call finished first (their counts are not here)."""
    warnings: list[str] = Field(default_factory=list)
    """Steps that could not finish (e.g. a reader held the WAL); rerun to complete them."""

    @property
    def complete(self) -> bool:
        return not self.warnings


class ErasureTarget(Protocol):
    """What erasure needs of a `Memory`: its backend, its home (for logs) and a way to drop its
    in-memory caches."""

    home: Path
    backend: StorageBackend

    def invalidate(self, namespace: str) -> None: ...


def _ref(turn: StoredTurn) -> str:
    return f"{turn.conversation_id}/{turn.turn_id}"


# -- public API -----------------------------------------------------------------------------------

KILL_ENV = "EMEM_ERASURE_KILL_AT"
"""Test hook: SIGKILL this process at the named step boundary (tests and the crash loop)."""
STEPS = ("selected", "logs_redacted", "deleted", "ledger_purged", "vectors_scrubbed", "compacted", "done")
"""Step boundaries of an erasure, in order. Before "deleted" nothing is recorded (the caller was not
answered: rerun it); from "deleted" on, the intent and tombstones are durable and any process that
opens the home finishes the job before serving a read."""


def _step(name: str) -> None:
    if os.environ.get(KILL_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def forget(
    memory: ErasureTarget,
    namespace: str,
    turn_ids: Sequence[str] | None = None,
    session_id: str | None = None,
    subject: str | None = None,
    conversation_id: str | None = None,
    reason: str | None = None,
) -> ErasureReport:
    """Erase turns and the facts projected from them from every store of `memory`'s backend.

    What is selected is the union of: the turns named by `turn_ids`; every turn of `session_id`;
    with `subject`, every ledger revision about that subject (case- and space-insensitive, as the
    ledger matches subjects) and every turn those revisions were projected from; and, when only
    `conversation_id` is given, the whole conversation. `conversation_id` otherwise narrows each
    selector to that conversation (a turn or session id present in several conversations must be
    narrowed, or the call is refused). Then every revision citing a selected turn goes too, with
    the revocations of erased revisions and every relation touching them. Turns that merely
    mention the subject but produced no fact stay: find them with search and name them.

    Every argument is checked before anything changes. The turns' deletion, the erasure's intent
    (what else must go, by id) and the turn tombstones commit in one transaction; the rest is
    finished from that record, here or by the next process to open the backend after a crash.

    Args:
        memory: the Memory (its backend, home and caches).
        namespace: the tenant.
        turn_ids / session_id / subject / conversation_id: the selectors (see above).
        reason: kept with the tombstones.

    Returns:
        Counts, ids and hashes of what was erased (never the content).
    """
    check_namespace(namespace)
    ids = _check_args(turn_ids, session_id, subject, conversation_id, reason)
    report = ErasureReport(namespace=namespace, erasure_id=uuid.uuid4().hex, reason=reason)
    backend = memory.backend
    lock = backend.coordinator
    with lock.exclusive():
        lock.bump("write", "erase", notify_local=True)
        report.resumed = [r.erasure_id for r in _complete_pending(backend, memory.home)]
        ledger = backend.ledger
        turns = _select_turns(backend, namespace, ids, session_id, conversation_id, report)
        seed: list[Revision] = []
        whole = None
        if subject is not None:
            seed = _revisions_about(ledger, namespace, subject, conversation_id)
            if not seed:
                report.not_found.append(f"subject {subject!r}")
            sources = {s for r in seed for s in r.sources}
            if conversation_id is not None:
                sources = {s for s in sources if s.partition("/")[0] == conversation_id}
            known = {_ref(t) for t in turns}
            turns += _turns_by_ref(backend, namespace, sorted(sources - known))
            whole = subject if conversation_id is None else None  # all its relations too
        refs = {_ref(t) for t in turns}
        revs, rels = _doomed(ledger, namespace, seed, refs, whole)
        _step("selected")
        if not turns and not revs and not rels:
            return report
        # Logs first, while the erased text can still be read (the intent keeps no content).
        _redact_logs(memory, namespace, _needles(turns, revs), report)
        _step("logs_redacted")
        _record_and_delete(backend, namespace, "forget", turns, revs, rels, report)
        _step("deleted")
        _finish(backend, namespace, report.erasure_id, report, memory.home)
    memory.invalidate(namespace)  # after the lock: invalidation takes the index manager's lock
    return report


def drop_namespace(memory: ErasureTarget, namespace: str, reason: str | None = None) -> ErasureReport:
    """Remove a whole tenant: its turns, sessions, summaries, coverage rows, every ledger row and
    watermark, and its vectors. The ledger keeps one tombstone per erased row plus a 'namespace'
    tombstone. Recorded and resumed like `forget`.

    Args:
        memory: the Memory (its backend, home and caches).
        namespace: the tenant.
        reason: recorded on the tombstones.

    Returns:
        What was erased.
    """
    check_namespace(namespace)
    _check_args(None, None, None, None, reason, require_selector=False)
    report = ErasureReport(namespace=namespace, erasure_id=uuid.uuid4().hex, reason=reason)
    backend = memory.backend
    lock = backend.coordinator
    with lock.exclusive():
        lock.bump("write", "erase", notify_local=True)
        report.resumed = [r.erasure_id for r in _complete_pending(backend, memory.home)]
        turns = backend.episodes.turns(namespace)
        ledger = backend.ledger
        rows = ledger.load(namespace, relations=())[0]
        revs, rels = _doomed(ledger, namespace, rows, set(), None, all_relations=True)
        _step("selected")
        _redact_logs(memory, namespace, _needles(turns, revs), report)
        _step("logs_redacted")
        _record_and_delete(backend, namespace, "drop", turns, revs, rels, report, whole_namespace=True)
        _step("deleted")
        _finish(backend, namespace, report.erasure_id, report, memory.home)
    memory.invalidate(namespace)
    return report


def complete_pending(memory: ErasureTarget) -> list[ErasureReport]:
    """Finish every erasure whose delete committed but whose cleanup was interrupted (a crash, a
    kill). Cheap when there is none; `Memory` calls it on open and before reads.

    Args:
        memory: the Memory (its backend and caches).

    Returns:
        One report per erasure finished.
    """
    backend = memory.backend
    if not backend.episodes.pending_erasures():
        return []
    with backend.coordinator.exclusive():
        reports = _complete_pending(backend, memory.home)
    for r in reports:
        memory.invalidate(r.namespace)
    return reports


def _complete_pending(backend: StorageBackend, home: Path | None = None) -> list[ErasureReport]:
    """Caller holds the coordinator's exclusive lock."""
    out = []
    for row in backend.episodes.pending_erasures():
        report = ErasureReport(namespace=row.namespace, erasure_id=row.erasure_id, reason=row.reason)
        _finish(backend, row.namespace, row.erasure_id, report, home)
        out.append(report)
    return out


def _record_and_delete(
    backend: StorageBackend,
    namespace: str,
    kind: str,
    turns: list[StoredTurn],
    revs: list[Revision],
    rels: list[Relation],
    report: ErasureReport,
    whole_namespace: bool = False,
) -> None:
    """The one commit that makes the erasure happen: intent, turn tombstones and delete together."""
    plan = {
        "revisions": [[r.id, _row_hash(r)] for r in revs],
        "relations": [[r.id, _row_hash(r)] for r in rels],
    }
    rows = [ErasedTurn(t.seq, t.conversation_id, t.session_id, t.turn_id, t.hash) for t in turns]
    counts = backend.episodes.erase(
        namespace,
        report.erasure_id,
        kind,
        report.reason,
        json.dumps(plan),
        rows,
        whole_namespace=whole_namespace,
    )
    report.turns += counts["turns"]
    report.sessions += counts["sessions"]
    report.segment_summaries += counts["segment_summaries"]
    report.turn_refs = sorted({*report.turn_refs, *(_ref(t) for t in turns)})


def _finish(
    backend: StorageBackend, namespace: str, erasure_id: str, report: ErasureReport, home: Path | None = None
) -> None:
    """Idempotent cleanup from the recorded intent: ledger rows and tombstones, vectors, caches,
    saved segment states (under `home`), compaction. Caller holds the coordinator's exclusive lock."""
    episodes = backend.episodes
    row = next((r for r in episodes.pending_erasures() if r.erasure_id == erasure_id), None)
    if row is None:
        return
    plan = json.loads(row.plan)
    erased = episodes.erased_turns(erasure_id)
    ledger = backend.ledger
    done = {str(t["id"]) for t in ledger.tombstones(namespace) if t["erasure_id"] == erasure_id}
    refs = {f"{t.conversation_id}/{t.turn_id}" for t in erased}
    # A consolidation elsewhere may have projected the turns again meanwhile: those go too.
    extra_revs, extra_rels = _doomed(ledger, namespace, [], refs, None)
    revs = {rid: digest for rid, digest in plan["revisions"]} | {r.id: _row_hash(r) for r in extra_revs}
    rels = {rid: digest for rid, digest in plan["relations"]} | {r.id: _row_hash(r) for r in extra_rels}
    tombs = [(rid, "revision", d) for rid, d in revs.items()] + [
        (rid, "relation", d) for rid, d in rels.items()
    ]
    tombs += [(f"turn:{t.conversation_id}/{t.turn_id}", "turn", t.hash) for t in erased]
    whole = row.kind == "drop"
    if whole:
        tombs.append((f"namespace:{namespace}", "namespace", _digest([t.hash for t in erased])))
    new_tombs = [t for t in tombs if t[0] not in done]
    check_namespace(namespace)
    n_rev, n_rel = ledger.purge(
        namespace,
        list(revs),
        list(rels),
        new_tombs,
        erasure_id=erasure_id,
        reason=row.reason,
        drop_watermarks=whole,
    )
    report.revisions += n_rev
    report.relations += n_rel
    report.tombstones += len(new_tombs)
    _step("ledger_purged")
    _scrub_vectors(backend, namespace, {str(t.seq) for t in erased}, whole=whole, report=report)
    _step("vectors_scrubbed")
    # Summary vectors cached by content hash embed what the erased turns said, and entity-label
    # rows are keyed by their texts: drop all of the namespace's (the next read recomputes what
    # survives).
    backend.text_vectors.erase_namespace(namespace)
    if home is not None:
        report.segment_states += _erase_states(home, namespace, None if whole else refs)
    compacted = backend.compact()
    report.files_compacted += compacted.compacted
    report.warnings += compacted.warnings
    _step("compacted")
    if report.complete:
        episodes.finish_erasure(erasure_id)
        _step("done")


def _erase_states(home: Path, namespace: str, refs: set[str] | None) -> int:
    """Delete the saved segment states that encode `refs` (None: all of the namespace's)."""
    from emem.segment_state import STATE_DIR, SegmentStateCache

    states = SegmentStateCache(home / STATE_DIR)
    try:
        return states.erase(namespace, refs)
    finally:
        states.close()


# -- selection ------------------------------------------------------------------------------------


def _check_args(
    turn_ids: object,
    session_id: object,
    subject: object,
    conversation_id: object,
    reason: object,
    require_selector: bool = True,
) -> list[str]:
    """Refuse bad arguments before anything changes: an error half-way would leave a half-erasure."""
    if turn_ids is not None and (isinstance(turn_ids, (str, bytes)) or not isinstance(turn_ids, Sequence)):
        raise InputError("turn_ids must be a list of turn ids", "turn_ids")
    ids = list(turn_ids or [])
    for name, value in (
        ("turn_ids", ids),
        ("session_id", session_id),
        ("subject", subject),
        ("conversation_id", conversation_id),
    ):
        items = value if isinstance(value, list) else [value]
        for item in items:
            if item is not None:
                check_text(item, name, max_chars=1000)
    if reason is not None:
        check_text(reason, "reason", max_chars=MAX_REASON_CHARS, allow_blank=True)
    if require_selector and not (ids or session_id or subject or conversation_id):
        raise InputError("nothing to forget: give turn ids, a session, a subject or a conversation")
    return ids


def _select_turns(
    backend: StorageBackend,
    namespace: str,
    turn_ids: list[str],
    session_id: str | None,
    conversation_id: str | None,
    report: ErasureReport,
) -> list[StoredTurn]:
    episodes = backend.episodes
    found: dict[int, StoredTurn] = {}
    for column, values in (("turn_id", turn_ids), ("session_id", [session_id] if session_id else [])):
        for value in values:
            rows = (
                episodes.turns(namespace, conversation_id=conversation_id, turn_id=value)
                if column == "turn_id"
                else episodes.turns(namespace, conversation_id=conversation_id, session_id=value)
            )
            convs = sorted({t.conversation_id for t in rows})
            if len(convs) > 1:
                raise InputError(
                    f"{column.replace('_', ' ')} {value!r} exists in {len(convs)} conversations "
                    f"({', '.join(convs[:5])}); name the conversation too",
                    "conversation_id",
                )
            if not rows:
                report.not_found.append(f"{column.replace('_id', '')} {value!r}")
            found.update((t.seq, t) for t in rows)
    if conversation_id is not None and not turn_ids and not session_id:
        rows = episodes.turns(namespace, conversation_id=conversation_id)
        if not rows:
            report.not_found.append(f"conversation {conversation_id!r}")
        found.update((t.seq, t) for t in rows)
    return sorted(found.values(), key=lambda t: t.seq)


def _turns_by_ref(backend: StorageBackend, namespace: str, refs: list[str]) -> list[StoredTurn]:
    return backend.episodes.get_turns(namespace, [(r.partition("/")[0], r.partition("/")[2]) for r in refs])


# -- ledger ---------------------------------------------------------------------------------------


def _revisions_about(
    ledger: LedgerStore, namespace: str, subject: str, conversation_id: str | None
) -> list[Revision]:
    rows = ledger.load(namespace, subject_key(subject), relations=())[0]
    if conversation_id is not None:
        rows = [r for r in rows if any(s.partition("/")[0] == conversation_id for s in r.sources)]
    return rows


def _doomed(
    ledger: LedgerStore,
    namespace: str,
    seed: list[Revision],
    refs: set[str],
    subject: str | None,
    all_relations: bool = False,
) -> tuple[list[Revision], list[Relation]]:
    """The revision and relation rows to erase: `seed`, every revision citing one of `refs`, the
    revocations of all of them, and every relation touching them (or about `subject`)."""
    rows, rels = ledger.load(namespace)
    doomed = {r.id: r for r in seed}
    doomed.update((r.id, r) for r in rows if refs & set(r.sources))
    while True:  # revocations copy their target's subject and value
        more = {r.id: r for r in rows if r.target_id in doomed and r.id not in doomed}
        if not more:
            break
        doomed.update(more)
    about = {r.id for r in ledger.load(namespace, subject_key(subject))[1]} if subject is not None else set()
    gone = [r for r in rels if all_relations or r.from_id in doomed or r.to_id in doomed or r.id in about]
    return list(doomed.values()), gone


def _row_hash(row: Revision | Relation) -> str:
    """Content hash kept on a tombstone: every field but the storage-assigned seq."""
    return _digest(row.model_dump(mode="json", exclude={"seq"}))


def _digest(obj: object) -> str:
    payload = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


# -- vectors --------------------------------------------------------------------------------------


def _scrub_vectors(
    backend: StorageBackend, namespace: str, keys: set[str], *, whole: bool, report: ErasureReport
) -> None:
    """Delete the namespace's vectors for `keys` (and any whose turn is no longer stored). Dense
    coverage reads 0 while the index rebuilds, so a crash midway re-embeds instead of trusting it."""
    episodes = backend.episodes
    live = {str(t.seq) for t in episodes.turns(namespace)}
    covered = (
        {} if whole else {k: v for k, v in episodes.coverage(namespace).items() if is_dense_coverage_key(k)}
    )
    for key in covered:
        episodes.set_coverage(namespace, key, 0)
    result = backend.vectors.erase(namespace, keys, live=live, whole_namespace=whole)
    for key, seq in covered.items():
        episodes.set_coverage(namespace, key, seq)
    report.vectors += result.vectors
    report.collections_rebuilt += result.collections_rebuilt
    report.warnings += result.warnings


# -- logs -----------------------------------------------------------------------------------------


def _needles(turns: list[StoredTurn], revisions: list[Revision]) -> set[str]:
    """What a log row must quote to be removed: an erased text, one of its sentences, a fact's
    surface or value, each at least MIN_NEEDLE_CHARS long. Never the subject's bare name (it
    would match every row that mentions the person, erased or not)."""
    texts = [t.text for t in turns] + [t.image_caption or "" for t in turns]
    texts += [text for r in revisions for text in (r.surface, r.object_text)]
    out = {s.strip() for text in texts for s in [text, *_SENTENCE.findall(text)]}
    return {s for s in out if len(s) >= MIN_NEEDLE_CHARS}


def _redact_logs(memory: ErasureTarget, namespace: str, needles: set[str], report: ErasureReport) -> None:
    """Rewrite the JSONL files under the home without the rows of this namespace that quote
    erased text. A row that names a namespace (a "namespace" field at any depth) is in scope only
    if it names this one. A row that names none (e.g. an eval run log) is in scope, but is matched
    only on text no other namespace of the home holds: another tenant's rows are never touched,
    even when they quote the same sentence."""
    if not needles:
        return
    texts = [n.casefold() for n in needles]
    shared: str | None = None
    for path in sorted(memory.home.rglob("*.jsonl")):
        if not path.is_file() or "chroma" in path.relative_to(memory.home).parts:
            continue
        lines = path.read_bytes().splitlines(keepends=True)
        kept = []
        for line in lines:
            owners, values = _row_parts(line)
            if owners and namespace not in owners:
                kept.append(line)
                continue
            hits = _tainted(values, texts)
            if hits and not owners:
                if shared is None:
                    shared = _other_tenants_text(memory, namespace)
                hits = [h for h in hits if h not in shared]
            if not hits:
                kept.append(line)
        if len(kept) == len(lines):
            continue
        tmp = path.with_name(path.name + ".erasure.tmp")
        with open(tmp, "wb") as fh:
            fh.writelines(kept)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        report.log_rows_redacted += len(lines) - len(kept)


def _other_tenants_text(memory: ErasureTarget, namespace: str) -> str:
    """Every other namespace's turn text, casefolded and joined (read once, only when needed)."""
    episodes = memory.backend.episodes
    rows = [t for ns in episodes.namespaces() if ns != namespace for t in episodes.turns(ns)]
    return "\x00".join(f"{t.text}\x00{t.image_caption or ''}".casefold() for t in rows)


def _row_parts(line: bytes) -> tuple[set[str], list[str]]:
    """(namespaces the row names, its string values)."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return set(), [line.decode("utf-8", "replace")]
    return set(_namespaces(obj)), list(_strings(obj))


def _namespaces(obj: object) -> Iterable[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "namespace" and isinstance(v, str):
                yield v
            yield from _namespaces(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _namespaces(v)


def _tainted(values: list[str], needles: list[str]) -> list[str]:
    """The erased texts (casefolded) this row's values quote, or are a long enough part of."""
    hits = []
    for value in values:
        v = value.casefold().strip()
        if not v:
            continue
        hits += [n for n in needles if n in v]
        if len(v) >= MIN_NEEDLE_CHARS and any(v in n for n in needles):
            hits.append(v)
    return hits


def _strings(obj: object) -> Iterable[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
