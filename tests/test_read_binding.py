"""Binding a question to whom it is about, on the read side: the user of a conversation whose
speaker labels say neither, statements told of someone else, a named person's unnamed relative,
and whole sentences that answer another kind of question."""

from __future__ import annotations

from datetime import UTC, datetime

from emem.agents.counts import LOSS, CountTrace, count_over_time
from emem.agents.reader import (
    answers_asked_kind,
    kind_of,
    only_a_person,
    sentence_subject,
    told_of_others,
    unnamed_kin,
)
from emem.agents.spans import about
from emem.answer import EvidenceItem, Plan
from emem.subjects import likely_user, question_subjects


def test_likely_user_is_the_speaker_who_talks_about_themself() -> None:
    turns = [
        ("Joaquin", "Hey Juno, my son started violin lessons and I'm busy."),
        ("Juno", "Busy household! How old are they now?"),
        ("Joaquin", "I left my job in December."),
        ("Juno", "Have you thought about a calendar?"),
    ]
    assert likely_user(turns) == ("Joaquin", "Juno")
    # "my" then maps to Joaquin, "you" to Juno, although neither label says user or assistant
    assert question_subjects(
        "What does my son play?", ["Joaquin", "Juno"], [], inferred=("Joaquin", "Juno")
    ) == ["Joaquin"]


def test_likely_user_is_the_speaker_an_agent_acknowledges() -> None:
    # The agent talks about itself as much as to the user ("I'll keep", "I've saved"), so only
    # its acknowledgements tell it apart; two friends who say "got it" once do not look like one.
    turns = [
        ("Marisol", "Tovi, can you keep my allotment notes? Plot 9, next to the shed."),
        ("Tovi", "Noted: plot 9 by the shed."),
        ("Marisol", "I planted garlic in October and my neighbour Ekow gave me rhubarb crowns."),
        ("Tovi", "I'll remember the garlic and the rhubarb."),
        ("Marisol", "my water butt leaks, I need a new one before spring"),
        ("Tovi", "Saved. I can remind you in February."),
        ("Marisol", "and my new number is 0161 555 0182"),
        ("Tovi", "I've updated your number."),
    ]
    assert likely_user(turns) == ("Marisol", "Tovi")
    friends = [
        ("Ekow", "I moved to Leeds, my flat is tiny."),
        ("Marisol", "Got it. I'm still in Salford, my plot is doing well."),
        ("Ekow", "My sister visits next week."),
        ("Marisol", "I have three tomato plants."),
    ]
    assert likely_user(friends) is None


def test_likely_user_is_the_speaker_an_agent_repeats_back() -> None:
    # An agent that keeps a memory repeats what it is told in its own short summary, seldom with
    # "noted" and seldom speaking of itself or to "you"; a friend answers with news of their own.
    turns = [
        ("Tamsin", "Hello Corvo. I'm Tamsin, I keep bees in Dorset and I need help with my hives."),
        ("Corvo", "Tamsin, beekeeper in Dorset. What's first?"),
        ("Tamsin", "I've got six hives at the orchard in Cerne Abbas and two on my allotment."),
        ("Corvo", "Six hives at the Cerne Abbas orchard, two on the allotment."),
        ("Tamsin", "My queen in hive three failed, so I've ordered a Buckfast queen."),
        ("Corvo", "Hive three: Buckfast queen ordered."),
        ("Tamsin", "I'm selling honey at Dorchester market on Saturdays now."),
        ("Corvo", "Saturdays at Dorchester market, selling honey. Good luck."),
    ]
    assert likely_user(turns) == ("Tamsin", "Corvo")
    friends = [
        ("Tamsin", "I've got six hives at the orchard in Cerne Abbas."),
        ("Oriel", "Six hives! I've only got my two goats, and one is lame."),
        ("Tamsin", "My queen failed, so I ordered a new one."),
        ("Oriel", "I'm selling cheese at Bridport now."),
    ]
    assert likely_user(friends) is None


def test_likely_user_keeps_none_for_two_friends_or_labelled_speakers() -> None:
    friends = [
        ("Bea", "I ran Rotterdam, my best time."),
        ("Tariq", "I ran Vienna, my brother lives there."),
        ("Bea", "My brother is in Lyon."),
        ("Tariq", "I have one bike."),
    ]
    assert likely_user(friends) is None
    assert likely_user([("user", "I live in Oslo."), ("assistant", "Do you like it?")]) is None
    assert question_subjects("What does my son play?", ["Bea", "Tariq"], []) == []


def test_a_turn_told_of_another_known_person_does_not_answer_for_the_user() -> None:
    people = frozenset({"Leyla", "user", "assistant"})
    moved = "Leyla moved to Amsterdam last month, she got a job at a design studio there."
    assert sentence_subject(moved) == "Leyla"
    assert told_of_others(moved, {"user"}, {"live"}, people)
    assert not told_of_others(moved, {"user", "leyla"}, {"live"}, people)
    # a name nobody knows as a person ("Yoga is on Thursdays now") is no other subject
    assert not told_of_others("Yoga is on Thursdays now.", {"jess"}, {"yoga"}, frozenset({"Jess"}))
    assert not told_of_others("I moved to Rotterdam.", {"user"}, {"live"}, people)


def test_a_named_persons_unnamed_relative_needs_evidence_about_that_relative() -> None:
    assert unnamed_kin("What does Idris's mum do for a living?", Plan(entities=["Idris", "Idri"])) == {
        "mum",
        "mom",
        "mother",
    }
    # the relative resolved to a name: the plan holds it, no extra requirement
    assert unnamed_kin("Where does Tariq's brother live?", Plan(entities=["Tariq", "Sami"])) == set()
    assert unnamed_kin("Where does my partner's mother live?", Plan(entities=["user", "Idris"])) == {
        "mum",
        "mom",
        "mother",
    }
    assert unnamed_kin("Where does Tariq live?", Plan(entities=["Tariq"])) == set()


def test_a_whole_sentence_of_another_kind_does_not_answer() -> None:
    assert not answers_asked_kind("What does Idris's mum do for a living?", "Idris's mum lives in Busan.")
    assert answers_asked_kind("What does Idris's mum do for a living?", "Idris's mum works as a nurse.")
    assert not answers_asked_kind(
        "What did Leyla make in her pottery course?", "Leyla signed up for a pottery course, she's hooked."
    )
    assert answers_asked_kind("What did Leyla make in her pottery course?", "Leyla made a blue teapot there.")


def _turn(day: str, speaker: str, text: str, n: int) -> EvidenceItem:
    return EvidenceItem(
        turn_id=f"S:{n}",
        session_id="S",
        conversation_id="c",
        speaker=speaker,
        time=datetime.fromisoformat(day).replace(tzinfo=UTC),
        text=text,
    )


def test_count_replays_thefts_gifts_and_a_first_gain() -> None:
    said = [
        _turn("2023-03-04", "Bea", "Ha. I have three bikes now, I bought a gravel bike last week.", 1),
        _turn("2023-06-18", "Bea", "Then somebody stole my commuter bike outside the station in May.", 2),
        _turn(
            "2023-11-02",
            "Bea",
            "I gave my old mountain bike to my niece, so it's just the gravel bike now.",
            3,
        ),
    ]
    assert count_over_time(said, {"bike"}, datetime(2023, 5, 1, tzinfo=UTC)) == CountTrace(3, 0)
    assert count_over_time(said, {"bike"}, datetime(2023, 9, 1, tzinfo=UTC)) == CountTrace(2, 1)
    assert count_over_time(said, {"bike"}) == CountTrace(1, 2)
    dogs = [
        _turn("2024-06-02", "user", "We adopted a greyhound last month, her name is Saffron.", 1),
        _turn("2024-09-14", "user", "We adopted a second greyhound two weeks ago, a boy called Barley.", 2),
    ]
    assert count_over_time(dogs, {"greyhound"}, datetime(2024, 8, 1, tzinfo=UTC)) == CountTrace(1, 0)
    assert count_over_time(dogs, {"greyhound"}) == CountTrace(2, 1)
    # "gave birth" adds, it takes nobody away
    assert LOSS.search("Our cat gave birth to kittens") is None


def test_a_plural_and_its_singular_share_a_stem() -> None:
    assert about("I have three bikes now", {"bike"})
    assert about("I take two classes", {"class"})
    assert about("my horse", {"horses"})


def test_a_bare_name_is_no_answer_to_a_question_about_a_thing() -> None:
    people = frozenset({"Tariq", "Bea", "Dario"})
    assert only_a_person("Tariq!", people)
    assert only_a_person("Dario", people)
    assert not only_a_person("Rotterdam", people)
    assert not only_a_person("Tariq ran Vienna", people)


def test_the_kind_a_relation_value_says() -> None:
    assert kind_of("a corgi dog") == "corgi"
    assert kind_of("a wire-haired dachshund named Rex") == "wire-haired"
    assert kind_of("a dog named Pretzel") is None
    assert kind_of("two foster kittens") is None
