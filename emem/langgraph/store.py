"""`EmemStore`: a LangGraph `BaseStore` whose items are emem events.

How key/value items map onto emem (one emem namespace per store, `namespace=` at construction):

* An item `(namespace tuple, key) -> value` is a turn in the episode store: conversation
  `kv/<label>/<label>...` (labels percent-encoded), session `items`, speaker `speaker` (default
  "memory"), time = when it was put. Its text is the value rendered for search (the `index`
  fields, or every string leaf); the exact value travels in the turn's metadata as JSON. So an
  item is durable when `put` returns, found by emem's hybrid search, `ask` and consolidation
  (which projects a fact into the ledger where the text states one), and carries provenance.
* `put` on an existing key appends a new version (turn `<key>@v<n>`); `get` and `search` see
  the latest. Older versions stay as history unless the store was made with
  `keep_history=False`, in which case they are erased once the new version is durable.
* `delete` (or `put(..., None)`) erases every version with `Memory.forget`: from the episode
  store, the vectors, the ledger facts projected from it and the logs; a tombstone remains.
* `search(prefix, query=...)` ranks the current items under the prefix with emem's hybrid
  search (BM25 + the offline MiniLM embedder, RRF-fused; the score is the fused score) and
  returns every matching item, unranked ones (`index=False`) last. Without a query, items come
  newest first. `filter` matches item values as LangGraph's stores do ($eq, $ne, $gt, $gte, $lt,
  $lte, nested objects). `index` config takes `fields`; `embed`/`dims` are ignored (emem embeds
  offline with its own model). TTLs are not supported (`supports_ttl` is False).

`batch` runs the ops in order; `abatch` runs the same code in a worker thread, so sync and async
results are identical.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, unquote

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from emem.errors import ConflictError, InputError
from emem.models import StoredTurn, Turn, check_namespace
from emem.retrieval.hybrid import hybrid_turns_where
from emem.timeparse import iso, parse_iso_time, utcnow

PREFIX = "kv"
SESSION = "items"
META_KEY, META_VALUE, META_CREATED, META_VERSION, META_INDEXED = (
    "kv.key",
    "kv.value",
    "kv.created_at",
    "kv.version",
    "kv.indexed",
)
MAX_PUT_RETRIES = 5


def conversation_of(namespace: tuple[str, ...]) -> str:
    """The conversation id that holds a store namespace's items."""
    return "/".join([PREFIX, *(quote(label, safe="") for label in namespace)])


def namespace_of(conversation_id: str) -> tuple[str, ...] | None:
    head, _, rest = conversation_id.partition("/")
    if head != PREFIX or not rest:
        return None
    return tuple(unquote(label) for label in rest.split("/"))


def _leaves(value: Any, path: str = "") -> list[str]:
    """Every string, number and boolean in a value, as "path: leaf" lines (the default "$" text)."""
    if isinstance(value, Mapping):
        return [line for k, v in value.items() for line in _leaves(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list | tuple):
        return [line for v in value for line in _leaves(v, path)]
    if value is None:
        return []
    return [f"{path}: {value}" if path else str(value)]


def render(value: Mapping[str, Any], fields: list[str] | None) -> str:
    """The searchable text of an item: its `fields` (LangGraph path syntax) or all its leaves."""
    if not fields or fields == ["$"]:
        return "\n".join(_leaves(value))
    texts: list[str] = []
    for f in fields:
        texts += _leaves(value) if f == "$" else get_text_at_path(value, tokenize_path(f))
    return "\n".join(t for t in texts if t.strip())


def _compare(item_value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: operators, nested objects, lists compared element-wise."""
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_apply(item_value, op, v) for op, v in wanted.items())
        return isinstance(item_value, Mapping) and all(
            _compare(item_value.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(wanted)
            and all(_compare(a, b) for a, b in zip(item_value, wanted, strict=True))
        )
    return item_value == wanted


def _apply(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return value == operand
    if op == "$ne":
        return value != operand
    try:
        a, b = float(value), float(operand)
    except (TypeError, ValueError):
        return False
    if math.isnan(a) or math.isnan(b):
        return False
    if op == "$gt":
        return a > b
    if op == "$gte":
        return a >= b
    if op == "$lt":
        return a < b
    if op == "$lte":
        return a <= b
    raise InputError(f"unsupported filter operator {op!r}; use $eq, $ne, $gt, $gte, $lt or $lte", "filter")


def value_matches(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether an item value passes a LangGraph store filter (pure)."""
    return not flt or all(_compare(value.get(k), v) for k, v in flt.items())


def _matches_condition(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = (
        zip(ns, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(ns), reversed(path), strict=False)
    )
    return all(p == "*" or a == p for a, p in pairs)


class EmemStore(BaseStore):
    """A LangGraph store backed by emem (see the module docstring for the mapping).

    Args:
        memory: the `emem.Memory` that holds the items.
        namespace: the emem namespace (tenant) every item lives in.
        index: LangGraph index config; only `fields` is used (default: every leaf of the value).
        speaker: the speaker recorded on item turns (what `ask` shows as who said it).
        keep_history: keep superseded versions as events (default) or erase them on overwrite.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Any,
        namespace: str = "default",
        *,
        index: IndexConfig | None = None,
        speaker: str = "memory",
        keep_history: bool = True,
    ) -> None:
        check_namespace(namespace)
        self.memory = memory
        self.namespace = namespace
        self.index_config = dict(index) if index else None
        self.fields: list[str] | None = list((index or {}).get("fields") or ["$"])
        self.speaker = speaker
        self.keep_history = keep_history

    # -- the BaseStore contract ------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops in order (a read after a write in the same batch sees it).

        Args:
            ops: GetOp, SearchOp, PutOp and ListNamespacesOp values.

        Returns:
            One result per op: an Item or None, a list of SearchItems, None, or namespaces.
        """
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                if op.value is None:
                    self._delete(op.namespace, op.key)
                else:
                    self._put(op.namespace, op.key, op.value, op.index)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise ValueError(f"unknown operation type: {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` in a worker thread: one implementation, so results are identical."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- items as turns -------------------------------------------------------------------------

    def _versions(self, conversation_id: str, key: str | None = None) -> list[StoredTurn]:
        turns = self.memory.episodes.turns(self.namespace, conversation_id=conversation_id)
        return [
            t
            for t in turns
            if t.metadata and META_KEY in t.metadata and (key is None or t.metadata[META_KEY] == key)
        ]

    def _current(self, turns: Iterable[StoredTurn]) -> dict[tuple[str, str], StoredTurn]:
        """The latest version of each (conversation, key)."""
        latest: dict[tuple[str, str], StoredTurn] = {}
        for t in turns:
            if not t.metadata or META_KEY not in t.metadata:
                continue
            ref = (t.conversation_id, str(t.metadata[META_KEY]))
            if ref not in latest or latest[ref].seq < t.seq:
                latest[ref] = t
        return latest

    @staticmethod
    def _item(turn: StoredTurn, score: float | None = None, search: bool = False) -> Item:
        meta = turn.metadata or {}
        ns = namespace_of(turn.conversation_id) or ()
        fields = {
            "namespace": ns,
            "key": str(meta[META_KEY]),
            "value": json.loads(str(meta[META_VALUE])),
            "created_at": parse_iso_time(meta.get(META_CREATED) or turn.time),
            "updated_at": turn.time,
        }
        return SearchItem(**fields, score=score) if search else Item(**fields)

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        versions = self._versions(conversation_of(namespace), key)
        return self._item(max(versions, key=lambda t: t.seq)) if versions else None

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any], index: Any) -> None:
        if not isinstance(key, str) or not key:
            raise InputError("key must be a non-empty string", "key")
        if not isinstance(value, Mapping):
            raise InputError(f"value must be a mapping, got {type(value).__name__}", "value")
        conv = conversation_of(namespace)
        try:
            payload = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InputError(f"value is not JSON-serialisable: {exc}", "value") from None
        fields = self.fields if index is None else (list(index) if index else None)
        text = render(value, fields) if fields else ""
        for _ in range(MAX_PUT_RETRIES):  # another writer may take the same version number
            versions = self._versions(conv, key)
            previous = max(versions, key=lambda t: t.seq) if versions else None
            now = utcnow()
            created = (previous.metadata or {}).get(META_CREATED) if previous else None
            version = max((int((t.metadata or {}).get(META_VERSION) or 0) for t in versions), default=0) + 1
            turn = Turn(
                conversation_id=conv,
                session_id=SESSION,
                turn_id=f"{key}@v{version}",
                speaker=self.speaker,
                text=text if text.strip() else f"(item {key})",
                time=now,
                metadata={
                    META_KEY: key,
                    META_VALUE: payload,
                    META_CREATED: created or iso(now),
                    META_VERSION: version,
                    META_INDEXED: bool(fields) and bool(text.strip()),
                },
            )
            try:
                # A put is the caller's explicit write: an item deleted earlier may be put again.
                self.memory.add_turns([turn], namespace=self.namespace, restore=True)
            except ConflictError:
                continue
            if not self.keep_history and versions:
                self.memory.forget(
                    namespace=self.namespace,
                    turn_ids=[t.turn_id for t in versions],
                    conversation_id=conv,
                    reason="store item overwritten",
                )
            return
        raise ConflictError(f"item {key!r} in {namespace!r}: too many concurrent writers")

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        conv = conversation_of(namespace)
        versions = self._versions(conv, key)
        if versions:
            self.memory.forget(
                namespace=self.namespace,
                turn_ids=[t.turn_id for t in versions],
                conversation_id=conv,
                reason="store item deleted",
            )

    def _under(self, prefix: tuple[str, ...]) -> list[StoredTurn]:
        """Current item versions whose namespace starts with `prefix`."""
        turns = [
            t
            for t in self.memory.episodes.turns(self.namespace)
            if (ns := namespace_of(t.conversation_id)) is not None and ns[: len(prefix)] == tuple(prefix)
        ]
        return list(self._current(turns).values())

    def _search(self, op: SearchOp) -> list[SearchItem]:
        current = [
            t for t in self._under(op.namespace_prefix) if value_matches(self._item(t).value, op.filter)
        ]
        start, stop = max(op.offset, 0), max(op.offset, 0) + max(op.limit, 0)
        if not op.query or not op.query.strip() or not current:
            current.sort(key=lambda t: -t.seq)
            return [self._item(t, search=True) for t in current[start:stop]]  # type: ignore[misc]
        indexed = [t for t in current if (t.metadata or {}).get(META_INDEXED)]
        seqs = {t.seq for t in indexed}
        ns = self.memory.indexes.current(self.namespace)
        ranked = (
            hybrid_turns_where(
                ns, op.query, len(indexed), lambda t: t.seq in seqs, candidates=max(50, len(indexed))
            )
            if indexed
            else []
        )
        order: list[tuple[StoredTurn, float | None]] = [(t, s) for t, s in ranked]
        seen = {t.seq for t, _ in order}
        order += [(t, None) for t in sorted(current, key=lambda t: -t.seq) if t.seq not in seen]
        return [self._item(t, score=s, search=True) for t, s in order[start:stop]]  # type: ignore[misc]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = {namespace_of(t.conversation_id) for t in self._under(())}
        found = [
            ns for ns in spaces if ns and all(_matches_condition(c, ns) for c in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            found = list({ns[: op.max_depth] for ns in found})
        return sorted(found)[op.offset : op.offset + op.limit]
