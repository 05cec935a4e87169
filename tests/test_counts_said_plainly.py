"""Totals said plainly: "Six of them at the moment", "So I've seven now.", "Eight now.", "N hens
left", and a running tally said by its noun ("Dive log is at 212"). Sentences written for these
tests."""

from __future__ import annotations

from said import spoken

from emem.agents.counts import count_over_time


def _replay(turns: list[str], focus: set[str]) -> int | None:
    trace = count_over_time([spoken(t, month) for month, t in enumerate(turns, 1)], focus)
    return trace.value if trace is not None else None


def test_totals_said_plainly_after_the_set_is_named() -> None:
    turns = [
        "I keep ducks on the smallholding. Five of them at the moment, all Runners.",
        "A fox got two of them last night. Three ducks left.",
        "Bought four Call ducks at the market. So I've seven now.",
        "Duck count: one of the Calls was a drake and went back, and Mum gave me two Khaki Campbells. Eight now.",
    ]
    assert [_replay(turns[:k], {"ducks", "duck"}) for k in range(1, 5)] == [5, 3, 7, 8]


def test_a_running_tally_said_by_its_noun() -> None:
    turns = ["Climb log is at 57 routes.", "Climb log is 64 now.", "Back on the wall: climb log is at 80."]
    assert [_replay(turns[:k], {"climbs", "climb"}) for k in range(1, 4)] == [57, 64, 80]
