"""The ledger's vocabulary of predicates and the value normalisation used for equality.

A predicate's cardinality is what lets the resolver answer without similarity: a single-valued
predicate has one current value (a newer one in valid time replaces an older one), a multi-valued
predicate holds a set of members that accumulate until revoked or ended.

The built-in vocabulary below is what agents are told most. Beyond it the ledger accepts **open
predicates**: any snake_case name declared with a cardinality the first time it is written in a
namespace (`Ledger.assert_fact(..., cardinality="multi")`); the declaration is stored per namespace
and a later write that contradicts it is refused. `favourite_<category>` ("favourite_colour",
"favourite_band") is a built-in family: single-valued per category, no declaration needed
("favorite_" is spelled "favourite_"). Named pets and relatives are objects of the form
"a dog named Max" / "a sister named Ana": `named_value` reads the name back out of them.

=====================  ===========  ==============================================
predicate              cardinality  meaning (subject ... object)
=====================  ===========  ==============================================
name                   single       the name the subject goes by ("Priya")
email                  single       email address
phone                  single       phone number, as written
address                single       postal / street address
lives_in               single       current home city / place
works_at               single       current employer
job_title              single       current role or occupation
relationship_status    single       single, married, engaged, dating, ...
age                    single       age in years
hometown               single       where the subject grew up / is from
diet                   single       vegetarian, vegan, keto, pescatarian, ...
favourite_<category>   single       favourite thing of a category (favourite_food)
reading                single       the book currently being read
watching               single       the show / series currently being watched
learning               single       the skill or language currently being learned
drives                 single       the vehicle the subject drives now (car, van, truck)
has_partner            single       spouse or partner ("a husband named Tom")
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
has_child              multi        a child ("a son named Leo", "two kids")
has_sibling            multi        a sibling ("a sister named Ana", "two brothers")
has_parent             multi        a parent ("a mother named Linda")
friend_of              multi        a friend
health_condition       multi        a diagnosed or chronic condition ("asthma")
allergy                multi        an allergen ("peanuts")
did                    multi        a notable activity the subject did
forget_request         multi        a topic the subject asked emem to forget
=====================  ===========  ==============================================

reading / watching / learning are single-valued on purpose: the question asked of them is "what
now?", and a newer statement answers it; finishing ("I finished Dune") ends the value in valid time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from enum import StrEnum

from emem.errors import InputError


class Cardinality(StrEnum):
    SINGLE = "single"
    MULTI = "multi"


PREDICATES: dict[str, Cardinality] = {
    "name": Cardinality.SINGLE,
    "email": Cardinality.SINGLE,
    "phone": Cardinality.SINGLE,
    "address": Cardinality.SINGLE,
    "lives_in": Cardinality.SINGLE,
    "works_at": Cardinality.SINGLE,
    "job_title": Cardinality.SINGLE,
    "relationship_status": Cardinality.SINGLE,
    "age": Cardinality.SINGLE,
    "hometown": Cardinality.SINGLE,
    "diet": Cardinality.SINGLE,
    "reading": Cardinality.SINGLE,
    "watching": Cardinality.SINGLE,
    "learning": Cardinality.SINGLE,
    "drives": Cardinality.SINGLE,
    "has_partner": Cardinality.SINGLE,
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
    "has_sibling": Cardinality.MULTI,
    "has_parent": Cardinality.MULTI,
    "friend_of": Cardinality.MULTI,
    "health_condition": Cardinality.MULTI,
    "allergy": Cardinality.MULTI,
    "did": Cardinality.MULTI,
    "forget_request": Cardinality.MULTI,
}
"""Built-in registry: predicate name -> cardinality (open predicates live per namespace in the store)."""

FAVOURITE_PREFIX = "favourite_"
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
_FAVOURITE = re.compile(r"^favou?rite_(?P<category>[a-z0-9]+(?:_[a-z0-9]+)*)$")


def predicate_name(predicate: object) -> str:
    """Normalise a predicate's spelling ("Lives In" -> lives_in, "favorite_food" -> favourite_food)
    and check it is snake_case; says nothing about whether it is known."""
    if not isinstance(predicate, str):
        raise InputError(f"predicate must be a string, got {type(predicate).__name__}", "predicate")
    name = re.sub(r"[\s\-]+", "_", predicate.strip().casefold())
    fav = _FAVOURITE.match(name)
    if fav:
        name = FAVOURITE_PREFIX + fav.group("category")
    if not _SNAKE.match(name) or len(name) > 64:
        raise InputError(
            f"predicate {predicate!r} is not a snake_case name (a-z, 0-9, _; at most 64)", "predicate"
        )
    return name


def builtin_cardinality(name: str) -> Cardinality | None:
    """Cardinality of a built-in predicate (a `predicate_name` result), None when not built in."""
    if name in PREDICATES:
        return PREDICATES[name]
    return Cardinality.SINGLE if name.startswith(FAVOURITE_PREFIX) else None


def canonical_predicate(predicate: object, declared: Mapping[str, Cardinality] | None = None) -> str:
    """Accept "Lives In" / "lives-in" for lives_in; refuse anything neither built in nor `declared`."""
    name = predicate_name(predicate)
    if builtin_cardinality(name) is None and name not in (declared or {}):
        raise InputError(
            f"unknown predicate {predicate!r}; known: {', '.join(sorted(PREDICATES))}, favourite_<category>; "
            "or declare it with a cardinality (single or multi)"
        )
    return name


def cardinality(predicate: str, declared: Mapping[str, Cardinality] | None = None) -> Cardinality:
    """Cardinality of a known predicate (InputError for an unknown one)."""
    name = canonical_predicate(predicate, declared)
    return builtin_cardinality(name) or (declared or {})[name]


def parse_cardinality(value: object) -> Cardinality:
    """ "single" / "multi" (any case) as a Cardinality; InputError otherwise."""
    try:
        return Cardinality(str(value).strip().casefold())
    except ValueError:
        raise InputError(f"cardinality must be 'single' or 'multi', got {value!r}", "cardinality") from None


RELATION_PREDICATES = ("has_partner", "has_child", "has_sibling", "has_parent", "friend_of", "has_pet")
"""The predicates whose values name a relative, a friend or a pet ("a sister named Ana")."""

_NAMED = re.compile(r"\b(?:named|called)\s+(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)")


def named_value(object_text: str) -> str | None:
    """The name in a "a dog named Max" / "a sister named Ana" object, else None."""
    m = _NAMED.search(object_text)
    return m.group("name") if m else None


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
