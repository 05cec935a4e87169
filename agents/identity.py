"""Who a named person or animal is to someone, read from the ledger's relations (pure rules).

"Who is Bernard?" names a relative, not a subject the ledger files facts under: the answer is the
relation a value gives the name ("has_partner = a husband named Bernard" -> "the user's
husband"), which no turn need say in those words ("I live in Lyon with my husband Bernard").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from emem.answer import FactItem
from emem.ledger.predicates import RELATION_PREDICATES, named_value
from emem.subjects import USER_NAMES

_IDENTITY = re.compile(
    r"^\s*[Ww]ho(?:['’]s|\s+is|\s+was)\s+(?P<name>[A-ZÀ-ÖØ-Þ][\w'’-]+(?:\s+[A-ZÀ-ÖØ-Þ][\w'’-]+)?)\s*\??\s*$"
)
_ROLE = re.compile(r"^(?:an?|the|my|our)\s+(?P<role>.+?)\s+named\s+", re.I)


def identity_name(question: str) -> str | None:
    """The name a "Who is Bernard?" question asks about, or None for any other form.

    Args:
        question: the question as asked.
    Returns:
        The name ("Bernard"), without a possessive.
    """
    m = _IDENTITY.match(question)
    return re.sub(r"['’]s$", "", m.group("name")) if m else None


def identity_answer(question: str, facts: Sequence[FactItem]) -> str | None:
    """Who the asked name is, by the relation values that name it: "the user's husband" (several
    joined: a friend who is also a colleague), or None when no value names it.

    Args:
        question: the question as asked.
        facts: the ledger's current facts for the read.
    Returns:
        The answer, or None.
    """
    name = identity_name(question)
    if name is None:
        return None
    found, former = [], []
    for f in facts:
        if f.predicate not in RELATION_PREDICATES or f.status != "state":
            continue
        owner = "the user" if f.subject.lower() in USER_NAMES else f.subject
        found += [f"{owner}'s {role}" for v in f.values if (role := _role_of(v, name))]
        # a relation that ended ("Filou died last month") still says who he was
        for r in f.history:
            role = _role_of(str(r.get("object_text") or ""), name)
            if role and r.get("valid_to"):
                until = datetime.fromisoformat(str(r["valid_to"]).replace("Z", "+00:00"))
                former.append(f"{owner}'s {role} (until {until.day} {until:%B %Y})")
    return ", ".join(dict.fromkeys(found or former)) or None


def _role_of(value: str, name: str) -> str | None:
    said = named_value(value)
    role = _ROLE.match(value)
    return role.group("role") if said and role and said.lower() == name.lower() else None
