"""The offline extraction rules: a table of (predicate, pattern, post-processor) entries.

Patterns are written in the template language of `emem.extract.patterns`. A post-processor is a
pure function from the match (and the sentence's date mentions) to the cleaned objects it denotes;
an empty list means "no fact here" — that is how a rule declines a match it cannot read cleanly.

Precision matters more than recall: an object that is a pronoun, addresses the listener, runs past
six words or is not a place where a place is needed is dropped rather than stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

from emem.extract.dates import DateMention
from emem.extract.entities import NOT_NAMES, SENTENCE_ADVERBS
from emem.extract.forget_grammar import (
    asks_nothing_of_memory,
    find_request,
    fragment_topic,
    fronted_in,
    pointed_things,
    things_in,
)
from emem.extract.patterns import (
    CAT_WORDS,
    DOG_WORDS,
    HOME_NOUN,
    INSTRUMENTS,
    JOBS,
    PETS,
    VEHICLE_NOUN,
    compile_template,
    gerund,
    template_keywords,
)
from emem.extract.sentences import split_sentences
from emem.ledger.withhold import SAID_PREFIX
from emem.numbers import compound_value

FAVOURITE = "favourite_*"
"""Predicate of the favourites rules: the category the match names completes it ("favourite_food")."""
ANY_PREDICATE = "*"
"""Retraction of whichever earlier fact the words point at ("scratch that", "I was wrong about X")."""
MEDIUM = "reading|watching"
"""Predicate of rules that start or end a work without saying whether it is read or watched
("Picked up Station Eleven", "Done with Severance"): the engine decides from the work's history,
the words around it, or a work ended in the same breath."""
SWITCH = "*switch"
"""Predicate of "switched from X to Y": the predicate that held X (from what was said) takes Y."""
SWAP = "*swap"
"""Predicate of "swapped X for Y": as `SWITCH`, but Y replaces the whole value that held X ("the
Panda" of "Fiat Panda" traded for a Skoda Octavia is no Fiat)."""
CORRECT = "*correct"
"""Predicate of "it's X, not Y": the predicate that held Y (from what was said) is corrected to X."""
PREVIOUS = "\x00previous"
AHEAD = "\x00ahead"
"""Object of a retraction that withdraws values planned to start after the turn ("we're staying")."""
"""Object of a retraction that refers to what the speaker just said, not to a named value."""


@dataclass(frozen=True)
class Ctx:
    """What a post-processor may look at besides its match."""

    sentence: str
    dates: tuple[DateMention, ...] = ()
    """Date mentions of the sentence (spans relative to it)."""
    context: str = ""
    """The turn and its neighbours (any speaker): cues a sentence leaves implicit ("Two great
    novels" after "Picked up Station Eleven" says a book is meant)."""
    antecedent: str | None = None
    """The one person the turn's previous sentence names: whom "him"/"her" in this one means."""
    previous: str = ""
    """The sentence said just before this one (in the turn, else the speaker's previous turn):
    what "forget that" refers to."""
    earlier: tuple[str, ...] = ()
    """Sentences of the turn before `previous` that it carries on ("Denzil has been diagnosed
    with ... He hasn't told anyone yet. Pretend I never mentioned that."): part of what "that" means."""
    meant: str = ""
    """The last statement before this sentence that is not an interjection ("Eish, no.") or a
    regret ("I wish I hadn't said that."), in the turn, else the speaker's previous turn."""
    named_before: str | None = None
    """`antecedent`, else (for a turn's first sentence) the one person the speaker's previous turn
    names, its last sentence first: whom a request's "him" means ("my ex, Reinhold, lives ..." /
    "Scrap him from your memory")."""
    requested: bool = False
    """An earlier sentence of the turn already asked to forget something: a later one that only
    points ("I'd rather it wasn't stored") says it again, it names nothing new."""


Post = Callable[[re.Match[str], Ctx], list[str]]


@dataclass(frozen=True)
class Rule:
    predicate: str
    template: str
    """The rule's template (`emem.extract.patterns` macros); compiled on first use, see `pattern`."""
    post: Post
    kind: Literal["assert", "retract"] = "assert"
    dated: bool = False
    """valid_from is taken from a date mention in the sentence."""
    needs_date: bool = False
    """Only fires when the sentence has a usable date mention."""
    future: bool = False
    """About the future: dates resolve forward and are appended to the object."""
    negated: bool = False
    """The pattern itself carries a negation, so the negation filter does not apply."""
    fallback: bool = False
    """Fires only where no specific rule matched overlapping text."""
    cessation: Literal["any", "required", "stopped", "forbidden"] = "forbidden"
    """Whether "anymore"/"no longer"/"never" must (or must not) be present in the clause;
    "stopped" requires "anymore"/"no longer" ("I never had a X" denies, it withdraws nothing)."""
    starts: bool = False
    """Starts at a date that may lie ahead ("moving to Seattle next month", "starting in July"):
    dates resolve forward and valid_from is the date's start; the object stays as it is."""
    confidence: float = 0.8
    last_resort: bool = False
    """Reads a sentence only when no other rule of its predicate filed anything from it (the
    forget-request grammar: it catches what the phrase-by-phrase rules miss, and must not widen
    what they read)."""
    keywords: frozenset[str] | None = None
    """Lowercase words of which one must occur in the sentence for the pattern to match."""

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled template. Compiled on first use, not at import: the table's ~950 regular
        expressions took 1-2.5 s to compile, paid by every process that imported the read path
        (the planner borrows one helper from here) even when it never consolidates. The offline
        extractor compiles the whole table when it is made (emem.extract.offline)."""
        return compile_template(self.template)


# --- object cleaning (pure) ----------------------------------------------------------------------

PRONOUN_START = frozenset(
    """it its it's that that's this them those these him her you your yours me myself us everything
    something anything nothing what how when why where who which whatever whenever one ones so too
    such all both lots doing being having getting going here there any more most other others each
    every everyone someone anyone stuff their theirs his they they're we we're he he's she she's i i'm
    i've we've there's not no never and or but""".split()
)
_PRONOUN_END = frozenset(
    "it them him her this that these those one what where who how why when which".split()
)
PREPOSITIONS = frozenset("for with at in on by from about of into onto over under through around to".split())
_CLAUSE_BREAK = re.compile(
    r"\s*(?:\s-+\s|—|–|\(|:|\s+(?:because|'cause|cause|cuz|since|so|but|when|whenever|while|which|"
    r"who|whom|whose|where|after|before|until|till|though|although|even\s+though|if|unless|as\s+soon\s+as|"
    r"as\s+well\s+as|as|than|now\s+that|plus|lol|haha|hehe|except|like\s+(?:I|we|you)|in\s+order\s+to|"
    r"so\s+that|that\s+(?=I\b|we\b|you\b|he\b|she\b|it\b|they\b|my\b|our\b)|(?=(?:I|we|you|he|she|they)(?:'\w+)?\s)|"
    r"and\s+(?=(?:moved|went|started|got|took|came|left|sold|bought)\b)|"
    r"and\s+(?=I\b|we\b|you\b|he\b|she\b|it\b|they\b|that\b|then\b|it's\b|I'm\b|I've\b|we're\b|now\b|also\b|"
    r"so\b|my\s+\w+\s+(?:is|was|are|were|has)\b|the\s+\w+\s+(?:is|was|are|were)\b))\b|,)",
    re.IGNORECASE,
)
_DURATION = re.compile(
    r"\s+(?:(?:for|over)\s+(?:about\s+|almost\s+|over\s+|nearly\s+|around\s+|the\s+(?:past|last)\s+)?"
    r"(?:(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several|many|"
    r"some)\s+)?(?:years?|months?|weeks?|days?|hours?|while|long\s+time|ages|decades?)|"
    r"for\s+the\s+(?:first|second|last)\s+time|over\s+the\s+weekend)\b.*$",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    r"(?:\s+(?:too|as\s+well|a\s+lot|so\s+much|very\s+much|lately|recently|now|again|anymore|any\s+more|"
    r"any\s+longer|right\s+now|these\s+days|nowadays|though|haha|lol|today|tonight|at\s+the\s+moment|"
    r"here|there|already|yet|sometimes|often|every\s+day|everyday|all\s+the\s+time|more\s+and\s+more|"
    r"finally|actually|honestly|together|in\s+general|tbh|ever\s+since|and\s+all|and\s+stuff|(?:real|really|so)\s+hard|"
    r"hard|a\s+ton|like\s+crazy|and|or|but|so|then|"
    r"and\s+everything|or\s+something|or\s+so|at\s+all|more|with\s+(?:you|u))|[\s.,!?;:'\"*)~-]+)+$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
_LIST_ITEM = r"[^,]{1,40}?"
_LIST = re.compile(rf"^({_LIST_ITEM}(?:,\s*{_LIST_ITEM}){{1,}}),?\s+(?:and|or|&)\s+({_LIST_ITEM})$")


def _cut_dates(text: str, start: int, ctx: Ctx) -> str:
    """Cut the object where a date mention begins ("visit Japan next month" -> "visit Japan")."""
    end = start + len(text)
    for d in ctx.dates:
        if start < d.span[0] < end:
            text = text[: d.span[0] - start]
            end = d.span[0]
        elif d.span[0] <= start < d.span[1]:
            return ""
    return text


def _trim(text: str) -> str:
    prev = None
    while prev != text:
        prev = text
        text = _TRAILING.sub("", " " + text.strip())
        text = _DURATION.sub("", text)
        if text.count('"') % 2:
            text = text.replace('"', "")
    return text.strip().strip('"') if text.startswith('"') and text.endswith('"') else text.strip()


def _acceptable(obj: str, max_words: int) -> bool:
    words = obj.split()
    if not words or len(words) > max_words:
        return False
    first = words[0].lower().strip("'\"")
    if first in PRONOUN_START or first in PREPOSITIONS or words[-1].lower().strip(".,!?'\"") in _PRONOUN_END:
        return False
    lowered = {w.lower().strip(".,!?'\"") for w in words}
    return not lowered & {"you", "your", "yours", "u", "ya", "yourself", "y'all"}


def clean_np(
    text: str,
    start: int,
    ctx: Ctx,
    *,
    max_words: int = 6,
    strip_article: bool = False,
    split_lists: bool = True,
) -> list[str]:
    """Short, clean object(s) from a greedy noun-phrase capture starting at `start` in the sentence."""
    text = _cut_dates(text, start, ctx)
    m = _CLAUSE_BREAK.search(text)
    head = text if m is None else text[: m.start()]
    if m is not None and re.match(r"\s*(?:you|your|u)\b", text[m.start() :], re.IGNORECASE):
        return []  # "the way you ...": about the listener
    if split_lists and m is not None and m.group(0).strip() == ",":
        # "hiking, biking and swimming": a list of three or more short items splits into facts.
        stop = re.search(r"[.;:!?]|\s+(?:because|but|since|so|when|which)\b", text)
        whole = _trim(text if stop is None else text[: stop.start()])
        lm = _LIST.match(whole)
        if lm:
            items = [i.strip() for i in lm.group(1).split(",")] + [lm.group(2).strip()]
            items = [_trim(_ARTICLE.sub("", i) if strip_article else i) for i in items]
            if all(_acceptable(i, 4) for i in items):
                return items
    obj = _trim(head)
    if strip_article:
        obj = _ARTICLE.sub("", obj)
    return [obj] if _acceptable(obj, max_words) else []


def _group(m: re.Match[str], name: str = "obj") -> tuple[str, int]:
    return m.group(name) or "", m.start(name)


def np(max_words: int = 6, strip_article: bool = False, split_lists: bool = True, group: str = "obj") -> Post:
    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        text, start = _group(m, group)
        return clean_np(
            text, start, ctx, max_words=max_words, strip_article=strip_article, split_lists=split_lists
        )

    return post


# Capitalised words that start no place name.
NOT_PLACES = frozenset(
    """i i'm the a an my our your his her their this that it monday tuesday wednesday thursday friday
    saturday sunday january february march april may june july august september october november december
    christmas easter thanksgiving halloween god mom mum dad grandma grandpa lol omg haha yes no ok
    everyone someone and but so because also then apt unit flat suite mondays tuesdays wednesdays
    thursdays fridays saturdays sundays weekends""".split()
)
# Lowercase words that may follow a place name without making it a modifier ("Paris concert").
_AFTER_PLACE_OK = frozenset(
    """in on at for with and to last this next yesterday today tonight tomorrow a an the since because
    when while after before until so but or with as by from of during about over around again too
    recently lately now earlier ago back together alone once twice early late where which who that
    is was are were has have had it i we my our anymore any no not yet right these nowadays btw tbh permanently full instead
    anyway anyways though already still actually apparently finally honestly lol haha properly""".split()
)
_DEICTIC = frozenset({"there", "here", "that", "it", "that place", "them", "this", "those"})


def _place_text(raw: str) -> str:
    raw = re.sub(r"(?:'s|')$", "", raw.strip())
    return raw.rstrip(".,!?;:")


def street_in_place(m: re.Match[str], ctx: Ctx) -> list[str]:
    """The street and the place a home is on and in ("on Otley Street in Skipton" -> "Otley
    Street, Skipton"): the address a "Which street do I live on?" asks for."""
    places = place(m, ctx)
    return [f"{m.group('street')}, {places[0]}"] if places else []


def place(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A capitalised place name, not a modifier of a following noun ("the Taylor Swift concert")."""
    raw, start = _group(m)
    if not _cut_dates(raw, start, ctx):
        return []
    raw = _cut_dates(raw, start, ctx)
    obj = _place_text(raw)
    words = obj.split()
    if not words or len(words) > 5:
        return []
    first = words[1] if words[0].lower() == "the" and len(words) > 1 else words[0]
    if first.lower().strip("'") in NOT_PLACES or not first[:1].isupper():
        return []
    end = start + len(raw)
    nxt = re.match(r"\s+([a-z]+)\b", ctx.sentence[end:])
    dated = nxt is not None and any(d.span[0] == end + nxt.start(1) for d in ctx.dates)
    if nxt and nxt.group(1) not in _AFTER_PLACE_OK and not dated:
        return []
    return [obj]


_ORG_REJECT = frozenset(
    {
        "home",
        "night",
        "work",
        "school",
        "myself",
        "yourself",
        "nights",
        "weekends",
        "the moment",
        "the weekend",
        "a time",
        "a bit",
        "a while",
        "a loss",
        "it",
        "the same time",
        "the end",
    }
)


_CALLED = re.compile(
    r"^(?:a|an|the|this)\s+(?:[\w'-]+\s+){0,4}?(?:called|named)\s+(?P<name>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})"
)


def org(m: re.Match[str], ctx: Ctx) -> list[str]:
    """An employer: a capitalised name ("Google", "St. Mary's Hospital") or "a local bakery"."""
    text, start = _group(m)
    text = re.split(r"\s+(?:as|in\s+(?=[a-z]))\s+", text, maxsplit=1)[0]
    called = _CALLED.match(text)
    if called:  # "a Berlin startup called Tessellate": the name, not the description
        text, start = called.group("name"), start + called.start("name")
    # "Nairn Motors in Aberdeen": the place is where, not who; a name goes on with capitals, so
    # "Copperline Bank and gets home late" ends at "and" + a lower-case word (a verb, a new clause)
    if re.match(r"(?:the\s+)?[A-Z]", text):  # "the Court of King's Bench in Saskatoon" too
        text = re.split(r"\s+(?:(?:in|near|outside|downtown)\s+(?=[A-Z])|and\s+(?=[a-z]))", text, maxsplit=1)[
            0
        ]
    out = clean_np(text, start, Ctx(ctx.sentence, ctx.dates), max_words=6, split_lists=False)
    if not out:
        return []
    obj = out[0]
    low = obj.lower()
    if low in _ORG_REJECT or low.split()[0] in _ORG_REJECT or low.startswith(("a time", "the end")):
        return []
    if not (obj[:1].isupper() or re.match(r"(?:a|an|the|this)\s", low)):
        return []
    return [obj]


def org_cap(m: re.Match[str], ctx: Ctx) -> list[str]:
    """An employer by its capitalised name only ("Globex", "the Pecatonica Valley Cooperative"; not
    "the bottom" of "starting at the bottom")."""
    return [o for o in org(m, ctx) if re.match(r"(?:the\s+)?[A-Z]", o)]


_NAME_GLUE = frozenset("of and & de la le du des the for on upon van von der den".split())


def employer_of_job(m: re.Match[str], ctx: Ctx) -> list[str]:
    """The employer in "I took the Ostler job": not a place ("I took the Melbourne job! Moved to
    Melbourne last week") nor a unit's initials ("I got the ICU job")."""
    return [
        o
        for o in org_cap(m, ctx)
        if not re.fullmatch(r"[A-Z]{2,5}", o)
        and not re.search(rf"\b(?:in|to|from|near|around)\s+{re.escape(o)}\b", ctx.context)
    ]


def org_name(m: re.Match[str], ctx: Ctx) -> list[str]:
    """An employer's capitalised name, cut at the first lower-case word that does not join a name
    ("Crumbworks three nights a week" -> "Crumbworks"; "Crumb & Co", "Bank of Ireland" stay)."""
    out = []
    for o in org(m, ctx):
        o = re.sub(r"^the\s+(?=[A-Z])", "", o)  # "the Ropewalk Playhouse"
        if not o[:1].isupper():
            continue
        words = o.split()
        keep = [words[0]]
        for w in words[1:]:
            if w[:1].islower() and w.lower() not in _NAME_GLUE:
                break
            keep.append(w)
        while keep and keep[-1].lower() in _NAME_GLUE:
            keep.pop()
        if keep:
            out.append(" ".join(keep))
    return out


_RANK = re.compile(
    r"\b(?P<rank>chief|head|senior|lead|principal|deputy|assistant|junior|acting|trainee|sous)\s+$",
    re.IGNORECASE,
)
"""A rank said before a post ("chief electrician", "acting shift manager"): part of the title."""


def job(m: re.Match[str], ctx: Ctx) -> list[str]:
    text, start = _group(m)
    obj = _ARTICLE.sub("", _trim(text)).strip()
    obj = re.sub(r"^new\s+(?=\S)", "", obj)  # "the new head chef": "new" is no part of a title
    rank = _RANK.search(m.string[: m.start("obj")])
    if rank is not None and not obj.lower().startswith(rank.group("rank").lower()):
        obj = f"{rank.group('rank')} {obj}"  # "I'm chief electrician at Halyard": the rank too
    # lower case, but an acronym stays as written ("UX designer", "IT manager")
    obj = " ".join(w if re.fullmatch(r"[A-Z]{2,4}", w) else w.lower() for w in obj.split())
    return [obj] if obj and len(obj.split()) <= 5 else []


def job_from(group: str) -> Post:
    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        obj = _ARTICLE.sub("", _trim(m.group(group) or "")).strip().lower()
        return [obj] if obj and len(obj.split()) <= 5 and obj.split()[0] not in PRONOUN_START else []

    return post


def org_from(group: str) -> Post:
    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        text = m.group(group) or ""
        out = clean_np(text, m.start(group), ctx, max_words=6, split_lists=False)
        if not out or out[0].lower() in _ORG_REJECT:
            return []
        return out if out[0][:1].isupper() or re.match(r"(?:a|an|the)\s", out[0].lower()) else []

    return post


_OWN_FIRM = (
    r"(?:company|business|firm|practice|studio|shop|clinic|salon|agency|consultancy|workshop|bakery|"
    r"restaurant|caf[eé]|label|brewery|garage|nursery|school|creamery|dairy|distillery|winery|pottery|"
    r"atelier|gallery|kitchen|roastery|bookshop|bookstore)"
)
"""What one sets up on one's own ("my own practice", "his own company")."""
_OWN_FIRM_SAID = re.compile(rf"\b(?:my|our|his|her|their)\s+own\s+(?:[a-z-]+\s+){{0,2}}{_OWN_FIRM}\b", re.I)
_LEFT_WORK = re.compile(r"\b(?:left|quit|resigned\s+from|handed\s+in\s+my\s+notice\s+at)\s+[A-Z]")


def own_firm_named_before(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "I'm running my own studio. I'm calling it Second Gather Studio.": the name given to the
    business the sentence before set up is where its owner works."""
    return org_name(m, ctx) if _OWN_FIRM_SAID.search(ctx.previous) else []


def employer_after_leaving(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "I've left Strandside. I'm with Savannah Dental Outreach now.": being "with" a firm, said
    next to leaving a job, is working there; a firm's name (three words, or one ending as firms'
    names do) is told from a person's ("I left Tom. I'm with Jamie Fraser now.")."""
    if not _LEFT_WORK.search(f"{ctx.previous} {ctx.sentence[: m.start()]}"):
        return []
    return [o for o in org_name(m, ctx) if len(o.split()) >= 3 or _FIRM_HEAD.search(o)]


def job_phrase(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A job title said freely ("as a graphic designer for a small agency" -> "graphic designer")."""
    text, start = _group(m)
    text = re.split(r"\s+(?:at|for|with|in|on|from)\s+", text, maxsplit=1)[0]
    return clean_np(text, start, ctx, max_words=4, strip_article=True, split_lists=False)


def teacher(m: re.Match[str], ctx: Ctx) -> list[str]:
    """What "teaches woodwork at Prospect High" makes its subject: a "woodwork teacher"."""
    subject = " ".join(m.group("obj").lower().split())
    return [f"{subject} teacher"] if subject and subject not in _NOT_SUBJECTS else []


_NOT_SUBJECTS = frozenset(
    {"there", "here", "part-time", "full-time", "now", "again", "still", "also", "kids", "children"}
)


def const(value: str) -> Post:
    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        return [value]

    return post


def age(m: re.Match[str], ctx: Ctx) -> list[str]:
    text = (m.group("obj") or "").lower().strip()
    value = int(text) if text.isdigit() else compound_value(text) or 0
    return [str(value)] if 5 <= value <= 110 else []


_PET_RE = re.compile(r"(" + "|".join(sorted(PETS, key=len, reverse=True)) + r")(?:s|es)?\b")
_NUMBERS = ("a", "an", "one", "two", "three", "four", "five", "another", "some")
_MORE_PETS_RE = re.compile(
    r"^\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+)(?:also\s+)?(?:a|an|one|another)\s+"
    r"(?P<species>(?:[a-z]+\s+){0,2}?(?:" + "|".join(sorted(PETS, key=len, reverse=True)) + r"))\b\s*,?\s+"
    r"(?:(?:named|called)\s+)?(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b"
)
"""A further pet in the same breath ("a dog named Juniper and a rabbit named Clove")."""
_MORE_COUNTED_RE = re.compile(
    r"^\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+)(?P<count>two|three|four|five|[2-5])\s+"
    r"(?P<species>(?:[a-z]+\s+){0,2}?(?:" + "|".join(sorted(PETS, key=len, reverse=True)) + r")(?:s|es)?)\b"
)
"""Further pets counted and named in the same breath ("... and two guinea pigs, Bean and Toast")."""


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


_PET_NAME_WORD = r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b"
_NAME_LIST = re.compile(
    rf"^(?:\s+(?!and\b)[\w'-]+){{0,4}}?\s*[,:(-]\s*(?:(?:named|called)\s+)?(?P<names>{_PET_NAME_WORD}"
    rf"(?:\s*,\s*{_PET_NAME_WORD})*,?\s+(?:and|&)\s+{_PET_NAME_WORD})"
)
"""Names listed after a count ("two cats, Pixel and Mango"; "two kittens last Sunday, Fig and Olive")."""
_NUMBER_VALUE = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}


def _singular(species: str) -> str:
    """ "cats" -> "cat", "goldfish" -> "goldfish", "foster kittens" -> "foster kitten"."""
    m = _PET_RE.search(species)
    if m is None:
        return species
    return species[: m.start()] + m.group(1)


singular_species = _singular
"""Public name for the extraction engine ("cats" -> "cat")."""


def _names_after(text: str, n: int) -> list[str]:
    """The `n` names a count is followed by, else none."""
    lm = _NAME_LIST.match(text)
    if not lm:
        return []
    names = re.findall(_PET_NAME_WORD, lm.group("names"))
    if len(names) != n or any(x.lower() in NOT_PLACES or x.lower() in PRONOUN_START for x in names):
        return []
    return names


def pet(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "a dog named Max" / "two cats" from the species, count and name groups of the match; a
    count followed by names ("two cats, Pixel and Mango") and further pets said in the same breath
    ("... and a rabbit named Clove") give one object per named animal."""
    species_text = (m.group("species") or "").lower()
    species_text = re.sub(
        r"^(?:new|little|sweet|adorable|cute|cutest|rescue|old|baby|first|second|third|other)\s+",
        "",
        species_text,
    )
    name = m.groupdict().get("name2") or m.groupdict().get("petname")
    count = (m.groupdict().get("count") or "").lower()
    rest = ctx.sentence[m.end() :] if ctx.sentence else ""
    if count in _NUMBER_VALUE and not name:
        sp = _singular(species_text)
        names = _names_after(rest, _NUMBER_VALUE[count])
        if names:
            return [f"{_article(sp)} {sp} named {x}" for x in names]
    if count and count not in ("a", "an", "another", "one", "this", "the") and not name:
        return [f"{count} {species_text}", *_unnamed_more(rest)]
    if name and m.group(0) and ctx.sentence:
        more = []
        while True:
            mm = _MORE_PETS_RE.match(rest)
            if not mm or mm.group("name").lower() in NOT_PLACES | PRONOUN_START:
                break
            sp2 = re.sub(
                r"^(?:new|little|sweet|adorable|cute|rescue|old|baby)\s+", "", mm.group("species").lower()
            )
            more.append(f"{_article(sp2)} {sp2} named {mm.group('name')}")
            rest = rest[mm.end() :]
        cm = _MORE_COUNTED_RE.match(rest)
        if cm and cm.group("count").lower() in _NUMBER_VALUE:
            names = _names_after(rest[cm.end() :], _NUMBER_VALUE[cm.group("count").lower()])
            sp2 = _singular(cm.group("species").lower())
            more += [f"{_article(sp2)} {sp2} named {x}" for x in names]
        if more:
            head = pet_one(species_text, name)
            return head + more
    if not name and count in ("", "a", "an", "another", "one"):
        name = appositive_name(rest)
    return pet_one(species_text, name)


_APPOSITIVE_NAME = re.compile(
    rf"^(?P<between>[^.!?;]{{0,60}}?)\b(?:named|called)\s+(?P<name>{_PET_NAME_WORD})"
)
"""One animal renamed later in the same clause: "a second cat on Saturday, a grey rescue called
Mochi", "another cat from the shelter, a black one called Soot"."""


def appositive_name(rest: str) -> str | None:
    """The name an unnamed animal is given further on in its sentence, when nothing between the two
    could be the one named instead (another animal, a person, a further clause with its own subject).

    Args:
        rest: the sentence after the animal's mention.

    Returns:
        The name, or None.
    """
    m = _APPOSITIVE_NAME.match(rest)
    if m is None:
        return None
    between = m.group("between")
    if _PET_RE.search(between.lower()) and not re.search(r",\s*(?:an?|the)\s+(?:[a-z-]+\s+){0,3}$", between):
        return None  # "a cat and a dog called Rex": Rex may be the dog
    if re.search(r"\b(?:I|we|he|she|they|my|his|her|their|our|and|for|to|with)\b", between):
        return None  # another subject or person in between: the name may be theirs
    name = m.group("name")
    return None if name.lower() in NOT_PLACES or name.lower() in PRONOUN_START else name


_MORE_UNNAMED_RE = re.compile(
    r"^\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+)(?P<count>a|an|one|two|three|four|five|[2-5])\s+"
    r"(?P<species>(?:[a-z]+\s+){0,2}?(?:"
    + "|".join(sorted(PETS, key=len, reverse=True))
    + r")(?:s|es)?)\b(?!\s*,?\s+(?:named|called))"
)


def _unnamed_more(rest: str) -> list[str]:
    """Further pets said without names after a count ("2 dogs and a cat")."""
    out = []
    while (mm := _MORE_UNNAMED_RE.match(rest)) is not None:
        count, sp = mm.group("count").lower(), mm.group("species").lower()
        out.append(f"{_article(sp)} {sp}" if count in ("a", "an", "one") else f"{count} {sp}")
        rest = rest[mm.end() :]
    return out


_BREED_SPECIES = {
    **{w: "dog" for w in DOG_WORDS if w not in ("puppy", "pup")},
    **{w: "cat" for w in CAT_WORDS if w not in ("kitten", "kitty")},
    **dict.fromkeys(["parakeet", "cockatoo", "cockatiel", "budgie", "canary"], "bird"),
}
"""Breeds said in place of the species: the object keeps both ("a greyhound dog named Rocket"), so a
question about the user's dog finds it."""


def _with_species(sp: str) -> str:
    for breed, species in _BREED_SPECIES.items():
        if sp == breed or sp.endswith(" " + breed.strip()):
            return f"{sp} {species}"
    return sp


def pet_one(sp: str, name: str | None) -> list[str]:
    """One pet's object: "a cat named Luna", "a rabbit", or a plural kept as said ("my dogs")."""
    sp = _with_species(sp)
    if name:
        if name.lower() in NOT_PLACES or name.lower() in PRONOUN_START:
            return []
        return [f"{_article(sp)} {sp} named {name}"]
    whole = _PET_RE.fullmatch(sp)
    if whole and sp != whole.group(1):  # plural: "my dogs"
        return [sp]
    return [f"{_article(sp)} {sp}"]


def child(m: re.Match[str], ctx: Ctx) -> list[str]:
    rel = re.sub(r"\s+", " ", (m.group("kin") or "").lower())
    name = m.groupdict().get("name2")
    count = (m.groupdict().get("count") or "").lower()
    if name:
        if name.lower() in NOT_PLACES:
            return []
        return [f"{_article(rel)} {rel} named {name}"]
    if count and count not in ("a", "an", "one"):
        return [f"{count} {rel}"]
    if rel in ("kids", "children", "sons", "daughters"):
        return [rel]
    return [f"{_article(rel)} {rel}"]


def child_sex(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "a boy named Theo" -> "a son named Theo"; "a girl" -> "a daughter"."""
    kin = {"boy": "son", "girl": "daughter"}.get(m.group("kin").lower(), m.group("kin").lower())
    name = m.groupdict().get("name2")
    if name and name.lower() not in NOT_PLACES:
        return [f"a {kin} named {name}"]
    return [f"a {kin}"]


def const_kids(m: re.Match[str], ctx: Ctx) -> list[str]:
    return [f"{m.group('count').lower()} kids"]


def person(group: str = "obj") -> Post:
    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        name = (m.group(group) or "").strip()
        return [name] if name and name.lower() not in NOT_PLACES and name.lower() not in PRONOUN_START else []

    return post


_NON_ACTIVITY = frozenset(
    """think say know believe imagine hear see keep point remind tell ask admit mention say be have
    make sure hang talk chat""".split()
)


def liked(m: re.Match[str], ctx: Ctx) -> list[str]:
    """Likes/dislikes objects; "to paint" reads as "painting"."""
    text, start = _group(m)
    return liked_text(text, start, ctx)


def liked_text(text: str, start: int, ctx: Ctx) -> list[str]:
    inf = re.match(r"to\s+([a-z]+)\b", text)
    if inf:
        if inf.group(1) in _NON_ACTIVITY:
            return []
        rest = text[inf.end() :]
        cut = (
            clean_np(f"x{rest}", start + inf.end() - 1, ctx, max_words=6, split_lists=False)
            if rest.strip()
            else ["x"]
        )
        return [f"{gerund(inf.group(1))}{cut[0][1:]}"] if cut else []
    objs = clean_np(text, start, ctx, max_words=6)
    bad_start = (
        "hearing",
        "seeing",
        "knowing",
        "talking",
        "chatting",
        "getting",
        "having",
        "being",
        "reading about",
        "our chat",
        "our talk",
        "our conversation",
    )
    return [o for o in objs if not o.lower().startswith(bad_start)]


HOBBIES = (
    frozenset(
        """painting drawing sketching knitting crocheting sewing quilting baking cooking gardening hiking
    running jogging swimming cycling biking climbing bouldering surfing skiing snowboarding skating
    skateboarding dancing singing reading writing journaling blogging fishing camping kayaking
    canoeing sailing rowing boxing weightlifting lifting meditating sculpting woodworking carving gaming
    birdwatching volunteering traveling travelling golfing bowling composing drumming acting collecting
    scrapbooking embroidering crafting stargazing coding photographing pottery yoga pilates photography
    chess ceramics guitar piano violin cello drums ukulele bass flute saxophone tennis golf soccer
    basketball volleyball badminton football baseball hockey karate judo taekwondo jiu-jitsu archery
    fencing calligraphy origami meditation crossfit parkour rugby cricket squash softball lacrosse
    poetry hunting horseback riding sculpture skiing snorkeling scuba diving diving triathlons
    marathons kickboxing spinning zumba salsa ballet tap hip-hop rock-climbing running""".split()
    )
    | INSTRUMENTS
)
_HOBBY_VERB = re.compile(r"^(?:playing|learning|practicing|practising|doing|taking)\s+(?:the\s+)?(.+)$", re.I)


def hobby(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A pastime: an activity from the hobby lexicon, optionally after play/learn/practise/do."""
    text, start = _group(m)
    # "the talking drum in a small band called ...": the pastime ends where a place or group begins
    text = re.split(r"\s+(?:in|with)\s+(?:a|an|the|my|our)\s+", text, maxsplit=1)[0]
    out = []
    for obj in clean_np(text, start, ctx, max_words=4, strip_article=True):
        low = obj.lower()
        verb = _HOBBY_VERB.match(low)
        core = (verb.group(1) if verb else low).split()
        if not core:
            continue
        # "the talking drum", "an electric guitar": a kind of an instrument in the lexicon
        kind_of = (
            len(core) > 1 and (core[1] in HOBBIES or f"{core[1]}s" in HOBBIES) and core[0] not in HOBBIES
        )
        if core[0] in HOBBIES or " ".join(core[:2]) in HOBBIES or kind_of:
            head = " ".join(core[:2]) if " ".join(core[:2]) in HOBBIES or kind_of else core[0]
            if len(core) > 1 and core[1] in ("classes", "class", "lessons", "lesson"):
                head = core[0]
            out.append(
                head
                if verb is None or verb.group(0).startswith(("doing", "taking"))
                else f"{verb.group(0).split()[0]} {head}"
            )
    return out


def free_hobby(m: re.Match[str], ctx: Ctx) -> list[str]:
    """Objects of "my hobby is X": any short noun phrase; a bare verb becomes its gerund."""
    text, start = _group(m)
    objs = clean_np(text, start, ctx, max_words=4, strip_article=True)
    return [
        gerund(o) if re.fullmatch(r"[a-z]+", o) and o not in HOBBIES and not o.endswith("ing") else o
        for o in objs
    ]


EVENTS = frozenset(
    """concert conference festival wedding party workshop class classes seminar meetup parade game show
    exhibit exhibition talk lecture ceremony graduation funeral retreat camp convention fair rally
    protest service group play musical opera ballet recital performance tournament match race marathon
    gala fundraiser reunion symposium summit hackathon webinar premiere screening session meeting
    meetings course courses event events gig gigs shower celebration carnival expo competition contest
    convention tour recital open-mic night sessions club game games""".split()
)


def event(m: re.Match[str], ctx: Ctx) -> list[str]:
    """An event someone attended: the noun phrase must be headed by an event noun."""
    text, start = _group(m)
    text = (
        re.split(r"\s+(?:with|in|at|on)\s+", text, maxsplit=1)[0]
        if re.search(r"\b(?:" + "|".join(EVENTS) + r")\b", text.split(" with ")[0])
        else text
    )
    out = []
    for obj in clean_np(text, start, ctx, max_words=7, split_lists=False):
        words = [w.lower().strip("'s") for w in obj.split()]
        if words and any(w in EVENTS for w in words[-3:]):
            out.append(obj)
    return out


_GROUP_NOUNS = frozenset(
    """club team group band choir league society association church gym union community committee board
    organization organisation org crew chapter circle orchestra troupe guild council collective network
    fraternity sorority congregation squad ensemble lodge""".split()
)


def studied(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A subject of study, without the institution ("psychology at NYU" -> "psychology")."""
    text, start = _group(m)
    text = re.split(
        r"\s+(?:at|in|from)\s+(?=[A-Z])|\s+(?:at|in)\s+(?:the\s+)?(?:uni|university|college|school)\b",
        text,
        maxsplit=1,
    )[0]
    return clean_np(text, start, ctx, max_words=5, strip_article=True, split_lists=False)


def group_np(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A group someone belongs to: headed by a group noun ("a book club", "the local choir")."""
    text, start = _group(m)
    text = re.split(r"\s+as\s+", text, maxsplit=1)[0]
    out = []
    for obj in clean_np(text, start, ctx, max_words=6, split_lists=False):
        words = [w.lower() for w in obj.split()]
        if words and any(w.rstrip("s") in _GROUP_NOUNS or w in _GROUP_NOUNS for w in words):
            out.append(obj)
    return out


_GO_VERBS = {
    "heading": "go",
    "flying": "go",
    "traveling": "go",
    "travelling": "go",
    "driving": "go",
    "going": "go",
    "moving": "move",
    "relocating": "move",
    "move": "move",
    "moves": "move",
    "relocate": "move",
    "relocates": "move",
    "off": "go",
}


def plan(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A plan as a verb phrase: "visit Japan"; a bare destination reads as "go to Paris"."""
    text, start = _group(m)
    objs = clean_np(text, start, ctx, max_words=7, split_lists=False)
    if not objs:
        return []
    obj = objs[0]
    if obj.split()[0].lower() in _NON_ACTIVITY:
        return []
    verb = (m.groupdict().get("motion") or "").lower()
    if verb:
        return [f"{_GO_VERBS.get(verb, 'go')} to {obj}"]
    if obj[:1].isupper() or re.match(r"(?:the|a|an|my|our)\s", obj):
        return [f"go to {obj}"]
    return [obj]


def trip(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A trip's destination as a plan: "a weekend in Paris" -> "go to Paris"."""
    return [f"go to {p}" for p in place(m, ctx) if not any(w.lower().endswith("ing") for w in p.split())]


_TRIP = (
    r"(?:(?:long\s+|city\s+|girls'?\s+|boys'?\s+|family\s+|camping\s+|climbing\s+|hiking\s+|ski\s+|road\s+|day\s+)?"
    r"(?:trip|holiday|vacation|weekend(?:\s+away)?|getaway|break|visit|tour|cottage|cabin|flights?|week|fortnight|"
    r"(?:few|couple\s+of|\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?:days|nights|weeks)))"
)
"""The nouns of a planned trip ("a long weekend", "a day trip", "a cottage")."""


_DID_BLOCK = frozenset(
    """thought felt realized realised knew wanted said told asked wondered noticed heard hoped needed
    tried meant guessed figured supposed used forgot remembered believed seemed looked loved liked hated
    enjoyed missed decided expected promised agreed mentioned wished guess imagined assumed learned
    learnt found was were did had got called texted talked chatted replied answered suggested
    worried cared stayed waited slept woke""".split()
)
_PARTICLES = frozenset("across up out back over off down by through around home there here away".split())
_TRIVIAL = re.compile(
    r"^(?:a|an)\s+(?:great|good|fun|nice|wonderful|lovely|amazing|blast|bad|rough|"
    r"hard|busy|long|tough|crazy|fantastic)\b",
    re.I,
)


def did(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A dated activity: "ran a charity race"; mental verbs and trivia are left out."""
    verb = (m.group("verb") or "").lower()
    if verb in _DID_BLOCK:
        return []
    text, start = _group(m)
    objs = clean_np(text, start, ctx, max_words=8, split_lists=False)
    if not objs:
        return []
    rest = objs[0][len(verb) :].strip()
    if not rest or _TRIVIAL.match(rest) or rest.split()[0].lower() in PRONOUN_START:
        return []
    if len(rest.split()) == 1 and rest.lower() in PREPOSITIONS | _PARTICLES:
        return []
    return objs


def retract_obj(inner: Post) -> Post:
    """A retraction's object: deictic words ("there", "it") leave it to the earlier fact."""

    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        raw = (m.groupdict().get("obj") or "").strip().lower().rstrip(".!,")
        if not raw or raw in _DEICTIC or raw.split()[0] in _DEICTIC:
            return [PREVIOUS]
        return inner(m, ctx) or [PREVIOUS]

    return post


def retract_np(m: re.Match[str], ctx: Ctx) -> list[str]:
    text, start = _group(m)
    raw = text.strip().lower()
    if not raw or raw.split()[0].rstrip(".,!") in _DEICTIC:
        return [PREVIOUS]
    inf = re.match(r"to\s+([a-z]+)(.*)$", text)
    if inf:
        return [f"{gerund(inf.group(1))}{inf.group(2)}".strip()]
    return clean_np(text, start, ctx, max_words=6, split_lists=False) or [PREVIOUS]


def previous(m: re.Match[str], ctx: Ctx) -> list[str]:
    return [PREVIOUS]


def ahead(m: re.Match[str], ctx: Ctx) -> list[str]:
    return [AHEAD]


# --- the wider vocabulary: contact details, diet, favourites, media, family, health, forgetting --

EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}"
PHONE = (
    r"(?<![\d-])(?:(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{3}\)|\d{3})[\s.-]?\d{3}[\s.-]?\d{4}|"
    r"(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?\d{2,5}(?:[\s.-]?\d{2,6}){1,4})(?![\d-])"
)
"""A phone number: North American, or international / national with 9 to 15 digits in groups
("0113 496 0512", "07700 900461", "+44 20 7946 0958"); `phone` checks the digit count."""
STREET_ADDRESS = (
    r"\d{1,5}[A-Za-z]?(?:\s+(?:[A-Z][\w'.-]*|de|la|du|of|the)){1,5}"
    r"(?:,\s*(?:(?:Apt\.?|Unit|Flat|Suite)\s*\d+\w*|[A-Z][\w'.-]*)(?:\s+[A-Z][\w'.-]*){0,2}){0,2}(?:,?\s+\d{4,6})?"
)
DIETS = (
    r"(?:vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten[- ]free|dairy[- ]free|plant[- ]based|"
    r"carnivore|flexitarian|kosher|halal|low[- ]carb|whole30|lacto[- ]vegetarian|raw[- ]vegan)"
)
TITLE = (
    r"(?P<obj>\"[^\"]{1,80}\"|(?:[A-Z0-9][\w'’:!&-]*)(?:\s+(?:of|the|and|a|an|in|on|to|for|at|with|"
    r"[A-Z0-9][\w'’:!&-]*))*)"
)
"""A work's title: quoted, or capitalised words (small joining words allowed inside)."""

# Conditions said with "I have ..." / "I suffer from ..." (the head word decides; any object after
# "diagnosed with" is taken as said).
CONDITIONS = frozenset(
    """diabetes asthma hypertension cholesterol depression anxiety adhd autism arthritis migraines migraine
    epilepsy celiac coeliac crohn's crohns ibs lupus cancer sclerosis fibromyalgia apnea insomnia ptsd
    ocd bipolar eczema psoriasis covid fatigue thyroid hypothyroidism hyperthyroidism anemia anaemia
    gout tinnitus scoliosis endometriosis pcos osteoporosis dementia parkinson's alzheimer's
    glaucoma dyslexia tendonitis sciatica hernia concussion pneumonia bronchitis shingles""".split()
)
_CONDITION_ADJ = {
    "diabetic": "diabetes",
    "asthmatic": "asthma",
    "epileptic": "epilepsy",
    "anemic": "anemia",
    "anaemic": "anaemia",
    "celiac": "celiac disease",
    "coeliac": "coeliac disease",
    "bipolar": "bipolar disorder",
    "dyslexic": "dyslexia",
    "autistic": "autism",
    "insulin-dependent": "diabetes",
    "lactose intolerant": "lactose intolerance",
    "gluten intolerant": "gluten intolerance",
}
_KIN = {
    "mom": "mother",
    "mum": "mother",
    "dad": "father",
    "stepmom": "stepmother",
    "stepdad": "stepfather",
    "fiance": "fiancé",
    "fiancee": "fiancée",
}
_FAV_CATEGORY = {
    "color": "colour",
    "flavor": "flavour",
    "movie": "film",
    "movies": "film",
    "tv": "tv_show",
    "show": "tv_show",
    "series": "tv_show",
}


def value(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A value taken as written (an email address, a phone number), trailing punctuation dropped."""
    text = (m.group("obj") or "").strip().rstrip(".,;:!?")
    return [text] if text else []


def phone(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A phone number as written, when it has as many digits as phone numbers do (9 to 15) and is
    not a date ("2024-06-14")."""
    text = (m.group("obj") or "").strip().rstrip(".,;:!?")
    digits = re.sub(r"\D", "", text)
    if not 9 <= len(digits) <= 15 or re.fullmatch(r"(?:19|20)\d\d[-./]\d{1,2}[-./]\d{1,2}", text):
        return []
    return [text]


def person_name(m: re.Match[str], ctx: Ctx) -> list[str]:
    name = (m.group("obj") or "").strip()
    words = name.split()
    if not words or words[0].lower() in NOT_PLACES or words[0].lower() in PRONOUN_START:
        return []
    if len(words) > 1 and words[1].lower() in NOT_PLACES:
        name = words[0]
    return [name]


def street(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A street address: a house number and capitalised words, cut before "in <City>"."""
    text = re.split(r"\s+in\s+(?=[A-Z])", (m.group("obj") or "").strip(), maxsplit=1)[0]
    text = text.rstrip(".,;:!? ")
    return [text] if re.match(r"\d", text) and len(text.split()) >= 2 else []


def diet(m: re.Match[str], ctx: Ctx) -> list[str]:
    return [re.sub(r"[\s-]+", "-", (m.group("obj") or "").lower())]


def favourite(m: re.Match[str], ctx: Ctx) -> list[str]:
    """Objects of "my favourite X is Y" / "Y is my favourite X" (the category is read by `favourite_of`)."""
    text, start = _group(m)
    if m.groupdict().get("lead"):
        obj = text.strip().strip('"')
        return [obj] if obj and len(obj.split()) <= 6 and obj.split()[0].lower() not in PRONOUN_START else []
    return clean_np(text, start, ctx, max_words=6, split_lists=False)


def favourite_of(m: re.Match[str]) -> str | None:
    """The predicate a favourites match names: "favourite colour" -> favourite_colour."""
    words = re.findall(r"[a-z]+", (m.groupdict().get("cat") or "").lower())
    if not words or words[0] in ("thing", "things", "part", "one", "ones", "way", "time", "memory", "moment"):
        return None
    words = [_FAV_CATEGORY.get(w, w) for w in words]
    last = words[-1]
    if last.endswith(("shes", "ches", "xes", "sses")):
        words[-1] = last[:-2]  # dishes -> dish
    elif last.endswith("ies") and len(last) > 4:
        words[-1] = last[:-3] + "y"  # hobbies -> hobby
    elif last.endswith("s") and not last.endswith(("ss", "us", "ics")) and len(last) > 3:
        words[-1] = last[:-1]
    return "favourite_" + "_".join(dict.fromkeys(words))


_VEHICLE = r"(?P<obj>[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d{1,4}\b))*)"
"""A vehicle by its make and model, as people name the one they drive ("Mitsubishi Outlander",
"Isuzu D-Max", "Ram 3500", "Hilux")."""
_VEHICLE_MODS = r"(?:(?!(?:at|in|on|from|with|for|to|of|by|near|as)\s)(?:[a-z][\w-]*|(?:19|20)\d\d)\s+){0,3}?"
"""What may come between the article and the make ("a green 2019 Outback", "a 2018 Seat Leon"); not
a preposition ("got a lectureship at Strathclyde" names no vehicle)."""
_VEHICLE_TALK = re.compile(
    rf"\b(?:{VEHICLE_NOUN}|drive|drives|driving|drove|traded\s+in|written\s+off|"
    r"write-off|nicked|stolen|mileage|miles|kilomet(?:re|er)s|mpg|engine|gearbox|MOT|second[\s-]hand|"
    r"got\s+rid\s+of|double[\s-]cab|hatchback|saloon|SUV|4x4|estate\s+car|hybrid|diesel|"
    r"sold\s+(?:the|my|our)\s+(?-i:[A-Z])\w+[,\s][^.!?]{0,30}?\bbought)\b",
    re.IGNORECASE,
)
"""Words of motoring: what makes "I've got a Hilux now" a vehicle and not a dog or a phone; or a
named one sold for the one bought ("sold the Outback before we left and bought a Nissan
Frontier")."""


def vehicle(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A vehicle's make and model, not a word that only opens a sentence's next part."""
    obj = m.group("obj")
    if obj.split()[0].lower() in NOT_NAMES or obj.lower() in PETS:
        return []  # "went for a Labrador in the end" after car talk: a dog, not a car
    return [obj]


def vehicle_in_talk(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A vehicle got or bought, when the turn talks of vehicles ("The Outlander is written off.
    Got a second-hand Hilux instead.")."""
    return vehicle(m, ctx) if _VEHICLE_TALK.search(ctx.context or ctx.sentence) else []


_VEHICLE_NOUN = re.compile(rf"\b(?:{VEHICLE_NOUN}|motorbikes?)\b", re.IGNORECASE)


def vehicle_named_in_turn(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A make got or bought, said with more after it, when the turn names a vehicle outright
    ("New van as well. ... bought a white Trafic with my name on the side"): "second-hand" alone
    also sells tuning boxes."""
    return vehicle(m, ctx) if _VEHICLE_NOUN.search(ctx.context or ctx.sentence) else []


def title(m: re.Match[str], ctx: Ctx) -> list[str]:
    """A book or show title as said (quotes dropped), at most eight words."""
    text = _cut_dates(m.group("obj") or "", m.start("obj"), ctx).strip().strip('"').strip()
    text = re.split(
        r"\s+on\s+(?:Netflix|Hulu|HBO|Max|Disney\+?|Prime|Apple\s+TV\+?|YouTube|Kindle|Audible|Peacock|"
        r"Paramount\+?|Crunchyroll|TV|BBC|iPlayer|ITV|Channel\s+\d|Spotify|Libby)\b",
        text,
        maxsplit=1,
    )[0]
    text = re.sub(r"(?:\s+(?:and|of|the|a|an|in|on|to|for|at|with))+$", "", text)
    words = text.split()
    head = words[1] if len(words) > 1 and words[0].lower() in ("the", "a", "an") else (words or [""])[0]
    if not words or len(words) > 8 or head.lower() in NOT_PLACES | PRONOUN_START:
        return []
    return [text]


_BOOK_CUES = re.compile(
    r"\b(?:books?|novels?|read|reads|reading|re-?read|pages?|chapters?|authors?|library|kindle|audiobooks?|"
    r"memoir|paperback|hardback|bookshelf|book\s+club|trilogy|sequel|prose|writing)\b",
    re.IGNORECASE,
)
_SCREEN_CUES = re.compile(
    r"\b(?:shows?|tv|telly|seasons?|episodes?|watch|watched|watching|netflix|hbo|hulu|disney|prime\s+video|"
    r"apple\s+tv|bbc|iplayer|streaming|binge[sd]?|bingeing|binging|finale|sitcom|docuseries|series\s+\d|"
    r"films?|movies?|cinema|documentary)\b",
    re.IGNORECASE,
)


def medium_by_cues(text: str) -> str | None:
    """ "reading" or "watching" when only one medium's words occur in `text`, else None."""
    book, screen = bool(_BOOK_CUES.search(text)), bool(_SCREEN_CUES.search(text))
    if book == screen:
        return None
    return "reading" if book else "watching"


LANGUAGES = (
    r"(?:English|Spanish|French|German|Italian|Portuguese|Dutch|Swedish|Norwegian|Danish|Finnish|Icelandic|"
    r"Polish|Czech|Slovak|Hungarian|Romanian|Bulgarian|Greek|Turkish|Russian|Ukrainian|Serbian|Croatian|"
    r"Arabic|Hebrew|Persian|Farsi|Urdu|Hindi|Bengali|Punjabi|Tamil|Telugu|Marathi|Gujarati|Nepali|Japanese|"
    r"Korean|Mandarin|Cantonese|Chinese|Vietnamese|Thai|Indonesian|Malay|Tagalog|Filipino|Swahili|Amharic|"
    r"Yoruba|Zulu|Welsh|Irish|Gaelic|Catalan|Basque|Latin|Esperanto|ASL|BSL|sign\s+language)"
)
"""Languages by name: a closed class, so "doing Italian" can be read as learning it."""
DISCIPLINES = (
    r"(?:law|medicine|nursing|dentistry|pharmacy|veterinary\s+(?:medicine|science)|biology|chemistry|physics|"
    r"maths|math|mathematics|statistics|economics|history|philosophy|psychology|sociology|anthropology|"
    r"politics|political\s+science|geography|geology|architecture|engineering|(?:civil|mechanical|electrical|"
    r"chemical|software|aerospace)\s+engineering|computer\s+science|linguistics|literature|English\s+literature|"
    r"classics|theology|music|fine\s+art|art\s+history|design|journalism|accounting|finance|business|"
    r"marketing|education|neuroscience|biochemistry|genetics|ecology|zoology|astronomy|data\s+science|"
    r"nutrition|social\s+work|criminology|film\s+studies|media\s+studies)"
)
"""Subjects of study by name: "doing law" is studying it, "doing the dishes" is not."""


ORG_HEADS = (
    r"(?:Garage|Motors|Bank|Hospital|Clinic|Labs?|Ltd|Inc|LLC|plc|GmbH|Group|Studios?|Agency|Bakery|Caf[eé]|"
    r"Restaurant|Trattoria|Bistro|Pharmacy|Partners|Associates|Consulting|Solutions|Systems|Technologies|Corp|"
    r"Company|Foundation|Institute|Academy|Hotel|Press|Media|Records|Insurance|Capital|Logistics|Energy|Foods|"
    r"Robotics|Software|Analytics|Dynamics|Industries|Enterprises|Holdings|Brewery|Salon|Gym|Surgery|Practice)"
)
"""Head nouns that make a capitalised name an organisation ("Kerr's Garage", "Nairn Motors")."""
_FIRM_HEAD = re.compile(
    rf"\s(?:{ORG_HEADS}|Outreach|Dental|Services|Trust|Council|Health|Care|Freight|Electric(?:al)?|Works|Co|"
    r"School|College|University|Publishing)$"
)
"""The last word of a firm's name, which a person's name does not end with: an organisation's head
noun, or a word that ends a firm's name without making one of any capitalised words ("School")."""


_WORKPLACE = (
    r"(?:centre|center|clinic|hospital|practice|surgery|firm|company|agency|studio|bank|bakery|restaurant|"
    r"caf[eé]|lab|garage|salon|gym|hotel|pharmacy|charity|council|museum|library|factory|warehouse|brewery|"
    r"school|college|university|newspaper|magazine|paper|startup|start-up|consultancy|distillery|winery|"
    r"cooperage|workshop|mill|dairy|nursery|yard|farm|kitchen|theatre|theater|depot|plant)"
)
"""Lowercase kinds of workplace, by which a speaker may name their employer again ("the vet
centre" for "Whakatāne Vet Centre")."""


def field_of(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "a PhD in chemistry" -> "chemistry"."""
    return [m.group("field").lower()]


def learned(m: re.Match[str], ctx: Ctx) -> list[str]:
    """What someone is learning: a language or skill ("to play guitar" reads "playing guitar")."""
    text, start = _group(m)
    inf = re.match(r"(?:how\s+)?to\s+([a-z]+)\b(.*)$", text)
    if inf:
        if inf.group(1) in _NON_ACTIVITY or inf.group(1) in ("live", "deal", "cope", "accept", "let", "be"):
            return []
        rest = (
            clean_np(f"x{inf.group(2)}", start, ctx, max_words=5, split_lists=False)
            if inf.group(2).strip()
            else ["x"]
        )
        return [f"{gerund(inf.group(1))}{rest[0][1:]}"] if rest else []
    text = re.split(r"\s+(?:on|with|at|from|in|through|via|using|for|by)\s+", text, maxsplit=1)[0]
    out = clean_np(text, start, ctx, max_words=4, strip_article=True, split_lists=False)
    return [o for o in out if o.lower() not in ("lot", "lots", "much", "things", "stuff", "new things")]


def kin_named(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "my sister Ana" -> "a sister named Ana"; "my mom, Linda" -> "a mother named Linda"."""
    kin = re.sub(r"\s+", " ", (m.group("kin") or "").lower())
    return _kin_value(_KIN.get(kin, kin), m.group("name2") or "")


def fiance_named(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "Femi proposed!" -> "a fiancé named Femi" ("Wow proposed" names nobody)."""
    name = m.group("name2") or ""
    return [] if name.lower() in NOT_NAMES else _kin_value("fiancé", name)


def _kin_value(kin: str, name: str) -> list[str]:
    """ "a sister named Ana": a relative of that kind with that name, or nothing when the name
    is a place or a pronoun."""
    if not name or name.lower() in NOT_PLACES or name.lower() in PRONOUN_START:
        return []
    return [f"{_article(kin)} {kin} named {name}"]


def const_partner(m: re.Match[str], ctx: Ctx) -> list[str]:
    name = m.group("name2") or ""
    return [] if name.lower() in NOT_PLACES else [f"a spouse named {name}"]


def preferred(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "I prefer tea over coffee" -> "tea" (what is preferred, not what it is preferred to)."""
    text, start = _group(m)
    text = re.split(r"\s+(?:over|to|rather\s+than|instead\s+of)\s+", text, maxsplit=1)[0]
    return liked_text(text, start, ctx)


def kin_count(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "I have two brothers" -> "two brothers"; "I have a sister" -> "a sister"."""
    kin = (m.group("kin") or "").lower()
    count = (m.group("count") or "").lower()
    if m.groupdict().get("name2") and count in ("a", "an", "one", "another") and not kin.endswith("s"):
        return kin_named(m, ctx)
    if count in ("a", "an", "one", "another"):
        return [f"{_article(kin)} {kin.rstrip('s') if kin.endswith('s') and kin != 'siblings' else kin}"]
    return [f"{count} {kin}"]


def condition(lexicon: bool) -> Post:
    """A health condition; with `lexicon`, only one whose words include a known condition."""

    def post(m: re.Match[str], ctx: Ctx) -> list[str]:
        text, start = _group(m)
        out = []
        for obj in clean_np(text, start, ctx, max_words=5, strip_article=True, split_lists=False):
            words = {w.strip(".,") for w in obj.lower().split()}
            if lexicon and not words & CONDITIONS and "back" not in words | {"pain"}:
                continue
            if (
                lexicon
                and "back" in words
                and not re.search(r"\b(?:bad|chronic)\s+back\b|\bback\s+pain\b", obj)
            ):
                continue
            out.append(obj)
        return out

    return post


def condition_adj(m: re.Match[str], ctx: Ctx) -> list[str]:
    return [_CONDITION_ADJ[re.sub(r"\s+", " ", (m.group("obj") or "").lower())]]


def allergen(m: re.Match[str], ctx: Ctx) -> list[str]:
    text, start = _group(m)
    out = clean_np(text, start, ctx, max_words=4, strip_article=True)
    return [o for o in out if o.lower() not in ("it", "that", "everything", "something", "stuff")]


_TOPIC_TAIL = re.compile(
    r"(?:\s+(?:anymore|any\s+more|again|ever\s+again|please|for\s+me|from\s+now\s+on|right\s+now|now|"
    r"from\s+(?:(?:your|the|my)\s+)?(?:memory|records?|system|files?|notes|database|head|mind)|on\s+(?:file|record)|"
    r"written\s+down|though|anywhere|"
    r"altogether|completely|entirely|at\s+all|permanently|forever|too|either|as\s+well|also|thanks|"
    r"earlier|before|back\s+then|the\s+other\s+day|(?:in|over|during|from)\s+the\s+(?:summer|spring|autumn|fall|winter)|"
    r"(?:back\s+)?(?:in|from|during|since)\s+(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December)|"
    r"(?:last|this)\s+(?:week|month|year|summer|spring|autumn|fall|winter|time)|"
    r"if\s+that's\s+(?:ok|okay|alright|fine|easier|simpler)|if\s+(?:you\s+)?(?:can|could|possible)|(?:ok|okay)|"
    r"(?:that\s+)?I\s+(?:just\s+|once\s+)?(?:told\s+you|said|mentioned|shared|gave\s+you|wrote|sent)"
    r"(?:\s+(?:earlier|before|last\s+time|about|you))*))+$",
    re.IGNORECASE,
)


_PHYSICAL = re.compile(
    r"\b(?:from|off|out\s+of|in|on)\s+(?:the|this|that|my|our)\s+(?!memory|records?|notes|files?)\w+"
)


_FILLER_TAIL = re.compile(
    r"\s+(?:thing|things|bit|bits|part|parts|stuff|business|story|situation|figure|figures|details?|info|news)$",
    re.IGNORECASE,
)
"""A filler after what a request names: "the National Trust thing", "the bankruptcy bit", "that
overdraft figure"."""
_ONLY_POINTS = re.compile(
    r"(?:number|amount|figure|sum|price|name|date|bit|part|detail|one|thing|stuff|info|it)", re.IGNORECASE
)
"""A topic that only points ("that figure"): the request pointing back reads it."""
_TOPIC_FILLER = re.compile(
    r"^(?:(?:all|any|the|some|that|this)\s+)?(?:stuff|things?|bits?|info(?:rmation)?|details?|parts?)\s+"
    r"(?:about|on|regarding|re|to\s+do\s+with)\s+",
    re.IGNORECASE,
)
"""A request's wrapper around what it names: "the stuff about my diabetes" names "my diabetes"."""
_TOPIC_SPLIT = re.compile(
    r",?\s+(?:and|or)\s+(?:also\s+)?(?=(?:my|our|the|his|her|their|which|what|where|who|when)\b|[A-Z])"
)
"""Between two things a request names ("my diabetes and the medication", "which school Elif goes
to or her teacher's name", "my old address, and my PIN too"): a coordinator followed by a new
noun phrase, not "my mum and dad"."""
_WH_OPEN = re.compile(r"^(?:which|what|where|who|when)\s+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^(?:his|her|their)\s+", re.IGNORECASE)
_NAMED = re.compile(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b")


def _person_before(sentence: str, end: int, antecedent: str | None) -> str | None:
    """Whom a pronoun at `end` means: the last name said before it in the sentence (not "I"), else
    the one person the previous sentence named."""
    names = [
        n
        for n in _NAMED.findall(sentence[:end])
        if n.lower() not in PRONOUN_START | NOT_NAMES | SENTENCE_ADVERBS and not _ERASE_WORD.fullmatch(n)
    ]
    return names[-1] if names else antecedent


_PARTNER_SAID = re.compile(
    r"\bmy\s+(?P<kin>ex-(?:boyfriend|girlfriend|husband|wife|partner)|ex|boyfriend|girlfriend|husband|wife|partner|"
    r"fianc[ée]e?)\b",
    re.IGNORECASE,
)


def _partner_before(ctx: Ctx, end: int) -> str | None:
    """The partner a pronoun means when no name was said before it: the last "my boyfriend" (or
    "my ex", "my wife" ...) of the sentence before the pronoun, else of the sentences before."""
    for text in (ctx.sentence[:end], ctx.previous, *reversed(ctx.earlier)):
        said = list(_PARTNER_SAID.finditer(text))
        if said:
            return said[-1].group("kin").lower()
    return None


_ERASE_WORD = re.compile(
    r"(?i:forget|delete|erase|remove|wipe|scrub|purge|ditch|drop|bin|scrap|strike|cross|lose|please|kindly)"
)
"""A request's own verb, capitalised at its start ("Delete him from your brain"): no person."""


_NAME_OF = re.compile(r"^(?:(?:my|our|the)\s+)?names?\s+of\s+", re.IGNORECASE)
""""the name of the professor": the professor is what is named."""
_RELATIVE = re.compile(r"(?<=\w)\s+(?:(?:that|who|whom|which)\s+)?(?:I|we)(?:'m|'d|'ve)?\s+[a-z]+\b.*$")
"""A relative clause after what a request names ("the professor I was moaning about in June",
"the guy we met at the bar"): the head before it is the topic, the clause only says which."""


def _topic_part(part: str, ctx: Ctx, at: int, *, told: bool = False) -> str | None:
    """One named thing of a request, cleaned; None when nothing nameable is left. `told`: the
    request names what was told ("what I told you about the loan from my dad"), so "from my
    dad" is no object being moved."""
    part = _TOPIC_FILLER.sub("", part.strip())
    part = _FILLER_TAIL.sub("", part)
    part = _NAME_OF.sub("", part)
    head = _RELATIVE.sub("", part)
    if re.search(
        r"[a-z]{3,}",
        re.sub(r"(?i)\b(?:what|which|who|where|when|whatever|everything|anything|all)\b", "", head),
    ):
        part = head  # not "what I said about ...": that names its topic after "about"
    part = re.sub(r"^(?:my|our|the|that|this)\s+", "", part, flags=re.I)
    part = _WH_OPEN.sub("", part)
    # "where I said the peregrines were nesting": what was said, not the saying
    part = re.sub(r"^(?:I|we)\s+(?:said|told\s+you|mentioned)\s+(?:that\s+)?(?:the\s+)?", "", part)
    if part.lower() in ("him", "her", "them"):
        # "Caspar and I had a fight. Please forget everything about him.": him is Caspar; "My
        # boyfriend and I broke up. Forget him.": the boyfriend (the ledger knows his name)
        return _person_before(ctx.sentence, at, ctx.named_before) or _partner_before(ctx, at)
    if _POSSESSIVE.match(part):
        # "which school Elif goes to or her teacher's name": her is Elif
        owner = _person_before(ctx.sentence, at, ctx.named_before)
        part = _POSSESSIVE.sub(f"{owner}'s " if owner else "", part)
    words = part.split()
    if not words or len(words) > 6 or words[0].lower() in PRONOUN_START - {"i", "my"}:
        return None
    if (
        named := re.fullmatch(r"([A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)'s\s+(?:full\s+|real\s+)?name", part)
    ) is not None:
        return named.group(1)  # "don't store his name": the person is what is named
    if _PHYSICAL.search(part) and not told:
        return None  # "remove the onions from the recipe": a task, not a request to forget
    if _POINTER.fullmatch(part) and (before := _named_before(ctx)) is not None:
        # "That pickup password for the school: it's a QR code now. Don't keep the old one.":
        # the one the turn named just before
        return _topic_part(before, ctx, at, told=True)
    if _ONLY_POINTS.fullmatch(part):
        return None
    return part


_POINTER = re.compile(
    r"(?:(?:old|previous|former|last|other)\s+)?(?:one|ones|numbers?|digits|figures?|details?|code|it)",
    re.IGNORECASE,
)
"""What a request may call the thing the turn named just before ("the old one", "the numbers")."""
_TOO = re.compile(r"\s+(?:too|as\s+well|also)\s*[.!]?$", re.IGNORECASE)


def _named_before(ctx: Ctx) -> str | None:
    """The thing the sentence before a request names by itself: before its colon ("That pickup
    password for the school: ..."), or as all it says ("The safe combination too.")."""
    before = " ".join(ctx.previous.split())
    if not before or is_question_text(before):
        return None
    front = fronted_in(before)
    if front is not None:
        return front
    if not _TOO.search(before):
        return None  # "My phone broke.": a statement, not a topic named by itself
    only = _NOUN_PHRASE_ONLY.match(_TOO.sub(".", before))
    return only.group("obj") if only is not None else None


_TOLD = r"\b(?:told\s+you|said|mentioned|shared)\s+(?:about|regarding|re)\s+"
"""What was told about: a request naming it ("what I told you about ...") names a statement."""
_TOLD_ABOUT = re.compile(_TOLD + "$", re.I)


def forget_topic(m: re.Match[str], ctx: Ctx, group: str = "obj") -> list[str]:
    """The topics of a forget request: "my social security number" -> "social security number";
    "the stuff about my diabetes and the medication" -> "diabetes", "medication"; "him" -> the
    person the turn just named. `group` names the match's group that holds what is named."""
    if asks_nothing_of_memory(ctx.sentence):
        return []  # "Clear the table before the guests arrive": no request to the memory
    named = m.groupdict().get(group)
    start = m.start(group) if named else m.end()
    return topics_named(named or "", start, ctx, told=bool(_TOLD_ABOUT.search(ctx.sentence[:start])))


def topics_named(text: str, start: int, ctx: Ctx, *, told: bool) -> list[str]:
    """The topics a request's words name (`forget_topic`), from `text` found at `start` of the
    sentence; `told`: they name what was told ("what I told you about ...")."""
    text = text.strip().rstrip(".!,;")
    text = _TOPIC_TAIL.sub("", text)
    text = re.sub(r"^(?:(?:all|everything)\s+(?:about\s+)?|about\s+)", "", text, flags=re.I)
    topics: list[str] = []
    offset = 0
    for part in _TOPIC_SPLIT.split(text):
        offset = text.find(part, offset)
        topic = _topic_part(part, ctx, start + max(offset, 0), told=told)
        if topic and topic not in topics:
            topics.append(topic)
    return topics


_FRONTED_TOLD = re.compile(_TOLD, re.I)


def fronted_topic(m: re.Match[str], ctx: Ctx) -> list[str]:
    """The topic of a request that names it first and points back at it ("That stuff I told you
    about Halyna's marriage in June, take it out"): what was told about, else the phrase."""
    text = m.group("obj")
    told = _FRONTED_TOLD.search(text)
    if told is None:
        return topics_named(text, m.start("obj"), ctx, told=True)  # it says it was told
    return topics_named(text[told.end() :], m.start("obj") + told.end(), ctx, told=True)


# --- the table -----------------------------------------------------------------------------------


def R(predicate: str, template: str, post: Post = np(), kw: str = "", **opts: object) -> Rule:  # noqa: N802
    """A rule from a template; `kw` names words of which one must occur when the template has no verb
    group to take them from (a cheap filter: most sentences are then not searched by the rule)."""
    keywords = template_keywords(template) or (frozenset(kw.split()) if kw else None)
    return Rule(predicate, template, post, keywords=keywords, **opts)  # type: ignore[arg-type]


_ON_STREET_IN = (
    r"on\s+(?P<street>(?:[A-Z][\w'-]*\s+(?:(?:de|del|della|di|da|do|dos|das|la|le|du|van|von|den|der)\s+)?){0,3}?"
    r"(?:[A-Z][\w'-]*))\s+in\s+{obj:place}"
)
"""A home on a street in an area ("on Carrer de Sueca in Ruzafa"): the area is where one lives."""
_PETS = "|".join(sorted(PETS, key=len, reverse=True))
_PET_TAIL = r"(?!\s*(?:tank|food|bowl|toy|toys|bed|cage|treats?|sitter|walker|park|shelter|show|bite|hair|-))"
_SPECIES = rf"(?P<species>(?:(?:new|little|sweet|adorable|cute|rescue|foster|old|baby|black|white|grey|gray|orange|first|second|third|other)\s+)?(?:{_PETS})(?:s|es)?){_PET_TAIL}\b"
_PETNAME = r"(?P<name2>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b"
_PROPOSED = (
    r"\s+(?:just\s+|finally\s+|actually\s+)?proposed\b(?!\s+to\s+(?!me\b))(?!\s+(?:that|we|a|an|the)\b)"
)
"""A name's proposal to the speaker ("Femi proposed!!", "Dana proposed to me"), not to another or
of a plan ("proposed that we split the bill")."""
_TRADES_DOING = (
    "driving delivering couriering trunking hauling nursing lecturing presenting reporting freelancing "
    "temping subbing consulting coding designing writing playing flying sailing"
).split()
"""Verbs of a trade said of work for an employer ("I'm driving for Parcelway"), not of favours
("cooking for Mum"); each is also the rule's keyword."""
_TRADES_DONE = (
    "rewire repair fix service build drive deliver clean design install maintain survey inspect translate "
    "interpret edit write teach coach nurse"
).split()
"""The same in the present simple ("I rewire yachts for Quayline Marine")."""
_STARTS_IT = re.compile(
    r"\b(?:I|I'm|I\s+am|I'll|I\s+will|she|he|they)\s+(?:start|starts|starting|begin|begins|beginning)\b"
)
"""An offer taken up: its holder says they start."""
_ACCEPTED = re.compile(
    r"\b(?:I|I've|I\s+have|we|we've)\s+(?:just\s+|finally\s+)?(?:accepted|took\s+it|said\s+yes)\b"
)
"""An offer taken up: its holder says they accepted it."""
_NEXT_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DECLINED = re.compile(r"\b(?:turned\s+(?:it\s+|them\s+)?down|declined|said\s+no|rejected|not\s+taking)\b")


def _offer_taken(ctx: Ctx) -> bool:
    """Whether an offer said in the sentence is taken up in it or right after it (not before,
    nor turns later: an "I accepted" there may be of something else), and not turned down."""
    at = ctx.context.find(ctx.sentence)
    rest = ctx.context[at + len(ctx.sentence) :] if at >= 0 else ""
    after = ctx.sentence + " " + _NEXT_SENTENCE.split(rest.strip(), maxsplit=1)[0]
    return not _DECLINED.search(after) and bool(_STARTS_IT.search(after) or _ACCEPTED.search(after))


_AGENT_NOUN = (
    r"(?!(?:member|customer|regular|user|visitor|guest|player|beginner|newcomer|stranger|winner|loser|"
    r"partner|owner|fan|believer|lover|supporter|subscriber|passenger|resident|patient|student|other|"
    r"mother|father|brother|sister|daughter|neighbou?r|leader|sucker|number|matter|order|corner|border|"
    r"counter|computer|water|paper|letter|manner|winter|summer|weather|together|either|neither|rather|"
    r"whether|however|never|ever|over|under|after|other|later|better|bigger|smaller|older|younger)\b)"
    r"[a-z]{3,}(?:maker|smith|wright|er|or|ist|ian)\b"
)
"""A trade named by its agent ending ("saddler", "cheesemaker", "conservator"), for jobs the word
list lacks; not the many such words that name no trade ("member", "customer", "neighbour")."""
_AGENT_AGAIN = rf"(?:,\s+(?:[a-z][\w-]*\s+){{0,2}}{_AGENT_NOUN},)?"
"""The trade said again, more exactly ("a saddler, bench saddler, at ...")."""
_FROM_A_START = r",?\s+(?:starting|from|start(?:ing|s)?\s+(?:on|in))\b"
"""What dates a verbless new job ("Data analyst at Fenwick Insurance, starting in March")."""
_COUNT = r"(?P<count>a|an|two|three|four|five|another|\d)"
_CHILD = r"(?P<kin>son|daughter|kid|child|stepson|stepdaughter|baby\s+(?:boy|girl))"
_LIVE_NOUN = r"(?:place|apartment|flat|house|home|condo|neighbou?rhood|town|city)"
_JOB_ANY = r"(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
_TITLE_AHEAD = (
    r"(?P<obj>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
    r"(?=\s+(?:at|with|for|there|next|this|on|in|from|starting|tomorrow|soon|after)\b|\s*[.,;!?]|$)"
)
"""A title said before the employer or the date a job starts ("as head of audio next month")."""
_EVT = r"(?:to|at)\s+"
_CESSATION = "required"
_ONLY_RUNNING = 0.6
"""Confidence of endings that may not be about this predicate ("I finished Dune": a book or a show?):
consolidation ends a running value with them but records nothing when none is running."""
_NOT_NATIONALITY = (
    r"(?![A-Z][a-z]*(?:ian|ese|ish|can|ean|ic)\b|(?:German|Greek|Thai|Swiss|Dutch|French|Welsh|Czech|Kiwi|Aussie|"
    r"Brit|Irish|Scots|Catholic|Jewish|Muslim|Hindu|Buddhist|Vegan|Vegetarian)\b)"
)
"""Not a nationality or a faith said of someone ("My wife is Brazilian"), which is no name; a name
of those endings ("Brian") is read when it is said as one ("named Brian", "my husband Brian")."""
_ASIDE = r"(?:[^\W\d_][\w'’]*(?:\s+[^\W\d_][\w'’]*){0,3}[:,]\s+)?(?:(?:[Pp]lease|[Aa]nd|[Aa]lso|[Oo]h|[Oo]k(?:ay)?|[Nn]ow|[Ss]o|[Aa]ctually|[Oo]ne\s+more\s+thing)[,:]?\s+)*"
"""Words that may open a request before its verb ("And now please forget ...")."""
_NOT_OTHERS = r"(?<!'s\s)(?<![Hh]is\s)(?<![Hh]er\s)(?<![Tt]heir\s)(?<![Yy]our\s)(?<!\w)"
"""Before a contact word: not someone else's ("Theo's number", "her email")."""
_LEAD_IN = r"(?:(?:[^\W\d_][\w'’]*\s+){0,3}[^\W\d_][\w'’]*[:,]\s+){0,2}"
"""A short lead-in clause before a request, in any words ("One request: please forget ...", "Last
thing: ...", "Same for my weight, don't keep ...", "Actually, that's the house secret, forget ..."):
up to four words and a colon or comma, twice at most."""
_AND_LEAD = r"(?:(?!(?i:i|we|he|she|they|it)\b)(?:[^\W\d_][\w'’]*\s+){1,5}(?i:and)\s+)?"
"""A favour asked before the request and joined to it by "and" ("Do me a favour and forget ...",
"Be a star and delete ..."); not a statement's subject ("I went and deleted the app")."""
_REQUEST_OPEN = (
    _LEAD_IN
    + _AND_LEAD
    + r"(?i:(?:(?:please|pls|and|but|also|oh|ok(?:ay)?|now|so|actually|btw|fyi|hey|right|yeah|just|no|sorry|god|"
    r"seriously|honestly|look|listen|wait|one\s+more\s+thing|"
    r"on\s+second\s+thought)(?:[,:.!]|\s+[-–—])?\s+)*(?:(?:can|could|would|will)\s+(?:you|we)\s+(?:(?:please|also|just|kindly)\s+)*|(?:i'd|i\s+would)\s+like\s+you\s+to\s+|"
    r"i\s+(?:want|need)\s+you\s+to\s+|please\s+|kindly\s+|(?:you\s+(?:can|may|should|could)|feel\s+free\s+to|"
    r"you['’]re\s+free\s+to)\s+(?:(?:now|just|also|safely)\s+)?)?)"
)
"""What may open a request to the memory itself: asides, "can you", "I'd like you to"."""
_ERASE_VERB = (
    r"(?i:forget|unlearn|unremember|delete|erase|remove|wipe|scrub|purge|ditch|get\s+rid\s+of|throw\s+(?:away|out)|"
    r"(?:drop|bin|scrap|clear|lose|disregard|let\s+go\s+of|stop\s+using)(?=\s+(?:what|whatever|anything|everything|all)\b)|"
    r"(?:drop|bin|scrap|ditch|lose)(?=\s+(?:my|our|the|that|this)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:code|pin|password|passcode|passphrase|combination|login|number|hiding\s+(?:spot|place))\b)|"
    r"stop\s+(?:remembering|storing|keeping|saving|tracking|recording|bringing\s+up)|"
    r"(?:scratch|drop|bin|scrap|lose|strike|cross\s+out)(?=\s+(?:the|that|this)\s+(?:bit|part|stuff|line)\s+about\b)|"
    r"(?:scratch|drop|bin|scrap|lose|take|strike|cross)(?=[^.!?;]{0,60}\bfrom\s+(?:(?:your|the)\s+"
    r"(?:memory|notes|records?|files?|head|mind|system|database)|(?:whatever|what|everything|anything)\s+you\s+"
    r"(?:keep|have|hold|store|know|remember))\b))"
)
"""A verb of erasing; one that also means other things ("drop", "scratch") only when it names
what it erases from ("scratch that bit about the commission from your memory")."""
_RETAIN_VERB = (
    r"(?:remember|keep|store|save|record|retain|hold\s+on\s*to|hang\s+on\s*to|log|track|memori[sz]e)"
)
_KEEP_NOT = (
    rf"(?i:(?:don't|do\s+not|not|never|no\s+need\s+to)\s+{_RETAIN_VERB}|"
    rf"(?:you\s+)?(?:don't|do\s+not)\s+(?:need|have)\s+to\s+{_RETAIN_VERB}|"
    rf"(?:i'd|i\s+would)\s+(?:rather|prefer\s+(?:it\s+if\s+)?)\s*you\s+(?:didn't|did\s+not|don't|not|wouldn't)\s+{_RETAIN_VERB}|"
    rf"i\s+(?:don't|do\s+not)\s+want\s+(?:you\s+to|it)\s+(?:{_RETAIN_VERB}|(?:to\s+be\s+)?(?:kept|stored|saved|remembered))|"
    r"i\s+(?:don't|do\s+not)\s+want\s+you\s+(?:knowing|remembering|keeping|storing|holding\s+on\s*to)(?:\s+about)?)"
)
"""A request not to retain something: "can you not keep", "I'd rather you didn't remember"."""
_ABOUT_WHAT = (
    r"(?i:(?:all|everything|anything|whatever|what\s+I\s+(?:just\s+)?(?:said|told\s+you|mentioned|shared|wrote))\s+)?"
    r"(?i:(?:about|of|regarding|re|on|to\s+do\s+with|related\s+to)\s+)?(?i:(?:any|all)\s+of\s+)?"
    r"(?i:(?:all|any|every)\s+mentions?\s+of\s+)?"
    r"(?i:(?:(?:all|any|every)\s+)?(?:a\s+)?(?:traces?|records?|notes?)\s+(?:of|on|about)\s+)?"
)
FORGET_REQUEST = (
    rf"^{_REQUEST_OPEN}(?:{_ERASE_VERB}|{_KEEP_NOT})\s+{_ABOUT_WHAT}"
    r"(?P<obj>(?i:my|our|the|his|her|their)\s+(?:(?!\s[-–—]\s)[^.!?;,]){1,60}"
    r"(?:,\s+(?i:and|or)\s+(?:(?i:also)\s+)?(?i:my|our|the)\s+[^.!?;,]{1,60})*|(?i:which|what|where|who|when)\s+[^.!?;,]{1,60}|"
    r"(?i:that|this)\s+(?!(?i:I|we|you|for\s+now|though|too|please|either|anywhere|at\s+all|from)\b)[A-Za-z][^.!?;,]{1,60}|"
    r"(?i:him|her|them)\b|[A-Z][A-Za-z]+(?:'s)?(?:\s+[^.!?;,]{1,40})?)"
)
"""One request to forget, by structure: an opener, a verb of erasing (or "not" + a verb of keeping),
what is named ("anything about my dentist", "the therapy info", "Harriet")."""

_POINTED = r"(?:number|amount|figure|sum|price|name|date|address|bit|part|detail|one)"
"""What a request pointing back may call what it points at ("get rid of that figure")."""
ANAPHORIC_FORGET = (
    rf"^{_REQUEST_OPEN}(?:(?:{_ERASE_VERB}|{_KEEP_NOT})\s+"
    rf"(?i:(?:that|this)(?:\s+(?:last\s+)?{_POINTED})?|I\s+(?:just\s+|ever\s+|even\s+)?(?:said|told\s+you|mentioned|wrote)"
    rf"(?:\s+(?:that|this|it|anything|the\s+{_POINTED}))?)|"
    r"(?i:pretend|act\s+(?:like|as\s+if))\s+I\s+(?:never|didn't|did\s+not)\s+"
    r"(?:said|say|mention(?:ed)?|told\s+you|tell\s+you)(?:\s+(?:that|this|it|anything))?|"
    r"(?i:I\s+(?:don't|do\s+not)\s+want\s+(?:that|this|it)\s+(?:kept|stored|saved|remembered|recorded|written\s+down)))"
    r"(?:\s+(?i:from\s+(?:your\s+(?:memory|head|mind|notes|records?|files?)|the\s+(?:logs?|records?|notes|files?|system)|"
    r"(?:whatever|what|everything|anything)\s+"
    r"you\s+(?:keep|have|hold|store|know|remember)(?:\s+(?:on|about)\s+me)?)|entirely|altogether|completely|"
    r"please|too|as\s+well|anywhere|at\s+all|either|for\s+now|though|for\s+me))*"
    r"(?:\s*,\s*(?i:about|re|regarding|i\.e\.)\s+(?P<obj>[^.!?;]{2,80})|\s+(?i:about)\s+(?P<about>[^.!?;,]{2,60}))?"
    r"\s*(?=[.!?,;]|$)"
)
"""A request that points back ("Please forget that", "forget I said that, about the burnout",
"forget I said the number", "pretend I never mentioned that", "erase that from your head"):
what it names is the statement said just before. "Forget what I said about why Anatole left"
names its topic itself: the rules below read it; a bare "Forget what I said." only retracts."""


_MEMORY_PLACE = (
    r"(?i:(?:your|the)\s+(?:memory|memories|notes|records?|files?|head|mind|brain|system|database|logs?)|"
    r"(?:what|whatever|everything|anything)\s+you\s+(?:keep|remember|know|store|have|hold|save)"
    r"(?:\s+(?:on|about)\s+me)?|(?:the\s+)?record)"
)
"""Where a memory keeps what it is told, as people name it: "your notes", "what you keep on me",
"on record"."""
_POINTING = r"(?i:that|this|it|those|these)(?:\s+(?i:one|bit|part|stuff))?"
"""An object that points back at what was just said ("that", "that one", "this bit")."""
_OUT_OF_MEMORY = (
    rf"^{_REQUEST_OPEN}(?:(?i:i'd|i\s+would)\s+(?i:rather|prefer\s+(?:it\s+if\s+)?)\s*(?i:you)\s+"
    rf"(?i:kept|left|took|got)|(?i:let's\s+)?(?i:leave|keep|take|get|cut))\s+(?P<obj>[^.!?;]{{1,60}}?)"
    rf"(?:\s+(?i:between\s+us)(?:\s+and)?)?\s+(?i:out\s+of|off)\s+{_MEMORY_PLACE}"
)
"""A request to leave something out of the memory ("Leave the counselor part out of your notes",
"take the medication bit out of what you keep on me", "leave that out of what you remember")."""
_NOT_IN_MEMORY = (
    r"{I}\s+(?:don't|do\s+not)\s+want\s+(?P<obj>[^.!?;,]{1,40}?)\s+(?:(?:living|sitting|kept|stored|saved|"
    rf"floating\s+around|anywhere)\s+)*(?:(?:in|on)\s+{_MEMORY_PLACE}|in\s+here\b|"
    r"(?<=sitting\s)anywhere\b|(?<=stored\s)anywhere\b|(?<=saved\s)anywhere\b)"
)
"""Something not wanted in the memory ("I don't want him in your memory", "I don't want it living
anywhere in your records")."""
_WANT_GONE = (
    r"{I}(?:\s+(?:want|need)|['’]d\s+like|\s+would\s+like)\s+(?P<obj>(?!(?:it|that|this|them)\b)[^.!?;,]{1,40}?)\s+"
    rf"(?:gone|removed|deleted|erased|wiped)\s+(?:from|out\s+of)\s+{_MEMORY_PLACE}"
)
"""Something wished out of the memory by name ("I want the PIN gone from your memory"); "I'd like
it gone" points at a phrase named before it (`_FRONTED_GONE`) or said before (`_POINTED_AWAY`)."""
_NO_RECORD = (
    r"{I}(?:'d|\s+would)\s+(?:prefer|rather)\s+(?:it\s+if\s+)?you\s+(?:had|kept)\s+no\s+(?:record|note|trace)s?\s+of\s+"
    r"(?P<obj>[^.!?;,]{2,60})"
)
"""A memory wished without it ("I'd prefer you had no record of the bankruptcy")."""
_KEEP_NONE = (
    rf"^{_REQUEST_OPEN}(?i:(?:don't|do\s+not|not|never|no\s+need\s+to)\s+(?:even\s+)?(?:have|put|write|keep|hold|store|save|record|remember)|"
    r"(?:(?:i'd|i\s+would)\s+)?(?:rather|prefer)\s+(?:(?:it\s+if|that)\s+)?(?:you\s+)?(?:don't|didn't|did\s+not|not)\s+"
    r"(?:remember|keep|store|record|have))\s+"
    rf"(?P<obj>{_POINTING}|(?i:any|all)\s+of\s+{_POINTING})"
    rf"(?:\s+(?i:on\s+(?:the\s+)?record|on\s+file|in\s+{_MEMORY_PLACE}|down|anywhere|either|at\s+all))*\s*(?=[.!?,;]|$)"
)
"""A request pointing back not to keep what was just said ("Please don't keep any of that, though",
"don't even keep it in your head", "Don't have that on record", "Can you not keep that, Bertrand?",
"rather don't remember that one")."""
_UNHEAR = rf"^{_REQUEST_OPEN}(?i:unhear|unsee|unread|unremember)\s+(?:it|that|this)\b"
"""A wish the hearer had not heard ("Unhear it, please?")."""
_POINTED_AWAY = (
    rf"^{_REQUEST_OPEN}(?:"
    r"(?i:let's|let\s+us)\s+pretend\s+(?:that|this|it|I\s+never\s+said\s+(?:that|it))(?:\s+(?:conversation|bit|part))?"
    r"(?:\s+never\s+happened)?|"
    r"(?i:I\s+(?:don't|do\s+not)\s+want\s+you\s+(?:remembering|keeping|storing|recording|holding\s+on\s*to|hanging\s+on\s*to))"
    r"\s+(?:that|this|it)|"
    r"(?i:I'd|I\s+would)\s+like\s+(?:that|this|it)\s+(?:removed|deleted|erased|wiped|gone)\s+from\s+"
    rf"{_MEMORY_PLACE}|"
    r"(?i:(?:that|this|it)\s+(?:stays|goes|should\s+stay|can\s+stay|is\s+to\s+stay)|(?:can|could)\s+(?:that|this|it)\s+"
    r"(?:stay|be\s+kept|go))\s+(?i:off\s+the\s+record|out\s+of\s+"
    rf"{_MEMORY_PLACE})|"
    r"(?i:(?:that's|that\s+is)\s+not\s+something\s+(?:you|I\s+want\s+you\s+to)\s+(?:need\s+to\s+|have\s+to\s+)?"
    r"(?:keep|remember|store|hold\s+on\s*to))|"
    r"(?i:(?:best|better)\s+(?:if\s+)?you\s+(?:forget|don't\s+remember|don't\s+keep))\s+(?:that|this|it)\b|"
    r"(?i:scratch|strike|scrap)\s+(?:that|this)(?=,?\s+(?i:I\s+(?:shouldn't|should\s+not)\s+have)\b)"
    r")"
)
"""A request pointing back in other words ("Let's pretend that conversation never happened", "I
don't want you remembering that", "I'd like that removed from your memory", "Can that stay off the
record?", "That's not something you need to keep", "Best if you forget that one"): what it means
is what was said just before."""
_FORGET_SAID_NAMED = (
    rf"^{_REQUEST_OPEN}(?i:forget|ignore|disregard)\s+(?i:that\s+)?I\s+(?:(?i:ever|just|even)\s+)?"
    r"(?i:said|told\s+you|mentioned|brought\s+up)\s+"
    r"(?!(?i:that|this|it|anything|about|what|everything|so|to|how|why|when|where|which|who|we|I|you|he|she|they)\b)"
    r"(?P<obj>(?i:my|our|the|his|her|their)\s+[^.!?;,]{1,50}|[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:'s)?(?:\s+[^.!?;,]{1,40})?)"
)
"""A request that names what it points back at ("forget I mentioned Eilif and the money", "forget
I told you the recipe", "Forget I said his name"): what it names, and what was said just before."""
_FRONT_LEAD = (
    r"^(?:(?i:and|so|oh|also|about|hey|right|ok(?:ay)?|now)[,]?\s+)*(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+,\s+)?"
)
"""What may open a sentence before the topic it names first ("And about ...", "hey, ...")."""
_FRONT_NAMED = r"(?:(?i:that|the|this|what|all\s+the|everything|anything|my|our|his|her|their)\b|[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+'s\b)"
"""How a topic named first begins: a determiner, a possessive, or someone's ("Anselme's ...")."""
_LET_GO = r"(?i:drop|bin|scrap|lose|ditch|scratch|let\s+go\s+of)"
"""Verbs that erase only when they point back at something said ("the thing about Dolores - please
drop it"); alone they mean other things ("drop the kids off")."""
_FRONTED = (
    _FRONT_LEAD + rf"(?P<obj>{_FRONT_NAMED}[^.!?;]{{1,80}}?"
    r"\b(?i:told\s+(?:you|me)|gave\s+you|said|mentioned|shared|news|stuff|bit|part|thing\s+about|info|"
    r"information|business)\b"
    r"[^.!?;]{0,60}?)(?:,|\s+[-–—])\s+(?:[^.!?;]{0,60}?(?:,\s*|\s)(?i:so|and)\s+)?"
    rf"{_REQUEST_OPEN}(?:(?:{_ERASE_VERB}|{_KEEP_NOT}|{_LET_GO}|(?i:take|cut|leave|get)(?=\s+\w+\s+out\b))\s+"
    r"(?i:it|that|them|this)\b|(?i:let's|let\s+us)\s+not\s+(?:have|keep|store)\s+(?i:it|that|this)\b)"
)
"""A request that names its topic first and points back at it ("That baby news from the spring,
erase it", "the thing about Kavya from March - she wants it kept private, so please forget it", "What I told you about her diagnosis, let's not have that sitting in your memory", "About
the ear business I told you in March - please forget it"):
the phrase must say it is something said ("told you", "news", "stuff"), so "The bins, take them
out" asks nothing of the memory."""

_WIPE_VERB = r"(?i:erase|wipe|scrub|delete|purge|unremember|unlearn)"
"""Verbs that can only mean taking something out of a memory."""
_FRONTED_STRONG = (
    _FRONT_LEAD + rf"(?P<obj>{_FRONT_NAMED}[^.!?;,]{{2,60}}?)(?:,|\s+[-–—])\s+{_REQUEST_OPEN}"
    rf"(?:{_WIPE_VERB}|{_KEEP_NOT})\s+(?i:it|that|them|this)\b"
)
_SECRET_FRONTED = (
    _FRONT_LEAD
    + r"(?P<obj>(?i:my|our|the|that|this)\s+(?:[\w-]+\s+){0,3}?(?i:code|pin|password|passcode|combination|number))"
    rf"(?:,|\s+[-–—])\s+{_REQUEST_OPEN}{_LET_GO}\s+(?i:it|that|them|this)\b"
)
"""A secret's kind named first and let go of ("My PIN - bin it please"): the kind says what is
meant, so the weak verbs erase here."""
"""A topic named first, whatever it is, and then wiped or not to be kept ("The blood pressure
tablets - don't hold on to that"): the verb leaves no other reading."""
_ABOUT_FRONTED = (
    r"^(?:(?i:and|so|oh|also|ok(?:ay)?)[,]?\s+)*(?i:about|as\s+for|regarding)\s+(?P<obj>[^.!?;,]{2,60}?)"
    rf"(?:,|\s+[-–—])\s+{_REQUEST_OPEN}(?:{_ERASE_VERB}|{_KEEP_NOT}|{_LET_GO})\s+(?i:it|that|them|this)\b"
)
"""A topic introduced by "about" and then erased ("About the solar business idea - please erase
it"): "about" says it is something said, so "forget it" and "drop it" are requests here, where
after a bare phrase they may mean "never mind" ("The party - forget it, it's off")."""


_FRONTED_GONE = (
    r"^(?:(?i:and|so|oh|also)\s+)*(?P<obj>(?i:the|that|this|my|our)\b[^.!?;:]{3,60}?)(?:\s+[-–—]|:)\s+[^.!?;]{0,40}?"
    r"\b(?i:I'd|I\s+would)\s+like\s+(?i:it|that|this|them)\s+(?i:removed|deleted|erased|wiped|gone|struck|taken|"
    r"scrubbed|cut)\s+(?:out\s+)?(?:from|of|off)\s+"
    rf"{_MEMORY_PLACE}"
)
"""A topic named first and wished out of the memory ("And the money I owed my cousin - that's
sorted and I'd like it gone from your memory"): the request names the memory, so the phrase need
not say it was something told."""
_NAME_FRONTED = (
    r"^(?:(?i:and|so|oh|also)\s+)*(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?)\s+[-–—]\s+(?i:please\s+)?"
    rf"{_ERASE_VERB}\s+(?i:all\s+of\s+)?(?i:that|it|him|her|them)\b"
)
"""A person named and then erased ("And Solange - erase all of that.")."""


def memory_topic(m: re.Match[str], ctx: Ctx) -> list[str]:
    """What a request about the memory itself names: a thing it names, else (a pointing word: "that",
    "that one") what was said just before."""
    obj = (m.groupdict().get("obj") or "").strip()
    if not obj or re.fullmatch(rf"(?:(?i:any|all)\s+of\s+)?{_POINTING}", obj):
        return said_topic_only(ctx)
    return forget_topic(m, ctx)


_ABOUT_LEAD = re.compile(
    r"^(?:(?:so|and|oh|right|now|ok(?:ay)?)[,]?\s+)?(?:about|as\s+for|regarding|re)\s+(?P<obj>[^.!?;,]{2,60}?)"
    r"(?:\s+(?:I|we)\s+(?:told\s+you|mentioned|said)\b[^.!?;,]*)?[.!?:]?$",
    re.IGNORECASE,
)
"""A sentence that only names a topic before a request about it ("About the sertraline I
mentioned last time.", "About Mum.")."""
_GIVEN_LEAD = re.compile(
    r"^(?:(?:so|and|oh|right|now|ok(?:ay)?|also)[,]?\s+)?(?:that|the|this|those|these)\s+(?P<obj>[^.!?;,]{2,40}?)\s+"
    r"(?:I|we)\s+(?:just\s+|once\s+)?(?:gave|told|sent|mentioned|shared|said|wrote)\b",
    re.IGNORECASE,
)
"""A sentence that opens by naming something told before ("That alarm code I gave you in January
was Wharfside's"), before a request that points at it ("Wipe it, please.")."""
_TOLD_ABOUT_LEAD = re.compile(
    r"^(?:(?:so|and|oh|right|also)[,]?\s+)?(?:the|that)\s+(?:thing|stuff|news|business|bit|info)\s+(?:I|we)\s+"
    r"(?:told|gave|mentioned|said|shared)(?:\s+you)?(?:\s+(?:in|back\s+in|last|on)\s+\w+)?\s+"
    r"(?:about|regarding|re|of)\s+(?P<obj>[^.!?;,]{2,60}?)[.!]?$",
    re.IGNORECASE,
)
"""A sentence that only says what was told about ("The thing I told you in April about my fall."),
before a request that points at it."""
_FILLER_LEAD = re.compile(
    r"^(?:(?:so|and|oh|right|now|ok(?:ay)?|also)[,]?\s+)?(?:that|the)\s+(?P<obj>[^.!?;,]{2,40}?)\s+"
    r"(?:business|thing|stuff|situation|bit|info)\b",
    re.IGNORECASE,
)
"""A sentence that opens by naming a topic with a filler ("That spare key business from April is
out of date"), before a request that points at it ("Please forget where I said it was.")."""


def said_topic_only(ctx: Ctx) -> list[str]:
    """The statement said just before a request that points back, one topic per sentence: a turn
    the request points back at is then covered sentence by sentence, so no sentence of it survives
    as "the rest of the turn" ("Yes." alone would cover every turn saying yes: a sentence of under
    three words goes with the one after it)."""
    if (front := fronted_in(ctx.sentence)) is not None and not find_request(front):
        # "About Mama's diagnosis: please don't keep that.": the request names it first
        named = topics_named(front, 0, ctx, told=True)
        if named:
            return named
    topics: list[str] = []
    for statement in dict.fromkeys((*ctx.earlier, ctx.meant or ctx.previous)):
        flat = " ".join(statement.split())
        if (front := fronted_in(flat)) is not None:  # "The fire service thing: Innes has ..."
            topics += topics_named(front, 0, replace(ctx, sentence=flat), told=True)
        if (lead := _ABOUT_LEAD.match(flat)) is not None:
            # "About the sertraline I mentioned last time. I'd prefer you didn't have it on
            # record.": the sentence before only names what "it" is
            topics += topics_named(lead.group("obj"), 0, replace(ctx, sentence=flat), told=True)
            continue
        if (given := _GIVEN_LEAD.match(flat) or _FILLER_LEAD.match(flat)) is not None and (
            named := topics_named(given.group("obj"), 0, replace(ctx, sentence=flat), told=True)
        ):
            # "That alarm code I gave you in January was Wharfside's. Wipe it, please.": what
            # "it" is, named by the sentence, not the sentence itself
            topics += named
            continue
        parts = [flat[a:b] for a, b in split_sentences(flat)]
        merged: list[str] = []
        for part in parts:
            if merged and len(re.findall(r"\w+", merged[-1])) < 3:
                merged[-1] = f"{merged[-1]} {part}"
            else:
                merged.append(part)
        topics += [f"{SAID_PREFIX}{x.strip()}" for x in merged if x.strip() and not is_question_text(x)]
        topics += [t for t in named_things(flat) if t not in topics]
    return topics


_NAMED_THING = re.compile(
    r"(?:(?<=\s)|^)(?i:the|a|an|her|his|my|our|their)\s+((?:[A-Z][\w'-]+\s+){1,3}[a-z]{3,}(?:\s+[a-z]{3,})?)\b"
    r"(?=\s*(?:[,.;!?]|$)|\s+(?:and|but|or|with|for|in|at|to|from|because|so|that|which|after|before|"
    r"is|was|are|were|has|had|have|can|could|will|would|should|must|may|might|needs?)\b)"
)
_PLACE_BEFORE = re.compile(
    r"\b(?:to|at|in|into|on|near|from|of|by|beside|behind|outside|inside|past|through|around)\s+$",
    re.IGNORECASE,
)
_NOUN_PHRASE_ONLY = re.compile(
    r"^(?:(?i:look|so|and|oh|right|ok(?:ay)?|also)[,]?\s+)*(?:[A-Z][a-z]+,\s+)?(?i:that|the|this|my)\s+"
    r"(?P<obj>(?!(?:is|was|are|were)\b)[a-z][\w'-]*(?:\s+(?!(?:is|was|are|were|has|had|have)\b)[a-z][\w'-]*){0,3})[.!]?$"
)
"""A sentence that only points at a topic ("Look, Oriel, that allergy.") before a request about
it ("I don't want it living anywhere in your records")."""


def named_things(statement: str) -> list[str]:
    """What a statement pointed back at names by a proper noun ("Mrunal decided against the
    Muscat job" -> "Muscat job"; "And the Aadhaar number can go too" -> "Aadhaar number"):
    forgetting the statement forgets the thing too, so the turns that first told of it
    ("interviewing for a clinic job in Muscat") are withheld with it. Not a place the statement
    only locates something by ("the farmer next to the Lyonshall apiary"). A statement that is
    only a pointing noun phrase names that noun ("that allergy")."""
    if (only := _NOUN_PHRASE_ONLY.match(statement)) is not None:
        return [only.group("obj")]
    return [
        m.group(1)
        for m in _NAMED_THING.finditer(statement)
        if not _PLACE_BEFORE.search(statement[: m.start()])
    ]


REGRETS_SAYING = re.compile(
    r"\b(?:(?:shouldn't|should\s+not)\s+have|wish\s+I\s+(?:hadn't|had\s+not|didn't))\s+"
    r"(?:said|told\s+you|mentioned|brought\s+up|shared)\s+(?:that|this|it)\b",
    re.IGNORECASE,
)
"""A speaker regretting what they just said ("Oh, I shouldn't have said that.", "I wish I hadn't
said that"): it points back."""


def grammar_topic(m: re.Match[str], ctx: Ctx) -> list[str]:
    """The topics of a request read by its parts (`emem.extract.forget_grammar`): what it names;
    else, when it only points ("delete it"), the topic named before it in the sentence, the
    thing a verbless sentence before it names ("The IVF."), what the sentence before points at
    ("so that keypad code is dead"), else that sentence itself."""
    found = find_request(ctx.sentence)
    if found is None:
        return []
    if found.obj:
        topics = topics_named(found.obj, found.obj_start, ctx, told=found.told)
        if topics:
            return topics
        if found.told:  # "what I said about where she was interviewing": its words name it
            return [found.obj]
    if found.front:
        topics = topics_named(found.front, max(ctx.sentence.find(found.front), 0), ctx, told=True)
        if topics:
            return topics
    previous = ctx.previous
    if ctx.requested or (previous and find_request(previous) is not None):
        return []  # "Please don't keep that. I'd rather it wasn't written anywhere.": said already
    if previous and (lead := _TOLD_ABOUT_LEAD.match(" ".join(previous.split()))) is not None:
        # "The thing I told you in April about my fall. I've told the children myself now, so
        # please don't keep it": "it" is what the sentence before says was told about
        topics = topics_named(lead.group("obj"), 0, replace(ctx, sentence=previous), told=True)
        if topics:
            return topics
    if found.before:  # "I quit the weekend job at the dive shop, so please forget it"
        things = things_in(found.before)[:1]
        topics = [t for p in things for t in topics_named(p, 0, ctx, told=True)]
        return topics or [f"{SAID_PREFIX}{found.before}"]
    if previous and (fragment := fragment_topic(previous)) is not None:
        topics = topics_named(fragment, 0, replace(ctx, sentence=previous), told=True)
        if topics:
            return topics
    pointed = [
        t
        for p in pointed_things(previous)
        for t in topics_named(p, previous.find(p), replace(ctx, sentence=previous), told=True)
    ]
    if pointed:
        return pointed
    if previous and (fronted := fronted_in(previous)) is not None:  # "The Gerlach thing: our lawyer ..."
        topics = topics_named(fronted, 0, replace(ctx, sentence=previous), told=True)
        if topics:
            return topics + said_topic_only(ctx)
    return said_topic_only(ctx)


def regretted_topic(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "Oh, I shouldn't have said that. Forget it, will you.": "forget it" is a request only after
    a regret, or after a sentence that opens "About X:" and points at what was given (elsewhere
    it is "never mind"); what it names is what was regretted, or X."""
    if REGRETS_SAYING.search(ctx.previous):
        return said_topic(m, ctx)
    previous = " ".join(ctx.previous.split())
    if _ABOUT_OPEN.match(previous) and _GAVE_YOU.search(previous) and (front := fronted_in(previous)):
        # "About the bank: I've closed that account, so the answer I gave you is of no use.
        # Forget it, please.": what was given, under the topic the turn opened with
        return topics_named(front, 0, replace(ctx, sentence=previous), told=True) + said_topic_only(ctx)
    return []


_ABOUT_OPEN = re.compile(
    r"^(?:(?:so|and|oh|also|right)[,]?\s+)?(?:about|as\s+for|regarding|re)\s", re.IGNORECASE
)
_GAVE_YOU = re.compile(r"\b(?:I|we)\s+(?:gave|told|sent|showed)\s+you\b", re.IGNORECASE)


def said_topic(m: re.Match[str], ctx: Ctx) -> list[str]:
    """The topics of a request that points back: what its "about ..." names, and the statement
    said just before, recorded as `said: <sentence>` (`emem.ledger.withhold` withholds exactly
    the turns that hold it)."""
    group = next((g for g in ("obj", "about") if m.groupdict().get(g)), None)
    topics = forget_topic(m, ctx, group) if group else []
    return topics + said_topic_only(ctx)


def mentioned_topic(m: re.Match[str], ctx: Ctx) -> list[str]:
    """ "Forget I mentioned Eilif and the money": what was mentioned just before, by what the
    request names. A named thing the statement before does not say ("the money" for "owes us
    six thousand pounds") paraphrases it: when another named thing is said there, the paraphrase
    adds nothing the statement does not cover, and alone it would withhold every "money"."""
    named = forget_topic(m, ctx)
    said = said_topic_only(ctx)
    before = " ".join((*ctx.earlier, ctx.meant or ctx.previous)).casefold()
    there = [t for t in named if all(w in before for w in re.findall(r"[^\W\d_]{3,}", t.casefold()))]
    return (there if there else named) + said


def is_question_text(text: str) -> bool:
    return text.rstrip().endswith("?")


_TITLE_HEADS = "|".join(
    sorted(
        {j.title() for j in JOBS} | {"Manager", "Director", "Officer", "Lead", "Coordinator"},
        key=len,
        reverse=True,
    )
)
"""Head nouns of roles in Title Case ("Operations Manager", "Senior Product Designer")."""

RULES: tuple[Rule, ...] = (
    # where someone lives
    R(
        "lives_in",
        r"{S}{vg:move,relocate:past}(?:\s+(?:back|over|out|here|there|down|home)){0,2}"
        r"(?:\s+from\s+(?:the\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})?\s+to\s+{obj:place}",
        place,
        dated=True,
    ),
    R("lives_in", r"{S}{vg:settle:past}(?:\s+down)?\s+in(?:to)?\s+{obj:place}", place, dated=True),
    R("lives_in", r"{S}{vg:live,reside:now}\s+in\s+{obj:place}", place, dated=True),
    # "Since the 1st of August I've had a studio on Oudegracht in Utrecht": a home had since a date
    R(
        "lives_in",
        r"{S}{HAVE}{ADV}\s+(?:had|rented|been\s+renting)\s+(?:a|an|my|our)\s+(?:own\s+)?(?:[a-z]+\s+)?(?:studio|flat|"
        r"place|apartment|house|bedsit|cottage)\s+(?:on\s+(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+)?in\s+{obj:place}",
        place,
        dated=True,
    ),
    # "Tomek and I have a flat in Podgórze, near the footbridge": the home one has is where one
    # lives (a holiday or rented-out place is not)
    R(
        "lives_in",
        r"{S}{HAVE}{ADV}\s+(?:got\s+)?(?:a|an|our|my)\s+(?:own\s+)?(?:new\s+|little\s+|tiny\s+|small\s+|big\s+)?"
        r"(?:[a-z]+-bed(?:room)?\s+)?(?:flat|apartment|house|studio|cottage|bungalow|condo|townhouse)"
        r"(?:\s+on\s+(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)?\s+in\s+{obj:place}(?![^.!?;]*\brent(?:ing)?\s+(?:it\s+)?out\b)",
        place,
        dated=True,
    ),
    # "I'm staying in my place in the Oosterpoort": staying put in one's home says where it is
    R(
        "lives_in",
        r"{S}{BEN}{ADV}\s+(?:staying|stopping)\s+(?:put\s+)?in\s+(?:my|our)\s+(?:own\s+)?(?:place|flat|house|"
        r"apartment|home)\s+in\s+(?:the\s+)?{obj:place}",
        place,
    ),
    # "I'm moving in with Wietske in April, her flat in Helpman": the home moved into, with its date
    R(
        "lives_in",
        r"{S}{BEN}{ADV}\s+moving\s+in\s+(?:with\s+[A-Z][\w'-]+|together)\b[^.!?;]{0,40}?,\s+(?:her|his|their|our|my)\s+"
        r"(?:place|flat|house|apartment|home)\s+in\s+(?:the\s+)?{obj:place}",
        place,
        starts=True,
        needs_date=True,
    ),
    # "Leyla lives in Utrecht and I'm in Rotterdam": being in a place, set against where another
    # lives, says where one lives too (alone, "I'm in Rotterdam" may be a visit)
    R(
        "lives_in",
        r"\blives?\s+in\s+[A-Z][^.!?;]{0,40}?(?:,\s*|\s+)(?:and|but|while|whereas)\s+{S}{BEN}\s+(?:still\s+)?"
        r"(?:in|based\s+in)\s+{obj:place}",
        place,
    ),
    # "I live in a shared house in Worcester": the home, then where it is
    R(
        "lives_in",
        r"{S}{vg:live,reside:now}\s+in\s+(?:a|an|the|my|our)\s+(?:[\w-]+\s+){0,3}?(?:[\w]+-)?"
        r"(?:house|flat|apartment|home|cottage|studio|bungalow|terrace|houseshare|place|room|condo|caravan|boat|"
        r"unit|townhouse|trailer|semi|maisonette|duplex|cabin|bedsit)"
        r"(?:\s+on\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})?\s+(?:in|near)\s+{obj:place}",
        place,
        dated=True,
    ),
    R(
        "address",
        r"{S}{vg:live,reside:now}\s+(?:in\s+(?:a|an|the|my|our)\s+(?:[\w-]+\s+){0,3}?"
        + HOME_NOUN
        + r"\s+)?"
        + _ON_STREET_IN,
        street_in_place,
    ),
    # "I live in a share house on Warwick Street", "Home is a flat on Carrer de Sueca in Ruzafa",
    # "I live on Warwick Street in North Hobart": the street, or the area after it
    R(
        "lives_in",
        r"{S}{vg:live,reside:now}\s+(?:in\s+(?:a|an|the|my|our)\s+(?:[\w-]+\s+){0,3}?"
        + HOME_NOUN
        + r"\s+)?"
        + _ON_STREET_IN,
        place,
        dated=True,
    ),
    R(
        "lives_in",
        r"^(?:[Hh]ome|[Oo]ur\s+place|[Mm]y\s+place)\s+is\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}?"
        + HOME_NOUN
        + r"\s+"
        + _ON_STREET_IN,
        place,
        kw="home place",
    ),
    R(
        "lives_in",
        r"{S}{vg:live,reside:now}\s+in\s+(?:a|an|the|my|our)\s+(?:[\w-]+\s+){0,3}?"
        + HOME_NOUN
        + r"\s+on\s+{obj:place}(?=\s*(?:[,.;!?]|$|\s+(?:with|now|since|and|for|near|by)\b))",
        place,
        dated=True,
    ),
    R("lives_in", r"{S}{BEN}{ADV}\s+(?:based|located|settled)\s+(?:in|out\s+of)\s+{obj:place}", place),
    # Being somewhere since a date is living there ("we're in Bengaluru since 15 March", "we've been in
    # Edinburgh since 1 August"): the clause's structure says it, whatever verb moved them there.
    R(
        "lives_in",
        r"{S}(?:{BEN}|{HAVE}\s+been|'ve\s+been){ADV}(?:\s+(?:been|now|all|both|here))*\s+in\s+{obj:place}"
        r"(?=\s*(?:,\s*)?since\b)",
        place,
        dated=True,
    ),
    R("lives_in", rf"\b(?:[Mm]y|[Oo]ur)\s+new\s+{_LIVE_NOUN}\s+in\s+{{obj:place}}", place, confidence=0.7),
    # "Our apartment in Limoilou is already too small": the speaker's home, and where, said in the
    # present of the home itself (not "my old flat in Leeds", not "our flat in Leeds was ...")
    R(
        "lives_in",
        r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:little|tiny|small|rented|current)\s+)?"
        r"(?:apartment|flat|house|place|condo|cottage|bungalow)\s+in\s+{obj:place}"
        r"(?=\s+(?:is|has|needs|feels)\b|['’]s\b)",
        place,
        confidence=0.6,
        kw="apartment flat house place condo cottage bungalow",
    ),
    # "Home's in Rugby with my partner", "Our home is near Ely": where home is, said of the speaker
    R(
        "lives_in",
        r"(?:^|\b[Mm]y\s+|\b[Oo]ur\s+)[Hh]ome(?:'s|\s+is)\s+(?:now\s+)?(?:in|near|just\s+outside)\s+{obj:place}",
        place,
        confidence=0.8,
        kw="home",
    ),
    R("hometown", r"{S}{BEN}{ADV}\s+(?:originally\s+)?from\s+{obj:place}", place),
    R(
        "hometown",
        r"{S}(?:{vg:grow:past}\s+up|{BE}\s+born(?:\s+and\s+raised)?|{BE}\s+raised)\s+in\s+{obj:place}",
        place,
    ),
    R("hometown", r"\b(?:[Mm]y)\s+(?:home\s*town|home\s+country)\s+(?:is|was)\s+{obj:place}", place),
    R(
        "lives_in",
        r"{S}{vg:buy:past}\s+(?:a|our|my|the)\s+(?:new\s+|first\s+)?(?:house|home|condo|apartment|flat|place)"
        r"\s+in\s+{obj:place}",
        place,
        dated=True,
        confidence=0.6,
    ),
    R(
        "lives_in",
        r"{S}{vg:sign,rent,find,get,take,buy:past}\s+(?:(?:a|an|the|our|my)\s+)?(?:new\s+)?"
        r"(?:lease|tenancy|rental|flat|apartment|house|place|home|condo)"
        r"(?:\s+(?:on|for)\s+(?:a|an|the|our|my)\s+(?:new\s+)?(?:flat|apartment|house|place|home|condo))?"
        r"\s+(?:in|near)\s+{obj:place}",
        place,
        dated=True,
        confidence=0.7,
    ),
    # a home rented or bought, said in any tense and with its kind ("I rent a townhouse in Dieppe",
    # "I'm renting a little stone cottage in New Mills now", "a trailer out at Bells Flats"); "near"
    # names a landmark, not the town, and a unit or a studio may be a workshop
    R(
        "lives_in",
        rf"{{S}}{{vg:rent,buy:any}}\s+(?:a|an|the|our|my|half\s+a)\s+(?:[\w-]+\s+){{0,3}}?{HOME_NOUN}\s+"
        r"(?:on\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}\s+|(?:above|over|behind|below|next\s+to)\s+(?:a|an|the)\s+"
        r"[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+)?(?:in|on|(?:out|up|down)\s+(?:at|in))\s+{obj:place}",
        place,
        dated=True,
        confidence=0.7,
    ),
    R(  # "I'm in a flat in Petone with two flatmates": the home one is in, and where
        "lives_in",
        rf"{{S}}{{BEN}}(?:\s+(?:still|now|currently|living))?\s+in\s+(?:a|an|the|our|my)\s+(?:[\w-]+\s+){{0,3}}?"
        rf"{HOME_NOUN}\s+(?:in|on|(?:out|up|down)\s+(?:at|in))\s+{{obj:place}}",
        place,
        confidence=0.7,
    ),
    R(  # "We're on the farm at Mineral Point now!": a farm one is on now, and where
        "lives_in",
        r"{S}{BEN}(?:\s+(?:now|finally))?\s+(?:on|at)\s+(?:a|the|our|my)\s+(?:[\w-]+\s+){0,2}?"
        r"(?:farm|ranch|smallholding|croft|homestead|vineyard)\s+(?:at|in|near|outside)\s+{obj:place}"
        r"(?=\s+now\b|\s+for\s+good\b)",
        place,
        confidence=0.7,
    ),
    R(
        "lives_in",
        r"(?i:\b(?:bye(?:[\s-]+bye)?|goodbye|so\s+long|farewell))\s+[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2},?\s+"
        r"(?i:hello|hi)\s+{obj:place}",
        place,
        confidence=0.6,
        kw="bye goodbye long farewell",
    ),
    R(
        "lives_in",
        r"{S}{vg:end:past}\s+up(?:\s+(?:living|settling|renting))?\s+in\s+{obj:place}",
        place,
        dated=True,
        confidence=0.6,
    ),
    R(
        "lives_in",
        r"{S}{BEN}(?:\s+(?:still|now|finally))?(?:\s+(?:stuck|settled|living|based))?\s+in\s+{obj:place}"
        r"(?=\s*(?:,\s*)?(?:now|these\s+days|nowadays|btw|permanently|for\s+good|full[\s-]time)\b)",
        place,
        confidence=0.6,
    ),
    R(
        "lives_in",
        r"{S}{BEN}\s+(?:still|now)(?:\s+(?:stuck|living))?\s+in\s+{obj:place}",
        place,
        confidence=0.6,
    ),
    # job and employer
    R(
        "works_at",
        r"{S}{vg:work:now}(?:\s+[a-z]+ly|\s+from\s+home|\s+full[\s-]time|\s+part[\s-]time)?\s+(?:at|for)\s+{obj:org}",
        org,
        dated=True,
    ),
    R(
        "works_at",
        r"{S}{vg:get,land,start,take,begin,find,accept:past}\s+(?:a|an|the|my|this)\s+"
        r"(?:[a-z][\w-]*\s+){0,4}?(?:job|position|role|gig|internship|post|placement)"
        r"(?:\s+as\s+(?:(?:a|an)\s+)?[a-z]+(?:\s+[a-z]+){0,2}?)?"
        r"(?:\s+(?:in|on)\s+(?:the|a|an|its)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)?\s+(?:at|with)\s+{obj:org}",
        org,
        dated=True,
    ),
    R(
        "job_title",
        r"{S}{vg:get,land,start,take,begin,find,accept:past}\s+(?:a|an|the|my|this)\s+"
        r"(?:(?:new|first|dream|full-time|part-time|summer|great|big)\s+)*(?:job|position|role|offer)"
        r"\s+as\s+(?:(?:a|an)\s+)?(?P<obj>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)(?=\s+(?:at|with|in|for)\b|\s*[.,;!]|$)",
        job_phrase,
        dated=True,
    ),
    # the post named before "job" ("I've accepted a head chef job at The Gannet")
    R(
        "job_title",
        r"{S}{vg:get,land,start,take,accept:past}\s+(?:a|an|the|my|this)\s+(?:new\s+)?{obj:job}\s+"
        r"(?:job|position|role|post)\s+(?:at|with|for)\s+[A-Z]",
        job,
        dated=True,
    ),
    R(
        "works_at",
        r"{S}{vg:start,begin:past}\s+(?:working|to\s+work)\s+(?:at|for)\s+{obj:org}",
        org,
        dated=True,
    ),
    R("works_at", r"{S}(?:{vg:get:past}|{BE})\s+(?:hired|employed)\s+(?:at|by)\s+{obj:org}", org, dated=True),
    # a move made for a job says the job ("I moved to Denver in July for a new job at Vantage Labs")
    R(
        "works_at",
        r"{S}{vg:move,relocate:past}\b[^.!?;]{0,50}?\bfor\s+(?:a|an|the|my)\s+(?:new\s+)?(?:job|position|role|post)"
        r"(?:\s+as\s+(?:(?:a|an)\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)?\s+(?:at|with)\s+{obj:org}",
        org,
        dated=True,
    ),
    R(
        "works_at",
        rf"{{S}}{{vg:start,begin:past}}(?:\s+out)?\s+as\s+(?:a|an)\s+{_JOB_ANY}\s+(?:at|with)\s+{{obj:org}}",
        org,
        dated=True,
    ),
    R(
        "job_title",
        rf"{{S}}{{vg:start,begin:past}}(?:\s+out)?\s+as\s+(?:a|an)\s+{_JOB_ANY}\s+(?:at|with)\s+{{obj:org}}",
        job_from("job"),
        dated=True,
    ),
    R("works_at", r"{S}{BEN}{ADV}\s+(?:a|an)\s+{job:job}\s+(?:at|for)\s+{obj:org}", org),
    # "I'm a saddler, bench saddler, at Hathersage & Birch", "I'm the head cheesemaker at the
    # Pecatonica Valley Cooperative": a trade the word list lacks, known by its agent ending,
    # held at a place with a capitalised name
    R(
        "works_at",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:a|an|the)\s+(?:[a-z][\w-]*\s+)?{_AGENT_NOUN}{_AGENT_AGAIN}\s+(?:at|for)\s+{{obj:org}}",
        org_cap,
        confidence=0.6,
    ),
    R(
        "job_title",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:a|an|the)\s+(?P<obj>(?:[a-z][\w-]*\s+)?{_AGENT_NOUN}){_AGENT_AGAIN}"
        r"\s+(?:at|for)\s+(?:the\s+)?[A-Z]",
        job,
        confidence=0.6,
    ),
    # "I'm a land surveyor with Crane & Hollis": a job with a named firm is work there
    R("works_at", r"{S}{BEN}{ADV}\s+(?:a|an)\s+{job:job}\s+with\s+{obj:org}", org_name, confidence=0.7),
    # "I'm sous chef at Casa Brasa", "she's head nurse at St Luke's": a post held, said without an
    # article, is still a job at the place named
    R("works_at", r"{S}{BEN}\s+(?:[a-z]+\s+){0,2}?{job:job}\s+(?:at|for)\s+{obj:org}", org, confidence=0.7),
    R(
        "job_title",
        r"{S}{BEN}\s+(?:(?!been\b)[a-z]+\s+)?(?!(?:been|made|starting|as)\b){obj:job}\s+(?=(?:at|for)\s+[A-Z])",
        job,
        confidence=0.7,
    ),
    # "Hi. I'm Wendelin, backend developer at Kurbis Software": the post in apposition to one's name
    R(
        "works_at",
        r"\b(?:I'm|I\s+am)\s+[A-Z][\w'-]+,\s+(?:(?:a|an|the)\s+)?{job:job}\s+(?:at|for|with)\s+{obj:org}",
        org,
        confidence=0.7,
    ),
    R(
        "job_title",
        r"\b(?:I'm|I\s+am)\s+[A-Z][\w'-]+,\s+(?:(?:a|an|the)\s+)?{obj:job}\s+(?=(?:at|for|with)\s+[A-Z])",
        job,
        confidence=0.7,
    ),
    # "I'm still at Inkwell & Anchor", "Still at Kilnworks Roasters, five mornings a week": being
    # still at a named place is where one works (a visit is not said with "still")
    R(
        "works_at",
        r"{S}{BEN}\s+still\s+(?:at|with)\s+(?=[A-Z][\w.-]*\s+(?:&\s+)?[A-Z])"
        r"(?![^.!?,;]*\b(?:Airport|Station|Terminal|Hospital|Hotel|Services)\b){obj:org}",
        org,
        confidence=0.7,
    ),
    # Work said by what one does there ("I teach chemistry at Lycée Ampère", "I nurse at St
    # Luke's"): the place is the employer.
    R(
        "works_at",
        r"{S}{vg:teach,lecture,tutor,nurse,code,program,practise,practice:now}(?:\s+[a-z][\w-]*){0,3}?"
        r"\s+(?:at|for)\s+{obj:org}",
        org,
        dated=True,
        confidence=0.8,
    ),
    # "he teaches woodwork at Prospect High": a teacher of the subject (what he does, beside where)
    R(
        "job_title",
        r"{S}{vg:teach:now}\s+(?P<obj>[a-z][\w-]*(?:\s+(?:and\s+)?[a-z][\w-]*)?)\s+(?=(?:at|in)\s+(?:the\s+)?[A-Z])",
        teacher,
        dated=True,
        confidence=0.8,
    ),
    # "I fix bikes at Spokesmith", "I bake sourdough for Crumb & Co": a trade plied at a named
    # place (its capitalised name only: "I cook at home" names no employer).
    R(
        "works_at",
        r"{S}{vg:fix,repair,service,bake,cook,serve,roast,brew,bartend:now}(?:\s+[a-z][\w-]*){0,3}?\s+(?:at|for)\s+{obj:org}",
        org_name,
        dated=True,
        confidence=0.8,
    ),
    # "I'm running the workshop at Velo Noord now", "she manages the kitchen at Ortolan": a place of
    # work run or managed there.
    R(
        "works_at",
        r"{S}(?:{BE}\s+)?{vg:run,manage,head,lead:now}\s+(?:the|a)\s+(?:[a-z]+\s+)?(?:workshop|shop|kitchen|bar|team|"
        r"office|lab|store|clinic|ward|studio|warehouse|department|desk|site|branch|unit|practice)\s+(?:at|for)\s+{obj:org}",
        org_name,
        dated=True,
        confidence=0.8,
    ),
    # "working out of the Bunbury station", "I've transferred to the Donnybrook branch": the
    # station or branch one works from, by its town
    R(
        "works_at",
        r"{S}(?:{BEN}{ADV}\s+)?(?:working|based)\s+(?:out\s+of|from|at)\s+the\s+"
        r"(?P<obj>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?:station|branch|depot|office|base|hub|ward))\b",
        np(),
        dated=True,
        confidence=0.7,
    ),
    R(
        "works_at",
        r"{S}{HAVE}{ADV}\s+(?:been\s+)?transferred\s+to\s+the\s+"
        r"(?P<obj>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?:station|branch|depot|office|base|hub|ward|store|site))\b",
        np(),
        dated=True,
        confidence=0.7,
    ),
    # "I'm a line cook at Ortolan": "cook" is left out of the job heads ("a good cook"), but a cook
    # at a named place is a job there.
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:a|an)\s+(?:[a-z]+\s+)?cook\s+(?:at|for)\s+{obj:org}",
        org_name,
        confidence=0.8,
    ),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+(?:a|an)\s+(?P<obj>(?:[a-z]+\s+)?cook)(?=\s+(?:at|for)\s+[A-Z])",
        job_phrase,
        confidence=0.8,
    ),
    R("job_title", r"{S}{BEN}{ADV}\s+(?:a|an)\s+{obj:job}", job),
    R("job_title", r"{S}{HAVE}{ADV}\s+been\s+(?:a|an)\s+{obj:job}", job),
    # "Since July I've been head pastry chef at Marrow & Vine": a post held until now, at a place
    R(
        "works_at",
        r"{S}{HAVE}{ADV}\s+been\s+(?:(?:a|an|the)\s+)?(?:[a-z]+\s+)?{job:job}\s+(?:at|for)\s+{obj:org}",
        org_name,
        dated=True,
        confidence=0.7,
    ),
    R(
        "job_title",
        r"{S}{HAVE}{ADV}\s+been\s+(?:(?:a|an|the)\s+)?(?:[a-z]+\s+)?{obj:job}(?=\s+(?:at|for)\s+[A-Z])",
        job,
        dated=True,
        confidence=0.7,
    ),
    R("job_title", r"{S}{vg:work:now}\s+as\s+(?:a|an)\s+{obj:np}", job_phrase),
    R(
        "works_at",
        r"{S}{vg:work:now}\s+as\s+(?:a|an)\s+(?:[a-z][\w-]*|[A-Z]{2,5})(?:\s+[a-z][\w-]*){0,3}?\s+(?:at|for|with)\s+{obj:org}",
        org,
    ),
    R(
        "job_title",
        r"{S}{vg:work:now}\s+(?:at|for)\s+[^.!?;,]{1,60}?\s+as\s+(?:a|an)\s+{obj:np}",
        np(4, strip_article=True, split_lists=False),
    ),
    # a place of work named, then said what kind it is ("I've left the NHS and I'm at Kelham
    # Physio, a private sports clinic"): being "at" a named place is work only when it is a
    # workplace
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?(?:at|with)\s+{obj:org},\s+(?:a|an|the)\s+(?:[a-z][\w-]*\s+){0,3}?"
        r"(?:clinic|practice|firm|company|agency|school|hospital|surgery|studio|charity|brewery|bakery|"
        r"restaurant|hotel|consultancy|start-?up|centre|center|garage|workshop|nursery|college|lab)\b",
        org_name,
        dated=True,
        confidence=0.8,
    ),
    # a place of work then the role ("I'm at the Northern General now, as a sonographer"): both
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?(?:at|with)\s+{obj:org}(?:\s+now)?,?\s+as\s+(?:a|an|the)\s+(?:[a-z][\w-]*\s+){0,3}?"
        rf"(?:{{role:job}}|{_AGENT_NOUN})\b",
        org_cap,
        confidence=0.8,
    ),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+(?:at|with)\s+[^,.;!?]{1,40}?(?:\s+now)?,?\s+as\s+(?:a|an|the)\s+{obj:job}",
        job,
    ),
    # years in a trade, said by the one who plies it ("Sixteen years a postman and I still ...")
    R(
        "job_title",
        r"^(?P<lead>)(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+|\d+)\s+years?\s+(?:as\s+)?(?:a|an)\s+{obj:job}\b",
        job,
        kw="years year",
    ),
    # work said by the verb ("He's freelancing now", "I'm teaching bass full time now")
    R("job_title", r"{S}{BEN}{ADV}\s+(?:now\s+)?freelancing\b", const("freelance"), kw="freelancing"),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+teaching\s+(?P<obj>[a-z]+)\s+(?=full[- ]time|for\s+a\s+living)",
        lambda m, ctx: [f"{m.group('obj').lower()} teacher"],
        kw="teaching",
    ),
    R("job_title", r"{S}{vg:get:past}\s+promoted\s+to\s+{obj:np}", job_phrase, dated=True),
    # "I've been made team leader at Donnybrook", "Oisin's been made a driver manager": a post given
    R(
        "job_title",
        r"{S}(?:{HAVE}|'ve|'s){ADV}\s+been\s+made\s+(?!(?:redundant|homeless|welcome|aware|sure|responsible|to|"
        r"fun|ill|sick|better|worse|a\s+fool|an?\s+(?:offer|example|exception)|use|part)\b)(?:(?:a|an|the)\s+)?{obj:np}",
        job_phrase,
        dated=True,
        kw="made",
    ),
    R("job_title", r"{S}{BE}{ADV}\s+promoted\s+to\s+{obj:np}", job_phrase, dated=True),
    R("job_title", r"{S}{HAVE}{ADV}\s+been{ADV}\s+promoted\s+to\s+{obj:np}", job_phrase, dated=True),
    R("job_title", r"{S}{vg:become,qualify:past}\s+(?:as\s+)?(?:a|an)\s+{obj:job}", job, dated=True),
    R(
        "job_title",
        r"(?<![Ll]ost\s)(?<![Qq]uit\s)(?<![Ll]eft\s)\b(?:[Mm]y|[Oo]ur)\s+(?:new\s+)?job\s+as\s+(?:a|an)\s+{obj:np}",
        job_phrase,
    ),
    R("works_at", r"{S}{vg:join:past}\s+{obj:org}\s+as\s+(?:a|an)\s+", org, dated=True),
    # a business of one's own, named where it is set up ("He left Brennick Electric in September
    # and registered his own company, Lachance Electrical") or in the next sentence ("I'm running my
    # own studio. I'm calling it Second Gather Studio.")
    R(
        "works_at",
        r"{S}(?:\s+[^.!?;]{1,60}?\s+and)?{vg:register,start,open,set,launch,run,found:any}(?:\s+up)?\s+"
        rf"(?:my|our|his|her|their)\s+own\s+(?:[a-z-]+\s+){{0,2}}{_OWN_FIRM},?\s+(?:(?:called|named)\s+)?{{obj:org}}",
        org_name,
        dated=True,
    ),
    # "I've set up on my own, Oolite Stoneworks, restoration and letter-cutting": going it alone,
    # then the business's name
    R(
        "works_at",
        r"{S}{HAVE}{ADV}\s+(?:set|started)\s+up\s+on\s+(?:my|our|his|her|their)\s+own,\s+(?:(?:as|called|named)\s+)?{obj:org}",
        org_name,
        dated=True,
    ),
    R(
        "works_at",
        r"{S}{BEN}\s+(?:calling|naming)\s+it\s+{obj:org}",
        own_firm_named_before,
        kw="calling naming",
    ),
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?with\s+{obj:org}(?=\s+now\b|\s*[.!,;]|$)",
        employer_after_leaving,
        confidence=0.7,
    ),
    # "joined Ordnance Survey as a geospatial analyst": the post taken with the employer
    R(
        "job_title",
        r"{S}{vg:join:past}\s+[A-Z][^.!?;]{0,60}?\s+as\s+(?:a|an)\s+(?P<obj>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
        r"(?=\s*(?:[.,;!]|$|\s+(?:at|in|from|on|with)\b))",
        job_phrase,
        dated=True,
    ),
    # a job taken by the employer's name ("I took the Ostler job", "She got the Quantock job!")
    R(
        "works_at",
        r"{S}{vg:get,land,take,accept:past}\s+the\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})\s+"
        r"(?:job|post|position|role|contract|offer)\b",
        employer_of_job,
        dated=True,
        confidence=0.8,
    ),
    # work said by what one does for an employer ("I'm driving for Parcelway now", "trunking
    # nights for Thackray Haulage"): verbs of trades, not of favours ("cooking for Mum")
    R(
        "works_at",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:now\s+)?(?:{'|'.join(_TRADES_DOING)})(?:\s+[a-z]+){{0,2}}?\s+for\s+{{obj:org}}",
        org_name,
        dated=True,
        confidence=0.7,
        kw=" ".join(_TRADES_DOING),
    ),
    # a post offered, then started ("I've been offered head sommelier at Aubade. I start in
    # August."): an offer alone is not a job, one the speaker starts is
    R(
        "works_at",
        r"{S}(?:{HAVE}\s+been|'ve\s+been|{BE})\s+offered\s+(?:a\s+|an\s+|the\s+)?(?:[a-z][\w-]*\s+){0,3}?"
        r"(?:job\s+|post\s+|position\s+|role\s+)?(?:at|with)\s+{obj:org}",
        lambda m, ctx: org_name(m, ctx) if _STARTS_IT.search(ctx.context) else [],
        starts=True,
        confidence=0.7,
        kw="offered",
    ),
    # "I got an offer from Westfield College, head of science from September! I accepted
    # yesterday.": an offer is a job once it is accepted or started
    R(
        "works_at",
        r"{S}{vg:get,receive,have:past}\s+(?:an?\s+|the\s+)?(?:job\s+|new\s+)?offer\s+from\s+{obj:org}",
        lambda m, ctx: org_name(m, ctx) if _offer_taken(ctx) else [],
        starts=True,
        confidence=0.7,
        kw="offer",
    ),
    # relationships
    R("relationship_status", r"{S}{vg:get:past}\s+married\b", const("married"), dated=True),
    R("relationship_status", r"{S}{vg:tie:past}\s+the\s+knot\b", const("married"), dated=True),
    R(
        "relationship_status",
        r"{S}(?:{BEN}|{HAVE}\s+been){ADV}\s+(?:happily\s+)?married\b(?!\s+to\s+(?:my|the)\s+job)",
        const("married"),
    ),
    R(
        "relationship_status",
        r"\b(?:[Mm]y|[Oo]ur)\s+(?:wife|husband|spouse)\b",
        const("married"),
        confidence=0.6,
    ),
    R(
        "relationship_status",
        r"\b(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)'s\s+(?:wife|husband)\b",
        const("married"),
        confidence=0.6,
    ),
    R("relationship_status", r"{S}{vg:get:past}\s+engaged\b", const("engaged"), dated=True),
    R("relationship_status", r"{S}{BEN}{ADV}\s+engaged\b", const("engaged")),
    R("relationship_status", r"\b(?:[Mm]y)\s+(?:fianc[ée]e?|fiancee?)\b", const("engaged"), confidence=0.6),
    R(
        "relationship_status",
        r"(?:^|[.!?]\s+|\b(?:and|so)\s+)[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+" + _PROPOSED,
        const("engaged"),
        dated=True,
    ),
    R(
        "relationship_status",
        r"\b(?:[Hh]e|[Ss]he|[Tt]hey)\s+proposed\s+to\s+me\b",
        const("engaged"),
        dated=True,
    ),
    R(
        "relationship_status",
        r"{S}{BEN}{ADV}\s+single\b(?!\s+(?:mom|mum|dad|parent|mother|father))",
        const("single"),
    ),
    R("relationship_status", r"{S}{vg:break,split:past}\s+up\b", const("single"), dated=True),
    R("relationship_status", r"{S}{vg:get:past}\s+dumped\b", const("single"), dated=True),
    R(
        "relationship_status",
        r"{S}(?:{vg:get:past}|{BEN}|{HAVE}\s+been)\s+divorced\b",
        const("divorced"),
        dated=True,
    ),
    R(
        "relationship_status",
        r"{S}{vg:separate:past}\b(?!\s+(?:the|my|our|them|it))",
        const("separated"),
        dated=True,
    ),
    R(
        "relationship_status",
        r"\b(?:[Mm]y)\s+(?:boyfriend|girlfriend)\b",
        const("in a relationship"),
        confidence=0.6,
    ),
    R(
        "relationship_status",
        r"{S}(?:{BEN}{ADV}\s+(?:dating|seeing)\s+(?:someone|somebody|a\s+\w+|[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)|"
        r"{vg:start:past}\s+dating\b|{BEN}{ADV}\s+in\s+a\s+(?:new\s+)?relationship\b)",
        const("in a relationship"),
        dated=True,
    ),
    R(
        "relationship_status",
        r"(?:{S}{BEN}{ADV}\s+(?:a\s+)?(?:widow|widower|widowed)\b|\b[Mm]y\s+late\s+(?:wife|husband)\b)",
        const("widowed"),
    ),
    # age
    R("age", r"{S}{BEN}{ADV}\s+{obj:num}(?:\s+years?\s+old|\s+y/?o)\b", age),
    R(
        "age",
        r"{S}{BEN}\s+{obj:num}(?=\s*(?:[.!,;]|$|\s+now\b|\s+this\s+year\b|\s+and\s+(?:I|still)\b|"
        r"\s+and\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s+is|'s)\s+\d))",
        age,
    ),
    R(
        "age",
        r"{S}{vg:turn:past}\s+{obj:num}\b(?!\s*(?:%|percent|minutes|miles|degrees|pounds|kg|lbs))",
        age,
        dated=True,
    ),
    # pets
    R("has_pet", rf"\b(?:[Mm]y|[Oo]ur)\s+{_SPECIES}(?:,\s*|\s+)(?:named\s+|called\s+)?{_PETNAME}", pet),
    R("has_pet", rf"\b(?:[Mm]y|[Oo]ur)\s+{_SPECIES}(?:'s)?\s+name\s+is\s+{_PETNAME}", pet),
    R("has_pet", rf"\b(?:[Mm]y|[Oo]ur)\s+(?P<count>two|three|four|five|[2-5])\s+{_SPECIES}", pet),
    R(
        "has_pet",
        rf"{{S}}{{vg:adopt,rescue,get,buy,bring home,take in,foster:past}}\s+{_COUNT}\s+{_SPECIES}"
        rf"(?:\s+(?:named|called)\s+{_PETNAME})?",
        pet,
        dated=True,
    ),
    R(
        "has_pet",
        rf"{{S}}{{vg:have,own:now}}\s+{_COUNT}\s+(?:(?!{_PETS}\b)[a-z]+\s+)?{_SPECIES}(?:(?:\s+(?:named|called)\s+|(?<![sS]),\s*)"
        r"(?:(?<=named\s)|(?<=called\s)|(?=[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s*[,.!;]|\s*$|\s+(?:who|which|that|and)\b)))"
        rf"{_PETNAME})?",
        pet,
    ),
    R(
        "has_pet",
        rf"\b(?:[Mm]y|[Oo]ur)\s+{_SPECIES}(?!\s*(?:,\s*)?(?:named|called|[A-Z]))",
        pet,
        fallback=True,
        confidence=0.6,
    ),
    # children and friends
    R(
        "has_child",
        rf"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:oldest|youngest|eldest|little|older|younger|newborn|\d+-year-old)\s+)?"
        rf"{_CHILD}(?:,\s*|\s+)(?:named\s+)?{_PETNAME}",
        child,
    ),
    R(
        "has_child",
        rf"{{S}}{{vg:have:now}}\s+{_COUNT}\s+(?:(?:young|little|grown|small|adult|wonderful|amazing|"
        r"beautiful)\s+)?(?P<kin>kids|children|sons|daughters|kid|child|son|daughter)\b(?![-\w])"
        rf"(?:,?\s+(?:named|called)\s+{_PETNAME})?",
        child,
    ),
    R(
        "has_child",
        rf"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:oldest|youngest|eldest|little|older|younger)\s+)?"
        rf"(?P<kin>son|daughter|kid|child)(?:'s)?\s+name\s+is\s+{_PETNAME}",
        child,
    ),
    R(
        "has_child",
        r"{S}{vg:have,welcome:past}\s+(?:a|our|my|a\s+new)\s+(?P<kin>baby\s+boy|baby\s+girl|baby|son|daughter)"
        rf"\b(?![\s-]*(?:shower|sitter|monitor|gate|food|clothes|steps?|brother|sister))(?:(?:,?\s+(?:named|called)\s+|"
        rf",\s+(?=[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\s*,)){_PETNAME})?",
        child,
        dated=True,
    ),
    R(
        "has_child",
        r"{S}{BEN}{ADV}\s+(?:a\s+)?(?:proud\s+|busy\s+|single\s+)?(?:mom|mum|mother|dad|father|parent)\s+"
        r"(?:of|to)\s+(?P<count>two|three|four|five|six|\d)\b(?!\s*(?:years|months|weeks|days))",
        const_kids,
    ),
    R(
        "has_child",
        r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:oldest|youngest|eldest|little|older|younger|newborn|two|three|four)\s+)?"
        r"(?P<kin>kids|children|son|daughter|sons|daughters)\b(?!'s\s+(?:friend|teacher|school|coach))",
        child,
        fallback=True,
        confidence=0.6,
    ),
    R(
        "friend_of",
        r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:best|close|good|old|dear|childhood|oldest|new)\s+)*friend"
        r"(?:,\s*|\s+)(?:named\s+)?(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b",
        person(),
    ),
    R(
        "friend_of",
        r"{S}{vg:become,make:past}\s+friends\s+with\s+(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b",
        person(),
        dated=True,
    ),
    # likes and dislikes
    R("likes", r"{S}{vg:love,adore,enjoy,like:any}\s+{obj:np}", liked, cessation="forbidden"),
    R(
        "likes",
        r"{S}{BEN}{ADV}\s+(?:into|obsessed\s+with|passionate\s+about|crazy\s+about|fond\s+of|hooked\s+on|"
        r"addicted\s+to|(?:a|an)\s+(?:(?:big|huge|massive|great|die-hard|avid)\s+)?fan\s+of)\s+{obj:np}",
        liked,
    ),
    R(
        "likes",
        r"\b(?:[Mm]y)\s+(?:absolute\s+|all-time\s+)?favou?rite\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is|are|has\s+to\s+be)"
        r"\s+(?:(?:now|currently|still|definitely|probably|actually)\s+)?{obj:np}",
        liked,
    ),
    R("likes", r"{S}{vg:fall:past}\s+in\s+love\s+with\s+{obj:np}", liked),
    R("dislikes", r"{S}{vg:hate,dislike,detest,loathe,despise:any}\s+{obj:np}", liked),
    R("dislikes", r"{S}\s+(?:can't|cannot|can\s+not|couldn't)\s+stand\s+{obj:np}", liked, negated=True),
    R(
        "dislikes",
        r"{S}\s+(?:don't|do\s+not|doesn't|does\s+not){ADV}\s+(?:like|enjoy)\s+{obj:np}",
        liked,
        negated=True,
    ),
    R(
        "dislikes",
        r"{S}(?:'m|\s+am|'re|\s+are|\s+is|'s)\s+not{ADV}\s+(?:a\s+(?:big\s+|huge\s+)?fan\s+of|into)\s+{obj:np}",
        liked,
        negated=True,
    ),
    R("dislikes", r"{S}{BEN}{ADV}\s+(?:sick|tired)\s+of\s+{obj:np}", liked),
    # plans
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+(?:planning|intending|aiming|preparing)\s+(?:to|on)\s+{obj:np}",
        plan,
        future=True,
    ),
    R("plans_to", r"{S}{vg:plan,intend,decide:now+past}\s+to\s+{obj:np}", plan, future=True),
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+(?:going\s+to|gonna)\s+(?!be\b|have\b|get\b|miss\b|cry\b|need\b)(?:{obj:np})",
        plan,
        future=True,
        needs_date=True,
    ),
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+(?P<motion>heading|flying|traveling|travelling|driving)"
        r"\s+(?:back\s+)?to\s+{obj:np}",
        plan,
        future=True,
        needs_date=True,
    ),
    # "We're moving to York": a move said in the present progressive is a plan even undated
    # (nobody is moving house at the moment of saying so), unlike "I'm driving to work".
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+(?P<motion>moving|relocating)\s+(?:back\s+)?to\s+{obj:np}",
        plan,
        future=True,
    ),
    R(
        "plans_to",
        r"{S}{HABIT}{ADV}\s+(?P<motion>move|moves|relocate|relocates)\s+(?:back\s+)?to\s+{obj:np}",
        plan,
        future=True,
        needs_date=True,
    ),
    R(
        "plans_to",
        r"{S}(?:'ll|\s+will){ADV}\s+(?:be\s+)?(?!let\b|see\b|try\b|tell\b|keep\b|send\b|talk\b|check\b)"
        r"{obj:np}",
        plan,
        future=True,
        needs_date=True,
        confidence=0.6,
        fallback=True,
    ),
    R(
        "plans_to",
        r"{S}(?:{vg:sign:past}\s+up|{vg:register,enroll:past})\s+for\s+{obj:np}",
        np(7, split_lists=False),
        future=True,
    ),
    R(
        "plans_to",
        r"{S}\s+(?:can't|cannot)\s+wait\s+to\s+{obj:np}",
        plan,
        future=True,
        negated=True,
        confidence=0.6,
    ),
    # hobbies
    R("hobby", r"{S}{vg:take up,pick up,get into:past}\s+{obj:np}", hobby, dated=True),
    R("hobby", r"{S}{vg:start,begin:past}\s+(?P<obj>[a-z]+ing\b[^.!?;]*)", hobby, dated=True),
    R("hobby", r"{S}{HAVE}{ADV}\s+been{ADV}\s+(?P<obj>[a-z]+ing\b[^.!?;]*)", hobby),
    R("hobby", r"{S}{vg:do,play,practice,practise:now}\s+{obj:np}", hobby),
    R("hobby", r"{S}{vg:go:now}\s+(?P<obj>[a-z]+ing)\b", hobby),
    R("hobby", r"{S}{BEN}{ADV}\s+(?:taking|doing)\s+{obj:np}", hobby),
    R(
        "hobby",
        r"\b(?:[Mm]y)\s+(?:new\s+|favou?rite\s+|main\s+|latest\s+)?(?:hobby|hobbies|pastime|passion)\s+"
        r"(?:is|are|has\s+been|have\s+been|include|includes)\s+{obj:np}",
        free_hobby,
    ),
    R(
        "hobby",
        r"\b(?:[Ii]n\s+)?(?:my\s+)?(?:free|spare)\s+time,?\s+{I}{ADV}(?:\s+(?:like|love)\s+to|\s+enjoy)?"
        r"\s+{obj:np}",
        free_hobby,
        confidence=0.7,
    ),
    # studies and groups
    R("studies", r"{S}{vg:study:now}\s+{obj:np}", studied),
    R(
        "studies",
        r"{S}{BEN}{ADV}\s+(?:majoring|minoring|specializing|specialising|getting\s+a\s+degree)\s+in\s+{obj:np}",
        studied,
    ),
    R(
        "studies",
        r"{S}{BEN}{ADV}\s+(?:learning|taking\s+(?:a\s+|an\s+|some\s+)?(?:online\s+|night\s+)?"
        r"(?:class(?:es)?|course(?:s)?|lessons?)\s+(?:in|on))\s+(?!to\s+(?:live|be|deal|cope|accept|let))"
        r"{obj:np}",
        studied,
    ),
    R("studies", r"{S}{vg:enroll:past}\s+in\s+{obj:np}", np(6, split_lists=False), dated=True),
    R(  # "I got into the anaesthesia nursing programme in Kumasi"
        "studies",
        r"{S}\s+(?:got|was|have\s+been|'ve\s+been)\s+(?:(?:accepted|admitted)\s+)?(?:into|onto|to)\s+"
        r"(?:the|a|an)\s+(?P<obj>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)\s+(?:programme|program|course|degree)\b",
        studied,
        starts=True,
    ),
    R(
        "studies",
        r"{S}{BEN}{ADV}\s+(?:in|at)\s+(?:grad(?:uate)?\s+school|college|university|uni|law\s+school|"
        r"med(?:ical)?\s+school|nursing\s+school)\s+(?:for|studying)\s+{obj:np}",
        studied,
    ),
    R("member_of", r"{S}{vg:join:past}\s+{obj:np}", group_np, dated=True),
    R(
        "member_of",
        r"{S}{BEN}{ADV}\s+(?:a|an)\s+(?:active\s+|proud\s+|new\s+)?member\s+of\s+{obj:np}",
        group_np,
    ),
    R("member_of", r"{S}{BEN}{ADV}\s+(?:part\s+of|in)\s+{obj:np}", group_np, confidence=0.7),
    R(  # "I play the talking drum in a small band called Sankofa Groove"
        "member_of",
        r"{S}{vg:play,sing:now}\s+(?:[^.!?;,]{1,40}?\s+)?in\s+{obj:np}",
        group_np,
        confidence=0.7,
    ),
    # possessions
    R(
        "owns",
        r"{S}{vg:buy,purchase:past}\s+(?:myself\s+|ourselves\s+)?{obj:np}",
        np(6, split_lists=False),
        dated=True,
    ),
    R(
        "owns",
        r"{S}{vg:get:past}\s+(?:myself\s+|ourselves\s+)?(?P<obj>(?:a|an)\s+(?:brand\s+)?new\s+"
        r"(?!(?:phone\s+|cell\s+|mobile\s+)?number\b|e-?mail\b|address\b|job\b|role\b|position\b)[^.!?;]+)",
        np(6, split_lists=False),
        dated=True,
        confidence=0.7,
    ),
    R("owns", r"{S}{vg:own:now}\s+{obj:np}", np(6, split_lists=False)),
    # visits and events
    R(
        "visited",
        r"{S}{vg:go,travel,fly,drive,head:past}\s+(?:back\s+|over\s+|down\s+|up\s+)?to\s+{obj:place}",
        place,
        dated=True,
    ),
    R("visited", r"{S}{vg:visit,explore,tour:past}\s+{obj:place}", place, dated=True),
    R("visited", r"{S}{vg:be:past}\s+in\s+{obj:place}", place, dated=True, needs_date=True),
    R("visited", r"{S}{HAVE}{ADV}\s+been\s+to\s+{obj:place}", place, dated=True),
    R(
        "visited",
        r"{S}{vg:take,make,go:past}\s+(?:on\s+)?(?:a|an|my|our|the)\s+(?:[a-z-]+\s+){0,2}?"
        r"(?:trip|vacation|holiday|getaway|visit)\s+to\s+{obj:place}",
        place,
        dated=True,
    ),
    R(
        "visited",
        r"{S}{vg:spend:past}\s+(?:a|an|the|two|three|four|five|six|\w+)\s+(?:days?|weeks?|nights?|months?|"
        r"weekend|summer|holidays?|vacation|time)\s+in\s+{obj:place}",
        place,
        dated=True,
    ),
    R("visited", r"{S}{vg:get,come,fly:past}\s+back\s+from\s+{obj:place}", place, dated=True),
    R(
        "visited",
        r"\b(?:[Mm]y|[Oo]ur)\s+(?:recent\s+|last\s+)?(?:trip|vacation|holiday|visit)\s+to\s+{obj:place}",
        place,
        dated=True,
        confidence=0.6,
    ),
    R("attended", rf"{{S}}{{vg:go,be:past}}\s+{_EVT}{{obj:np}}", event, dated=True),
    R("attended", r"{S}{vg:attend:past}\s+{obj:np}", np(7, split_lists=False), dated=True),
    # dated events in general (only where nothing more specific matched)
    R(
        "did",
        r"{S}{ADV}\s+(?P<obj>(?P<verb>(?!(?:ne|fe|se|bl|sp|proce|succe|exce|bre)ed\b)[a-z]{2,}ed|ran|won|swam|"
        r"rode|wrote|gave|taught|spent|met|built|sold|broke|flew|came|took|made|went|bought|saw|began|held|sang|"
        r"drew|threw|hit|dug|caught|brought|kept|did|read|finished|baked|cooked)\b[^.!?;]*)",
        did,
        dated=True,
        needs_date=True,
        fallback=True,
        confidence=0.7,
    ),
    # name and contact details
    R(
        "name",
        r"\b(?:[Mm]y)\s+(?:first\s+|full\s+)?name(?:'s|\s+is)\s+(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?)\b",
        person_name,
        confidence=0.9,
    ),
    R(
        "name",
        r"(?:^|[,;]\s*|\b(?:[Ee]veryone|[Pp]eople|[Ff]riends|[Mm]ost\s+people|[Ee]verybody|[Tt]hey)\s+(?:now\s+)?)"
        r"(?:[Pp]lease\s+)?(?:[Cc]alls?\s+me|[Ii]\s+go\s+by|I'm\s+going\s+by)\s+(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b(?!\s+(?:at|on)\b)",
        person_name,
    ),
    R(
        "name",
        r"^(?:[Hh]i|[Hh]ello|[Hh]ey)(?:\s+there)?[,!]?\s+(?:I'm|I\s+am)\s+(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b",
        person_name,
    ),
    R(
        "email",
        rf"\b(?:[Mm]y)\s+(?:new\s+|work\s+|personal\s+|current\s+)?e-?mail(?:\s+address)?(?:'s|\s+is)"
        rf"(?:\s+(?:now|actually|still))?\s+(?P<obj>{EMAIL})",
        value,
        confidence=0.9,
    ),
    R("email", rf"(?:\b[Rr]each|\b[Ee]-?mail|\b[Cc]ontact)\s+me\s+(?:at|on)\s+(?P<obj>{EMAIL})", value),
    R(
        "phone",
        rf"\b(?:[Mm]y)\s+(?:new\s+|cell\s+|mobile\s+|work\s+|home\s+)?(?:(?:phone|cell|mobile)\s+)?"
        rf"(?:number|phone|cell|mobile)(?:'s|\s+is)(?:\s+(?:now|actually|still))?\s+(?P<obj>{PHONE})",
        phone,
        confidence=0.9,
    ),
    R("phone", rf"(?:\b[Rr]each|\b[Cc]all|\b[Tt]ext)\s+me\s+(?:at|on)\s+(?P<obj>{PHONE})", phone),
    R(
        "phone",
        rf"{{S}}{{vg:get,have:past+now}}\s+a\s+new\s+(?:phone|cell|mobile)?\s*(?:number|phone)\s*[:,-]?\s*"
        rf"(?:(?:it's|it\s+is)\s+)?(?P<obj>{PHONE})",
        phone,
    ),
    R(
        "phone",
        rf"\b[Mm]y\s+(?:phone\s+|cell\s+|mobile\s+)?(?:number|phone|cell)\s+(?:has\s+)?changed\b[^.!?]{{0,20}}?"
        rf"\b(?:it's|it\s+is|to|now)\s+(?:now\s+)?(?P<obj>{PHONE})",
        phone,
    ),
    R(
        "address",
        rf"(?:\b(?:[Mm]y|[Oo]ur)\s+(?:new\s+|home\s+|mailing\s+|current\s+|postal\s+)?|^(?:[Nn]ew|[Hh]ome|[Cc]urrent)\s+)"
        rf"address(?:'s|\s+is)"
        rf"(?:\s+(?:now|actually))?\s+(?P<obj>{STREET_ADDRESS})",
        street,
        confidence=0.9,
    ),
    R("address", rf"{{S}}{{vg:live:now}}\s+at\s+(?P<obj>{STREET_ADDRESS})", street),
    R(
        "address",
        rf"\b(?:[Tt]he|[Mm]y|[Oo]ur)\s+new\s+{_LIVE_NOUN}\s+is\s+(?:at\s+|on\s+)?(?P<obj>{STREET_ADDRESS})",
        street,
    ),
    R(
        "lives_in",
        rf"\b(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?:new\s+{_LIVE_NOUN}|(?:new\s+|home\s+)?address)\s+is\s+(?:now\s+)?"
        r"(?:at\s+|on\s+)?\d{1,5}[A-Za-z]?(?:\s+[A-Z][\w'.-]*){1,4},\s+{obj:place}",
        place,
        confidence=0.7,
    ),
    # diet
    R(
        "diet",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:(?:a|fully|strictly|mostly|now|back\s+to(?:\s+being)?)\s+)*(?P<obj>{DIETS})\b"
        r"(?!\s+(?:recipes?|restaurants?|food|options?|meals?|dish(?:es)?|friends?|cookbooks?|place|burger|version))",
        diet,
    ),
    R(
        "diet",
        rf"{{S}}{{vg:go,become,turn,switch:past}}\s+(?:back\s+)?(?:to\s+(?:a\s+|being\s+)?|fully\s+)?(?P<obj>{DIETS})\b"
        r"(?!\s+(?:recipes?|restaurants?|food|options?|meals?|dish))",
        diet,
        dated=True,
    ),
    R("diet", rf"{{S}}{{HAVE}}{{ADV}}\s+been{{ADV}}\s+(?P<obj>{DIETS})\b", diet, dated=True),
    R("diet", rf"{{S}}{{BEN}}{{ADV}}\s+on\s+(?:a|the)\s+(?P<obj>{DIETS})\s+diet\b", diet),
    R(
        "diet",
        r"{S}{vg:stop,quit,give up:past}\s+eating\s+(?:meat|animal\s+products)\b",
        const("vegetarian"),
        dated=True,
    ),
    # favourites (single-valued per category: the category completes the predicate)
    R(
        FAVOURITE,
        r"\b(?:[Mm]y)\s+(?:absolute\s+|all-time\s+|new\s+|current\s+)?favou?rite\s+(?P<cat>(?:[a-z]+|TV)"
        r"(?:\s+(?:show|series|team|game|book|movie|film|band|song|artist|author|player|dish|food|drink|flavou?r|"
        r"place|spot|restaurant|genre|sport|season|city|country|animal|colou?r))?)"
        r"(?:\s+(?:these\s+days|right\s+now|at\s+the\s+moment|lately|now|currently))?\s+(?:is|are|has\s+to\s+be|"
        r"would\s+(?:have\s+to\s+)?be)\s+(?:(?:now|currently|still|definitely|probably|actually)\s+)?{obj:np}",
        favourite,
    ),
    R(  # "My favourite band, Khruangbin, is playing in Lisbon": the name set off by commas
        FAVOURITE,
        r"\b(?:[Mm]y)\s+(?:absolute\s+|all-time\s+|new\s+|current\s+)?favou?rite\s+(?P<cat>(?:[a-z]+|TV)"
        r"(?:\s+(?:show|series|team|game|book|movie|film|band|song|artist|author|player|dish|food|drink))?),\s+"
        r"(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z\d][\w'&.-]*){0,4}),",
        favourite,
    ),
    R(
        FAVOURITE,
        r"^(?P<lead>)(?P<obj>\"[^\"]{1,60}\"|[A-Z][\w'&-]*(?:\s+[\w'&-]+){0,4}?)\s+(?:is|are)\s+"
        r"(?:definitely\s+|probably\s+|still\s+)?(?:my|our)\s+(?:absolute\s+|all-time\s+|new\s+)?favou?rite\s+"
        r"(?P<cat>[a-z]+(?:\s+(?:show|series|team|game|book|movie|film|band|song|food|dish|drink))?)\b",
        favourite,
    ),
    # what someone is reading, watching, learning now
    R("reading", rf"{{S}}{{BEN}}{{ADV}}\s+(?:reading|re-?reading)\s+{TITLE}", title),
    R("reading", rf"{{S}}{{HAVE}}{{ADV}}\s+been{{ADV}}\s+(?:reading|re-?reading)\s+{TITLE}", title),
    R("reading", rf"{{S}}{{vg:start,begin:past}}\s+(?:reading|re-?reading)\s+{TITLE}", title, dated=True),
    R("reading", rf"\b(?:[Mm]y)\s+current\s+(?:read|book)\s+is\s+{TITLE}", title),
    R("reading", rf"{{S}}{{vg:finish:past}}\s+reading\s+{TITLE}", title, kind="end", dated=True),
    # "Reading-wise I'm on Creation Lake": the medium said before the work
    R(
        "reading",
        r"(?:(?<=[Rr]eading-wise )|(?<=[Bb]ook-wise )|(?<=[Rr]eading-wise, )|(?<=[Bb]ook-wise, ))"
        rf"{{S}}{{BEN}}{{ADV}}\s+on\s+{TITLE}",
        title,
        kw="reading-wise book-wise",
    ),
    # "Finished X. I'm onto Tomb of Sand now", "Now on Caledonian Road by Andrew O'Hagan": the next
    # work, by "onto" or by its author; the engine picks reading or watching
    R(MEDIUM, rf"{{S}}{{BEN}}{{ADV}}\s+(?:onto|on\s+to)\s+{TITLE}", title, kw="onto"),
    R(MEDIUM, rf"(?:^|[.!?]\s+)(?:[Nn]ow|[Nn]ext)\s+on\s+{TITLE}(?=\s+by\s+[A-Z])", title, kw="now next"),
    # "Tomb of Sand finished.": a work ended, said title first
    R(MEDIUM, rf"^{TITLE}\s+(?:finished|done)\s*[.!]", title, kind="end", kw="finished done"),
    R(
        "watching",
        rf"(?i:\b(?:right\s+now|at\s+the\s+moment|currently|these\s+days)\b)[^.!?]{{0,40}}?\b(?:one|a|the|my)\s+"
        rf"(?:(?:tv|TV)\s+)?(?:show|series)\s*[,:]\s*{TITLE}",
        title,
        confidence=0.6,
        kw="show series",
    ),
    # a work started or ended without naming the medium: the engine picks reading or watching
    R(
        MEDIUM,
        rf"{{S}}{{vg:finish,wrap up,polish off,get through,give up on:past}}\s+{TITLE}",
        title,
        kind="end",
        dated=True,
    ),
    R(
        MEDIUM,
        rf"{{S}}{{BE}}{{ADV}}\s+(?:done|finished)\s+with\s+{TITLE}",
        title,
        kind="end",
        dated=True,
        kw="done finished",
    ),
    R(
        MEDIUM,
        rf"{{S}}{{vg:finish,watch,read:past}}\s+the\s+(?:last|final)\s+(?:episode|season|chapter|page|book|volume)s?\s+of"
        rf"\s+{TITLE}",
        title,
        kind="end",
        dated=True,
    ),
    R(
        MEDIUM,
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:on|up\s+to|starting)\s+(?:season|series|episode|book|volume|chapter|part)\s+[\w-]+\s+of"
        rf"\s+{TITLE}",
        title,
        kw="season series episode book volume chapter part",
    ),
    R(
        MEDIUM,
        rf"{{S}}{{vg:start,begin,pick up,crack open,dive into,move on to,start on,get started on:past}}\s+{TITLE}",
        title,
        dated=True,
        confidence=0.7,
    ),
    R(
        MEDIUM,
        rf"{{S}}[^.!?;]{{1,80}}?(?:\b(?:and|then)|,)\s+(?:then\s+|now\s+)?(?:{{v:start,begin,pick up,move on to,dive into}})"
        rf"\s+{TITLE}",
        title,
        dated=True,
        confidence=0.7,
    ),
    R(
        MEDIUM,
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:(?:about\s+)?(?:halfway|partway|midway)|[\w-]+\s+(?:pages|chapters|episodes))"
        rf"\s+(?:through|into)\s+{TITLE}",
        title,
        kw="halfway partway midway pages chapters episodes",
    ),
    R(
        "watching",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:watching|binge-?watching|bingeing|binging|re-?watching)\s+{TITLE}",
        title,
    ),
    R(
        "watching",
        rf"{{S}}{{HAVE}}{{ADV}}\s+been{{ADV}}\s+(?:watching|binge-?watching|bingeing|binging|re-?watching)"
        rf"\s+{TITLE}",
        title,
    ),
    R(
        "watching",
        rf"{{S}}{{vg:start,begin:past}}\s+(?:watching|binge-?watching)\s+{TITLE}",
        title,
        dated=True,
    ),
    R("watching", rf"{{S}}{{vg:finish:past}}\s+watching\s+{TITLE}", title, kind="end", dated=True),
    R(
        "learning",
        r"{S}{BEN}{ADV}\s+learning\s+(?!about\b|from\b|that\b|so\b|a\s+lot\b)(?:{obj:np})",
        learned,
    ),
    R(
        "learning",
        r"{S}{HAVE}{ADV}\s+been{ADV}\s+learning\s+(?!about\b|from\b|that\b|so\b|a\s+lot\b)(?:{obj:np})",
        learned,
    ),
    R(
        "learning",
        r"{S}{vg:start,begin:past}\s+learning\s+(?!about\b|from\b)(?:{obj:np})",
        learned,
        dated=True,
    ),
    # the vehicle one drives ("I drive a Mitsubishi Outlander", "I've got an Isuzu D-Max pickup now")
    R(
        "drives",
        rf"{{S}}{{vg:drive:now}}\s+(?:a|an|the|my|our)\s+{_VEHICLE_MODS}{_VEHICLE}",
        vehicle,
        dated=True,
    ),
    R(
        "drives",
        rf"{{S}}{{vg:get,buy,go for,choose,pick,settle on,end up with:past}}\s+(?:a|an)\s+{_VEHICLE_MODS}{_VEHICLE}"
        r"(?:\s+(?:pickup|van|truck|car|ute|estate|hatchback|4x4|hybrid|diesel|electric|EV))?"
        r"(?=\s+(?:now|instead|here|there|in\s+the\s+end)\b|\s*[,.!;]|\s+[-–—]\s|$)",
        vehicle_in_talk,
        dated=True,
    ),
    R(  # "The Ranger finally died. We replaced it with a silver Honda Odyssey."
        "drives",
        rf"{{S}}{{vg:replace:past}}\s+(?:it|her|him|them|the\s+\w+)\s+with\s+(?:a|an)\s+{_VEHICLE_MODS}{_VEHICLE}",
        vehicle,
        dated=True,
    ),
    R(  # "New van as well. Sold the Doblo and bought a white Trafic with my name on the side."
        "drives",
        rf"{{S}}{{vg:get,buy:past}}\s+(?:a|an)\s+{_VEHICLE_MODS}{_VEHICLE}(?=\s+(?:with|from)\b)",
        vehicle_named_in_turn,
        dated=True,
    ),
    R(  # "The van's a silver Doblo": the vehicle said by what it is
        "drives",
        r"^(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?:new\s+|work\s+)?(?:van|car|truck|pickup|ute)(?:'s|\s+is)\s+(?:now\s+)?(?:a|an)\s+"
        rf"{_VEHICLE_MODS}{_VEHICLE}",
        vehicle,
        kw="van car truck pickup ute",
    ),
    R(  # "I traded the Polo Vivo for a silver Nissan Navara double cab": what it was traded for
        "drives",
        rf"{{S}}{{vg:trade,swap,exchange,part-exchange:past}}\s+(?:in\s+)?(?:the|my|our|a|an)\s+(?:[\w-]+\s+){{0,3}}?"
        rf"(?:for|in\s+for)\s+(?:a|an)\s+{_VEHICLE_MODS}{_VEHICLE}",
        vehicle_in_talk,
        dated=True,
    ),
    # pets named after the fact ("we got a kitten and named her Mochi")
    R(
        "has_pet",
        rf"{{S}}{{vg:adopt,rescue,get,buy:past}}\s+{_COUNT}\s+{_SPECIES}\s*(?:,\s*|\s+and\s+)(?:we\s+|I\s+)?"
        rf"(?:named|called)\s+(?:him|her|it|them)\s+{_PETNAME}",
        pet,
        dated=True,
    ),
    # family
    R(
        "has_sibling",
        rf"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:older|younger|big|little|baby|twin|oldest|youngest|eldest|kid|"
        rf"half-|step)\s*)?(?P<kin>sister|brother|sibling)(?:,\s*|\s+)(?:named\s+)?{_PETNAME}",
        kin_named,
    ),
    R(
        "has_sibling",
        rf"\b(?:[Mm]y|[Oo]ur)\s+(?P<kin>sister|brother)(?:'s)?\s+name\s+is\s+{_PETNAME}",
        kin_named,
    ),
    R(
        "has_sibling",
        rf"{{S}}{{vg:have:now}}\s+{_COUNT}\s+(?:(?:older|younger|little|big|twin)\s+)?"
        rf"(?P<kin>sisters?|brothers?|siblings)\b(?![-\w])(?:,?\s+(?:named|called)\s+{_PETNAME})?",
        kin_count,
    ),
    R(
        "has_partner",
        rf"\b(?:[Mm]y)\s+(?P<kin>husband|wife|partner|spouse|boyfriend|girlfriend|fianc[ée]e?)"
        rf"(?:,\s*|\s+)(?:named\s+)?{_PETNAME}",
        kin_named,
    ),
    R(  # "Femi proposed!!": the one who proposed to the speaker is now their fiancé
        "has_partner",
        rf"(?:^|[.!?]\s+|\b(?:and|so|guess\s+what,?)\s+){_PETNAME}(?P<kin>)" + _PROPOSED,
        fiance_named,
        dated=True,
    ),
    R(
        "has_partner",
        rf"\b(?:[Mm]y)\s+(?P<kin>husband|wife|partner|spouse|boyfriend|girlfriend)(?:(?:'s)?\s+name\s+is|"
        rf"\s+is\s+(?:called|named)|\s+is(?=\s+{_NOT_NATIONALITY}[A-Z][a-z]+\s*(?:[.,;!]|$)))\s+{_PETNAME}",
        kin_named,
    ),
    R(
        "has_parent",
        rf"\b(?:[Mm]y)\s+(?P<kin>mom|mum|mother|dad|father|stepmom|stepdad|stepmother|stepfather)"
        rf"(?:,\s*|\s+)(?:named\s+)?{_PETNAME}",
        kin_named,
    ),
    R(
        "has_parent",
        rf"\b(?:[Mm]y)\s+(?P<kin>mom|mum|mother|dad|father)(?:'s)?\s+name\s+is\s+{_PETNAME}",
        kin_named,
    ),
    # health
    R(
        "health_condition",
        r"{S}(?:{vg:get:past}|{vg:be:past})\s+(?:officially\s+)?diagnosed\s+with\s+{obj:np}",
        condition(lexicon=False),
        dated=True,
    ),
    R(
        "health_condition",
        r"{S}{vg:have,develop:now+past}\s+(?:(?:mild|severe|chronic|bad|terrible|type\s+[12])\s+)?"
        r"{obj:np}",
        condition(lexicon=True),
    ),
    R("health_condition", r"{S}{vg:suffer:now}\s+from\s+{obj:np}", condition(lexicon=True)),
    R(
        "health_condition",
        r"{S}{BEN}{ADV}\s+(?P<obj>diabetic|asthmatic|epileptic|anemic|anaemic|celiac|coeliac|"
        r"bipolar|dyslexic|insulin-dependent|lactose\s+intolerant|gluten\s+intolerant)\b",
        condition_adj,
    ),
    R(
        "allergy",
        r"{S}{BEN}{ADV}\s+(?:(?:very|severely|really|deathly|mildly|super|highly)\s+)?allergic\s+to\s+{obj:np}",
        allergen,
    ),
    R(
        "allergy",
        r"{S}{vg:have:now}\s+(?:a|an)\s+(?:(?:severe|mild|bad|serious|slight|life-threatening|major)\s+)?"
        r"(?P<obj>[a-z]+(?:\s+[a-z]+)?)\s+allergy\b",
        np(2, split_lists=False),
    ),
    R(
        "allergy",
        r"\b[Mm]y\s+(?:(?:severe|mild|bad|serious|life-threatening)\s+)?(?P<obj>[a-z]+)\s+allergy\b",
        np(1, split_lists=False),
        confidence=0.7,
    ),
    # a new job that starts on a date (possibly ahead): the old one holds until then
    R(
        "works_at",
        r"{S}{vg:accept,take:past}\s+(?:an?\s+|the\s+)?(?:(?:job|new|full-time|formal)\s+)*"
        r"(?:offer|position|job|role)\s+(?:from|at|with)\s+{obj:org}",
        org_cap,
        starts=True,
    ),
    R(
        "works_at",
        # "Starting at Globex", "joining Globex", "starting a new job at Globex"; not "Starting
        # Shuggie Bain" (a book) or "Starting Level 2 next term"
        r"{S}{BEN}{ADV}\s+(?:(?:starting|beginning)\s+(?:(?:a\s+new\s+job|work)\s+)?at|"
        r"(?:starting|beginning)\s+(?:a\s+new\s+job|work)|joining(?:\s+at)?)\s+{obj:org}",
        org_cap,
        starts=True,
    ),
    R(
        "job_title",
        r"{S}(?:'ll|\s+will){ADV}\s+be\s+(?:a|an|the)\s+{obj:job}(?=\s+(?:there|at|with|for)\b)",
        job,
        starts=True,
    ),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+(?:starting|joining)\s+(?:at\s+)?[^,.;!?]{1,40}?\s+as\s+(?:a|an|the)\s+{obj:job}",
        job,
        starts=True,
    ),
    # a title said in Title Case, without an article ("I'm Operations Manager at a housing charity",
    # "I'm Head of Operations now"): capitals and a head noun of roles mark it as a title
    R(
        "job_title",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:now\s+)?(?P<obj>(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\s+){{0,2}}(?:{_TITLE_HEADS}))"
        r"(?=\s+(?:at|for|with|in|now)\b|\s*[,.!;]|$)",
        job,
    ),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?(?P<obj>(?:Head|Director|Chief)\s+of\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?)"
        r"(?=\s+(?:at|for|with|in|now)\b|\s*[,.!;]|$)",
        job,
    ),
    # a role ahead ("I'll be their sous chef starting December 4")
    R(
        "job_title",
        r"{S}(?:'ll|\s+will)\s+be\s+(?:a|an|the|their|his|her|its|our)\s+(?:new\s+)?{obj:job}",
        job,
        starts=True,
    ),
    # a start with its date before the role ("I start on February 3rd as a senior UX designer")
    R(
        "job_title",
        r"{S}{vg:start,begin:now+future}\s+(?:on|in|from|next|this)\s+[^,.;!?]{1,30}?\s+as\s+(?:a|an|the)\s+{obj:job}",
        job,
        starts=True,
    ),
    R(
        "job_title",
        r"{S}{vg:accept,take:past}\s+(?:an?\s+|the\s+)?(?:job\s+|new\s+)?(?:offer|position|job|role)\s+"
        r"as\s+(?:a|an|the)\s+{obj:job}",
        job,
        starts=True,
    ),
    # moves with a date, possibly ahead ("we're moving to Seattle next month")
    R(
        "lives_in",
        r"{S}{BEN}{ADV}\s+(?:moving|relocating)\s+(?:back\s+)?to\s+{obj:place}",
        place,
        starts=True,
        needs_date=True,
    ),
    # "We move there at the end of April": a move in the simple present is a schedule only with
    # its date ("we move to the coast every summer" has none a rule reads as a start)
    R(
        "lives_in",
        r"{S}{HABIT}{ADV}\s+(?:move|moves|relocate|relocates)\s+(?:back\s+)?to\s+{obj:place}",
        place,
        starts=True,
        needs_date=True,
    ),
    R(
        "lives_in",
        r"{S}(?:'ll|\s+will|{BEN}\s+(?:going\s+to|gonna)){ADV}\s+(?:be\s+)?(?:move|moving|relocate|relocating)"
        r"\s+(?:back\s+)?to\s+{obj:place}",
        place,
        starts=True,
        needs_date=True,
    ),
    R(
        "lives_in",
        r"{S}{BEN}{ADV}\s+(?:planning|about|set|due)\s+to\s+(?:move|relocate)\s+(?:back\s+)?to\s+{obj:place}",
        place,
        starts=True,
        needs_date=True,
        confidence=0.6,
    ),
    # more ways facts stop holding
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:unemployed|between\s+jobs|out\s+of\s+work|jobless|retired)\b",
        previous,
        kind="end",
    ),
    R(
        "diet",
        rf"{{S}}{{NEG}}{{ADV}}\s+(?:a\s+)?(?P<obj>{DIETS})\b",
        diet,
        kind="retract",
        negated=True,
        cessation=_CESSATION,
    ),
    R(
        "diet",
        r"{S}{vg:start:past}\s+eating\s+(?:meat|fish|animal\s+products)\s+again\b",
        previous,
        kind="end",
        dated=True,
    ),
    R(
        "has_pet",
        rf"\b(?:[Mm]y|[Oo]ur)\s+{_SPECIES}(?:,\s*|\s+)(?:{_PETNAME},?\s+)?(?:died|passed\s+away|passed)\b",
        pet,
        kind="end",
        dated=True,
    ),
    R(
        "health_condition",
        r"{S}{vg:recover:past}\s+(?:fully\s+)?from\s+{obj:np}",
        condition(lexicon=False),
        kind="end",
        dated=True,
    ),
    R(
        "has_partner",
        rf"{{S}}(?:{{vg:get:past}}|{{BEN}})\s+married\s+to\s+{_PETNAME}",
        const_partner,
        dated=True,
    ),
    R("likes", r"{S}{vg:prefer:now}\s+{obj:np}", preferred),
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+planning\s+(?:a|an|our|my)\s+(?:[a-z-]+\s+){0,2}?(?:trip|vacation|holiday|visit|getaway)"
        r"\s+to\s+{obj:place}",
        plan,
        future=True,
    ),
    R(
        "plans_to",
        r"{S}{NEG}{ADV}\s+(?:going|heading|traveling|travelling|flying)\s+to\s+{obj:place}",
        place,
        kind="retract",
        negated=True,
        cessation=_CESSATION,
    ),
    # trips booked, and what replaces a trip called off ("Doing Porto in May instead")
    R(
        "plans_to",
        rf"{{S}}{{vg:book,plan,organise,organize,arrange,reserve,rebook:past+ing}}\s+(?:(?:a|an|our|my|the|two|three)\s+)?"
        rf"(?:[a-z-]+\s+){{0,2}}?{_TRIP}\s+(?:to|in|at|near)\s+{{obj:place}}",
        trip,
        future=True,
    ),
    # a plan said with a hedge is still a plan, held loosely ("we're thinking about a trip to
    # Edinburgh", "planning on going to Skye"): a later "Edinburgh never happened" has something to
    # withdraw, and the turn that floated it stops counting once it is withdrawn
    R(
        "plans_to",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:thinking\s+(?:about|of)|considering|planning\s+on|toying\s+with)\s+"
        rf"(?:(?:going\s+on|doing|taking|booking)\s+)?(?:a|an|our|the|some)\s+(?:[\w-]+\s+){{0,2}}?{_TRIP}\s+(?:to|in)\s+{{obj:place}}",
        trip,
        future=True,
        confidence=0.5,
    ),
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+(?:thinking\s+(?:about|of)|considering|planning\s+on)\s+(?:going|heading|travelling|traveling|"
        r"flying)\s+(?:to|up\s+to|down\s+to)\s+{obj:place}",
        trip,
        future=True,
        confidence=0.5,
    ),
    R("plans_to", r"{S}{BEN}{ADV}\s+off\s+to\s+{obj:place}", trip, future=True, confidence=0.7),
    R(
        "plans_to",
        rf"(?i:\b(?:my|our)\s+(?:[a-z]+\s+)?(?:trip|holiday|vacation|plans?|getaway)\b)[^:.!?]{{0,30}}:\s+(?:(?:a|an)\s+)?"
        rf"{_TRIP}\s+(?:in|to|at)\s+{{obj:place}}",
        trip,
        future=True,
        kw="trip holiday vacation plan plans getaway",
    ),
    R(
        "plans_to",
        r"{S}{BEN}{ADV}\s+(?:going|heading|flying|travelling|traveling)\s+to\s+{obj:place}(?=[^.!?]*\binstead\b)",
        trip,
        future=True,
        kw="instead",
    ),
    R(
        "plans_to",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:saving(?:\s+up)?\s+for|counting\s+down\s+to|looking\s+forward\s+to)\s+(?:a|an|our|my|the)\s+"
        rf"(?:[a-z-]+\s+){{0,2}}?{_TRIP}\s+(?:to|in)\s+{{obj:place}}",
        trip,
        future=True,
        kw="saving counting looking",
    ),
    R(
        "plans_to",
        rf"^(?:(?:[Tt]he|[Oo]ur|[Mm]y)\s+)?(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){{0,2}})(?:\s+{_TRIP})?\s+(?:is|are|'s)\s+"
        r"(?:all\s+|finally\s+|now\s+|officially\s+)?(?:booked|confirmed|happening|on)\b(?!\s+(?:the|my|a)\b)",
        trip,
        future=True,
        kw="booked confirmed happening on",
    ),
    R(
        "plans_to",
        rf"^(?:(?:[Jj]ust|[Oo]nly|[Ss]o)\s+)?(?:(?:[Aa]n?|[Oo]ur)\s+)?(?:[a-z-]+\s+){{0,2}}?{_TRIP}\s+(?:to|in|at)\s+{{obj:place}}"
        r"(?=[^.!?]*\binstead\b)",
        trip,
        future=True,
        kw="instead",
    ),
    R(
        "plans_to",
        r"^(?:(?:[Jj]ust|[Ss]o)\s+)?(?:[Dd]oing|[Rr]e-?booked\s+(?:it\s+)?(?:for|to)|[Bb]ooked\s+(?:it\s+)?(?:for|to)|"
        r"[Gg]oing\s+to|[Hh]eading\s+to|[Oo]ff\s+to)\s+{obj:place}",
        trip,
        future=True,
        kw="doing rebooked re-booked booked going heading off",
    ),
    R(
        "plans_to",
        r"^(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})\s+instead\b",
        trip,
        future=True,
        kw="instead",
    ),
    R(
        "plans_to",
        rf"{{S}}{{BEN}}\s+not\s+(?:doing|going\s+on|taking|going\s+ahead\s+with)\s+(?:the|our|my|that)\s+"
        rf"(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){{0,2}})\s+(?:thing|{_TRIP}|plan|plans|idea)\b",
        person(),
        kind="retract",
        negated=True,
    ),
    # plans called off
    R(
        "plans_to",
        r"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+(?:move|trip|vacation|holiday|"
        r"visit|plan|plans|weekend|thing|getaway|break|flights?|tour)\s+(?:(?:is|are|was|got|has\s+been)\s+(?:off|cancell?ed|canceled|called\s+off|scrapped|shelved|"
        r"not\s+happening)|fell\s+through|isn't\s+happening)\b",
        person(),
        kind="retract",
        negated=True,
    ),
    R(
        "lives_in",
        r"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+(?:move|relocation)\s+"
        r"(?:(?:is|are|was|got|has\s+been)\s+(?:off|cancell?ed|canceled|called\s+off|scrapped|shelved|not\s+happening)|"
        r"fell\s+through|isn't\s+happening)\b",
        person(),
        kind="retract",
        negated=True,
    ),
    R(
        "plans_to",
        r"{S}(?:{vg:cancel,call off,scrap,ditch:past}|\s+(?:had|have|'ve\s+had|decided)\s+to\s+(?:cancel|call\s+off|scrap|ditch))"
        r"\s+{obj:place}",
        place,
        kind="retract",
        negated=True,
    ),
    R(
        "plans_to",
        r"{S}{vg:cancel,call off,scrap,ditch,scrap:past}\s+(?:the|our|my|this|that)\s+(?:[a-z-]+\s+){0,2}?"
        r"(?:trip|vacation|holiday|move|plans?|visit|flight|getaway|tour)\s+(?:to|for|in)\s+{obj:place}",
        place,
        kind="retract",
        negated=True,
    ),
    R(
        "lives_in",
        r"{S}{vg:cancel,call off,scrap:past}\s+(?:the|our|my)\s+(?:planned\s+)?(?:move|relocation)\s+to\s+"
        r"{obj:place}",
        place,
        kind="retract",
        negated=True,
    ),
    # forget requests said in conversation
    R(
        "forget_request",
        FORGET_REQUEST,
        forget_topic,
        kw="forget unlearn delete erase remove wipe scrub scrap purge ditch rid drop bin clear lose disregard let using "
        "throw stop remember keep store save record retain hold hang log track memorise memorize scratch take "
        "strike cross unremember knowing remembering keeping storing",
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        ANAPHORIC_FORGET,
        said_topic,
        kw="forget unlearn delete erase remove wipe scrub scrap purge ditch rid remember keep store save record "
        "hold hang pretend act scratch drop bin lose take strike cross kept stored saved remembered recorded",
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    # requests about the memory itself, named by where it keeps things ("out of your notes")
    R(
        "forget_request",
        _OUT_OF_MEMORY,
        memory_topic,
        kw="leave keep take get cut kept left took got",
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        _NOT_IN_MEMORY,
        memory_topic,
        kw="want",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _WANT_GONE,
        memory_topic,
        kw="want need like",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _NO_RECORD,
        memory_topic,
        kw="prefer rather",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _KEEP_NONE,
        memory_topic,
        kw="have put write keep hold store remember record save",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _POINTED_AWAY,
        said_topic,
        kw="pretend want like stays goes stay kept go something best better scratch strike scrap",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _FORGET_SAID_NAMED,
        mentioned_topic,
        kw="forget ignore disregard",
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        _FRONTED,
        fronted_topic,
        kw="told gave said mentioned shared news stuff bit part thing info information business",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _FRONTED_STRONG,
        fronted_topic,
        kw="erase wipe scrub delete purge unremember unlearn remember keep store save record retain hold hang log "
        "track memorise memorize",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _SECRET_FRONTED,
        fronted_topic,
        kw="drop bin scrap lose ditch scratch let",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _ABOUT_FRONTED,
        fronted_topic,
        kw="about regarding",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _FRONTED_GONE,
        fronted_topic,
        kw="like",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _NAME_FRONTED,
        forget_topic,
        kw="forget unlearn delete erase remove wipe scrub purge ditch rid",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        _UNHEAR,
        memory_topic,
        kw="unhear unsee unread unremember",
        negated=True,
        cessation="any",
        confidence=0.85,
    ),
    R(
        "forget_request",
        rf"^{_REQUEST_OPEN}(?i:forget|erase|delete|wipe|scrap|drop)\s+it"
        r"(?:\s*,\s*(?i:will|would|can|could)\s+you)?(?:\s+(?i:please|completely|entirely))?\s*(?=[.!?,;]|$)",
        regretted_topic,
        kw="forget erase delete wipe scrap drop",
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        rf"^{_ASIDE}(?:[Ff]orget|[Dd]elete|[Ee]rase|"
        r"[Rr]emove|[Ww]ipe|[Cc]lear)\s+(?:(?:all|everything)\s+(?:about\s+)?)?(?P<obj>(?:my|our|the)\s+[^.!?;,]{2,60})",
        forget_topic,
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        rf"^{_ASIDE}(?:[Ff]orget|[Ii]gnore|[Dd]isregard|[Dd]elete|"
        r"[Ee]rase)\s+(?:what|everything|anything)\s+I\s+(?:said|told\s+you|mentioned|shared)\s+about\s+"
        r"(?P<obj>[^.!?;,]{2,60})",
        forget_topic,
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    # "I take back what I told you about Neil's divorce, forget it": taking back alone may be a
    # change of mind; with "forget it" it is a request to forget what it names
    R(
        "forget_request",
        rf"^{_ASIDE}(?:I\s+)?(?:take|want\s+to\s+take)\s+back\s+(?:what|everything|anything)\s+I\s+"
        r"(?:said|told\s+you|mentioned|shared)\s+about\s+(?P<obj>[^.!?;,]{2,60}),?\s+(?:(?:so|and|please|just)\s+)*"
        r"(?:forget|erase|delete|ignore|scrap|drop)\s+(?:it|that|all\s+(?:of\s+)?(?:it|that))\b",
        forget_topic,
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        r"^(?:[Pp]lease\s+)?(?:[Dd]on't|[Dd]o\s+not)\s+(?:remember|keep|store|save|record)\s+"
        r"(?P<obj>(?:my|our)\s+[^.!?;,]{2,60})",
        forget_topic,
        negated=True,
        cessation="any",
        confidence=0.9,
    ),
    R(
        "forget_request",
        r"^(?:[Pp]lease\s+)?[Ss]top\s+(?:remembering|storing|tracking|bringing\s+up)\s+"
        r"(?P<obj>(?:my|our)\s+[^.!?;,]{2,60}|[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)",
        forget_topic,
        negated=True,
        cessation="any",
    ),
    # any other request, read by its parts (emem.extract.forget_grammar), where none above filed one
    R(
        "forget_request",
        r"^",
        grammar_topic,
        kw="forget unremember unlearn delete erase remove wipe scrub purge expunge shred rid throw cross strike "
        "discard drop bin ditch scrap dump toss junk trash clear lose cut take keep store save record retain "
        "remember log track note write hold hang pretend act gone removed deleted erased wiped kept "
        "stored saved recorded retained remembered logged noted written held record trace forgot binned dropped "
        "scrubbed cleared ditched scrapped onto",
        negated=True,
        cessation="any",
        confidence=0.8,
        last_resort=True,
    ),
    # "I don't want health things stored anywhere": what is named, then the state it must not be in
    R(
        "forget_request",
        r"{I}\s+(?:don't|do\s+not)\s+want\s+(?P<obj>(?:my\s+|any\s+|the\s+|those\s+|these\s+)?[a-z][^.!?;,]{1,40}?)"
        r"\s+(?:stored|kept|saved|remembered|recorded|on\s+file|written\s+down)\b",
        forget_topic,
        negated=True,
        cessation="any",
        confidence=0.8,
    ),
    R(
        "forget_request",
        r"{I}\s+(?:don't|do\s+not)\s+want\s+(?:you\s+)?to\s+(?:talk|hear|think|chat)\s+about\s+"
        r"(?P<obj>[^.!?;,]{2,40}?)(?=\s*(?:[.!?;,]|$|\s+(?:anymore|any\s+more|again|ever\s+again)\b))",
        forget_topic,
        negated=True,
        cessation="any",
        confidence=0.8,
    ),
    R(
        "forget_request",
        r"^(?:(?:[Aa]ctually|[Oo]k(?:ay)?|[Oo]n\s+second\s+thought)[,]?\s+)*(?:[Yy]ou\s+can|"
        r"[Ii]t's\s+(?:ok|okay|fine)\s+to|[Pp]lease)\s+(?:remember|keep|store)\s+(?P<obj>(?:my|our)\s+[^.!?;,:]{2,60}?)"
        r"(?:\s+again)?(?=\s*[.!?;,:]|$)",
        forget_topic,
        kind="retract",
        negated=True,
        cessation="any",
    ),
    R(
        "forget_request",
        r"{I}\s+(?:don't|do\s+not)\s+want\s+you\s+to\s+(?:remember|keep|store|know)\s+"
        r"(?P<obj>(?:my|our|about)\s+[^.!?;,]{2,60})",
        forget_topic,
        negated=True,
        cessation="any",
    ),
    # retractions and corrections
    R(
        "lives_in",
        r"{S}{NEG}{ADV}\s+{v:live,reside}\s+(?:in\s+{obj:place}|there)",
        retract_obj(place),
        kind="retract",
        negated=True,
        cessation=_CESSATION,
    ),
    R(
        "lives_in",
        r"{S}{vg:move:past}\s+(?:out\s+of|away\s+from)\s+{obj:place}",
        place,
        kind="retract",
        dated=True,
    ),
    R(
        "works_at",
        r"{S}{NEG}{ADV}\s+{v:work}\s+(?:(?:at|for)\s+{obj:org}|there)",
        retract_obj(org),
        kind="retract",
        negated=True,
        cessation=_CESSATION,
    ),
    # leaving a job ends it in valid time (what held before stays true for the past)
    R(
        "works_at",
        r"{S}{vg:quit,leave,lose:past}\s+(?:my|the|his|her|our)\s+(?:[a-z-]+\s+)?job\b"
        r"(?:\s+(?:at|with)\s+{obj:org})?",
        retract_obj(org),
        kind="end",
        dated=True,
    ),
    R(
        "works_at",
        r"{S}(?:{vg:get:past}|{BE})\s+(?:fired|laid\s+off|let\s+go)\b(?:\s+(?:from|at|by)\s+{obj:org})?",
        retract_obj(org),
        kind="end",
        dated=True,
    ),
    R(
        "works_at",
        r"{S}{vg:resign,retire:past}\b(?:\s+from\s+{obj:org})?",
        retract_obj(org),
        kind="end",
        dated=True,
    ),
    R(
        "works_at",
        r"{S}{vg:quit:past}\s+(?:working\s+(?:at|for)\s+)?{obj:org}",
        org_cap,
        kind="end",
        dated=True,
    ),
    # quitting what one did at a job ("I've quit long-haul", "I gave up nursing"): a weak end that
    # ends only an employer told in the same words ("I drive long-haul for Prairie Crest Freight")
    R(
        "works_at",
        r"{S}{vg:quit,give up:past}\s+(?!(?:my|the|a|an|his|her|our|their|it|that|this|work|job|smoking|drinking)\b)"
        r"(?P<obj>[a-z][\w-]*)(?=\s*(?:[.,;!?]|$)|\s+(?:after|last|in|this|and|because|for\s+good)\b)",
        np(2),
        kind="end",
        dated=True,
        confidence=0.6,
    ),
    # leaving a workplace named by its kind ("I've left the vet centre"): it ends only an employer
    # running under that name (low confidence), so "I left the office at six" records nothing
    R(
        "works_at",
        r"{S}{vg:quit,leave:past}\s+the\s+(?P<obj>(?:[a-z][\w-]*\s+){0,2}" + _WORKPLACE + r")\b"
        r"(?=\s*(?:[.,;!?]|$|\s(?:after|last|in|on|this|yesterday|today|and|because|so|for\s+good)\b))",
        np(4),
        kind="end",
        dated=True,
        confidence=0.6,
    ),
    R(
        "job_title",
        r"{S}{NEG}{ADV}\s+(?:a|an)\s+{obj:job}",
        job,
        kind="retract",
        negated=True,
        cessation=_CESSATION,
    ),
    R(
        "job_title",
        r"{S}{vg:quit,leave,lose:past}\s+(?:my|his|her|the)\s+job\s+as\s+(?:a|an)\s+{obj:np}",
        job_phrase,
        kind="retract",
        dated=True,
    ),
    R(
        "likes",
        r"{S}{NEG}{ADV}\s+(?:{v:like,love,enjoy}|into)\s+{obj:np}",
        retract_np,
        kind="retract",
        negated=True,
        cessation=_CESSATION,
    ),
    R(
        "has_pet",
        rf"{{S}}{{NEG}}{{ADV}}\s+{{v:have,own}}\s+{_COUNT}\s+{_SPECIES}",
        pet,
        kind="retract",
        negated=True,
        cessation="stopped",
    ),
    R(
        "owns",
        r"{S}{NEG}{ADV}\s+{v:have,own}\s+{obj:np}",
        retract_np,
        kind="retract",
        negated=True,
        cessation="stopped",
    ),
    R(
        "owns",
        r"{S}{vg:sell:past}\s+(?:my|our|the)\s+{obj:np}",
        np(4, strip_article=True, split_lists=False),
        kind="retract",
        dated=True,
    ),
    R("hobby", r"{S}{vg:quit,stop,give up:past}\s+(?P<obj>[a-z]+ing)\b", hobby, kind="retract", dated=True),
    R(  # "I sold the Outback before we left": what was said of the Outback (driving it) ends
        ANY_PREDICATE,
        r"{S}{vg:sell,scrap:past}\s+(?:my|our|the)\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)",
        place,
        kind="end",
        dated=True,
        fallback=True,
    ),
    R(
        ANY_PREDICATE,
        r"{S}{vg:quit,leave:past}\s+(?P<obj>(?:the\s+)?[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)",
        place,
        kind="end",
        dated=True,
        fallback=True,
    ),
    R(  # "I had to leave Sankofa Groove because of the move"
        ANY_PREDICATE,
        r"{S}\s+(?:had|have)\s+to\s+(?:leave|quit)\s+(?P<obj>(?:the\s+)?[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)",
        place,
        kind="end",
        dated=True,
        confidence=0.7,
    ),
    R(
        ANY_PREDICATE,
        r"\b(?:I|i)\s+was\s+(?:totally\s+|completely\s+)?wrong\s+about\s+{obj:np}",
        retract_np,
        kind="retract",
        negated=True,
    ),
    R(
        ANY_PREDICATE,
        r"(?i:\bscratch\s+that\b|\b(?:that|it)\s+was\s+(?:just\s+|only\s+)?a\s+joke\b|"
        r"\bI\s+was\s+(?:just\s+|only\s+)?(?:joking|kidding)\b|\bjust\s+kidding\b|\bI\s+take\s+(?:that|it)\s+back\b|"
        r"\b(?:ignore|forget|disregard)\s+(?:that|what\s+I\s+(?:just\s+)?said)\b(?!\s+about)|\bI\s+misspoke\b|"
        r"\bI\s+lied\b|\bthat\s+was\s+a\s+lie\b)",
        previous,
        kind="retract",
        negated=True,
    ),
    # something given up or left, whatever it was ("I dropped Italian", "I left Tessellate last month")
    R(
        ANY_PREDICATE,
        r"{S}{vg:drop,give up,abandon,ditch:past}\s+(?:on\s+)?(?P<obj>(?:the\s+)?[A-Z][\w'&.-]*(?:\s+(?:of|the|and|[A-Z][\w'&.-]*))*)",
        place,
        kind="end",
        dated=True,
        fallback=True,
    ),
    # "switched from violin to cello": whatever held the old value now holds the new one
    R(
        SWITCH,
        r"{S}{vg:switch,change,move,go:any}(?:\s+(?:jobs|careers|teams|schools|gyms|banks|providers|courses|majors))?"
        r",?\s+(?:over\s+)?from\s+(?P<old>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)\s+to\s+"
        r"(?P<obj>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)(?=\s*(?:[.,!?;]|$|\s+(?:this|last|next|in|on|at|because|since|now|"
        r"instead|and|but|so)\b))",
        np(4, split_lists=False),
        dated=True,
    ),
    # "I've swapped the banjo for a mandolin": the same switch, the old value first
    R(
        SWAP,
        r"{S}{vg:swap,trade,exchange:past}\s+(?:(?:the|my|our)\s+)?(?P<old>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)\s+for\s+"
        r"(?:(?:a|an|the|my|our|some)\s+)?(?P<obj>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)(?=\s*(?:[.,!?;]|$|\s+(?:this|last|"
        r"next|in|on|at|because|since|now|instead|and|but|so)\b))",
        np(4, split_lists=False),
        dated=True,
    ),
    # "it's Leeds, not Sheffield": the speaker's earlier value was wrong
    R(
        CORRECT,
        r"(?i:\b(?:it's|it\s+is|that's|that\s+is|I\s+meant|I\s+mean|make\s+that|should\s+be|it\s+was))\s+"
        r"(?P<obj>\+?[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)\s*,?\s+(?i:not)\s+(?P<old>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)"
        r"(?=\s*(?:[.,!?;]|$|\s+(?:as|like|because|since|I|lol|haha)\b))",
        np(4, split_lists=False),
        negated=True,
        kw="not",
    ),
    # the same correction with the wrong value first ("not peanuts for Felix, it's sesame") or after
    # a named subject or a copula ("Maja's ten, not nine"; "her name is Carolina, not Carla"); the
    # engine only acts when an earlier fact of the speaker's holds the old value
    R(
        CORRECT,
        r"(?:^|[,;:]\s*|\b(?i:sorry|oops|and|no|wait)\W+)(?i:not)\s+(?P<old>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)"
        r"(?:\s+(?i:for|with|about)\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?\s*[,;:]\s*(?i:it's|it\s+is|it\s+was|that's|but|he's|she's|they're)"
        r"\s+(?:(?i:actually|really|in\s+fact)\s+)?(?P<obj>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)"
        r"(?=\s*(?:[.,!?;]|$|\s+(?:as|like|because|since|I|lol|haha)\b))",
        np(4, split_lists=False),
        negated=True,
        kw="not",
    ),
    R(
        CORRECT,
        r"(?:\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+'s|\b(?i:is|are|was)|\bI'm|\bI\s+am|\b(?i:he's|she's|we're|they're))\s+(?:(?i:actually|really)\s+)?"
        r"(?P<obj>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)\s*,?\s*(?i:not)\s+(?P<old>[\w'&.-]+(?:\s+[\w'&.-]+){0,3}?)"
        r"(?=\s*(?:[.,!?;]|$|\s+(?:as|like|because|since|I|lol|haha)\b))",
        np(4, split_lists=False),
        negated=True,
        kw="not",
    ),
    # a pet that left the household, by its name ("Mango passed away", "we had to rehome Clove")
    R(
        "has_pet",
        r"\b(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)(?:,?\s+(?:the|our|my|his|her|their)\s+(?:[a-z]+\s+){0,2}?"
        rf"{_SPECIES},?)?\s+(?:(?:has|had|sadly|just|finally)\s+)?(?:died|passed\s+away|passed\s+on|ran\s+away|"
        r"(?:got|was|has\s+been)\s+(?:adopted|rehomed|put\s+down|put\s+to\s+sleep)|went\s+to\s+(?:a|her|his|their)\s+new\s+home)\b",
        person(),
        kind="end",
        dated=True,
        confidence=_ONLY_RUNNING,
        kw="died passed ran adopted rehomed put went",
    ),
    R(
        "has_pet",
        r"{S}(?:{vg:rehome,lose,give away,put down:past}|\s+had\s+to\s+(?:rehome|give\s+away|put\s+down))\s+"
        r"(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b",
        person(),
        kind="end",
        dated=True,
        confidence=_ONLY_RUNNING,
    ),
    R(
        "has_pet",
        r"{S}(?:{vg:give:past}|\s+had\s+to\s+give)\s+(?P<obj>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\s+(?:away|up)\b",
        person(),
        kind="end",
        dated=True,
        confidence=_ONLY_RUNNING,
    ),
    # a language practised ("I've been doing Italian on Duolingo")
    R(
        "learning",
        rf"{{S}}(?:{{BEN}}|{{HAVE}}\s+been){{ADV}}\s+(?:doing|practising|practicing|studying|brushing\s+up\s+on)\s+"
        rf"(?P<obj>{LANGUAGES})\b",
        np(2, split_lists=False),
        kw="doing practising practicing studying brushing",
    ),
    R(
        "learning",
        rf"{{S}}{{vg:take up,pick up,start:past}}\s+(?P<obj>{LANGUAGES})\b",
        np(2, split_lists=False),
        dated=True,
    ),
    # a subject studied, said as "doing law" ("Idris is doing law in Manchester")
    R(
        "studies",
        rf"{{S}}(?:{{BEN}}|{{HAVE}}\s+been){{ADV}}\s+(?:doing|reading|studying|starting)\s+(?:a\s+(?:degree|PhD|masters?|master's|"
        rf"BA|BSc|MA|MSc|course)\s+in\s+)?(?P<obj>{DISCIPLINES})\b",
        np(3, split_lists=False),
        kw="doing reading studying starting",
    ),
    R(
        "studies",
        rf"{{S}}(?:{{BEN}}|{{HAVE}}\s+been){{ADV}}\s+doing\s+(?:a|an|my)\s+(?P<obj>PhD|masters?|master's|doctorate|degree|BA|BSc|MA|MSc)"
        rf"\s+in\s+(?P<field>{DISCIPLINES})\b",
        field_of,
        kw="doing",
    ),
    # a trip to a place called off in so many words ("our trip to Iceland fell through")
    R(
        "plans_to",
        r"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:[a-z-]+\s+){0,2}?(?:trip|vacation|holiday|visit|getaway|move)\s+to\s+"
        r"(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+(?:(?:is|was|got|has\s+been)\s+(?:off|cancell?ed|canceled|"
        r"called\s+off|scrapped|shelved)|fell\s+through|isn't\s+happening)\b",
        person(),
        kind="retract",
        negated=True,
        kw="off cancelled canceled called scrapped shelved fell isn't",
    ),
    # called off, by the plan's place as a modifier ("we called off the Morocco trip")
    R(
        "plans_to",
        r"{S}{vg:cancel,call off,scrap,ditch,drop,shelve:past}\s+(?:the|our|my|this|that)\s+"
        r"(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+(?:trip|vacation|holiday|visit|getaway|tour|plans?|move)\b",
        person(),
        kind="retract",
        negated=True,
    ),
    R(
        "lives_in",
        r"{S}{vg:cancel,call off,scrap,ditch,drop,shelve:past}\s+(?:the|our|my|this|that)\s+"
        r"(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+(?:move|relocation)\b",
        person(),
        kind="retract",
        negated=True,
    ),
    # an email or number given as the one to use ("please use kofi@... from now on")
    R(
        "email",
        rf"(?:^|\b(?:[Pp]lease|[Jj]ust|[Nn]ow|[Ss]o)\s+)(?:[Uu]se|[Tt]ry|[Ss]end\s+(?:it|them|things|everything|stuff)\s+to)\s+"
        rf"(?P<obj>{EMAIL})",
        value,
        kw="use try send",
    ),
    R(
        "phone",
        rf"(?:^|\b(?:[Pp]lease|[Jj]ust|[Nn]ow|[Ss]o)\s+)(?:[Uu]se|[Tt]ry)\s+(?P<obj>{PHONE})",
        phone,
        kw="use try",
    ),
    R(
        "phone",
        rf"\b[Mm]y\s+(?:phone\s+|cell\s+|mobile\s+)?(?:number|phone|cell|mobile)(?:'s|\s+has)\s+changed\b[^.!?]{{0,20}}?"
        rf"\b(?:it's|it\s+is|to|now)\s+(?:now\s+)?(?P<obj>{PHONE})",
        phone,
        kw="changed",
    ),
    R(
        "phone",
        rf"\b[Tt]he\s+(?:phone\s+|cell\s+|mobile\s+)?number(?:'s|\s+is)(?:\s+(?:actually|really))?\s+(?P<obj>{PHONE})",
        phone,
        confidence=0.7,
        kw="number",
    ),
    # a diet said as a fragment that closes a clause ("pescatarian I guess.", "..., so vegetarian.")
    R(
        "diet",
        rf"(?:^|,\s*so\s+|^[Ss]o\s+|^[Nn]ow\s+|^[Bb]asically\s+|^[Jj]ust\s+)(?P<obj>(?i:{DIETS}))"
        rf"(?:,?\s+(?:rather\s+than|instead\s+of|not)\s+(?i:{DIETS}))?(?:\s+(?:I\s+guess|I\s+suppose|"
        r"I\s+think|now|then|basically|technically|these\s+days|for\s+now))?\s*(?:[.!]*$|,\s)",
        diet,
        confidence=0.7,
        kw="vegetarian vegan pescatarian pescetarian keto paleo gluten dairy plant carnivore flexitarian kosher halal",
    ),
    # a title at an employer ("he's head of sales at Pinecrest now")
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?(?:the\s+)?(?:head|director|vp|vice\s+president|chief|lead)\s+of\s+[a-z]+(?:\s+[a-z]+)?"
        r"\s+(?:at|for)\s+{obj:org}",
        org,
        kw="head director vp vice chief lead",
    ),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?(?:the\s+)?(?P<obj>(?:head|director|vp|vice\s+president|chief|lead)\s+of\s+[a-z]+"
        r"(?:\s+[a-z]+)?)(?=\s+(?:at|for)\s+[A-Z]|\s*(?:now)?\s*[.!,]|$)",
        np(5, split_lists=False),
        kw="head director vp vice chief lead",
    ),
    # the role said after the employer ("Started at Orbis on Monday, as a data analyst", "I've
    # started at Saaristo Cycles as workshop manager", "started at the CHU de Nantes as a ...")
    R(
        "job_title",
        r"{S}{vg:start,begin,join:past}\s+(?:(?:at|with)\s+)?(?:the\s+)?[A-Z][^,.!?;]{0,50},?\s+as\s+(?:(?:a|an)\s+)?{obj:job}",
        job,
        dated=True,
    ),
    # the role said after a job taken at an employer ("I've accepted a job at the Royal
    # Veterinary College as a lecturer", "I've taken a post with Ofsted as an inspector")
    R(
        "job_title",
        r"{S}{vg:get,land,take,accept,start:past}\s+(?:a|an|the|my)\s+(?:new\s+)?(?:job|post|position|role)\s+"
        r"(?:at|with)\s+(?:the\s+)?[A-Z][^,.!?;]{0,50}?,?\s+as\s+(?:(?:a|an)\s+)?{obj:job}",
        job,
        dated=True,
    ),
    # no longer at an employer ("I'm not at Vela any more"), working for nobody ("freelancing now")
    R(
        "works_at",
        r"{S}{BEN}\s+(?:not|no\s+longer)\s+(?:at|with|working\s+(?:at|for))\s+{obj:org}",
        retract_obj(org),
        kind="retract",
        negated=True,
        cessation="stopped",
    ),
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:now\s+)?(?:freelancing|self-employed|freelance|a\s+freelancer)\b",
        const("freelance (self-employed)"),
        dated=True,
        kw="freelancing self-employed freelance freelancer",
    ),
    R("works_at", r"{S}{vg:go:past}\s+freelance\b", const("freelance (self-employed)"), dated=True),
    # a contact value by its shape, after the word for it said of nobody else ("my number's new btw:
    # 07911 123456", "scrap that number, it's 07700 900877 now", "the email is kai@..., not .com")
    R(
        "email",
        rf"{_NOT_OTHERS}(?i:e-?mail)(?:\s+address)?\b[^.!?;]{{0,30}}?(?:\s+is|'s|:|,?\s+it's|,?\s+it\s+is|\s+now)"
        rf"(?:\s+(?:now|actually|really|still))?\s+(?P<obj>{EMAIL})",
        value,
        confidence=0.85,
        kw="email e-mail",
    ),
    R(
        "email",
        rf"^(?i:(?:it's|it\s+is|that's|that\s+is|should\s+be|make\s+that|the\s+right\s+one\s+is))\s+(?P<obj>{EMAIL})",
        value,
        confidence=0.8,
        kw="it's it that's that should make right",
    ),
    R(
        "phone",
        rf"{_NOT_OTHERS}(?i:(?:phone|cell|mobile)(?:\s+number)?|number)\b[^.!?;\d]{{0,30}}?"
        rf"(?:\s+is|'s|:|,?\s+it's|,?\s+it\s+is|\s+now)(?:\s+(?:now|actually|really|still))?\s+(?P<obj>{PHONE})",
        phone,
        confidence=0.85,
        kw="number phone mobile cell",
    ),
    # employer in a participle clause ("I'm based in Lisbon, working remotely for a startup called X")
    R(
        "works_at",
        r"{S}[^.!?;]{0,80}?,\s+(?:currently\s+|still\s+|now\s+)?(?:working|employed)\s+(?:remotely\s+|full-time\s+|part-time\s+)?"
        r"(?:at|for|by)\s+{obj:org}",
        org,
        confidence=0.7,
        kw="working employed",
    ),
    # employer by an organisation's name ("I'm still at Kerr's Garage")
    R(
        "works_at",
        rf"{{S}}{{BE}}{{ADV}}\s+(?:at|with)\s+(?:the\s+)?(?P<obj>(?:[A-Z][\w'&.-]*\s+(?:(?:of|and|&|for|de|du)\s+)?){{1,4}}"
        rf"(?:{ORG_HEADS}|Cent(?:re|er)|Distillery|Winery|Cooperage|Workshop|Nursery|Depot))\b",
        org,
        confidence=0.7,
        kw="at with",
    ),
    # still living where one was ("I'm still in Dundee")
    R(
        "lives_in",
        r"{S}{BEN}\s+still\s+(?:living\s+)?(?:in|based\s+in)\s+{obj:place}",
        place,
        confidence=0.7,
        kw="still",
    ),
    # home named as such ("Home is Seattle these days", "I'm back in Chicago for good")
    R(
        "lives_in",
        r"(?:^|[,;]\s*)(?:[Hh]ome)(?:'s|\s+is)\s+(?:now\s+)?{obj:place}",
        place,
        confidence=0.7,
        kw="home",
    ),
    R(
        "lives_in",
        r"{S}{BE}{ADV}\s+back\s+(?:living\s+)?in\s+{obj:place}(?=[^.!?]*\b(?:for\s+good|permanently|to\s+stay)\b)",
        place,
        dated=True,
        kw="back",
    ),
    R(
        "lives_in",
        r"{S}{BEN}{ADV}\s+leaving\s+(?:the\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}\s+for\s+{obj:place}",
        place,
        starts=True,
        needs_date=True,
        kw="leaving",
    ),
    # a job that starts on a date said with it ("I start at Google on Monday")
    R(
        "works_at",
        r"{S}(?:\s+start|'ll\s+start|\s+will\s+start|{BEN}\s+starting)(?:\s+(?:work|working))?"
        r"(?:\s+as\s+(?:a\s+|an\s+|the\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)?\s+(?:at|with)\s+{obj:org}",
        org_cap,
        starts=True,
        needs_date=True,
        kw="start starting",
    ),
    # and the title it starts with ("I start as head chef at Bramble & Oak on the 1st of July")
    R(
        "job_title",
        r"{S}(?:\s+start|'ll\s+start|\s+will\s+start|{BEN}\s+starting)\s+as\s+(?:a\s+|an\s+|the\s+)?"
        r"{obj:job}\s+(?=(?:at|with)\s+[A-Z])",
        job,
        starts=True,
        needs_date=True,
        kw="start starting",
    ),
    # the title a job ahead starts with, said after the employer ("I start at the Elbphilharmonie
    # as head of audio next month", "I'll be joining Acme as a senior engineer in May")
    R(
        "job_title",
        r"{S}(?:\s+start|'ll\s+start|\s+will\s+start|{BEN}\s+starting|(?:'ll|\s+will)\s+be\s+(?:starting|joining)|"
        r"{BEN}\s+(?:going\s+to|gonna)\s+(?:start|join)|'ll\s+join|\s+will\s+join|{BEN}\s+joining)"
        rf"\s+(?:(?:at|with)\s+)?(?:the\s+)?[A-Z][^,.!?;]{{0,50}}?,?\s+as\s+(?:(?:a|an|the)\s+)?{_TITLE_AHEAD}",
        job_phrase,
        starts=True,
        kw="start starting join joining",
    ),
    # a job ahead said by the work ("From March I'll be working as a nurse at St Luke's")
    R(
        "job_title",
        rf"{{S}}(?:'ll|\s+will|{{BEN}}\s+(?:going\s+to|gonna)){{ADV}}\s+be\s+working\s+as\s+(?:(?:a|an)\s+)?{_TITLE_AHEAD}",
        job_phrase,
        starts=True,
        kw="working",
    ),
    R(
        "works_at",
        r"{S}(?:'ll|\s+will|{BEN}\s+(?:going\s+to|gonna)){ADV}\s+be\s+working\s+(?:as\s+(?:(?:a|an)\s+)?"
        r"[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?\s+)?(?:at|for)\s+{obj:org}",
        org_cap,
        starts=True,
        kw="working",
    ),
    # a new job ahead, said as "my new job" ("Next week I start my new job as a data analyst at Brightwell")
    R(
        "works_at",
        r"{S}(?:\s+start|'ll\s+start|\s+will\s+start|{BEN}\s+starting)\s+(?:my|a|the|his|her)\s+(?:new\s+)?"
        r"(?:job|position|role|post)(?:\s+as\s+(?:(?:a|an)\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)?\s+(?:at|with)\s+{obj:org}",
        org_cap,
        starts=True,
        kw="start starting",
    ),
    R(
        "job_title",
        r"{S}(?:\s+start|'ll\s+start|\s+will\s+start|{BEN}\s+starting)\s+(?:my|a|the|his|her)\s+(?:new\s+)?"
        rf"(?:job|position|role|post)\s+as\s+(?:(?:a|an)\s+)?{_TITLE_AHEAD}",
        job_phrase,
        starts=True,
        kw="start starting",
    ),
    # a job started, said by where ("I started at a design studio called Forma last month")
    R("works_at", r"{S}{vg:start:past}\s+(?:at|with)\s+{obj:org}", org_cap, dated=True, confidence=0.7),
    # notice handed in at a job says where one works until the last day, not that the job ended
    # ("Handed in my notice at Hartwell & Co yesterday", "I'm giving Tidewell my notice this week")
    R(
        "works_at",
        r"{S}{vg:hand in,give,put in,submit,tender:any}\s+(?:in\s+)?(?:my|his|her|their|our)\s+notice\s+(?:at|to)\s+{obj:org}",
        org_cap,
        kw="notice",
    ),
    R(
        "works_at",
        r"{S}{vg:give:any}\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+(?:&\s+)?[A-Z][\w'&.-]*){0,3})\s+(?:my|his|her|their|our)\s+notice\b",
        org_cap,
        kw="notice",
    ),
    # a job's last day ("My last day at Acme is Friday", "Last day is 8 March."): it ends then
    R(
        "works_at",
        r"(?:\b[Mm]y\s+|^)[Ll]ast\s+day(?:\s+at\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3}))?\s+(?:is|will\s+be|'s)\b",
        retract_obj(org_cap),
        kind="end",
        starts=True,
        needs_date=True,
        kw="last",
    ),
    # diets said by what is cut out or eaten again
    R("diet", r"{S}{vg:cut out,give up,quit:past}\s+(?:all\s+)?dairy\b", const("dairy-free"), dated=True),
    R("diet", r"{S}{vg:cut out,give up,quit:past}\s+(?:all\s+)?gluten\b", const("gluten-free"), dated=True),
    R(
        "diet",
        r"{S}{BEN}{ADV}\s+eating\s+(?:meat|fish|animal\s+products)\s+again\b",
        previous,
        kind="end",
        kw="again",
    ),
    # something no longer liked ("I've gone off coffee")
    R(
        "likes",
        r"{S}{vg:go off,fall out of love with,get tired of,get bored of,grow out of:past}\s+{obj:np}",
        liked,
        kind="end",
        dated=True,
        confidence=_ONLY_RUNNING,
    ),
    # contact details given as new or changed ("New number: ...", "I changed my email to ...")
    R(
        "phone",
        rf"(?:^|[,;]\s*)(?:[Mm]y\s+)?[Nn]ew\s+(?:phone\s+|cell\s+|mobile\s+)?(?:number|phone|cell|mobile)\s*"
        rf"(?:[:,-]|\s+is)\s*(?P<obj>{PHONE})",
        phone,
        kw="new",
    ),
    R(
        "email",
        rf"(?:^|[,;]\s*)(?:[Mm]y\s+)?[Nn]ew\s+e-?mail(?:\s+address)?\s*(?:[:,-]|\s+is)\s*(?P<obj>{EMAIL})",
        value,
        kw="new",
    ),
    R(
        "email",
        rf"{{S}}{{vg:change,update,switch:past}}\s+my\s+e-?mail(?:\s+address)?\s+(?:over\s+)?to\s+(?P<obj>{EMAIL})",
        value,
    ),
    R(
        "phone",
        rf"{{S}}{{vg:change,update,switch:past}}\s+my\s+(?:phone\s+|cell\s+|mobile\s+)?number\s+(?:over\s+)?to\s+"
        rf"(?P<obj>{PHONE})",
        phone,
    ),
    R(  # "I changed numbers again, it's 07 55 21 36 80 now"
        "phone",
        rf"{{S}}{{vg:change,switch,get:past}}\s+(?:my\s+|a\s+new\s+)?(?:phone\s+|cell\s+|mobile\s+)?numbers?"
        rf"(?:\s+again)?\s*(?:[,;:-]\s*|\s+and\s+)(?:(?:it's|it\s+is|the\s+new\s+one\s+is)\s+)?(?:now\s+)?"
        rf"(?P<obj>{PHONE})",
        phone,
    ),
    R(
        "email",
        rf"\b[Mm]y\s+e-?mail(?:\s+address)?(?:'s|\s+has)?\s+changed\b[^.!?]{{0,20}}?\b(?:it's|it\s+is|to|now)\s+"
        rf"(?:now\s+)?(?P<obj>{EMAIL})",
        value,
        kw="changed",
    ),
    # a pet named later in the sentence ("we adopted a rescue greyhound, her name's Luna")
    R(
        "has_pet",
        rf"{{S}}{{vg:adopt,rescue,get,buy,bring home,take in,foster:past}}\s+{_COUNT}\s+{_SPECIES}(?:\s+[\w-]+){{0,3}}?\s*(?:,\s*|\s+and\s+)"
        rf"(?:(?:her|his|its)\s+name(?:'s|\s+is)|(?:she's|he's|it's)\s+(?:called|named))\s+{_PETNAME}",
        pet,
        dated=True,
    ),
    # a pet lost by its species and name ("we lost our cat Tigger last week")
    R(
        "has_pet",
        rf"{{S}}{{vg:lose,rehome,give away,put down:past}}\s+(?:my|our)\s+{_SPECIES},?\s+{_PETNAME}",
        pet,
        kind="end",
        dated=True,
    ),
    # a planned move called off in so many words ("we're not moving to Denver after all")
    R(
        "lives_in",
        r"{S}{NEG}{ADV}\s+(?:moving|relocating|going\s+to\s+move)\s+(?:back\s+)?to\s+{obj:place}"
        r"(?=[^.!?]*\b(?:after\s+all|anymore|any\s+more|instead|now)\b)",
        place,
        kind="retract",
        negated=True,
        cessation="any",
        kw="moving relocating move",
    ),
    R(
        "plans_to",
        r"{S}{NEG}{ADV}\s+(?:moving|relocating|going\s+to\s+move|going|heading|travel+ing|flying)\s+(?:back\s+)?to\s+"
        r"{obj:place}(?=[^.!?]*\b(?:after\s+all|anymore|any\s+more|instead)\b)",
        place,
        kind="retract",
        negated=True,
        cessation="any",
        kw="moving relocating move going heading travelling traveling flying",
    ),
    R(
        "plans_to",
        r"^(?:(?:[Oo]k(?:ay)?|[Ss]o|[Aa]ctually|[Ww]ell)[,]?\s+)?(?:[Ss]crap|[Ff]orget|[Cc]ancel|[Dd]rop|[Dd]itch)\s+"
        r"(?:the|our|my)\s+(?P<obj>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+(?:plan|plans|trip|idea|move|visit)\b",
        person(),
        kind="retract",
        negated=True,
        kw="scrap forget cancel drop ditch",
    ),
    # staying where one lives withdraws a move planned ahead ("we've decided to stay in Tulsa")
    R(
        "lives_in",
        r"{S}(?:{vg:decide,choose:past}\s+to\s+stay|\s+(?:will|'ll)\s+stay)\s+(?:in\s+[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}|put|here)"
        r"(?=[^.!?]*\b(?:after\s+all|instead|for\s+now|now)\b|\s*[.!]|$)",
        ahead,
        kind="retract",
        negated=True,
    ),
    R(
        "lives_in",
        r"{S}{BEN}{ADV}\s+staying\s+(?:in\s+[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}|put|here)"
        r"(?=[^.!?]*\b(?:after\s+all|instead|for\s+now|now)\b|\s*[.!]|$)",
        ahead,
        kind="retract",
        negated=True,
        kw="staying",
    ),
    # a new job announced without a verb ("I got the job! Hospital pharmacist at University
    # Hospital Limerick, starting 4 August"): a job title at an employer, from a start
    R(
        "works_at",
        r"^(?P<lead>)(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\s+)?{job:job}\s+at\s+{obj:org}" + _FROM_A_START,
        org,
        starts=True,
    ),
    R(
        "job_title",
        r"^(?P<lead>)(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\s+)?{obj:job}\s+at\s+[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3}"
        r"(?:\s+in\s+[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})?" + _FROM_A_START,
        job,
        starts=True,
    ),
    # work said by what one does for an employer, in the present ("I rewire yachts for Quayline
    # Marine in Falmouth"): trades' verbs, an employer by its capitalised name
    R(
        "works_at",
        rf"(?:^|(?<=,\s)){{I}}{{ADV}}\s+(?:{'|'.join(_TRADES_DONE)})\s+(?:[^,.;!?]{{0,40}}?\s+)?for\s+{{obj:org}}",
        org_name,
        confidence=0.6,
        kw=" ".join(_TRADES_DONE),
    ),
    # a job offer taken, or a job said ahead ("I'm going to be a PM at Globex", "I'll be joining Globex")
    R(
        "works_at",
        r"{S}{vg:get,receive:past}\s+(?:a|an|the)\s+(?:job\s+)?offer\s+from\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})"
        r"\s+and\s+(?:I\s+|we\s+)?(?:accepted|took)\s+it\b",
        org_cap,
        starts=True,
    ),
    R(
        "works_at",
        r"{S}(?:'ll|\s+will|{BEN}\s+(?:going\s+to|gonna)){ADV}\s+(?:be\s+)?(?:join|joining|start|starting)\s+(?:at\s+|with\s+)?"
        r"(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})",
        org_cap,
        starts=True,
        kw="join joining start starting",
    ),
    R(
        "job_title",
        r"{S}{BEN}{ADV}\s+(?:going\s+to|gonna)\s+be\s+(?:a|an|the)\s+{obj:job}(?=\s+(?:there|at|with|for)\b)",
        job,
        starts=True,
        kw="going gonna",
    ),
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:going\s+to|gonna)\s+be\s+(?:a|an|the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?\s+(?:at|with|for)\s+"
        r"(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})",
        org_cap,
        starts=True,
        kw="going gonna",
    ),
    # leaving a job on a date ahead ("I'm leaving Acme at the end of the month")
    R(
        "works_at",
        r"{S}{BEN}{ADV}\s+(?:leaving|quitting)\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})",
        org_cap,
        kind="end",
        starts=True,
        needs_date=True,
        kw="leaving quitting",
    ),
    # a work by its kind and name ("I'm reading a book called The Midnight Library")
    R(
        "reading",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:reading|re-?reading)\s+(?:a|an|this|the)\s+(?:[a-z]+\s+)?(?:book|novel|memoir)\s+"
        rf"(?:called|named|titled)\s+{TITLE}",
        title,
        kw="called named titled",
    ),
    R(
        "watching",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:watching|bingeing|binging)\s+(?:a|an|this|the)\s+(?:[a-z]+\s+)?(?:show|series|drama|sitcom)\s+"
        rf"(?:called|named|titled)\s+{TITLE}",
        title,
        kw="called named titled",
    ),
    R(
        "watching",
        rf"{{S}}{{vg:stop,quit,give up:past}}\s+(?:on\s+)?watching\s+{TITLE}",
        title,
        kind="end",
        dated=True,
    ),
    R(
        "reading",
        rf"{{S}}{{vg:stop,quit,give up:past}}\s+(?:on\s+)?reading\s+{TITLE}",
        title,
        kind="end",
        dated=True,
    ),
    # a move said then where one is now ("We moved again, we're in Dallas now")
    R(
        "lives_in",
        r"{vg:move,relocate:past}[^.!?]{0,40}?,\s+{S}{BEN}\s+(?:now\s+)?(?:in|based\s+in)\s+{obj:place}",
        place,
    ),
    # an email said as the one now in use ("I don't use that email anymore, it's jane@new.com now")
    R(
        "email",
        rf"\be-?mail\b[^.!?]{{0,50}}?\b(?:it's|it\s+is|use|now)\s+(?:now\s+)?(?P<obj>{EMAIL})",
        value,
        negated=True,
        cessation="any",
        confidence=0.7,
        kw="email mail e",
    ),
    R(
        "email",
        rf"(?:^|\b(?:[Pp]lease|[Cc]an\s+you|[Cc]ould\s+you)\s+)(?:[Uu]pdate|[Cc]hange|[Ss]witch)\s+my\s+e-?mail(?:\s+address)?\s+to\s+"
        rf"(?P<obj>{EMAIL})",
        value,
        kw="update change switch",
    ),
    R(
        "phone",
        rf"(?:^|\b(?:[Pp]lease|[Cc]an\s+you|[Cc]ould\s+you)\s+)(?:[Uu]pdate|[Cc]hange|[Ss]witch)\s+my\s+(?:phone\s+|cell\s+|mobile\s+)?"
        rf"number\s+to\s+(?P<obj>{PHONE})",
        phone,
        kw="update change switch",
    ),
    # moved into a home somewhere ("we just moved into a new apartment in Brooklyn")
    R(
        "lives_in",
        rf"{{S}}{{vg:move:past}}\s+into\s+(?:a|an|our|my|the)\s+(?:new\s+|first\s+|own\s+)?{_LIVE_NOUN}\s+in\s+{{obj:place}}",
        place,
        dated=True,
    ),
    # a diet given up ("I'm done with keto", "I stopped being vegan")
    R(
        "diet",
        rf"{{S}}{{BE}}{{ADV}}\s+(?:done|finished|over)\s+with\s+(?:being\s+)?(?:a\s+)?(?P<obj>{DIETS})\b",
        diet,
        kind="end",
        kw="done finished over",
    ),
    R(
        "diet",
        rf"{{S}}{{vg:stop,quit,give up:past}}\s+(?:being\s+)?(?:a\s+)?(?P<obj>{DIETS})\b",
        diet,
        kind="end",
        dated=True,
    ),
    # what used to hold ends what is still running ("I used to live in Boston")
    R(
        "lives_in",
        r"{S}\s+used\s+to\s+(?:live|reside)\s+in\s+{obj:place}",
        place,
        kind="end",
        confidence=_ONLY_RUNNING,
        kw="used",
    ),
    R(
        "works_at",
        r"{S}\s+used\s+to\s+work\s+(?:at|for)\s+(?P<obj>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})",
        org_cap,
        kind="end",
        confidence=_ONLY_RUNNING,
        kw="used",
    ),
    R(
        "diet",
        rf"{{S}}\s+used\s+to\s+be\s+(?:a\s+)?(?P<obj>{DIETS})\b",
        diet,
        kind="end",
        confidence=_ONLY_RUNNING,
        kw="used",
    ),
    # a child welcomed, said with the child's sex ("we welcomed our second child, a boy named Theo")
    R(
        "has_child",
        r"{S}{vg:welcome,have:past}\s+(?:our|a|my)\s+(?:first\s+|second\s+|third\s+|new\s+)?(?:child|baby|kid),?\s+"
        rf"(?:a\s+)?(?:little\s+)?(?P<kin>boy|girl|son|daughter)(?:,?\s+(?:named|called)\s+{_PETNAME})?",
        child_sex,
        dated=True,
    ),
    # a language taken as classes ("I'm taking Spanish classes")
    R(
        "learning",
        rf"{{S}}{{BEN}}{{ADV}}\s+(?:taking|doing)\s+(?P<obj>{LANGUAGES})\s+(?:classes|lessons|courses?)\b",
        np(2, split_lists=False),
        kw="taking doing",
    ),
    # a new language said as a switch ("I've switched to French")
    R(
        "learning",
        rf"{{S}}{{vg:switch,move,change:any}}(?:\s+over)?\s+to\s+(?:learning\s+)?(?P<obj>{LANGUAGES})\b",
        np(2, split_lists=False),
        dated=True,
    ),
)
