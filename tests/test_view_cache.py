"""Read views carried across writes: appending a turn re-segments only its session, summary vectors
are embedded once per home (in this process or the next), and the result equals a fresh build."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from emem.index.vector_cache import VectorCache
from emem.memory import Memory
from emem.retrieval.view import build_view
from emem.segments import summary_turns

T0 = "2023-01-05T10:00:00+00:00"


class CountingEmbedder:
    """Deterministic hash vectors that record every text embedded."""

    name = "counting-test-embedder"
    dim = 32

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            digest = hashlib.sha256(text.encode()).digest()
            out[row] = np.frombuffer(digest, dtype=np.uint8)[: self.dim].astype(np.float32) - 127.5
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def turn(session: str, n: int, speaker: str, text: str, time: str) -> dict:
    return {
        "conversation_id": "c1",
        "session_id": session,
        "turn_id": f"{session}:{n}",
        "speaker": speaker,
        "text": text,
        "time": time,
    }


def history() -> list[dict]:
    return [
        turn("S1", 1, "Dana", "I adopted a greyhound called Pixel last week.", T0),
        turn("S1", 2, "Omar", "Pixel is a lovely name for a greyhound.", "2023-01-05T10:01:00+00:00"),
        turn("S2", 1, "Dana", "Pixel and I ran the harbour trail this morning.", "2023-02-01T09:00:00+00:00"),
        turn("S2", 2, "Omar", "How long is the harbour trail?", "2023-02-01T09:01:00+00:00"),
        turn("S3", 1, "Dana", "My sister Lena visits from Oslo in May.", "2023-03-01T09:00:00+00:00"),
    ]


def summary_texts(embedder: CountingEmbedder, view) -> list[str]:
    summaries = {s.summary for s in view.segments}
    return [t for t in embedder.texts if t in summaries]


def assert_same_view(a, b) -> None:
    assert [t.seq for t in a.turns] == [t.seq for t in b.turns]
    assert [s.segment_id for s in a.segments] == [s.segment_id for s in b.segments]
    assert [s.summary for s in a.segments] == [s.summary for s in b.segments]
    assert [[t.seq for t in s.turns] for s in a.segments] == [[t.seq for t in s.turns] for s in b.segments]
    assert np.array_equal(a.turn_vectors, b.turn_vectors)
    assert np.array_equal(a.summary_vectors, b.summary_vectors)
    assert np.allclose(a.centroids, b.centroids)
    assert a.segment_texts == b.segment_texts and a.segment_tokens == b.segment_tokens
    assert a.segment_of == b.segment_of and a.row_of == b.row_of
    assert a.turn_word_counts() == b.turn_word_counts()
    assert np.array_equal(a.turn_segment, b.turn_segment)
    assert a.speaker_names_lower() == b.speaker_names_lower()
    for q in ("harbour trail", "sister Oslo", "greyhound Pixel"):
        assert np.array_equal(a.segment_bm25.scores(q), b.segment_bm25.scores(q))


def test_appending_a_turn_re_embeds_only_its_segment_summary(home: Path) -> None:
    embedder = CountingEmbedder()
    with Memory(home, embedder=embedder) as m:
        m.add_turns(history(), namespace="ns")
        first = m.read_runtime.view("ns")
        assert len(first.segments) == 3
        assert first.turn_word_counts()["greyhound"] == 2  # computed, so the next view extends it
        assert first.turn_segment.tolist() == [0, 0, 1, 1, 2]  # carried forward too
        assert first.speaker_names_lower() == {"dana", "omar"}
        embedder.texts.clear()
        m.add_turns(
            [turn("S2", 3, "Dana", "About nine kilometres along the harbour.", "2023-02-01T09:02:00+00:00")],
            namespace="ns",
        )
        carried = m.read_runtime.view("ns")
        assert carried is not first and len(carried.turns) == 6
        # The new turn was embedded by index catch-up; of the summaries, only S2's changed.
        touched = carried.segments[carried.segment_index["c1/S2"]]
        assert summary_texts(embedder, carried) == [touched.summary]
        untouched = carried.segments[carried.segment_index["c1/S1"]]
        assert untouched is first.segments[first.segment_index["c1/S1"]]
        fresh = build_view(m.indexes.current("ns"), m.segment_summaries("ns"))
        assert_same_view(carried, fresh)
        # The replaced S2 summary's vector left the cache: one row per live closed segment (c1's
        # latest, S3, is open: its summary vector is made from turn vectors, never embedded).
        assert VectorCache(home).count("ns") == len(carried.segments) - 1


def test_a_new_session_and_a_second_process_embed_no_summary_twice(home: Path) -> None:
    embedder = CountingEmbedder()
    with Memory(home, embedder=embedder) as m:
        m.add_turns(history(), namespace="ns")
        m.read_runtime.view("ns")
        m.add_turns(
            [turn("S4", 1, "Omar", "Did Lena like the harbour trail?", "2023-05-20T09:00:00+00:00")],
            namespace="ns",
        )
        carried = m.read_runtime.view("ns")
        answer = m.ask("Who is visiting from Oslo?", namespace="ns", mode="deep")
    assert [s.segment_id for s in carried.segments][-1] == "c1/S4"
    again = CountingEmbedder()
    with Memory(home, embedder=again) as other:
        view = other.read_runtime.view("ns")
        assert summary_texts(again, view) == []  # every summary vector came from the home's cache
        assert_same_view(view, carried)
        repeat = other.ask("Who is visiting from Oslo?", namespace="ns", mode="deep")
    assert repeat.answer == answer.answer
    assert [e.turn_id for e in repeat.evidence] == [e.turn_id for e in answer.evidence]


def test_today_s_path_builds_the_same_view(home: Path) -> None:
    """The benchmark's baseline switch: a full rebuild, no cache, the same view."""
    with Memory(home, embedder=CountingEmbedder()) as m:
        m.add_turns(history(), namespace="ns")
        m.read_runtime.view("ns")
        m.add_turns(
            [turn("S3", 2, "Omar", "Oslo in May sounds lovely.", "2023-03-01T09:05:00+00:00")], namespace="ns"
        )
        carried = m.read_runtime.view("ns")
    with Memory(home, embedder=CountingEmbedder()) as old:
        old.read_runtime.cached = False
        assert_same_view(old.read_runtime.view("ns"), carried)


def test_fast_mode_embeds_the_question_once(home: Path) -> None:
    embedder = CountingEmbedder()
    with Memory(home, embedder=embedder) as m:
        m.add_turns(history(), namespace="ns")
        m.read_runtime.view("ns")
        embedder.texts.clear()
        m.ask("how long is the harbour trail?", namespace="ns", mode="fast")
        # No speaker named: the topic query is the question, so one text is embedded, once.
        assert embedder.texts == ["how long is the harbour trail?"]


def test_embedder_settings_do_not_change_the_vectors() -> None:
    """Thread, spinning and arena settings are speed only: vectors already stored in a home
    (embedded with ONNX Runtime's defaults) stay comparable with new ones."""
    from emem.embedding import MiniLMEmbedder

    texts = ["Dana: I adopted a greyhound called Pixel.", "How long is the harbour trail?", "x " * 300]
    tuned = MiniLMEmbedder().embed(texts)
    shipped_before = MiniLMEmbedder(threads=2, spinning=True, arena=True).embed(texts)
    assert np.abs(tuned - shipped_before).max() < 1e-5


def test_carried_turn_segments_follow_a_new_session_and_a_split(home: Path) -> None:
    """Turn -> segment indices carried across writes equal a fresh build's when a new session
    lands between old ones (every later segment moves) and when a long session splits."""
    with Memory(home, embedder=CountingEmbedder()) as m:
        m.add_turns(history(), namespace="ns")
        m.read_runtime.view("ns").turn_segment  # noqa: B018 - computed, so it is carried
        m.add_turns(
            [turn("S1b", 1, "Lena", "Greetings from Oslo, Dana.", "2023-01-20T09:00:00+00:00")],
            namespace="ns",
        )
        long = " ".join(["harbour"] * 700)
        m.add_turns(
            [turn("S3", i, "Dana", f"{long} {i}", f"2023-03-01T09:0{i}:00+00:00") for i in range(2, 5)],
            namespace="ns",
        )
        carried = m.read_runtime.view("ns")
        assert "c1/S3#1" in carried.segment_index  # S3 split in two
        fresh = build_view(m.indexes.current("ns"), m.segment_summaries("ns"))
        assert carried._turn_segment is not None
        assert np.array_equal(carried.turn_segment, fresh.turn_segment)


def test_the_open_segment_s_summary_is_never_embedded_until_it_closes(home: Path) -> None:
    """Appending to a conversation's latest segment embeds no summary (its vector is the mean of
    the quoted turns' vectors); a new session closes it, which embeds its summary once; both views
    equal a fresh build's, and a fresh process embeds nothing the cache does not hold."""
    embedder = CountingEmbedder()
    with Memory(home, embedder=embedder) as m:
        m.add_turns(history(), namespace="ns")
        first = m.read_runtime.view("ns")
        embedder.texts.clear()
        m.add_turns(
            [turn("S3", 2, "Omar", "Oslo in May sounds lovely.", "2023-03-01T09:05:00+00:00")], namespace="ns"
        )
        grown = m.read_runtime.view("ns")
        assert embedder.texts == ["Omar: Oslo in May sounds lovely."]  # the turn, no summary
        assert grown.summaries == first.summaries
        s3 = grown.segments[grown.segment_index["c1/S3"]]
        rows = [grown.row_of[str(t.seq)] for t in summary_turns(s3)]
        mean = grown.turn_vectors[rows].mean(axis=0)
        assert np.allclose(grown.summary_vectors[grown.segment_index["c1/S3"]], mean / np.linalg.norm(mean))
        assert_same_view(grown, build_view(m.indexes.current("ns"), m.segment_summaries("ns")))
        embedder.texts.clear()
        m.add_turns(
            [turn("S4", 1, "Dana", "Lena loved the harbour trail.", "2023-05-20T09:00:00+00:00")],
            namespace="ns",
        )
        closed = m.read_runtime.view("ns")
        assert summary_texts(embedder, closed) == [s3.summary]  # S3 closed: embedded once
        assert_same_view(closed, build_view(m.indexes.current("ns"), m.segment_summaries("ns")))
    again = CountingEmbedder()
    with Memory(home, embedder=again) as other:
        assert summary_texts(again, other.read_runtime.view("ns")) == []
