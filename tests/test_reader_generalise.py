"""The offline reader's rules for revisions, typed 'what <kind> is X' questions, contentless
sentences and counts replayed over time (pure functions, no store)."""

from __future__ import annotations

from datetime import UTC, datetime

from conftest import evidence_turn

from emem.agents.counts import count_over_time
from emem.agents.planner import predicate_cues
from emem.agents.reader import copular_question, copular_value, temporal_lookup
from emem.agents.spans import adds_content, focus_words, revised_value

_turn = evidence_turn


def test_short_cues_match_words_not_prefixes() -> None:
    assert "has_parent" not in predicate_cues("What book is she reading at the moment?")
    assert "has_parent" in predicate_cues("Where does my mom live?")
    assert "lives_in" in predicate_cues("Where has he relocated to?")


def test_revisions_name_the_replacing_value() -> None:
    assert revised_value("Oh, and the party moved to Leeds, the hall flooded.") == "Leeds"
    assert (
        revised_value("They changed the venue, it will be in Nara now, not Kyoto.")
        == "it will be in Nara now"
    )
    assert (
        revised_value("I gave up on Italian. I switched to Portuguese last week.") == "Portuguese last week"
    )
    # A person moving is not a revision of what was said before.
    assert revised_value("Kasia and her husband moved to Wroclaw right after.") is None


def test_dates_are_not_what_a_question_is_about() -> None:
    assert focus_words("Where did Luca live in June 2023?", {"Luca"}) == {"live"}


def test_a_sentence_repeating_the_question_adds_nothing() -> None:
    q = "What is Sol's new job?"
    assert not adds_content("Sol says hi by the way, he's started his new job.", q, ["Sol", "user"])
    assert adds_content("Sol started as a paramedic at the new hospital.", q, ["Sol", "user"])


def test_what_kind_is_x_needs_a_statement_of_what_x_is() -> None:
    assert copular_question("What breed is Rufus?") == "Rufus"
    assert copular_question("What breed are Grace's hens?") == "hens"
    assert copular_question("What book is Maya reading at the moment?") is None
    assert copular_question("Which team is Dylan on?") is None
    text = "Rufus is a beagle and Miso is a tabby, in case the clinic asks."
    assert copular_value(text, "Rufus") == "beagle"
    assert copular_value(text, "Miso") == "tabby"
    assert copular_value("I have a golden retriever called Biscuit.", "Biscuit") == "golden retriever"
    assert copular_value("Rufus is six, not five.", "Rufus") is None
    assert copular_value("We have four hens now!", "hens") is None


def test_weekday_takes_the_replacing_day() -> None:
    turns = [_turn(5, "Book club switched from Wednesdays to Thursdays, so I can come.", "Ade")]
    assert temporal_lookup("What day does Ade's book club meet?", turns) == "Thursdays"


def test_a_past_event_prefers_the_turn_that_states_its_date() -> None:
    turns = [
        _turn(40, "The party was lovely, everyone stayed late."),
        _turn(2, "The party is on 14 March 2024 at my place."),
    ]
    assert temporal_lookup("When was the party?", turns) == "14 March 2024"


def test_counts_replay_losses_and_gains_in_time_order() -> None:
    turns = [
        _turn(1, "My three cats knocked over the tree again."),
        _turn(2, "Nube, Tiza and Pimienta. Tiza is the old lady."),
        _turn(30, "Sad news. Tiza died last week, she was very old."),
    ]
    assert count_over_time(turns, {"cat"}).value == 2
    before = count_over_time(turns, {"cat"}, until=datetime(2024, 1, 20, tzinfo=UTC))
    assert before is not None and before.value == 3 and before.changes == 0


def test_counts_read_what_is_left_and_what_was_added() -> None:
    flat = [
        _turn(1, "I live with two roommates, Jake and Sol."),
        _turn(20, "Jake moved out last weekend, so it's just me and Sol now."),
        _turn(60, "Dana and Luis moved into the spare room, so I've got three roommates now."),
    ]
    assert count_over_time(flat, {"roommat"}).value == 3
    assert count_over_time(flat, {"roommat"}, until=datetime(2024, 2, 1, tzinfo=UTC)).value == 1
    fish = [_turn(1, "I got two goldfish, Salt and Pepper. Sadly Pepper died, so it's only Salt now.")]
    assert count_over_time(fish, {"goldfish"}).value == 1
    hens = [
        _turn(1, "We have four chickens now!"),
        _turn(9, "A fox got two of the chickens. Only John and Ringo are left."),
        _turn(50, "I bought three more chickens for the coop."),
    ]
    assert count_over_time(hens, {"chicken"}).value == 5
    assert count_over_time(hens, {"chicken"}, until=datetime(2024, 2, 1, tzinfo=UTC)).value == 2


def test_no_total_no_count() -> None:
    assert count_over_time([_turn(1, "The cats are asleep on the sofa.")], {"cat"}) is None


def test_finished_and_started_names_the_new_one() -> None:
    from emem.agents.spans import AnswerType, answer_span

    span = answer_span(
        "What show is she watching?", AnswerType.PROPER, "Finished Severance, started The Bear.", None, set()
    )
    assert span.text == "The Bear" and span.specific


def test_a_change_of_date_is_not_a_change_of_value() -> None:
    from emem.agents.spans import only_when

    assert revised_value("The move got pushed back to September, visa stuff.") == "September"
    assert only_when("September") and only_when("next month")
    assert not only_when("Porto")


def test_ages_in_parentheses() -> None:
    from emem.agents.spans import AnswerType, typed_span

    assert typed_span(AnswerType.AGE, "Lily (7), I need a birthday idea for Lily.", None, set()) == "7"


def test_a_later_not_drops_a_set_value() -> None:
    from emem.agents.reader import _without_negated
    from emem.answer import FactItem

    later = _turn(200, "Correction: I'm allergic to tree nuts, not peanuts.")
    first = _turn(1, "I'm allergic to peanuts.")
    fact = FactItem(
        subject="user",
        predicate="allergy",
        status="state",
        values=["peanuts", "tree nuts"],
        revisions=[
            {"object_text": "peanuts", "known_from": first.time.isoformat(), "sources": ["c/S1:1"]},
            {"object_text": "tree nuts", "known_from": later.time.isoformat(), "sources": ["c/S200:1"]},
        ],
    )
    assert _without_negated(fact, [first, later]).values == ["tree nuts"]
