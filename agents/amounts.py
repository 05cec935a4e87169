"""Questions asking an amount ("How much is the rent?", "How much does X cost?") are answered only
by a clause that states a number and is about what is asked.

Why: a current-state question prefers the latest turn on its topic, and the latest is often one
that mentions the topic without its value ("with the rent going up I'd rather save"); and a trap
question ("How much does my Spotify cost?") was answered with another amount ("the Japan target
goes up to £3,500"). What counts is the shape of the answer, not the phrasing of either turn.
"""

from __future__ import annotations

import re

from emem.agents.spans import about, number_value

_ASKS_AMOUNT = re.compile(r"^\s*how\s+much\b|\bwhat\s+(?:is|was|'s)\s+the\s+(?:price|cost|fee|rent)\b", re.I)
_CLAUSE = re.compile(r"[.;!?]\s+|,\s+(?=(?:so|and|but|which)\b)")


def asks_amount(question: str) -> bool:
    """True for a question whose answer is an amount ("How much ...", "What is the price of ...")."""
    return _ASKS_AMOUNT.search(question) is not None and not re.match(
        r"^\s*how\s+much\s+time\b", question, re.I
    )


def _has_number(clause: str) -> bool:
    return bool(re.search(r"\d", clause)) or any(
        number_value(w) is not None for w in re.findall(r"[a-z]+", clause.lower())
    )


def states_amount(text: str, focus: set[str]) -> bool:
    """True when a clause of `text` states a number and names one of the question's focus words.

    Args:
        text: a candidate turn or span.
        focus: the question's focus words.

    Returns:
        Whether the text states an amount of what is asked.
    """
    return any(_has_number(c) and about(c, focus) for c in _CLAUSE.split(text))
