"""A move read as one clause: who moves, from where, to where, and when.

The phrase rules know many ways of saying "moved to X". A move clause also says where the mover
leaves ("moving out of Hackney in August, into a place in Walthamstow"), and the destination may
be the place of a home rather than the object of "to" ("into a flat in Leith"). This reads the
clause by its parts instead of by its wording: a verb of moving, then the places it names with
their prepositions, then the date said in the clause. What it yields is where the mover lives
from the move's date (ahead or past), and that the place left was home until then.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from emem.extract.anaphora import resolve_there
from emem.extract.dates import find_date_mentions
from emem.extract.entities import NOT_NAMES
from emem.extract.patterns import HOME_NOUN
from emem.extract.schema import FactCandidate
from emem.models import Turn
from emem.timeparse import DAY_NAME

_PLACE = r"[A-Z][\w'’.-]*(?:\s+(?:(?:do|da|de|dos|das|del|di|upon|le|la)\s+)?[A-Z][\w'’.-]*){0,2}"
"""A place name of up to three capitalised words, which may be joined by a lower-case particle
("Foz do Arelho", "Stratford upon Avon")."""
_MOVE = re.compile(
    r"\b(?P<subj>I|[Ww]e|[Hh]e|[Ss]he|[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)(?P<aux>'m|'re|'s|\s+am|\s+are|\s+is|\s+will\s+be|'ll\s+be|'ve|\s+have|\s+has)?"
    r"(?:\s+(?:just|finally|also|now|actually|officially))*\s+"
    r"(?P<verb>moving|moved|relocating|relocated|move|relocate)\b(?P<rest>[^.!?;]*)"
)
"""A first-person or named subject, then a verb of moving, then the rest of its clause."""
_BARE_MOVED = re.compile(r"(?:^|(?<=[.!?]\s))(?P<verb>[Mm]oved)\b(?P<rest>[^.!?;]*)")
""" "Moved" opening a sentence, its subject left out ("We're in Devonport! Moved over in July"):
the speaker moved."""
_ORIGIN = re.compile(rf"\b(?:[Oo]ut\s+of|[Aa]way\s+from|[Ff]rom)\s+(?P<place>{_PLACE})")
_DESTINATION = re.compile(
    rf"\b(?:[Tt]o|[Ii]nto)\s+(?:(?:a|an|the|our|my|his|her|their)\s+(?:[a-z][\w-]*\s+){{0,2}}?"
    rf"(?:place|flat|apartment|house|home|room|studio|cottage|condo)\s+(?:in|near)\s+)?(?P<place>{_PLACE})"
)
_NOT_A_HOME = re.compile(
    r"^(?:the\s+)?(?:night|day|early|late)\s+shift\b|^(?:a|the)\s+new\s+(?:job|role|team)\b", re.I
)
_WORK_UNIT = re.compile(
    r"\s(?:[Ww]atch|[Tt]eam|[Ww]ard|[Bb]ranch|[Oo]ffice|[Dd]epot|[Ss]tation|[Dd]epartment|[Uu]nit|[Cc]rew|[Ss]quad)$"
)
"""A destination that is a place of work ("moving to Blue Watch at Salford"), not a home."""
_WEEKDAYS = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?$|weekends?$", re.I)
"""A day moved to ("Swimming moved to Mondays") is no home."""
_HOME_AT = (
    r"(?:in|near|outside|just\s+outside|on\s+the\s+(?:edge|outskirts)\s+of|at\s+the\s+(?:top|bottom)\s+of)"
)
_HERE = re.compile(
    rf"(?:^|[.!?,;]\s+)(?:(?:[Ww]e're|[Ww]e\s+are|I'm|I\s+am)\s+(?:now\s+|finally\s+|all\s+|officially\s+)?"
    rf"(?:in|living\s+in|settled\s+in|in\s+(?:a|an|the|our|my)\s+(?:[\w-]+\s+){{0,2}}?{HOME_NOUN}\s+{_HOME_AT})"
    rf"|(?:[Gg]reetings|[Hh]ello|[Hh]i|[Ll]ove)\s+from)\s+(?P<place>{_PLACE})(?:\s+now)?\s*[.!,]"
)
"""Where the speaker says they now are, in a sentence of the turn that has a past move without a
place ("We're in Cottingham! We moved on the 23rd", "Greetings from Foz do Arelho! I moved in on
the 2nd of October")."""
_PLACE_ALONE = re.compile(rf"(?:^|[.!?]\s+)(?P<place>{_PLACE})!")
"""A place exclaimed on its own in a turn that tells of a move done ("Guess where I'm typing from.
Aveiro! ... so we moved at the start of August")."""
_NEW_HOME = re.compile(
    rf"\b(?:[Ww]e|I)(?:\s+have|'ve)?\s+(?:just\s+|finally\s+)?(?:bought\s+(?:a|an|the|our|my)\s+(?:[\w-]+\s+){{0,2}}?"
    rf"{HOME_NOUN}|got\s+the\s+keys|completed\s+on|moved\s+in)\b"
)
"""A home bought or moved into, its place said in another sentence of the turn."""
_HOME_IS = re.compile(
    rf"(?:^|[.!?]\s+|(?<=moved),\s+)(?:(?:It's|It\s+is|[Ii]t's|[Oo]ur\s+new\s+(?:place|house|home)\s+is)\s+)?(?:[Aa]n?\s+)?"
    rf"(?:[\w-]+\s+){{0,3}}?(?:{HOME_NOUN}|rental|acreage|smallholding|croft|homestead)"
    rf"(?:\s+(?:on|with)\s+[\d.]+\s+acres?|\s+with\s+(?:a|an|the)\s+[\w-]+)?\s+{_HOME_AT}\s+(?P<place>{_PLACE})"
    rf"|(?:^|[.!?]\s+)[Tt]he\s+(?:acreage|smallholding|croft|homestead|farm)\s+{_HOME_AT}\s+(?P<place2>{_PLACE})"
    rf"\s+is\s+(?:ours|mine)\b"
)
"""Where a new home is ("It's a two-bed terrace in Horbury"), or a sentence of the home alone ("We
bought a place! A weatherboard house in Donnybrook")."""
_IN_WITH = re.compile(rf"^\s*in\s+with\s+[^,.!?;]+,\s+in\s+(?P<place>{_PLACE})")
"""A move in with someone, then where ("moved in with my boyfriend Jolyon, in Menai Bridge")."""
_ON_A_DAY = re.compile(rf"^\s*on\s+(?:the\s+)?(?:\d|{DAY_NAME}\b)")
"""A move's date ("we moved on the 23rd"), where "moved on" is otherwise moving on from something."""
_UP_TO = re.compile(rf"^\s*up\s+(?:to|into)\s+{_PLACE}")
"""A move up to a place ("moving up to Glasgow"), where "moving up" alone is a promotion."""
_UP_THEN = re.compile(r"^\s*up\s+(?:(?:at|in|on)\s+)?")
"""What may stand between "moved up" and the move's date ("Moved up at the end of June")."""


def _up_on_a_date(rest: str, when: datetime) -> bool:
    """ "moved up at the end of June": a move with its date, where "moved up" alone may be a
    promotion ("moving up in the world" names no date)."""
    up = _UP_THEN.match(rest)
    return up is not None and any(d.span[0] <= up.end() for d in find_date_mentions(rest, when, "past"))


_CONTINUED = re.compile(r"[.!]+\s+(?P<rest>(?:[Oo]ut\s+of|[Ii]nto|[Aa]way\s+from)\b[^.!?;]*)")
"""A verbless sentence right after a move saying where from or where to."""
_NEGATED = re.compile(r"\b(?:not|never|no\s+longer)\b|n't\b", re.I)
_QUESTION = re.compile(r"^(?:are|is|did|do|does|will|have|has|were|was)\b|[^.!]*\?\s*$", re.I)
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|maybe|might|may|could|would|thinking|considering|hoping|want|wants)\b", re.I
)


def _place(m: re.Match[str] | None) -> str | None:
    if m is None:
        return None
    said = m.groupdict().get("place") or m.groupdict().get("place2")
    if not said:
        return None
    place = re.split(r"(?<=[a-z]{2})\.\s", said)[0].rstrip(".")  # "Lolo. Moving": a sentence ends
    words = place.split()
    if (
        words[0].lower() in NOT_NAMES
        or _WEEKDAYS.match(words[0])
        or _NOT_A_HOME.match(place)
        or _WORK_UNIT.search(place)
    ):
        return None
    return place


def moves(turn: Turn, subject_of: Callable[[str], str], previous: str = "") -> list[FactCandidate]:
    """Where the speaker (or a person they name) lives after a move the turn states, and the end
    of the home they leave.

    Args:
        turn: a turn of the user or a person (not the agent).
        subject_of: speaker or name -> the subject it is filed under.
        previous: the turn just before, in the same session: where "there" may point.

    Returns:
        `lives_in` assertions from the move's date, and endings of the place left.
    """
    out: list[FactCandidate] = []
    text = resolve_there(turn.text.replace("\u2019", "'"), previous.replace("\u2019", "'"))
    for m in (*_MOVE.finditer(text), *_BARE_MOVED.finditer(text)):
        rest = m.group("rest")
        scheduled = m.group("verb") in ("move", "relocate") and not m.group("aux")
        if scheduled and not _ON_A_DAY.match(rest):
            continue  # "we move" / "I move" alone is habitual or a question's frame
        # "we move on the 1st of September": a move on a day said in the present is scheduled
        moved_in_with = _IN_WITH.match(rest)
        clause_start = max(text.rfind(c, 0, m.start()) for c in ".!?") + 1
        before = text[clause_start : m.start()]
        if (
            _CONDITIONAL.search(before)
            or _NEGATED.search(text[clause_start : m.start("verb")])
            or before.count('"') % 2
            or (
                rest.lstrip().startswith(("on", "in with", "up"))
                and not (
                    moved_in_with
                    or _ON_A_DAY.match(rest)
                    or _UP_TO.match(rest)
                    or _up_on_a_date(rest, turn.time)
                )
            )
            or _QUESTION.match(text[clause_start:].lstrip())
        ):
            continue  # "if we move", "we're not moving", quoted speech, "are you moving ...?"
        subj = m.groupdict().get("subj") or "I"
        if subj.lower() in ("he", "she"):
            # "Tunde got a job offer in Toronto! He's moving there in October": the person the
            # sentence before is about
            prior = re.findall(r"(?:^|[.!?]\s+)([A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\s+[a-z]", text[:clause_start])
            if not prior or prior[-1].lower() in NOT_NAMES:
                continue
            subj = prior[-1]
        elif subj not in ("I", "we", "We") and subj.lower() in NOT_NAMES:
            continue
        who = subject_of(turn.speaker) if subj in ("I", "we", "We") else subject_of(subj)
        origin = _place(_ORIGIN.search(rest))
        destination = _place(moved_in_with or _DESTINATION.search(rest))
        if destination is None and origin is None:
            # "we moved at the weekend! Out of Rosemount and into a flat in Ferryhill": the
            # places come in the next sentence, without a verb of their own
            more = _CONTINUED.match(text, m.end())
            if more is not None:
                rest = f"{rest} {more.group('rest')}"
                origin = _place(_ORIGIN.search(rest))
                destination = _place(_DESTINATION.search(rest))
        ahead = (
            scheduled
            or m.group("verb").endswith("ing")
            or "will" in (m.groupdict().get("aux") or "")
            or "'ll" in (m.groupdict().get("aux") or "")
        )
        if destination is None and origin is None and not ahead and subj in ("I", "we", "We"):
            # a move done, its place said in another sentence of the turn
            destination = _place(_HERE.search(text) or _PLACE_ALONE.search(text) or _HOME_IS.search(text))
        elif destination is None and origin is None and scheduled and subj in ("I", "we", "We"):
            # "It's a little rental in Alboraya, and we move on the 1st of September"
            destination = _place(_HOME_IS.search(text))
        if destination is None and origin is None:
            continue
        dates = find_date_mentions(rest, turn.time, "future" if ahead else "past")
        when: datetime | None = dates[0].start if dates else None
        surface = text[m.start() : m.end()].strip()
        if destination is not None and destination != origin and (when is not None or not ahead):
            # a move ahead without a date is only a plan (the rules record it as one)
            out.append(
                FactCandidate(
                    subject=who,
                    predicate="lives_in",
                    object=destination,
                    surface=surface,
                    valid_from=when,
                    source_turn_ids=[turn.turn_id],
                    confidence=0.7,
                )
            )
        if origin is not None and re.search(r"\bout\s+of\b|\baway\s+from\b", rest, re.I):
            out.append(
                FactCandidate(
                    subject=who,
                    predicate="lives_in",
                    object=origin,
                    surface=surface,
                    valid_to=when or turn.time,
                    source_turn_ids=[turn.turn_id],
                    confidence=0.7,
                    kind="end",
                )
            )
    home = _HOME_IS.search(text)
    if home is not None and _NEW_HOME.search(text) and not any(f.kind == "assert" for f in out):
        # "We bought a house. Got the keys on Friday. It's a two-bed terrace in Horbury."
        place = _place(home)
        if place is not None:
            out.append(
                FactCandidate(
                    subject=subject_of(turn.speaker),
                    predicate="lives_in",
                    object=place,
                    surface=home.group(0).strip(" .!?"),
                    valid_from=None,
                    source_turn_ids=[turn.turn_id],
                    confidence=0.7,
                )
            )
    return out
