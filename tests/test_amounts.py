"""An amount question is answered by a clause stating a number about what is asked, or not at all."""

from __future__ import annotations

from pathlib import Path

from test_forget_phrasings import chat

from emem.agents.amounts import asks_amount, asks_money, states_amount
from emem.memory import Memory


def test_an_amount_needs_a_number_said_of_the_asked_thing() -> None:
    assert asks_amount("How much is my parking permit?") and not asks_amount("How much time do I have?")
    assert states_amount("The parking permit is £18 a month.", {"parking", "permit"})
    assert not states_amount("I'm thinking of changing my parking permit.", {"parking", "permit"})
    assert not states_amount("Parking is fine. The car insurance went up to £640.", {"parking", "permit"})


def test_the_latest_turn_with_the_amount_answers_a_current_amount(tmp_path: Path) -> None:
    conv = chat(
        ("2024-01-05T09:00:00+00:00", [("user", "My parking permit is £18 a month with the council.")]),
        ("2024-04-05T09:00:00+00:00", [("user", "The council put my parking permit up to £21 a month.")]),
        (
            "2024-06-05T09:00:00+00:00",
            [("user", "With the parking permit going up I might sell the car.")],
        ),
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        now = m.ask("How much is my parking permit now?", namespace="n", mode="auto")
        assert "21" in now.answer
        trap = m.ask("How much is my bike insurance?", namespace="n", mode="auto")
        assert trap.status == "abstained"


def test_a_price_question_is_not_answered_by_a_count_of_days() -> None:
    # "How much does a coffee cost at the stall?" after "the stall is open 6 days a week now"
    assert asks_money("How much does a coffee cost at my stall?")
    assert not asks_money("How much do I weigh now?")
    assert not states_amount("Update: the stall is open 6 days a week now.", {"stall"}, money=True)
    assert not states_amount("Correction: the stall is 6 days a week, not 5.", {"stall"}, money=True)
    assert states_amount("A flat white at the stall is 3.20 now.", {"stall"}, money=True)
    assert states_amount("Rent for the flat is 820 a month from March.", {"rent", "flat"}, money=True)
    assert states_amount("The stall takes about 400 euros on a Saturday.", {"stall"}, money=True)


def test_a_salary_question_asks_an_amount_of_money() -> None:
    assert asks_money("What salary did Brightwell offer me?")
    assert not states_amount("Brightwell made me lead designer, 2 weeks ago.", {"brightwell"}, money=True)


def test_a_date_a_year_or_a_count_is_no_sum() -> None:
    # "How much did the publisher pay me?" after a deadline, a piano's year and a word count
    focus = {"publisher", "pay", "novel", "piano"}
    assert not states_amount("The publisher moved the novel deadline to the 14th of May.", focus, money=True)
    assert not states_amount("The novel is for the publisher, 80,000 words, due 2 March.", focus, money=True)
    assert not states_amount("I'm restoring an 1898 piano for the publisher's office.", focus, money=True)
    assert states_amount("The publisher is paying me 4,500 for the novel.", focus, money=True)
    assert states_amount("The publisher paid £3,000 for 90,000 words of the novel.", focus, money=True)


def test_a_fee_nobody_named_is_not_answered_by_the_job(tmp_path: Path) -> None:
    conv = chat(
        (
            "2025-02-01T09:00:00+00:00",
            [
                (
                    "user",
                    "Big job this spring: an 1898 piano for Harrow Music, about 40 hours, due on the 14th of May.",
                )
            ],
        ),
        (
            "2025-04-01T09:00:00+00:00",
            [("user", "Harrow Music moved the piano deadline to the 30th of May.")],
        ),
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        for mode in ("auto", "fast", "deep"):
            trap = m.ask("How much did Harrow Music pay me for the piano?", namespace="n", mode=mode)
            assert trap.status == "abstained", (mode, trap.answer)


def test_what_someone_charges_asks_a_sum() -> None:
    assert asks_money("What do I charge per tuning?")
    assert asks_money("What did the flat cost?")
    assert asks_amount("What's my day rate?") and not asks_money("What does Ana do?")


def test_a_sum_said_without_who_paid_it_does_not_answer_what_they_paid(tmp_path: Path) -> None:
    from emem.agents.amounts import payer_words

    assert payer_words("How much did the landlord charge for the boiler?") == {"landlord"}
    assert payer_words("How much did Mrs Okafor pay?") == {"okafor"}
    assert payer_words("How much did I pay for the flat?") == set()
    conv = chat(
        (
            "2025-03-01T09:00:00+00:00",
            [("user", "The new boiler is costing us 2,400 pounds, fitted next week.")],
        ),
        ("2025-04-01T09:00:00+00:00", [("user", "The plumber charged 180 for the call-out.")]),
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="n")
        for mode in ("auto", "fast", "deep"):
            trap = m.ask("How much did the landlord charge for the boiler?", namespace="n", mode=mode)
            assert trap.status == "abstained", (mode, trap.answer)
        assert "2,400" in m.ask("How much did the boiler cost?", namespace="n", mode="auto").answer
        assert "180" in m.ask("How much did the plumber charge?", namespace="n", mode="auto").answer


def test_a_rate_charged_is_money_a_rate_measured_is_not() -> None:
    assert asks_money("What's my day rate now?")
    assert asks_money("What's my hourly rate these days?")
    assert not asks_money("What's my resting heart rate?")


def test_a_mark_asked_is_answered_by_a_mark_not_by_passing() -> None:
    from emem.agents.spans import AnswerType, answer_type, typed_span

    q = "What mark did I get on my driving theory test?"
    assert answer_type(q) is AnswerType.MEASURE
    assert typed_span(AnswerType.MEASURE, "And I passed the theory test!", None, set(), "score") is None
    assert (
        typed_span(AnswerType.MEASURE, "I got 47 out of 50 on the theory.", None, set(), "score")
        == "47 out of 50"
    )
    assert typed_span(AnswerType.MEASURE, "The essay came back with a 68.", None, set(), "score") is not None
