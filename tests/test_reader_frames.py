"""Question frames: the value a turn states of the asked person with the asked verb, in other
words than the question's; nothing from clauses about someone else or with another verb."""

from __future__ import annotations

from datetime import UTC, datetime

from packing import evidence_item
from packing import pack_items as _pack

from emem.agents.frames import SELF, bound_clauses, frame_value, question_frame, role_in
from emem.agents.planner import offline_plan
from emem.agents.reader import offline_read
from emem.agents.spans import AnswerType
from emem.answer import EvidenceItem


def _item(tid: str, day: int, score: float, text: str, speaker: str = "user") -> EvidenceItem:
    return evidence_item(tid, day, score, text, speaker, month=3)


def test_question_frames_name_subject_verb_and_head() -> None:
    f = question_frame("What hobby does Ottavio pick up on weekends?")
    assert f is not None and (f.subject, f.verb, f.head, f.occupation) == ("Ottavio", "pick", "hobby", False)
    me = question_frame("Which bus do I take to work?")
    assert me is not None and me.subject == SELF and me.head == "bus"
    job = question_frame("What does Marguerite do for a living?")
    assert job is not None and job.occupation and job.head is None
    assert question_frame("When does Ottavio fly out?") is None  # a time question has its own reader
    assert question_frame("What is Ottavio's favourite snack?") is None  # no verb of its own


def test_clauses_bind_by_name_pronoun_and_first_person() -> None:
    text = "Our cousin Bertil coaches rowing. She's into fencing though, and I do nothing at all."
    # "She" carries on nobody named as she, but the parser keeps the last subject: Bertil.
    assert bound_clauses(text, "Bertil", "Hedda")[0] == "Our cousin Bertil coaches rowing."
    assert [c.removeprefix("and ") for c in bound_clauses(text, SELF, "user")] == ["I do nothing at all."]
    # What Hedda says of herself answers a question about Hedda.
    assert bound_clauses("I do pottery on Fridays.", "Hedda", "Hedda") == ["I do pottery on Fridays."]
    assert bound_clauses("Does Bertil row?", "Bertil", "Hedda") == []  # a question states nothing


def test_the_value_is_what_the_verb_takes_not_the_sentence() -> None:
    f = question_frame("What sport does Oona do these days?")
    assert f is not None
    text = "Oona got bored of tennis, she's doing fencing on Thursdays now."
    assert frame_value(f, AnswerType.OTHER, text, "user", set()) == "fencing"
    # Negated and nominal uses of the verb state nothing.
    assert frame_value(f, AnswerType.OTHER, "Oona doesn't do any sport.", "user", set()) is None
    drive = question_frame("What car does Oona drive?")
    assert drive is not None
    assert frame_value(drive, AnswerType.OTHER, "Oona passed her driving test!", "Oona", set()) is None
    # Said of someone else, not of Oona.
    assert frame_value(f, AnswerType.OTHER, "Piet is doing karate now.", "user", set()) is None


def test_occupation_frames_read_the_role_given_to_the_subject() -> None:
    assert role_in("She's a retired harbour pilot") == "retired harbour pilot"
    assert role_in("freelancing as an animator now") == "animator"
    f = question_frame("What does Marguerite do for a living?")
    assert f is not None
    text = "My aunt Marguerite visited. She's a glassblower, she sells at markets."
    assert frame_value(f, AnswerType.OTHER, text, "user", set()) == "glassblower"
    assert frame_value(f, AnswerType.OTHER, "Her son is a welder.", "user", set()) is None


def test_reader_answers_with_the_framed_value_and_prefers_the_latest_for_now() -> None:
    q = "What sport does Oona do now?"
    plan = offline_plan(q, ["Oona", "Piet"])
    old = _item("S1:2", 2, 0.7, "Oona plays tennis every Saturday morning.", "Piet")
    new = _item("S4:1", 20, 0.5, "Oona got bored of it, she's doing fencing on Thursdays now.", "Piet")
    answer, status = offline_read(q, plan, _pack(old, new), [])
    assert status == "answered" and answer == "fencing"
    # Asked of a time before the change, the statement said by then answers.
    past = "What sport did Oona do on 10 March 2024?"
    plan_past = offline_plan(past, ["Oona", "Piet"], anchor=datetime(2024, 6, 1, tzinfo=UTC))
    assert "tennis" in offline_read(past, plan_past, _pack(old, new), [])[0]


def test_a_turn_that_names_the_topic_but_not_the_verb_does_not_answer() -> None:
    q = "What car did Piet buy?"
    plan = offline_plan(q, ["Piet", "Oona"])
    saving = _item("S2:1", 5, 0.6, "I'm putting money aside for a car, buses are killing me.", "Piet")
    answer, status = offline_read(q, plan, _pack(saving), [])
    assert status == "abstained", answer


def test_another_persons_use_of_the_verb_does_not_answer() -> None:
    """Whole-sentence answers need the asked verb in a clause said of the asked person: Oona's
    "I found ..." is her finding, though she names Piet."""
    q = "What did Piet find in the attic?"
    plan = offline_plan(q, ["Piet", "Oona"])
    hers = _item("S2:1", 5, 0.6, "Thanks Piet! I found a box of old letters in the attic.", "Oona")
    answer, status = offline_read(q, plan, _pack(hers), [])
    assert status == "abstained", answer
    his = _item("S2:2", 6, 0.6, "Thanks Oona! I found a box of old letters in the attic.", "Piet")
    answer, status = offline_read(q, plan, _pack(his), [])
    assert status == "answered" and "letters" in answer, answer


def test_a_which_noun_answer_keeps_the_words_that_say_which() -> None:
    from emem.agents.frames import modified_head

    said = "For the concert I'd like a balcony ticket, the standing ticket hurt my back last time."
    assert modified_head(said, "ticket") == "balcony ticket"
    assert modified_head("I should buy a new ticket.", "ticket") is None  # "new" tells none apart
    q = "Which ticket should I get for Ilse?"
    plan = offline_plan(q, ["Ilse", "user"])
    answer, status = offline_read(q, plan, _pack(_item("S1:1", 3, 0.6, said, "Ilse")), [])
    assert (answer, status) == ("balcony ticket", "answered")


def test_names_keep_their_title_and_the_noun_beside_them() -> None:
    from emem.agents.spans import typed_span

    assert typed_span(AnswerType.NAME, "My dentist, Dr. Okafor, moved offices.", None, set(), "dentist") == (
        "Dr. Okafor"
    )
    assert typed_span(AnswerType.NAME, "my coach's name is Britt, not Brit.", None, set(), "coach") == "Britt"


def test_a_date_is_read_from_the_clause_naming_the_person() -> None:
    from emem.agents.reader import event_date

    e = _item("S1:1", 4, 0.5, "Tove's recital is June 3 and Arvid's is June 30, easy to confuse.")
    assert event_date(e, about=["Arvid"])[1].startswith("30 June")
    assert event_date(e, about=["Tove"])[1].startswith("3 June")
    # A simple present with a date is a schedule: read forwards from when it was said.
    plan = _item("S1:2", 4, 0.5, "My new job starts on February 2nd.")
    assert event_date(plan)[0].year == 2025


def test_a_count_of_none_said_outright_is_zero() -> None:
    from emem.agents.spans import stated_quantity

    assert stated_quantity("Moved into my own place, no flatmates at last!", {"flatmates"}) == 0
    assert stated_quantity("We don't have any goats anymore.", {"goats"}) == 0
    assert stated_quantity("I have no idea what goats eat.", {"goats"}) is None


def test_a_plan_dropped_in_the_same_breath_yields_what_holds() -> None:
    from emem.agents.spans import answer_span, revised_value

    said = "I was going to rent in Graz, but the lease fell apart. I'm staying with my aunt in Linz."
    assert revised_value(said) == "the lease fell apart. I'm staying with my aunt in Linz."
    q = "Where does Vesna live?"
    assert answer_span(q, AnswerType.PLACE, said, None, set()).text == "Linz"
    # Said as a plan that still holds, nothing is dropped.
    assert revised_value("I'm going to rent in Graz next year.") is None


def test_a_result_time_is_a_clock_reading_or_minutes_never_a_sentence() -> None:
    from emem.agents.spans import answer_type, typed_span

    q = "What was Jonna's time in the Tartu half?"
    assert answer_type(q) is AnswerType.RESULT_TIME
    assert (
        typed_span(AnswerType.RESULT_TIME, "Rough course. 1:52:40, happy with it.", None, set()) == "1:52:40"
    )
    assert typed_span(AnswerType.RESULT_TIME, "Done in 48 minutes flat!", None, set()) == "48 minutes"
    plan = offline_plan(q, ["Jonna", "Piet"])
    signed = _item("S1:1", 2, 0.7, "I signed up for the Tartu half in May!", "Jonna")
    assert offline_read(q, plan, _pack(signed), [])[1] == "abstained"  # no time was said


def test_a_thing_let_go_is_replaced_by_what_follows() -> None:
    from emem.agents.spans import revised_value

    assert revised_value("I sold the scooter, we got an e-bike instead.") == "we got an e-bike instead."
    assert revised_value("Stopped going to choir, now it's chess club on Mondays.") == (
        "now it's chess club on Mondays."
    )


def test_which_one_is_the_named_subject_of_the_clause_saying_it() -> None:
    from emem.agents.frames import which_one

    said = "Pim is scared of thunder, Juno sleeps through anything."
    assert which_one("Which dog is scared of thunder?", said, "user", set()) == ("Pim", 2)
    assert which_one("Which dog is scared of fireworks?", said, "user", set()) is None  # half the words
    assert which_one("Which race is Pim running?", said, "user", set()) is None  # asks what Pim does
    q = "Which dog is scared of thunder?"
    answer, status = offline_read(q, offline_plan(q, ["user"]), _pack(_item("S1:1", 3, 0.5, said)), [])
    assert (answer, status) == ("Pim", "answered")


def test_a_reply_naming_who_is_meant_makes_them_the_subject() -> None:
    from emem.agents.frames import which_one

    said = "No, that's Emiliano, he's fourteen, and yes, the sneakers squeak on every move."
    found = which_one("Whose sneakers squeak?", said, "Osric", set())
    assert found is not None and found[0] == "Emiliano"


def test_a_framed_value_let_go_later_gives_way_to_what_replaced_it() -> None:
    q = "What bike does Oona ride?"
    plan = offline_plan(q, ["Oona", "Piet"])
    old = _item("S1:1", 2, 0.7, "Oona rides a Gazelle cargo bike to work.", "Piet")
    later = _item("S3:1", 25, 0.4, "Oona sold the Gazelle, she got a Brompton instead.", "Piet")
    answer, status = offline_read(q, plan, _pack(old, later), [])
    assert status == "answered" and "Brompton" in answer and "Gazelle" not in answer


def test_a_kind_is_said_by_apposition_or_a_label_never_by_a_state() -> None:
    from emem.agents.reader import copular_value

    assert copular_value("We have Pip, a whippet, and Dora, a basset hound.", "Dora") == "basset hound"
    assert copular_value("Say hi to Ferdi: dachshund, ten weeks old.", "Ferdi") == "dachshund"
    assert copular_value("My cat Oskar is a ragdoll.", "cat") == "ragdoll"
    assert copular_value("Dora is very lazy these days.", "Dora") is None


def test_which_one_names_the_possessed_not_the_possessor() -> None:
    from emem.agents.frames import which_one

    said = "Ines's Bruno is not so lucky, the vet put him on a diet."
    assert which_one("Which dog was put on a diet?", said, "Carla", set()) == ("Bruno", 2)


def test_what_evening_asks_a_weekday_and_the_changed_one_holds() -> None:
    q = "What evening is Bea's choir?"
    plan = offline_plan(q, ["Bea", "Tom"])
    first = _item("S1:1", 2, 0.7, "I joined a choir, rehearsals are Monday evenings.", "Bea")
    moved = _item("S3:1", 20, 0.6, "Choir moved to Wednesdays, the hall is booked on Mondays now.", "Bea")
    answer, status = offline_read(q, plan, _pack(first, moved), [])
    assert status == "answered" and answer.startswith("Wednesday")


def test_a_later_change_of_someone_else_does_not_make_the_value_stale() -> None:
    q = "What language is Oona learning?"
    plan = offline_plan(q, ["Oona", "Piet"])
    hers = _item("S1:1", 2, 0.6, "My sister Oona is learning Finnish, she loves it.", "Piet")
    his = _item("S3:1", 20, 0.7, "Jaak switched from Finnish to Estonian last month.", "Piet")
    answer, _ = offline_read(q, plan, _pack(hers, his), [])
    assert "Finnish" in answer and "Estonian" not in answer
