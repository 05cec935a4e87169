"""Forget requests that name their topic first and point back at it, asked as questions, with
verbs that only erase in that position, or naming when the topic was told; and the sentences of
the same shapes that ask nothing of the memory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from dated_conversations import dated_conversation
from said import extracted

from emem.ledger.withhold import active_forget_requests, told_month
from emem.memory import Memory


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        # a verb that can only mean erasing, whatever the phrase before it
        ("The insulin pump settings - please don't hold on to that.", "insulin pump settings"),
        ("My overdraft limit, please wipe it.", "overdraft limit"),
        # "about" says the phrase names something said, so "forget"/"drop" are requests
        ("About the Lisbon secondment idea - please forget it.", "Lisbon secondment idea"),
        ("About Oona's visa trouble I mentioned in May - drop it.", "Oona's visa trouble"),
        # a request asked as a question after the phrase
        ("And the gate code I gave you last week - could you not keep it?", "gate code"),
        ("hey, the knee stuff from April - can you unremember that?", "knee"),
        # weak verbs after a phrase that says it was something told
        ("And the thing about Cillian's court case - please let go of that.", "Cillian's court case"),
        ("The business with the loan and my uncle, bin it.", "loan"),
        # a weak verb whose object is a secret's kind
        ("Also, Ruth, ditch the garage door code - it changed.", "garage door code"),
    ],
)
def test_a_topic_named_first_is_a_request(said: str, topic: str) -> None:
    topics = [f.object for f in extracted(said, predicate="forget_request")]
    assert any(topic in t for t in topics), topics


@pytest.mark.parametrize(
    "said",
    [
        "The party - forget it, it's off.",  # "never mind", not a request to the memory
        "The kids, drop them at school by eight.",
        "My mum never lets me forget it.",
        "Dropped Nagano from the trip, it's just Kyoto now.",
        "The old sofa - we binned it last week.",
    ],
)
def test_the_same_shapes_asking_nothing_of_the_memory_are_not_requests(said: str) -> None:
    assert extracted(said, predicate="forget_request") == []


def test_forgetting_a_statement_forgets_the_thing_it_names() -> None:
    topics = [
        f.object
        for f in extracted(
            "Dev turned down the Lisbon offer, he's staying put.",
            "And honestly, forget I ever mentioned it.",
            predicate="forget_request",
        )
    ]
    assert "Lisbon offer" in topics
    assert any(t.startswith("said: Dev turned down") for t in topics)


def test_the_month_a_request_says_it_was_told_in() -> None:
    june = datetime(2031, 6, 30, tzinfo=UTC)
    march = told_month("Can you scrub the health thing I told you about in March?", june)
    assert march is not None and march[0] < datetime(2031, 3, 1, tzinfo=UTC) < march[1]
    assert march[1] < datetime(2031, 4, 10, tzinfo=UTC)
    # a month after the request's own is last year's
    july = told_month("About the loan I mentioned in July - forget that.", june)
    assert july is not None and july[0].year == 2030
    assert told_month("the stuff from March - wipe it", june) is not None
    # a month said of the topic itself is not when it was told
    assert told_month("Forget the trip in March.", june) is None


NS = "told-in"
CONV = dated_conversation(
    [
        (
            "2031-03-05T10:00:00+00:00",
            [
                ("user", "I had a scan at the hospital about my thyroid, results in two weeks."),
                ("assistant", "Fingers crossed for the results."),
                ("user", "I work at Kestrel Books, the shop on the quay."),
            ],
        ),
        (
            "2031-06-12T10:00:00+00:00",
            [
                (
                    "user",
                    "Big change: I've left the bookshop. I'm at the Harbour View Hospital now, on reception.",
                ),
                ("assistant", "Congratulations on the new job."),
                ("user", "Can you scrub the medical thing I told you about in March? It was nothing."),
            ],
        ),
    ],
    cid="c",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("told-in")) / "home")
    mem.add_conversation(CONV, namespace=NS)
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_a_request_naming_a_month_covers_only_what_was_told_then(memory: Memory, mode: str) -> None:
    scan = memory.ask("What was my hospital scan for?", namespace=NS, mode=mode)
    assert "thyroid" not in scan.answer and "forget" in scan.answer
    assert not any("thyroid" in e.text for e in scan.evidence)
    # the hospital job was told in June: the request about March does not reach it
    work = memory.ask("Where do I work?", namespace=NS, mode=mode)
    assert "Harbour View Hospital" in work.answer and "Kestrel" not in work.answer


def test_the_request_records_its_month(memory: Memory) -> None:
    memory.consolidate(NS)
    [request] = active_forget_requests(memory.ledger, NS)
    assert request.told_from is not None and request.told_until is not None
    assert request.told_from.month in (2, 3) and request.told_until.month in (4,)


@pytest.mark.parametrize(
    ("before", "topic"),
    [
        # the thing named, whatever verb follows it
        ("The Halden flat deposit can go now, we got it back.", "Halden flat deposit"),
        # a sentence that only points at its topic
        ("Look, Mira, that rash.", "rash"),
    ],
)
def test_a_statement_pointed_back_at_names_its_thing(before: str, topic: str) -> None:
    topics = [f.object for f in extracted(before, "Please forget that.", predicate="forget_request")]
    assert topic in topics, topics


def test_a_place_that_only_locates_is_not_what_is_forgotten() -> None:
    topics = [
        f.object
        for f in extracted(
            "The man next to the Ashby allotment has been dumping rubbish and I reported him.",
            "Actually, please forget that.",
            predicate="forget_request",
        )
    ]
    assert "Ashby allotment" not in topics and topics  # the statement itself is still covered


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("You can forget the PIN now.", "PIN"),
        ("Feel free to forget about my therapist.", "therapist"),
        ("Kindly forget my PIN.", "PIN"),
        ("You can drop my therapist from your notes.", "therapist"),
        ("Erase all trace of the PIN.", "PIN"),
        ("Don't keep a record of my therapist.", "therapist"),
        ("I don't want you knowing about my therapist.", "therapist"),
        ("Could you stop remembering my therapist's name?", "therapist"),
        ("My PIN - bin it please.", "PIN"),
        ("Wipe that PIN.", "PIN"),
        ("I want the PIN gone from your memory.", "PIN"),
        ("Please purge the PIN from memory.", "PIN"),
        ("That's between us, don't save it.", "said: My therapist is Dr Kowalczyk"),
    ],
)
def test_requests_in_more_of_the_words_people_use(said: str, topic: str) -> None:
    topics = [
        f.object
        for f in extracted(
            "My therapist is Dr Kowalczyk and my PIN is 4471.", said, predicate="forget_request"
        )
    ]
    assert any(t.startswith(topic) for t in topics), topics
    assert "PIN from memory" not in topics


@pytest.mark.parametrize(
    "said",
    [
        "You can come round at six.",
        "Feel free to drop by on Sunday.",
        "You should keep the receipt.",
        "Could you remember my new number?",
        "I don't want you to worry about it.",
    ],
)
def test_openers_of_requests_that_ask_nothing_of_the_memory(said: str) -> None:
    assert extracted("My PIN is 4471.", said, predicate="forget_request") == []


def test_it_wished_gone_after_a_topic_named_first_is_that_topic() -> None:
    topics = [
        f.object
        for f in extracted(
            "We kept the third kitten. So 3 cats.",
            "And the loan from my aunt - that's settled and I'd like it gone from your memory.",
            predicate="forget_request",
        )
    ]
    assert any("loan" in t for t in topics) and not any("cats" in t for t in topics), topics
