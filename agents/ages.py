"""Ages asked about by name, read from what was said of the one named (pure rules).

"How old is Horopito?" is answered by the sentence that binds an age to Horopito: "my cat
Horopito, a tortoiseshell who's fourteen", "a grey mare called Brisure ...; she's twelve",
"Archimède. He's a basset, six years old", or an agent's recap "Horopito, fourteen, on the renal
diet". An age said of someone else in the same turn ("Sigrid's horse is actually twenty-two") is
not bound to the name, and the latest turn that binds one answers (ages grow, and a later
"she's actually eight, not seven" puts an earlier one right).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.agents.counts import said_order
from emem.agents.spans import NUMBER_PATTERN, number_value, sentences
from emem.answer import EvidenceItem

_NUM = rf"(?P<age>{NUMBER_PATTERN}|\d{{1,3}})"
_UNIT = r"(?:\s*[-\s]\s*(?P<unit>(?:years?|yrs?|months?|weeks?)))?(?:[-\s]+old)?"
_NOT_AGE = r"(?!\s*(?:%|percent|am\b|pm\b|:|kg|lb|kilos?|pounds?|stone|cm|feet|foot|inches|minutes?|hours?|days?|times|o'clock))"
_IS = r"(?:is|was|['’]s|turned|turns|has\s+turned|just\s+turned)\s+(?:now\s+|just\s+|only\s+|actually\s+|nearly\s+|almost\s+)?"
_ASKS = re.compile(
    r"^\s*(?:how\s+old\s+(?:is|was)|what\s+age\s+is|what(?:'s|\s+is)\s+the\s+age\s+of)\s+(?P<name>.+?)\s*\??\s*$",
    re.I,
)


def asks_age_of(question: str) -> str | None:
    """The name a "How old is X?" question asks about, when X is a single capitalised name."""
    m = _ASKS.match(question)
    if m is None:
        return None
    name = m.group("name").strip()
    name = re.sub(r"\s+(?:now|these\s+days|today)$", "", name, flags=re.I)
    # "Joel's daughter Maja", "my cat Pip": the name after the kin or kind that introduces it
    name = re.sub(
        r"^(?:(?:my|our|his|her|their|the\s+user's|[A-Z][\w'’-]*['’]s?)\s+)(?:[a-z-]+\s+){1,2}(?=[A-Z])",
        "",
        name,
    )
    return name if re.fullmatch(r"[^\W\d_][\w'’-]*", name) and name[0].isupper() else None


def _bound(sentence: str, name: str) -> str | None:
    """An age the sentence binds to `name`, as a number with any unit but years ("14", "6 weeks")."""
    n = re.escape(name)
    for pattern in (
        # "Horopito is fourteen", "Tamale turned 8", "Horopito, a tortoiseshell who's fourteen"
        rf"\b{n}\b(?:,\s+(?:a|an|the|my|our)\s+[^,.;!?]{{1,40}}?)?(?:,?\s+(?:who|which|that)?\s*|(?=['’]s\s)){_IS}{_NUM}\b{_UNIT}{_NOT_AGE}",
        rf"\b{n}\b\s*\(\s*(?P<age>\d{{1,2}})\s*\)",  # "Noah (10)"
        rf"\b{n},\s+{_NUM}\b{_UNIT}{_NOT_AGE}\s*[,;.]",  # a recap: "Horopito, fourteen, on the renal diet"
        # an appositive: "Hopscotch, a 7-year-old greyhound"; "Commodore, an old lurcher, eleven."
        rf"\b{n},\s+(?:a|an)\s+{_NUM}[-\s](?P<unit>years?|months?|weeks?)[-\s]old\b",
        rf"\b{n},\s+(?:a|an|the|my|our)\s+[^,.;!?\d]{{1,40}}?,\s+{_NUM}\b{_UNIT}{_NOT_AGE}\s*(?:[,;.!?]|$)",
        rf"\b{_NUM}[-\s](?P<unit>years?|months?|weeks?)[-\s]old\s+(?:[a-z-]+\s+){{0,3}}?{n}\b",  # "a 6-year-old basset Archimède"
    ):
        m = re.search(pattern, sentence)
        if m is not None:
            return _age(m)
    return None


def _pronoun_age(text: str) -> str | None:
    """The age a sentence or clause opening on "he"/"she"/"it" states ("she's twelve", "He's a
    basset, six years old")."""
    m = re.match(
        rf"\s*(?:and\s+)?(?:she|he|it)\s*(?:is|['’]s)\s+(?:(?:a|an)\s+[^,.;!?]{{1,30}},\s+)?(?:now\s+|just\s+|actually\s+)?"
        rf"{_NUM}\b{_UNIT}{_NOT_AGE}",
        text,
        re.I,
    )
    return _age(m) if m is not None else None


def _age(m: re.Match[str]) -> str | None:
    said = m.group("age")
    value = number_value(said) if not said.isdigit() else int(said)
    if value is None or not 0 < value < 130:
        return None
    unit = (m.groupdict().get("unit") or "").lower()
    return f"{value} {unit if unit.endswith('s') else unit + 's'}" if unit[:1] in ("m", "w") else str(value)


def _names_before(text: str) -> list[str]:
    return re.findall(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]+", text)


def age_said(e: EvidenceItem, name: str) -> str | None:
    """The age `e` binds to `name`: in a sentence naming it, or in the clause or sentence right
    after, through a pronoun, when `name` is the last name said before it."""
    told = sentences(e.text)
    for i, sentence in enumerate(told):
        if not re.search(rf"\b{re.escape(name)}\b", sentence):
            continue
        if (age := _bound(sentence, name)) is not None:
            return age
        tail = sentence[sentence.rfind(name) + len(name) :]
        clauses = re.split(r"[;,]\s*|\s+[-–—]\s+", tail)
        for k, clause in enumerate(clauses[1:], 1):
            before = " ".join(clauses[:k])
            if [n for n in _names_before(before) if n != name]:
                break  # someone else was named in between: "he" may be them
            if (age := _pronoun_age(clause)) is not None:
                return age
        if i + 1 < len(told) and not [n for n in _names_before(tail) if n != name]:
            if (age := _pronoun_age(told[i + 1])) is not None:
                return age
    return None


def age_answer(question: str, evidence: Sequence[EvidenceItem], named: Sequence[str] = ()) -> str | None:
    """The answer to "How old is X?" from the latest turn that binds an age to X; None when the
    question is of another form or no turn does.

    Args:
        question: as asked.
        evidence: turns that may answer (any order; the read path has already dropped turns
            after an as-of time).
        named: the names the question's relative resolved to ("How old is my son?" -> Linus,
            from the ledger), tried when the question names nobody itself.

    Returns:
        The age ("14", "6 weeks"), or None.
    """
    name = asks_age_of(question)
    if name is None and _ASKS.match(question) and _RELATIVE.search(question):
        names = list(named)
    else:
        names = [name] if name is not None else []
    latest = sorted(evidence, key=said_order, reverse=True)
    for who in names:
        for e in latest:
            if (age := age_said(e, who)) is not None:
                return age
    return None


_RELATIVE = re.compile(r"\b(?:my|our|the\s+user's|[A-Z][\w'’-]*['’]s)\s+(?:[a-z]+\s+)?[a-z]+\s*\??\s*$")
"""A relative asked by kin ("my son", "Idris's youngest daughter"), not by name."""
