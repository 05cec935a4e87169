"""EmemStore conformance, modelled on LangGraph's own store tests (libs/checkpoint/tests/
test_store.py for InMemoryStore): the same scenarios, run through the sync API and the async API
on two fresh stores, with identical results required. Queries use real words: emem ranks with
BM25 + MiniLM, not LangGraph's character-count test embeddings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp

from emem.langgraph import EmemStore
from emem.memory import Memory


class Api:
    """The store's public methods, called synchronously or through their async forms."""

    def __init__(self, store: BaseStore, use_async: bool) -> None:
        self.store, self.use_async = store, use_async

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if not self.use_async:
            return getattr(self.store, name)
        method = getattr(self.store, "a" + name)
        return lambda *a, **kw: asyncio.run(method(*a, **kw))


def shape(result: Any) -> Any:
    """Results without timestamps (two stores never write at the same instant)."""
    if isinstance(result, list):
        return [shape(r) for r in result]
    if hasattr(result, "key") and hasattr(result, "value"):
        return (
            tuple(result.namespace),
            result.key,
            result.value,
            round(getattr(result, "score", None) or 0, 9),
        )
    return result


@pytest.fixture(params=["sync", "async"])
def api(request: pytest.FixtureRequest, tmp_path: Path):
    with Memory(tmp_path / request.param) as m:
        yield Api(EmemStore(m, "ns"), request.param == "async")


SCENARIOS: dict[str, Callable[[Api], list[Any]]] = {}


def scenario(fn: Callable[[Api], list[Any]]) -> Callable[[Api], list[Any]]:
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def list_namespaces_basic(api: Api) -> list[Any]:
    spaces = [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
        ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789"),
    ]  # fmt: skip
    for i, ns in enumerate(spaces):
        api.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    out = [
        api.list_namespaces(prefix=("a", "b")),
        api.list_namespaces(suffix=("f",)),
        api.list_namespaces(prefix=("a",), suffix=("f",)),
        api.list_namespaces(prefix=("a", "b"), max_depth=3),
        api.list_namespaces(prefix=("a", "b"), limit=2),
        api.list_namespaces(prefix=("a", "b"), offset=2),
        api.list_namespaces(prefix=("a", "*", "f")),
        api.list_namespaces(suffix=("*", "f")),
        api.list_namespaces(prefix=("nonexistent",)),
        api.list_namespaces(prefix=("users", "123")),
        api.list_namespaces(max_depth=2),
    ]
    assert out[0] == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert out[1] == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert out[2] == [("a", "b", "f"), ("a", "c", "f")]
    assert out[3] == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert out[4] == [("a", "b", "c"), ("a", "b", "d", "e")]
    assert out[5] == [("a", "b", "d", "i"), ("a", "b", "f")]
    assert out[6] == [("a", "b", "f"), ("a", "c", "f")]
    assert out[7] == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert out[8] == [] and out[9] == [("users", "123")]
    assert out[10] == [
        ("a", "b"),
        ("a", "c"),
        ("admin", "users"),
        ("b", "a"),
        ("users", "123"),
        ("users", "456"),
    ]
    return out


@scenario
def list_namespaces_pagination_and_wildcards(api: Api) -> list[Any]:
    for i in range(12):
        api.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": i})
    api.put(("guests", "456", "preferences"), "p", {"data": "x"})
    out = [
        api.list_namespaces(prefix=("namespace",), limit=5, offset=0),
        api.list_namespaces(prefix=("namespace",), limit=5, offset=10),
        api.list_namespaces(suffix=("*", "preferences")),
        api.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")),
    ]
    assert out[0] == [("namespace", f"sub_{i:02d}") for i in range(5)]
    assert out[1] == [("namespace", "sub_10"), ("namespace", "sub_11")]
    assert out[2] == [("guests", "456", "preferences")] and out[3] == []
    return out


@scenario
def put_get_update_delete(api: Api) -> list[Any]:
    assert api.list_namespaces() == [] and api.get(("docs",), "x") is None
    api.put(("docs", "u1"), "k", {"text": "first", "n": 1})
    first = api.get(("docs", "u1"), "k")
    api.put(("docs", "u1"), "k", {"text": "second", "n": 2})
    second = api.get(("docs", "u1"), "k")
    assert first.value == {"text": "first", "n": 1} and second.value == {"text": "second", "n": 2}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert api.get(("docs",), "k") is None and api.get(("docs", "u2"), "k") is None  # exact namespace only
    api.delete(("docs", "u1"), "k")
    assert api.get(("docs", "u1"), "k") is None and api.search(("docs",)) == []
    api.put(("docs", "u1"), "k", {"text": "again"})  # a deleted key can be written again
    assert api.get(("docs", "u1"), "k").value == {"text": "again"}
    nested = {"a": {"b": [1, 2.5, None, True, "x"]}, "unicode": "café ☕"}
    api.put(("docs", "u1"), "nested", nested)
    assert api.get(("docs", "u1"), "nested").value == nested
    return [first.value, second.value, api.get(("docs", "u1"), "k").value]


@scenario
def invalid_namespaces(api: Api) -> list[Any]:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            api.put(bad, "foo", doc)
    api.put(("foo", "langgraph", "foo"), "bar", doc)
    assert api.get(("foo", "langgraph", "foo"), "bar").value == doc
    assert api.search(("foo", "langgraph", "foo"))[0].value == doc
    api.delete(("foo", "langgraph", "foo"), "bar")
    assert api.get(("foo", "langgraph", "foo"), "bar") is None
    api.batch([PutOp(("langgraph", "foo"), "bar", doc)])  # past the public put, as LangGraph allows
    assert api.get(("langgraph", "foo"), "bar").value == doc
    with pytest.raises(InvalidNamespaceError):
        api.batch([PutOp(("a.b",), "bar", doc)])
    return [api.list_namespaces()]


DOCS = [
    ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
    ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
    ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
    ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
]


@scenario
def search_with_filters(api: Api) -> list[Any]:
    for key, value in DOCS:
        api.put(("test",), key, value)
    out = [
        api.search(("test",), query="apple", filter={"color": "red"}),
        api.search(("test",), query="car", filter={"color": "red"}),
        api.search(("test",), query="blue", filter={"score": {"$gt": 3.2}}),
        api.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"}),
        api.search(("test",), filter={"score": {"$lt": 4.0}, "color": {"$ne": "blue"}}),
        api.search(("test",), filter={"color": "purple"}),
    ]
    assert [r.key for r in out[0]] == ["doc1", "doc2"]
    assert [r.key for r in out[1]] == ["doc2", "doc1"]
    assert len(out[2]) == 3 and out[2][0].key == "doc4"
    assert [r.key for r in out[3]] == ["doc3"]
    assert [r.key for r in out[4]] == ["doc2"] and out[5] == []
    assert all(r.score is not None for r in out[0]) and out[4][0].score is None
    return out


@scenario
def search_pagination_update_and_unindexed(api: Api) -> list[Any]:
    for i in range(5):
        api.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = api.search(("test",), query="test document", limit=2)
    page2 = api.search(("test",), query="test document", limit=2, offset=2)
    everything = api.search(("test",), query="test document", limit=10)
    assert len(page1) == 2 and len(page2) == 2 and len(everything) == 5
    assert [r.key for r in everything][:4] == [r.key for r in page1 + page2]
    assert api.search(("test",), limit=2)[0].key == "doc4"  # without a query: newest first
    api.put(("test",), "zebra", {"text": "zany zebra named Xerxes"})
    before = api.search(("test",), query="zany zebra Xerxes")[0]
    assert before.key == "zebra"
    api.put(("test",), "zebra", {"text": "a note about dogs"})
    after = next(r for r in api.search(("test",), query="zany zebra Xerxes", limit=10) if r.key == "zebra")
    assert (after.score or 0) < before.score
    api.put(("test",), "hidden", {"text": "zany zebra named Xerxes"}, index=False)
    top = api.search(("test",), query="zany zebra Xerxes", limit=6)
    assert "hidden" not in [r.key for r in top]  # unindexed items only fill up after ranked ones
    assert api.search(("test",), query="zany zebra Xerxes", limit=10)[-1].key == "hidden"
    for q in ["", None, "test " * 100, "test!@#$%^&*()"]:
        assert len(api.search(("test",), query=q, limit=20)) == 7
    return [page1, page2, everything]


@scenario
def index_fields(api: Api) -> list[Any]:
    api.put(("cfg",), "a", {"title": "quarterly budget", "body": "penguins"}, index=["title"])
    api.put(("cfg",), "b", {"title": "penguin facts", "body": "budget"}, index=["title"])
    hits = api.search(("cfg",), query="penguins")
    assert hits[0].key == "b"
    return [hits]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(api: Api, name: str) -> None:
    SCENARIOS[name](api)


@pytest.mark.parametrize(
    "name", ["list_namespaces_basic", "search_with_filters", "search_pagination_update_and_unindexed"]
)
def test_sync_and_async_results_are_identical(tmp_path: Path, name: str) -> None:
    results = []
    for mode in ("sync", "async"):
        with Memory(tmp_path / mode) as m:
            results.append(shape(SCENARIOS[name](Api(EmemStore(m, "ns"), mode == "async"))))
    assert results[0] == results[1]


def test_items_are_emem_events_searchable_and_erasable(memory: Memory) -> None:
    """An item is a turn: Memory.search finds it, provenance names it, delete erases it."""
    store = EmemStore(memory, "ns")
    store.put(("memories", "priya"), "m1", {"content": "Priya is allergic to peanuts"})
    (hit,) = memory.search("peanut allergy", namespace="ns", k=1)
    assert "allergic to peanuts" in hit.text and hit.conversation_id == "kv/memories/priya"
    answer = memory.ask("What is Priya allergic to?", namespace="ns", mode="fast")
    assert any("peanuts" in e.text for e in answer.evidence)
    store.delete(("memories", "priya"), "m1")
    assert memory.episodes.turns("ns") == []
    assert memory.search("peanut allergy", namespace="ns", k=5) == []


def test_overwrite_keeps_or_erases_history(memory: Memory) -> None:
    keep = EmemStore(memory, "keep")
    keep.put(("m",), "k", {"content": "lives in Oslo"})
    keep.put(("m",), "k", {"content": "lives in Bergen"})
    assert [t.text for t in memory.episodes.turns("keep")] == [
        "content: lives in Oslo",
        "content: lives in Bergen",
    ]
    drop = EmemStore(memory, "drop", keep_history=False)
    drop.put(("m",), "k", {"content": "lives in Oslo"})
    drop.put(("m",), "k", {"content": "lives in Bergen"})
    assert [t.text for t in memory.episodes.turns("drop")] == ["content: lives in Bergen"]
    assert drop.get(("m",), "k").value == {"content": "lives in Bergen"}


def test_store_namespaces_do_not_see_each_other(memory: Memory) -> None:
    a, b = EmemStore(memory, "tenant-a"), EmemStore(memory, "tenant-b")
    a.put(("m",), "k", {"content": "secret of tenant a"})
    assert b.get(("m",), "k") is None and b.search(("m",), query="secret") == [] and b.list_namespaces() == []
