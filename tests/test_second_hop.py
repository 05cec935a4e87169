"""The second hop's routing: the fused feedback ranking blended with the question's own turn
scorer (emem.retrieval.second_hop), as a pure rule and through `Memory.ask` on a real store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from emem.answer import ActivatedSegment
from emem.config import MemoryConfig, ReadConfig
from emem.memory import Memory
from emem.retrieval.second_hop import blend_hop


def _seg(sid: str, score: float) -> ActivatedSegment:
    return ActivatedSegment(
        segment_id=sid,
        session_id=sid,
        conversation_id="c",
        start=datetime(2024, 1, 1, tzinfo=UTC),
        score=score,
        pathways=["keyword"],
    )


FUSED = [_seg("a", 3.0), _seg("b", 2.0), _seg("c", 1.0), _seg("d", 0.0)]
BEST = {"a": 0.9, "b": 0.1, "c": 0.2, "d": 0.8}


def test_weight_zero_keeps_the_fused_order_without_the_excluded() -> None:
    got = blend_hop(FUSED, BEST, 0.0, top_n=2, exclude={"a"})
    assert [a.segment_id for a in got] == ["b", "c"]


def test_weight_one_ranks_by_the_best_turn() -> None:
    got = blend_hop(FUSED, BEST, 1.0, top_n=2, exclude={"a"})
    assert [a.segment_id for a in got] == ["d", "c"]
    assert got[0].score == pytest.approx(0.875)  # min-max over every candidate, a too
    assert "turn scorer" in got[0].reasons[-1]


def test_half_weight_lets_a_strong_turn_overtake_a_middling_route() -> None:
    # c: 0.5 * 1/3 + 0.5 * 0.125 = 0.229; d: 0 + 0.5 * 0.875 = 0.4375; b: 0.5 * 2/3 + 0 = 0.333
    got = blend_hop(FUSED, BEST, 0.5, top_n=3, exclude={"a"})
    assert [a.segment_id for a in got] == ["d", "b", "c"]


def test_a_segment_without_scored_turns_counts_zero_and_bad_weights_are_refused() -> None:
    got = blend_hop(FUSED, {"a": 1.0}, 1.0, top_n=1, exclude={"a"})
    assert [a.segment_id for a in got] == ["b"]  # all tie at 0: the fused order decides
    with pytest.raises(ValueError, match="blend weight"):
        blend_hop(FUSED, BEST, 1.5, top_n=1)


def _session(n: int, day: int, turns: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "session_id": f"S{n}",
        "time": f"2023-0{day}-01T10:00:00+00:00",
        "turns": [{"turn_id": f"S{n}:{i + 1}", "speaker": s, "text": t} for i, (s, t) in enumerate(turns)],
    }


# Dana's instruments are in S1 and S3. S2 repeats S1's rare words (orchestra, community, rehearsal)
# in Omar's mouth, which is where a feedback query built from S1 drifts; S3 shares no word with S1.
CONVERSATION: dict[str, Any] = {
    "conversation_id": "c2",
    "sessions": [
        _session(1, 1, [
            ("Omar", "How was your weekend?"),
            ("Dana", "I play the violin in a community orchestra, we had a long rehearsal."),
            ("Omar", "A community orchestra rehearsal sounds intense."),
        ]),
        _session(2, 2, [
            ("Omar", "My neighbour joined a community orchestra, rehearsal every Sunday."),
            ("Omar", "The orchestra's rehearsal hall is next to the community garden."),
            ("Dana", "Nice, gardens are lovely in spring."),
        ]),
        _session(3, 3, [
            ("Omar", "Anything new with you?"),
            ("Dana", "I started cello lessons last week, my teacher is strict about bowing."),
            ("Omar", "Good luck with the lessons!"),
        ]),
        _session(4, 4, [
            ("Omar", "I fixed my bike's brakes today."),
            ("Dana", "I baked bread and walked the dog."),
        ]),
    ],
}  # fmt: skip


def _second_hop(home: Path, weight: float) -> tuple[list[list[str]], list[int]]:
    config = MemoryConfig(read=ReadConfig(activate=1, hop_turn_weight=weight))
    with Memory(home, config=config) as m:
        m.add_conversation(CONVERSATION, namespace="music")
        m.read_runtime.max_hops = 2  # these tests are about the second hop
        a = m.ask("What instruments does Dana play?", namespace="music", mode="deep")
    hops: list[list[str]] = []
    at = 0
    for n in a.usage.segments_per_hop:
        hops.append([s.session_id for s in a.activated_segments[at : at + n]])
        at += n
    return hops, a.usage.segments_per_hop


def test_the_turn_scorer_reaches_the_session_the_feedback_query_drifts_from(tmp_path: Path) -> None:
    # At 0.5 this decoy, which repeats S1's rare words twice, still wins; at 0.75 and above the
    # question's own turns decide. 0 (the default) is the feedback ranking alone.
    blended, per_hop = _second_hop(tmp_path / "blend", 0.75)
    assert blended[0] == ["S1"]
    assert blended[1] == ["S3"]
    assert per_hop == [1, 1]  # hops and their sizes recorded in usage, at most `activate` each
    assert ReadConfig().hop_turn_weight == 0.0
    drifted, _ = _second_hop(tmp_path / "off", 0.0)
    assert drifted[0] == ["S1"] and drifted[1] == ["S2"]
