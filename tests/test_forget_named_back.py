"""Requests that name what they point back at ("forget I mentioned Bruno and the cash", "forget I
told you the glaze", "pretend I never said that about Grandad"), requests that name their topic
first ("That stuff I told you about Ines's marriage, take it out"), a person a request calls "him"
from the speaker's previous turn, an opener ending in a full stop ("No. And strike that ..."); and
what they withhold: a sentence naming the person stays when only the next one holds the secret,
and "my ex" is one person, not every partner."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from said import extracted
from test_forget_phrasings import chat

from emem.ledger.withhold import ForgetRequest
from emem.memory import Memory

MODES = ("auto", "deep", "fast")


def _topics(*texts: str) -> list[str]:
    return [f.object for f in extracted(*texts, predicate="forget_request")]


def test_a_paraphrase_beside_a_name_said_before_adds_nothing() -> None:
    said = "My neighbour Bruno owes me four hundred euros."
    assert _topics(said, "Sorry, forget I mentioned Bruno and the cash.") == ["Bruno", f"said: {said}"]


def test_what_a_request_names_and_the_statement_before() -> None:
    said = "The glaze is copper carbonate with a pinch of rutile."
    assert _topics(said, "Right, that's a trade secret, forget I told you the glaze.") == [
        "glaze",
        f"said: {said}",
    ]


def test_pointing_back_about_someone_names_them() -> None:
    said = "Grandad lost his licence after the crash."
    assert _topics(said, "Pretend I never said that about Grandad, okay?") == ["Grandad", f"said: {said}"]


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("That stuff I told you about Ines's marriage last month, take it out.", "Ines's marriage"),
        ("The pregnancy news from March, erase it, would you?", "pregnancy"),
        (
            "About Dad. What I told you about his operation in May, let's not have that in your memory.",
            "Dad's operation",
        ),
    ],
)
def test_a_topic_named_first_and_pointed_back_at(said: str, topic: str) -> None:
    assert _topics("We had a long week.", said) == [topic]


@pytest.mark.parametrize(
    "said",
    [
        "The bins, take them out.",
        "That stuff I told you about the garden, it's growing well.",
        "The news about the merger, I heard it on the radio.",
    ],
)
def test_what_only_looks_like_a_topic_named_first(said: str) -> None:
    assert _topics("We had a long week.", said) == []


@pytest.mark.parametrize(
    "asked",
    [
        "No. And strike that from your memory, please.",
        "I'd rather you kept that out of your memory, honestly.",
    ],
)
def test_more_ways_of_pointing_back(asked: str) -> None:
    secret = "I've been having panic attacks before every shift."
    assert _topics(secret, asked) == [f"said: {secret}"]


def test_a_topic_named_in_the_sentence_before_is_what_it_means() -> None:
    said = "About the lithium I mentioned last time. On reflection, I'd prefer that you didn't have it on record."
    assert _topics("I've been on lithium since March.", said) == ["lithium"]


@pytest.mark.parametrize(
    "asked",
    [
        "Let's pretend that conversation never happened.",
        "I'd like that removed from your memory.",
        "Can that stay off the record?",
        "Scratch that, I shouldn't have shared it.",
        "I don't want you remembering that.",
        "That's not something you need to keep.",
        "Best if you forget that one.",
        "Let's keep that between us and out of your memory.",
        "No need to keep that on file.",
        "That stays out of your records, okay?",
        "Can we delete that from the log?",
    ],
)
def test_pointing_back_in_other_words(asked: str) -> None:
    secret = "My brother Teo owes the bank forty thousand pounds."
    assert _topics(secret, asked) == [f"said: {secret}"]


@pytest.mark.parametrize(
    ("asked", "topic"),
    [
        ("Strike the bit about the bank.", "bank"),
        ("Remove all mention of Teo's loan.", "Teo's loan"),
    ],
)
def test_a_named_part_struck(asked: str, topic: str) -> None:
    assert _topics("My brother Teo owes the bank forty thousand pounds.", asked) == [topic]


@pytest.mark.parametrize(
    "said",
    [
        "Let's pretend we're tourists for the day.",
        "I'd like that sofa removed from the living room.",
        "Can that wait until Monday?",
        "That's not something you see every day.",
        "Scratch that itch.",
        "Strike the bit about the budget from the report.",
        "Remove all mention of the old price from the flyer.",
        "Let's keep the dog out of the kitchen.",
    ],
)
def test_what_only_sounds_like_pointing_back(said: str) -> None:
    assert _topics("My brother Teo owes the bank forty thousand pounds.", said) == []


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(Path(tmp_path_factory.mktemp("named")) / "h")
    conv = chat(
        (
            "2025-02-03T09:00:00+00:00",
            [
                ("user", "Awkward news: my ex, Tobias, has moved to Calder Street, ten minutes from us."),
                ("assistant", "That must be strange. Tobias lives on Calder Street now."),
                ("user", "Actually, scrap him from your memory entirely."),
                ("assistant", "Done."),
                ("user", "My husband Arjun and I are taking the kids to Lisbon in May."),
                ("assistant", "Lovely."),
            ],
        ),
        (
            "2025-03-10T09:00:00+00:00",
            [
                (
                    "user",
                    "My sister Ines has moved her studio to Porto. Also, between us, she and her "
                    "husband Marco are getting divorced.",
                ),
                ("assistant", "I'm sorry to hear that."),
            ],
        ),
        (
            "2025-04-12T09:00:00+00:00",
            [
                (
                    "user",
                    "That stuff I told you about Ines's marriage in March, take it out. It's her business.",
                ),
                ("assistant", "Done."),
            ],
        ),
    )
    m.add_conversation(conv, namespace="named")
    return m


@pytest.mark.parametrize("mode", MODES)
def test_the_secrets_are_withheld_and_the_rest_answered(memory: Memory, mode: str) -> None:
    ex = memory.ask("Where does my ex live?", namespace="named", mode=mode)
    assert "Calder" not in ex.answer and "forget" in ex.answer.lower(), ex.answer
    husband = memory.ask("What's my husband's name?", namespace="named", mode=mode)
    assert "Arjun" in husband.answer, husband.answer
    marriage = memory.ask("What's going on between Ines and her husband?", namespace="named", mode=mode)
    assert "divorc" not in marriage.answer and "Marco" not in marriage.answer, marriage.answer
    assert "forget" in marriage.answer.lower(), marriage.answer
    studio = memory.ask("Where did Ines move her studio to?", namespace="named", mode=mode)
    assert "Porto" in studio.answer, studio.answer


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("That stuff about Dad's scan - please forget it.", "Dad's scan"),
        ("And the locker code I gave you - could you wipe it?", "locker code"),
        ("The therapy thing I mentioned in May - I'd rather you didn't hold on to that.", "therapy"),
        ("And Ravi, the thing about Imke from April - she wants it private, so please forget it.", "Imke"),
        ("And Kasimir - erase all of that.", "Kasimir"),
        ("Could you unlearn the gallery's address?", "gallery's address"),
    ],
)
def test_a_topic_named_before_a_dash_and_pointed_back_at(said: str, topic: str) -> None:
    assert _topics("We had a long week.", said) == [topic]


def test_wished_out_of_memory_after_a_dash_or_not_to_sit_anywhere() -> None:
    assert _topics(
        "We had a long week.",
        "And the loan from my nephew - it's repaid and I'd like it gone from your memory.",
    )
    secret = "My IBAN is GB33BUKB20201555555555."
    assert _topics(secret, "Delete it - I don't want it sitting anywhere.") == [f"said: {secret}"]


@pytest.mark.parametrize(
    "said",
    [
        "That thing with the car - forget it, it's fine.",
        "The garden - I'd like it gone by Friday.",
        "And Kasimir - he says hello.",
    ],
)
def test_what_only_looks_like_a_topic_before_a_dash(said: str) -> None:
    assert _topics("We had a long week.", said) == []


def test_what_a_request_describes_in_its_own_words_covers() -> None:
    """ "the spare key hiding place" names the turn that said "under the green pot" by half its
    words; "the Okonjos' address" covers their place and "Where do the Okonjos live?"."""
    when = datetime(2025, 6, 1, tzinfo=UTC)
    hiding = ForgetRequest.for_topic(
        "spare key hiding place", subject="user", revision_id="r", known_from=when
    )
    assert hiding.covers(text="The spare key is under the green pot by the shed.")
    assert not hiding.covers(text="The key to the shed is on the hook.")
    theirs = ForgetRequest.for_topic("the Okonjos' address", subject="user", revision_id="r", known_from=when)
    assert theirs.covers(text="I'm fetching a lamp from the Okonjos. Their place is 9, 2nd Avenue.")
    assert theirs.covers(text="Where do the Okonjos live?")
    assert not theirs.covers(text="The Okonjos bought a lamp.")
