"""How many people a group has, said without a noun ("there's four of us now", "so three
working for me", "we're six on the boat"), counts when the question counts people; and a count
is read from turns no assistant quoted, end to end, in every mode."""

from __future__ import annotations

import pytest
from dated_conversations import dated_conversation
from said import spoken

from emem.agents.counts import count_over_time
from emem.agents.spans import people_total
from emem.memory import Memory


@pytest.mark.parametrize(
    ("said", "total"),
    [
        ("There's four of us at Oakline now: me, Tam and the two groundies.", 4),
        ("Took on a second apprentice. So three working for me now.", 3),
        ("Chayton broke his wrist and flew home, so we're six on the Loon.", 6),
        ("The Quizzly Bears are five again since Ros came back.", 5),
    ],
)
def test_a_group_of_people_said_without_a_noun(said: str, total: int) -> None:
    assert people_total(said, {"people"}) == total


@pytest.mark.parametrize(
    ("said", "focus"),
    [
        ("There's four of us at Oakline now.", {"cats"}),  # the question counts no people
        ("We're 30 percent over budget.", {"people"}),
        ("We're 40 years old next year.", {"people"}),
    ],
)
def test_what_is_no_group_of_people_is_not_one(said: str, focus: set[str]) -> None:
    assert people_total(said, focus) is None


def test_the_group_replayed_over_time() -> None:
    told = [
        spoken("I've got two working for me: Cai and Aled.", 1),
        spoken("Took on another apprentice, Llew. So three working for me now.", 4),
        spoken("Aled's left. Two working for me now, Cai and Llew.", 8),
    ]
    trace = count_over_time(told, {"people", "work"})
    assert trace is not None and trace.value == 2


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(tmp_path_factory.mktemp("crew") / "h")
    conv = dated_conversation(
        [
            (
                "2025-01-10T09:00:00+00:00",
                [("user", "I'm a roofer. I've got two working for me, Cai and Aled.")],
            ),
            (
                "2025-05-02T09:00:00+00:00",
                [("user", "Took on a second apprentice, Llew. So three working for me now.")],
            ),
        ],
        cid="c",
    )
    m.add_conversation(conv, namespace="crew")
    return m


@pytest.mark.parametrize("mode", ["auto", "deep", "fast"])
def test_how_many_work_for_me_then_and_now(memory: Memory, mode: str) -> None:
    now = memory.ask("How many people work for me now?", namespace="crew", mode=mode)
    assert now.status == "answered" and "3" in now.answer, now.answer
    then = memory.ask("How many people work for me?", namespace="crew", mode=mode, as_of="2025-03-01")
    if mode == "fast":
        # fast packs only turns above its relevance floor, and this one ("I'm a roofer. I've got
        # two working for me") is below it: fast abstains rather than guess
        assert then.status == "abstained" or "2" in then.answer, then.answer
    else:
        assert then.status == "answered" and "2" in then.answer, then.answer


def test_a_total_said_alone_after_a_change_is_the_size() -> None:
    told = [
        spoken("Twenty-two kids signed up for the chess club, then four quit after a week. So eighteen.", 9),
    ]
    trace = count_over_time(told, {"kids", "club"})
    assert trace is not None and trace.value == 18


@pytest.mark.parametrize("mode", ["auto", "deep", "fast"])
def test_the_one_employer_is_no_count_of_people(tmp_path_factory: pytest.TempPathFactory, mode: str) -> None:
    m = Memory(tmp_path_factory.mktemp("firm") / "h")
    conv = dated_conversation(
        [
            (
                "2025-05-02T09:00:00+00:00",
                [
                    (
                        "user",
                        "I've left Skerry. I'm setting up my own business. I'm calling it Tidewright Marine.",
                    )
                ],
            )
        ],
        cid="c",
    )
    m.add_conversation(conv, namespace="firm")
    a = m.ask("How many people work for me now?", namespace="firm", mode=mode)
    assert a.answer.strip() != "1", a.answer
