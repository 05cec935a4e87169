"""Erasure: make content disappear from every place emem copied it to, keeping only tombstones.

Where a turn's content can live, and what `forget` does there:

* episode store (`episodes.sqlite3`): the `turns` rows are deleted, with sessions left empty and
  the `segment_summaries` of every touched session; `secure_delete` zeroes the freed cells;
* ledger (`ledger.sqlite3`): every revision projected from an erased turn (its `sources` name
  the turn) or about an erased subject, every revocation of those, and every relation touching
  them are deleted through `Ledger.purge`, the one guarded exception to append-only, which
  records a tombstone per erased turn, revision and relation (id, content hash, time, reason);
* Chroma (`chroma/`): the turns' vectors are deleted and each touched collection is rebuilt
  from its surviving vectors, so no old HNSW file or log row keeps them; orphan segment folders
  Chroma leaves behind are removed and `chroma.sqlite3` is vacuumed (Chroma never holds text);
* SQLite files: `VACUUM` (stale index keys can survive in interior b-tree pages) and
  `wal_checkpoint(TRUNCATE)`, so no old page survives in a `-wal` file;
* in-memory state (BM25, read views, caches): dropped here, and in other processes through the
  home lock's "erase" token (emem.locking), checked on their next search;
* JSONL logs under the home (e.g. eval run logs written there): rows quoting erased text are
  removed (see `_redact_logs` for the rule).

Erasure runs under the home's exclusive index lock and is idempotent: rerunning it after a crash
finishes the job (orphan vectors are reconciled against the episode store on every run). A
consolidation running at the same time in another process may re-project a turn just read;
run `forget` again after it (or run erasure when consolidation is idle).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from emem.errors import InputError
from emem.index.dense import zero_unused_slots
from emem.index.manager import is_dense_coverage_key
from emem.ledger.predicates import subject_key
from emem.locking import IndexLock
from emem.models import check_namespace
from emem.store.sqlite import connect
from emem.validation import check_text

MAX_REASON_CHARS = 1000
_UUID_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
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
    files_compacted: list[str] = Field(default_factory=list)
    resumed: list[str] = Field(default_factory=list)
    """Ids of earlier, interrupted erasures this call finished first (their counts are not here)."""
    warnings: list[str] = Field(default_factory=list)
    """Steps that could not finish (e.g. a reader held the WAL); rerun to complete them."""

    @property
    def complete(self) -> bool:
        return not self.warnings


@dataclass
class _TurnRow:
    seq: int
    conversation_id: str
    session_id: str
    turn_id: str
    text: str
    image_caption: str | None
    hash: str

    @property
    def ref(self) -> str:
        return f"{self.conversation_id}/{self.turn_id}"


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
    memory: Any,
    namespace: str,
    turn_ids: Sequence[str] | None = None,
    session_id: str | None = None,
    subject: str | None = None,
    conversation_id: str | None = None,
    reason: str | None = None,
) -> ErasureReport:
    """Erase turns and the facts projected from them from every store of `memory`'s home.

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
    finished from that record, here or by the next process to open the home after a crash.
    """
    check_namespace(namespace)
    ids = _check_args(turn_ids, session_id, subject, conversation_id, reason)
    report = ErasureReport(namespace=namespace, erasure_id=uuid.uuid4().hex, reason=reason)
    lock = IndexLock.for_home(memory.home)
    with lock.exclusive():
        lock.bump("write", "erase", notify_local=True)
        report.resumed = [r.erasure_id for r in _complete_pending(memory)]
        ledger = _ledger(memory)
        turns = _select_turns(memory, namespace, ids, session_id, conversation_id, report)
        seed: list[dict[str, Any]] = []
        whole = None
        if subject is not None:
            seed = _revisions_about(ledger, namespace, subject, conversation_id)
            if not seed:
                report.not_found.append(f"subject {subject!r}")
            sources = {s for r in seed for s in json.loads(r["sources"])}
            if conversation_id is not None:
                sources = {s for s in sources if s.partition("/")[0] == conversation_id}
            known = {t.ref for t in turns}
            turns += _turns_by_ref(memory, namespace, sorted(sources - known))
            whole = subject if conversation_id is None else None  # all its relations too
        refs = {t.ref for t in turns}
        revs, rels = _doomed(ledger, namespace, seed, refs, whole)
        _step("selected")
        if not turns and not revs and not rels:
            return report
        # Logs first, while the erased text can still be read (the intent keeps no content).
        _redact_logs(memory, namespace, _needles(turns, revs), report)
        _step("logs_redacted")
        _record_and_delete(memory, namespace, "forget", turns, revs, rels, report)
        _step("deleted")
        _finish(memory, namespace, report.erasure_id, report)
    _invalidate(memory, namespace)  # after the lock: invalidation takes the index manager's lock
    return report


def drop_namespace(memory: Any, namespace: str, reason: str | None = None) -> ErasureReport:
    """Remove a whole tenant: its turns, sessions, summaries, coverage rows, every ledger row and
    watermark, and its Chroma collections. The ledger keeps one tombstone per erased row plus a
    'namespace' tombstone. Recorded and resumed like `forget`."""
    check_namespace(namespace)
    _check_args(None, None, None, None, reason, require_selector=False)
    report = ErasureReport(namespace=namespace, erasure_id=uuid.uuid4().hex, reason=reason)
    lock = IndexLock.for_home(memory.home)
    with lock.exclusive():
        lock.bump("write", "erase", notify_local=True)
        report.resumed = [r.erasure_id for r in _complete_pending(memory)]
        turns = _all_turns(memory, namespace)
        ledger = _ledger(memory)
        rows = [dict(r) for r in ledger._rows("SELECT * FROM revisions WHERE namespace = ?", (namespace,))]
        revs, rels = _doomed(ledger, namespace, rows, set(), None, all_relations=True)
        _step("selected")
        _redact_logs(memory, namespace, _needles(turns, revs), report)
        _step("logs_redacted")
        _record_and_delete(memory, namespace, "drop", turns, revs, rels, report, whole_namespace=True)
        _step("deleted")
        _finish(memory, namespace, report.erasure_id, report)
    _invalidate(memory, namespace)
    return report


def complete_pending(memory: Any) -> list[ErasureReport]:
    """Finish every erasure whose delete committed but whose cleanup was interrupted (a crash, a
    kill). Cheap when there is none; `Memory` calls it on open and before reads."""
    if not memory.episodes.pending_erasures():
        return []
    lock = IndexLock.for_home(memory.home)
    with lock.exclusive():
        reports = _complete_pending(memory)
    for r in reports:
        _invalidate(memory, r.namespace)
    return reports


def _complete_pending(memory: Any) -> list[ErasureReport]:
    """Caller holds the exclusive home lock."""
    out = []
    for row in memory.episodes.pending_erasures():
        report = ErasureReport(namespace=row["namespace"], erasure_id=row["erasure_id"], reason=row["reason"])
        _finish(memory, row["namespace"], row["erasure_id"], report)
        out.append(report)
    return out


def _record_and_delete(
    memory: Any,
    namespace: str,
    kind: str,
    turns: list[_TurnRow],
    revs: list[dict[str, Any]],
    rels: list[dict[str, Any]],
    report: ErasureReport,
    whole_namespace: bool = False,
) -> None:
    """The one commit that makes the erasure happen: intent, turn tombstones and delete together."""
    plan = {
        "revisions": [[r["id"], _row_hash(r)] for r in revs],
        "relations": [[r["id"], _row_hash(r)] for r in rels],
    }
    rows = [(t.seq, t.conversation_id, t.session_id, t.turn_id, t.hash) for t in turns]
    counts = memory.episodes.erase(
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
    report.turn_refs = sorted({*report.turn_refs, *(t.ref for t in turns)})


def _finish(memory: Any, namespace: str, erasure_id: str, report: ErasureReport) -> None:
    """Idempotent cleanup from the recorded intent: ledger rows and tombstones, vectors, files.
    Caller holds the exclusive home lock."""
    row = next((r for r in memory.episodes.pending_erasures() if r["erasure_id"] == erasure_id), None)
    if row is None:
        return
    plan = json.loads(str(row["plan"]))
    erased = memory.episodes.erased_turns(erasure_id)
    ledger = _ledger(memory)
    done = {str(t["id"]) for t in ledger.tombstones(namespace) if t["erasure_id"] == erasure_id}
    refs = {f"{conv}/{tid}" for _, conv, tid, _ in erased}
    # A consolidation elsewhere may have projected the turns again meanwhile: those go too.
    extra_revs, extra_rels = _doomed(ledger, namespace, [], refs, None)
    revs = {rid: digest for rid, digest in plan["revisions"]} | {r["id"]: _row_hash(r) for r in extra_revs}
    rels = {rid: digest for rid, digest in plan["relations"]} | {r["id"]: _row_hash(r) for r in extra_rels}
    tombs = [(rid, "revision", d) for rid, d in revs.items()] + [
        (rid, "relation", d) for rid, d in rels.items()
    ]
    tombs += [(f"turn:{conv}/{tid}", "turn", h) for _, conv, tid, h in erased]
    whole = row["kind"] == "drop"
    if whole:
        tombs.append((f"namespace:{namespace}", "namespace", _digest([h for *_, h in erased])))
    new_tombs = [t for t in tombs if t[0] not in done]
    n_rev, n_rel = ledger.purge(
        namespace,
        list(revs),
        list(rels),
        new_tombs,
        erasure_id=erasure_id,
        reason=row["reason"],
        drop_watermarks=whole,
    )
    report.revisions += n_rev
    report.relations += n_rel
    report.tombstones += len(new_tombs)
    _step("ledger_purged")
    _scrub_vectors(memory, namespace, {str(seq) for seq, *_ in erased}, drop_all=whole, report=report)
    _step("vectors_scrubbed")
    _scrub_cached_vectors(memory, namespace, report)
    _compact(memory, report)
    _step("compacted")
    if report.complete:
        memory.episodes.finish_erasure(erasure_id)
        _step("done")


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


def _rows(memory: Any, sql: str, args: Iterable[object]) -> list[sqlite3.Row]:
    store = memory.episodes
    with store._lock:
        return store._conn.execute(sql, tuple(args)).fetchall()


_TURN_COLS = "seq, conversation_id, session_id, turn_id, text, image_caption, hash"


def _turn(row: sqlite3.Row) -> _TurnRow:
    return _TurnRow(*(row[k] for k in _TURN_COLS.split(", ")))


def _all_turns(memory: Any, namespace: str) -> list[_TurnRow]:
    rows = _rows(memory, f"SELECT {_TURN_COLS} FROM turns WHERE namespace=? ORDER BY seq", (namespace,))
    return [_turn(r) for r in rows]


def _select_turns(
    memory: Any,
    namespace: str,
    turn_ids: list[str],
    session_id: str | None,
    conversation_id: str | None,
    report: ErasureReport,
) -> list[_TurnRow]:
    scope, args = "namespace=?", [namespace]
    if conversation_id is not None:
        scope, args = scope + " AND conversation_id=?", [*args, conversation_id]
    found: dict[int, _TurnRow] = {}
    for column, values in (("turn_id", turn_ids), ("session_id", [session_id] if session_id else [])):
        for value in values:
            rows = _rows(
                memory, f"SELECT {_TURN_COLS} FROM turns WHERE {scope} AND {column}=?", [*args, value]
            )
            convs = sorted({r["conversation_id"] for r in rows})
            if len(convs) > 1:
                raise InputError(
                    f"{column.replace('_', ' ')} {value!r} exists in {len(convs)} conversations "
                    f"({', '.join(convs[:5])}); name the conversation too",
                    "conversation_id",
                )
            if not rows:
                report.not_found.append(f"{column.replace('_id', '')} {value!r}")
            found.update((r["seq"], _turn(r)) for r in rows)
    if conversation_id is not None and not turn_ids and not session_id:
        rows = _rows(memory, f"SELECT {_TURN_COLS} FROM turns WHERE {scope}", args)
        if not rows:
            report.not_found.append(f"conversation {conversation_id!r}")
        found.update((r["seq"], _turn(r)) for r in rows)
    return sorted(found.values(), key=lambda t: t.seq)


def _turns_by_ref(memory: Any, namespace: str, refs: list[str]) -> list[_TurnRow]:
    out = []
    for ref in refs:
        conv, _, tid = ref.partition("/")
        rows = _rows(
            memory,
            f"SELECT {_TURN_COLS} FROM turns WHERE namespace=? AND conversation_id=? AND turn_id=?",
            (namespace, conv, tid),
        )
        out += [_turn(r) for r in rows]
    return out


# -- ledger ---------------------------------------------------------------------------------------


def _ledger(memory: Any) -> Any:
    """The ledger (created if missing: it is where the tombstones are kept)."""
    return memory.ledger


def _revisions_about(ledger: Any, namespace: str, subject: str, conversation_id: str | None) -> list[dict]:
    rows = [
        dict(r)
        for r in ledger._rows(
            "SELECT * FROM revisions WHERE namespace = ? AND subject_key = ?",
            (namespace, subject_key(subject)),
        )
    ]
    if conversation_id is not None:
        rows = [
            r for r in rows if any(s.partition("/")[0] == conversation_id for s in json.loads(r["sources"]))
        ]
    return rows


def _doomed(
    ledger: Any,
    namespace: str,
    seed: list[dict[str, Any]],
    refs: set[str],
    subject: str | None,
    all_relations: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The revision and relation rows to erase: `seed`, every revision citing one of `refs`, the
    revocations of all of them, and every relation touching them (or about `subject`)."""
    rows = [dict(r) for r in ledger._rows("SELECT * FROM revisions WHERE namespace = ?", (namespace,))]
    doomed = {r["id"]: r for r in seed}
    doomed.update((r["id"], r) for r in rows if refs & set(json.loads(r["sources"])))
    while True:  # revocations copy their target's subject and value
        more = {r["id"]: r for r in rows if r["target_id"] in doomed and r["id"] not in doomed}
        if not more:
            break
        doomed.update(more)
    rels = [dict(r) for r in ledger._rows("SELECT * FROM relations WHERE namespace = ?", (namespace,))]
    key = subject_key(subject) if subject is not None else None
    gone = [
        r
        for r in rels
        if all_relations
        or r["from_id"] in doomed
        or r["to_id"] in doomed
        or (key and r["subject_key"] == key)
    ]
    return list(doomed.values()), gone


def _row_hash(row: dict[str, Any]) -> str:
    return _digest({k: v for k, v in row.items() if k != "seq"})


def _digest(obj: object) -> str:
    payload = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


# -- vectors --------------------------------------------------------------------------------------


class _NoEmbedder:
    """Stands in for the embedder of a collection being rebuilt: only stored vectors are copied."""

    name = "emem-erasure"
    dim = 0

    def embed(self, texts: list[str]) -> Any:
        raise RuntimeError("erasure never embeds")


def _scrub_vectors(
    memory: Any, namespace: str, keys: set[str], *, drop_all: bool, report: ErasureReport
) -> None:
    """Delete the namespace's vectors for `keys` (and any whose turn is no longer stored), then
    rebuild each touched collection from its surviving vectors so no old file keeps them."""
    from emem.embedding import ChromaEmbeddingFunction

    handle = memory.indexes.chroma
    if not handle.path.exists():
        return
    live = {str(r["seq"]) for r in _rows(memory, "SELECT seq FROM turns WHERE namespace=?", (namespace,))}
    client = handle.client
    for col in client.list_collections():
        if (col.metadata or {}).get("namespace") != namespace:
            continue
        ef = ChromaEmbeddingFunction(_NoEmbedder())  # type: ignore[arg-type]
        col = client.get_collection(col.name, embedding_function=ef)
        ids, vectors = _all_vectors(col)
        if drop_all:
            client.delete_collection(col.name)
            report.vectors += len(ids)
            report.collections_rebuilt += 1
            continue
        gone = [i for i in ids if i in keys or i not in live]
        if not gone:
            continue
        covered = {k: v for k, v in memory.episodes.coverage(namespace).items() if is_dense_coverage_key(k)}
        for key in covered:
            memory.episodes.set_coverage(namespace, key, 0)  # a crash mid-rebuild re-embeds
        metadata = dict(col.metadata or {})
        client.delete_collection(col.name)
        handle.forget_collection(col.name)
        fresh = client.create_collection(col.name, metadata=metadata, embedding_function=ef)
        keep = [(i, v) for i, v in zip(ids, vectors, strict=True) if i not in set(gone)]
        for start in range(0, len(keep), 1000):
            chunk = keep[start : start + 1000]
            fresh.upsert(ids=[i for i, _ in chunk], embeddings=[list(map(float, v)) for _, v in chunk])
        for key, seq in covered.items():
            memory.episodes.set_coverage(namespace, key, seq)
        report.vectors += len(gone)
        report.collections_rebuilt += 1
    handle.reset()  # closes Chroma's own connections before the folder is cleaned
    _remove_orphan_segments(handle.path, report)
    zero_unused_slots(handle.path)  # hnswlib writes freed memory (e.g. the erased vectors) there
    _vacuum(handle.path / "chroma.sqlite3", report, wal=False)


def _scrub_cached_vectors(memory: Any, namespace: str, report: ErasureReport) -> None:
    """Summary vectors cached by content hash (emem.index.vector_cache) embed what the erased
    turns said: drop all of the namespace's (the next read re-embeds what survives), then vacuum."""
    from emem.index.vector_cache import cache_path, drop_namespace_vectors

    drop_namespace_vectors(memory.home, namespace)
    _vacuum(cache_path(memory.home), report, wal=True)


def _all_vectors(col: Any, batch: int = 5000) -> tuple[list[str], list[Any]]:
    ids: list[str] = []
    vectors: list[Any] = []
    total = col.count()
    for offset in range(0, total, batch):
        got = col.get(include=["embeddings"], limit=batch, offset=offset)
        ids += list(got["ids"])
        vectors += list(got["embeddings"])
    return ids, vectors


def _remove_orphan_segments(path: Path, report: ErasureReport) -> None:
    """Chroma leaves a deleted collection's HNSW folder on disk; remove folders no segment owns."""
    db = path / "chroma.sqlite3"
    if not db.exists():
        return
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            owned = {r[0] for r in conn.execute("SELECT id FROM segments")}
    except sqlite3.Error as exc:
        report.warnings.append(f"{db.name}: cannot list Chroma segments ({exc}); old folders kept")
        return
    for child in path.iterdir():
        if child.is_dir() and _UUID_DIR.match(child.name) and child.name not in owned:
            shutil.rmtree(child, ignore_errors=True)


# -- files ----------------------------------------------------------------------------------------


def _compact(memory: Any, report: ErasureReport) -> None:
    for name in ("episodes.sqlite3", "ledger.sqlite3"):
        if (memory.home / name).exists():
            _vacuum(memory.home / name, report, wal=True)


def _vacuum(path: Path, report: ErasureReport, *, wal: bool) -> None:
    """Rewrite the file so no freed page or stale index key keeps erased bytes, and empty the WAL."""
    if not path.exists():
        return
    try:
        conn = connect(path) if wal else sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA secure_delete=ON")
            conn.execute("VACUUM")
            if wal:
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if busy:
                    report.warnings.append(f"{path.name}: a reader kept the WAL busy; it was not truncated")
        finally:
            conn.close()
    except sqlite3.Error as exc:
        report.warnings.append(f"{path.name}: compaction failed: {exc}")
        return
    report.files_compacted.append(path.name)


def _needles(turns: list[_TurnRow], revisions: list[dict[str, Any]]) -> set[str]:
    """What a log row must quote to be removed: an erased text, one of its sentences, a fact's
    surface or value, each at least MIN_NEEDLE_CHARS long. Never the subject's bare name (it
    would match every row that mentions the person, erased or not)."""
    texts = [t.text for t in turns] + [t.image_caption or "" for t in turns]
    texts += [r.get(k) or "" for r in revisions for k in ("surface", "object_text")]
    out = {s.strip() for text in texts for s in [text, *_SENTENCE.findall(text)]}
    return {s for s in out if len(s) >= MIN_NEEDLE_CHARS}


def _redact_logs(memory: Any, namespace: str, needles: set[str], report: ErasureReport) -> None:
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


def _other_tenants_text(memory: Any, namespace: str) -> str:
    """Every other namespace's turn text, casefolded and joined (read once, only when needed)."""
    rows = _rows(memory, "SELECT text, image_caption FROM turns WHERE namespace != ?", (namespace,))
    return "\x00".join(f"{r[0]}\x00{r[1] or ''}".casefold() for r in rows)


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


def _invalidate(memory: Any, namespace: str) -> None:
    memory._invalidate(namespace)
