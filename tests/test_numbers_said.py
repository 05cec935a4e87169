"""Numbers past twelve as people write them, lengths of time said outright, and a number taken
back ("I told you 2,800. It was 2,300."): conversations and sentences written for these tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem import Memory
from emem.agents.durations import stated_duration
from emem.agents.spans import corrects_number, number_value, stated_quantity
from emem.answer import EvidenceItem
from emem.numbers import compound_value

T = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("thirty-three", 33),
        ("ninety five", 95),
        ("nineteen", 19),
        ("twenty", 20),
        ("2,800", 2800),
        ("12,500", 12500),
    ],
)
def test_compound_numbers(text: str, value: int) -> None:
    assert compound_value(text) == value
    assert number_value(text) == value


@pytest.mark.parametrize("text", ["thirty-ten", "2,80", "hundredth", "seven"])
def test_not_compound_numbers(text: str) -> None:
    assert compound_value(text) is None


def test_a_count_in_thousands_and_in_words() -> None:
    assert stated_quantity("We finished the season. 2,800 birds ringed.", {"birds"}) == 2800
    assert stated_quantity("We have twenty two hives now.", {"hives"}) == 22
    # a number taken back: the replacing one
    fixed = "I told you we had eighty guests. It was ninety-five in the end."
    assert corrects_number(fixed)
    assert stated_quantity(fixed, {"guests"}) == 95
    assert not corrects_number("I told you the train was at 9. It's a lovely day.")


def turns(*texts: str) -> list[EvidenceItem]:
    return [
        EvidenceItem(
            conversation_id="c",
            session_id="S1",
            turn_id=f"S1:{i}",
            speaker="user",
            text=t,
            time=T + timedelta(days=30 * i),
            score=0.5,
        )
        for i, t in enumerate(texts, 1)
    ]


def test_a_length_of_time_said_outright() -> None:
    said = turns(
        "I retired in June after thirty-one years of nursing, the last ten on the cardiac ward.",
        "I told you I nursed for thirty-one years. It was thirty-four, I forgot my training years.",
    )
    assert stated_duration("How many years did I nurse?", {"nurse"}, said[:1]) == "31 years"
    assert stated_duration("How many years did I nurse?", {"nurse"}, said) == "34 years"
    # the time between two events is arithmetic, not a length said
    assert stated_duration("How many years have passed since I retired?", {"retired"}, said) is None
    # a length said of something else does not answer
    assert stated_duration("How many years did I swim?", {"swim"}, said) is None


def test_how_long_something_takes_is_the_length_said() -> None:
    said = turns(
        "A full restoration takes me about sixty hours.",
        "The kiln firing runs for eleven hours, cooling included.",
    )
    assert stated_duration("How long does a full restoration take me?", {"restoration"}, said) == "60 hours"
    assert stated_duration("How long does the kiln firing run?", {"kiln", "firing"}, said) == "11 hours"
    # since when is arithmetic, not a length said
    assert stated_duration("How long has it been since the firing?", {"firing"}, said) is None


def test_through_ask(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2024-09-10T10:00:00Z",
                [
                    ("user", "Season's over at the reserve. 3,100 moths trapped, a record."),
                    ("assistant", "3,100 moths. A record season."),
                    ("user", "I've been a warden for twelve years now."),
                ],
            ),
            (
                "2025-04-02T10:00:00Z",
                [
                    ("user", "Correction: I told you we trapped 3,100 moths last season. It was 3,400."),
                    (
                        "user",
                        "And I said twelve years as a warden. It's fourteen, I forgot the volunteer years.",
                    ),
                ],
            ),
        ],
        cid="n1",
    )
    with Memory(tmp_path) as m:
        m.add_conversation(conv, namespace="reserve")
        for mode in ("auto", "deep"):
            moths = m.ask("How many moths were trapped in the 2024 season?", namespace="reserve", mode=mode)
            assert "3400" in moths.answer.replace(",", ""), (mode, moths.answer)
            years = m.ask("How many years have I been a warden?", namespace="reserve", mode=mode)
            assert "14" in years.answer, (mode, years.answer)


def test_a_price_said_in_words_without_its_currency_and_put_right(tmp_path: Path) -> None:
    # "seventy-five a lesson now. No, eighty": the repair is read, the bare rate is a price, and
    # the latest price answers
    conv = dated_conversation(
        [
            (
                "2025-01-10T10:00:00Z",
                [
                    ("user", "I charge sixty pounds a lesson at the moment."),
                ],
            ),
            (
                "2025-05-10T10:00:00Z",
                [
                    (
                        "user",
                        "I've put my price up. It's seventy-five a lesson now. No, eighty, to round it.",
                    ),
                ],
            ),
        ],
        cid="p1",
    )
    with Memory(tmp_path) as m:
        m.add_conversation(conv, namespace="lessons")
        for mode in ("auto", "fast", "deep"):
            price = m.ask("How much do I charge for a lesson?", namespace="lessons", mode=mode)
            assert "eighty" in price.answer and "sixty" not in price.answer, (mode, price.answer)
        then = m.ask("How much do I charge for a lesson?", namespace="lessons", as_of="2025-03-01T00:00:00Z")
        assert "sixty" in then.answer


def test_what_a_thing_sold_for_is_the_sum_said_with_sold(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            ("2025-03-03T10:00:00Z", [("user", "The flat is on the market at £310,000.")]),
            ("2025-05-12T10:00:00Z", [("user", "The flat is reduced to £295,000. Nobody was biting.")]),
            ("2025-08-20T10:00:00Z", [("user", "Sold the flat! £288,000. Completion is in September.")]),
        ],
        cid="s1",
    )
    with Memory(tmp_path) as m:
        m.add_conversation(conv, namespace="flat")
        for mode in ("auto", "fast", "deep"):
            answer = m.ask("What did my flat sell for?", namespace="flat", mode=mode)
            assert "288,000" in answer.answer, (mode, answer.answer)


def test_sold_for_reads_the_sale_not_the_asking_price() -> None:
    from emem.agents.amounts import sold_for

    ev = [
        EvidenceItem(
            conversation_id="c",
            session_id="S",
            turn_id=f"S:{i}",
            speaker="user",
            time=T + timedelta(days=i),
            text=t,
        )
        for i, t in enumerate(["The van is on sale at £9,000.", "Sold! £8,200, cash."])
    ]
    assert sold_for("What did my van sell for?", ev, ["user"], {"van", "sell"}) == "£8,200"
    assert sold_for("How much did my van cost?", ev, ["user"], {"van", "cost"}) is None
