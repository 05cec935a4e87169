""" "There" in a move or a home said as the place named just before ("Tulpa is opening an office in
Amsterdam and I'll move there in June"; "Tunde got a job offer in Toronto! He's moving there in
October").

The rules read where someone lives from the place named in the clause; a move to "there" names no
place, so it was read as a move to nowhere. The antecedent is the last place the same turn named
before it with a preposition of place, which is how a speaker introduces what "there" refers to;
failing that, the last one the turn before named (a question answered: "Will you move to Kumasi?").
"""

from __future__ import annotations

import re

from emem.extract.entities import NOT_NAMES
from emem.extract.patterns import HOME_NOUN

_THERE = re.compile(
    r"\b(?P<verb>move|moves|moving|moved|relocate|relocating|relocated|live|living|settle|settling|settled)"
    r"(?P<mid>(?:\s+(?:back|over|out|down))?)\s+there\b",
    re.IGNORECASE,
)
_HOME_THERE = re.compile(
    rf"\b(?P<head>(?:rent|rents|renting|rented|buy|buying|bought)\s+(?:a|an|the|our|my)\s+(?:[\w-]+\s+){{0,3}}?"
    rf"{HOME_NOUN}(?:\s+on\s+[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){{0,2}})?)\s+there\b",
    re.IGNORECASE,
)
"""A home rented or bought "there" ("a job in Daylesford, so we're renting a house on Vincent Street
there")."""
_PLACE = re.compile(r"\b(?:in|to|at|from|near|on)\s+(?P<place>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})")


def _antecedent(before: str) -> str | None:
    """The last place named with a preposition in `before` (names of days, months and other
    non-places are skipped)."""
    for m in reversed(list(_PLACE.finditer(before))):
        place = m.group("place").rstrip(".")
        if place.split()[0].lower() not in NOT_NAMES:
            return place
    return None


def resolve_there(text: str, previous: str = "") -> str:
    """`text` with "move/live there" said as "move to <place>" / "live in <place>" when the turn
    named the place before, or else the turn just before it did ("Will you move to Kumasi?" -
    "Yes, I'll move there in August"); unchanged otherwise.

    Args:
        text: one turn's text.
        previous: the text of the turn just before it in the same session ("" for none).

    Returns:
        The text the rules should read.
    """
    out, last = [], 0
    found = sorted([*_THERE.finditer(text), *_HOME_THERE.finditer(text)], key=lambda m: m.start())
    for m in found:
        place = _antecedent(text[: m.start()]) or (_antecedent(previous) if previous else None)
        if place is None or m.start() < last:
            continue
        if m.re is _HOME_THERE:
            said = f"{m.group('head')} in {place}"
        else:
            verb = m.group("verb")
            prep = "to" if verb.lower().startswith(("mov", "reloc")) else "in"
            said = f"{verb}{m.group('mid')} {prep} {place}"
        out.append(text[last : m.start()] + said)
        last = m.end()
    return "".join(out) + text[last:] if out else text
