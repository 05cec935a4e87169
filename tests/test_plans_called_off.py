"""A plan said and later not carried out, in the words people use ("We never made it to
Yellowstone", "I didn't retire", "I've decided against the second dog", "So I never got the
council bid in"): a yes/no question about it is answered no, and a plan merely not mentioned
again is not called off."""

from __future__ import annotations

import pytest
from said import spoken

from emem.agents.revoked import CALLED_OFF
from emem.agents.yesno import with_verdict, yes_no


@pytest.mark.parametrize(
    ("plan", "undone", "question"),
    [
        (
            "Rhian and I are driving out to Glencoe in July.",
            "We never made it to Glencoe. The hay was ready the week we picked.",
            "Did Rhian and I make it to Glencoe in July?",
        ),
        (
            "I'm going to put in a bid for the harbour contract.",
            "So I never got the harbour bid in, it wasn't worth it.",
            "Did I put in the bid for the harbour contract?",
        ),
        (
            "And I'm going to buy a proper log splitter this summer.",
            "I've decided not to buy the log splitter. We'll keep borrowing one.",
            "Did I buy the log splitter?",
        ),
    ],
)
def test_a_plan_not_carried_out_is_answered_no(plan: str, undone: str, question: str) -> None:
    answer = yes_no(question, [spoken(plan, 3), spoken(undone, 8)])
    assert answer is not None and answer.startswith("No"), answer


@pytest.mark.parametrize(
    "said",
    [
        "Well, I didn't retire. I missed the kids too much.",
        "And I've decided against the second dog.",
        "We didn't end up going to Oban.",
    ],
)
def test_a_quote_saying_a_plan_was_dropped_is_a_no(said: str) -> None:
    assert CALLED_OFF.search(said) is not None
    assert with_verdict(said).startswith("No")


@pytest.mark.parametrize(
    "said",
    [
        "I never get to see the sunrise on nights.",  # what never happens, not a plan dropped
        "I didn't know the pool had closed.",
        "We went to Glencoe in the end and it rained.",
    ],
)
def test_what_is_not_a_plan_called_off(said: str) -> None:
    assert CALLED_OFF.search(said) is None
