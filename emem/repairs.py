"""Self-repairs inside one turn, read as their result (pure rules).

People put a value right in the next breath: "starts 2 October. sorry, 3 October", "it's 07700
900417. wait, no, 900471", "Isla's allergic to penicillin. no sorry, that's Angus". Read as
written, the first value is the one a rule finds first. A repair has three parts whatever the
topic: what was said (the reparandum), a cue ("sorry", "wait, no", "I mean"), and the value that
replaces it. The value after the cue replaces the last value of the same shape before it (a
date a date, a weekday a weekday, a sum a sum, a number group a number group, a name a name), or
the one it names with "not X". Nothing here knows a predicate or a topic.

The reader reads the repaired text; the evidence an answer cites stays verbatim.
"""

from __future__ import annotations

import functools
import re

from emem.numbers import CARDINALS, ORDINALS, TEENS, TENS_PATTERN, UNITS_PATTERN
from emem.timeparse import MONTH_NAME, WEEKDAY

_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?"
"""A title said with a name ("Dr. Fitzgibbon - no, hang on, Dr. FitzGerald"), part of the name."""
_NAME = r"[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:\s+of\s+(?:the\s+)?[A-Z][a-z]+)?"
"""A name, with what it is of ("the Annals of Glaciology")."""
_SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bMx)(?<!\bProf)[.!?;](?:\s+|$)")
"""Where a sentence ends; not at a title's full stop ("Mrs. Rao")."""
_WORDS = rf"{TENS_PATTERN}(?:-{UNITS_PATTERN})?"
"""Numbers written in words that a repair may give ("seventy-five a tuning. No, eighty"); one to
nineteen are left out, as "no, one of them" is no repair."""
_CUE = re.compile(
    r"(?:(?<=^)|(?<=[.!?;,]\s)|(?<=[.!?;,])|(?<=\s[-–—]\s))\s*"
    r"(?:(?:oh|ah|ha|hm+|um+|er+|no|hang\s+on|hold\s+on|wait)[,!.]?\s+)*"
    r"(?:sorry|no,?\s+(?:hang|hold)\s+on|no\s+wait|wait,?\s+no|no,?\s+sorry|I\s+mean|I\s+meant|make\s+that|correction|scratch\s+that|"
    rf"what\s+am\s+I\s+saying|or\s+rather|(?P<bare>wait|hold\s+on|hang\s+on)|(?P<parallel>well)|"
    rf"no(?=,?\s+(?:the\s+)?(?:\d|[£$€]|(?:{_WORDS})\b))|"
    r"no(?=,\s+[A-Z][a-z]+\s*(?:[.!;]|$)))\b[,:!.-]*\s*"
    r"(?:(?:no|what\s+am\s+I\s+saying|I\s+(?:checked|looked|mean)|I\s+got\s+that\s+wrong|my\s+bad)[,:!.]?\s+)*",
    re.IGNORECASE,
)
"""A repair cue at the start of a sentence or clause, with the fillers that may follow it
("Sorry, what am I saying, 10 August", "wait, no, I checked, it's £1,200"), or a bare "no" right
before the value ("the 2nd of May, no, the 12th", "in Nashville. No, Asheville."); not "sorry to
hear" inside a clause. A bare
"wait" (or "hold on") repairs only a value that stands alone ("Tuesdays. Wait, Wednesdays.",
"Hold on, it's the 17th."), not a clause it opens ("Wait, Paul said ..."). "Well" repairs only
a value said after the same preposition as the one it replaces ("to the 10th. Well, to the
11th")."""

_SMALL = "|".join(sorted(CARDINALS, key=len, reverse=True))
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "measure",
        re.compile(rf"\b(?:{_SMALL}|\d+)-(?!{UNITS_PATTERN}\b)[a-z]+\b", re.IGNORECASE),
    ),
    (
        "date",
        re.compile(
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_NAME}\b|\b{MONTH_NAME}\s+\d{{1,2}}(?:st|nd|rd|th)?\b",
            re.IGNORECASE,
        ),
    ),
    ("money", re.compile(r"[£$€]\s?\d[\d,.]*(?:\s?k\b)?|\b\d[\d,.]*\s?(?:euros?|pounds|dollars)\b", re.I)),
    ("weekday", WEEKDAY),
    ("ordinal", re.compile(r"\b(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b", re.IGNORECASE)),
    ("time", re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE)),
    ("number", re.compile(rf"(?<![\w.,£$€:])(?:\d+(?:[.,]\d+)?|{_WORDS})(?![\w:-])", re.IGNORECASE)),
    ("name", re.compile(rf"\b{_TITLE}{_NAME}(?:['’]s)?\b")),
)
"""Value shapes, most specific first: a span is read as the first shape it matches. A measure is
a number joined to its noun ("a two-bedroom bungalow. Sorry, three-bedroom")."""

_SAID_WORDS = "|".join(sorted([*CARDINALS, *TEENS], key=len, reverse=True))
_SAID_NUMBER = re.compile(rf"(?<![\w-])(?:{_SAID_WORDS})(?![\w-])", re.IGNORECASE)
"""Numbers under twenty in words: what a repair may put right ("eighteen pianos a week. Sorry,
twenty"), though never what it gives ("no, one of them" is no repair)."""
_ORDINAL = re.compile(rf"(?<![\w-])(?:{'|'.join(ORDINALS)})(?![\w-])", re.IGNORECASE)
"""Ordinals in words ("every third weekend"), which a repair may put right ("Fourth, actually")."""
_VALUE_FIRST = re.compile(
    rf"(?:(?<=^)|(?<=[.!?]\s))(?P<value>\d[\d,.]*|(?:{_SAID_WORDS}|{_WORDS})|"
    rf"{WEEKDAY.pattern}|{_ORDINAL.pattern})"
    r"(?P<cue>,\s*(?:sorry|I\s+mean|I\s+meant|actually|to\s+be\s+honest|if\s+I'?m\s+(?:being\s+)?honest|"
    r"truth\s+be\s+told|realistically)\b[,.]?\s*)",
    re.IGNORECASE,
)
"""A repair said value first ("nine in care. Eleven, sorry, two came in", "built in 1998. 1989,
I mean", "on Wednesdays. Tuesdays, sorry.", "forty hours. Fifty, if I'm honest", "every third
weekend. Fourth, actually"): a sentence that opens with the value and then the cue."""

_NOT_NAMES = frozenset(
    "I Sorry Wait No Oh Ah Hang Hold Make Correction Scratch What Well So And But The A An It It's "
    "That That's This Yes Okay Ok Thanks Also Then My Our His Her Their He She They We You".split()
)
_BARE_NAME = re.compile(
    rf"^(?:(?:it's|that's|it\s+was|that\s+was|I\s+mean)\s+)?(?:the\s+)?{_TITLE}{_NAME}(?:['’]s)?\s*(?:[,.;!?]|$)"
)
"""A name put right stands alone in its clause ("no sorry, that's Angus, ...")."""
_NOT = re.compile(r",?\s*not\s+(?P<old>[^,.;!?]+?)\s*(?=[,.;!?]|$)", re.IGNORECASE)


@functools.lru_cache(maxsize=8192)
def repaired(text: str) -> str:
    """The turn with each value put right in the same breath replaced by its repair, and the cues
    dropped; the text unchanged when it repairs nothing.

    Args:
        text: a turn's text.

    Returns:
        The text as the speaker meant it.
    """
    out = _value_first(_OR_IS_IT.sub(r"Sorry, \g<value>.", text))
    for _ in range(3):  # a turn rarely repairs more than twice
        step = _repair_once(out)
        if step is None:
            break
        out = step
    return out


def _values(text: str, said: bool = False) -> list[tuple[str, int, int]]:
    """(shape, start, end) of each value in the text, left to right, not overlapping; `said`:
    of what a repair may put right, which includes numbers under twenty in words."""
    taken: list[tuple[str, int, int]] = []
    # A number under twenty opening a sentence ("Twelve kids.") is a number, not a name.
    shapes = (*_SHAPES[:-1], ("number", _SAID_NUMBER), _SHAPES[-1]) if said else _SHAPES
    for shape, pattern in shapes:
        for m in pattern.finditer(text):
            if shape == "name" and m.group(0).rstrip("'’s") in _NOT_NAMES:
                continue
            if any(m.start() < e and s < m.end() for _, s, e in taken):
                continue
            taken.append((shape, m.start(), m.end()))
    return sorted(taken, key=lambda v: v[1])


def _repair_once(text: str) -> str | None:
    for cue in _CUE.finditer(text):
        before, after = text[: cue.start()], text[cue.end() :]
        dashed = re.search(r"\s[-–—]\s*$", before)
        if dashed:
            before = before[: dashed.start()]  # "lost 6 - no, 8": the dash goes with its cue
        if not before.strip():
            continue  # "Sorry, I forgot: ...": nothing said before it to put right
        sentence_end = _SENTENCE_END.search(after)
        region = after[: sentence_end.start()] if sentence_end else after
        repairs = _values(region)
        if re.search(r"[.!]\s*$", cue.group(0)):
            # "Wait, no. One of the splits failed. Ten.": the cue is a sentence of its own
            later = _said_next(text[: cue.start()], after, sentences=2)
            if later is not None:
                return later + text[cue.start() :]
        if sentence_end is not None and _MISTAKE.search(region):
            # "Hang on, that was the old one, it changed in May. It's 2791 now.": the clause may
            # name other values, but none of the repair's shape it did not say before
            later = _said_next(text[: cue.start()], after[sentence_end.end() :], region=region)
            if later is not None:
                return later + text[cue.start() :]
        if not repairs or len(region[: repairs[0][1]].split()) > 4:
            continue  # the cue is followed by no value close to it: not a repair of a value
        if re.match(r"\s+(?:is|was|are|were)\b", region[repairs[0][2] :]):
            continue  # "No, the 1st, sorry, the 8th is my mum's birthday": a new statement of the 8th
        if cue.group("bare") and not (
            _LIST_ONLY.fullmatch(region, repairs[0][1]) or _stands_alone(region, repairs[0])
        ):
            continue  # "Wait, Paul said ...": a new clause, not a value put right
        if cue.group("parallel") and not _parallel(before, region, repairs[0]):
            continue  # "Well, we had fun": not a value put right
        listed = _list_repair(before, region, repairs)
        if listed is not None:
            return listed + after[len(region) :]
        said = _values(before, said=True)
        # "Thursday, not Friday": the repair names what it replaces.
        named = _NOT.search(region, repairs[0][2])
        rewritten = before
        replaced = False
        clause_end = re.search(r"[,;]", region[repairs[0][2] :])
        first_clause = repairs[0][2] + clause_end.start() if clause_end else len(region)
        used: list[str] = []
        for shape, s, e in repairs[:1] if named else _first_of_each_shape(repairs):
            if s >= first_clause or any(_compatible(u, shape) for u in used):
                continue  # "15 December, the 12th is the oral practice": only the first clause repairs
            used.append(shape)
            value = region[s:e]
            if re.search(rf"\b{re.escape(value)}\b", before[_previous_sentence_start(before) :]):
                continue  # "Sorry, 19 Harbour Street": the street is said again, not put right
            if shape == "name" and not _BARE_NAME.match(region):
                continue  # "Sorry, Paul wants to know ...": a new clause, not a name put right
            target = _target(said, shape, rewritten, named.group("old") if named else None)
            if target is None:
                continue
            ts, te = target
            old = rewritten[ts:te]
            new = _fit(old, value, shape)
            if new == old:
                continue
            rewritten = rewritten[:ts] + new + rewritten[te:]
            replaced = True
            said = _values(rewritten, said=True)
        if not replaced:
            continue
        rest = region[named.end() :] if named else region
        if named:
            rest = region[: named.start()] + rest
        # what is left of the repair once its value is in place ("900471, the last two are the
        # other way round" -> "the last two are the other way round")
        lead = re.match(r"^(?:(?:it's|that's|it\s+is|it\s+was)\s+)?(?:the\s+)?", rest)
        if lead is not None and rest[lead.end() :].startswith(region[repairs[0][1] : repairs[0][2]]):
            rest = rest[lead.end() + repairs[0][2] - repairs[0][1] :].lstrip(" ,;.")
        tail = after[len(region) :]
        if rest.strip():
            rest = rest.strip()
            if re.search(r"[.!?]\s*$", rewritten):
                rest = rest[:1].upper() + rest[1:]  # a sentence of its own now
            joint = "," if dashed and not re.search(r"[.!?;,]\s*$", rewritten) else ""
            return f"{rewritten.rstrip()}{joint} {rest}{tail}".strip()
        if re.search(r"[.!?;]\s*$", rewritten):
            tail = re.sub(r"^[.!?;]", "", tail)  # the cue's sentence is gone: one full stop, not two
        return f"{rewritten.rstrip()}{tail}".strip()
    return None


_OR_IS_IT = re.compile(r"\b[Oo]r\s+is\s+it\s+(?P<value>[^?.!,;]{1,40})\?\s+(?P=value)\s*[.!]", re.IGNORECASE)
"""A value doubted and then said again ("on Tuesdays. Or is it Wednesdays? Wednesdays."): read
as a repair ("Sorry, Wednesdays."). A doubt left open repairs nothing."""
_LEAD_IN = re.compile(
    r"(?:(?:it|that|she|he)['’]s|(?:it|that|she|he)\s+(?:is|was)|they['’]re|they\s+are)\s+", re.IGNORECASE
)
"""How a repair's value may be introduced ("Hold on, it's the 17th", "She's Jinthe")."""
_MISTAKE = re.compile(
    r"\b(?:old|wrong|muddl\w*|mix(?:ed|ing)?\s+\w+\s+up|mixed\s+up|confus\w*|silly|thinking\s+of|"
    r"changed|mistake|misremember\w*|typo|dropped)\b",
    re.IGNORECASE,
)
"""A clause that says the value before it was a mistake ("that was the old one", "I'm muddling
it"): the value that puts it right may come in the next sentence."""
_PREPOSITIONS = r"(?:to|on|at|in|from|until|till|by|for|since)"


def _stands_alone(region: str, value: tuple[str, int, int]) -> bool:
    """The repair's clause is its value, introduced at most by "it's" ("Hold on, it's the 17th")."""
    _, s, e = value
    head = region[:s]
    head = re.sub(r"(?:^|\s)the\s+$", " ", head, flags=re.IGNORECASE)
    return (not head.strip() or _LEAD_IN.fullmatch(head) is not None) and not region[e:].strip(" ,")


def _parallel(before: str, region: str, value: tuple[str, int, int]) -> bool:
    """A value said again after the preposition of the one it replaces ("the 1st to the 10th of
    July. Well, to the 11th of July")."""
    prep = re.match(rf"{_PREPOSITIONS}\s+(?:the\s+)?", region, re.IGNORECASE)
    if prep is None or prep.end() != value[1]:
        return False
    word = prep.group(0).split()[0].lower()
    opening = before[_previous_sentence_start(before) :]
    return any(
        re.search(rf"\b{word}\s+(?:the\s+)?$", opening[:s], re.IGNORECASE)
        for sh, s, _ in _values(opening)
        if _compatible(sh, value[0])
    )


def _said_next(before: str, later: str, sentences: int = 1, region: str = "") -> str | None:
    """`before` with its last value put right by a value said alone in one of the next
    `sentences` sentences, when the repair's own sentence only says there was a mistake
    ("Stockroom code is 2718. Hang on, that was the old one. It's 2791 now.", "eleven. Wait,
    no. One of the splits failed. Ten."); None when none is such a value."""
    found = None
    for _ in range(sentences):
        end = _SENTENCE_END.search(later)
        sentence = later[: end.start()] if end else later
        found = _value_alone(sentence)
        if found is not None or end is None:
            break
        later = later[end.end() :]
    if found is None:
        return None
    shape, value = found
    opening = before[_previous_sentence_start(before) :]
    if any(_compatible(sh, shape) and region[s:e] not in opening for sh, s, e in _values(region)):
        return None  # the cue's own clause gives a new value of the shape: not deferred
    if re.search(rf"\b{re.escape(value)}\b", opening):
        return None  # said again, not put right
    target = _target(_values(before, said=True), shape, before, None)
    if target is None:
        return None
    ts, te = target
    new = _fit(before[ts:te], value, shape)
    if before[ts:te][:1].islower() and shape == "number":
        new = new[:1].lower() + new[1:]  # "Ten." opened its sentence, not the one it joins
    return None if new == before[ts:te] else before[:ts] + new + before[te:]


def _value_alone(sentence: str) -> tuple[str, str] | None:
    """(shape, value) of a sentence that is one value, introduced at most by "it's" and followed
    at most by "now" ("It's 2791 now", "She's Jinthe", "Ten")."""
    lead = _LEAD_IN.match(sentence)
    start = lead.end() if lead else 0
    values = [v for v in _values(sentence, said=True) if v[1] >= start]
    if not values:
        return None
    shape, s, e = values[0]
    if sentence[start:s].strip() not in ("", "the") or sentence[e:].strip(" ,") not in (
        "",
        "now",
        "instead",
        "actually",
    ):
        return None
    if shape == "name" and lead is None:
        return None  # "Paul." alone may be anything; "It's Paul" puts a name right
    return shape, sentence[s:e]


def _value_first(text: str) -> str:
    """The turn with each repair said value first put in place of the value it repairs: the
    last one of its shape in the sentence before ("We've got nine in care. Eleven, sorry, two
    came in" -> "We've got Eleven in care. two came in"); the text unchanged otherwise."""
    for m in reversed(list(_VALUE_FIRST.finditer(text))):
        before = text[: m.start()]
        start = _previous_sentence_start(before)
        if start == 0 and not re.search(r"[.!?]\s*$", before):
            continue
        value = m.group("value")
        if _ORDINAL.fullmatch(value):
            olds = [(o.start(), o.end()) for o in _ORDINAL.finditer(before) if o.start() >= start]
        else:
            shape = "weekday" if WEEKDAY.fullmatch(value) else "number"
            olds = [(s, e) for sh, s, e in _values(before, said=True) if sh == shape and s >= start]
        if not olds:
            continue
        s, e = olds[-1]
        old, new = before[s:e], m.group("value")
        old_digits, new_digits = re.sub(r"\D", "", old), re.sub(r"\D", "", new)
        if old_digits and new_digits and len(old_digits) != len(new_digits):
            continue  # "in 1998. 12, sorry": not the same kind of number
        if old[:1].islower():
            new = new[:1].lower() + new[1:]  # "Eleven" opened its sentence, not the one it joins
        rest = text[m.end() :]
        text = f"{before[:s]}{new}{before[e:]}{rest[:1].upper()}{rest[1:]}"
    return text


_LIST_ONLY = re.compile(
    r"(?:\w+|[£$€]?\d[\d,.:]*)(?:(?:,\s*|\s+and\s+|\s+or\s+)(?:\w+|[£$€]?\d[\d,.:]*))*\s*"
)
"""A repair that is nothing but its value (or a list of values): "Wednesdays", "Tuesday and Friday"."""
_JOIN = re.compile(r"^(?:,\s*|\s+and\s+|\s+or\s+|,\s+and\s+)$")


def _list_repair(before: str, region: str, repairs: list[tuple[str, int, int]]) -> str | None:
    """A list put right by a list ("Tuesday and Thursday, sorry, Tuesday and Friday"): the new list
    replaces the whole old one, which is the values of the same shape said last, joined the same
    way and as many; None when the repair is not such a list."""
    run = [repairs[0]]
    for v in repairs[1:]:
        if v[0] != run[0][0] or not _JOIN.match(region[run[-1][2] : v[1]]):
            break
        run.append(v)
    if len(run) < 2:
        return None
    start = _previous_sentence_start(before)
    said = [v for v in _values(before) if v[0] == run[0][0] and v[1] >= start]
    old = said[-len(run) :]
    if len(old) != len(run) or any(
        not _JOIN.match(before[a[2] : b[1]]) for a, b in zip(old, old[1:], strict=False)
    ):
        return None
    tail = before[old[-1][2] :]
    if tail.strip(" ,;.!?"):
        return None  # something was said between the old list and the cue
    new = region[run[0][1] : run[-1][2]]
    rest = region[run[-1][2] :].strip(" ,;")
    return f"{before[: old[0][1]]}{new}{tail.rstrip(' ,;')}{(' ' + rest) if rest else ''}"


def _first_of_each_shape(values: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    seen: set[str] = set()
    out = []
    for v in values:
        if v[0] not in seen:
            seen.add(v[0])
            out.append(v)
    return out


def _target(
    said: list[tuple[str, int, int]], shape: str, before: str, old: str | None
) -> tuple[int, int] | None:
    """Where the value being replaced is: the one "not X" names, else the last of its shape said
    in the sentence before the cue (or in the same sentence)."""
    if old is not None:
        m = list(re.finditer(rf"\b{re.escape(old.strip())}\b", before, re.IGNORECASE))
        return (m[-1].start(), m[-1].end()) if m else None
    start = _previous_sentence_start(before)
    same = [(s, e) for sh, s, e in said if _compatible(sh, shape) and s >= start]
    return same[-1] if same else None


def _compatible(said: str, repair: str) -> bool:
    return said == repair or {said, repair} <= {"date", "ordinal"}


def _previous_sentence_start(before: str) -> int:
    """Where the sentence before the cue starts (a repair corrects what was just said)."""
    ends = [m.end() for m in _SENTENCE_END.finditer(before.rstrip()) if m.end() < len(before.rstrip())]
    return ends[-1] if ends else 0


def _fit(old: str, new: str, shape: str) -> str:
    """The repaired value: the new one, fitted to what it replaces. A number group is a value of
    its own ("07700 900417" ... "900471" swaps the last group only)."""
    if shape == "ordinal" and re.search(r"\d", old) and not re.fullmatch(r"(?:the\s+)?\d+\w*", old):
        # "the 17th of June. Sorry, the 24th": the day changes, the month stays.
        return re.sub(r"\d{1,2}(?:st|nd|rd|th)?", re.sub(r"^the\s+", "", new), old, count=1)
    if shape == "name":
        # "Isla's allergic": keep the possessive or contraction the old name carried.
        suffix = re.search(r"['’]s$", old)
        bare = re.sub(r"['’]s$", "", new)
        return bare + (suffix.group(0) if suffix else "")
    return new
