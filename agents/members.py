"""Which one of some people: the member a clause of the evidence ties to what the question asks.

"Which of my labmates works on kelp?" after "Auberon works on kelp forests in Norway, and Octavia
works on native oyster reefs": the answer is the person named in the clause that says kelp, not
the best quote's first name, nor a value a later correction of that clause states (Orkney). The
rule reads clauses, not turns, because one turn often tells of every member at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from emem.agents.corrections import correction_in
from emem.answer import EvidenceItem
from emem.index.text import STOP_WORDS, tokenize
from emem.timeparse import MONTH_NAME, WEEKDAY

WHICH_OF = re.compile(
    r"^\s*which\s+of\s+(?P<whose>my|our|his|her|their|the|[A-Z][\w'’-]*?)(?:['’]s?)?\s+"
    r"(?P<group>(?:two\s+|three\s+)?(?:[a-z][\w-]*\s+)??(?!(?:is|was|has|does)\b)(?:[a-z][\w-]*s|children|staff|people))"
    r"\s+(?P<rest>.+?)\??\s*$",
    re.I,
)
"""A question choosing one of a group: "Which of my sons plays football?"."""

_FRIENDS = re.compile(r"^(?:two|three)\s+(?:friends|of\s+us|of\s+them)$|^(?:two|three)\s+\w+$", re.I)
_CLAUSE = re.compile(
    r"[.!?;:]\s+|,\s+(?:and|but|while|whereas)\s+|\s+(?:and|but|while|whereas)\s+(?=[A-Z])"
    r"|,\s+(?=[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:['’]s)?\s+(?:is|was|does|did|has|had|drives|works|runs|plays|teaches|lives|"
    r"[a-z]+s)\b)"
)
"""Where a clause ends; a comma too when a name and its verb follow ("Tam's the old boy, Fly does
the actual work")."""
_NAME = re.compile(
    r"\b[A-Z][^\W\d_]+(?:[-'’][A-Z][^\W\d_]+)?(?:\s+[A-Z][^\W\d_]+(?:[-'’][A-Z][^\W\d_]+)?)*\b"
)
"""A name of one or more capitalised words ("Daichi Mori")."""
_PRONOUN = re.compile(r"^\s*(?:(?:and|so|but)\s+)?(?:he|she|they)(?:['’](?:s|d|ve|re))?\b", re.I)
_FIRST_PERSON = re.compile(r"\bI(?:['’](?:ve|m|d|ll))?\s")
_ASKED_WORDS = frozenset(
    "which who whom does did do is are was were has have had now still currently the a an of".split()
)
_NOT_PEOPLE = frozenset(
    "i i'm i've he she they we you it the a an and but so my our his her their this that there "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june "
    "july august september october november december family house news oh well yes no big good great "
    "bad sad quick huge exciting funny random weird right okay ok anyway one two three four both all "
    "neither none each".split()
)


def _stems(words: Iterable[str]) -> set[str]:
    return {w[:5] for w in words}


def _focus(rest: str) -> set[str]:
    """The asked property's words, stemmed ("plays football" -> {"plays", "footb"})."""
    words = [w.strip("'’") for w in tokenize(rest)]
    return _stems(w for w in words if w and w not in STOP_WORDS and w not in _ASKED_WORDS and len(w) > 2)


def _clauses(text: str) -> list[str]:
    """Clauses of a turn; "Ottoline and Perrin both ..." stays one (a name alone is no clause)."""
    out: list[str] = []
    last = 0
    for m in _CLAUSE.finditer(text):
        piece = text[last : m.start()].strip()
        if len(piece.split()) < 3 and m.group(0).strip() in ("and", "but", "while", "whereas"):
            continue
        if piece:
            out.append(piece)
        last = m.end()
    if text[last:].strip():
        out.append(text[last:].strip())
    return out


_WHEN_WORD = re.compile(rf"(?:{MONTH_NAME}|{WEEKDAY.pattern})s?", re.IGNORECASE)
_SHORT_ADVERBS = frozenset(
    "sadly oddly only early nearly really surely mostly lately likely madly badly truly".split()
)


def _adverb(word: str) -> bool:
    """A sentence adverb ("Honestly", "Sadly"), not a name that ends like one ("Fly", "Emily")."""
    w = word.lower()
    return w.endswith("ly") and (len(w) >= 7 or w in _SHORT_ADVERBS)


def _named(clause: str, people: set[str], focus: set[str]) -> list[str]:
    """People a clause names: known people first, then names in the subject position."""
    names = [
        n
        for n in _NAME.findall(clause)
        if n.lower() not in _NOT_PEOPLE
        and n.lower()[:5] not in focus
        and n.lower() not in STOP_WORDS
        # a sentence's opening adverb ("Honestly the bigger problem is ..."), unless a known name
        and not (_adverb(n) and clause.startswith(n) and n.lower() not in people)
    ]
    if (
        names
        and clause.startswith(names[0])
        and not re.match(rf"{re.escape(names[0])},?\s+(?:and|&|or)\s", clause)
    ):
        return names[:1]  # the clause's subject: "Daichi Mori at Kurofune Press wants files in Word"
    known = [n for n in names if any(w in people for w in n.lower().split())]
    if known:
        return known
    return [
        n
        for n in names
        if re.search(rf"\b{re.escape(n)}(?:['’]s\b|\s+(?:is|was|has|does|did|works|lives)\b)", clause)
    ]


def which_member(question: str, evidence: Sequence[EvidenceItem], people: Iterable[str] = ()) -> str | None:
    """The person the evidence ties to the property a "Which of ...?" question asks about.

    Args:
        question: the question; only the "Which of <group> <property>?" form is read.
        evidence: turns that still hold, best first.
        people: the namespace's known people and animals (speakers, ledger subjects, relatives).

    Returns:
        The member's name, or None when the question has another form or no clause names one
        member with more of the property's words than any other clause.
    """
    m = WHICH_OF.match(question)
    if m is None:
        return None
    focus = _focus(m.group("rest"))
    if not focus:
        return None
    known = {p.lower() for p in people}
    friends = bool(_FRIENDS.match(m.group("group"))) and m.group("whose").lower() == "the"
    best: tuple[int, int, int, str] | None = None  # (puts right, overlap, recency rank, name)
    ordered = sorted(evidence, key=lambda e: e.time)
    for rank, e in enumerate(ordered):
        previous: list[str] = []
        # "I told you Josie did court and Jodie did theatre. It's the other way round. Jodie is
        # court, Josie is theatre.": what a correction takes back names no one; what it says
        # instead outranks every earlier telling.
        fixed = correction_in(e.text)
        taken = " ".join(fixed.retracted) if fixed is not None else ""
        swapped = {
            n for n in _NAME.findall(taken) if n.lower() not in _NOT_PEOPLE and not _WHEN_WORD.fullmatch(n)
        }
        if not _focus(taken) & focus or len(swapped) < 2:
            # it puts right something else, or something of one member ("Vanterpool's lab
            # meetings were on Tuesdays"), not which member does what
            fixed, taken = None, ""
        for clause in _clauses(e.text):
            if taken and clause.rstrip(".!?") in taken:
                continue
            overlap = len(_focus(clause) & focus)
            names = _named(clause, known, focus)
            if friends and _FIRST_PERSON.search(clause) and not any(n.lower() in known for n in names):
                names = [e.speaker]
            elif not names and _PRONOUN.match(clause) and previous:
                names = previous[-1:]  # "I've taken on Imelda. She trained at Kew."
            if names:
                previous = names
            else:
                loose = [n for n in _NAME.findall(clause) if n.lower() not in _NOT_PEOPLE]
                previous = loose or previous  # "a third person, Imelda, part-time"
            key = (int(fixed is not None), overlap, rank)
            if overlap and len(names) == 1 and (best is None or key > best[:3]):
                best = (*key, names[0])
    return best[3] if best else None
