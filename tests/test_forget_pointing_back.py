"""Forget requests that point back ("pretend I never said that", "get rid of that figure", "erase
that from your head"), that name what they erase from ("scratch the bit about X from your
notes"), that take something back ("I take back what I said about X, forget it"); "that" meaning
the statement its previous sentence carries on; and a request honoured from the moment it is
written, even in a turn stamped after the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from said import extracted
from test_forget_phrasings import chat

from emem.agents.currentness import read_now
from emem.extract.offline import carried_on
from emem.ledger.withhold import active_forget_requests
from emem.memory import Memory

MODES = ("auto", "deep", "fast")


def _topics(*texts: str) -> list[str]:
    return [f.object for f in extracted(*texts, predicate="forget_request")]


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Oh, and could you not keep that gambling thing on record?", "gambling"),
        ("Don't save that mortgage figure though, it's embarrassing.", "mortgage"),
        ("Right, scratch the bit about the lawsuit from your notes please.", "lawsuit"),
        ("Could you drop the bonus details from your memory?", "bonus"),
        ("I want to take back what I said about Imelda's affair, just forget it.", "Imelda's affair"),
        ("But can you not store that rehab stuff anywhere?", "rehab"),
    ],
)
def test_a_request_naming_what_it_erases_is_recorded(said: str, topic: str) -> None:
    assert _topics("We had a long week.", said) == [topic]


@pytest.mark.parametrize(
    "said",
    [
        "Actually, pretend I never mentioned that.",
        "Get rid of that number, please.",
        "Wipe that from your memory, Ines.",
        "Honestly, forget I told you, it was a secret.",
        "Sorry, forget that entirely.",
        "Actually, strike that from whatever you keep on me.",
        "Hmm, on second thought, don't keep that figure anywhere.",
        "Actually, I don't want that kept either.",
        "Forget that for now though, okay?",
    ],
)
def test_a_request_pointing_back_names_the_statement_before(said: str) -> None:
    assert _topics(f"My cousin owes the bank £9,000. {said}") == ["said: My cousin owes the bank £9,000."]


def test_that_means_the_statement_its_previous_sentence_carries_on() -> None:
    assert _topics(
        "Long day. Orla has been arrested. She hasn't told her mum. Pretend I never said that."
    ) == [
        "said: Orla has been arrested.",
        "said: She hasn't told her mum.",
    ]
    assert carried_on(["Long day.", "Orla has been arrested."], "She hasn't told her mum.") == (
        "Orla has been arrested.",
    )
    assert carried_on(["Orla has been arrested."], "The bakery shut early.") == ()


def test_that_means_everything_since_a_secret_was_announced_or_before_a_regret() -> None:
    assert _topics(
        "Something I shouldn't tell you. The van's MOT ran out in June. I still drive it. "
        "Actually forget I said that."
    ) == [
        "said: Something I shouldn't tell you.",
        "said: The van's MOT ran out in June.",
        "said: I still drive it.",
    ]
    assert "said: Bryn is seeing the postman, everyone knows." in _topics(
        "Bryn is seeing the postman, everyone knows. Oh, I shouldn't have said that. Forget it, will you."
    )
    assert _topics("Niamh and I are house hunting. We've seen six places. Forget that, please.") == [
        "said: Niamh and I are house hunting.",
        "said: We've seen six places.",
    ]


def test_a_request_naming_what_it_keeps_out_among_other_things() -> None:
    assert _topics("Actually, I'd rather you didn't keep any of the rehab stuff.") == ["rehab"]


@pytest.mark.parametrize(
    "said",
    [
        "Scratch that, the party is on Sunday.",  # a correction, not a request to forget
        "I dropped the bonus on a new bike.",
        "We lost the deposit from the old flat.",
        "Forget it, I'll ask Dara instead.",
        "Forget it, will you.",  # "never mind", with no regret before it
    ],
)
def test_what_is_not_a_request_is_not_recorded(said: str) -> None:
    assert _topics("We had a long week.", said) == []


def test_a_name_asked_not_to_be_stored_withholds_the_person() -> None:
    assert _topics(
        "I drove a Polish man called Tadeusz Wrona to court today. Please don't store his name."
    ) == ["Tadeusz"]


def test_the_present_is_the_newest_turn_when_it_is_after_the_clock() -> None:
    clock = datetime(2025, 1, 1, tzinfo=UTC)
    assert read_now(None, clock) == clock
    assert read_now(clock - timedelta(days=3), clock) == clock
    assert read_now(clock + timedelta(days=3), clock) == clock + timedelta(days=3)


AHEAD = datetime.now(UTC) + timedelta(days=40)
"""Turns stamped after the wall clock (an imported conversation, a client's clock set wrong)."""

CONV = chat(
    (
        (AHEAD - timedelta(days=20)).isoformat(),
        [
            ("user", "I work as a courier for Swiftline in Derby."),
            ("assistant", "Noted."),
            (
                "user",
                "I've been on lithium since the spring. I'd rather you didn't remember the lithium bit.",
            ),
            ("assistant", "Understood."),
        ],
    ),
    (
        AHEAD.isoformat(),
        [
            ("user", "Big change: I've left Swiftline and I'm driving for Parcelway now."),
            ("user", "Our savings are down to £1,200. Get rid of that figure, I don't want it anywhere."),
            ("assistant", "Done, it's gone."),
        ],
    ),
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(tmp_path_factory.mktemp("ahead") / "h")
    m.add_conversation(CONV, namespace="ahead")
    return m


def test_a_request_in_a_turn_stamped_ahead_of_the_clock_is_in_force(memory: Memory) -> None:
    memory.ask("Who do I drive for?", namespace="ahead", mode="fast")  # catches the ledger up
    topics = [r.topic for r in active_forget_requests(memory.ledger, "ahead")]
    assert "lithium" in topics and any("£1,200" in t for t in topics), topics


@pytest.mark.parametrize("mode", MODES)
def test_what_was_said_ahead_of_the_clock_reaches_the_answer(memory: Memory, mode: str) -> None:
    a = memory.ask("Who do I drive for now?", namespace="ahead", mode=mode)
    assert "Parcelway" in a.answer, a.answer
    a = memory.ask("How much have we got in savings?", namespace="ahead", mode=mode)
    assert a.status == "abstained" and "forget" in a.answer and "1,200" not in a.answer, a.answer


@pytest.mark.parametrize("mode", MODES)
def test_an_abstention_says_the_nearest_turn_was_asked_to_be_forgotten(memory: Memory, mode: str) -> None:
    # no word of the question is in the request: the turn ranked first for it is withheld
    a = memory.ask("What medication am I on?", namespace="ahead", mode=mode)
    assert a.status == "abstained" and "forget" in a.answer and "lithium" not in a.answer, a.answer


PAST = chat(
    (
        "2025-03-04T21:00:00+00:00",
        [
            ("user", "Awful shift. I gave a patient a double dose of heparin on Tuesday, we caught it."),
            ("assistant", "That sounds stressful."),
        ],
    ),
    (
        "2025-05-02T21:00:00+00:00",
        [
            (
                "user",
                "I'm fine about the shift mistake now, my charge nurse was kind about it. "
                "Can you not keep that heparin thing on record? I'd rather it wasn't anywhere.",
            ),
            ("assistant", "Understood."),
        ],
    ),
)


@pytest.mark.parametrize("mode", MODES)
def test_a_request_never_reaches_the_context_as_history(tmp_path: Path, mode: str) -> None:
    # the question's period ends before the request: the request is no value "no longer current"
    m = Memory(tmp_path / "h")
    m.add_conversation(PAST, namespace="past")
    a = m.ask("What mistake did I make on a shift in March?", namespace="past", mode=mode)
    assert "heparin" not in a.answer.lower() and "heparin" not in a.context.lower(), a.context
    m.close()


def test_a_turn_pointed_back_at_is_cut_where_the_extractor_cuts_sentences() -> None:
    # "Dr." ends no sentence: "said: I'm seeing Dr." would withhold every turn seeing a doctor
    assert _topics("I'm seeing Dr. Okafor about my heart. It's the valve again.", "Please forget that.") == [
        "said: I'm seeing Dr. Okafor about my heart.",
        "said: It's the valve again.",
    ]
