"""The offline reader's general rules: revisions, the follow-up hop, typed answers and abstention."""

from __future__ import annotations

from datetime import UTC, datetime

from packing import evidence_item
from packing import pack_items as _pack

from emem.agents.currentness import later_revisions
from emem.agents.planner import offline_plan
from emem.agents.reader import offline_read
from emem.agents.spans import (
    AnswerType,
    Span,
    answer_span,
    answer_type,
    has_revision_cue,
    revised_value,
    revises,
    salient_terms,
)
from emem.answer import EvidenceItem
from emem.models import StoredTurn


def _item(tid: str, day: int, score: float, text: str, speaker: str = "user") -> EvidenceItem:
    return evidence_item(tid, day, score, text, speaker, month=1)


def _turn(tid: str, day: int, text: str, speaker: str = "user") -> StoredTurn:
    when = datetime(2024, 1, day, tzinfo=UTC)
    return StoredTurn(
        turn_id=tid,
        session_id="S",
        conversation_id="c",
        speaker=speaker,
        time=when,
        text=text,
        namespace="ns",
        seq=day,
        recorded_at=when,
        hash=tid,
    )


def test_revised_value_is_the_replacement_not_the_dropped_value() -> None:
    assert revised_value("Emma switched from violin to cello this fall.") == "cello this fall"
    assert revised_value("Norway is off, his ankle broke. We'll go to Copenhagen instead.") == (
        "We'll go to Copenhagen instead."
    )
    assert revised_value("I've gone off flat whites. These days my usual is a cortado.") == (
        "These days my usual is a cortado."
    )
    assert revised_value("I live in Seattle now and I love it.") is None
    assert revised_value("The trip got cancelled.") is None  # dropped, nothing named instead


def test_coming_back_from_somewhere_revises_nothing() -> None:
    # "got back from my run" is a return, not "went from X to Y"; going from one thing to another is
    assert not has_revision_cue("I just got back from my run. Mornings like that set me up for the day.")
    assert has_revision_cue("We went from two cars to one.")
    assert revised_value("She's going from part-time to full-time in May.") == "full-time in May"


def test_salient_terms_are_the_values_said_of_the_asked_person() -> None:
    assert salient_terms("We booked a week in Iceland for July.", {"user"}) == ["Iceland"]
    both = "Emma has violin on Mondays and Leo has soccer on Wednesdays."
    assert "Emma" not in salient_terms(both, {"daniel", "leo"}, ["Leo"])
    assert revises("We cancelled Iceland, we're going to Porto instead.", ["Iceland"])
    assert not revises("Iceland was amazing.", ["Iceland"])


def test_follow_up_hop_finds_a_later_revision_that_similarity_missed() -> None:
    top = _item("S1:1", 1, 0.7, "Vacation plans: we booked a week in Iceland for July.")
    turns = [
        _turn("S1:1", 1, top.text),
        _turn("S0:9", 0 + 1, "Iceland was cancelled once before."),  # not later than the evidence
        _turn(
            "S2:1", 5, "And we cancelled Iceland, flights got too expensive. We're going to Porto instead."
        ),
        _turn("S2:2", 6, "Porto is lovely.", "assistant"),
        _turn("S3:1", 9, "Iceland is off for them too.", "user"),
    ]
    found = later_revisions([top], turns, {"user", "assistant"}, as_of=datetime(2024, 1, 8, tzinfo=UTC))
    assert [t.turn_id for t in found] == ["S2:1"]


def test_reader_answers_the_replacing_value_of_a_later_revision() -> None:
    plan = offline_plan("Where is the user going on vacation this summer?", ["user"], subjects=["user"])
    old = _item("S1:1", 1, 0.6, "Vacation plans: we booked a week in Iceland for July.")
    new = _item(
        "S3:4",
        9,
        0.4,
        "And we cancelled Iceland, the flights got too expensive. We're going to Porto instead.",
    )
    answer, status = offline_read(
        "Where is the user going on vacation this summer?", plan, _pack(old, new), []
    )
    assert status == "answered" and "Porto" in answer and "Iceland" not in answer
    # Asked what came before, the revision does not replace the answer.
    before = offline_plan("Where was the user going on vacation before?", ["user"], subjects=["user"])
    answer, _ = offline_read("Where was the user going on vacation before?", before, _pack(old, new), [])
    assert "Iceland" in answer


def test_temporal_lookup_weekdays_unstated_dates_and_corrected_days() -> None:
    from emem.agents.reader import event_date, temporal_lookup

    pottery = _item(
        "S2:5", 3, 0.6, "I'm taking a pottery class on Tuesdays. Correction: Thursdays, I switched."
    )
    assert temporal_lookup("What day is Ola's pottery class?", [pottery]) == "Thursdays"
    unstated = _item("S2:3", 3, 0.6, "I need to book a dentist appointment at some point, remind me?")
    assert temporal_lookup("When is my dentist appointment?", [unstated]) is None
    # Something that happened is dated by when it was told, as before.
    assert temporal_lookup("When did the user go to the dentist?", [unstated]) == "3 January 2024"
    wedding = _item("S1:1", 3, 0.6, "She will get married on the 17th of June. Sorry, the 24th.")
    assert event_date(wedding)[1] == "24 June 2024"


def test_clauses_about_a_person_continue_through_pronouns_and_ages_are_digits() -> None:
    from emem.agents.spans import AnswerType, about_entity, focus_words, typed_span

    text = "Maybe lunch. My friend Chloe is joining too, she's a nurse in Bristol, so lunch works better."
    assert "nurse" in about_entity(text, ["Chloe"])
    assert "Emma" not in about_entity("Emma has violin on Mondays and Leo has soccer.", ["Leo"])
    assert typed_span(AnswerType.AGE, "Pepper just turned two.", None, set()) == "2"
    assert focus_words("What is the user's address?", {"user"}) == {"address"}


def test_a_name_is_not_a_place_when_the_ledger_value_is_of_another_kind() -> None:
    from emem.agents.reader import _fact_answer
    from emem.answer import FactItem

    plan = offline_plan("Where does my sister live?", ["user"], subjects=["user"])
    sister = FactItem(
        subject="user", predicate="has_sibling", status="state", values=["a sister named Hannah"]
    )
    assert _fact_answer("Where does my sister live?", plan, [sister]) is None
    turn = _item("S2:1", 3, 0.6, "My sister Hannah is visiting from Leeds next week.")
    answer, status = offline_read("Where does my sister live?", plan, _pack(turn), [sister])
    assert (answer, status) == ("Leeds", "answered")


def test_topic_questions_need_a_stated_topic_and_corrections_win() -> None:
    from emem.agents.spans import AnswerType, answer_span, answer_type

    q = "What is Sven's thesis about?"
    assert answer_type(q) is AnswerType.TOPIC
    assert not answer_span(q, AnswerType.TOPIC, "Now that the thesis is done I'm free.", None, set()).specific
    assert (
        answer_span(q, AnswerType.TOPIC, "My thesis is about glacier melt.", None, set()).text
        == "glacier melt"
    )
    half = "I'm running the Warsaw one in May. Wait, no, it's the Gdansk half. Warsaw was last year."
    assert (
        answer_span("Which race?", AnswerType.OTHER, half, None, set()).text
        == "Wait, no, it's the Gdansk half."
    )
    assert (
        answer_span("How old?", AnswerType.AGE, "He turns 30. Sorry, 31, I'm 30.", None, set()).text == "31"
    )
    leo = "Emma is 9 and Leo is 6. Sorry, Leo is 7 now."
    assert answer_span("How old is Leo?", AnswerType.AGE, leo, None, set(), ["Leo"]).text == "7"


def test_a_conflict_said_in_one_self_correcting_turn_is_settled() -> None:
    from emem.answer import FactItem

    turn = _item("S1:5", 3, 0.6, "Emma is 9 and Leo is 6. Sorry, Leo is 7 now.", "Daniel")
    revs = [{"object_text": v, "sources": ["c/S1:5"]} for v in ("6", "7")]
    fact = FactItem(subject="Leo", predicate="age", status="conflict", values=["6", "7"], revisions=revs)
    plan = offline_plan("How old is Leo?", ["Leo", "Daniel"])
    assert offline_read("How old is Leo?", plan, _pack(turn), [fact]) == ("7", "answered")


def test_counts_at_a_period_and_stated_totals_after_the_ledger_set() -> None:
    from emem.agents.spans import stated_quantity
    from emem.answer import FactItem

    assert stated_quantity("I dropped the kids' session. Four classes now.", {"class", "teach"}) == 4
    q = "How many jobs did Nina have in August 2023?"
    plan = offline_plan(q, ["Nina"], datetime(2024, 2, 1, tzinfo=UTC))
    two = _item("S2:1", 2, 0.45, "I'm working two jobs now: the bakery and tutoring.", "Nina")
    two = two.model_copy(update={"time": datetime(2023, 8, 2, tzinfo=UTC)})
    one = _item("S3:1", 10, 0.5, "I quit the bakery. So just one job now.", "Nina")
    assert offline_read(q, plan, _pack(one, two), []) == ("2", "answered")
    now = offline_plan("How many pets does the user have now?", ["user"], subjects=["user"])
    dog = {"object_text": "a dog named Rex", "sources": ["c/S1:1"], "known_from": "2024-01-01T00:00:00+00:00"}
    pets = FactItem(
        subject="user", predicate="has_pet", status="state", values=["a dog named Rex"], revisions=[dog]
    )
    total = _item("S3:1", 9, 1.0, "We adopted a rabbit! So that's three animals in the house now.")
    total = total.model_copy(update={"role": "current-value"})
    assert offline_read("How many pets does the user have now?", now, _pack(total), [pets]) == (
        "3",
        "answered",
    )
    assert offline_read("How many pets does the user have now?", now, _pack(), [pets]) == ("1", "answered")


def test_a_question_about_a_past_period_is_not_answered_by_a_later_change() -> None:
    q = "What was my usual coffee order in March 2024?"
    plan = offline_plan(q, ["user"], datetime(2024, 6, 1, tzinfo=UTC), subjects=["user"])
    old = _item("S1:5", 5, 0.43, "Also, I need coffee. My usual is a flat white with oat milk.")
    new = _item("S3:5", 9, 0.40, "I've gone off flat whites. These days my usual is a cortado.")
    new = new.model_copy(update={"time": datetime(2024, 5, 2, tzinfo=UTC)})
    answer, _ = offline_read(q, plan, _pack(old, new), [])
    assert answer == "My usual is a flat white with oat milk."
    now = offline_plan("What's my usual coffee order?", ["user"], subjects=["user"])
    assert "cortado" in offline_read("What's my usual coffee order?", now, _pack(old, new), [])[0]


def test_the_clause_after_a_correction_cue_stays_with_the_person() -> None:
    from emem.agents.spans import about_entity

    text = "A party for my brother Eli on the 20th. He turns 30. Sorry, 31, I'm the one turning 30."
    assert "31" in about_entity(text, ["Eli"])


def test_date_words_in_a_question_are_not_content_a_turn_must_share() -> None:
    import numpy as np

    from emem.agents.assistant import support_scores

    plan = offline_plan("Where will the user be living in September 2024?", ["user"], subjects=["user"])
    turn = _turn("S1:3", 3, "We live in Columbus right now.")
    q_vec = np.zeros(2)
    dated = support_scores(
        [turn], np.zeros((1, 2)), "Where will the user be living in September 2024?", plan, q_vec
    )
    plain = support_scores([turn], np.zeros((1, 2)), "Where will the user be living?", plan, q_vec)
    assert dated == plain


def test_hallucination_guards_for_sentences_counts_and_named_places() -> None:
    from emem.agents.spans import AnswerType, answer_span, answer_type, best_sentence, states_something

    # A question or a bare vocative states nothing; ties never pick them.
    assert not states_something("Priti!", ["Priti"]) and not states_something("How are you?", [])
    assert best_sentence("What does Priti teach?", "Priti! How many classes?") == "Priti!"
    # "Which school": a proper name said beside no school is not one.
    q = "Which school does Hannah teach at?"
    assert answer_type(q) is AnswerType.PROPER
    text = "My sister Hannah is visiting from Leeds. She's a primary school teacher."
    assert not answer_span(q, AnswerType.PROPER, text, None, {"hannah"}).specific
    # A count no set, stated number or event answers is unknown, not the number of turns.
    plan = offline_plan("How many brothers does Sven have?", ["Sven"])
    turns = [
        _item("S1:5", 2, 0.6, "My brother and I plan a trip.", "Sven"),
        _item("S2:3", 5, 0.5, "My brother broke his ankle.", "Sven"),
    ]
    assert offline_read("How many brothers does Sven have?", plan, _pack(*turns), [])[1] == "abstained"
    often = offline_plan("How many times did Sven go hiking?", ["Sven"])
    hikes = [
        _item("S1:1", 2, 0.6, "Went hiking today.", "Sven"),
        _item("S2:1", 5, 0.5, "Hiking again!", "Sven"),
    ]
    assert offline_read("How many times did Sven go hiking?", often, _pack(*hikes), []) == ("2", "answered")
    # "When is ..." reads a stated month forwards.
    from emem.agents.reader import temporal_lookup

    race = _item("S4:1", 3, 0.6, "Now I'm training for a 10K in September.")
    assert temporal_lookup("When is my 10K race?", [race]) == "September 2024"


def test_entity_guards_names_said_of_another_noun_or_another_person() -> None:
    from emem.agents.reader import _fact_answer
    from emem.agents.spans import AnswerType, typed_span
    from emem.answer import FactItem

    parrot = "My host family has a grumpy parrot called Capitao."
    assert typed_span(AnswerType.NAME, parrot, None, set(), "family") is None
    assert typed_span(AnswerType.NAME, "We adopted a cat named Luna.", None, set(), "cat") == "Luna"
    q = "What is the name of Nina's dog?"
    cat = FactItem(subject="Nina", predicate="has_pet", status="state", values=["a cat named Luna"])
    assert _fact_answer(q, offline_plan(q, ["Nina"]), [cat]) is None
    # A turn neither said by nor naming the asked person does not answer for them.
    q = "What is Omar's job?"
    nina = _item("S3:1", 9, 0.5, "I quit the bakery, tutoring pays better. So just one job now.", "Nina")
    assert offline_read(q, offline_plan(q, ["Omar", "Nina"]), _pack(nina), [])[1] == "abstained"


def test_an_off_topic_withheld_turn_ranked_first_does_not_make_the_question_withheld() -> None:
    from emem.agents.withheld import apply_forget_requests
    from emem.ledger.withhold import ForgetRequest

    request = ForgetRequest.for_topic(
        "Dylan", subject="user", revision_id="r1", known_from=datetime(2024, 2, 1, tzinfo=UTC)
    )
    dylan = _item("S2:1", 10, 0.6, "Ugh, my coworker Dylan took credit for my project again.")
    book = _item("S1:1", 5, 0.5, "I'm reading Piranesi right now and loving it.")
    kept = apply_forget_requests("What book is the user reading?", [dylan, book], [], [request])
    assert kept.about is None and [e.turn_id for e in kept.evidence] == ["S1:1"]
    asked = apply_forget_requests("Who took credit for my project?", [dylan, book], [], [request])
    assert asked.about is request


def test_a_question_a_kept_fact_answers_is_not_withheld() -> None:
    from emem.agents.withheld import apply_forget_requests
    from emem.answer import FactItem
    from emem.ledger.withhold import ForgetRequest

    request = ForgetRequest.for_topic(
        "the old Alder Road address",
        subject="user",
        revision_id="r1",
        known_from=datetime(2024, 5, 2, tzinfo=UTC),
    )
    asked = _item("S3:3", 9, 0.9, "Please forget the old Alder Road address.")
    new = FactItem(subject="user", predicate="address", status="state", values=["8 Quarry Street, Bath"])
    kept = apply_forget_requests("What is my address?", [asked], [new], [request])
    assert kept.about is None and kept.facts == [new]
    assert apply_forget_requests("What is my address?", [asked], [], [request]).about is request


def test_a_best_ranked_change_of_the_asked_persons_state_answers_in_any_words() -> None:
    q = "What instrument does Emma play?"
    plan = offline_plan(q, ["Emma", "Daniel"])
    switch = _item(
        "S3:3", 9, 0.6, "Emma switched from violin to cello this fall, same day, Mondays.", "Daniel"
    )
    assert offline_read(q, plan, _pack(switch), []) == ("cello this fall", "answered")
    # Not for a typed question the change does not answer, nor for another person.
    where = "Where does Emma go to school?"
    assert offline_read(where, offline_plan(where, ["Emma", "Daniel"]), _pack(switch), [])[1] == "abstained"
    tom = "What instrument does Tom play?"
    assert offline_read(tom, offline_plan(tom, ["Tom", "Daniel"]), _pack(switch), [])[1] == "abstained"


def test_frequency_counts_social_lines_relations_and_current_words() -> None:
    import numpy as np

    from emem.agents.assistant import support_scores
    from emem.agents.reader import _fact_answer
    from emem.agents.spans import states_something
    from emem.answer import FactItem

    q = "How often does the user go to the gym now?"
    plan = offline_plan(q, ["user"], subjects=["user"])
    old = _item("S1:1", 2, 0.78, "I go to the gym three times a week, Monday, Wednesday and Friday.")
    new = _item("S2:1", 6, 0.45, "I bumped it to four times a week, I added Saturday.")
    # a "How often" question is answered with the frequency said, in its own words
    assert offline_read(q, plan, _pack(old, new), []) == ("four times a week", "answered")
    assert not states_something("Congratulations, Daniel!", ["Daniel"])
    q = "What does the user's daughter do on Saturdays?"
    ivy = FactItem(subject="user", predicate="has_child", status="state", values=["a daughter named Ivy"])
    assert _fact_answer(q, offline_plan(q, ["user"], subjects=["user"]), [ivy]) is None
    q = "Does the user have a daughter?"
    assert _fact_answer(q, offline_plan(q, ["user"], subjects=["user"]), [ivy]) is not None
    turn = _turn("S1:3", 3, "We live in Columbus right now.")
    q_vec, vecs = np.zeros(2), np.zeros((1, 2))
    these = support_scores([turn], vecs, "Where does the user live these days?", plan, q_vec)
    assert these == support_scores([turn], vecs, "Where does the user live?", plan, q_vec)


def test_a_later_revision_linked_by_the_words_it_describes_wins() -> None:
    q = "What coffee does the user drink now?"
    plan = offline_plan(q, ["user"], subjects=["user"])
    old = _item("S1:5", 2, 0.54, "Also, I need coffee. My usual is a flat white with oat milk.")
    new = _item("S3:5", 9, 0.36, "I've gone off flat whites. These days my usual is a cortado.")
    assert offline_read(q, plan, _pack(old, new), []) == ("These days my usual is a cortado.", "answered")
    # Another person's change that shares words with the turn is not a revision of what it says
    # about the asked person.
    leo = "What does Leo do on Wednesdays?"
    both = _item("S1:3", 2, 0.6, "Emma has violin on Mondays and Leo has soccer on Wednesdays.", "Daniel")
    emma = _item("S3:3", 9, 0.5, "Emma switched from violin to cello, same day, Mondays.", "Daniel")
    answer, _ = offline_read(leo, offline_plan(leo, ["Leo", "Daniel"]), _pack(both, emma), [])
    assert "soccer" in answer and "cello" not in answer


def test_a_place_said_in_the_clause_about_a_third_person_answers_where() -> None:
    from emem.agents.spans import AnswerType, typed_span

    q = "Which city is Idris studying in?"
    plan = offline_plan(q, ["Idris", "Aisha"])
    twins = (
        "My brothers start uni! Yusuf is doing medicine in Edinburgh and Idris is doing law in Manchester."
    )
    turn = _item("S1:1", 2, 0.5, twins, "Aisha")
    assert offline_read(q, plan, _pack(turn), []) == ("Manchester", "answered")
    # Weekdays and correction cues are not places or names.
    assert typed_span(AnswerType.PLACE, "Emma has violin on Mondays", None, {"emma"}) is None
    assert typed_span(AnswerType.PLACE, "Emma is 9, Sorry", None, {"emma"}) is None
    school = "Where does Emma go to school?"
    ages = _item("S1:5", 2, 0.5, "Emma is 9 and Leo is 6. Sorry, Leo is 7 now.", "Daniel")
    assert offline_read(school, offline_plan(school, ["Emma", "Daniel"]), _pack(ages), [])[1] == "abstained"


def test_titles_keep_their_article_and_agent_questions_read_the_agent() -> None:
    from emem.agents.spans import AnswerType, typed_span

    said = "If you like Piranesi, try The Night Circus by Erin Morgenstern next."
    assert typed_span(AnswerType.PROPER, said, None, set()) == "The Night Circus"
    assert (
        typed_span(AnswerType.PROPER, "The Left Hand of Darkness", None, set()) == "The Left Hand of Darkness"
    )
    assert typed_span(AnswerType.PROPER, "Now I'm reading it.", None, set()) is None
    q = "What book did you recommend to me?"
    plan = offline_plan(q, ["assistant", "user"], subjects=["assistant", "user"])
    user = _item("S1:1", 2, 0.78, "I need book recommendations. I'm reading Piranesi right now.")
    agent = _item("S1:2", 2, 0.31, said, "assistant")
    assert offline_read(q, plan, _pack(user, agent), []) == ("The Night Circus", "answered")


def test_a_name_given_in_the_next_sentence_names_what_the_turn_is_about() -> None:
    q = "What's the name of Ines's kitten?"
    span = answer_span(
        q, answer_type(q), "Big news. We got a kitten! A tabby called Figo", None, {"ines"}, []
    )
    assert span == Span("Figo", True)
    # two names in the turn: which one is the kitten's is not said, so no name is taken for it
    two = "We got a kitten! A tabby called Figo, and the neighbours have a spaniel named Bruno"
    assert answer_span(q, answer_type(q), two, None, {"ines"}, []).specific is False


def test_a_thing_switched_to_another_value_names_the_new_one() -> None:
    from emem.agents.spans import revised_value

    assert revised_value("flour's gone up so I've switched the loaves to spelt") == "spelt"
    assert revised_value("we moved the quiz night to Thursday") == "Thursday"
    assert revised_value("I switched the lights off and went to bed") is None


def test_a_correction_of_another_sentence_is_not_the_answer() -> None:
    """ "No, wait, £26" puts the pitch fee right, not where the market is: a correction answers
    when it follows the answering sentence or the one that carries it on."""
    said = (
        "I sell at Leominster market on Saturdays. A pound jar is £7.50. The pitch is £22 a week. "
        "No, wait, £26, they put it up."
    )
    q = "Which market do I sell at?"
    assert "Leominster" in answer_span(q, AnswerType.OTHER, said, None, set()).text
    carried = "My elective. I'm doing Mind and Language. Wait, no, I swapped, it's Ethics and Society now."
    assert "Ethics" in answer_span("Which elective am I taking?", AnswerType.OTHER, carried, None, set()).text
    fixed = "It's the Warsaw half. Wait, no, it's the Gdansk one, the Warsaw one was last year."
    assert (
        "Gdansk"
        in answer_span("Which half marathon am I running?", AnswerType.OTHER, fixed, None, set()).text
    )


def test_a_trade_answers_a_who_question() -> None:
    q = "Who does my invoices now?"
    hired = _item("S2:1", 9, 0.7, "Big relief: I've hired a bookkeeper to do the invoices.")
    answer, status = offline_read(q, offline_plan(q, ["user"]), _pack(hired), [])[:2]
    assert status == "answered" and "bookkeeper" in answer
    # a sentence naming nobody still does not answer it
    nobody = _item("S2:1", 9, 0.7, "The invoices are done by the end of each month.")
    assert offline_read(q, offline_plan(q, ["user"]), _pack(nobody), [])[1] == "abstained"
