"""Self-corrections said in conversation, read as clauses: which value a turn takes back and which
clause states the value that replaces it.

A correction names what it retracts in a few grammatical ways whatever the topic: a value said
before ("I told you the bakery was on Gloucester Road", "earlier I said ... my left foot"), a
negated copula ("Sipho isn't the wicketkeeper", "the allergy isn't chicken after all") or a
trailing "not Y" ("the gym is £34 a month, not £39"). The replacement is the affirmed clause next
to the retraction: the first one after a retraction, or the one before a trailing "not Y". Clauses
that only say a mistake was made ("I got it wrong", "I mixed them up") state no value. Nothing here
knows a predicate or a topic, so the same reading holds for a birthday, a price or a position.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from emem.agents.spans import about, focus_words, sentences
from emem.answer import EvidenceItem
from emem.index.text import STOP_WORDS, tokenize


@dataclass(frozen=True)
class Correction:
    """What a turn takes back (`retracted`: the phrases, as said) and the clause that states the
    value replacing it (`replacement`)."""

    retracted: tuple[str, ...]
    replacement: str
    explicit: bool
    """True when the turn says it corrects ("I told you X", "X, not Y", "I got it wrong"); a bare
    negation ("he isn't the keeper") is one only when it takes back something said before."""

    def retracted_words(self) -> frozenset[str]:
        """The content words of what is taken back (index tokens)."""
        return frozenset(w for p in self.retracted for w in content_tokens(p))


_CLAUSES = re.compile(r"\s*[;:,]\s+|\s+(?=\bbut\b)|(?<=\b[A-Z])\.\s+(?=[Nn]ot\s)")
"""Clause breaks; also after a spelled letter ("Kohl, with a K. Not Cole."), which the sentence
splitter keeps as an initial."""
_LEAD = re.compile(r"^(?:(?:and|but|so|also|oh|ha|well|though|plus)\b[,\s]*)+", re.I)
_SAID = re.compile(
    r"\b(?:I|we)\s+(?:\w+\s+)?(?:said|told you|wrote|typed|gave you|put down|mentioned)\b\s*(?:that\s+)?(?P<what>.*)",
    re.I,
)
"""A value said before, taken back: "I told you the bakery was on Gloucester Road"."""
_NEGATED = re.compile(
    r"\b(?:isn['’]t|wasn['’]t|aren['’]t|weren['’]t|(?:is|was|are|were)\s+not)\s+(?P<what>.+)", re.I
)
"""A negated copula: "Sipho isn't the wicketkeeper"."""
_TAIL = re.compile(r"^not\s+(?P<what>.+)$", re.I)
"""A trailing "not Y" clause: ", not £39"."""
_META = re.compile(
    r"\bwrong\b|\bmix(?:ed)?\b.*\bup\b|\bmisremember\w*|\bcorrection\b|\bcorrect (?:something|that|myself)\b"
    r"|\bconfess\b|\bno idea why\b|\bmy (?:mistake|bad)\b|\bmistyped\b",
    re.I,
)
"""Clauses that only say a mistake was made: they state no value."""


def content_tokens(text: str) -> list[str]:
    """Index tokens of a text that are not stop words."""
    return [w for w in tokenize(text) if w not in STOP_WORDS]


def _clauses(text: str) -> list[str]:
    out = []
    for piece in (p for sentence in sentences(text) for p in _CLAUSES.split(sentence)):
        piece = _LEAD.sub("", piece.strip()).strip(" .!?")
        if piece:
            out.append(piece)
    return out


def _filler(clause: str) -> bool:
    """A clause too short to state a value ("Also", "Vet update"), unless it holds a number or a
    copula ("it's beef")."""
    if re.fullmatch(r"with\s+(?:a|an|one|two|double)\s+\w+", clause, re.I):
        return True  # "with a K": how a name is spelled, not a value
    if re.search(r"\d|['’]s\b|\b(?:is|was|are|were)\b", clause, re.I):
        return False
    return len(clause.split()) <= 2


@functools.lru_cache(maxsize=8192)
def correction_in(text: str) -> Correction | None:
    """The correction a turn makes, or None when it takes nothing back.

    Args:
        text: a turn's text.

    Returns:
        The retracted phrases and the replacing clause, or None when the turn retracts nothing or
        names no replacement.
    """
    clauses = _clauses(text)
    retracted: list[str] = []
    explicit = False
    replacement: str | None = None
    kinds: list[str] = []
    for clause in clauses:
        if m := _TAIL.match(clause):
            kinds.append("tail")
            retracted.append(m.group("what"))
        elif m := _SAID.search(clause):
            kinds.append("said")
            retracted.append(m.group("what"))
        elif _META.search(clause):
            kinds.append("meta")
        elif m := _NEGATED.search(clause):
            kinds.append("negated")
            retracted.append(re.sub(r"\s+after all$", "", m.group("what"), flags=re.I))
        else:
            kinds.append("filler" if _filler(clause) else "affirmed")
    first = next((i for i, k in enumerate(kinds) if k in ("tail", "said", "negated")), None)
    if first is None:
        return None
    explicit = any(k in ("tail", "said", "meta") for k in kinds)
    affirmed = [i for i, k in enumerate(kinds) if k == "affirmed"]
    if kinds[first] == "tail":
        before = [i for i in affirmed if i < first]
        replacement = clauses[before[-1]] if before else None
    else:
        after = [i for i in affirmed if i > first]
        before = [i for i in affirmed if i < first]
        replacement = clauses[after[0]] if after else (clauses[before[-1]] if before else None)
    if replacement is None:
        return None
    return Correction(tuple(retracted), replacement, explicit)


def retracts(correction: Correction, value: str) -> bool:
    """True when the correction takes back `value` (every content word of it is in what is retracted).

    Args:
        correction: a turn's correction.
        value: a value stated elsewhere (a ledger value, a span).

    Returns:
        Whether the value is one the turn says was wrong, and the replacement does not restate it.
    """
    words = set(content_tokens(value))
    if not words or not words <= correction.retracted_words():
        return False
    return not words <= set(content_tokens(correction.replacement))


def revises_earlier(correction: Correction, earlier: Sequence[str], focus: set[str]) -> bool:
    """True when what the correction takes back was said in a clause of one of the `earlier` texts
    that is about `focus` (two content words of it, or its only one): the turn corrects what
    memory holds on the asked topic, not something else the same turn said.

    Args:
        correction: a turn's correction.
        earlier: texts said before it.
        focus: the question's focus words.

    Returns:
        Whether the correction revises an earlier statement on the topic.
    """
    words = correction.retracted_words()
    if not words:
        return False
    for text in earlier:
        for clause in _clauses(text):
            shared = words & set(content_tokens(clause))
            if shared and len(shared) >= min(2, len(words)) and about(clause, focus):
                return True
    return False


_NUMBER_VALUE = re.compile(r"[£$€]?\d[\d,.]*\d|[£$€]?\d")
"""A number as said, with its currency: "$1,400", "1912", "6"."""


def number_put_right(question: str, answer: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """A number the answer gives that a later turn takes back, put right (pure): "The fee is
    $1,400" then "the exam fee is $1,900, not $1,400"; "I told you 40 kilos. It was 14". The
    correction must be about the question's words and said after a turn that gave the number.

    Args:
        question: as asked.
        answer: the reader's answer; only a number, with at most a unit after it, is read.
        evidence: the turns read.

    Returns:
        The replacing number (with the answer's unit), or None when nothing takes it back.
    """
    words = answer.split()
    m = _NUMBER_VALUE.fullmatch(words[0].rstrip(".,")) if words and len(words) <= 2 else None
    if m is None:
        return None
    value, unit = m.group(0), " ".join(words[1:])
    focus = focus_words(question, set())
    ordered = sorted(evidence, key=lambda e: e.time)
    for i in range(len(ordered) - 1, 0, -1):
        e = ordered[i]
        if not about(e.text, focus) or not any(_says_number(x.text, value) for x in ordered[:i]):
            continue
        inline = re.search(
            rf"(?P<new>{_NUMBER_VALUE.pattern})\s*,?\s+not\s+(?:the\s+)?{re.escape(value)}(?![\d,.]\d)",
            e.text,
        )
        if inline is not None:
            return " ".join([inline.group("new"), unit]).strip()
        fixed = correction_in(e.text)
        if fixed is not None and retracts(fixed, value):
            new = [n for n in _NUMBER_VALUE.findall(fixed.replacement) if n != value]
            if new:
                return " ".join([new[0], unit]).strip()
    return None


def _says_number(text: str, value: str) -> bool:
    return re.search(rf"(?<![\d,.]){re.escape(value)}(?![\d]|[,.]\d)", text) is not None
