"""Counts kept as a running tally ("Kiln firings: 11."), put right in the next breath, said as "so
I'm looking after 15 now" or "the count is 4 now", somebody else's tally beside the speaker's, a
gain only hoped for, and a frame of time in the question ("this year") that says when, not what is
counted. Conversations are written for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dated_conversations import dated_conversation
from said import spoken

from emem.agents.counts import count_over_time
from emem.agents.spans import focus_words, stated_quantity, stated_tally
from emem.memory import Memory


@pytest.mark.parametrize(
    ("said", "focus", "count"),
    [
        ("Kiln firings: 11. Good month.", {"firing"}, 11),
        ("Firing tally: 6. Wait, 7 - I forgot the test tiles.", {"firing"}, 7),
        ("Bird count: I'm up to 38 species.", {"bird"}, 38),
        ("Kiln count is 5 now - added two raku ones.", {"kiln"}, 5),
        ("The club lent us three kayaks, so I'm looking after 12 now.", {"kayak"}, 12),
        ("We added 2 new hides on the marsh, so my share of the reserve is 14 now.", {"hide"}, 14),
    ],
)
def test_a_tally_said_outright(said: str, focus: set[str], count: int) -> None:
    assert stated_quantity(said, focus) == count


@pytest.mark.parametrize(
    "said",
    [
        "Sad kiln news: two of the shelves cracked.",  # a label, then no tally
        "Firings: the glaze went cloudy again.",
    ],
)
def test_what_is_no_tally(said: str) -> None:
    assert stated_tally(said, {"kiln", "firing", "shelf"}) is None


def test_somebody_elses_tally_is_not_the_speakers() -> None:
    said = [
        spoken("I run 30 hives up on the moor.", 3),
        spoken("My brother Alun, the one in Brecon, is up to 9 hives.", 4),
        spoken("Hives: 34 after the splits.", 5),
        spoken("Alun's at 14 hives.", 6),
    ]
    trace = count_over_time(said, focus_words("How many hives do I run?", set()))
    assert trace is not None and trace.value == 34


def test_a_count_put_right_in_the_next_breath_and_a_number_of_something_else() -> None:
    said = [
        spoken("I look after the river gauges. 31 of them. No, 13, I always flip it.", 3),
        spoken("Plan for June: a trip to service the gauge at the weir. Ten days.", 4),
    ]
    trace = count_over_time(said, focus_words("How many gauges do I look after?", set()))
    assert trace is not None and trace.value == 13


def test_a_gain_hoped_for_is_no_gain() -> None:
    said = [spoken("Scarves knitted: 6.", 3), spoken("Scarves: 8. Two more by Christmas, hopefully.", 6)]
    trace = count_over_time(said, focus_words("How many scarves have I knitted?", set()))
    assert trace is not None and trace.value == 8


def test_a_buyer_named_beside_the_set_joins_nothing() -> None:
    said = [
        spoken("We've got two goats now, so 2 goats in the paddock.", 3),
        spoken(
            "Also fostering a kid goat, so 3 goats for now. Dafydd already bought a bell he can't use.", 5
        ),
    ]
    trace = count_over_time(said, focus_words("How many goats do we have?", set()))
    assert trace is not None and trace.value == 3


CONV = dated_conversation(
    [
        (
            "2025-01-20T09:00:00+00:00",
            [
                ("user", "I keep count of the commissions I finish each year. Commissions: 3."),
                ("assistant", "Three commissions so far."),
                ("user", "It's been ten years since I opened the studio, can you believe it?"),
            ],
        ),
        (
            "2025-04-02T09:00:00+00:00",
            [
                ("user", "Commission tally: 7. Wait, 8 - I forgot the wedding portrait."),
                ("assistant", "Eight commissions."),
            ],
        ),
        (
            "2025-09-12T09:00:00+00:00",
            [("user", "Commissions: 13. Two more before Christmas, fingers crossed.")],
        ),
    ],
    cid="tally",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    mem = Memory(Path(tmp_path_factory.mktemp("tallies")) / "home")
    mem.add_conversation(CONV, namespace="tallies")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
@pytest.mark.parametrize(
    ("question", "as_of", "expected"),
    [
        ("How many commissions have I finished this year?", None, "13"),
        ("How many commissions had I finished this year?", "2025-05-01", "8"),
        ("How many commissions had I finished this year?", "2025-02-01", "3"),
    ],
)
def test_the_tally_answers_at_the_time_asked(
    memory: Memory, mode: str, question: str, as_of: str | None, expected: str
) -> None:
    answer = memory.ask(question, namespace="tallies", mode=mode, as_of=as_of)
    assert answer.status == "answered"
    assert answer.answer.strip().rstrip(".") == expected
