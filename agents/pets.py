"""Pets asked about by name, read from what was said of them (pure rules).

"Whose dog is Brisa?", "Who does Kesar belong to?", "What kind of animal is Stump?" and "Is Tabla
a cat?" name the animal, not its owner, so neither the ledger's subjects nor the question's words
lead to the answer: the turn that names the animal with its kind does ("he has a cat called
Kesar", "a barn cat from the ranger station, named Stump", "Marginalia sends regards. Our cat has
opinions"). The owner is whoever that sentence gives it to: the speaker ("my", "I have"), a name
("Ignacia has a border collie"), or the person a "he"/"she" stands for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from emem.agents.spans import sentences
from emem.answer import EvidenceItem
from emem.extract.patterns import KIN_NAMED, PETS, pet_family

_SPECIES = "|".join(sorted((p.replace(" ", r"\s+") for p in PETS), key=len, reverse=True))
_NAME = r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+"
_NAMED = re.compile(
    rf"\b(?P<kind>(?:[a-z-]+\s+)?(?:{_SPECIES}))(?:[^.!?;,]{{0,40}}?,?\s+(?:named|called)\s+|,\s*)(?P<name>{_NAME})\b"
)
"""A kind and the name given to it ("a cat called Kesar", "an indie dog, Tabla", "a barn cat from
the ranger station, named Stump")."""
_NAME_FIRST = re.compile(
    rf"\b(?P<name>{_NAME}),?\s+(?:(?:is|was)\s+(?:an?|my|our)|the|my|our)\s+(?P<kind>(?:[a-z-]+\s+)?(?:{_SPECIES}))\b"
)
"""A name, then its kind ("Waxwing is a border terrier", "Kesar the cat")."""
_OURS_NEXT = re.compile(rf"^\W*(?i:my|our)\s+(?P<kind>(?:[a-z-]+\s+)?(?:{_SPECIES}))\b")
"""The speaker's animal, named in the sentence before ("Marginalia sends regards. Our cat ...")."""
_SPEAKERS_OWN = re.compile(r"\b(?i:my|our|I|we|I've|we've)\b")
_NAMED_HAS = re.compile(rf"\b(?P<owner>{_NAME})\s+(?:has|had|owns|adopted|got|keeps)\b")
_PRONOUN_HAS = re.compile(r"\b(?i:he|she|they)\s+(?:has|had|have|owns?|adopted|got|keeps?)\b")
_PERSON = re.compile(rf"{KIN_NAMED}|(?:^|[.!?]\s+)(?P<subject>{_NAME})\s+(?:is|was|has|lives|works)\b")
_NOT_OWNERS = frozenset("I My Our The A An He She They We It And But So".split())

_WHOSE = re.compile(
    rf"^\s*(?i:whose\s+(?:[a-z]+\s+)?(?:pet|dog|cat|animal|{_SPECIES})\s+is\s+(?P<a>{_NAME})|"
    rf"who\s+(?:does|did)\s+(?P<b>{_NAME})\s+belong\s+to|who\s+owns\s+(?P<c>{_NAME}))\s*\??\s*$"
)
_KIND = re.compile(
    r"^\s*(?i:what\s+(?:kind|sort|type)\s+of\s+(?P<asked>animal|pet|dog|cat)\s+is|what\s+animal\s+is)\s+"
    rf"(?P<name>{_NAME})\s*\??\s*$"
)
"""What kind of animal a name is; not "What breed is ...?", which a kind ("a puppy") does not answer."""
_IS_KIND = re.compile(rf"^\s*(?i:is)\s+(?P<name>{_NAME})\s+(?i:an?)\s+(?P<kind>(?i:{_SPECIES}))\s*\??\s*$")


@dataclass(frozen=True)
class Pet:
    """An animal a turn names with its kind."""

    name: str
    kind: str
    """As said ("indie dog", "barn cat")."""
    owner: str | None
    """Whose it is, when the sentence says; the speaker's label for the speaker."""
    said: str
    """The sentence that says it."""


def asks_about_pet(question: str) -> bool:
    """Whether the question asks whose a named animal is, or what kind it is."""
    return bool(_WHOSE.match(question) or _KIND.match(question) or _IS_KIND.match(question))


def pet_answer(question: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """The answer to a question about a named animal, from the first turn (best first) that names
    it with its kind; None when the question is of another form or no turn says.

    Args:
        question: as asked.
        evidence: turns that may answer, best first.

    Returns:
        The owner ("Nikhil"), the kind ("a barn cat"), or "Yes:"/"No:" with what was said.
    """
    whose, kind, is_kind = _WHOSE.match(question), _KIND.match(question), _IS_KIND.match(question)
    m = whose or kind or is_kind
    if m is None:
        return None
    name = m.group("name") if kind or is_kind else next(g for g in m.groups() if g)
    for e in evidence:
        pet = _pet_named(e, name)
        if pet is None or (whose and pet.owner is None):
            continue
        if whose:
            return "the user" if pet.owner == "user" else pet.owner
        if kind:
            asked = (kind.group("asked") or "").lower()
            if asked in ("dog", "cat") and pet.kind.lower() == asked:
                continue  # "What kind of dog is Rex?" is not answered by "a dog"
            return f"{_article(pet.kind)} {pet.kind}"
        asked = is_kind.group("kind") if is_kind else ""
        same = pet_family(pet.kind.split()[-1]) == pet_family(asked) or pet_family(pet.kind) == pet_family(
            asked
        )
        return f"{'Yes' if same else 'No'}: {name} is {_article(pet.kind)} {pet.kind} ({pet.said})"
    return None


def _pet_named(e: EvidenceItem, name: str) -> Pet | None:
    told = sentences(e.text)
    for i, sentence in enumerate(told):
        if name not in sentence:
            continue
        for pattern in (_NAMED, _NAME_FIRST):
            for m in pattern.finditer(sentence):
                if m.group("name") == name:
                    before = sentence[: m.start()]
                    return Pet(name, _kind(m.group("kind")), _owner(before, e, told[:i]), sentence)
        after = told[i + 1] if i + 1 < len(told) else ""
        if sentence.lstrip().startswith(name) and (ours := _OURS_NEXT.match(after)):
            return Pet(name, _kind(ours.group("kind")), e.speaker, f"{sentence} {after}")
    return None


def _kind(said: str) -> str:
    """The kind as said, without a word that only picks it out ("a second cat", "the new dog")."""
    words = said.lower().split()
    if len(words) > 1 and words[0] in ("a", "an", "the", "new", "second", "third", "other", "little", "old"):
        words = words[1:]
    return " ".join(words)


def _owner(before: str, e: EvidenceItem, earlier: Sequence[str]) -> str | None:
    """Whose the animal is, by what the sentence says before naming it."""
    named = [m.group("owner") for m in _NAMED_HAS.finditer(before) if m.group("owner") not in _NOT_OWNERS]
    if named:
        return named[-1]
    if _PRONOUN_HAS.search(before):
        # "My brother Nikhil is an engineer in Nashik, and he has a cat called Kesar": the last
        # person named before, by a relation or as a sentence's subject (not the place)
        said = " ".join([*earlier, before])
        people = [
            who
            for m in _PERSON.finditer(said)
            if (who := m.group("kin_name") or m.group("subject")) not in _NOT_OWNERS
        ]
        return people[-1] if people else None
    if _SPEAKERS_OWN.search(before):
        return e.speaker
    return None


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"
