"""Whose a named pet or relative is ("Whose dog is Bobbin?", "Whose granddaughter is Pia?"), read
from how the turns speak of the name (pure rules).

A name is someone's in a few grammatical ways whatever the kind: a speaker's own ("my granddaughter
Pia", "Frøya and I", "I've only got Nimbus"), the listener's ("your own brother Tahir"), or a named
possessor's ("Bobbin, Rhett's new puppy", "Joris ... with his daughter Margaux", "Perogy belongs to
Colleen's partner"). When no turn says it in any of these ways, the one speaker who talks of the
name most (twice or more, and more than anyone else) is taken as its keeper ("Snoek ate a whole
bluebottle ..."). Nothing here knows a species or a kin word: the question's noun is not needed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from emem.answer import EvidenceItem
from emem.subjects import AGENT_NAMES, USER_NAMES

_ASKS = re.compile(
    r"^\s*(?i:whose)\s+[a-z]+\s+(?i:is|was|are|were)\s+(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*)\s*\??\s*$"
)
_NAME = r"[A-ZÀ-ÖØ-ÞĀ-Ž][\w-]*"
_NOT_OWNERS = frozenset({"I", "My", "Our", "The", "A", "An", "And", "But", "So", "His", "Her", "Their"})


def asked_name(question: str) -> str | None:
    """The name a "Whose <noun> is <Name>?" question asks about, else None."""
    m = _ASKS.match(question)
    return m.group("name") if m else None


def _own(text: str, name: str) -> bool:
    """The speaker says the name is theirs."""
    n = re.escape(name)
    return bool(
        re.search(rf"\b(?:[Mm]y|[Oo]ur)\s+(?:[\w-]+\s+){{0,2}}?{n}\b", text)
        or re.search(rf"\b{n}\s+and\s+I\b", text)
        or re.search(rf"\bI(?:['’]ve|\s+have)\s+(?:only\s+)?got\s+{n}\b", text)
    )


def _possessor(text: str, name: str) -> str | None:
    """A named possessor the text gives the name: "Bobbin, Rhett's new puppy", "Joris ... with
    his daughter Margaux", "Perogy belongs to Colleen's partner"."""
    n = re.escape(name)
    for pattern in (
        rf"\b{n},\s+(?P<owner>{_NAME})['’]s\s+(?:[\w-]+\s+){{0,2}}?[a-z][\w-]*\b",
        rf"\b(?P<owner>{_NAME})['’]s\s+(?:[a-z][\w-]*\s+){{1,3}}?{n}\b",
        rf"\b{n}\s+belongs\s+to\s+(?P<owner>{_NAME})\b",
        rf"\b(?P<owner>{_NAME})\s+(?:[\w-]+\s+){{0,5}}?with\s+(?:his|her|their)\s+(?:[a-z][\w-]*\s+){{1,5}}?{n}\b",
    ):
        m = re.search(pattern, text)
        if m is not None and m.group("owner") not in _NOT_OWNERS and m.group("owner") != name:
            return m.group("owner")
    return None


def owner_answer(question: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """Whose the asked name is, from the evidence; None when no turn says it.

    Args:
        question: a "Whose <noun> is <Name>?" question (others return None).
        evidence: turns that may speak of the name, any order.

    Returns:
        The keeper's name, or None (also when the keeper is the unnamed user or the agent).
    """
    name = asked_name(question)
    if name is None:
        return None
    speakers = {e.speaker for e in evidence}
    said = [e for e in sorted(evidence, key=lambda e: e.time) if re.search(rf"\b{re.escape(name)}\b", e.text)]
    found: str | None = None
    for e in said:
        others = speakers - {e.speaker}
        if (owner := _possessor(e.text, name)) is not None:
            found = owner
        elif _own(e.text, name):
            found = e.speaker
        elif (
            re.search(rf"\byour\s+(?:own\s+)?(?:[\w-]+\s+){{0,2}}?{re.escape(name)}\b", e.text)
            and len(others) == 1
        ):
            found = next(iter(others))
        if found is not None:
            break
    someone_elses = any(
        re.search(
            rf"\b(?:[Hh]is|[Hh]er|[Tt]heir)\b[^.!?]{{0,40}}\b(?:called|named)\s+{re.escape(name)}\b", e.text
        )
        for e in said
    )
    if found is None and not someone_elses:  # "Her cat too, a Maine Coon called Bartleby": hers
        talk = Counter(e.speaker for e in said if not e.text.rstrip().endswith("?"))
        ranked = talk.most_common(2)
        if ranked and ranked[0][1] >= 2 and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            found = ranked[0][0]
    if found is None or found.strip().casefold() in AGENT_NAMES | USER_NAMES:
        return None
    return found
