"""Reads of a value of the asked type: a time of day (never a date), a time run (not a target), the
town of a home said by its part, a replacement for what it replaced, an interest in other words, a
band's new name, a stage passed for a still-question, a measure asked as "how many kilos"; and a
user/assistant conversation read end to end past what was forgotten."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dated_conversations import dated_conversation
from packing import evidence_item

from emem.agents.counts import counted_words
from emem.agents.frames import verb_forms
from emem.agents.places import containing_town, names_town_of
from emem.agents.planner import predicate_cues
from emem.agents.reader import copular_value
from emem.agents.spans import (
    AnswerType,
    answer_span,
    answer_type,
    labelled_otherwise,
    revised_value,
    revises,
)
from emem.agents.yesno import with_verdict, yes_no
from emem.answer import EvidenceItem, Operation, Plan
from emem.memory import Memory


def test_a_replacement_answers_for_what_it_replaced() -> None:
    later = "My Gazelle got stolen in Utrecht within three days, classic. The replacement is a green Batavus."
    assert revises(later, ["Gazelle"])
    assert revised_value(later) == "a green Batavus"
    assert revised_value("We replaced the Golf with a Polo last month.") == "a Polo last month"
    assert not revises("The replacement bus was late.", ["Gazelle"])


def test_being_into_something_is_said_in_other_words() -> None:
    forms = verb_forms("into")
    for said in ("Ilyas likes bin lorries", "the one obsessed with planes", "she's really into climbing"):
        assert forms.search(said), said
    assert not forms.search("Ilyas got a chest infection")


def test_a_band_renamed_is_called_by_its_new_name() -> None:
    q = "What's Senait's band called?"
    renamed = (
        "We changed the band name too. Velvet Tollbooth was taken by a band in Ohio. We're Ghost Parking now."
    )
    assert answer_span(q, AnswerType.NAME, renamed, None, set()).text == "Ghost Parking"
    named = "Our band finally has a name: Velvet Tollbooth. First show is on the 4th of April."
    assert answer_span(q, AnswerType.NAME, named, None, set()).text == "Velvet Tollbooth"
    # "now" without a name change is not a name
    assert answer_span(q, AnswerType.NAME, "The band is Rosa's now.", None, set()).text != "Rosa"


CONV = dated_conversation(
    [
        (
            "2031-01-20T21:10:00+00:00",
            [
                (
                    "user",
                    "Two kids: Maia is seven and allergic to peanuts, Unai is four and allergic to kiwi fruit.",
                ),
                ("assistant", "Maia, peanuts. Unai, kiwi."),
                ("user", "I cycle everywhere. My bike is an ancient black Gazelle."),
                ("user", "We live in Kallio, the flat is tiny but I love it."),
                ("user", "A new bike shop opened on Hämeentie on the 3rd of January."),
            ],
        ),
        (
            "2031-07-12T16:00:00+00:00",
            [
                ("user", "I've started seeing a therapist for my anxiety, Thursday evenings."),
                ("assistant", "I'm glad you found someone."),
                ("user", "My Gazelle got stolen within three days. The replacement is a green Batavus."),
                ("user", "And we moved. Jon and I have a flat in Vallila, since the 1st of July."),
            ],
        ),
        (
            "2031-10-28T20:30:00+00:00",
            [("user", "And the therapy stuff from the summer - I'd rather you didn't keep it.")],
        ),
    ]
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    mem = Memory(Path(tmp_path_factory.mktemp("s32")) / "home")
    mem.add_conversation(CONV, namespace="s32")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
def test_a_user_conversation_reads_past_what_was_forgotten(memory: Memory, mode: str) -> None:
    allergy = memory.ask("What is Unai allergic to?", namespace="s32", mode=mode)
    assert "kiwi" in allergy.answer and "forget" not in allergy.answer
    therapy = memory.ask("Why am I seeing a therapist?", namespace="s32", mode=mode)
    assert "anxiety" not in therapy.answer and "forget" in therapy.answer
    bike = memory.ask("What bike do I ride?", namespace="s32", mode=mode)
    assert "Batavus" in bike.answer and "Gazelle" not in bike.answer
    home = memory.ask("Which part of Helsinki do I live in?", namespace="s32", mode=mode)
    assert "Vallila" in home.answer and "Kallio" not in home.answer


def test_a_still_question_is_answered_no_by_a_stage_passed() -> None:
    passed = evidence_item("S2:1", 9, 0.8, "I passed Dutch A2, and I'm in the B1 class now.")
    assert yes_no("Am I still in the A2 Dutch class?", [passed]) == f"No: {passed.text}"
    # whether it was passed is not a still-question: passing it does not end it
    assert yes_no("Did I pass Dutch A2?", [passed]) != f"No: {passed.text}"


@pytest.mark.parametrize(
    ("question", "said", "span"),
    [
        (
            "What time do my night shifts start?",
            "Night shifts start at quarter to eight now.",
            "quarter to eight",
        ),
        ("What time are the games on Saturdays?", "Games are at 9:40 on Saturdays.", "9:40"),
        ("What time is my appointment on 12 June?", "The appointment on 12 June is at 10:30am.", "10:30am"),
        ("What time does the bakery open?", "We open at 7am, closed on Mondays.", "7am"),
        ("What time does the bar close?", "We open at 5pm and close at midnight.", "midnight"),
    ],
)
def test_a_time_of_day_is_read(question: str, said: str, span: str) -> None:
    assert answer_type(question) is AnswerType.CLOCK
    got = answer_span(question, AnswerType.CLOCK, said, None, set())
    assert got.specific and got.text == span


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What time does the bakery close?", "We open at 7am, closed on Mondays."),
        ("What time does the bakery close?", "The bakery opened on 14 April 2025."),
    ],
)
def test_no_time_of_day_for_the_asked_end(question: str, said: str) -> None:
    assert not answer_span(question, AnswerType.CLOCK, said, None, set()).specific


def test_a_time_run_is_not_a_target() -> None:
    q = "What time did Maelle run in Rotterdam?"
    assert answer_type(q) is AnswerType.RESULT_TIME
    assert not answer_span(q, AnswerType.RESULT_TIME, "She's aiming for 3:45.", None, set()).specific
    assert (
        answer_span(q, AnswerType.RESULT_TIME, "Maelle ran 3:40, smashed her target.", None, set()).text
        == "3:40"
    )


def test_a_clock_question_is_not_answered_by_a_date(memory: Memory) -> None:
    # the shop's hours were never said: the date it opened is no answer
    got = memory.ask("What time does the bike shop open?", namespace="s32", mode="auto")
    assert got.status == "abstained"


def test_being_something_else_answers_no() -> None:
    q = "Is Fintan a paramedic?"
    assert with_verdict("he's an emergency call handler for the ambulance service", q).startswith("No:")
    assert with_verdict("Fintan's a paramedic, so the rota is a work of art", q).startswith("Yes:")
    assert with_verdict("She is a senior nurse now", "Is Ada a nurse?").startswith("Yes:")


def test_what_day_is_not_answered_by_a_month(memory: Memory) -> None:
    got = memory.ask("What day did the bike shop open?", namespace="s32", mode="auto")
    assert "3 January" in got.answer
    none = memory.ask("What day does my therapy group meet?", namespace="s32", mode="auto")
    assert none.status == "abstained"


def _said(text: str, day: int = 1) -> EvidenceItem:
    return evidence_item(f"S{day}:1", day, 0.5, text)


@pytest.mark.parametrize(
    ("part", "said", "town"),
    [
        (
            "Vračar",
            "Writing from Belgrade! Moved on the 20th of May, a flat in Vračar, two rooms.",
            "Belgrade",
        ),
        (
            "Mylapore",
            "I'm a luthier at Saptak Strings in Mylapore, Chennai. I rent a flat nearby.",
            "Chennai",
        ),
        ("Shawlands", "Welcome to Glasgow. In Shawlands since 16 August.", "Glasgow"),
        # a country or a state after the comma is not the town
        ("Belgrade", "I live in Belgrade, Serbia.", None),
        ("Austin", "We moved to Austin, TX in May.", None),
        ("Whiteinch", "I live in a top-floor flat on Dumbarton Road in Whiteinch.", None),
        # a town said before is not where the place named after it is
        ("Bremen", "I told you Cassius was in Hamburg. He's in Bremen, he moved there years ago.", None),
        (
            "Devonport",
            "A post at the hospital in Latrobe. I start in August, so we'll move up to Devonport.",
            None,
        ),
    ],
)
def test_the_town_a_part_of_it_is_in(part: str, said: str, town: str | None) -> None:
    assert containing_town(part, [_said(said)]) == town


def test_a_part_after_a_town_moved_to_is_not_its_town() -> None:
    said = [
        _said("I'm moving to Lyon in August.", 1),
        _said("all moved into Lyon, Croix-Rousse, lots of stairs", 9),
    ]
    assert containing_town("Lyon", said) is None


def test_a_measure_asked_as_how_many_units_is_read_as_a_measure(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2031-06-30T03:00:00+00:00",
                [
                    ("user", "Our daughter Elsie was born on 2 June, my partner and I are wrecked."),
                    ("assistant", "Congratulations!"),
                    ("user", "she's breastfed in the day and has formula at night. she weighs 4.1 kg"),
                ],
            )
        ]
    )
    with Memory(tmp_path / "home") as mem:
        mem.add_conversation(conv, namespace="kilos")
        got = mem.ask("How many kilos is Elsie?", namespace="kilos", mode="auto")
    assert "4.1 kg" in got.answer


def test_who_one_works_with_is_not_the_employer() -> None:
    assert "works_at" not in predicate_cues("Who's the crewmate I usually work with?")
    assert "works_at" in predicate_cues("Where do I work now?")


def test_people_employed_are_counted_as_staff() -> None:
    plan = Plan(operation=Operation.COUNT, entities=["Kunle"])
    assert "staff" in counted_words("How many people did Kunle employ in February?", plan)
    assert "staff" not in counted_words("How many people live in my flat?", plan)


def test_the_city_of_a_home_said_by_its_part(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            ("2047-06-20T19:30:00+00:00", [("user", "We're moving to Izmir in August for the new job.")]),
            (
                "2047-09-15T08:00:00+00:00",
                [("user", "Greetings from Izmir! We moved into a flat in Alsancak on the 28th of August.")],
            ),
        ]
    )
    with Memory(tmp_path / "home") as mem:
        mem.add_conversation(conv, namespace="izmir")
        city = mem.ask("Which city do I live in?", namespace="izmir", mode="auto")
        part = mem.ask("Which part of Izmir do I live in?", namespace="izmir", mode="auto")
    # the ledger's earlier "Izmir" is the town of the current "Alsancak", not a replaced home
    assert city.answer == "Izmir" and city.overruled is None
    assert part.answer == "Alsancak"
    said = [_said("Greetings from Izmir! We moved into a flat in Alsancak on the 28th of August.")]
    assert names_town_of("Izmir", ["Alsancak"], said)
    assert not names_town_of("Leeds", ["Alsancak"], said)


def test_another_day_of_the_month_answers_no() -> None:
    q = "Is my defense on the 14th of April?"
    assert with_verdict("Defense date is the 24th of April.", q).startswith("No:")
    assert with_verdict("Defense date is the 14th of April.", q).startswith("Yes:")
    assert with_verdict("The party is on June 3rd.", "Is the party on the 3rd of June?").startswith("Yes:")


def test_a_whether_question_with_a_name_word_asks_whether() -> None:
    assert answer_type("Did Senait's band change its name?") is AnswerType.YESNO
    assert answer_type("Is the puppy called Biscuit?") is AnswerType.YESNO
    assert answer_type("What's Senait's band called?") is AnswerType.NAME


def test_a_place_with_an_ampersand_is_read_whole() -> None:
    q = "Where does Fiifi roast coffee?"
    said = "Left Kilnworks, I'm roasting at Ember & Ash in Seddon now."
    assert answer_span(q, AnswerType.PLACE, said, None, set()).text == "Ember & Ash"


@pytest.mark.parametrize(
    ("said", "name", "kind"),
    [
        ("We got a dog, a rescue called Bran. He's terrified of the hoover.", "Bran", None),
        ("We adopted a second one at the weekend, a black kitten called Bigos.", "Bigos", None),
        ("We got a black labrador called Sam.", "Sam", "black labrador"),
        ("Kiwi, a border collie, runs rings round us.", "Kiwi", "border collie"),
    ],
)
def test_no_breed_is_read_from_a_rescue_or_a_colour(said: str, name: str, kind: str | None) -> None:
    assert copular_value(said, name) == kind


@pytest.mark.parametrize(
    ("question", "said", "value", "otherwise"),
    [
        (
            "What's my personal email address?",
            "Work email changed: jules.k@goannahealth.com.",
            "jules.k@goannahealth.com",
            True,
        ),
        (
            "What's my personal mobile number?",
            "I've got a work mobile now, 07700 900733, but anything personal still goes to the old number.",
            "07700 900733",
            True,
        ),
        (
            "What's my work email?",
            "My work email is a@b.com and my personal one is c@d.com.",
            "a@b.com",
            False,
        ),
        (
            "What's my work email?",
            "My work email is a@b.com and my personal one is c@d.com.",
            "c@d.com",
            True,
        ),
        ("What's my mobile number?", "My mobile is 306-555-0187.", "306-555-0187", False),
        ("What's my email?", "Work email is jules.k@fernleaf.com.au.", "jules.k@fernleaf.com.au", False),
    ],
)
def test_a_contact_under_another_label(question: str, said: str, value: str, otherwise: bool) -> None:
    assert labelled_otherwise(question, said, value) is otherwise


def test_a_personal_number_is_not_the_new_work_one(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2032-01-10T09:00:00+00:00",
                [("user", "Oh, and my mobile is 07700 900418. New network, new number.")],
            ),
            (
                "2032-10-20T09:00:00+00:00",
                [
                    (
                        "user",
                        "I've got a work mobile now, 07700 900733, but anything personal still goes to the old number.",
                    )
                ],
            ),
        ]
    )
    with Memory(tmp_path / "home") as mem:
        mem.add_conversation(conv, namespace="mobiles")
        got = mem.ask("What's my personal mobile number?", namespace="mobiles", mode="auto")
    assert "07700 900418" in got.answer and "900733" not in got.answer


def test_work_as_where_one_goes_cues_no_employer() -> None:
    assert "works_at" not in predicate_cues("What do I ride to work?")
    assert "works_at" not in predicate_cues("What does Noor wear at work?")
    assert "works_at" in predicate_cues("Where does Noor work?")


def test_what_is_wrong_with_someone_is_about_them(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2047-09-15T08:00:00+00:00",
                [
                    ("user", "Emir passed swimming level 1 and he's in level 2 now."),
                    ("user", "Emir got an ear infection last week, he's fine now."),
                ],
            )
        ]
    )
    with Memory(tmp_path / "home") as mem:
        mem.add_conversation(conv, namespace="emir")
        got = mem.ask("What is wrong with Emir?", namespace="emir", mode="auto")
    assert "ear infection" in got.answer
