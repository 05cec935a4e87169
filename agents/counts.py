"""How many of something there were at a time, from what was said over time.

A count changes after it is stated: "my three cats" then "Tiza died" is two; "four chickens",
"a fox got two of the chickens", "I bought three more hens, so five birds again". The ledger
holds a set only where extraction filed its members; these pure rules replay the statements
themselves in time order: a total resets the count, a loss or a gain moves it.

A sentence belongs to the counted set when it names what is counted (a focus word of the
question) or one of the set's members (names said with the set's total), or when it follows such
a sentence in the same turn ("A fox got two of the chickens. Only John and Ringo are left.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from emem.agents.assistant import cue_kin
from emem.agents.spans import (
    NUMBER_PATTERN,
    TALLY,
    focus_words,
    number_value,
    people_total,
    sentences,
    stated_quantity,
    stated_tally,
)
from emem.answer import EvidenceItem, Plan
from emem.extract.patterns import KIN_BEFORE_NAME, KIN_NAMED
from emem.index.text import tokenize
from emem.repairs import repaired

_NAME = r"[A-Z][\w'’-]+"
_NAMES = rf"{_NAME}(?:(?:,\s*|,?\s+and\s+){_NAME})*"

LOSS = re.compile(
    r"\b(?:died|passed away|put down|moved out|ran away|gave away|given away|rehomed|sold|lost|"
    r"stole|stolen|donated|traded in|gave\b(?!\s+(?:birth|out|in)\b)|"
    r"went back|moved back|gone back|(?:got|get|were|was|been|being)\s+adopted|"
    r"(?:gone|went|going)\s+(?:off\s+)?to\s+(?:a\s+)?new\s+homes?|found\s+(?:new\s+|their\s+)?homes|"
    r"dropped|quit|left|(?<!\bI\s)(?<!\bwe\s)(?<!['’]ve\s)(?<!have\s)(?<!has\s)(?<!['’]s\s)got|took|killed)\b",
    re.I,
)
"""Words with which a member leaves the set ("Tiza died", "Jake moved out", "all four kittens got
adopted", "dropped the coding class", "a fox got two of the chickens", "somebody stole my bike", "gave my old bike to my niece");
not "I've got four bookings", which is having."""
GAIN = re.compile(
    r"\b(?:(?<!got\s)(?<!get\s)(?<!were\s)(?<!was\s)(?<!been\s)(?<!being\s)adopted|bought|moved in(?:to)?|joined|took in|rescued|added|signed up for|"
    r"(?:got|have|has) (?:a new|another))\b|\bmore\b"
    r"|\b(?:we|I)\s+(?:just\s+|finally\s+|also\s+)?got\s+(?:a|an|one|two|three|four|\d+)\b",
    re.I,
)
"""Words with which members join it ("adopted a rabbit", "three more hens", "moved into", "we got a
kitten": said by the owners, not "a fox got two of the chickens")."""
_HOPED = re.compile(
    r"\b(?:hopefully|I\s+hope|hoping|plan(?:ning)?\s+to|going\s+to|want\s+to|might|maybe|fingers\s+crossed)\b",
    re.I,
)
"""A change hoped for or planned, which has not happened yet."""
_BUYS = re.compile(r"(?:adopted|bought|took in|rescued|added)", re.I)
"""Gains whose members follow the verb ("bought a kitten"); a name before it is the buyer."""
_ONLY_NAMES = re.compile(
    rf"\b(?i:only|just)\s+(?:(?i:me)\s+and\s+)?({_NAMES})(?:\s+(?:are|is))?(?:\s+[a-z]+){{0,3}}?\s+(?i:left|now)\b"
)
_ONLY_NUMBER = re.compile(
    rf"\b(?:only|just)\s+(?:the\s+)?({NUMBER_PATTERN})\s+(?:of\s+(?:them|us)|left)\b|"
    rf"\b({NUMBER_PATTERN})\s+(?:[a-z]+\s+)?left\b(?!\s+(?:the|for|to|on|in|at|home|early|her|him|us|me|them)\b)",
    re.I,
)
_CLAUSES = re.compile(r",\s*|\s+(?:so|but|and then|because)\s+")
_OF_THE = re.compile(rf"\b({NUMBER_PATTERN})\s+of\s+(?:the|them|my|our)\b", re.I)
_MORE = re.compile(rf"\b({NUMBER_PATTERN})\s+more\b", re.I)
_TOTAL_AGAIN = re.compile(
    rf"\b(?:so|that's|so that's|now|(?:down|up|back) to|"
    rf"so\s+(?:we|I|they)(?:['’]ve|\s+have)?\s+(?:got|have))\s+({NUMBER_PATTERN})\b(?!\s+of\b)",
    re.I,
)
_CHANGED_SUBJECT = re.compile(
    rf"\b(?:all\s+)?(?:(?:the|my|our|his|her|their)\s+)?({NUMBER_PATTERN})\s+(?:[\w'’-]+\s+){{1,3}}$", re.I
)
"""A number in the subject of the verb that changes the set, right before it ("all four kittens
got adopted"): how many joined or left, not the total after."""
_DELTA = re.compile(rf"^\s+(?:\w+\s+)?({NUMBER_PATTERN})\b(?!\s+more\b)", re.I)
"""The number right after the verb that changes the set is how many joined or left ("sold one
guitar", "adopted two kittens"), not the new total."""
_NOT_MEMBERS = frozenset(
    "I Me My We Our You The A An And But So Sad Sadly Oh Also Only Just It It's Its They Their She He "
    "Sorry Big Good Some Quick Update Actually Yes No Hi Hey Well I've I'm I'll I'd I’ve I’m "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
    "August September October November December Christmas Easter One Two Three Four Five Six Seven Eight "
    "Nine Ten".split()
)
_LIST_SEP = re.compile(r",\s*|,?\s+and\s+")
"""Between the items of a list ("Nube, Tiza and Pimienta")."""
_NAMED_MEMBER = re.compile(rf"\b(?:named|called)\s+({_NAME})")


def counted_words(question: str, plan: Plan) -> set[str]:
    """The words naming what a count question counts: its focus words, and for a word naming a
    predicate's kind the predicate's other cues ("pets" -> cats, dogs, puppies, ...), since "two
    cats" states how many pets."""
    focus = focus_words(question, set(plan.entities))
    if focus & _WORKFORCE:
        focus |= _WORKFORCE  # "How many people did Kunle employ?" is said as "Fourteen staff"
    return focus | {w for kin in cue_kin(question, plan, focus, states=False).values() for w in kin}


_WORKFORCE = frozenset(tokenize("staff employ employs employed employee employees worker workers"))
"""Words of the people a business employs: a count of one is said in any of them."""


@dataclass(frozen=True)
class CountTrace:
    value: int
    changes: int
    """How many statements after the first moved or reset the count."""


def singular(word: str) -> str:
    """ "classes" -> "class", "cats" -> "cat", "class" -> "class"."""
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def mentions(text: str, focus: set[str]) -> bool:
    """True when the text names one of the focus words, singular or plural."""
    wanted = {singular(f) for f in focus}
    return any(singular(w) in wanted for w in tokenize(text)) or people_total(text, focus) is not None


def member_names(text: str) -> list[str]:
    """Capitalised words that may name members ("Jake", "Nube"), not sentence openers."""
    return [n for n in re.findall(_NAME, text) if n not in _NOT_MEMBERS]


def _number(word: str | None) -> int | None:
    return number_value(word) if word else None


_WE_HAVE = r"(?:(?:I|we)(?:'ve|\s+have)\s+(?:got\s+)?)?"
"""An optional "I've (got)" / "we have" before a total ("So I've seven now")."""
_BARE_TOTAL = re.compile(
    rf"^\W*(?:(?:so|that's|so\s+that's|which\s+makes|making)\s+{_WE_HAVE}"
    rf"({NUMBER_PATTERN})\s*(?:now|again|in\s+total|total|altogether)?|"
    rf"{_WE_HAVE}({NUMBER_PATTERN})\s+(?:now|again|in\s+total|altogether))\W*$",
    re.I,
)
"""A sentence that is only a total ("So eighteen.", "That's five now.", "So I've seven now.",
"Eight now.")."""
_AT_TOTAL = re.compile(
    rf"(?:^\W*|,\s*|\bso\s+)(?:so\s+)?(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:now\s+)?(?:at|up\s+to|down\s+to)\s+"
    rf"({NUMBER_PATTERN})\b(?!\s*(?:%|am\b|pm\b|:|o['’]clock|(?!now\b|again\b)[a-z]))",
    re.I,
)
"""A running total said as where the speaker is ("I'm at seven now", "so we're up to nine"),
with no noun after the number: in a turn about the set, its size."""
_COUNTER = re.compile(
    rf"\b(?P<noun>[a-z]+)\s+(?:log|count|tally|total|counter)\s*(?:is|was|'s|stands|stood|stayed|sits)?\s*"
    rf"(?:now\s+|still\s+)?(?:at|on)?\s*({NUMBER_PATTERN})\b(?!\s*(?:%|am\b|pm\b|:))",
    re.I,
)
"""A running tally said by its noun ("Dive log is at 212", "the hive count is 15 now")."""
_GROUPED = re.compile(
    r"girls|boys|kids|children|people|members|players|students|pupils|adults|clients|regulars", re.I
)
"""Nouns a total of people may be said in ("Nine girls") whatever the set is called."""
_APPOSED_TOTAL = re.compile(
    rf"^\W*({NUMBER_PATTERN})(?:\s+of\s+them|\s+(?P<noun>[a-z]+))?"
    r"(?:\s+(?:at\s+the\s+moment|right\s+now|now|currently|these\s+days|so\s+far|in\s+total))?(?:\s*[,.!;]|\s*$)",
    re.I,
)
"""A verbless total right after the set is named ("I coach my niece's netball team. Nine girls, all
under eleven.", "My regular clients are A, B and C. Three, and that's enough."): the number opens
the sentence, alone or with its noun."""
_INTRODUCED = re.compile(r"^([A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\s+(?:is|was)\s+(?:the|a|an|our|my)\b")
"""A member introduced by name after its set's total ("Brisket is the ginger one")."""


def said_order(e: EvidenceItem) -> tuple[datetime, tuple[tuple[int, str], ...]]:
    """When a turn was said, then its place in the session by its id read as numbers where it has
    them: turns of one session share its time, and "S1:10" comes after "S1:9"."""
    parts = re.findall(r"\d+|\D+", e.turn_id)
    return e.time, tuple((int(p), "") if p.isdigit() else (-1, p) for p in parts)


_KIN_NAMED = re.compile(KIN_NAMED)
"""Someone the speaker names by a relation ("my sister Gesine"): a person with sets of their own."""
_THEIR_TALLY = re.compile(
    rf"^\W*(?:{KIN_BEFORE_NAME})?(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)"
    r"(?:,[^,]{1,40},)?(?:['’]s\s+(?:at|up\s+to|down\s+to|got|on)\b|\s+(?:is|was)\s+(?:at|up\s+to|down\s+to|on)\b"
    r"|\s+(?:has|had|keeps|runs)\b)"
)
"""A sentence giving somebody else's tally ("Gesine's at 15 hives", "My sister Gesine, the one in
Ontario, is up to 12 hives"): about their set, not the speaker's."""


def count_over_time(
    evidence: Sequence[EvidenceItem],
    focus: set[str],
    until: datetime | None = None,
    *,
    start_on_gain: bool = True,
) -> CountTrace | None:
    """Replay the statements about the counted set in time order.

    Args:
        evidence: turns that may speak of the set (any order); those said after `until` are not read.
        focus: the question's content words naming what is counted ("cats", "roommates").
        until: the end of the period asked about (None: now, or the question's as-of time, by
            which the evidence is already cut).
        start_on_gain: whether a set first spoken of by a gain ("we adopted a greyhound") starts
            at what was gained; not for a count of events, which counts the turns saying them.

    Returns:
        The count and how many statements changed it, or None when no statement gave a total.
    """
    turns = sorted({(e.conversation_id, e.turn_id): e for e in evidence}.values(), key=said_order)
    kin_named = {m.group("kin_name") for e in turns for m in _KIN_NAMED.finditer(e.text)}
    count: int | None = None
    changes = 0
    members: set[str] = set()
    for e in turns:
        if until is not None and e.time > until:
            continue
        linked = False
        told = sentences(repaired(e.text))  # "23 of them. No, 24": the count as meant
        for i, sentence in enumerate(told):
            named = [n for n in member_names(sentence) if n in members]
            listing = count is not None and not members and name_list(sentence)
            if not (linked or mentions(sentence, focus) or named or listing):
                continue
            if (other := _THEIR_TALLY.match(sentence)) and other.group("name") in kin_named - members:
                linked = False
                continue  # "Gesine's at 15 hives": her hives, not the speaker's
            if TALLY.match(sentence):
                n = stated_tally(" ".join(told[i : i + 2]), focus)
                if n is not None:
                    if count is not None and n != count:
                        changes += 1
                    count, linked = n, True
                    continue
            if (
                (counter := _COUNTER.search(sentence)) is not None
                and mentions(counter.group("noun"), focus)
                and (n := _number(counter.group(2))) is not None
            ):
                # "Dive log is at 212": the tally said by its noun is the count
                if count is not None and n != count:
                    changes += 1
                count, linked = n, True
                continue
            if (
                (linked or mentions(sentence, focus) or (i > 0 and mentions(told[i - 1], focus)))
                and (at := _AT_TOTAL.search(sentence))
                and (n := _number(at.group(1))) is not None
            ):
                # "Two hives destroyed. I'm at seven now": where the tally stands
                if count is not None and n != count:
                    changes += 1
                count, linked = n, True
                continue
            if (
                linked
                and (bare := _BARE_TOTAL.match(sentence))
                and (n := _number(bare.group(1) or bare.group(2))) is not None
            ):
                # "Twenty-two kids signed up, then four quit. So eighteen.": a total said alone
                # right after the set's change is its size
                if count is not None and n != count:
                    changes += 1
                count = n
                continue
            if (
                linked
                and count is None
                and (apposed := _APPOSED_TOTAL.match(sentence))
                # "service the station there. Ten days.": a number of something else
                and (
                    not apposed.group("noun")
                    or mentions(apposed.group("noun"), focus)
                    or _GROUPED.fullmatch(apposed.group("noun"))
                )
                and (n := _number(apposed.group(1))) is not None
            ):
                count = n
                continue
            linked = True
            step = _read_sentence(sentence, focus, count, members, start_on_gain)
            if step is None:
                continue
            new, kept = step
            if count is not None and new != count:
                changes += 1
            count, members = new, kept
            if not members and stated_quantity(sentence, focus) == count:
                # "two cats. Brisket is the ginger one ... Nettle is the little tabby": the members,
                # each introduced by name in the sentences that follow the total
                introduced = [
                    m.group(1)
                    for rest in told[i + 1 :]
                    for part in re.split(r",\s+(?=[A-Z])|;\s+", rest)
                    if (m := _INTRODUCED.match(part))
                ]
                if len(introduced) == count:
                    members = set(introduced)
    return CountTrace(count, changes) if count is not None else None


def _read_sentence(
    sentence: str, focus: set[str], count: int | None, members: set[str], start_on_gain: bool = True
) -> tuple[int, set[str]] | None:
    """(count, members) after one sentence about the set, or None when it says nothing of its size."""
    if m := _ONLY_NAMES.search(sentence):
        left = [n for n in _LIST_SEP.split(m.group(1)) if n and n not in _NOT_MEMBERS]
        if left:
            return len(left), set(left)
    if m := _ONLY_NUMBER.search(sentence):
        n = _number(m.group(1) or m.group(2))
        if n is not None:
            return n, members
    stated = stated_quantity(sentence, focus)
    gained = GAIN.search(sentence)
    if (
        gained
        and gained.group(0).lower() == "more"
        and not _MORE.search(sentence)
        and not mentions(sentence, focus)
    ):
        gained = None  # "Time for more bibs.": more of something else, not a member joining
    lost = LOSS.search(sentence) if not gained else None
    change = gained or lost
    if change is not None and _HOPED.search(sentence):
        change = gained = lost = None  # "Two more before Christmas, hopefully": not yet a change
    if (
        gained is not None
        and not mentions(sentence, focus)
        and _BUYS.fullmatch(gained.group(0))
        and not [n for n in member_names(sentence[gained.end() :]) if n not in members]
    ):
        return None  # "Sizwe already bought a surfboard": the buyer is named, nothing joined
    if count is not None and change is not None:
        total = _TOTAL_AGAIN.search(sentence[change.end() :])
        if total and (n := _number(total.group(1))) is not None:
            return n, members  # "bought three more hens, so five birds again"
        by = (_MORE.search(sentence) if gained else _OF_THE.search(sentence)) or _DELTA.match(
            sentence[change.end() :]
        )
        k = _number(by.group(1)) if by else None
        subject = _CHANGED_SUBJECT.search(sentence[: change.start()])
        if k is None and subject is not None and mentions(subject.group(0), focus):
            # "All four kittens got adopted", "Two hens died": the number is who changed
            k = _number(subject.group(1))
        elif k is None and stated is not None:
            return stated, members  # "..., so I've got three roommates now"
        if gained:
            # "a puppy named Bolt": the name given is the member; else the new names said.
            named = [m.group(1) for m in _NAMED_MEMBER.finditer(sentence)]
            joined = [n for n in named or member_names(sentence) if n not in members]
            return count + (k or len(joined) or 1), members | set(joined)
        # Who left is named in the clause saying so ("Jake moved out, so it's me and Sol").
        clause = next((c for c in _CLAUSES.split(sentence) if LOSS.search(c)), sentence)
        gone = [n for n in member_names(clause) if n in members]
        return max(count - (k or len(gone) or 1), 0), members - set(gone)
    if (
        start_on_gain
        and count is None
        and gained is not None
        and stated is None
        and mentions(sentence, focus)
    ):
        # The first word of the set is a gain ("We adopted a greyhound last month"): one member,
        # or the number gained ("adopted two kittens").
        by = _DELTA.match(sentence[gained.end() :])
        named = [m.group(1) for m in _NAMED_MEMBER.finditer(sentence)]
        return (_number(by.group(1)) if by else None) or max(len(named), 1), set(named)
    if stated is None and count is None and (listed := _listed_members(sentence, focus)):
        return len(listed), set(listed)  # "our cats Gherkin and Yarrow"
    if stated is not None:
        named = [m.group(1) for m in _NAMED_MEMBER.finditer(sentence)]
        if count is None and len(named) > stated:
            return len(named), set(named)  # "a dog named Juniper and a rabbit named Clove"
        names = member_names(sentence)
        if len(names) == stated:
            return stated, set(names)
        joined = [n for n in names if n not in members]
        if count is not None and stated == count + len(joined):
            return stated, members | set(joined)  # "a third kid now, Mateo"
        return stated, members
    if count is not None and not members:
        listed = member_names(sentence)
        if len(listed) == count and re.fullmatch(rf"\s*{_NAMES}\W*", sentence):
            return count, set(listed)  # "Nube, Tiza and Pimienta." after "my three cats"
    return None


_OWNED_LIST = re.compile(
    rf"\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?P<noun>[a-z]+)\s*,?\s+(?P<names>{_NAMES})"
)


_HEADED_LIST = re.compile(
    r"^\W*(?P<noun>[A-Za-z]+)(?:\s+(?:now|these\s+days|at\s+the\s+moment))?\s*:\s+(?P<items>.+)$"
)
"""A list under its noun: "Markets now: Shoreham on Saturdays, Steyning on Sundays and Arundel ..."."""


def _listed_members(sentence: str, focus: set[str]) -> list[str]:
    """The members a sentence lists after the counted noun, without a number ("our cats Gherkin
    and Yarrow" -> Gherkin, Yarrow; "Markets now: Shoreham on Saturdays, Steyning on Sundays and
    Arundel on Thursdays" -> Shoreham, Steyning, Arundel); [] when it lists none."""
    for m in _OWNED_LIST.finditer(sentence):
        if m.group("noun").endswith("s") and mentions(m.group("noun"), focus):
            names = [n for n in _LIST_SEP.split(m.group("names")) if n not in _NOT_MEMBERS]
            if len(names) >= 2:
                return names
    headed = _HEADED_LIST.match(sentence)
    if headed and headed.group("noun").lower().endswith("s") and mentions(headed.group("noun"), focus):
        items = [i.strip() for i in _LIST_SEP.split(headed.group("items").rstrip(".!"))]
        heads = [i.split()[0] for i in items if i and i[0].isupper()]
        if len(heads) >= 2 and len(heads) == len(items):
            return heads
    return []


def name_list(text: str) -> bool:
    """True for a turn that starts with a bare list of names ("Nube, Tiza and Pimienta.")."""
    first = sentences(text)[0]
    return bool(re.fullmatch(rf"\s*{_NAMES}\W*", first)) and len(member_names(first)) >= 2
