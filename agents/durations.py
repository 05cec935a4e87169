"""A length of time the speaker states outright, which outranks date arithmetic.

"How many years did I teach?" after "I retired after thirty-one years of teaching" is answered by
what was said, not by subtracting the dates of two turns; and after "I told you I taught for
thirty-one years. It was thirty-three." by the number that replaced it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.agents.spans import NUMBER_PATTERN, about, number_value
from emem.answer import EvidenceItem

_ASKS = re.compile(
    r"^\s*how\s+many\s+(?P<unit>years|months|weeks|days)\s+(?:(?:at|in|on|of)\s+(?:the\s+)?[a-z]+\s+)?"
    r"(?:have|has|had|did|do|does|was|were)\b"
    r"(?!.*\b(?:between|since|after|before|until|till|ago|left|from|to\s+go)\b)",
    re.I,
)
"""How long someone did something ("How many weeks at sea had I done?"), not the time between two
events ("How many days between ...")."""
_HOW_LONG = re.compile(
    r"^\s*how\s+long\s+(?:does|did|do|is|was|were|will|has|had|have|are)\b"
    r"(?!.*\b(?:between|since|after|before|until|till|ago|left|from|to\s+go|been)\b)",
    re.I,
)
"""How long something takes or took ("How long does a full saddle take me?"), not since when."""
_UNITS = "minutes|hours|days|weeks|months|years"
_IRREGULAR = {
    "teach": "taught",
    "drive": "drove",
    "run": "ran",
    "sing": "sang",
    "swim": "swam",
    "write": "wrote",
}
"""Past forms a crude stem does not reach ("teach" / "taught")."""


def stated_duration(question: str, focus: set[str], holding: Sequence[EvidenceItem]) -> str | None:
    """The latest length of time, in the asked unit, said in a turn about the question's focus.

    Args:
        question: a "How many years/months/weeks/days has/did ...?" question, or "How long
            does/did ...?" (any unit said).
        focus: the question's content words (what the turn must be about).
        holding: turns that still hold.

    Returns:
        "33 years", or None when the question has another form or no turn about it states one.
    """
    m = _ASKS.match(question)
    if (m is None and _HOW_LONG.match(question) is None) or not focus:
        return None
    units = m.group("unit").lower() if m is not None else _UNITS
    said = re.compile(
        rf"\b({NUMBER_PATTERN})(?:\s+|-)(?:full\s+|whole\s+)?(?P<unit>{'|'.join(u[:-1] for u in units.split('|'))})s?\b",
        re.I,
    )
    fix = re.compile(
        rf"\b(?:it\s+was|it['’]s|it\s+is|actually|no,?)\s+({NUMBER_PATTERN})\b(?!\s*[:.]\d)", re.I
    )
    wider = focus | {_IRREGULAR[f] for f in focus if f in _IRREGULAR}
    for e in sorted(holding, key=lambda e: e.time, reverse=True):
        hits = list(said.finditer(e.text))
        if not hits or not (about(e.text, focus) or any(re.search(rf"\b{w}\b", e.text, re.I) for w in wider)):
            continue
        # "I told you nine years. It's eleven": the number that replaces the one stated
        corrected = fix.search(e.text, hits[-1].end())
        n = number_value((corrected or hits[-1]).group(1))
        if n is not None:
            unit = hits[-1].group("unit").lower()
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return None
