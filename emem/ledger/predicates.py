"""The ledger's closed vocabulary of predicates and the value normalisation used for equality.

A predicate's cardinality is what lets the resolver answer without similarity: a single-valued
predicate has one current value (a newer one in valid time replaces an older one), a multi-valued
predicate holds a set of members that accumulate until revoked or ended.

=====================  ===========  ==============================================
predicate              cardinality  meaning (subject ... object)
=====================  ===========  ==============================================
lives_in               single       current home city / place
works_at               single       current employer
job_title              single       current role or occupation
relationship_status    single       single, married, engaged, dating, ...
age                    single       age in years
hometown               single       where the subject grew up / is from
has_pet                multi        a pet ("a dog named Max")
likes                  multi        something the subject enjoys
dislikes               multi        something the subject dislikes
visited                multi        a place the subject has been to
plans_to               multi        an intention ("run a marathon")
owns                   multi        a possession
hobby                  multi        a regular pastime
attended               multi        an event attended (conference, concert)
studies                multi        a subject or course of study
member_of              multi        a group, club or community
has_child              multi        a child (by name or description)
friend_of              multi        a friend
did                    multi        a notable activity the subject did
=====================  ===========  ==============================================
"""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum

from emem.errors import InputError


class Cardinality(StrEnum):
    SINGLE = "single"
    MULTI = "multi"


PREDICATES: dict[str, Cardinality] = {
    "lives_in": Cardinality.SINGLE,
    "works_at": Cardinality.SINGLE,
    "job_title": Cardinality.SINGLE,
    "relationship_status": Cardinality.SINGLE,
    "age": Cardinality.SINGLE,
    "hometown": Cardinality.SINGLE,
    "has_pet": Cardinality.MULTI,
    "likes": Cardinality.MULTI,
    "dislikes": Cardinality.MULTI,
    "visited": Cardinality.MULTI,
    "plans_to": Cardinality.MULTI,
    "owns": Cardinality.MULTI,
    "hobby": Cardinality.MULTI,
    "attended": Cardinality.MULTI,
    "studies": Cardinality.MULTI,
    "member_of": Cardinality.MULTI,
    "has_child": Cardinality.MULTI,
    "friend_of": Cardinality.MULTI,
    "did": Cardinality.MULTI,
}
"""Registry: predicate name -> cardinality. Closed on purpose: an unknown predicate is an error."""


def canonical_predicate(predicate: object) -> str:
    """Accept "Lives In" / "lives-in" for lives_in; refuse anything not in the registry."""
    if not isinstance(predicate, str):
        raise InputError(f"predicate must be a string, got {type(predicate).__name__}", "predicate")
    name = re.sub(r"[\s\-]+", "_", predicate.strip().casefold())
    if name not in PREDICATES:
        raise InputError(f"unknown predicate {predicate!r}; known: {', '.join(sorted(PREDICATES))}")
    return name


def cardinality(predicate: str) -> Cardinality:
    """Cardinality of a known predicate (InputError for an unknown one)."""
    return PREDICATES[canonical_predicate(predicate)]


_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_APOSTROPHE = re.compile(r"['\u2019\u2018`]")
_PUNCT = re.compile(r"[^\w\s]|_")
_SPACE = re.compile(r"\s+")


def normalise_object(text: str) -> str:
    """Equality key for values: "The Austin, TX." and "austin tx" are the same value.

    Casefolds, drops apostrophes ("mom's" -> "moms"), turns other punctuation into spaces,
    collapses whitespace and strips a leading article. Used for equality only, never for display.
    """
    s = unicodedata.normalize("NFKC", text).casefold()
    s = _APOSTROPHE.sub("", s)
    s = _SPACE.sub(" ", _PUNCT.sub(" ", s)).strip()
    return _ARTICLE.sub("", s).strip()


def subject_key(name: str) -> str:
    """Case- and whitespace-insensitive key for a subject; the display name is stored separately."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", name).casefold()).strip()
