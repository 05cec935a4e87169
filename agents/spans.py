"""Answer spans for the offline reader: what kind of value a question asks for, and the span of a
turn (or its image caption) that is such a value.

Pure rules over the question's form. A question whose type needs a specific value (a place, a
name, a brand, a phone number) is answered only by a span of that type; when no evidence holds one
the reader abstains instead of quoting a sentence that merely shares the topic ("I've been learning
guitar" does not say which brand the guitar is).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from emem.answer import EvidenceItem
from emem.extract.patterns import PET_FAMILY, pet_family
from emem.index.text import STOP_WORDS, irregular_singular, tokenize
from emem.numbers import CARDINALS, COMPOUND_PATTERN, compound_value
from emem.numbers import ORDINALS as SAID_ORDINALS
from emem.timeparse import MONTHS


class AnswerType(StrEnum):
    PLACE = "place"
    PERSON = "person"
    NAME = "name"
    PHONE = "phone"
    EMAIL = "email"
    PROPER = "proper"
    """A brand, make or model: a capitalised name."""
    COLOUR = "colour"
    OBJECT = "object"
    """What someone made, bought, painted: an image caption may be the answer."""
    YESNO = "yes/no"
    AGE = "age"
    ADDRESS = "address"
    RESULT_TIME = "result time"
    """A time taken (a race's finishing time, "3:41:12", "52 minutes"): said as a clock reading or
    a number of hours and minutes, never by a sentence about the race."""
    TOPIC = "topic"
    """What a thesis, book or talk is about: only a turn saying "<it> is about/on ..." answers."""
    CODE = "code"
    """An identifier given as a value: a number, code, PIN, password, reference or registration
    ("HX-448812", "plot 41", "2791"). Only the value said beside what it identifies answers."""
    CLOCK = "clock"
    """A time of day ("10:30", "quarter to eight", "9am", "at 10"): a date does not answer "What
    time does the shop open?"."""
    MEASURE = "measure"
    """A quantity in units of the asked kind (a weight, a dose, a height or distance, a journey's
    length in time): only a number with such a unit answers ("5.6 kg", "10mg", "70 minutes")."""
    OTHER = "other"


@dataclass(frozen=True)
class Span:
    text: str
    specific: bool
    """True when the span has the type the question asks for; False for a whole sentence."""


_CODE_WORDS = r"(?:pin|code|password|passcode|reference|registration|rego|reg|plate|id|tag|number)"
_CODE_QUESTION = re.compile(
    rf"^\s*what(?:'s|’s|\s+is|\s+was|\s+are|\s+were)\s+(?:(?:the|my|our|his|her|their|your|[A-Z][\w-]*['’]s?)\s+)?"
    rf"(?:(?!(?:dress|post|zip|area|country)\s)[\w-]+\s+){{0,3}}?{_CODE_WORDS}\b(?:\s+number)?"
    rf"(?:\s+(?:of|on|for|at|to)\b[^?]*)?\s*\??\s*$",
    re.I,
)
"""An identifier asked by its name: "What's my insurance policy number?", "What's the number of
my bus?", "What's the code for the side gate?"; not a dress code or a postcode."""
_STRONG_CODE = re.compile(r"\b(?:pin|code|password|passcode|reference|registration|rego|plate)\b", re.I)
"""Words that make a question an identifier's even beside a phone word ("mobile money PIN")."""

_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (
        AnswerType.CODE,
        re.compile(rf"(?={_CODE_QUESTION.pattern})(?=.*{_STRONG_CODE.pattern})", re.I),
    ),
    (
        AnswerType.PHONE,
        re.compile(
            r"\b(?:phone|cell|mobile|telephone)(?: number)?\b|\bnumber to (?:call|text)\b"
            r"|\b(?:work|home|office|business|landline|studio|shop|desk|direct|personal|private)\s+number\b|\bwhat\s+number\s+(?:do|does|should|can)\b[^?]*\bcall\b",
            re.I,
        ),
    ),
    (AnswerType.EMAIL, re.compile(r"\be-?mail\b", re.I)),
    (AnswerType.CODE, _CODE_QUESTION),
    (AnswerType.AGE, re.compile(r"\bhow old\b|\bwhat age\b", re.I)),
    (AnswerType.ADDRESS, re.compile(r"\baddress\b", re.I)),
    (AnswerType.MEASURE, re.compile(r".", re.S)),  # decided by `measure_family`, see answer_type
    (
        AnswerType.RESULT_TIME,
        re.compile(
            r"^\s*what\s+(?:is|was|were|'s)\s+.*\b(?:finish(?:ing)?|race|running|personal best|best)?\s*time\b"
            r"(?!\s+(?:of day|zone))"
            # "What time did Maelle run in Rotterdam?": the time taken, not the hour
            r"|^\s*what\s+time\s+did\s+.+\b(?:run|finish|do|complete|swim|ride|clock)\b",
            re.I,
        ),
    ),
    (AnswerType.CLOCK, re.compile(r"^\s*(?:at\s+)?what\s+time\b(?!\s+(?:of\s+year|zone)\b)", re.I)),
    (
        AnswerType.PROPER,
        re.compile(
            r"\btitle of (?:the |his |her |their |my |your |\w+['’]s )?(?:book|novel|film|movie|show|album|song|podcast|play)\b",
            re.I,
        ),
    ),
    (AnswerType.TOPIC, re.compile(r"^\s*what\s+(?:is|was|are|were|'s)\s+.+\babout\s*\??\s*$", re.I)),
    (AnswerType.NAME, re.compile(r"\bnames?\b|\bnamed\b|\bcalled\b", re.I)),
    (
        AnswerType.PROPER,
        re.compile(
            r"\b(?:what|which) (?:brand|make|model|company|book|novel|movie|film|show|series|song|album|band|"
            r"podcast|game|restaurant|cafe|school|university|college|team|club|studio|gym|hospital|hotel|"
            r"store|shop|app|magazine|newspaper|author|artist|airline|museum|employer|firm|startup|agency|bank|"
            r"charity|publisher|label|organi[sz]ation|business|brewery|bakery|theatre|theater|venue|church)\b",
            re.I,
        ),
    ),
    # "Who do I work for?", "Who does Lena drive for now?": an employer, not a person
    (
        AnswerType.PROPER,
        re.compile(
            r"^\s*who\s+(?:do|does|did)\s+.+?\b(?:work|drive|play|write|sail|fly|deliver)(?:ing)?\s+for\b"
            r"|^\s*who\s+(?:employs|hired)\b",
            re.I,
        ),
    ),
    (AnswerType.COLOUR, re.compile(r"\b(?:what|which) colou?r\b", re.I)),
    (AnswerType.PLACE, re.compile(r"^\s*where\b|\b(?:what|which) (?:city|town|country|state|place)\b", re.I)),
    (
        AnswerType.PERSON,
        re.compile(
            r"^\s*(?:who|whom)\b|\bwith whom\b"
            # "Which of my labmates ...?", "Which of Lorne's children ...?": one of some people
            r"|^\s*which\s+of\s+(?:my|our|his|her|their|the|[A-Z][\w'’-]*['’]s?)\s+(?:two\s+|three\s+)?(?:\w+\s+)?"
            r"(?:sons|daughters|children|kids|friends|labmates|colleagues|housemates|flatmates|staff|partners|"
            r"siblings|brothers|sisters|grandchildren|grandkids|students|clients|neighbou?rs|teammates|"
            r"classmates|cousins|parents|members|coworkers|co-workers|employees|bosses|teachers)\b",
            re.I,
        ),
    ),
    (
        AnswerType.OBJECT,
        re.compile(
            r"\bwhat did \w+ (?:make|made|paint|draw|bake|cook|build|buy|bought|create|knit|sew)\b", re.I
        ),
    ),
    (
        AnswerType.YESNO,
        re.compile(r"^\s*(?:is|are|am|does|do|did|has|have|was|were|can|could|will|would)\b", re.I),
    ),
)

COLOURS = frozenset(
    "red orange yellow green blue purple violet pink brown black white grey gray silver gold beige teal "
    "turquoise navy maroon cream".split()
    # an animal's coat is its colour ("Marlena is the brindle", "Radish is the tabby")
    + "tabby brindle fawn palomino tuxedo ginger tortoiseshell tortie calico chestnut roan piebald skewbald "
    "dapple merle tan golden blonde auburn".split()
)
_PHONE = re.compile(r"(?<![\w+])(?:\+?\d[\d\s().-]{6,}\d)(?!\w)")
_RESULT_TIME = re.compile(
    r"\b\d{1,2}:\d{2}(?::\d{2})?\b(?!\s*(?:am|pm|a\.m|p\.m))"
    r"|\b\d+\s*(?:hours?|hrs?|h)\s*(?:and\s*)?\d+\s*(?:minutes?|mins?|m)\b"
    r"|\b\d+\s*(?:minutes?|mins?)(?:\s*(?:and\s*)?\d+\s*(?:seconds?|secs?|s))?\b",
    re.I,
)
_CLOCK = re.compile(
    r"\b\d{1,2}[:.][0-5]\d\s*(?:am|pm|a\.m\.|p\.m\.|h\b)?(?![\d.,]*\s*(?:%|percent|kg|km|euros?|pounds?|dollars?))"
    r"|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock)(?!\w)"
    r"|\b(?:(?:a\s+)?quarter|half|ten|twenty|five|twenty-five)\s+(?:past|to)\s+(?:one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|\d{1,2})\b"
    r"|\b(?:noon|midday|midnight)\b"
    r"|(?:(?<=\bat\s)|(?<=\bfrom\s)|(?<=\btill\s)|(?<=\buntil\s))(?:[1-9]|1\d|2[0-3])"
    r"(?![\d:,/%]|\.\d|\s*(?:years?|months?|weeks?|days?|people|of\b|-))"
    r"|^\s*(?:[1-9]|1\d|2[0-3])(?=\s+(?:on|in|every|at|sharp|now)\b)",
    re.I,
)
"""A time of day: a clock reading, an hour with am/pm, "quarter to eight", noon; a bare hour only
after "at"/"from" ("opens at 10") or opening a corrected value ("No, 10 on weekdays")."""
_TARGET_BEFORE = re.compile(
    r"\b(?:aim(?:s|ing|ed)?(?:\s+for)?|target(?:ing)?|goal(?:\s+is)?|hop(?:e|es|ing)\s+(?:for|to\s+\w+)|want(?:s|ed)?\s+"
    r"(?:to\s+\w+\s+)?|sub|under|beat|break(?:ing)?)\s*[-:]?\s*(?:a\s+|the\s+)?$",
    re.I,
)
"""Words that make a time a target, not a time run: "She's aiming for 3:45", "the goal is sub 3:15"."""
_CLOCK_VERB = re.compile(
    r"^\s*(?:at\s+)?what\s+time\b.*?\b(open|close|start|begin|finish|end|arrive|leave|depart|land)s?\b", re.I
)
_OPPOSED = {
    "open": "close|closes|closed|closing|shut|shuts",
    "close": "open|opens|opened|opening",
    "start": "finish|finishes|finished|end|ends|ended|until|till",
    "begin": "finish|finishes|finished|end|ends|ended|until|till",
    "finish": "start|starts|started|begin|begins|from",
    "end": "start|starts|started|begin|begins|from",
    "arrive": "leave|leaves|left|depart|departs|departed",
    "leave": r"arrive|arrives|arrived|land|lands|landed|get\s+in|gets\s+in",
    "depart": "arrive|arrives|arrived|land|lands|landed",
    "land": r"leave|leaves|left|depart|departs|departed|take\s+off|takes\s+off",
}
"""For a "What time does it <verb>?" question, the verbs of the other end: "We open at 7am" does not
say when the bakery closes."""


def clock_verb(question: str) -> str | None:
    """The verb whose time a "What time ...?" question asks ("close" in "What time does the bakery
    close?"), or None."""
    m = _CLOCK_VERB.match(question)
    return m.group(1).lower() if m else None


def clause_around(text: str, start: int, end: int, cut: re.Pattern[str]) -> str:
    """The clause of `text` that holds [start, end): from the last `cut` ending by `start` to the
    first beginning at or after `end` (pure; each caller says what ends a clause for it).

    Args:
        text: a sentence or turn.
        start, end: the span the clause must hold.
        cut: what separates clauses.

    Returns:
        The clause, the span included.
    """
    left = max((m.end() for m in cut.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in cut.finditer(text, end)), len(text))
    return text[left:right]


def _clause_says(text: str, at: int, words: str) -> bool:
    """Whether the clause of `text` around position `at` says one of `words` (a regex alternation)."""
    return re.search(rf"\b(?:{words})\b", clause_around(text, at, at, _CLAUSE_CUT), re.I) is not None


_CLAUSE_CUT = re.compile(r"[,;.!?]\s|\s(?:and|but|then|while|-)\s", re.I)

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CAP_RUN = re.compile(r"\b[A-Z][\w'’&.-]*(?:\s+(?:of|de|la|the|and|&)?\s*[A-Z][\w'’&.-]*)*")
_PLACE_CUE = re.compile(
    r"\b(?:in|to|from|at|near|around|moved to|live in|living in)\s+((?:the\s+)?[A-Z][\w'’.-]*(?:(?:[\s,]+|\s+&\s+)[A-Z][\w'’.-]*)*)"
)
"""A place after its preposition, "&" and all ("roasting at Ember & Ash in Seddon")."""
_DENIED_BEFORE = re.compile(r"(?:\b(?:not|never|no\s+longer)|n['’]t)\s+(?:[a-z]+\s+){0,2}$")
"""A negation just before a place's cue ("we're not moving to", "didn't go to"): the place is
denied there, not said to be where."""
_NOT_WHERE_BEFORE = re.compile(r"\b(?:(?:not\s+)?(?:a|an)|not(?:\s+the)?)\s+$", re.I)
"""Right before a name, an indefinite article ("a Honda", "an Airbnb": a make or a kind) or a
negation ("not the Honda"): the name does not say where."""
_HONORIFIC = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?"
"""A title before a name belongs to it: "my physio is Dr. Hale" names Dr. Hale, not "Dr"."""
_NAMED = re.compile(
    rf"\b(?:named|called|name is|name's|goes by|(?:has|have|got)\s+a\s+(?:new\s+)?name:)\s+"
    rf"({_HONORIFIC}[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)"
)
_NAMED_NOW = re.compile(
    r"\b(?i:we|they|it|she|he)(?:['’]re|['’]s|\s+are|\s+is)\s+(?:now\s+)?"
    r"((?:The\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})\s+now\b"
)
"""A new name said as what one is now ("We changed the band name. We're Ghost Parking now.")."""
_STREET = re.compile(
    r"\b\d{1,5}\s+(?:[A-Z][\w'-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|"
    r"Way|Place|Pl|Terrace|Close|Crescent)\b\.?"
    # The name first and the number after, as most of Europe writes it ("Sint-Pietersplein 4",
    # "Rue des Capucins 14", "Kouter 12" after "on"/"at")
    r"|\b(?:[A-Z][\w'’-]*\s+){0,2}[A-Z]?[\w'’-]*(?:straat|laan|weg|plein|gracht|dreef|kade|strasse|straße|gasse|"
    r"platz|allee|gatan|vägen|gade|vej|veien)\s+\d{1,4}[a-z]?\b"
    r"|\b(?:Rue|Via|Calle|Avenida|Plaza|Praça|Rua|Avenue|Piazza|Corso)\s+(?:(?:de|des|du|de\s+la|del|della|da|do|dos)\s+)?"
    r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2},?\s+\d{1,4}[a-z]?\b"
    r"|(?<=\b(?:on|at|is|to)\s)(?!(?:Gate|Route|Room|Platform|Terminal|Level|Floor|Page|Chapter|Table|Stand|Bus|Line|"
    r"Exit|Junction|Week|Day|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b)"
    r"[A-Z][a-z'’-]+(?:[\s-][A-Z][a-z'’-]+)?\s+\d{1,4}[a-z]?\b(?!\s*(?:am|pm|%|kg|km|mg|euros?|pounds?|:\d))"
)
_NOT_NAMES = frozenset(
    "I I'm I've I'll I'd Im Ive OK Ok Okay Yes No Hi Hey Hello Thanks Thank Wow Oh Well So And But Also "
    "Mon Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mondays Tuesdays Wednesdays Thursdays "
    "Fridays Saturdays Sundays January February March April May June July "
    "August September October November December Today Tomorrow Yesterday The A An My Our Your His Her Their "
    "It That This What When Where Who Why How Congrats Congratulations Sure Great Nice Awesome Lol "
    "One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Both All Some Most "
    "Sorry Actually Correction Wait Please Maybe Just Also Still Anyway Ugh Ha Haha Now Then Here There "
    "Guess Big TV".split()
)
_DEICTIC = re.compile(
    r"\b(?:this|these|here|look|check (?:it|this) out|what i made|pic|photo|picture)\b", re.I
)
_GENERIC = frozenset(
    "user assistant name named called thing things kind type sort favorite favourite new current currently number "
    "now like likes get got make made take took go went say said tell told know think many much "
    # "What is wrong with Emir?", "What happened to Gordie?": the person is what it is about
    "wrong happened happen".split()
)
_GENERIC_TOKENS = _GENERIC | frozenset(tokenize("many much"))
"""With "how many" as the index stems it ("mani"): not what a count is about. (Stemming every
generic word would drop "call" from "call-out charge", since "called" stems to it.)"""


_EITHER = re.compile(r"\b\w+\s+or\s+\w+", re.I)


_MEASURE_QUESTIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "weight",
        re.compile(
            r"\bweigh(?:s|ed|t)?\b|\bhow\s+heavy\b|\bhow\s+many\s+(?:kilos|kilograms|kg|pounds|lbs|stone|grams)\b",
            re.I,
        ),
    ),
    (
        "dose",
        re.compile(
            r"\bdos(?:e|es|age)\b|\bhow\s+many\s+(?:mg|milligrams|micrograms|ml)\b"
            r"|^\s*how\s+much\s+(?!time\b|money\b)[a-z]+\s+(?:does|do|did|is|was)\s+.+\b(?:take|taking|on)\s*\??\s*$",
            re.I,
        ),
    ),
    ("length", re.compile(r"\bhow\s+(?:tall|far)\b|\b(?:height|distance)\b", re.I)),
    (
        "duration",
        re.compile(
            r"^\s*how\s+long\b.*\b(?:commute|journey|drive|flight|walk|ride|train|bus|trip\s+to\s+work)\b",
            re.I,
        ),
    ),
    (
        "score",
        re.compile(
            r"^\s*what\s+(?:mark|marks|score|grade|percentage|result)\s+(?:did|do|does|have|has|had)\b", re.I
        ),
    ),
)
"""Questions asking a measured quantity, by the family of units that answers them ("What mark did
I get?" is answered by a mark, not by "I passed")."""
_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)?"
MEASURE_UNITS: dict[str, re.Pattern[str]] = {
    "weight": re.compile(
        rf"{_NUMBER}\s*(?:kg|kgs|kilos?|kilograms?|g|grams?|lbs?|pounds?|st|stone|oz|ounces?)\b(?:\s*\d+\s*(?:oz|lbs?)\b)?",
        re.I,
    ),
    "dose": re.compile(
        rf"{_NUMBER}\s*(?:mg|mcg|µg|ml|milligrams?|micrograms?|millilitres?|milliliters?|iu)\b", re.I
    ),
    "length": re.compile(
        rf"{_NUMBER}\s*(?:cm|mm|m|km|metres?|meters?|kilometres?|kilometers?|miles?|ft|feet|foot|inches?|in)\b"
        r"|\b\d['’]\s?\d{1,2}(?:\"|''|”)?",
        re.I,
    ),
    "duration": re.compile(
        rf"{_NUMBER}\s*(?:hours?|hrs?|h)(?:\s*(?:and\s*)?\d+\s*(?:minutes?|mins?))?\b|{_NUMBER}\s*(?:minutes?|mins?)\b"
        r"|\b(?:an?|one|half\s+an)\s+hour(?:\s+and\s+(?:a\s+half|\d+\s*(?:minutes?|mins?)))?\b",
        re.I,
    ),
    "score": re.compile(
        rf"{_NUMBER}\s*(?:%|percent|per\s+cent|points?|marks?|out\s+of\s+\d+)|\b\d{{1,3}}\s*/\s*\d{{1,3}}\b"
        r"|\b(?:got|scored|received|with)\s+(?:an?\s+)?(?:A\*|[A-F][+-]?|(?:a\s+)?(?:distinction|merit|first|2:1|2:2))(?=[\s.,!;]|$)"
        r"|\b(?:got|scored|get|getting|with)\s+(?:an?\s+)?\d{1,3}(?:\.\d+)?(?![\d,]|\s*(?:years?|months?|weeks?|days?|"
        r"hours?|minutes?|people|kids|of\b|out\s+of|%|percent|per\s+cent|points?|marks?))",
    ),
}
"""A number with a unit of each family ("5.6 kg", "10mg", "1.8 m", "70 minutes")."""


_CODE_VALUE = r"(?=[A-Za-z0-9/-]*\d)[A-Za-z0-9](?:[A-Za-z0-9/-]*[A-Za-z0-9])?"
"""A value with a digit in it: "HX-448812", "41B", "2791" (not a word, a sum or a time)."""
_SECRET_WORD = re.compile(r"\b(?:password|passcode|passphrase)\b", re.I)


def code_keys(question: str) -> str | None:
    """What an identifier question calls the thing, as a regex alternation: the identifier word
    and the noun it identifies ("What's my insurance policy number?" -> policy|number; "What's
    the number of my bus?" -> number|bus), or None when the question asks no identifier."""
    m = _CODE_QUESTION.match(question)
    if m is None:
        return None
    words = [w.lower() for w in _WORD.findall(m.group(0))]
    keys = [w for w in words if re.fullmatch(_CODE_WORDS, w)]
    if not keys:
        return None
    at = words.index(keys[0])
    after = words[at + 1 :]
    named = [w for w in words[max(at - 1, 0) : at] if w not in _CODE_STOP]
    if after and after[0] in ("of", "for", "on"):  # "the number of my bus", "the code for the gate"
        named += [w for w in after if w not in _CODE_STOP and w not in keys][:2]
    return "|".join(re.escape(w) for w in dict.fromkeys([*keys, *named]))


_CODE_STOP = frozenset(
    "what what's is was are were the my our his her their your a an of on for at to s".split()
)


def code_value(text: str, keys: str | None) -> str | None:
    """The identifier a text gives for what the question calls it (pure): the first value with a
    digit said after one of `keys` in the same clause ("The policy number is HX-448812", "plot
    41 came free", "Bus 27"), or a password's word ("the wifi password is bluefinch"). A value
    said beside nothing the question names is not one ("Work phone is 087 555 2190" does not
    give the van's registration)."""
    if not keys:
        return None
    m = re.search(
        rf"\b(?:{keys})s?\b[^.;!?\d]{{0,40}}?(?<![\w£$€.,:/-])({_CODE_VALUE})(?![\w£%:])", text, re.I
    )
    if m is not None:
        # "My bus is number 22. No, 27": the value said right after a correction cue replaces it
        fixed = re.match(
            rf"\W*(?:no|sorry|wait|I\s+mean|I\s+meant|actually)\W+(?:it's\s+)?({_CODE_VALUE})\b",
            text[m.end() :],
            re.I,
        )
        return fixed.group(1) if fixed else m.group(1)
    if _SECRET_WORD.search(keys):
        said = re.search(
            r"\b(?:password|passcode|passphrase)\s+(?:is|was|:)\s+[\"“']?([^\s\"”',.;!?]+)", text, re.I
        )
        return said.group(1) if said else None
    return None


def measure_family(question: str) -> str | None:
    """The family of units a question asks a quantity in ("How much does Elsie weigh?" -> weight),
    or None when it asks no measured quantity."""
    return next((family for family, pattern in _MEASURE_QUESTIONS if pattern.search(question)), None)


def answer_type(question: str) -> AnswerType:
    """The kind of value the question asks for (first matching rule wins). The rules read the
    question with its asked noun phrase cut to its head ("Which music school" reads as "Which
    school"), so a modifier does not hide the kind."""
    form = question
    m = _ASKED.match(question)
    head = asked_head(question)
    if m and head:
        words = _WORD.findall(m.group(1))
        lowered = [w.lower() for w in words]
        if head in lowered and lowered.index(head) > 0:
            rest = m.group(1)[m.group(1).lower().index(head) :]
            form = f"{question[: m.start(1)]}{rest}"
    if _ASKS_WHETHER.match(question) and not _EITHER.search(question):
        return AnswerType.YESNO  # "Did Senait's band change its name?" asks whether, not a name
    for kind, pattern in _TYPES:
        if kind is AnswerType.MEASURE:
            if measure_family(question) is not None:
                return kind
            continue
        if pattern.search(form):
            if kind is AnswerType.YESNO and _EITHER.search(question):
                return AnswerType.OTHER  # "Is she vegan or vegetarian?" asks which, not whether
            return kind
    return AnswerType.OTHER


_CONTACT_LABELS = {
    "personal": "personal",
    "private": "personal",
    "home": "personal",
    "own": "personal",
    "work": "work",
    "office": "work",
    "business": "work",
    "company": "work",
    "mobile": "mobile",
    "cell": "mobile",
    "landline": "landline",
}
_LABEL = re.compile(rf"\b({'|'.join(_CONTACT_LABELS)})\b", re.I)


def labelled_otherwise(question: str, said: str, value: str = "") -> bool:
    """Whether a phone number or email is said under another label than the question asks ("What's
    my personal email address?" against "Work email changed: jules.k@goannahealth.com") (pure).

    Args:
        question: the question.
        said: the sentence (or turn) giving the value.
        value: the value; when given, only its clause is read ("I've got a work mobile now,
            07700 900733, but anything personal still goes to the old number" labels it work).

    Returns:
        True when both carry a label on one axis (personal/work, mobile/landline) and differ.
    """
    at = said.find(value) if value else -1
    if at >= 0:
        said = clause_around(said, at, at + len(value), _LABEL_CUT)
    asked = {_CONTACT_LABELS[m.lower()] for m in _LABEL.findall(question)}
    given = {_CONTACT_LABELS[m.lower()] for m in _LABEL.findall(said)}
    # each axis on its own: a "work mobile" is not the "personal mobile" asked for
    return any(asked & axis and given & axis and not asked & given & axis for axis in _LABEL_AXES)


_LABEL_CUT = re.compile(r"[.;!?]\s|\s(?:but|and|while|whereas)\s", re.I)
"""What ends a contact's clause; not a comma ("a work mobile now, 07700 900733" labels the number)."""
_LABEL_AXES = (frozenset({"personal", "work"}), frozenset({"mobile", "landline"}))


_ASKS_WHETHER = re.compile(
    r"^\s*(?:is|are|am|does|do|did|has|have|was|were|can|could|will|would)\b(?=.*\b(?:names?|named|called)\b)",
    re.I,
)
"""A yes/no question that names a name word, which the type table would read as asking a name."""
_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"“'(A-Z0-9])")
_ABBREVIATION = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|St|Jr|Sr|Prof|vs|etc|e\.g|i\.e|No|Mt|[A-Z])\.$")


def sentences(text: str) -> list[str]:
    """Sentences of a turn: split after . ! ? before a capital, never inside an email or a number
    and never after an abbreviation ("Dr. Patel", "Fontaines D.C.")."""
    out: list[str] = []
    for piece in _BREAK.split(text.strip()):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        elif piece.strip():
            out.append(piece.strip())
    return out or [text.strip()]


CORRECTION = re.compile(
    r"\b(?:sorry|I meant|I mean|actually|correction|scratch that|rather|not \w+ but|no wait|wait)\b", re.I
)
"""Words after which a speaker corrects what they just said in the same turn."""


def after_correction(text: str) -> str | None:
    """What follows the last correction cue of a turn ("March 12. Sorry, I meant March 21" ->
    "I meant March 21"), or None when the turn corrects nothing."""
    cues = list(CORRECTION.finditer(text))
    return text[cues[-1].start() :] if cues else None


def focus_words(question: str, entities: set[str]) -> set[str]:
    """Content words of the question that are not its entities, generic verbs or question words:
    what the evidence must be about."""
    names = {w for e in entities for w in tokenize(e)}
    # "the user's address" tokenises to "user'": the possessive is not part of the word.
    words = {re.sub(r"(?:['’]s?)+$", "", w) for w in tokenize(question)}
    return {
        w
        for w in words
        if w not in STOP_WORDS
        and w not in names
        and w not in _GENERIC_TOKENS
        and w not in _WHEN_WORDS
        and len(w) > 2
        and not _YEAR.fullmatch(w)
    }


TIME_FRAME = re.compile(
    r"\b(?:this|last|next|that)\s+(?:year|month|week|season|term|semester|summer|winter|spring|autumn|fall)\b"
    r"|\bso\s+far\b",
    re.I,
)
"""A frame of time in a question ("this year", "so far"), which says when, not what is counted."""
_WHEN_WORDS = frozenset(tokenize(" ".join(MONTHS)))
"""Month names say when, not what: "Where did Luca live in June 2023?" is not about June."""
_YEAR = re.compile(r"(?:19|20)\d\d")


def _stem(word: str) -> str:
    """A crude stem, the same for a word and its plural or past ("bike", "bikes" -> "bik";
    "class", "classes" -> "class"): a final "e" goes too, since "-es" may be a plural's "s"."""
    word = irregular_singular(word)  # "grandchildren" counts "grandchild"s
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def involves(e: EvidenceItem, entities: Sequence[str]) -> bool:
    """True when the turn is by or names one of the question's people (any turn, if none)."""
    return not entities or any(
        n.lower() == e.speaker.lower() or re.search(rf"\b{re.escape(n)}\b", e.text, re.I) for n in entities
    )


def question_names(question: str, people: Sequence[str] = ()) -> list[str]:
    """Capitalised words of the question after its first word, without a possessive, that are not
    `people` nor "I": what the question names ("Enschede", "Talia", "Emeric")."""
    low = {p.lower() for p in people}
    words = re.findall(r"(?<!^)(?<=\s)[A-Z][\w'’-]+", question.strip())
    return [w for w in (re.sub(r"['’]s$", "", w) for w in words) if w.lower() not in low and w != "I"]


def about(text: str, focus: set[str]) -> bool:
    """True when the text mentions at least one focus word (crude stems both sides)."""
    if not focus:
        return True
    words = _stems_said(text)
    return any(_says(words, f) for f in focus)


def shared_focus(text: str, focus: set[str]) -> int:
    """How many focus words the text mentions, read as `about` reads them."""
    words = _stems_said(text)
    return sum(1 for f in focus if _says(words, f))


def _stems_said(text: str) -> set[str]:
    # "my manager's name": the possessive is not part of the word, as in `focus_words`.
    return {_stem(re.sub(r"(?:['’]s?)+$", "", w)) for w in tokenize(text)}


def _says(words: set[str], focus_word: str) -> bool:
    # A focus word as the index reads it too ("puppy" is "puppi" once tokenised).
    return _stem(focus_word) in words or any(_stem(t) in words for t in _tokens(focus_word))


@functools.lru_cache(maxsize=4096)
def _tokens(word: str) -> tuple[str, ...]:
    return tuple(tokenize(word))


_IF_LEAD = re.compile(r"^\s*if\b[^,]*,\s*", re.I)


def at_sentence_start(sentence: str, index: int) -> bool:
    return sentence[:index].strip() == ""


def _proper_names(sentence: str, exclude: set[str]) -> list[str]:
    out = []
    for m in _CAP_RUN.finditer(sentence):
        name = m.group(0).strip(" .,'’")
        words = name.split()
        if len(words) > 1 and words[0] in ("The", "A", "An") and words[1] not in _NOT_NAMES:
            # A title keeps its article ("The Night Circus"); a lone "The" is no name.
            if not at_sentence_start(sentence, m.start()) or len(words) > 2:
                out.append(name) if name.lower() not in exclude else None
                continue
        first = words[0] if words else ""
        at_start = sentence[: m.start()].strip() == ""
        if (
            not name
            or first in _NOT_NAMES
            or first.rstrip("s") in _NOT_NAMES  # "Mondays"
            or name.lower() in exclude
            or (at_start and len(name.split()) == 1)
        ):
            continue
        out.append(name)
    return out


NUMBER_WORDS = {
    **CARDINALS,
    "a couple of": 2,
    "a dozen": 12,
    "once": 1,
    "twice": 2,
}
NUMBER_PATTERN = (
    COMPOUND_PATTERN
    + r"|\d+|"
    + "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
)
"""A number in digits or words (longest word first, so "a couple of" wins over "a")."""
_AGE = re.compile(
    rf"\b(?:is|turned|turns|turning|be|was|aged?|age of)\s+(?:now\s+|just\s+|only\s+)?({NUMBER_PATTERN})\b(?!\s*(?:%|percent|am|pm|:))"
    rf"|\b({NUMBER_PATTERN})[\s-]+(?:years?|yrs?)[\s-]+old\b|\b({NUMBER_PATTERN})(?:st|nd|rd|th)\s+birthday\b"
    r"|\b[A-Z][\w'’-]+\s*\((\d{1,2})\)",  # "Noah (10) and Lily (7)"
    re.I,
)


ORDINALS = {w: n for w, n in SAID_ORDINALS.items() if 2 <= n <= 8}
"""'a third shift' is three shifts now."""
_ORDINALS = "|".join(ORDINALS)
_ORDINAL_OWNER = r"(?:a|my|our|his|her|their)"
"""What may stand before an ordinal that counts ("a third guitar", "my third half marathon")."""
_TOTAL = re.compile(
    rf"\b({NUMBER_PATTERN})\s+(?:\w+\s+)?(?:in total|total|altogether|in all)\b|\b(?:that's|so that's|so)\s+({NUMBER_PATTERN})\b"
    rf"|\b(?:count|tally|total)\s+(?:is|was|['’]s|stands\s+at)\s+(?:now\s+|up\s+to\s+|down\s+to\s+)?({NUMBER_PATTERN})\b"
    rf"|\bso\s+(?:I['’]m|we['’]re|it['’]s|I\s+have|we\s+have|I['’]ve\s+got|we['’]ve\s+got)\s+(?:[a-z]+\s+){{0,3}}?"
    rf"({NUMBER_PATTERN})\s+(?:[a-z]+\s+)?now\b"
    rf"|\bso\s+(?:[a-z'’]+\s+){{0,6}}?(?:is|are|['’]s)\s+(?:up\s+to\s+|down\s+to\s+)?({NUMBER_PATTERN})\s+now\b",
    re.I,
)
"""A total said outright ("So five in total", "that's three animals", "Blend count is 4 now", "so
I'm looking after 15 now") outranks the parts."""
_TRAILING_COUNT = re.compile(
    rf"(?P<before>[^.!?,;]{{3,60}}),\s*(?P<n>{NUMBER_PATTERN})\s+(?:at\s+the\s+moment|right\s+now|now|currently|"
    rf"so\s+far|at\s+present|this\s+time)\b",
    re.I,
)
"""A number said after its noun, set off by a comma ("fostering kittens for the rescue, four at
the moment")."""


PEOPLE_TOTAL = re.compile(
    rf"\b({NUMBER_PATTERN})\s+of\s+us\b|\b(?:we're|we\s+are|they're|they\s+are)\s+(?:(?:down|up|back)\s+to\s+)?"
    rf"({NUMBER_PATTERN})\b(?!\s*(?:%|percent|years?|months?|weeks?|days?|hours?|minutes?|miles?|km|o'clock|pm|am)\b)|"
    rf"\b({NUMBER_PATTERN})\s+(?:working|work)\s+for\s+(?:me|us)\b|\b(?:crew|team|group|staff)\s+of\s+({NUMBER_PATTERN})\b|"
    rf"\b(?:are|is)\s+({NUMBER_PATTERN})\s+(?:now|again|strong)\b",
    re.I,
)
"""How many people a group has, said without a noun ("there's four of us now", "so we're six on
the Loon", "three working for me again", "the Krill Seekers are six now")."""
PEOPLE_WORDS = frozenset(
    "people person crew team staff member members player players worker workers employee employees "
    "us folk".split()
)
"""Words a count question names people by, which a total without a noun answers."""
_PEOPLE_STEMS = PEOPLE_WORDS | {_stem(w) for w in PEOPLE_WORDS} | set(tokenize(" ".join(PEOPLE_WORDS)))


def people_total(text: str, focus: set[str]) -> int | None:
    """The size of a group of people the text states without a noun, when the question counts
    people (or names the group, given as focus by the caller)."""
    if not focus & _PEOPLE_STEMS:
        return None
    m = PEOPLE_TOTAL.search(text)
    return number_value(next(g for g in m.groups() if g)) if m else None


_OF_THEM = re.compile(rf"\b(?:have|had|own|owned|got|keep|kept)\s+({NUMBER_PATTERN})\s+of\s+them\b", re.I)


def number_value(word: str) -> int | None:
    """ "4" -> 4, "four" -> 4, "twice" -> 2, "thirty-three" -> 33, "2,800" -> 2800; None for
    anything else."""
    w = word.strip().lower()
    return int(w) if w.isdigit() else NUMBER_WORDS.get(w) or compound_value(w)


_ORDINAL_TOTAL = re.compile(rf"\ba (?:{_ORDINALS})\b", re.I)
"""'We got a second dog': the count is now two, said as an ordinal."""


def stated_total(text: str, focus: set[str]) -> bool:
    """True when the text says a total outright ("so that's three animals", "five in total", "a
    second dog")."""
    return bool(_TOTAL.search(text) or _ORDINAL_TOTAL.search(text)) and about(text, focus)


_NONE_OF = re.compile(
    r"\b(?:no|zero|(?:don['’]?t|do not|doesn['’]?t|does not)\s+have\s+any|not\s+any)\s+(?:more\s+)?([a-z]+)",
    re.I,
)


def stated_none(text: str, focus: set[str]) -> bool:
    """True when the text says there are none of what is counted ("Living alone, no
    roommates!", "we don't have any cats now"): a count of zero, said outright.

    Args:
        text: a turn or sentence.
        focus: the counted words.

    Returns:
        Whether the text states zero of one of them.
    """
    stems = {_stem(f) for f in focus}
    return any(_names_focus(m.group(1).lower(), stems) for m in _NONE_OF.finditer(text))


def _names_focus(word: str, stems: set[str]) -> bool:
    """Whether a word of the text is one of the focus `stems`, by the crude stem or as the index
    stems it: focus words come stemmed the index's way ("volunteers" is "volunt")."""
    return _stem(word) in stems or bool(stems.intersection(_tokens(word)))


TALLY = re.compile(
    rf"(?:^|(?<=[.!?])\s+)\W*(?P<label>[A-Za-z]+(?:\s+[a-z]+){{0,2}}):\s*"
    rf"(?:(?:I['’]m|we['’]re|it['’]s)\s+(?:up|down)\s+to\s+)?(?P<n>{NUMBER_PATTERN})\b(?![:.,]\d)"
    r"(?!\s+of\b)(?=(?:\s+[a-z]+){0,4}\s*(?:[.!,;]|$))",
    re.I,
)
"""A tally said as a label and a number ("Safe tally: 19.", "Blends: 7.", "Sea time: I'm up to 5
weeks."): the label names what is counted."""
_TALLY_FIXED = re.compile(
    rf"\s*[.,]?\s*(?:wait|no|sorry|actually|I\s+mean)[,.!]?\s+(?:(?:it's|it\s+was|make\s+that)\s+)?(?P<n>{NUMBER_PATTERN})\b",
    re.I,
)
_TOLD_NUMBER = re.compile(
    rf"\btold\s+you\b[^.!?]*?\b(?:{NUMBER_PATTERN})\b[^.!?]*[.!?,;]?\s*(?:no,?\s+)?"
    rf"(?:it\s+was|it['’]s|it\s+is|actually|in\s+fact)\s+(?:only\s+|just\s+)?({NUMBER_PATTERN})\b(?![:.]\d)",
    re.I,
)
"""A number taken back and the one that replaces it ("I told you we ringed 2,800 at Walney. It was
2,300.")."""


def corrects_number(text: str) -> bool:
    """True when the text takes back a number it told before and gives another."""
    return _TOLD_NUMBER.search(text) is not None


def stated_tally(text: str, focus: set[str]) -> int | None:
    """The last tally the text keeps of what is counted ("Safe tally: 19."), as put right in the
    next breath ("Safe tally: 9. Wait, 10 - I forgot the gun safe"); None when it keeps none.

    Args:
        text: a turn or sentences of one.
        focus: the question's content words naming what is counted.

    Returns:
        The number.
    """
    tallies = [t for t in TALLY.finditer(text) if focus and about(t.group("label"), focus)]
    if not tallies:
        return None
    fixed = _TALLY_FIXED.match(text, tallies[-1].end())
    return number_value((fixed or tallies[-1]).group("n"))


def stated_quantity(text: str, focus: set[str]) -> int | None:
    """A number the text states about one of the focus words ("4 times a week", "three kids",
    "down to one job", "no roommates"), or None: a count said outright, not counted from turns."""
    # Focus words may come already stemmed ("class"): compare both forms on both sides.
    stems = {f for f in focus} | {_stem(f) for f in focus}
    if focus and stated_none(text, focus):
        return 0
    if (n := stated_tally(text, focus)) is not None:
        return n
    told = _TOLD_NUMBER.search(text)
    if told and about(text, focus):
        return number_value(told.group(1))  # "I told you 2,800. It was 2,300."
    total = _TOTAL.search(text)
    if total and about(text, focus):
        return number_value(next(g for g in total.groups() if g))
    if (people := people_total(text, focus)) is not None:
        return people
    found = None
    trailing = _TRAILING_COUNT.search(text)
    if focus and trailing and about(trailing.group("before"), focus):
        return number_value(trailing.group("n"))
    if focus and about(text, focus) and (of_them := _OF_THEM.search(text)):
        found = number_value(of_them.group(1))  # "into guitars, I have three of them"
    # "a third guitar", "my third half marathon": the third of them is a count of three
    for m in re.finditer(
        rf"\b({NUMBER_PATTERN}|{_ORDINAL_OWNER} (?:{_ORDINALS}))\b((?:\s+[\w'-]+){{1,3}})",
        text,
        re.I,
    ):
        if text[max(m.start() - 1, 0) : m.start()] in ("£", "$", "€", "¥", "₹"):
            continue  # "£200 a week" is a sum, not a count of weeks
        following = re.findall(r"[a-z]+", m.group(2).lower())[:3]
        if any(w in stems or _names_focus(w, stems) for w in following):
            word = re.sub(rf"^{_ORDINAL_OWNER}\s+", "", m.group(1).lower())
            found = number_value(word) or ORDINALS.get(word)
            if not after_correction(text[: m.start()]):
                break
    return found


_DETERMINERS = frozenset("the a an his her their my your our its this that these those some any".split())
_NP_END = frozenset(
    "where who whom that which when whose why how does do did is are was were has have had will would can "
    "could should to at in on for from with by of about as than and or but he she they it i you we".split()
)
"""Words that end a noun phrase: a relative word, an auxiliary, a preposition, a pronoun."""
_WORD = re.compile(r"[\w'’-]+")


def np_head(text: str) -> str | None:
    """The head noun of the noun phrase `text` starts with: determiners and possessors are
    skipped ("the user's", "Samir's"), modifiers read up to a function word or a name, and the last
    word read is the head ("the user's new dog" -> "dog"; "music school does Leo" -> "school")."""
    run: list[str] = []
    for word in _WORD.findall(text):
        low = word.lower()
        if not run and low in _DETERMINERS:
            continue
        if re.search(r"['’]s?$", word):
            run = []  # a possessor: what follows is the head's phrase
            continue
        if low in _NP_END or (run and word[:1].isupper()):
            break
        run.append(low)
    return run[-1] if run else None


_NAME_OF = re.compile(r"\bnames? of\s+(.+)$", re.I)
_POSSESSOR_NAME = re.compile(r"([\w-]+)(?:'s|s'|’s)\s+(?:first\s+|last\s+|full\s+|new\s+)?names?\b", re.I)
_CALLED = re.compile(
    r"^\s*(?:what|who)(?:['’]s|\s+(?:is|was|are|were))\s+(.+?)\s+(?:called|named)\s*\??\s*$", re.I
)


def head_noun(question: str) -> str | None:
    """What a name question names, by the question's structure: "the name of the user's
    daughter", "her cat's name", "What is Samir's wife called?" -> the phrase's head noun."""
    if m := _NAME_OF.search(question):
        head = np_head(m.group(1))
    elif m := _POSSESSOR_NAME.search(question):
        head = m.group(1).lower()
    elif m := _CALLED.match(question):
        head = np_head(m.group(1))
    else:
        return None
    if head is None or head in ("what", "is", "whose", "first", "last", "full"):
        return None
    return head


_ASKED = re.compile(r"^\s*(?:(?:in|at|on|for|from|to|with)\s+)?(?:what|which)\s+(.+)$", re.I)


def asked_head(question: str) -> str | None:
    """The head noun a what/which question asks for ("Which music school does Leo teach at?" ->
    "school"; "In which city ..." -> "city"); None for "What is ...", "What does ..."."""
    m = _ASKED.match(question)
    return np_head(m.group(1)) if m else None


def topic_noun(question: str) -> str | None:
    """What a topic question asks about: "What is Sven's thesis about?" -> "thesis"."""
    m = re.search(r"(\w+)\s+about\s*\??\s*$", question, re.I)
    return m.group(1).lower() if m else None


EMPLOYER_HEADS = frozenset(
    "employer company firm workplace startup business organisation organization".split()
)
"""Nouns for where someone works: said as "a job at X", "works for X", "joined X"."""
_EMPLOYED = re.compile(
    r"\b(?:job|work(?:s|ing|ed)?|employed|hired|position|role|internship|started|starting|joined|joining)"
    r"\s+(?:[a-z]+\s+){0,3}?(?:at|for|with|by)?\s*((?:the\s+)?[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*)"
)
INSTITUTIONS = frozenset(
    "school university college team club studio gym hospital hotel store shop museum restaurant cafe".split()
)
"""Named places of a kind: a proper name answers "which school" only said with the noun."""
_PROPER_HEAD = re.compile(r"\b(?:what|which) (\w+)", re.I)


def proper_head(question: str) -> str | None:
    """ "Which school does she teach at?" -> "school"; "Which music school ..." -> "school"."""
    head = asked_head(question)
    if head is not None:
        return head
    m = _PROPER_HEAD.search(question)
    return m.group(1).lower() if m else None


def same_kind(text: str, head: str) -> bool:
    """Whether a text names an animal of the kind `head` names by another word ("a kitten" is a
    cat, "a puppy" a dog): "What are my cats called?" is answered by "a kitten named Churro"."""
    word = re.sub(r"ies$", "y", head.lower()).rstrip("s")
    kind = pet_family(word)
    if kind != word or kind not in PET_FAMILY.values():
        # only the general word covers the others ("cats" covers a kitten); "kitten" does not
        # cover every cat ("a tabby called Figo" may be another's)
        return False
    words = re.findall(r"[a-z]+", text.lower())
    return any(pet_family(w) == kind or pet_family(w.rstrip("s")) == kind for w in words)


def typed_span(
    kind: AnswerType, text: str, caption: str | None, exclude: set[str], head: str | None = None
) -> str | None:
    """The span of `text` (or its image caption) of the asked type, or None. A name question with
    a head noun ("the school's name") takes only a name said of that noun."""
    if kind is AnswerType.PHONE:
        m = _PHONE.search(text)
        return m.group(0).strip() if m else None
    if kind is AnswerType.EMAIL:
        m = _EMAIL.search(text)
        return m.group(0) if m else None
    if kind is AnswerType.ADDRESS:
        m = _STREET.search(text)
        return m.group(0).rstrip(".,") if m else None
    if kind is AnswerType.RESULT_TIME:
        for m in _RESULT_TIME.finditer(text):
            if not _TARGET_BEFORE.search(text[: m.start()]):
                return m.group(0).strip()
        return None
    if kind is AnswerType.CLOCK:
        for m in _CLOCK.finditer(text):
            if head is None or not _OPPOSED.get(head) or not _clause_says(text, m.start(), _OPPOSED[head]):
                return m.group(0).strip()
        return None
    if kind is AnswerType.MEASURE:
        m = MEASURE_UNITS[head].search(text) if head in MEASURE_UNITS else None
        return m.group(0).strip() if m else None
    if kind is AnswerType.CODE:
        return code_value(text, head)
    if kind is AnswerType.AGE:
        m = _AGE.search(text)
        age = next((g for g in m.groups() if g), None) if m else None
        return str(number_value(age) or age) if age else None
    if kind in (AnswerType.PROPER, AnswerType.NAME) and head in EMPLOYER_HEADS:
        m = _EMPLOYED.search(text)
        employer = m.group(1).rstrip(".") if m else None
        if employer and employer.split()[0] not in _NOT_NAMES and employer.lower() not in exclude:
            return employer  # "a new job at Vantage Labs" names the employer
    if kind is AnswerType.NAME:
        if head is not None and not about(text, {head}) and not same_kind(text, head):
            return None
        for m in _NAMED.finditer(text):
            # "a grumpy parrot called Capitão" names the parrot, not the family; "a dog named
            # Juniper and a rabbit named Clove": the name after the noun asked about.
            lead = " ".join(text[: m.start()].split()[-3:])
            if head is None or about(lead, {head}) or same_kind(lead, head):
                return m.group(1)
        names = _proper_names(text, exclude)
        if head is not None:
            # "Oakwood School", "my brother Jonas": a name right beside the noun it names.
            noun = rf"(?i:{re.escape(head)})"
            # The first such name that is a name ("My therapist, Dr. Lindqvist": not "My").
            for hit in re.finditer(
                rf"\b{noun}s?,?\s+(?:is\s+|was\s+)?({_HONORIFIC}[A-Z][\w'’-]+)|\b([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)\s+(?={noun}\b)",
                text,
            ):
                found = next((g for g in hit.groups() if g), None)
                if found and found.split()[0] not in _NOT_NAMES:
                    return found
            return None
        return names[0] if names else None
    if kind is AnswerType.COLOUR:
        # whole words, not index tokens: the stemmer reads "orange" as "orang"
        found = [w for w in re.findall(r"[a-z]+", f"{text} {caption or ''}".lower()) if w in COLOURS]
        return found[0] if found else None
    if kind is AnswerType.PLACE:
        denied: set[str] = set()
        for m in _PLACE_CUE.finditer(text):
            place = m.group(1).strip(" ,.")
            if _DENIED_BEFORE.search(text[: m.start()]):
                denied.add(place.lower())  # "we're not moving to Krakow after all": not where
                continue
            if place.split()[0] not in _NOT_NAMES and place.lower() not in exclude:
                return place
        # "it's a Yamaha MT-07", "an Airbnb": a name after "a"/"an" is a make or a kind, not
        # where; "not the Honda" denies it.
        names = [
            n
            for n in _proper_names(text, exclude | denied)
            if not _NOT_WHERE_BEFORE.search(text[: max(text.find(n), 0)])
        ]
        return names[0] if names else None
    if kind is AnswerType.PROPER and head in INSTITUTIONS:
        if not about(text, {head}):
            return None  # "Which school?": a name said beside no school ("from Leeds") is not one
        # "Oakwood School", "a school called Oakwood": a name beside the noun; "Oslo" in "I'm in
        # Oslo, I teach at a music school" names a city, not the school.
        noun = rf"(?i:{re.escape(head)})"
        near = re.search(
            rf"\b{noun}s?,?\s+(?:(?:is\s+|was\s+)?(?:called|named)\s+)?([A-Z][\w'’&-]+(?:\s+[A-Z][\w'’&-]+)*)"
            rf"|\b([A-Z][\w'’&-]+(?:\s+[A-Z][\w'’&-]+)*)\s+{noun}\b",
            text,
        )
        found = next((g for g in near.groups() if g), None) if near else None
        return found if found and found.split()[0] not in _NOT_NAMES else None
    if kind in (AnswerType.PERSON, AnswerType.PROPER):
        # "If you like Piranesi, try The Night Circus": the condition names what is known already.
        names = _proper_names(_IF_LEAD.sub("", text), exclude) or _proper_names(text, exclude)
        return names[0] if names else None
    if kind is AnswerType.TOPIC:
        noun = rf"(?i:{re.escape(head)})\w*" if head else r"\w+"
        m = re.search(rf"\b{noun}\s+(?:\w+\s+){{0,2}}?(?:about|on|into)\s+([^.;!?]+)", text)
        return m.group(1).strip(" ,") if m else None
    if kind is AnswerType.OBJECT and caption and _DEICTIC.search(text):
        return _caption_object(caption)
    return None


_CAPTION_LEAD = re.compile(r"^(?:a |an )?(?:photo|picture|image|close up|closeup) of\s+", re.I)


def _caption_object(caption: str) -> str:
    """ "a photo of a ceramic bowl on a table" -> "a ceramic bowl on a table"."""
    return _CAPTION_LEAD.sub("", caption.strip()).strip()


def best_sentence(question: str, text: str) -> str:
    """The sentence of `text` sharing the most words with the question (verbatim)."""
    # The people a question names are in every sentence about them ("Priti!"): not what it asks.
    named = set(tokenize(" ".join(re.findall(r"(?<!^)\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+", question.strip()))))
    q = set(tokenize(question)) - named or set(tokenize(question))
    # Ties go to the sentence saying more ("My usual is a flat white", not "I need coffee").
    # A question states nothing: statements first.
    scored = [
        (not s.rstrip().endswith("?"), len(q & set(tokenize(s))), len(set(tokenize(s))), -i, s)
        for i, s in enumerate(sentences(text))
    ]
    return max(scored)[4]


_CLAUSE = re.compile(r"[;,]\s+|\s+(?:and|but|while|whereas)\s+|(?<=[.!?])\s+")


def about_entity(text: str, entities: Sequence[str]) -> str:
    """The clauses of `text` that name one of `entities`, when some do and others do not ("Emma
    has violin on Mondays and Leo has soccer" -> "Leo has soccer" for Leo); else the text."""
    if not entities:
        return text
    parts = [p for p in _CLAUSE.split(text) if p.strip()]
    named, following, cue = [], False, False
    for p in parts:
        if _only_names(p, entities):
            continue  # "Priti! How many classes ...": calling someone says nothing about them
        if any(re.search(rf"\b{re.escape(e)}\b", p, re.I) for e in entities) or (cue and following):
            named.append(p)  # after a cue, the clause that corrects it ("He turns 30. Sorry, 31")
            following, cue = True, False
        elif _CUE_ONLY.match(p):
            named.append(p)  # "Leo is 6. Sorry, Leo is 7": the cue stays with what it corrects
            cue = True
        elif following and _PRONOUN_LEAD.match(p):
            named.append(p)  # "Chloe is joining, she's a nurse": the clause goes on about Chloe
        elif following and _VALUE_LEAD.match(p):
            named.append(p)  # "the new rep is Mireille, 819-555-0126": her number, said after her
        else:
            following = False
    return ", ".join(named) if named and len(named) < len(parts) else text


def states_something(sentence: str, names: Sequence[str]) -> bool:
    """False for a sentence that cannot answer: a question, or only a greeting and names."""
    return not sentence.rstrip().endswith("?") and not _only_names(sentence, names)


LIGHT_WORDS = frozenset(
    tokenize(
        "says said saying started starting starts begun began going doing done having getting well "
        "really actually just today yesterday week weekend honestly maybe guess anyway again also still "
        "thing things stuff something news"
    )
)
"""Words that carry no value of their own: "he's started his new job" says nothing of which job."""


def adds_content(sentence: str, question: str, names: Sequence[str]) -> bool:
    """True when the sentence has a content word that is not the question's, a name of the
    people involved, or a light word: it says something the question did not already say."""
    asked = {_stem(w) for w in tokenize(question)}
    people = {w for n in names for w in tokenize(n)}
    return any(
        _stem(w) not in asked and w not in people and w not in LIGHT_WORDS for w in content_words(sentence)
    )


_PRESUPPOSED = re.compile(r"\b(?:now\s+that|given\s+that|seeing\s+as)\b(?P<given>[^?]+)", re.I)


def only_restates_given(sentence: str, question: str, names: Sequence[str]) -> bool:
    """True when the question takes something as given ("What is Rhodri doing now that he's
    retired?") and the sentence shares the question's words only there ("Rhodri retired in
    March"): it repeats what the question assumes, not what it asks."""
    m = _PRESUPPOSED.search(question)
    if m is None:
        return False
    people = {w for n in names for w in tokenize(n)}
    said = {_stem(w) for w in content_words(sentence) if w not in people and w not in LIGHT_WORDS}
    given = {_stem(w) for w in tokenize(m.group("given"))}
    asked = {_stem(w) for w in tokenize(question[: m.start()])} - given
    return bool(said & given) and not (said & asked)


_SOCIAL = frozenset(
    "hi hey hello oh so congrats congratulations thanks thank you good morning evening night welcome "
    "wow ha haha".split()
)


def _only_names(clause: str, entities: Sequence[str]) -> bool:
    """True for a clause that is only a greeting and the names ("Priti!", "Hi Omar,")."""
    words = [w for w in re.findall(r"[\w'’]+", clause.lower()) if w not in _SOCIAL]
    return bool(words) and all(w in {e.lower() for e in entities} for w in words)


_CUE_ONLY = re.compile(r"^\W*(?:sorry|actually|correction|wait|no wait|no|I mean|I meant)\W*$", re.I)
_VALUE_LEAD = re.compile(r"^\s*(?:\+|\(?\d)[\d\s().+-]{5,}$|^\s*[\w.+-]+@[\w-]+(?:\.[\w-]+)+\.?\s*$")
"""A clause that is only a value (a phone number, an email): an appositive to the name before it."""
_PRONOUN_LEAD = re.compile(
    r"^\s*(?:so\s+|and\s+)?(?:she|he|they|her|his|their|it|its)(?:['’](?:s|re|d|ll))?\b", re.I
)


GENERIC_KINDS = frozenset(
    "dog dogs puppy puppies cat cats kitten kittens pet pets animal animals bird birds fish horse rabbit "
    "hen hens chicken chickens baby boy girl kid child person guy friend one thing".split()
)
"""Words that name a class, not a kind within it: "a puppy named Bolt" says nothing of Bolt's
breed."""


def type_head(kind: AnswerType, question: str) -> str | None:
    """What narrows a typed span for the question (pure): the noun a name is asked of, a topic's
    noun, a brand's head, a measure's family, an identifier's keys, the verb whose time of day is
    asked ("close"); None for other kinds or when the question names none.

    Args:
        kind: the question's answer type.
        question: the question.

    Returns:
        The head `typed_span` takes, or None.
    """
    heads = {
        AnswerType.NAME: head_noun,
        AnswerType.TOPIC: topic_noun,
        AnswerType.PROPER: proper_head,
        AnswerType.MEASURE: measure_family,
        AnswerType.CODE: code_keys,
        AnswerType.CLOCK: clock_verb,
    }
    return heads[kind](question) if kind in heads else None


def answer_span(
    question: str,
    kind: AnswerType,
    text: str,
    caption: str | None,
    exclude: set[str],
    entities: Sequence[str] = (),
    *,
    current: bool = True,
) -> Span:
    """The typed span when the text holds one; else the best sentence, marked not specific. With
    `entities` (people the question names who did not say the turn), only the clauses naming them;
    with `current` (the question does not ask what came before), only the replacing value of a
    turn that revises one (`revised_value`)."""
    whole, text = text, about_entity(text, entities)
    if current:  # "switched from violin to cello": the value that replaced the old one
        revised = revised_value(text) or revised_value(whole)
        if revised and only_when(revised):
            revised = None  # "pushed back to September" changes when, not what or where
        lead = _TITLE_LEAD.match(revised or "") or _CAP_RUN.match(revised or "")
        if (
            lead
            and kind in (AnswerType.PROPER, AnswerType.PERSON, AnswerType.PLACE)
            and re.sub(r"['’]\w+$", "", lead.group(0).split()[0])
            not in (_NOT_NAMES | _PRONOUNS) - {"The", "A", "An"}
        ):
            return Span(lead.group(0), True)  # "started The Bear": a title, article and all
        text = revised or text
    head = type_head(kind, question)
    corrected = after_correction(text)
    if corrected:  # "14 Oak Lane. Sorry, 41 Oak Lane": the corrected value wins
        bare = _CORRECTED_NUMBER.match(corrected) if kind is AnswerType.AGE else None
        if bare:  # "He turns 30. Sorry, 31, I'm the one turning 30."
            return Span(str(number_value(bare.group(1)) or bare.group(1)), True)
        span = typed_span(kind, corrected, caption, exclude, head)
        if span:
            return Span(span, True)
    if kind is AnswerType.CODE and (code := code_value(text, head)) is not None:
        return Span(code, True)  # the whole turn: a correction may follow in the next sentence
    for sentence in sorted(sentences(text), key=lambda s: s != best_sentence(question, text)):
        span = typed_span(kind, sentence, caption, exclude, head)
        if span:
            return Span(span, True)
    if kind is AnswerType.NAME and head is not None and about(text, {head}):
        named = [
            (s, m.group(1))
            for s in sentences(text)
            for m in _NAMED.finditer(s)
            if m.group(1).lower() not in exclude
        ]
        if len(named) == 1 and not about(named[0][0], {head}):
            # "We got a puppy! A border collie called Pluis": the one name the turn gives, in a
            # sentence that calls the thing by another word, is the name of what it is about.
            return Span(named[0][1], True)
        now = _NAMED_NOW.search(text) if re.search(r"\bname\b", text, re.I) else None
        if now and now.group(1).split()[0] not in _NOT_NAMES:
            return Span(now.group(1), True)
    if kind is AnswerType.OBJECT and caption:
        return Span(_caption_object(caption), True)
    fixed = _STRONG_CORRECTION.search(text)
    best = best_sentence(question, text)
    if fixed:  # "the Warsaw one. Wait, no, it's the Gdańsk half.": the corrected statement
        corrected = sentences(text[fixed.start() :])[0]
        said = text[: fixed.start()]
        # only when it corrects what answers (or the sentence carrying it on): "I sell at
        # Leominster market. A jar is £7.50. The pitch is £22. No, wait, £26" puts the pitch right
        if not said.strip() or best in (corrected, *sentences(said)[-2:]):
            return Span(corrected, False)
    return Span(best, False)


def only_when(text: str) -> bool:
    """True for a span that only says when ("September", "next Friday", "Thursdays", "the 24th")."""
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP_WORDS]
    return bool(words) and all(
        w in MONTHS
        or w.removesuffix("s") in _WEEKDAYS  # "moved to Thursdays"
        or w.isdigit()
        or re.fullmatch(r"\d+(?:st|nd|rd|th)", w)
        or w in _RELATIVE
        for w in words
    )


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_RELATIVE = frozenset("next last week month year weekend today tomorrow tonight".split())
_PRONOUNS = frozenset("We He She They You Me Us Him Them Its We're We've He's She's They're".split())
_TITLE_LEAD = re.compile(r"(?:The|A|An)\s+[A-Z][\w'’&-]*(?:\s+(?:of|the|and|&)?\s*[A-Z][\w'’&-]*)*")
_CORRECTED_NUMBER = re.compile(
    rf"^\w+(?:\s+\w+)?[,:]?\s+(?:I meant\s+|it's\s+|make that\s+)?({NUMBER_PATTERN})\b(?!\s*(?:%|am|pm|:))",
    re.I,
)
"""A number right after a correction cue: the corrected value ("Sorry, 31")."""
_STRONG_CORRECTION = re.compile(
    r"\bsorry,|\bI meant\b|\bcorrection:|\bscratch that\b|\bwait,? no\b|\bno,? wait\b", re.I
)
"""Cues that the speaker corrects what they just said (not "sorry to hear")."""


NEEDS_SPECIFIC = frozenset(
    {
        AnswerType.PHONE,
        AnswerType.EMAIL,
        AnswerType.NAME,
        AnswerType.PROPER,
        AnswerType.COLOUR,
        AnswerType.AGE,
        AnswerType.ADDRESS,
        AnswerType.TOPIC,
        AnswerType.RESULT_TIME,
        AnswerType.CLOCK,
        AnswerType.MEASURE,
        AnswerType.CODE,
    }
)
"""Types answered only by a span of that type: a sentence on the topic is not an answer. Places
and people may be answered by the sentence when no span is found ("hiking in the mountains")."""


_FROM_VERB = r"(?:(?:switch|chang|mov|bump)\w*|went|go(?:es|ing|ne)?)"
"""Verbs that go from one value to another ("switched from", "went from"); not "got back from"."""
REVISION = re.compile(
    r"\binstead\b|\b(?:is|are|was|were|got|been|it's)\s+(?:off|cancell?ed|called off)\b|\bcancell?ed\b"
    r"|\bcalled (?:it )?off\b|\bfell through\b|\bgone off\b|\bno longer\b|\bnot \w+ anymore\b"
    rf"|\b{_FROM_VERB}\s+(?:\w+\s+)?from\s+\S"
    r"|\b(?:it|the\s+\w+|was|been|got)\s+(?:moved|pushed|postponed|rescheduled|shifted|bumped)\s+(?:back\s+|forward\s+)?to\b"
    r"|\b(?:moved|pushed|postponed|rescheduled|shifted|bumped|changed|switched)\s+"
    r"(?:it|them|(?:the|my|our|his|her|their)\s+[a-z]+(?:\s+[a-z]+)?)\s+to\b"
    r"|\b(?:switched|changed)\s+to\b"
    r"|,\s+not\s+(?:in\s+|at\s+|on\s+)?[A-Z]\w+"
    r"|\bchanged\s+the\s+(?:venue|date|location|place|plan|plans|time|day)\b|\bchange\s+of\s+plans?\b"
    r"|\b(?:pulled|dropped|backed)\s+out\s+of\b|\bgave\s+up\b|\bno\s+more\b"
    r"|\bfinished\b[^.;!?]*?\b(?:started|starting|moved on to|now on)\b"
    r"|\b(?:quit|left)\b[^.;!?]*?\b(?:joined|started|starting|moved to|now (?:at|with))\b"
    # "Carys has left the practice in Brigg. She's doing her four days in Beverley now."
    r"|\b(?:has|have|had|['’]s|['’]ve)\s+left\s+(?:the|her|his|my|our|their)\b[^.;!?]*[.!;],?\s+[^.;!?]*\bnow\b"
    r"|\b(?:was|were)\s+(?:going to|gonna|planning to|supposed to|meant to|about to)\b[^.;!?]*?\bbut\b"
    r"|\b(?:sold|gave away|got rid of|traded in|stopped|dropped)\s+(?!out\b|by\b|off\b)[^,.;!?]+[,.;]\s+\S"
    r"|\breplaced\s+(?:it|him|her|them|(?:the|my|our|his|her|their)\s+\w+)\s+with\b",
    re.I,
)
"""Words with which a speaker drops a value they stated before and (usually) names its
replacement: "Iceland is off, we're doing Porto instead", "switched from violin to cello"."""
_FROM_TO = re.compile(
    rf"\b{_FROM_VERB}\s+(?:\w+\s+)?from\s+[^,.;!?]+?\s+to\s+([^,.;!?]+)",
    re.I,
)
_MOVED_TO = re.compile(
    r"(?:\b(?:it|the\s+\w+|was|been|got)\s+(?:moved|pushed|postponed|rescheduled|shifted|bumped)\s+(?:back\s+|forward\s+)?"
    r"|\b(?:moved|pushed|postponed|rescheduled|shifted|bumped|changed|switched)\s+"
    r"(?:it|them|(?:the|my|our|his|her|their)\s+[a-z]+(?:\s+[a-z]+)?)\s+"
    r"|\b(?:switched|changed)\s+)to\s+([^,.;!?]+)",
    re.I,
)
_FINISHED_STARTED = re.compile(
    r"\bfinished\b[^.;!?]*?\b(?:started|starting|moved on to|now on)\s+([^,.;!?]+)", re.I
)
"""'Finished Severance, started The Bear': what replaced the finished book or show."""
_QUIT_JOINED = re.compile(
    r"\b(?:quit|left)\b[^.;!?]*?\b(?:joined|started at|started with|starting at|moved to|now (?:at|with))\s+"
    r"([^,.;!?]+)",
    re.I,
)
"""'Sam quit Deloitte, he joined a startup called Fernly': the employer that replaced the one left."""
_PLAN_DROPPED = re.compile(
    r"\b(?:was|were)\s+(?:going to|gonna|planning to|supposed to|meant to|about to)\b[^.;!?]*?\bbut\s+", re.I
)
"""A plan said in the past and dropped in the same breath: "we were going to host, but ..."."""
_LET_GO = re.compile(
    r"\b(?:sold|gave away|got rid of|traded in|stopped|dropped)\s+(?!out\b|by\b|off\b)[^,.;!?]+[,.;]\s+", re.I
)
"""A thing let go of, then what came instead: "sold the Jazz, we bought a Yaris"."""
_REPLACED = re.compile(
    r"\breplacement\s+(?:is|was)\s+([^.;!?]+)"
    r"|\breplaced\s+(?:it|him|her|them|(?:the|my|our|his|her|their)\s+\w+)\s+with\s+([^,.;!?]+)",
    re.I,
)
"""What came in a lost or dropped thing's place: "My Gazelle got stolen. The replacement is a green
Batavus."; "we replaced the Golf with a Polo"."""
_LOST_REPLACED = re.compile(
    r"\b(?:my|our|the|his|her|their)\s+(?P<lost>[\w'’-]+(?:\s+[\w'’-]+)?)\s+(?:got|was|were|has\s+been|have\s+been)\s+"
    r"(?:stolen|nicked|written\s+off|totall?ed|wrecked|destroyed|broken)\b[^.!?]*[.!?]\s+(?:\w+\s+){0,3}?"
    r"(?:the\s+)?replacement\s+(?:is|was)\b",
    re.I,
)
"""A thing lost, then its replacement: the lost thing is what the turn revises, not every name it
says ("My Gazelle got stolen in Utrecht. The replacement is a Batavus" revises the bike, not
where one lives)."""
_NOT_OLD = re.compile(r",\s+not\s+(?:in\s+|at\s+|on\s+)?[A-Z]\w+")
_NOW = re.compile(r"\b(?:now|these days|currently|from now on|nowadays)\b", re.I)
_INSTEAD_OF = re.compile(r"\s*\binstead of\b.*$", re.I)


_REVISION_KEYS = (
    "instead",
    "off",
    "cancel",
    "through",
    "longer",
    "anymore",
    "from",
    " to",
    "not ",
    "change",
    "out of",
    "gave up",
    "no more",
    "finished",
    "quit",
    "left",
    "going to",
    "gonna",
    "planning to",
    "supposed to",
    "meant to",
    "about to",
    "sold",
    "gave away",
    "got rid of",
    "traded in",
    "stopped",
    "dropped",
    "replace",
)
"""Every REVISION match contains one of these: a cheap test before the regex."""


@functools.lru_cache(maxsize=8192)
def has_revision_cue(text: str) -> bool:
    """Whether the text revises something (REVISION, or a thing lost and its replacement), cached
    and prefiltered: the follow-up hop tests every later turn of a namespace, and turn texts
    repeat across questions."""
    low = text.lower()
    return any(k in low for k in _REVISION_KEYS) and (
        REVISION.search(text) is not None or _LOST_REPLACED.search(text) is not None
    )


@functools.lru_cache(maxsize=8192)
def _lost_only(text: str) -> str | None:
    """The thing lost, when a thing lost and its replacement is the text's only revision cue
    (cached beside `has_revision_cue`: the follow-up hop asks it of every later turn)."""
    if REVISION.search(text) is not None:
        return None
    lost = _LOST_REPLACED.search(text)
    return lost.group("lost") if lost else None


def revised_value(text: str) -> str | None:
    """The part of a turn that states the value replacing one it drops, or None when the turn
    revises nothing (or drops a value without naming another): "switched from violin to cello
    this fall" -> "cello this fall"; "We cancelled Iceland. We're going to Porto instead." ->
    "We're going to Porto instead"; "I've gone off flat whites. These days my usual is a cortado."
    -> "These days my usual is a cortado." A later statement of this kind outranks the earlier
    value for any question that does not ask what came before."""
    if not has_revision_cue(text):
        return None
    m = (
        _FROM_TO.search(text)
        or _MOVED_TO.search(text)
        or _FINISHED_STARTED.search(text)
        or _QUIT_JOINED.search(text)
    )
    if m:
        return m.group(1).strip()
    if r := _REPLACED.search(text):
        return (r.group(1) or r.group(2)).strip()
    if (dropped := _PLAN_DROPPED.search(text)) and text[dropped.end() :].strip():
        # "I was going to take the job in Denver, but I turned it down. I'm staying at the firm
        # in Sacramento.": what follows the "but" is what holds.
        return text[dropped.end() :].strip()
    if (gone := _LET_GO.search(text)) and text[gone.end() :].strip():
        # "I sold the Jazz, we bought a used Yaris": what follows the thing let go replaces it.
        return text[gone.end() :].strip()
    for sentence in sentences(text):
        m = _NOT_OLD.search(sentence)
        if m:  # "the ceremony will be in Nara now, not Kyoto": the clause the old value follows
            before = [c for c in _CLAUSE.split(sentence[: m.start()]) if c and c.strip()]
            if before:
                return before[-1].strip()
    clauses = [c.strip() for s in sentences(text) for c in _CLAUSE.split(s) if c and c.strip()]
    instead = [c for c in clauses if re.search(r"\binstead\b", c, re.I)]
    if instead:
        kept = _INSTEAD_OF.sub("", instead[-1]).strip()
        return kept or None
    now = [s for s in sentences(text) if _NOW.search(s) and not REVISION.search(s)]
    return now[-1] if now else None


def salient_terms(text: str, exclude: set[str], entities: Sequence[str] = ()) -> list[str]:
    """The proper names a turn states (not its speakers or the question's people), in the clauses
    about `entities` when some name them: what a later revision of it would mention ("Norway" in
    "a trip to Norway this summer"; not "Emma" in "Emma has violin and Leo has soccer" for Leo)."""
    return [
        n
        for s in sentences(about_entity(text, entities))
        for n in _proper_names(s, exclude)
        if len(n) > 2 and n.rstrip("s") not in _NOT_NAMES
    ]


def revises(later: str, terms: Sequence[str], earlier: str | None = None) -> bool:
    """True when `later` drops or replaces something named by one of `terms`, or (given the
    `earlier` text) something it describes in two or more of the same words ("I've gone off flat
    whites" after "my usual is a flat white with oat milk")."""
    if not has_revision_cue(later):
        return False
    if (lost := _lost_only(later)) is not None:  # only a thing lost and its replacement: that thing
        return any(re.search(rf"\b{re.escape(t)}", lost, re.I) for t in terms)
    if any(re.search(rf"\b{re.escape(t)}", later, re.I) for t in terms):
        return True
    return earlier is not None and len(content_words(earlier) & content_words(later)) >= 2


@functools.lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The longer content words of a text, as the index tokenises them (cached, as turns repeat)."""
    return frozenset(w for w in tokenize(text) if w not in STOP_WORDS and len(w) > 3 and not w.isdigit())
