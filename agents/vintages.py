"""The year a thing is of ("What year is my Pajero?"), read as the year said of it (pure rules).

A year used as a noun's modifier or complement ("a 2011 Mitsubishi Pajero", "the Pajero is a
2012", "it's a 2007, not a 2009") is the thing's vintage (model year, build year, wine vintage),
not the time anything happened. The question's date operation would otherwise answer with when
a turn was said. The latest turn that says a year of the thing answers; a year after "not"
is the one taken back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.agents.spans import sentences
from emem.answer import EvidenceItem

_ASKS = re.compile(r"^\s*(?:what|which)\s+year\s+(?:is|was)\s+(?P<np>[^?]+?)\s*\??\s*$", re.IGNORECASE)
_EVENT = re.compile(
    r"\b(?:born|founded|built|made|married|opened|started|held|bought|sold|moved|finished|launched|released|"
    r"published|graduated|died|established|happened|retired|joined|left)\b|"
    r"\b(?:when|that|the\s+year)\b",
    re.IGNORECASE,
)
"""What makes "what year was ..." ask when something happened ("was Sam born"), not a vintage."""
_STOP = frozenset(
    "my our his her their the a an i me you your is was used to own owned have had one old".split()
)
_VINTAGE = re.compile(
    r"(?<!\bnot\s)\b(?:a|an|the|my|our|his|her|their)\s+((?:19|20)\d{2})\b(?!\s*(?:-|to|and|until)\b)"
)
"""A year as a thing's modifier or complement: "a 2011 Pajero", "it's a 2007" (not "not a 2009")."""
_POINTS = re.compile(r"\b(?:it|it's|she|she's|he|he's|its|hers|this\s+one)\b", re.IGNORECASE)


def vintage_answer(question: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """The year the latest turn says the asked thing is of; None when the question asks no
    vintage or no turn says one.

    Args:
        question: as asked ("What year is my Pajero?").
        evidence: turns that may answer (any order).

    Returns:
        The year ("2012"), or None.
    """
    m = _ASKS.match(question)
    if m is None or _EVENT.search(m.group("np")):
        return None
    names = [w for w in re.findall(r"[\w'-]+", m.group("np").lower()) if w not in _STOP and len(w) > 1]
    names = [re.sub(r"'s$", "", w) for w in names]
    if not names:
        return None
    for e in sorted(evidence, key=lambda e: e.time, reverse=True):
        said = sentences(e.text)
        for k, sentence in enumerate(said):
            lower = sentence.lower()
            names_it = any(re.search(rf"\b{re.escape(n)}\b", lower) for n in names)
            # "Correction on the Rover: I checked the logbook and it's a 2007": named, then "it"
            before = " ".join(said[max(0, k - 1) : k]).lower()
            points = _POINTS.search(sentence) and any(
                re.search(rf"\b{re.escape(n)}\b", before) for n in names
            )
            if not (names_it or points):
                continue
            years = _VINTAGE.findall(sentence)
            if years:
                return years[0]
    return None
