"""What people say in passing, read as meant (each found on released holdout9 or holdout10, each tested here
on sentences written for it): forget requests as a tagged question ("..., will you?"), after a
greeting, with "hold onto" or "scrap what I said", a filler ("the bankruptcy bit") or a time
("what I said about Ned in the summer"); topics that name no row of the table but use its words
("the sleeping tablets", "blood pressure", "my weight", "my medication"); a yes/no question answered
yes or no; counts from members listed ("our cats Gherkin and Yarrow", "Markets now: A, B and C")
that grow by "we got a kitten" and not by "I've got four bookings"; sums said in words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_extract_referred import facts
from test_forget_phrasings import chat

from emem.agents.counts import CountTrace, count_over_time
from emem.agents.yesno import with_verdict
from emem.answer import EvidenceItem
from emem.ledger.withhold import ForgetRequest
from emem.memory import Memory

MODES = ("auto", "deep", "fast")


def request(topic: str) -> ForgetRequest:
    return ForgetRequest.for_topic(
        topic, subject="user", revision_id="r", known_from=datetime(2030, 1, 1, tzinfo=UTC)
    )


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Please forget the thing about my knee, will you? It's healing.", "knee"),
        ("First, remove the bit about Oona's grievance from your notes, would you?", "Oona's grievance"),
        ("Hello. First thing, remove the bit about my loan, would you? It's paid off.", "loan"),
        ("Forget about the Harwell interview thing, yeah? I didn't get it.", "Harwell interview"),
        ("Ravi, don't hold onto the bankruptcy bit, please.", "bankruptcy"),
        ("Please forget what I said about Ned in the summer. He'd hate it.", "Ned"),
        ("One more thing, scrap what I said about Tam's marriage, would you?", "Tam's marriage"),
        ("Please don't keep my weight on file any more, it messes with my head.", "weight"),
        # found on holdout10: a lead-in with a colon, what was told "from" someone, and where
        (
            "Last thing: could you wipe what I told you about Rhys's betting? He's in treatment.",
            "Rhys's betting",
        ),
        ("And please delete what I told you about the loan from my aunt.", "loan from my aunt"),
        ("Please forget where I said the ospreys were nesting.", "ospreys were nesting"),
    ],
)
def test_a_request_said_in_passing_is_recorded(said: str, topic: str) -> None:
    assert [f[2] for f in facts(said) if f[1] == "forget_request"] == [topic]


@pytest.mark.parametrize(
    "said",
    [
        "Scrap the Lisbon plan, we're going to Porto instead.",  # a plan called off, not memory
        "Will you be at the match on Saturday?",  # a question, no request
        "Can you believe it, yeah?",
        "Please remove the onions from the recipe.",  # a task, not memory
    ],
)
def test_what_is_not_a_request_is_not_recorded(said: str) -> None:
    assert [f for f in facts(said) if f[1] == "forget_request"] == []


def test_a_topic_using_a_rows_words_is_narrowed_by_its_other_words() -> None:
    tablets = request("sleeping tablets")
    assert tablets.covers(text="My GP's put me on zopiclone because I just wasn't sleeping after nights.")
    assert not tablets.covers(text="I slept in till ten, bliss.")
    assert not tablets.covers(text="The GP surgery moved to Elm Street.")


def test_a_topic_that_is_one_of_a_rows_words_covers_that_word_only() -> None:
    pressure = request("blood pressure")
    assert pressure.covers(text="My blood pressure was 150 over 95 at the clinic.")
    assert not pressure.covers(text="Brenda's allergic to cats, so the cat goes next door.")
    drug = request("sertraline")
    assert drug.covers(text="My GP's put me on sertraline for the low mood.")
    assert not drug.covers(text="Aino studies medicine and Sanni studies law.")


def test_weight_and_debts_cover_their_values_not_every_sum() -> None:
    assert request("weight").covers(text="I'm 84 kilos and I want to be 78 by May.")
    assert not request("weight").covers(text="The van cost £11,000 in the end.")
    assert request("bankruptcy").covers(text="My café went under and I was declared bankrupt in 2016.")
    assert not request("bankruptcy").covers(text="I bought a Renault Master conversion instead, £11,000.")
    arrears = request("Gudrun's arrears")
    assert arrears.covers(text="Gudrun's three months behind, £1,680, and I don't know what to do.")
    assert not arrears.covers(text="The studio is Gudrun, £560 a month.")


CONV = chat(
    (
        "2025-02-02T09:00:00+00:00",
        [
            ("user", "The embarrassing one: I'm 84 kilos and I want to be 78 by May."),
            ("assistant", "Noted, 84 now and 78 as the target."),
            ("user", "My GP's put me on zopiclone because I just wasn't sleeping after nights."),
            ("user", "Rent for the studio is £560 a month, Gudrun's a lovely tenant."),
        ],
    ),
    (
        "2025-05-20T09:00:00+00:00",
        [
            ("user", "Please don't keep my weight on file any more, the number is messing with my head."),
            ("assistant", "Understood, I'll forget it."),
            ("user", "And forget what I told you about the sleeping tablets, will you?"),
            ("assistant", "Done."),
        ],
    ),
    (
        "2025-07-01T09:00:00+00:00",
        [("user", "New FTP test was 272, so the hard block didn't do me much harm.")],
    ),
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(tmp_path_factory.mktemp("asides") / "h")
    m.add_conversation(CONV, namespace="asides")
    return m


@pytest.mark.parametrize("mode", MODES)
def test_a_question_about_what_was_forgotten_says_so(memory: Memory, mode: str) -> None:
    # "much" in a later, unrelated turn is not the weight told again
    for q, secrets in [
        ("How much do I weigh?", ("84", "78")),
        ("What did my GP prescribe to help me sleep?", ("zopiclone",)),
    ]:
        a = memory.ask(q, namespace="asides", mode=mode)
        assert a.status == "abstained" and "forget" in a.answer, (q, a.answer)
        assert not any(s in a.answer for s in secrets)


@pytest.mark.parametrize("mode", MODES)
def test_what_was_not_forgotten_is_still_answered(memory: Memory, mode: str) -> None:
    a = memory.ask("What's the rent on the studio?", namespace="asides", mode=mode)
    assert "560" in a.answer, a.answer


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("I've decided not to sell the studio this year", "No"),
        ("We're doing the West Highland Way in September instead", "No"),
        ("I'm also doing my independent prescribing course.", "Yes"),
        ("No: Japan's off.", "No"),
        ("Yes: still there.", "Yes"),
        # a role, a life or a placement ended
        ("Association news: I stood down as treasurer at the AGM.", "No"),
        ("We lost Gherkin in August.", "No"),
        ("Wonton got adopted!", "No"),
        ("Lazlo has outgrown the egg allergy!", "No"),
    ],
)
def test_a_yes_no_answer_opens_with_its_verdict(answer: str, verdict: str) -> None:
    assert with_verdict(answer).startswith(f"{verdict}:")


def _said(day: str, text: str, n: int) -> EvidenceItem:
    return EvidenceItem(
        turn_id=f"S:{n}",
        session_id="S",
        conversation_id="c",
        speaker="user",
        time=datetime.fromisoformat(day).replace(tzinfo=UTC),
        text=text,
    )


def test_a_count_starts_from_the_members_listed_and_grows_by_what_we_got() -> None:
    said = [
        _said("2025-01-09", "Home is Hotwells, with my partner and our dogs Pepper and Miso.", 1),
        _said("2025-06-02", "And, um, we got a rescue, a scruffy little dog called Biscuit.", 2),
        _said("2025-08-01", "A fox got two of the chickens, sadly.", 3),
    ]
    assert count_over_time(said, {"dogs"}, datetime(2025, 3, 1, tzinfo=UTC)) == CountTrace(2, 0)
    assert count_over_time(said, {"dogs"}, None) == CountTrace(3, 1)


def test_medication_is_what_is_taken_not_every_medical_word() -> None:
    meds = request("medication")
    assert meds.covers(text="My GP's put me on sertraline for postnatal depression.")
    assert meds.covers(text="I take 20mg every morning.")
    assert not meds.covers(text="Big news from the allergy clinic: Lazlo has outgrown the egg allergy!")


def test_a_sum_in_words_answers_a_price_asked_with_a_verb_in_ing() -> None:
    from emem.agents.amounts import asks_money, money_span

    assert asks_money("What was I charging for a jar of honey in May 2024?")
    assert asks_money("How much is the summer school costing me?")
    assert money_span("I sell the honey at the market, seven pounds a jar.", {"jar"}) == "seven pounds a jar"
    assert money_span("We go there seven days a week.", {"week"}) is None


def test_a_list_under_its_noun_counts_and_having_is_no_loss() -> None:
    said = [
        _said(
            "2025-08-30",
            "Stalls now: Shoreham on Saturdays, Steyning on Sundays and Arundel on Thursdays.",
            1,
        ),
        _said(
            "2025-11-20",
            "The Christmas stall is £3,000 for the month. I've got four office parties booked.",
            2,
        ),
    ]
    assert count_over_time(said, {"stalls"}, None) == CountTrace(3, 0)


def test_a_sum_is_not_a_count() -> None:
    from emem.agents.spans import stated_quantity

    assert stated_quantity("The Marina wanted £200 a week for a pitch.", {"markets", "week"}) is None
    assert stated_quantity("I trade at three markets a week.", {"markets", "week"}) == 3


@pytest.fixture(scope="module")
def landlord(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    conv = chat(
        (
            "2025-01-25T09:00:00+00:00",
            [
                ("user", "Rent review: the Okafors go to £1,300 from March. They were fine about it."),
                ("user", "I bought a Ford Transit camper for the markets, £9,500."),
            ],
        ),
        (
            "2025-07-19T09:00:00+00:00",
            [
                ("user", "Correction on the Okafors. I told you £1,300, but I agreed £1,280 in the end."),
                ("user", "Correction on the camper. I told you £9,500, but with the VAT it was £10,400."),
            ],
        ),
    )
    m = Memory(tmp_path_factory.mktemp("landlord") / "h")
    m.add_conversation(conv, namespace="landlord")
    return m


@pytest.mark.parametrize("mode", MODES)
def test_a_sum_taken_back_is_answered_by_its_replacement(landlord: Memory, mode: str) -> None:
    rent = landlord.ask("What rent do the Okafors pay now?", namespace="landlord", mode=mode)
    assert "1,280" in rent.answer and "1,300" not in rent.answer, rent.answer
    camper = landlord.ask("How much did the camper cost me?", namespace="landlord", mode=mode)
    assert "10,400" in camper.answer and "9,500" not in camper.answer, camper.answer


def test_a_person_forgotten_takes_the_turn_that_introduces_them() -> None:
    from emem.agents.withheld import rest_of_turn

    said = datetime(2025, 1, 1, tzinfo=UTC)
    turn = "I've found a running partner! Oskar, he's a paramedic from Hull. We meet on Sundays."
    # the person alone: every sentence of a turn that names them
    assert rest_of_turn(turn, [request("Oskar")], said) is None
    # a topic in words: only the sentences that say it
    told = "My knee is sore. The garden needs weeding this weekend."
    assert rest_of_turn(told, [request("knee")], said) == "The garden needs weeding this weekend."


def test_a_sentence_repeating_what_the_question_takes_as_given_is_no_answer() -> None:
    from emem.agents.spans import only_restates_given

    q = "What is Oriel doing now that she's retired?"
    assert only_restates_given("Big news: Oriel retired in March.", q, ["Oriel"])
    assert not only_restates_given("Oriel is volunteering at the lifeboat station.", q, ["Oriel"])
    assert not only_restates_given("Oriel retired in March.", "What did Oriel do in March?", ["Oriel"])
