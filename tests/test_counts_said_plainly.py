"""Totals said plainly that the count reader missed: a noun the index stems differently from the
reader ("volunteers"), a bare total right after the set is named ("Nine girls, all under eleven",
"Three, and that's enough"), "so we've got eleven now" after a gain, "more" of something else, and
"kids" for a question about children; end to end in every mode. Also "Six of them at the moment",
"So I've seven now.", "Eight now.", "N hens left" and a tally said by its noun ("Dive log is at
212"). Sentences written for these tests."""

from __future__ import annotations

import pytest
from dated_conversations import dated_conversation
from said import spoken

from emem.agents.counts import count_over_time
from emem.agents.spans import focus_words, stated_none, stated_quantity
from emem.memory import Memory


def _focus(question: str) -> set[str]:
    return focus_words(question, set())


def test_a_noun_the_index_stems_short_still_counts() -> None:
    """ "volunteers" is "volunt" to the index and "volunteer" to a crude stem: both are the noun."""
    focus = _focus("How many volunteers do I organise?")
    assert stated_quantity("I do the rotas for all twenty-two volunteers now.", focus) == 22
    assert stated_none("We've got no volunteers over winter.", focus)
    assert stated_quantity("I do the rotas for all twenty-two buses now.", focus) is None


def test_a_bare_total_right_after_the_set_is_named() -> None:
    told = [
        spoken("I coach my niece's netball team on Saturdays. Nine girls, all under eleven.", 1),
        spoken("Netball's growing. Two more girls joined, so we've got eleven now. I need more bibs.", 4),
        spoken("Eleven players. Time for more bibs.", 5, speaker="assistant"),
    ]
    focus = _focus("How many players does my netball team have?")
    first = count_over_time(told[:1], focus)
    assert first is not None and first.value == 9
    trace = count_over_time(told, focus)
    assert trace is not None and trace.value == 11  # "more bibs" is no player joining


def test_a_number_alone_after_a_listing() -> None:
    told = [
        spoken("My regular clients are Wexcombe, Lanternfish and a law firm. Three, and that's enough.", 1)
    ]
    trace = count_over_time(told, _focus("How many regular clients do I have?"))
    assert trace is not None and trace.value == 3


def test_a_number_alone_not_after_the_set_is_no_total() -> None:
    told = [spoken("Three, and that's enough. My regular clients are lovely.", 1)]
    assert count_over_time(told, _focus("How many regular clients do I have?")) is None


def test_turns_of_one_session_replay_in_their_order() -> None:
    """Turn "S1:10" comes after "S1:9" in a session whose turns share its time."""
    first = spoken("I'm fostering kittens for the cat rescue, four at the moment.", 2)
    reply = spoken("Four kittens. Busy house!", 2, speaker="assistant").model_copy(
        update={"turn_id": "S2:10"}
    )
    first = first.model_copy(update={"turn_id": "S2:9"})
    gone = spoken("All four kittens got adopted, so the house is quiet.", 5)
    trace = count_over_time([reply, gone, first], _focus("How many kittens do I have?"))
    assert trace is not None and trace.value == 0


@pytest.mark.parametrize(
    ("said", "total"),
    [
        ("All four kittens got adopted, so the house is quiet.", 0),
        ("Two of the kittens have gone to new homes.", 2),
        ("Two kittens were adopted last week.", 2),
        ("We adopted two more kittens.", 6),
    ],
)
def test_adopted_away_is_a_loss_adopting_a_gain(said: str, total: int) -> None:
    told = [spoken("I'm fostering kittens for the cat rescue, four at the moment.", 1), spoken(said, 3)]
    trace = count_over_time(told, _focus("How many kittens do I have?"))
    assert trace is not None and trace.value == total


def test_a_number_after_its_noun() -> None:
    focus = _focus("How many kittens am I fostering?")
    assert stated_quantity("I'm fostering kittens for the rescue, four at the moment.", focus) == 4
    assert stated_quantity("I help out at the rescue, four at the moment.", focus) is None


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(tmp_path_factory.mktemp("plain") / "h")
    conv = dated_conversation(
        [
            (
                "2025-01-10T09:00:00+00:00",
                [
                    ("user", "I coach the under-tens hockey team at Hollins Park. Nine girls, all chaos."),
                    ("assistant", "Nine girls! Sounds lively."),
                    ("user", "And we've two kids, Osian and Mali."),
                ],
            ),
            (
                "2025-05-02T09:00:00+00:00",
                [
                    (
                        "user",
                        "Hockey's growing. Two more girls joined after Easter, so we've got eleven now.",
                    ),
                    ("assistant", "Eleven players. Time for more bibs."),
                    ("user", "And the baby came! Besotted. Three kids, what were we thinking."),
                ],
            ),
        ],
        cid="c",
    )
    m.add_conversation(conv, namespace="plain")
    return m


@pytest.mark.parametrize("mode", ["auto", "deep", "fast"])
def test_counts_said_plainly_end_to_end(memory: Memory, mode: str) -> None:
    team = memory.ask("How many players does my hockey team have?", namespace="plain", mode=mode)
    assert team.status == "answered" and "11" in team.answer, team.answer
    then = memory.ask(
        "How many players does my hockey team have?", namespace="plain", mode=mode, as_of="2025-03-01"
    )
    assert then.status == "answered" and "9" in then.answer, then.answer
    kids = memory.ask("How many children do I have?", namespace="plain", mode=mode)
    assert kids.status == "answered" and "3" in kids.answer, kids.answer


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


def test_where_the_tally_stands_said_without_its_noun() -> None:
    turns = [
        "We keep goats up the hill. Four goats, all nannies.",
        "Goat news: both of the older nannies had kids last week, so we're up to six.",
        "Sold two of the goats to the Morrisons. We're at four now, and the field is quieter.",
    ]
    assert [_replay(turns[:k], {"goats", "goat"}) for k in range(1, 4)] == [4, 6, 4]
    # an hour or a lesson is where something else stands
    assert (
        _replay(["We keep goats up the hill. Four goats.", "I'm at lesson nine of my course."], {"goats"})
        == 4
    )
