"""Who the user says they are: self-introductions confirmed by how the others address them.

In agent conversations the user's speaker label is "user", so the name the user gives ("Hi there.
I'm Nadia, I'm a nurse ...", "Keiko Tanaka here.") is the only link between questions that say
"Nadia" and the facts filed under "user". A capitalised word after "I'm" is not always a name
("I'm Italian", "I'm Vegan now"), so an introduction counts only when another speaker of the same
session addresses the speaker by that name ("Nice to meet you, Nadia.", "Hi Keiko!"): the
conversation itself confirms it, and no list of names or nationalities is needed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from emem.extract.entities import NOT_NAMES
from emem.extract.schema import FactCandidate
from emem.models import Turn

_NAME = r"[A-Z][^\W\d_]+(?:[-'][A-Z][^\W\d_]+)?"
_INTRODUCTION = re.compile(
    rf"(?:^|[.!?:;]\s+|,\s+|\s[-—]\s)(?:(?:[Hh]i|[Hh]ello|[Hh]ey|[Hh]ola)(?:\s+there)?[,!.]?\s+)?"
    rf"(?:I'm|I\s+am|[Ii]t's|[Tt]his\s+is|[Mm]y\s+name's|[Mm]y\s+name\s+is)\s+"
    rf"(?P<name>{_NAME})(?:\s+(?P<surname>{_NAME}))?(?=\s*(?:[,.!;:)]|$|\s+here\b|\s+and\b|\s+by\b))"
    rf"|(?:^|[.!?]\s+)(?P<name2>{_NAME})(?:\s+(?P<surname2>{_NAME}))?\s+here\b"
)
"""A speaker naming themself: "I'm Nadia, ...", "Hi, I'm Ingrid.", "Keiko Tanaka here."."""
_GREETING_WORDS = (
    r"[Hh]i|[Hh]ello|[Hh]ey|[Hh]ola|[Tt]hanks|[Tt]hank\s+you|[Ww]elcome|[Cc]ongratulations|[Cc]ongrats|"
    r"[Mm]eet\s+you|[Ss]orry|[Ee]nchant[ée]|[Gg]ood\s+(?:morning|evening|afternoon|luck)|[Oo]f\s+course|[Nn]oted"
)


def _addressed(name: str, text: str) -> bool:
    """Whether `text` speaks to `name` (a vocative): "Nice to meet you, Nadia.", "Hi Keiko!",
    "I'm so sorry, Nadia."."""
    n = re.escape(name)
    return bool(
        re.search(rf"(?:\b(?:{_GREETING_WORDS}),?\s+{n}\b|,\s*{n}\s*(?:[.!?]|$))", text)
        or re.match(rf"\s*{n}\s*[,!]", text)
    )


def introductions(
    turns: Sequence[Turn], roles: Mapping[str, str], canonical: Mapping[str, str] | None = None
) -> list[FactCandidate]:
    """`name` facts of speakers who introduced themselves and were addressed by that name.

    Args:
        turns: one session's turns, in order.
        roles: speaker -> "user" | "agent" | "person" (`emem.subjects.speaker_roles`).
        canonical: speaker -> the subject their facts are filed under (default the speaker).

    Returns:
        At most one name per speaker, sourced to the introducing turn.
    """
    out: list[FactCandidate] = []
    named: set[str] = set()
    for turn in turns:
        speaker = turn.speaker
        if roles.get(speaker) == "agent" or speaker in named:
            continue
        text = turn.text.replace("\u2019", "'")
        for m in _INTRODUCTION.finditer(text):
            name = m.group("name") or m.group("name2")
            if not name or name.lower() in NOT_NAMES:
                continue
            # "I'm Tomasz" said by the speaker labelled Tomasz: the label confirms it, and "What's
            # my name?" then finds it in the ledger like a name the user gave under "user"
            own_label = name.casefold() == speaker.casefold()
            others = [t.text for t in turns if t.speaker != speaker]
            if not own_label and not any(_addressed(name, o) for o in others):
                continue
            subject = (canonical or {}).get(speaker, speaker)
            # The name they go by is the given name: questions say "Keiko", not "Keiko Tanaka".
            out.append(
                FactCandidate(
                    subject=subject,
                    predicate="name",
                    object=name,
                    surface=m.group(0).strip(" ,.!?"),
                    source_turn_ids=[turn.turn_id],
                    confidence=0.9,
                )
            )
            named.add(speaker)
            break
    return out
