"""The per-turn text memo the read path scores with: the same values as computing them afresh,
computed once per turn object, and forgotten with the turn."""

from __future__ import annotations

import gc
import weakref
from datetime import UTC, datetime

from emem.agents.assistant import packed_line_tokens
from emem.index.text import token_set
from emem.models import StoredTurn
from emem.retrieval.turntext import turn_text
from emem.tokens import count_line_tokens, count_tokens


def _turn(text: str, caption: str | None = None, tid: str = "D1:1") -> StoredTurn:
    now = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
    return StoredTurn(
        conversation_id="c",
        session_id="S1",
        turn_id=tid,
        speaker="user",
        text=text,
        image_caption=caption,
        time=now,
        namespace="n",
        seq=1,
        recorded_at=now,
        hash="0" * 64,  # equal hashes on purpose: the memo must not key on them
    )


def test_values_equal_a_fresh_computation() -> None:
    for t in (_turn("I moved to Leeds in MAY."), _turn("Look!", "a photo of a red bike")):
        got = turn_text(t)
        assert got.rendered == t.render()
        assert got.lower == t.render().lower()
        assert got.words == token_set(t.render())
        assert got.said == f" {t.speaker}: {t.render()}"
        assert got.said_tokens == count_tokens(got.said)


def test_two_turns_with_one_hash_keep_their_own_text() -> None:
    a, b = (
        _turn("I live in Leeds.", tid="D1:1"),
        _turn("I live in York now, in a flat by the river.", tid="D1:2"),
    )
    assert turn_text(a).rendered != turn_text(b).rendered
    assert packed_line_tokens(a) == count_line_tokens(f"[D1:1] user: {a.text}", f" user: {a.text}")
    assert packed_line_tokens(b) == count_tokens(f"[D1:2] user: {b.text}")


def test_computed_once_per_object_and_never_keeps_a_turn_alive() -> None:
    t = _turn("I adopted a greyhound called Pip.")
    first = turn_text(t)
    assert turn_text(t) is first
    alive = weakref.ref(t)
    del t
    gc.collect()
    assert alive() is None
