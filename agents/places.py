"""A town asked for, when the home on record is a part of one.

"Which city does Dragana live in?" after "Writing from Belgrade! Moved on the 20th of May, a flat
in Vračar": the ledger holds the most specific place said (Vračar), and no gazetteer is at hand
to say which city that is. The turns say it: a place written after the part with a comma ("in
Mylapore, Chennai"; not after a place moved to: "moved into Lyon, Croix-Rousse"), or the town the
same turn says one is in, writes from or is welcomed to before it names the part ("Welcome to
Glasgow. In Shawlands since 16 August"). Pure rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.answer import EvidenceItem

TOWN_HEADS = frozenset("city town village".split())
"""Nouns that ask for a town, not the part of it one lives in."""

REGIONS = frozenset(
    """afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan bahamas
    bahrain bangladesh barbados belarus belgium belize benin bhutan bolivia bosnia botswana brazil brunei
    bulgaria burundi cambodia cameroon canada chad chile china colombia congo croatia cuba cyprus czechia
    denmark djibouti dominica ecuador egypt eritrea estonia eswatini ethiopia fiji finland france gabon
    gambia georgia germany ghana greece grenada guatemala guinea guyana haiti honduras hungary iceland india
    indonesia iran iraq ireland israel italy jamaica japan jordan kazakhstan kenya kiribati korea kosovo
    kuwait kyrgyzstan laos latvia lebanon lesotho liberia libya liechtenstein lithuania luxembourg
    madagascar malawi malaysia maldives mali malta mauritania mauritius mexico micronesia moldova monaco
    mongolia montenegro morocco mozambique myanmar namibia nauru nepal netherlands holland nicaragua niger
    nigeria norway oman pakistan palau palestine panama paraguay peru philippines poland portugal qatar
    romania russia rwanda samoa senegal serbia seychelles singapore slovakia slovenia somalia spain sudan
    suriname sweden switzerland syria taiwan tajikistan tanzania thailand togo tonga tunisia turkey
    turkmenistan tuvalu uganda ukraine uruguay uzbekistan vanuatu vietnam yemen zambia zimbabwe
    england scotland wales britain uk usa us america europe asia africa
    alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii idaho
    illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota
    mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah
    vermont virginia washington wisconsin wyoming ontario quebec alberta manitoba saskatchewan nunavut
    queensland tasmania victoria catalonia andalusia bavaria tuscany sicily sardinia brittany normandy
    provence flanders wallonia""".split()
)
"""Countries, states and regions: what a comma after a town names ("Belgrade, Serbia"), never the
town a part of it is in."""
_PLACE = r"[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*(?:\s+(?!I\b)[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*)?"


def containing_town(value: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """The town a turn places `value` in, or None when no turn does.

    Args:
        value: the place on record ("Vračar").
        evidence: the turns read for the question, any order; the latest that says one wins.

    Returns:
        The town ("Belgrade"), or None.
    """
    name = re.escape(value.strip())
    after = re.compile(rf"\b{name},\s+(?P<town>{_PLACE})")
    before = re.compile(
        rf"(?:\b(?i:writing|greetings|hello|hi|love)\s+from|\b(?i:welcome)\s+to|\b(?i:I['’]m|we['’]re|I\s+am|we\s+are)\s+"
        rf"(?:now\s+|finally\s+)?in)\s+(?P<town>{_PLACE})\s*[!.]\s+(?:[^.!?]*?\s)?(?i:in|to|into)\s+{name}\b"
    )
    # "moving to Lyon", then "all moved into Lyon, Croix-Rousse": a place moved to is a town, and
    # what the comma adds after it is a part of it
    town_already = re.compile(rf"\b(?i:mov\w*|relocat\w*)\s+(?:\w+\s+)?(?i:to|into)\s+{name}\b")
    said_as_town = any(town_already.search(e.text) for e in evidence)
    for e in sorted(evidence, key=lambda e: e.time, reverse=True):
        for pattern in (before,) if said_as_town else (after, before):
            m = pattern.search(e.text)
            town = m.group("town") if m else None
            if town and town != value and not town.endswith(value) and not _region(town):
                return town
    return None


def _region(name: str) -> bool:
    """Whether a name is a country, state or region ("New South Wales" by its words, "NSW", "TX")."""
    low = name.lower()
    return low in REGIONS or name.isupper() or (" " in name and low.split()[-1] in REGIONS)


def names_town_of(answer: str, values: Sequence[str], evidence: Sequence[EvidenceItem]) -> bool:
    """Whether an answer is the town one of `values` (the ledger's current homes) is in, as the
    turns place it: "Izmir" for "Alsancak" after "Greetings from Izmir! We moved into a flat in
    Alsancak" is the current home's town, not a home the ledger replaced.

    Args:
        answer: the reader's answer.
        values: the current values of a home predicate.
        evidence: the turns read.

    Returns:
        True when some value's town is the answer.
    """
    return any(containing_town(v, evidence) == answer.strip() for v in values)
