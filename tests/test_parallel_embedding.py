"""Bulk embeds run their batches on several threads (index catch-up, a view's summaries): every
vector must be the one a single thread gives, bit for bit, in any worker count and batch size,
and a single query must stay on the caller's thread."""

from __future__ import annotations

import random
import threading
from typing import Any

import numpy as np
import pytest

from emem.embedding import (
    EMBED_WORKERS_ENV,
    MiniLMEmbedder,
    build_quantised_minilm,
    bulk_workers,
    default_embedder,
    length_batches,
    models_dir,
)
from emem.errors import ConfigError

WORDS = (
    "Caroline Melanie went camping at the lake with kids last weekend adoption agency support group "
    "painted a sunrise yesterday pottery class running charity race new job Lisbon robotics startup"
).split()


def texts(n: int, seed: int = 7) -> list[str]:
    """`n` texts of many lengths (1 to 60 words), some repeated, as a catch-up sees them."""
    rng = random.Random(seed)
    out = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 60))) for _ in range(n)]
    return out + out[:5]


def sequential(e: MiniLMEmbedder, items: list[str], size: int) -> np.ndarray:
    """The single-threaded path as it was before bulk embeds ran on threads: equal-length batches
    in order, mean pooling, then normalisation."""
    encs = e._tokenizer.encode_batch(items)
    lengths = [len(x.ids) for x in encs]
    vectors = np.empty((len(items), e.dim), dtype=np.float32)
    for batch in length_batches(lengths, size):
        ids = np.array([encs[i].ids for i in batch], dtype=np.int64)
        mask = np.array([encs[i].attention_mask for i in batch], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = e._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        vectors[batch] = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


@pytest.fixture(scope="module")
def quantised() -> MiniLMEmbedder:
    return MiniLMEmbedder(model=build_quantised_minilm(models_dir()), workers=1)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_bulk_vectors_equal_one_threads_in_any_worker_count_and_batch_size(quantised: MiniLMEmbedder) -> None:
    items = texts(100)
    path = build_quantised_minilm(models_dir())
    reference = sequential(quantised, items, 32)
    alone = np.stack([quantised.embed([t])[0] for t in items[:20]])
    assert same_bits(alone, reference[:20])  # the per-token copy: a text's vector in any batch
    for workers in (1, 2, 3, 4):
        for size in (1, 8, 32):
            e = MiniLMEmbedder(model=path, batch_size=size, workers=workers)
            assert e.workers == workers
            assert same_bits(e.embed(items), reference), (workers, size)
            assert same_bits(e.embed(items[::-1]), reference[::-1]), (workers, size)


def test_the_shipped_model_gives_the_same_vectors_on_threads() -> None:
    shipped = default_embedder()
    items = texts(80, seed=3)
    threaded = MiniLMEmbedder(workers=3)
    assert same_bits(threaded.embed(items), sequential(shipped, items, 32))


class RecordingSession:
    """Wraps an ONNX session, recording which thread ran each batch."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.threads: list[int] = []
        self._lock = threading.Lock()

    def run(self, *args: Any) -> Any:
        with self._lock:
            self.threads.append(threading.get_ident())
        return self._session.run(*args)


def test_a_query_stays_on_the_callers_thread_and_a_bulk_embed_does_not() -> None:
    e = MiniLMEmbedder(model=build_quantised_minilm(models_dir()), pad_exact=True, workers=2)
    spy = RecordingSession(e._session)
    e._session = spy
    e.embed(["What did Melanie paint?"])
    e.embed(["What did Melanie paint?", "What did she paint?"])  # one padded batch
    assert set(spy.threads) == {threading.get_ident()}
    spy.threads.clear()
    e.embed(texts(60))
    assert threading.get_ident() not in spy.threads and len(spy.threads) > 1


def test_a_failing_batch_raises_in_the_caller() -> None:
    e = MiniLMEmbedder(model=build_quantised_minilm(models_dir()), workers=2)

    class Broken:
        def run(self, *args: Any) -> Any:
            raise RuntimeError("inference failed")

    e._session = Broken()
    with pytest.raises(RuntimeError, match="inference failed"):
        e.embed(texts(40))


def test_workers_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EMBED_WORKERS_ENV, raising=False)
    assert 1 <= bulk_workers() <= 2
    monkeypatch.setenv(EMBED_WORKERS_ENV, "1")
    assert bulk_workers() == 1
    assert MiniLMEmbedder(workers=None).workers == 1
    monkeypatch.setenv(EMBED_WORKERS_ENV, "3")
    assert bulk_workers() == 3
    monkeypatch.setenv(EMBED_WORKERS_ENV, "many")
    with pytest.raises(ConfigError):
        bulk_workers()


def _turns(n: int) -> list[Any]:
    from datetime import UTC, datetime

    from emem.models import StoredTurn

    when = datetime(2024, 1, 1, tzinfo=UTC)
    return [
        StoredTurn(
            namespace="ns",
            seq=i + 1,
            conversation_id="c",
            session_id="S",
            turn_id=f"S:{i}",
            speaker="Dana",
            text=f"turn number {i}",
            time=when,
            recorded_at=when,
            hash=f"h{i}",
        )
        for i in range(n)
    ]


def test_catch_up_embeds_the_next_chunk_while_writing_this_one() -> None:
    """Chunks come back in order with the vectors one embed call per chunk gives; a writer that
    fails stops the embedding of what follows."""
    from emem.index.manager import embedded_ahead, index_text

    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([[len(t), ord(t[-1])] for t in texts], dtype=np.float32)

    turns = _turns(10)
    chunks = [turns[i : i + 3] for i in range(0, 10, 3)]
    got = list(embedded_ahead(chunks, embed))
    assert [c for c, _ in got] == chunks
    for chunk, vectors in got:
        assert np.array_equal(vectors, embed([index_text(t) for t in chunk]))
    calls.clear()
    stream = embedded_ahead(chunks, embed)
    next(stream)
    stream.close()  # the writer failed on the first chunk
    assert len(calls) <= 2  # the first, and at most the one embedded ahead


def test_a_catch_up_of_several_chunks_stores_the_vectors_of_one_pass(tmp_path: Any) -> None:
    """Index catch-up over more turns than one chunk stores what embedding them all at once gives."""
    from emem.index.manager import CHUNK, index_text
    from emem.memory import Memory

    e = MiniLMEmbedder(model=build_quantised_minilm(models_dir()), workers=2)
    items = texts(CHUNK + 40, seed=11)
    turns = [
        {
            "conversation_id": "c",
            "session_id": "S",
            "turn_id": f"S:{i}",
            "speaker": "Dana",
            "text": t,
            "time": "2024-01-01T10:00:00+00:00",
        }
        for i, t in enumerate(items)
    ]
    with Memory(tmp_path / "home", embedder=e) as m:
        m.add_turns(turns, namespace="ns")
        m.index("ns")
        ns = m.indexes.namespace_indexes("ns")
        stored = ns.dense.vectors.get("ns", "turns", e.name, list(ns.turns))
        ordered = [ns.turns[k] for k in ns.turns]
    expected = MiniLMEmbedder(model=build_quantised_minilm(models_dir()), workers=1).embed(
        [index_text(t) for t in ordered]
    )
    for row, t in enumerate(ordered):
        assert np.allclose(stored[str(t.seq)], expected[row], atol=1e-6)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_embeds_in_bulk_with_threads_of_its_own() -> None:
    """A pool made before a fork has no threads in the child: the child makes its own rather
    than hand batches to threads that do not exist (which would wait forever)."""
    import os
    import select

    e = MiniLMEmbedder(model=build_quantised_minilm(models_dir()), workers=2)
    items = texts(30)
    expected = e.embed(items)  # the parent's pool now exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: embed in bulk, send the bytes, leave without cleanup
        try:
            os.write(write, e.embed(items).tobytes())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([read], [], [], 120)
            assert ready, "the child's bulk embed did not finish"
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    got = np.frombuffer(b"".join(chunks), dtype=np.float32).reshape(expected.shape)
    assert same_bits(got, expected)
