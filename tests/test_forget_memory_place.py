"""Requests named by where the memory keeps things ("leave X out of your notes", "I don't want him
in your memory", "don't have that on record", "I'd prefer you had no record of X", "take the
medication bit out of what you keep on me"), requests pointing back past an interjection or a
regret ("Eish, no. Don't have that on record.", "I wish I hadn't said that. Unhear it, please?"),
and sentences that only look like them; end to end, the secret is withheld in every mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from said import extracted
from test_forget_phrasings import chat

from emem.memory import Memory

MODES = ("auto", "deep", "fast")


def _topics(*texts: str) -> list[str]:
    return [f.object for f in extracted(*texts, predicate="forget_request")]


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Leave the counselling part out of your notes, would you?", "counselling"),
        ("On reflection, take the medication bit out of what you keep on me.", "medication"),
        ("Hmm. I'd prefer you had no record of the bankruptcy.", "bankruptcy"),
        ("I don't want the divorce sitting anywhere in your records.", "divorce"),
    ],
)
def test_a_request_naming_the_memory_names_its_topic(said: str, topic: str) -> None:
    assert _topics("We had a long week.", said) == [topic]


@pytest.mark.parametrize(
    "asked",
    [
        "Please don't keep any of that, though.",
        "Eish, no. Don't have that on record.",
        "Ugh, I wish I hadn't said that. Unhear it, please?",
        "Actually, leave that out of what you remember.",
        "Honestly, don't even keep it in your head.",
        "Ay, rather don't remember that one.",
    ],
)
def test_a_request_pointing_back_names_the_statement_before(asked: str) -> None:
    secret = "I borrowed R8,000 from a loan shark for the move."
    assert _topics(secret, asked) == [f"said: {secret}"]


def test_a_number_alone_is_a_statement_to_forget() -> None:
    """ "£68,000." has one word, but it is the secret; "Eish, no." is only an interjection."""
    assert _topics("The offer was a lot more. £68,000. Actually, forget I said the number.") == [
        "said: £68,000."
    ]


@pytest.mark.parametrize(
    "said",
    [
        "Keep it up!",
        "Don't keep me waiting.",
        "I don't want it in the garage.",
        "Leave the bikes out of the shed tonight.",
        "I took the bins out of the yard.",
    ],
)
def test_what_is_no_request_to_the_memory(said: str) -> None:
    assert _topics("We had a long week.", said) == []


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(Path(tmp_path_factory.mktemp("place")) / "h")
    conv = chat(
        (
            "2025-02-03T09:00:00+00:00",
            [
                ("user", "I've been seeing a grief counsellor, Dr Okafor, since my dad died."),
                ("assistant", "I'm sorry about your dad."),
                (
                    "user",
                    "Leave the counsellor part out of your notes, would you? My sister Hana lives in Derby.",
                ),
                ("assistant", "Of course."),
            ],
        ),
        (
            "2025-03-10T09:00:00+00:00",
            [
                ("user", "I borrowed R8,000 from a loan shark to cover the move."),
                ("assistant", "That sounds stressful."),
                ("user", "Eish, no. Don't have that on record."),
            ],
        ),
    )
    m.add_conversation(conv, namespace="place")
    return m


@pytest.mark.parametrize("mode", MODES)
def test_the_secrets_are_withheld_and_the_rest_answered(memory: Memory, mode: str) -> None:
    counsellor = memory.ask("What's the name of the counsellor I see?", namespace="place", mode=mode)
    assert "Okafor" not in counsellor.answer and "forget" in counsellor.answer.lower(), counsellor.answer
    loan = memory.ask("How much did I borrow for the move?", namespace="place", mode=mode)
    assert "8,000" not in loan.answer and "forget" in loan.answer.lower(), loan.answer
    sister = memory.ask("Where does my sister Hana live?", namespace="place", mode=mode)
    assert "Derby" in sister.answer, sister.answer


def test_a_withheld_turn_steers_no_later_hop(memory: Memory) -> None:
    """Deep's second hop is seeded from the first hop's evidence: never from a withheld turn,
    whose words would also show in `usage.hop_terms`."""
    answer = memory.ask("Who is the counsellor I've been seeing?", namespace="place", mode="deep")
    shown = " ".join(answer.usage.hop_terms).lower() + answer.model_dump_json().lower()
    assert "okafor" not in shown and "grief" not in " ".join(answer.usage.hop_terms).lower(), shown[:300]
