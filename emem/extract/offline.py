"""Deterministic fact extraction: the rule table applied to turns, with no model involved.

The engine's job is everything around a rule match: splitting turns into sentences, refusing
questions, hypotheticals, negated and quoted clauses, deciding who the subject is, resolving the
date a fact started, and turning "scratch that" into retractions of what the speaker just said.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import NamedTuple

from emem.extract.anaphora import resolve_there
from emem.extract.dates import DateMention, find_date_mentions
from emem.extract.entities import NOT_NAMES, SENTENCE_ADVERBS, AliasResolver
from emem.extract.forget_grammar import find_request
from emem.extract.introductions import introductions
from emem.extract.moves import moves
from emem.extract.patterns import NAMED_PERSON, PET, PET_FORMS
from emem.extract.roles import roles as role_holders
from emem.extract.rules import (
    AHEAD,
    ANY_PREDICATE,
    CORRECT,
    FAVOURITE,
    MEDIUM,
    PREVIOUS,
    REGRETS_SAYING,
    RULES,
    SWAP,
    SWITCH,
    Ctx,
    Rule,
    favourite_of,
    medium_by_cues,
    singular_species,
)
from emem.extract.schema import FactCandidate
from emem.extract.self_correction import corrected_in_next_breath, corrected_in_same_breath
from emem.extract.sentences import split_sentences
from emem.ledger.predicates import Cardinality, builtin_cardinality, named_value
from emem.models import Turn
from emem.subjects import speaker_roles
from emem.timeparse import DAY_NAME, MONTH_TITLES, WEEKDAY

_QUESTION_START = re.compile(
    r"^\W*(?:(?:so|and|but|oh|hey|wait)\W+)?(?:do|does|did|are|is|have|has|can|could|would|will|should|"
    r"were|was|what|where|when|why|how|who|which)\s+(?:you|u|ya|y'all)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|would|wouldn't|could|couldn't|might|should|wish|wished|imagine|imagining|suppose|"
    r"supposing|whether|hypothetically|maybe|perhaps|someday|dream(?:ing|s|ed|t)?\s+(?:of|about)|"
    r"thinking\s+(?:of|about)|considering|pretend|what\s+if|as\s+if|as\s+though|hope|hoping|"
    r"want(?:ed|s)?\s+to|'d)\b|(?-i:\bmay\b)|\b(?:you|u)\s+(?:said|think|thought|mentioned)\b",
    re.IGNORECASE,
)
_EMBEDDED = re.compile(r"\b(?:why|how|what|whether)\s*$", re.IGNORECASE)
"""A clause opened by why/how/what is talked about, not asserted ("... why I'm passionate about X")."""
_NEGATION = re.compile(
    r"\b(?:not|never|no\s+longer|nobody|no\s+one|neither|nor|hardly|barely)\b|n't\b", re.IGNORECASE
)
_CLAUSE_RESET = re.compile(
    r"(?:;|\s-+\s|—|\bbut\b|,\s*(?:and|so)\b|\bbecause\b|\bsince\b|\balthough\b|"
    r",\s*(?=(?:I|we|I'm|we're|I've|we've)\s))",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(?:if|unless|when|whenever|once|suppose|supposing|imagine|assuming)\b", re.IGNORECASE
)
_CESSATION = re.compile(r"\b(?:any\s?more|any\s+longer|no\s+longer|never)\b", re.IGNORECASE)
_ATTRIBUTE_CHANGED = re.compile(
    r",\s*(?:and\s+)?no\s+longer\s+(?:a\s+|an\s+|the\s+)?"
    r"(?!(?:working|living|there|here|with|at|in|for|on|employed|based|doing|going|seeing)\b)[a-z]+(?:\s+[a-z]+)?"
    r"\s*(?=[.!?,;]|$)",
    re.IGNORECASE,
)
"""A clause after a fact saying another attribute changed ("..., no longer junior"): not a
cessation of the fact itself."""
_STOPPED = re.compile(r"\b(?:any\s?more|any\s+longer|no\s+longer)\b", re.IGNORECASE)
_CORRECTION = re.compile(
    r"\b(?:actually|in\s+fact|correction|to\s+be\s+clear|for\s+the\s+record)\b", re.IGNORECASE
)
_BAD_AFTER_NAME = re.compile(r"^(?:\s+(?:are|were|am|have|do)\b|'re|'ve)")
_FUNCTION_WORDS = frozenset(
    """and but so about then because since that when while after before oh well also actually yeah yes no
    ok okay hey hi wow guess think know said says heard lol haha anyway plus now until once as where
    btw yep yup nope nah sometimes here often ago too though even just now still also day days week
    weeks weekend weekends weekdays month months year years night nights morning mornings evening evenings
    afternoon afternoons time times summer winter
    spring fall autumn moment point wait sorry oops whoops hmm um correction sadly luckily honestly""".split()
)
"""Words after which "I ..." or "Anna ..." starts a clause of its own (not a relative clause)."""
_ELLIPSIS = re.compile(
    r"^(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]{2,}ed|Been|Just|Finally|Recently|Currently|Still|Also|Totally|Really|Went|Got|Took|Made|Ran|"
    r"Won|Bought|Saw|Began|Found|Left|Lost|Quit|Came|Flew|Spent|Met|Built|Sold|Broke|Wrote|Gave|Taught|Had|Did|"
    r"Love|Adore)\b(?!')"
)
"""Informal speech drops the subject ("Moved to Austin last year!"): such sentences are read as "I ..."."""
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
_CORRECTING = re.compile(
    r"\b(?:actually|sorry|correction|I\s+mean|I\s+meant|my\s+mistake|typo|rather|hang\s+on|wait|oops|whoops|"
    r"swapped(?![^.!?]{0,40}\bfor\b)|mixed\s+up|got\s+(?:it|that|them)\s+wrong|wrong\s+(?:number|one|address|date))\b",
    re.IGNORECASE,
)
_CHANGE = re.compile(
    r"\b(?:now|anymore|no\s+longer|these\s+days|since|switched|started|new|went|gone|became|turned|back\s+to|"
    r"again|moved)\b",
    re.IGNORECASE,
)
_CHANGE_VERB = re.compile(
    r"\b(?:went|gone|became|become|turned|switched|started|moved|back\s+to|again)\b", re.IGNORECASE
)
"""A second value said with a verb of change ("... but recently went vegan") replaced the first."""
_ASKS_MEMORY = re.compile(
    r"^\W*(?:[^\W\d_][\w'’]*(?:\s+[^\W\d_][\w'’]*){0,3}[,:]\s+)?"
    r"(?:(?:and|but|also|oh|ok(?:ay)?|so|please|btw|actually)[,:]?\s+)*(?:(?:can|could|would|will)\s+(?:you|we)\s+(?:(?:please|also|just|kindly)\s+)*"
    r"(?:not\s+|never\s+|stop\s+)?(?:forget|unlearn|unremember|delete|erase|remove|wipe|scrub|scrap|purge|keep|store|remember|save|record|"
    r"remembering|keeping|storing|saving|recording|tracking|"
    r"drop|bin|clear|lose|disregard|let\s+go\s+of|hang\s+on\s*to|hold\s+on\s*to)\b|"
    r"(?:can|could)\s+(?:that|this|it)\s+(?:stay|be\s+kept|go)\s+(?:off\s+the\s+record|out\s+of\s+(?:your|the)\s+))",
    re.IGNORECASE,
)
"""A question that asks the memory to forget (or not keep) something: a request, not a question,
also when it opens by naming whom it asks ("Solène, would you forget ...?") or asks that what was
said stay out of it ("Can that stay off the record?")."""
_ASKS_MEMORY_AFTER = re.compile(
    r"(?:,|\s[-–—])\s+(?:please\s+)?(?:can|could|would|will)\s+you\s+(?:(?:please|also|just|kindly)\s+)*"
    r"(?:(?:not|never|stop)\s+(?:keep|store|remember|save|record|hold\s+on\s*to|hang\s+on\s*to)|"
    r"forget|unlearn|unremember|delete|erase|remove|wipe|scrub|purge|drop|bin|scrap|let\s+go\s+of)"
    r"\s+(?:it|that|this|them)\b",
    re.IGNORECASE,
)
"""The same question after the phrase naming what it asks about ("And that key safe code I gave
you - could you wipe it?", "... - could you not keep it?")."""
_REQUEST_TAG = re.compile(
    r",\s*(?:(?:will|would|could|can|won't)\s+you(?:\s+(?:please|for\s+me))?|yeah|yes|ok(?:ay)?|please|right)"
    r"\s*\?+[\s\"')]*$",
    re.IGNORECASE,
)
"""A tag that turns a request into a question ("Please forget the thing about my hand, will you?",
"Forget about the National Trust thing, yeah?"): the sentence before it is the request."""


def request_without_tag(sentence: str) -> str | None:
    """A tagged request as its plain imperative, the tag blanked out so offsets stay; else None."""
    tag = _REQUEST_TAG.search(sentence)
    return sentence[: tag.start()] + " " * (len(sentence) - tag.start()) if tag else None


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


_ASIDE = re.compile(r"\s[-–—]\s[^-–—.!?;]{3,120}?\s[-–—]\s")
"""An aside between dashes ("I'm a luthier - I make and repair violins - at Saptak Strings")."""


def _aside_dropped(sentence: str) -> tuple[str, None] | None:
    """The sentence without its asides, so what they interrupt reads as one clause ("I'm a
    luthier at Saptak Strings"); None when it has none. (One space in their place: a run of
    blanks would make the rules' optional-word patterns backtrack for ever.)"""
    if not _ASIDE.search(sentence):
        return None
    return _ASIDE.sub(" ", sentence), None


def is_question(sentence: str) -> bool:
    return sentence.rstrip(" \"')").endswith("?") or bool(_QUESTION_START.match(sentence))


def clause_prefix(sentence: str, start: int) -> str:
    """The part of the clause before `start`: what could negate or hypothesise the match."""
    prefix = sentence[:start]
    cut = 0
    for m in _CLAUSE_RESET.finditer(sentence):  # the whole sentence: some resets look ahead (", I'm")
        if m.end() > start:
            break
        if m.group(0).strip() == "," and _CONDITION.search(sentence[cut : m.start()]):
            continue  # "If I get the job, I'm ...": the condition still governs the main clause
        cut = m.end()
    return prefix[cut:]


_CLAUSE_BREAK = re.compile(
    r";|\s[-\u2013\u2014]\s|,?\s+(?:and|but|while|whereas)\s+(?:I|we|he|she|they|you)\b(?!\s*[,.!?]|$)"
)
"""Where one clause gives way to another with its own subject ("... at the end of July and I've
rented a flat"): a date before that point belongs to the earlier clause."""


_SPLICE = re.compile(r",\s+(?:I|we|he|she|they)(?:'(?:m|re|s|ve|d|ll)\b|\s+(?!think\b|guess\b|mean\b)[a-z]+)")
"""A comma, then a clause of its own ("..., I've rented a flat in Partick")."""
_SUBJECT_VERB = re.compile(
    r"\b(?:I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey|[Yy]ou)(?:'(?:m|re|s|ve|d|ll)\b|\s+(?:am|are|is|was|were|have|has|had|will|[a-z]+ed)\b)"
)
"""A subject with its verb: what makes the text before a comma a clause."""


def _clause_matches(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """`pattern`'s matches in `text`, plus those that begin in a later clause a greedy match ran
    over ("I play the cello in an orchestra, and I do pottery on Saturdays": the object capture
    runs to the sentence's end, and the pottery clause would never be read)."""
    found: list[re.Match[str]] = []
    starts: set[int] = set()
    for m in pattern.finditer(text):
        found.append(m)
        starts.add(m.start())
        for brk in _CLAUSE_BREAK.finditer(text, m.start() + 1, m.end()):
            inner = pattern.search(text, brk.start())
            if inner is not None and inner.start() < m.end() and inner.start() not in starts:
                found.append(inner)
                starts.add(inner.start())
    return found


def _pick_date(
    dates: Sequence[DateMention], start: int, anchor: datetime, future: bool, sentence: str = ""
) -> DateMention | None:
    """The date mention that belongs to a match at `start`: the first at or after it, else the last
    before it in the match's own clause (read backwards across "and I ...", a date dates the other
    clause: "moving at the end of July and I've rented a flat"). Past facts ignore dates after the
    anchor; plans ignore dates before it."""
    usable = [d for d in dates if (d.end > anchor if future else d.start <= anchor)]
    # "We live in Leeds, but we're moving to York in June": a date after another clause's
    # subject dates that clause, not this one.
    after = [
        d
        for d in usable
        if d.span[0] >= start and not (sentence and _CLAUSE_BREAK.search(sentence, start, d.span[0]))
    ]
    if after:
        return after[0]
    before = [d for d in usable if d.span[0] < start]
    if before and sentence:
        last = before[-1]
        if any(b.start() < start for b in _CLAUSE_BREAK.finditer(sentence, last.span[1])):
            return None
        for b in _SPLICE.finditer(sentence, last.span[1]):
            # "We're moving at the end of July, I've rented a flat": a comma joins two clauses
            # when the first has a subject of its own ("In July, I moved" has none)
            if b.start() < start and _SUBJECT_VERB.search(sentence, 0, b.start()):
                return None
    return before[-1] if before else None


_ELLIPSIS_BE = re.compile(
    r"^(?:(?:Currently|Still|Now|Also|Just|Really|Finally|Totally|Slowly)\s+[a-z]+ing\b|"
    r"(?:Reading|Re-reading|Rereading|Watching|Bingeing|Binging|Learning|Studying|Living|Working|Starting|Moving|"
    r"Heading|Flying|Going)\s+"
    r"(?![^.!?,;]*\b(?:is|was|has|have|had|makes|made|helps|gives|feels|seems|can|will|keeps|brings|takes)\b)|"
    r"(?:Done|Finished|Halfway|Partway|Midway)\s+(?:with|through)\b|Still\s+(?:at|with)\s+[A-Z])"
)
"""Informal speech drops "I'm" too ("Currently reading X", "Done with Y"): read as "I'm ..."."""
_LEAD_IN = re.compile(
    r"^(?:(?:fyi|btw|ps|p\.s\.|update|quick\s+update|big\s+news|bad\s+news|good\s+news|sad\s+news|confession|"
    r"heads\s+up|also|and|oh|so|lol|haha|ugh|hmm|honestly|plus|but|then|anyway|just\s+so\s+you\s+know|"
    r"for\s+the\s+record|by\s+the\s+way|oh\s+well|guess\s+what|funny\s+thing)(?:\s*[,:!-]+\s*|\s+)|"
    r"(?:news|ok|okay|yeah|yep|yes|no|nope|well|right|perfect|nice|great|cool|ah|aw+|yay|wow|"
    r"(?:big|small|quick|other|latest|some)\s+(?:news|decision|change|update|thing|one|correction))\s*[,:!-]+\s*)+",
    re.IGNORECASE,
)
"""Words that lead into a statement without being part of it ("update:", "fyi", "oh and")."""


_TIME_FRONT = re.compile(
    r"^(?P<lead>(?:[Tt]his|[Ll]ast)\s+(?:week|weekend|month|year|morning|afternoon|evening|summer|spring|autumn|"
    rf"fall|winter|{DAY_NAME})|[Yy]esterday|[Tt]oday|[Ee]arlier\s+this\s+\w+|"
    r"(?:[Aa]|[Tt]wo|[Tt]hree)\s+(?:few\s+|couple\s+of\s+)?(?:days?|weeks?|months?)\s+ago|"
    rf"[Oo]n\s+{DAY_NAME}|[Ii]n\s+{MONTH_TITLES})\s*,?\s+(?=(?:I|We|we|He|he|She|she|They|they)\b)"
)
"""A time said before the subject ("This week I sold the Camry ..."): rules read a statement
from its subject, so a reading puts the time after it."""


def _time_fronted(plain: str) -> str | None:
    """The sentence with a fronted time moved to its end ("I sold the Camry ... this week"), or
    None when it opens with none; dates are still read from the moved words."""
    m = _TIME_FRONT.match(plain)
    if m is None:
        return None
    rest = plain[m.end() :].rstrip()
    stop = rest[-1] if rest[-1:] in ".!?" else ""
    rest = rest[: len(rest) - len(stop)] if stop else rest
    lead = m.group("lead")
    return f"{rest[0].upper()}{rest[1:]}, {lead[0].lower()}{lead[1:]}{stop}"


def _plain_start(sentence: str) -> str:
    """The sentence without its lead-in words, starting with a capital: people type "fyi i'm
    vegetarian" and "also not vegan any more"; the rules read sentences as written in books."""
    m = _LEAD_IN.match(sentence)
    rest = sentence[m.end() :] if m and m.end() < len(sentence) else sentence
    if rest[:1].islower():
        rest = rest[0].upper() + rest[1:]
    if not re.search(r"[A-Z]", sentence):  # typed in lower case: "i live in utrecht"
        rest = _HOME_PLACE.sub(
            lambda m: (
                m.group(0)
                if m.group(2) in _NOT_PLACES or m.group(2) in _FUNCTION_WORDS or m.group(2) in NOT_NAMES
                else m.group(1) + m.group(2).capitalize()
            ),
            rest,
        )
    return re.sub(r"^I(?=['\s])|(?<=\s)i(?=['\s])", "I", rest)


_NOT_PLACES = frozenset(
    """a an the my our his her their your this that these those some any fear hope peace sin denial
    halls town city country house flat apartment place home work school bed here there
    together alone again soon next last in with for at on by it them one two three harmony luxury poverty
    squalor comfort style secret silence dread terror misery limbo hiding shame chaos bliss residence dorms
    student digs barracks""".split()
)
_HOME_PLACE = re.compile(
    r"(\b(?:live|living|lives|lived|based|moving|move|moved|relocating|relocated|settled|staying|stay)\s+"
    r"(?:in|to|out\s+of)\s+)([a-z][a-z'-]{2,})\b(?!\s+of\b)"
)
"""Where a sentence typed in lower case names a home: the word after "live in" / "moving to" is a
place name unless it is a common word ("live in fear", "moving to a new flat")."""


_ELLIPSIS_NOT = re.compile(
    r"^(?:Not|No\s+longer)\s+(?!sure|really|much|bad|great|now|yet|that|this|a\s+lot)[a-z]"
)
"""A dropped "I'm" before a negation ("Not vegetarian any more", "No longer at Vela")."""
_TRAILING_PREP = re.compile(r"(?:\s+(?:at|on|in|by|from|for|around|until|before|after))+$", re.IGNORECASE)
"""What a date's removal leaves at a plan's end ("move to Lisbon at" of "... at the end of April")."""
_STARTING = frozenset({"works_at", "job_title", "lives_in"})
"""Predicates whose new value may begin on a date said in the next sentence ("I start on the 1st")."""
_START_CUE = re.compile(
    r"\b(?:start(?:s|ing)?|begin(?:s|ning)?|from|as\s+of|effective|first\s+day\s+(?:is|will\s+be|there\s+is))\b",
    re.IGNORECASE,
)
_LATER_NAME = re.compile(
    r"^\W*(?:(?:[Hh]er|[Hh]is|[Ii]ts|[Tt]heir)\s+name(?:'s|\s+is)|(?:[Ss]he|[Hh]e|[Ii]t)(?:'s|\s+is)\s+(?:called|named)|"
    r"(?:[Ww]e|I)(?:'ve)?\s+(?:named|called)\s+(?:her|him|it)|"
    r"(?:[Ss]he|[Hh]e|[Ii]t)(?:'s|\s+is)\s+an?\s+(?:[a-z-]+\s+){0,2}?(?:called|named))\s+(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b"
)


_LATER_NAMES = re.compile(
    r"^\W*(?:(?:[Tt]heir\s+names\s+are|[Tt]hey(?:'re|\s+are)\s+(?:called|named)|(?:[Ww]e|I)(?:'ve)?\s+(?:named|called)\s+them)\s+)"
    r"(?P<names>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s*,\s*[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)*,?\s+and\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b"
)
"""The names of several pets given in the sentence after them ("We named them Sprout and Bramble")."""


_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|morning|good\s+(?:morning|afternoon|evening))(?:\s+there)?\W*$", re.I
)
_PRONOUN = re.compile(r"\b(?:he|she)(?:'s|\s+is|\s+was|\s+has|'ll)?\b", re.IGNORECASE)
_CAP_WORD = re.compile(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b")
_COORDINATED = re.compile(
    r"^(?P<subj>I|We)(?:'m|'ve|'re|\s)[^.!?;]*?(?:\b(?:but|and|then|so)|,)\s+(?=(?:(?:then|recently|later|eventually|finally|just|"
    r"also|now)\s+)?(?:[a-z]{3,}ed|went|got|became|began|took|left|quit|bought|sold|found|made|gave|fell|grew)\b)"
)


class _Anchor(NamedTuple):
    """Where a reading restored a subject the speaker left out: a rule matching the reading must
    take its subject (group `group`, and `value` when given) from exactly there."""

    at: int
    group: str
    value: str | None = None


_COORDINATED_ING = re.compile(
    r"^(?P<subj>I'm|We're|I\s+am|We\s+are)\s[^.!?;]*?(?:\band|,)\s+(?=(?:also\s+)?"
    r"(?!(?:during|morning|evening|nothing|something|everything|anything|thing)\b)[a-z]{3,}ing\s)"
)
"""A second -ing verb of the same "I'm": "I'm watching Shogun at the moment, and reading X"."""
_COORDINATED_NOW = re.compile(
    r"^(?P<subj>I|We)\s+(?!am\b|was\b|were\b|had\b)[a-z]+\b[^.!?;,]*?\band\s+(?=[a-z]{3,}(?:\s+[a-z]+ly)?\s+(?:at|for|in|as)\s)"
)
"""A second present-tense verb with its complement: "I live in Valencia and work remotely for Tulpa"."""


_COORDINATED_NOW_ING = re.compile(
    r"^(?P<subj>I|We)(?:'ve|\s)[^.!?;]*?(?:\b(?:and|but)|,)\s+(?=(?:now|currently)\s+[a-z]{3,}ing\s)"
)
"""A later -ing verb after what was done: "I finished The Overstory, now reading Piranesi"."""
_PROGRESSIVE = {"I": "I'm", "We": "we're"}


def _coordinated(sentence: str) -> tuple[str, _Anchor] | None:
    """ "I've been vegetarian for years but recently went vegan" -> "... but I recently went vegan":
    a second verb of the speaker's sentence gets its subject back (past, present or -ing)."""
    for pattern in (_COORDINATED, _COORDINATED_ING, _COORDINATED_NOW, _COORDINATED_NOW_ING):
        m = pattern.match(sentence)
        if m is not None:
            subject = m.group("subj")
            if pattern is _COORDINATED_NOW_ING:  # "..., now reading X" -> "..., I'm now reading X"
                subject = _PROGRESSIVE[subject]
            return f"{sentence[: m.end()]}{subject} {sentence[m.end() :]}", _Anchor(m.end(), "fp")
    return None


_LEADING_PRONOUN = re.compile(
    r"^(?:She|He|They(?=(?:'re|\s+are|\s+were|\s+have|'ve)\s+(?:now\s+|all\s+)?(?:in|living|based|moved|settled)\b))(?P<adv>\s+(?:actually|really|still|now|just|already|finally|in\s+fact))?"
    r"(?P<verb>'s|'ll|'re|'ve|\s+is|\s+are|\s+was|\s+were|\s+has|\s+have|\s+had|\s+will|(?=\s+(?:[a-z]+(?:s|ed)|left|quit|got|took|went|made|sold|bought|found|began|became|set|ran|won|lost|gave|came|kept|built|spent|met|sent)\b))"
)
_COMPANION = re.compile(
    r"^(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\s+and\s+(?:his|her|their)\s+[a-z]+(?:\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?\s+(?=[a-z])"
)


_RELATIVE_NAMED = re.compile(NAMED_PERSON)
_THE_NAMED = re.compile(r"\b[Tt]he\s+[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


_CALLED = re.compile(r"\b(?:called|named)\s+([A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\b")


def _one_person(sentence: str, speaker: str) -> str | None:
    """The one person a sentence names (not the speaker): the one introduced by a relation ("my
    sister Hannah ... from Leeds"), else the only capitalised name in it."""
    related = {m.group("name") for m in _RELATIVE_NAMED.finditer(sentence) if m.group("rel")}
    if len(related) == 1:
        return related.pop()
    called = set(_CALLED.findall(sentence))
    if len(called) == 1:
        return called.pop()  # "a Deaf man called Dominic Ellery": the one introduced by name
    # "the Music Hall", "the Northern General": capitals after "the" name a thing, not a person
    things = {w for m in _THE_NAMED.finditer(sentence) for w in _CAP_WORD.findall(m.group(0))}
    names = {
        w
        for w in _CAP_WORD.findall(sentence)
        if w.lower() not in NOT_NAMES
        and w.lower() not in SENTENCE_ADVERBS
        and w not in ("I", speaker)
        and w not in things
    }
    names -= {w for w in names if sentence.startswith(w) and w.lower() in _FUNCTION_WORDS}
    return names.pop() if len(names) == 1 else None


_KIN_CALLED = re.compile(r"\b(?:Mum|Mom|Dad|Mother|Father|Grandma|Grandpa|Granny|Grandad|Nan|Nana)\b")
"""Kin called by the word as by a name ("About Mum."): whom a request's "her" may mean."""


def _dates_undated(move: FactCandidate, read: FactCandidate) -> bool:
    """Whether a move's fact dates the same value the rules read undated from the same turn."""
    return (
        move.kind == read.kind == "assert"
        and read.valid_from is None
        and move.valid_from is not None
        and move.source_turn_ids == read.source_turn_ids
    )


def _kin_called(sentence: str) -> str | None:
    """The one kin word a sentence uses as a name, if it uses exactly one."""
    found = set(_KIN_CALLED.findall(sentence))
    return found.pop() if len(found) == 1 else None


def _last_person(text: str, speaker: str) -> str | None:
    """The one person the last sentence of `text` that names anyone names (`_one_person`)."""
    for start, end in reversed(split_sentences(text)):
        if (person := _one_person(text[start:end], speaker)) is not None:
            return person
    return None


def _leading_pronoun(sentence: str, antecedent: str | None) -> tuple[str, _Anchor] | None:
    """ "My sister Hannah is visiting. She's a teacher." -> "Hannah is a teacher.": a sentence that
    opens with he/she means the one person the sentence before named."""
    m = _LEADING_PRONOUN.match(sentence)
    if m is None or antecedent is None:
        return None
    # "They're in Perth now" after "Arvid moved in with his girlfriend": said of the one person named
    verb = {
        "'s": " is",
        "'ll": " will",
        "'re": " is",
        " are": " is",
        " were": " was",
        "'ve": " has",
        " have": " has",
    }.get(m.group("verb"), m.group("verb"))
    return f"{antecedent}{m.group('adv') or ''}{verb}{sentence[m.end() :]}", _Anchor(0, "name", antecedent)


def _companion_dropped(sentence: str) -> tuple[str, _Anchor] | None:
    """ "Kasia and her husband moved to Wroclaw" -> "Kasia moved to Wroclaw": what a named person did
    with a companion is said of them too."""
    m = _COMPANION.match(sentence)
    if m is None or m.group("name").lower() in NOT_NAMES:
        return None
    return f"{m.group('name')} {sentence[m.end() :]}", _Anchor(0, "name", m.group("name"))


def _pronoun_restored(sentence: str) -> tuple[str, _Anchor] | None:
    """ "Yusuf called, he's switching from medicine to biology" -> "... Yusuf is switching ...":
    a he/she after exactly one person's name in the sentence stands for that name."""
    pron = _PRONOUN.search(sentence)
    if pron is None or pron.start() == 0:
        return None
    names = {
        w
        for w in _CAP_WORD.findall(sentence[: pron.start()])
        if w.lower() not in NOT_NAMES and w.lower() not in SENTENCE_ADVERBS and w != "I"
    }
    if len(names) != 1:
        return None
    name = names.pop()
    said = pron.group(0).lower()
    verb = {"'s": " is", "'ll": " will"}.get(
        said[2:] if said.startswith("he") else said[3:], said.split()[-1] if " " in said else ""
    )
    text = f"{sentence[: pron.start()]}{name}{(' ' + verb.strip()) if verb.strip() else ''}{sentence[pron.end() :]}"
    return text, _Anchor(pron.start(), "name", name)


_ASKED_FIELDS = (
    ("address", re.compile(r"\baddress\b", re.I), "My address is"),
    ("phone", re.compile(r"\b(?:phone|number|mobile|cell)\b", re.I), "My phone number is"),
    ("email", re.compile(r"\be-?mail\b", re.I), "My email is"),
    ("name", re.compile(r"\b(?:your\s+name|call\s+you)\b", re.I), "My name is"),
)
_BARE_REPLY = re.compile(
    r"^\W*(?:(?:sure|yes|yeah|yep|ok(?:ay)?|of\s+course)\W+)?(?:(?:it's|it\s+is|that's|that\s+is|it\s+would\s+be)\s+)?"
    r"(?P<value>[^.!?]*?\d[^!?]*?|[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)\s*(?:[.!]|$)",
    re.IGNORECASE,
)


def _as_statement(asked: str, reply: str) -> tuple[str, str] | None:
    """The user's bare answer to the agent's question for a detail, as a statement about the user:
    "What's the address of the flat?" - "It's 22 Alder Road, Flat 3, Bristol." -> (address,
    "My address is 22 Alder Road, Flat 3, Bristol.")."""
    questions = [q for q in re.findall(r"[^.!?]*\?", asked.translate(_APOSTROPHES))]
    if not questions:
        return None
    first = split_sentences(reply.translate(_APOSTROPHES))
    if not first:
        return None
    sentence = reply.translate(_APOSTROPHES)[slice(*first[0])]
    m = _BARE_REPLY.match(sentence)
    if m is None:
        return None
    for predicate, cue, lead in _ASKED_FIELDS:
        if cue.search(questions[-1]):
            return predicate, f"{lead} {m.group('value').strip()}."
    return None


_HOW_LONG = re.compile(
    r"\b[Hh]ow\s+long\s+have\s+you\s+(?P<verb>been\s+(?:living\s+|based\s+)?in|lived\s+in|been\s+working\s+"
    r"(?:at|for)|worked\s+(?:at|for)|been\s+at)\s+(?P<what>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})[^?]*\?"
)
_HOW_LONG_VERB = {"in": "lived in", "at": "worked at", "for": "worked at"}
_DURATION_REPLY = re.compile(
    r"^\W*(?:(?:oh|well|hmm|um)\W+)?(?:for\s+)?(?P<span>(?:about|around|almost|nearly|over|just\s+over|"
    r"close\s+to|roughly|maybe)?\s*(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|a\s+few|a\s+couple\s+of|several)\s+(?:years?|months?|weeks?|decades?)|since\s+[^.!?,]+|"
    r"all\s+my\s+life|my\s+whole\s+life)",
    re.IGNORECASE,
)


def _how_long_reply(asked: str, reply: str) -> str | None:
    """The user's answer to "How long have you been in Porto?" ("Six years.") as the statement it
    makes: "I've lived in Porto for six years." A duration or a "since" answers the question and
    so grants what it takes for granted; a reply that answers nothing grants nothing."""
    questions = re.findall(r"[^.!?]*\?", asked.translate(_APOSTROPHES))
    m = _HOW_LONG.search(questions[-1]) if questions else None
    if m is None or m.group("what").split()[0].lower() in NOT_NAMES:
        return None
    said = _DURATION_REPLY.match(reply.translate(_APOSTROPHES))
    if said is None:
        return None
    span = said.group("span").strip()
    verb = _HOW_LONG_VERB[m.group("verb").split()[-1]]
    duration = span if span.lower().startswith("since") else f"for {span}"
    return f"I've {verb} {m.group('what')} {duration}."


_AHEAD = re.compile(r"\b(?:am|are|is)\s+\w+ing\b|\b(?:will|going\s+to|gonna)\b", re.IGNORECASE)


def _dated_by_reply(statement: str, reply: Turn) -> str:
    """The agent's guess, confirmed, with the date the confirmation gives it: "Are you moving to
    Parnu then?" - "yep, I move on the 26th of April" -> "I am moving to Parnu then on 26 April
    2025." The date is rendered absolute, so the guess's tense cannot move it a year."""
    if find_date_mentions(statement, reply.time):
        return statement
    ahead = _AHEAD.search(statement) is not None
    when = find_date_mentions(reply.text.translate(_APOSTROPHES), reply.time, "future" if ahead else "past")
    if not when or when[0].approximate:
        return statement
    prep = "on" if when[0].granularity == "day" else "in"
    return f"{statement.rstrip(' .!?')} {prep} {when[0].label()}."


_LIFE_IN = re.compile(
    r"\b(?:how(?:'s|\s+is)\s+(?:life|everything|it\s+going|(?:the|your)\s+(?:new\s+)?(?:flat|place|house|"
    r"apartment|home|digs))\s+in|how\s+are\s+things\s+in)\s+"
    r"(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s*\?"
    r"|\bhow(?:'s|\s+is)\s+(?P<place2>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\s+treating\s+you\b",
    re.IGNORECASE,
)


def _asked_about_home(turns: Sequence[Turn], index: int, resolver: AliasResolver) -> list[FactCandidate]:
    """ "Omar! How's life in Madrid?", "How's the new flat in Brunswick?": asking someone about
    life (or their home) in a place says they live there.
    The one asked is the next turn's speaker (a person or the user, never the asker)."""
    turn, reply = turns[index], turns[index + 1] if index + 1 < len(turns) else None
    if reply is None or reply.speaker == turn.speaker or reply.session_id != turn.session_id:
        return []
    out = []
    for m in _LIFE_IN.finditer(turn.text.translate(_APOSTROPHES)):
        place = m.group("place") or m.group("place2")
        if place.split()[0].lower() in NOT_NAMES:
            continue
        out.append(
            FactCandidate(
                subject=resolver.canonical(reply.speaker),
                predicate="lives_in",
                object=place,
                surface=m.group(0),
                source_turn_ids=[turn.turn_id],
                confidence=0.6,
            )
        )
    return out


def _held_until_ended(facts: list[FactCandidate], at: datetime) -> list[FactCandidate]:
    """Order a turn's starts and ends in valid time. A single value ended in the same turn as
    another one starts ("Finished X. Started Y last night.") ends when the other begins; a fact
    said in the same turn as its ending ("I got two goldfish, Salt and Pepper. Sadly Pepper died
    last week") held before the end, so it starts no later than a day before it."""
    out = list(facts)
    for i, end in enumerate(out):
        if end.kind != "end" or builtin_cardinality(end.predicate) != Cardinality.SINGLE:
            continue
        starts = [
            f.valid_from
            for f in out
            if f.kind == "assert"
            and (f.subject, f.predicate) == (end.subject, end.predicate)
            and f.valid_from is not None
            and f.valid_from < (end.valid_to or at)
            and not _same_value(f.object, end.object)
        ]
        if starts:  # "Finished X. Started Y last night.": X ended when Y began, not after
            out[i] = end.model_copy(update={"valid_to": min(starts)})
    for end in (f for f in out if f.kind == "end"):
        stop = end.valid_to or at
        for i, f in enumerate(out):
            if (
                f.kind == "assert"
                and (f.subject, f.predicate) == (end.subject, end.predicate)
                and _same_value(f.object, end.object)
                and (f.valid_from or at) >= stop
            ):
                out[i] = f.model_copy(update={"valid_from": stop - timedelta(days=1)})
    return out


_SAID_FRAME = re.compile(
    r"(?:\b(?:earlier|before|previously|last\s+time|one\s+thing|oh|wait|hmm+|um+|so|also|and)[,:]?\s+)*"
    r"\b(?:(?:did|have)\s+I\s+(?:just\s+)?(?:say|tell\s+(?:you|u)|mention|write|put(?:\s+down)?)|"
    r"I\s+(?:think\s+I\s+)?(?:said|told\s+(?:you|u)|mentioned|wrote|put(?:\s+down)?))\s+"
    r"(?:(?:ages|a\s+while|a\s+long\s+time|months|weeks)\s+ago\s+|the\s+other\s+day\s+)?(?:that\s+|earlier\s+|before\s+)?"
    r"(?P<clause>[^?;.!]{3,120}?)(?:\s*\?+|\s*[,;:.!-]+\s*(?=(?:sorry|wrong|no|nope|my\s+bad|my\s+mistake|oops|whoops|"
    r"that's\s+wrong|that\s+was\s+wrong|scratch\s+that|"
    # "I told you ages ago that Fintan's a paramedic. He isn't, he's ...": the next words deny it
    r"(?:he|she|they|it|that)\s+(?:isn't|is\s+not|wasn't|was\s+not|aren't|are\s+not|doesn't|does\s+not|didn't))\b))"
    r"(?:\s*(?:sorry|wrong|no|nope|my\s+bad|my\s+mistake|oops|whoops|that's\s+wrong|that\s+was\s+wrong|scratch\s+that|"
    r"lol|haha)\b[\s,.!:;-]*)*",
    re.IGNORECASE,
)
"""What the speaker says they said before ("did I say the recital was the 21st?", "earlier I said
Ines lives in Marseille, sorry, ..."): a reference to an earlier statement, not a new one, and what
the rest of the turn corrects."""
_CALLED_OFF = re.compile(
    r"(?P<np>\b[\w'&-]+(?:\s+[\w'&-]+){0,4}?)\s+(?:(?:is|was|are|were|has\s+been|got|is\s+now|is\s+all)\s+)?"
    r"(?:(?:(?<=\bis\s)|(?<=\bwas\s)|(?<=\bare\s)|(?<=\bwere\s)|(?<=\bbeen\s)|(?<=\bgot\s)|(?<=\bnow\s)|"
    r"(?<=\ball\s)|(?<='s\s))off(?:\s+the\s+table)?(?!\s+(?:to|at|on|work|duty|sick)\b)|"
    r"off\s+the\s+table|cancell?ed|called\s+off|scrapped|shelved|"
    r"not\s+happening|isn't\s+happening|won't\s+happen|never\s+happened|didn't\s+happen|did\s+not\s+happen|"
    r"fell\s+(?:through|apart)|dead\s+in\s+the\s+water)\b",
    re.IGNORECASE,
)
"""A plan called off by naming it, however it is named ("rotterdam fell through", "the Bristol job
is off the table", "Edinburgh never happened"), or by "that" after the plan was named."""
_TURNED_DOWN = re.compile(
    r"\bnot\s+(?P<np>(?:the\s+)?[\w'&-]+(?:\s+[\w'&-]+){0,3}?)(?:\s+(?:anymore|any\s+more))?\s*,?\s+after\s+all\b|"
    r"\b(?:decided|decide|deciding)\s+against\s+(?P<np2>[\w'&-]+(?:\s+[\w'&-]+){0,4}?)(?=\s*(?:[,.;!]|$|\s+(?:and|but|so)\b))|"
    r"\b(?:dropped|ditched|scrapped|shelved|abandoned|gave\s+up\s+on|given\s+up\s+on|pulled\s+out\s+of)\s+"
    r"(?P<np3>(?:the|that|our|my)\s+[\w'&-]+(?:\s+[\w'&-]+){0,2}?)\s+(?:idea|plan|plans|trip|thing)\b",
    re.IGNORECASE,
)
"""A plan turned down rather than cancelled: "not Berlin after all", "decided against the Peckham
studio", "dropped the duck idea". The named words are matched against open plans as for
`_CALLED_OFF`; the negation in "not Berlin after all" is the withdrawal itself."""
_PLAN_NOUNS = frozenset(
    """the our my his her their that this it thing plan plans idea trip move job offer weekend holiday
    vacation visit break whole so and but also about though well oh yeah sadly anyway""".split()
)
_ANAPHORA = frozenset("that this it".split())
_PLAIN_WORDS = frozenset(
    """something anything everything nothing all any some one the for with from into have has had get got
    was were are is been being will would can could should must might show going gonna you your they them
    who what which where when how why not""".split()
)
"""Words too plain to name a plan: "something to show off" names none."""
_CALENDAR = frozenset(
    """january february march april may june july august september october november december monday
    tuesday wednesday thursday friday saturday sunday christmas easter summer winter spring autumn fall
    weekend week month year today tomorrow tonight about""".split()
)
"""Times name when a plan was, not which plan: "the March thing is off" is matched by its other words."""
_ERASE_BEFORE = re.compile(r"\b(?:forget|delete|erase|remove|wipe|disregard|ignore)\s+$", re.IGNORECASE)
"""Right before "I said that": a request to forget it ("can you forget I said that?"), not a
correction asked as a question."""
_REFERENCE_OBJECT = re.compile(
    r"\b(?:what|whatever|anything|everything|all|things?|stuff|info|information|details)\s+"
    r"(?:(?:that|which)\s+)?I\s+(?:just\s+|once\s+)?\w+(?:\s+(?:you|u))?\s+$",
    re.IGNORECASE,
)
_NOT_CORRECTED = frozenset(
    {"has_child", "has_sibling", "has_parent", "has_partner", "friend_of", "has_pet", "forget_request"}
)
"""Relations name people a corrected clause is about ("my sister was in Marseille"), not its value."""
_NUMBER = re.compile(
    r"\b(?:\d+(?:st|nd|rd|th)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)\b",
    re.IGNORECASE,
)
_REPLY_WORDS = frozenset("wrong no nope sorry oops whoops yes yeah right nah hmm well ugh".split())
"""Words that open a reply or a correction, capitalised only because they open the sentence."""
_CAP_PHRASE = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:of\s+|de\s+|la\s+)?[A-Z][\w'&.-]*){0,2}")


_COPULAR_VALUE = re.compile(
    r"\b(?:he|she|they)(?:['’](?:s|re)|\s+(?:is|are))\s+(?:actually\s+|really\s+)?(?:an?\s+)"
    r"(?P<value>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)(?=\s+(?:for|at|with|in|on|and|but)\b|\s*[,.;!?]|\s*$)",
    re.IGNORECASE,
)
"""What someone is said to be ("he's an emergency call handler"): a lower-case value."""


def typed_replacement(old: str, text: str, exclude: set[str]) -> str | None:
    """The value in `text` of the same kind as `old` (a weekday for a weekday, a number for a
    number, a capitalised name for a name), the first one said, or None: what "I meant thursday"
    or "wrong, she's been in Nice for years" put in place of the old value.

    Args:
        old: the wrong value (the words of the earlier fact the speaker referred to).
        text: what the speaker said after referring to it.
        exclude: names that are not values (the speaker, the people the correction is about).

    Returns:
        The new value as written, or None when the text holds no value of that kind.
    """
    for kind in (WEEKDAY, _NUMBER):
        if kind.search(old):
            found = [m.group(0) for m in kind.finditer(text) if m.group(0).lower() != old.lower()]
            return found[0] if found else None
    if not re.search(r"[A-Z]", old):
        # "He isn't, he's an emergency call handler for the ambulance service": a lower-case
        # value is put right by what the same person is said to be instead.
        said = _COPULAR_VALUE.search(text)
        value = said.group("value").strip() if said else None
        return value if value and value.lower() != old.lower() else None
    for m in _CAP_PHRASE.finditer(text):
        value = m.group(0).rstrip(".")
        first = value.split()[0]
        opens = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1] in ".!?"
        if (
            first in ("I", "I'm", "I've", "I'd", "I'll")
            or (opens and (first.lower() in NOT_NAMES or first.lower() in _FUNCTION_WORDS | _REPLY_WORDS))
            or first.lower() in SENTENCE_ADVERBS
            or value in exclude
            or re.match(r"(?:She|He|They|It|We|You|The|My|Our|His|Her|Their)\b", first)
        ):
            continue
        return value
    return None


@dataclass(frozen=True)
class _Scope:
    """Text around a sentence that its facts may depend on: the turn with its neighbours (for cues
    such as the medium of a title) and the rest of the turn (for a start date said next)."""

    context: str
    after: str
    anchor: _Anchor | None = None
    """Where the reading being matched restored a subject, if it did."""
    antecedent: str | None = None
    """The one person the previous sentence of the turn names, whom a leading he/she means."""
    previous: str = ""
    """The sentence said just before (in the turn, else the speaker's previous turn)."""
    earlier: tuple[str, ...] = ()
    """Sentences of the turn before `previous` that it carries on (`carried_on`)."""
    meant: str = ""
    """The last statement before this sentence that is not an interjection or a regret."""
    named_before: str | None = None
    """`antecedent`, else for a turn's first sentence the person the speaker's last turn names."""
    requested: bool = False
    """An earlier sentence of the turn asked to forget something (`Ctx.requested`)."""


def _anchored(m: re.Match[str], anchor: _Anchor) -> bool:
    """Whether a match takes its subject where the reading restored it."""
    got = m.groupdict().get(anchor.group)
    return bool(got) and m.start(anchor.group) == anchor.at and (anchor.value is None or got == anchor.value)


_POINTS_BACK = re.compile(
    r"^\W*(?:he|she|they|we|it|his|her|their|its|he's|she's|they're|we've|we're|it's|that|this|which|and|but|so)\b",
    re.IGNORECASE,
)
"""A sentence that opens by carrying on the one before it ("He hasn't told anyone yet.", "We've
found a donor"); one regretting it ("Oh, I shouldn't have said that.") is `REGRETS_SAYING`."""
_ANNOUNCES_SECRET = re.compile(
    r"\b(?:shouldn't|should\s+not)\s+(?:tell|say|be\s+telling|be\s+saying)\b|\bsecret\b|\bconfidential\b|"
    r"\bbetween\s+(?:us|you\s+and\s+me)\b|\b(?:can|may)\s+I\s+tell\s+you\s+something\b|\bgossip\b|"
    r"^\W*(?:personal|private|family|health|money)\s+(?:thing|stuff|matter|news)\b",
    re.IGNORECASE,
)
"""A sentence that announces what follows as not for telling ("Something I shouldn't tell you.",
"Personal thing:"): a request pointing back means everything said since it."""


_SECRET_REACH = 4
"""How many sentences back a secret's announcement is looked for."""


def carried_on(before: Sequence[str], sentence: str, most: int = 2) -> tuple[str, ...]:
    """The sentences just before `sentence` that it carries on, oldest first (pure): while the
    latest one taken opens by pointing back, the one before it belongs to the same statement.

    Args:
        before: the turn's sentences before `sentence`, in order.
        sentence: the sentence a request points back at.
        most: how many sentences may be taken.

    Returns:
        The sentences, oldest first; empty when `sentence` stands alone.
    """
    taken: list[str] = []
    current = sentence
    for earlier in reversed(before):
        points_back = _POINTS_BACK.match(current) or REGRETS_SAYING.search(current)
        if len(taken) >= most or not points_back or is_question(earlier):
            break
        taken.append(earlier)
        current = earlier
    for k in range(len(before) - 1, max(len(before) - 1 - _SECRET_REACH, -1), -1):
        if _ANNOUNCES_SECRET.search(before[k]) and len(before) - k > len(taken):
            # "Something I shouldn't tell you. My insurance lapsed. I'm still working. Forget I said
            # that.": the whole secret, from its announcement ("Personal thing: I'm on ...")
            return tuple(before[k:])
    return tuple(reversed(taken))


def _same_session(a: Turn, b: Turn) -> bool:
    """Whether two turns were said in the same session of the same conversation."""
    return a.session_id == b.session_id and a.conversation_id == b.conversation_id


def _said_before(turns: Sequence[Turn], index: int) -> str:
    """The speaker's own last turn before this one in the same session, with at most the agent's
    replies between (what "forget that" at the start of a turn refers to); "" when there is none."""
    turn = turns[index]
    for t in reversed(turns[max(0, index - 3) : index]):
        if not _same_session(t, turn):
            return ""
        if t.speaker == turn.speaker:
            return t.text.translate(_APOSTROPHES)
    return ""


def _previous(turns: Sequence[Turn], index: int) -> str:
    """The text of the turn right before this one in the same session, whoever said it ("")."""
    if index == 0 or not _same_session(turns[index - 1], turns[index]):
        return ""
    return turns[index - 1].text


def _neighbours(turns: Sequence[Turn], index: int) -> str:
    """The turn with the turns right before and after it in the same session."""
    turn = turns[index]
    near = [t.text for t in turns[max(0, index - 1) : index + 2] if _same_session(t, turn)]
    return " ".join(near).translate(_APOSTROPHES)


_AHEAD_VERB = re.compile(
    r"\b(?:(?!(?:during|morning|evening|nothing|something|spring|thing|everything|anything)\b)[a-z]{3,}ing|"
    r"will|'ll|going\s+to|gonna|from|starting|starts?|begins?)\s+(?:(?:in|on|at|by)\s+)?$",
    re.IGNORECASE,
)
"""A date said after a verb of what is under way or ahead ("moving in August", "we'll be there by
June"): it lies ahead of the turn, even in a clause whose main verb is past ("We bought a house in
Fana, moving in August")."""


_ARRANGED = re.compile(
    r"\b(?:'m|am|'re|are|'s|is)\s+(?:(?:all|now|finally|actually|definitely)\s+)?"
    r"(?:moving|relocating|starting|joining|leaving|heading|going|switching|transferring)\b"
    r"[^,.;:!?]{0,40}?\s(?:(?:in|on|at|by|from|around)\s+)?$",
    re.IGNORECASE,
)
"""A date said after an arrangement in the present progressive, a few words on ("I'm moving up to
Glasgow at the end of July", "I'm moving to Bristol in late June", whose mention holds the "in"):
it lies ahead too."""


def _ahead(sentence: str, mention: DateMention, anchor: datetime) -> DateMention:
    """The mention resolved forward when the words before it say it is ahead; else as it was."""
    before = sentence[: mention.span[0]]
    if not (_AHEAD_VERB.search(before) or _ARRANGED.search(before)) or mention.start >= anchor:
        return mention
    forward = [d for d in find_date_mentions(sentence, anchor, "future") if d.span == mention.span]
    return forward[0] if forward and forward[0].start >= anchor else mention


def _arranged_ahead(sentence: str, dates: Sequence[DateMention], anchor: datetime) -> DateMention | None:
    """A date ahead that another clause arranges ("I'm moving up at the end of July and I've rented
    a flat in Partick"): a home taken for a move begins with the move, not today."""
    for mention in dates:
        ahead = _ahead(sentence, mention, anchor)
        if ahead.start >= anchor:
            return ahead
    return None


_HOLDS_NOW = re.compile(
    r"\b(?:live|lives|living)\s+in\b|\bfor\s+now\b|\bcurrently\b|\bat\s+the\s+moment\b|\bstill\b"
)
"""Said of a home in its own clause, it holds now ("We live in Leeds for now, but we're moving to
York in June"): another clause's move dates the new home, not this one."""


def _holds_now(sentence: str, start: int) -> bool:
    """Whether the clause beginning at `start` says its home holds now (`_HOLDS_NOW`)."""
    stop = next((b.start() for b in _CLAUSE_BREAK.finditer(sentence, start)), len(sentence))
    return _HOLDS_NOW.search(sentence, start, stop) is not None


_OPENING_START = re.compile(r"^\W*(?:from|starting|as\s+of|beginning)\s+", re.IGNORECASE)


def _opening_start(sentence: str, anchor: datetime) -> datetime | None:
    """The date a sentence opens with as a start ("From 1 August I'm a practice nurse at ..."):
    whatever state the sentence then states begins on it (resolved forward: said of what is ahead)."""
    m = _OPENING_START.match(sentence)
    if m is None:
        return None
    dates = find_date_mentions(sentence, anchor, "future")
    return dates[0].start if dates and dates[0].span[0] == m.end() else None


def _start_said_after(after: str, anchor: datetime) -> DateMention | None:
    """A start date said in the next sentences of the turn ("... starting in August", "I start on
    the 1st of April"), resolved forward from the turn's time."""
    for s, e in split_sentences(after)[:2]:
        sentence = after[s:e]
        for cue in _START_CUE.finditer(sentence):
            for d in find_date_mentions(sentence, anchor, "future"):
                if 0 <= d.span[0] - cue.end() <= 12:
                    return d
    return None


def _name_later(found: list[FactCandidate], following: str) -> list[FactCandidate]:
    """ "We adopted a rabbit! Her name is Clover.": the one unnamed pet of a sentence takes the name
    the next sentence gives."""
    m = _LATER_NAME.match(following)
    unnamed = [
        f for f in found if f.predicate == "has_pet" and f.kind == "assert" and " named " not in f.object
    ]
    several = _LATER_NAMES.match(following)
    if several is not None and len(unnamed) == 1:
        # "We got two guinea pigs. We named them Sprout and Bramble.": as many names as the count
        names = _listed_names(several.group("names"))
        words = unnamed[0].object.split()
        if _COUNT_WORDS.get(words[0].lower()) != len(names) or any(n.lower() in NOT_NAMES for n in names):
            return found
        species = singular_species(" ".join(words[1:]))
        each = [unnamed[0].model_copy(update={"object": _pet_called(species, n)}) for n in names]
        return [f for f in found if f is not unnamed[0]] + each
    if m is None or len(unnamed) != 1 or m.group("name").lower() in NOT_NAMES:
        return found
    named = unnamed[0].model_copy(update={"object": f"{unnamed[0].object} named {m.group('name')}"})
    return [named if f is unnamed[0] else f for f in found]


def _listed_names(listed: str) -> list[str]:
    """ "Nube, Tiza and Pimienta" -> the three names."""
    return [n for n in re.split(r"\s*,\s*(?:and\s+)?|,?\s+and\s+", listed) if n]


def _pet_called(species: str, name: str) -> str:
    """The value of one named pet: "a guinea pig named Sprout", "an axolotl named Pink"."""
    return f"{'an' if species[:1] in 'aeiou' else 'a'} {species} named {name}"


def _after_commas(sentence: str) -> list[str]:
    """The clauses after each comma of a sentence, in order."""
    return [sentence[m.end() :] for m in re.finditer(r"[,;]\s+", sentence)]


_PET_NAME = r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+"
_PET_WORD = re.compile(rf"{PET_FORMS}$", re.I)
"""The pet word a plural ends in ("got two guinea pigs" -> "guinea pigs")."""
_NAMED_THEM = re.compile(
    rf"\b(?P<pets>{PET})\b[^.!?]*?\b(?:(?P<who>[Ww]e|I|{_PET_NAME})|and)\s+(?:named|called)\s+them\s+"
    rf"(?P<names>{_PET_NAME}(?:\s*,\s*{_PET_NAME})*,?\s+and\s+{_PET_NAME})\b"
    rf"|\b(?P<who2>[Ww]e|I|{_PET_NAME})\s+(?:named|called)\s+(?:the|our|my|his|her|their|both)\s+"
    rf"(?P<pets2>{PET})\s+(?P<names2>{_PET_NAME}(?:\s*,\s*{_PET_NAME})*,?\s+and\s+{_PET_NAME})\b"
)
"""Pets named together after they are mentioned: "The guinea pigs arrived, Anselm named them
Sprout and Bramble", "We named the kittens Fig and Olive"."""


def _named_them(
    found: list[FactCandidate], sentence: str, surface: str, turn: Turn, resolver: AliasResolver
) -> list[FactCandidate]:
    """The pets a sentence names together, one fact each, owned by whoever named them (the
    speaker for "we"/"I"); the sentence's unnamed count of them ("two guinea pigs") gives way, so
    the pets are not counted twice."""
    m = _NAMED_THEM.search(sentence)
    if m is None:
        return found
    pets, who, listed = (m.group("pets"), m.group("who"), m.group("names"))
    if pets is None:
        pets, who, listed = (m.group("pets2"), m.group("who2"), m.group("names2"))
    if not pets.lower().endswith("s") or (who is not None and who.lower() in NOT_NAMES - {"we", "i"}):
        return found
    names = _listed_names(listed)
    if any(n.lower() in NOT_NAMES for n in names):
        return found
    owners = [f.subject for f in found if f.predicate == "has_pet" and f.kind == "assert"]
    if who is None:  # "We got two guinea pigs and named them ...": whoever got them
        if not owners:
            return found
        subject = owners[0]
    else:
        subject = resolver.canonical(turn.speaker) if who.lower() in ("we", "i") else resolver.canonical(who)
    kind = _PET_WORD.search(pets)
    if kind is None:
        return found
    species = singular_species(kind.group(0).lower())
    unnamed = [
        f
        for f in found
        if f.predicate == "has_pet"
        and f.kind == "assert"
        and (
            singular_species(" ".join(f.object.split()[1:])).endswith(species.split()[-1])
            if " named " not in f.object
            else f.object.rsplit(" named ", 1)[1] in names  # a rule's reading of one of the names
        )
    ]
    base = (
        unnamed[0]
        if unnamed
        else FactCandidate(
            subject=subject, predicate="has_pet", object="", surface=surface, source_turn_ids=[turn.turn_id]
        )
    )
    named = [base.model_copy(update={"subject": subject, "object": _pet_called(species, n)}) for n in names]
    return [f for f in found if f not in unnamed] + named


_ASKS_NAMES = re.compile(
    r"\bwhat\s+(?:are|were)\s+(?:their|they)\s+(?:names|called)\b|\bwhat(?:'s|\s+is|\s+was)\s+(?:his|her|its)\s+name\b|"
    r"\bwhat\s+(?:is|was)\s+(?:he|she|it)\s+called\b|\bwhat\s+did\s+you\s+(?:name|call)\s+(?:him|her|it|them)\b",
    re.IGNORECASE,
)
_NAME_REPLY = re.compile(
    r"^\W*(?:(?:they're|they\s+are|(?:she|he|it)(?:'s|\s+is)|(?:her|his|its|their)\s+names?\s+(?:is|are))\s+)?"
    r"(?P<names>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+(?:\s*,\s*[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)*(?:,?\s+and\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?)\s*(?:[.!]|$)",
    re.IGNORECASE,
)
_COUNT_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
}


def _names_given(asked: str, reply: Turn, subject: str, state: _State) -> list[FactCandidate]:
    """The user's answer to the agent asking what their pets are called names the pets the user
    last mentioned without names, when the count agrees ("my three cats" - "What are their
    names?" - "Nube, Tiza and Pimienta.")."""
    if not _ASKS_NAMES.search(asked.translate(_APOSTROPHES)):
        return []
    first = split_sentences(reply.text)
    m = _NAME_REPLY.match(reply.text[slice(*first[0])]) if first else None
    if m is None:
        return []
    names = _listed_names(m.group("names"))
    if any(n.lower() in NOT_NAMES for n in names):
        return []
    unnamed = [
        s.fact
        for s in state.said
        if s.speaker == subject and s.fact.predicate == "has_pet" and " named " not in s.fact.object
    ]
    if not unnamed:
        return []
    said = unnamed[-1]
    words = said.object.split()
    count = _COUNT_WORDS.get(words[0].lower()) if words else None
    if count != len(names):
        return []
    species = singular_species(" ".join(words[1:]))
    named = [
        said.model_copy(
            update={
                "object": _pet_called(species, n),
                "surface": reply.text,
                "source_turn_ids": [reply.turn_id],
            }
        )
        for n in names
    ]
    if count == 1:
        return named
    # "three cats" is now three named cats: the count alone would be counted again
    withdrawn = said.model_copy(
        update={"kind": "retract", "surface": reply.text, "source_turn_ids": [reply.turn_id]}
    )
    return [withdrawn, *named]


@dataclass
class _Said:
    index: int
    session_id: str
    speaker: str
    fact: FactCandidate


@dataclass
class _State:
    """What the extractor has read so far in this call, for retractions that point back."""

    said: list[_Said] = field(default_factory=list)
    known: Callable[[str], list[FactCandidate]] | None = None
    """What the ledger already holds of a subject (earlier sessions), when consolidation says."""

    def held(self, subject: str) -> list[FactCandidate]:
        """What is known of `subject`: asserted in this call so far, then held by the ledger."""
        said = [x.fact for x in self.said if x.fact.subject == subject]
        return said + (self.known(subject) if self.known is not None else [])


_WORK_PLACE = re.compile(r"^[^.!?;]{0,30}?\bin\s+(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})\b")
"""Where a workplace is, said right after it ("at St. Mary's Hospital in Leeds")."""
_NEW_JOB = re.compile(
    r"\b(?:get|got|gotten|land(?:ed)?|offer(?:ed)?|accept(?:ed)?|start(?:s|ed|ing)?|join(?:s|ed|ing)?|new|"
    r"applied|apply(?:ing)?|interview\w*|will|'ll|going\s+to)\b",
    re.IGNORECASE,
)
"""Words of a job taken, offered or sought: where it is need not be where one lives."""


def _home_from_work(facts: list[FactCandidate], state: _State) -> list[FactCandidate]:
    """ "I work as a ward nurse at St. Mary's Hospital in Leeds": where someone works, said by them
    with its town, is where they live, when nothing else says where. Filed only for a subject with no home in these turns or the ledger, so a home said in so many
    words is never replaced by one inferred; a later move supersedes it as any home."""
    homes = {f.subject for f in facts if f.predicate == "lives_in"}
    out: list[FactCandidate] = []
    for f in facts:
        if f.predicate != "works_at" or f.kind != "assert" or f.subject in homes:
            continue
        at = f.surface.find(f.object)
        m = _WORK_PLACE.match(f.surface[at + len(f.object) :]) if at >= 0 else None
        if m is None or f.valid_from is not None or _NEW_JOB.search(f.surface[: max(at, 0)]):
            continue  # "I got a job as a marine guide with Blue Fin Safaris in Ballito": not a move
        place = m.group("place")
        if (
            place.split()[0].lower() in NOT_NAMES
            or re.fullmatch(MONTH_TITLES, place.split()[0])
            or WEEKDAY.fullmatch(place)
        ):
            continue
        if state.known is not None and any(k.predicate == "lives_in" for k in state.known(f.subject)):
            continue
        homes.add(f.subject)
        out.append(f.model_copy(update={"predicate": "lives_in", "object": place, "confidence": 0.5}))
    return out


_HERE_NOW = r"(?:^|[.!?]\s+)\W*(?:(?:so|well|finally|anyway)\W+)?(?:I'm|I\s+am|we're|we\s+are)\s+"
"""A sentence that opens by saying where one is ("So we're ...", "I'm ...")."""
_ARRIVED = re.compile(
    _HERE_NOW + r"(?:now\s+|finally\s+|officially\s+)?"
    r"in\s+(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})(?:\s+now)?\s*[!.]"
)
"""Being somewhere, said as a sentence of its own ("I'm in Mysuru!")."""
_MOVED_IN = re.compile(
    _HERE_NOW + r"(?:finally\s+)?in\s*[!.]"
    r"|\b(?:I've|I\s+have|we've|we\s+have)\s+(?:finally\s+|officially\s+)?moved\s+in\b",
    re.IGNORECASE,
)
_HOME_NAMED = re.compile(
    r"\b[Tt]he\s+(?P<place>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)?)\s+(?:house|flat|place|apartment|home|cottage)\b"
)
"""Moving in said apart from where ("We're in. The Huntingdon house is chaos but it's ours.")."""


def _arrived(
    text: str, turn: Turn, resolver: AliasResolver, state: _State, facts: list[FactCandidate]
) -> list[FactCandidate]:
    """ "I'm in Mysuru!" (or "We're in. The Huntingdon house is chaos") after a plan to move there:
    the move has happened, and the speaker lives there from this turn. Alone, being somewhere may
    be a visit, so only a known plan to move there makes it a home."""
    speaker = resolver.canonical(turn.speaker)
    if any(f.predicate == "lives_in" and f.subject == speaker for f in facts):
        return []
    held = state.held(speaker)
    planned = [
        f.object.lower()
        for f in held
        if f.predicate == "plans_to" and f.object.lower().startswith(("move to", "relocate to"))
    ]
    found = [(m.group("place"), m.group(0)) for m in _ARRIVED.finditer(text)]
    if _MOVED_IN.search(text):
        found += [(m.group("place"), m.group(0)) for m in _HOME_NAMED.finditer(text)]
    for place, surface in found:
        if any(re.match(rf"(?:move|relocate) to {re.escape(place.lower())}\b", p) for p in planned):
            return [
                FactCandidate(
                    subject=speaker,
                    predicate="lives_in",
                    object=place,
                    surface=surface.strip(),
                    source_turn_ids=[turn.turn_id],
                    valid_from=turn.time,
                )
            ]
    return []


def _pet_owner(fact: FactCandidate, turn: Turn, resolver: AliasResolver, state: _State) -> FactCandidate:
    """A pet's end said by its name ("Bramble died") ends it for whoever has it: the speaker, or
    a person the turn names who was said to have a pet of that name ("Anselm named them Sprout
    and Bramble"), this session or in the ledger. Unchanged when nobody is known to have it."""
    if fact.predicate != "has_pet" or fact.kind != "end" or " " in fact.object.strip():
        return fact
    name = fact.object.strip().lower()
    speaker = resolver.canonical(turn.speaker)
    named = {resolver.canonical(w) for w in re.findall(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b", turn.text)}
    for owner in [speaker, *sorted(named - {speaker, fact.object.strip()})]:
        held = state.held(owner)
        if any(
            f.predicate == "has_pet" and f.kind == "assert" and (named_value(f.object) or "").lower() == name
            for f in held
        ):
            return fact if owner == fact.subject else fact.model_copy(update={"subject": owner})
    return fact


class OfflineExtractor:
    """Rule-based extractor; same input, same output, no model."""

    name = "offline-rules/1"
    reads_ledger = True
    """Consolidation passes `known`: a later session may refer back to facts of earlier ones."""

    def __init__(
        self, rules: Sequence[Rule] = RULES, resolver: AliasResolver | None = None, lookback_turns: int = 4
    ) -> None:
        self.rules = tuple(rules)
        for rule in self.rules:
            # Compile the whole table now, once per process (cached on the rules): an extractor
            # is made to consolidate, and compiling a rule the first time a sentence reaches it
            # would land on whichever read consolidates that sentence (~2 ms a rule).
            rule.pattern  # noqa: B018
        self._request_rules = tuple(r for r in self.rules if r.predicate == "forget_request")
        """The rules a question may still fire: "Can you forget my address?" asks the memory itself."""
        self.resolver = resolver
        self.lookback_turns = lookback_turns
        """How far back (in turns) "scratch that" may reach for the speaker's last statement."""

    def __call__(
        self, turns: Sequence[Turn], known: Callable[[str], list[FactCandidate]] | None = None
    ) -> list[FactCandidate]:
        """Fact candidates of `turns`, in turn order.

        Args:
            turns: one run of turns (consolidation passes one session at a time).
            known: subject -> the facts the ledger holds of it, oldest first (what "Finished
                Piranesi" or "it's Leeds, not Sheffield" may refer back to across sessions).

        Returns:
            Assertions, retractions and endings, each sourced to its turn(s).
        """
        resolver = self.resolver or AliasResolver.from_turns(turns)
        roles = speaker_roles([t.speaker for t in turns])
        state = _State(known=known)
        out: list[FactCandidate] = []
        confirmed: set[int] = set()
        for index, turn in enumerate(turns):
            if roles.get(turn.speaker) != "agent":
                asked = (
                    turns[index - 1] if index > 0 and roles.get(turns[index - 1].speaker) == "agent" else None
                )
                reply = _as_statement(asked.text, turn.text) if asked is not None else None
                if reply is not None:  # "What's the address?" - "It's 22 Alder Road, Bristol."
                    proxy = turn.model_copy(update={"text": reply[1]})
                    out.extend(
                        f for f in self._turn(proxy, index, resolver, state) if f.predicate == reply[0]
                    )
                granted = _how_long_reply(asked.text, turn.text) if asked is not None else None
                if asked is not None and granted is not None:  # "How long in Porto?" - "Six years."
                    proxy = turn.model_copy(update={"text": granted})
                    out.extend(
                        f.model_copy(update={"source_turn_ids": [asked.turn_id, turn.turn_id]})
                        for f in self._turn(proxy, index, resolver, state)
                        if f.predicate in ("lives_in", "works_at") and f.kind == "assert"
                    )
                if asked is not None:  # "What are their names?" - "Nube, Tiza and Pimienta."
                    out.extend(_names_given(asked.text, turn, resolver.canonical(turn.speaker), state))
                read = self._turn(
                    turn,
                    index,
                    resolver,
                    state,
                    _neighbours(turns, index),
                    _said_before(turns, index),
                    _previous(turns, index),
                )
                out.extend(read)
                out.extend(corrected_in_next_breath(turn, split_sentences(turn.text), read))
                out.extend(_asked_about_home(turns, index, resolver))
                continue
            # What the agent says ("You live in Boston, right?") is not a fact about the user,
            # unless the user's next turn confirms it ("Yes, ...").
            answer = turns[index + 1] if index + 1 < len(turns) else None
            if answer is not None and roles.get(answer.speaker) == "user" and _AFFIRM.match(answer.text):
                guessed = self._confirmed(turn, answer, index, resolver, state)
                confirmed.update(id(f) for f in guessed)
                out.extend(guessed)
        # "Are you moving to Lisbon?" - "Yes, we move there in April": the reply's own words file
        # the home; the confirmed guess would file it a second time
        own = {(f.subject, f.predicate, f.object.lower()) for f in out if id(f) not in confirmed}
        out = [
            f for f in out if id(f) not in confirmed or (f.subject, f.predicate, f.object.lower()) not in own
        ]
        said = {(f.subject, f.predicate, f.object.lower()): i for i, f in enumerate(out)}
        for index, turn in enumerate(turns):
            if roles.get(turn.speaker) == "agent":
                continue
            for f in moves(turn, resolver.canonical, _previous(turns, index)):
                at = said.get((f.subject, f.predicate, f.object.lower()))
                if at is None:
                    out.append(f)
                elif _dates_undated(f, out[at]):
                    # "We're in Jesmond now! Moved up at the end of June": the rules read the home
                    # undated, the move's clause dates it
                    out[at] = f
            parts = [turn.text[a:b] for a, b in split_sentences(turn.text)]
            out.extend(role_holders(turn, resolver.canonical, parts))
        named = {f.subject for f in out if f.predicate == "name" and f.kind == "assert"}
        canonical = {t.speaker: resolver.canonical(t.speaker) for t in turns}
        out.extend(f for f in introductions(turns, roles, canonical) if f.subject not in named)
        for turn in turns:
            if roles.get(turn.speaker) != "agent":
                out.extend(corrected_in_same_breath(turn, split_sentences(turn.text), out))
        out.extend(_home_from_work(out, state))
        return out

    def _confirmed(
        self, said: Turn, reply: Turn, index: int, resolver: AliasResolver, state: _State
    ) -> list[FactCandidate]:
        """Facts of the agent's guess as the user's own statement, sourced to both turns and known
        from the confirmation."""
        spans = [said.text[s:e] for s, e in split_sentences(said.text)]
        guess = next(
            (x for x in reversed(spans) if _SECOND_PERSON.search(x) and x.rstrip().endswith("?")), None
        )
        statement = first_person(guess) if guess else None
        if statement is None:
            return []
        proxy = reply.model_copy(update={"text": _dated_by_reply(statement, reply)})
        answer = (
            reply.text[slice(*split_sentences(reply.text)[0])] if split_sentences(reply.text) else reply.text
        )
        surface = f"{said.speaker}: {guess} {reply.speaker}: {answer}"
        read = self._turn(proxy, index + 1, resolver, state)
        homes = [
            f for f in moves(proxy, resolver.canonical, "") if f.predicate not in {g.predicate for g in read}
        ]
        return [
            f.model_copy(update={"surface": surface, "source_turn_ids": [said.turn_id, reply.turn_id]})
            for f in [*read, *homes]
            if f.kind == "assert"
        ]

    # --- one turn --------------------------------------------------------------------------------

    def _turn(
        self,
        turn: Turn,
        index: int,
        resolver: AliasResolver,
        state: _State,
        context: str = "",
        said_before: str = "",
        previous: str = "",
    ) -> list[FactCandidate]:
        text = resolve_there(turn.text.translate(_APOSTROPHES), previous.translate(_APOSTROPHES))
        facts: list[FactCandidate] = []
        seen: set[tuple[str, str, str, str]] = set()
        frame = _SAID_FRAME.search(text)
        if frame is not None and (
            _REFERENCE_OBJECT.search(text[: frame.start("clause")])
            or frame.group("clause").lower().startswith("about")
            or _ERASE_BEFORE.search(text[: frame.start()])
        ):
            frame = None  # "forget what I told you about ...": the object of a request, not a correction
        target: FactCandidate | None = None
        if frame is not None:  # "did I say X? I meant Y": X is referred to, not said again
            speaker = resolver.canonical(turn.speaker)
            target = self._referred(speaker, frame.group("clause"), state, facts)
            rest = text[frame.end() :]
            text = text[: frame.start()] + " " * (frame.end() - frame.start()) + rest[:1].upper() + rest[1:]
        spans = split_sentences(text)
        # "there" read as the place it stands for lengthens the text: surfaces come from the
        # turn's own sentences, which are the same sentences
        said = split_sentences(turn.text) if len(text) != len(turn.text) else spans
        if len(said) != len(spans):
            said = spans
        if (
            len(spans) > 1
            and _GREETING.match(text[slice(*spans[0])])
            and not is_question(text[slice(*spans[1])])
        ):
            spans = [(spans[0][0], spans[1][1]), *spans[2:]]  # "Hi! I'm Maya.": one introduction
            said = [(said[0][0], said[1][1]), *said[2:]]
        for k, (s, e) in enumerate(spans):
            sentence = text[s:e]
            only: tuple[Rule, ...] | None = None
            if is_question(sentence):
                if (
                    _ASKS_MEMORY.match(sentence)
                    or _ASKS_MEMORY_AFTER.search(sentence)
                    or find_request(sentence) is not None
                ):
                    only = self._request_rules  # "Can you not keep my health stuff?" is a request
                elif (untagged := request_without_tag(sentence)) is not None:
                    sentence, only = untagged, self._request_rules
                else:
                    continue
            surface = turn.text[slice(*said[k])]
            before = text[slice(*spans[k - 1])] if k > 0 else ""
            antecedent = _one_person(before, turn.speaker)
            if target is not None and frame is not None and s >= frame.start() and antecedent is None:
                antecedent = target.subject if target.subject != resolver.canonical(turn.speaker) else None
            # What "forget that" means: the turn's previous sentence, else the speaker's last turn;
            # an interjection ("Eish, no.") or a regret ("I wish I hadn't said that.") says nothing
            # to forget, so the statement before it is meant
            previous = before or said_before
            meant = next(
                (
                    statement
                    for statement in (text[slice(*span)] for span in reversed(spans[:k]))
                    if (len(_WORD.findall(statement.lower())) >= 3 or re.search(r"\d", statement))
                    and not REGRETS_SAYING.search(statement)
                ),
                said_before,
            )
            earlier = carried_on([text[slice(*span)] for span in spans[: max(k - 1, 0)]], before)
            named_before = antecedent or _kin_called(before)
            if named_before is None and k == 0 and said_before:
                named_before = _last_person(said_before, turn.speaker)
            scope = _Scope(
                context or text,
                text[e:],
                antecedent=antecedent,
                previous=previous,
                earlier=earlier,
                meant=meant,
                named_before=named_before,
                requested=any(f.predicate == "forget_request" for f in facts),
            )
            found = self._sentence(sentence, surface, turn, index, resolver, state, facts, scope, only)
            for clause in _after_commas(sentence):  # "adopted a kitten, we called her Pipar"
                found = _name_later(found, clause)
            if k + 1 < len(spans):
                found = _name_later(found, text[slice(*spans[k + 1])])
            found = _named_them(found, sentence, surface, turn, resolver)
            for fact in found:
                key = (fact.subject, fact.predicate, fact.object.lower(), fact.kind)
                if key not in seen:
                    seen.add(key)
                    facts.extend(_same_breath(fact, facts))
        if target is not None and frame is not None:
            facts = self._corrected(target, frame, text[frame.end() :], turn, facts)
        facts = facts + self._called_off(text, turn, resolver, state, facts)
        facts = [_pet_owner(f, turn, resolver, state) for f in facts]
        facts += _arrived(text, turn, resolver, state, facts)
        facts = _held_until_ended(facts, turn.time)
        speaker = resolver.canonical(turn.speaker)
        state.said.extend(_Said(index, turn.session_id, speaker, f) for f in facts if f.kind == "assert")
        return facts

    def _sentence(
        self,
        sentence: str,
        surface: str,
        turn: Turn,
        index: int,
        resolver: AliasResolver,
        state: _State,
        earlier: list[FactCandidate],
        scope: _Scope | None = None,
        rules: Sequence[Rule] | None = None,
    ) -> list[FactCandidate]:
        out: list[FactCandidate] = []
        scope = scope or _Scope(sentence, "")
        for text, dates_for, anchor in self._readings(sentence, turn, scope.antecedent):
            words = set(_WORD.findall(text.lower()))
            matches = [
                (rule, m)
                for rule in (self.rules if rules is None else rules)
                if rule.keywords is None or rule.keywords & words
                for m in _clause_matches(rule.pattern, text)
                if anchor is None or _anchored(m, anchor)
            ]
            matches.sort(key=lambda rm: rm[1].start())  # text order: a retraction sees only what came before
            specific = [(m.start(), m.end()) for rule, m in matches if not rule.fallback]
            # last-resort rules after the others, each only where its predicate filed nothing
            matches = [rm for rm in matches if not rm[0].last_resort] + [
                rm for rm in matches if rm[0].last_resort
            ]
            for rule, m in matches:
                if rule.fallback and any(s < m.end() and m.start() < e for s, e in specific):
                    continue
                if rule.last_resort and any(f.predicate == rule.predicate for f in out):
                    continue
                out.extend(
                    self._read(
                        rule,
                        m,
                        text,
                        surface,
                        turn,
                        index,
                        resolver,
                        state,
                        earlier + out,
                        dates_for(rule.future or rule.starts),
                        replace(scope, anchor=anchor) if anchor is not None else scope,
                    )
                )
        named = {(f.subject, f.predicate, f.object.split(" named ")[0]) for f in out if " named " in f.object}
        ended = {(f.subject, f.predicate, f.object) for f in out if f.kind != "assert"}
        ended |= {  # "we lost our cat Tigger": the end names Tigger, so "a cat named Tigger" is not new
            (f.subject, f.predicate, g.object)
            for f in out
            if f.kind != "assert"
            for g in out
            if g.kind == "assert"
            and (g.subject, g.predicate) == (f.subject, f.predicate)
            and g.object.endswith(f" named {f.object}")
        }
        withdrawn = {
            " ".join(sorted(_words(f.object))) for f in out if f.kind == "retract" and _words(f.object)
        }
        # "a kitten" gives way to "a kitten named Mochi"; "our cat Luna passed away" only ends Luna;
        # "we cancelled our trip to Japan" withdraws Japan, it does not report a visit
        return [
            f
            for f in out
            if (f.subject, f.predicate, f.object) not in named
            and (f.kind != "assert" or (f.subject, f.predicate, f.object) not in ended)
            and (f.kind != "assert" or " ".join(sorted(_words(f.object))) not in withdrawn)
        ]

    @staticmethod
    def _readings(
        sentence: str, turn: Turn, antecedent: str | None = None
    ) -> list[tuple[str, Callable[[bool], tuple[DateMention, ...]], _Anchor | None]]:
        """The sentence itself and, where it leaves a subject out, readings with it restored: "I"
        for a dropped subject ("Moved to Austin!"), the name a he/she stands for, the speaker for
        a second verb ("... but recently went vegan")."""
        plain = _plain_start(sentence)  # "fyi i'm vegetarian", "update: we signed ...": without the lead-in
        texts: list[tuple[str, _Anchor | None]] = [(plain, None)]
        if (moved := _time_fronted(plain)) is not None:
            plain = moved  # "This week I sold ...": read from the subject, the time after it
            texts.append((moved, None))
        for restored in (
            _pronoun_restored(plain),
            _coordinated(plain),
            _leading_pronoun(plain, antecedent),
            _companion_dropped(plain),
            _aside_dropped(plain),
        ):
            if restored is not None:
                texts.append(restored)
        elided: str | None = None
        if _ELLIPSIS_NOT.match(plain) or _ELLIPSIS_BE.match(plain):
            elided = "I'm " + plain[0].lower() + plain[1:]
        elif _ELLIPSIS.match(plain):
            elided = ("I've " if plain.startswith("Been") else "I ") + plain[0].lower() + plain[1:]
        if elided is not None:
            texts.append((elided, _Anchor(0, "fp")))
            second = _coordinated(elided)  # "Finished Piranesi, started on Klara and the Sun"
            if second is not None:
                texts.append(second)
        out: list[tuple[str, Callable[[bool], tuple[DateMention, ...]], _Anchor | None]] = []
        for text, anchor in texts:
            cache: dict[bool, tuple[DateMention, ...]] = {}

            def dates_for(future: bool, text: str = text, cache: dict = cache) -> tuple[DateMention, ...]:
                if future not in cache:
                    cache[future] = tuple(find_date_mentions(text, turn.time, "future" if future else "past"))
                return cache[future]

            out.append((text, dates_for, anchor))
        return out

    def _read(
        self,
        rule: Rule,
        m: re.Match[str],
        sentence: str,
        surface: str,
        turn: Turn,
        index: int,
        resolver: AliasResolver,
        state: _State,
        earlier: list[FactCandidate],
        dates: tuple[DateMention, ...],
        scope: _Scope | None = None,
    ) -> list[FactCandidate]:
        scope = scope or _Scope(sentence, "")
        subject, third = self._subject(m, sentence, turn, resolver, scope.anchor)
        if subject is None or not self._admissible(rule, m, sentence, dates):
            return []
        objects = rule.post(
            m,
            Ctx(
                sentence,
                dates,
                scope.context,
                scope.antecedent,
                scope.previous,
                scope.earlier,
                scope.meant,
                scope.named_before,
                scope.requested,
            ),
        )
        if not objects:
            return []
        predicate = rule.predicate
        if predicate == FAVOURITE:
            predicate = favourite_of(m) or ""
            if not predicate:
                return []
        when = None
        if rule.dated or rule.needs_date or rule.future or rule.starts:
            mention = _pick_date(dates, m.start(), turn.time, rule.future or rule.starts, sentence)
            if (
                mention is None
                and predicate == "lives_in"
                and not rule.future
                and not _holds_now(sentence, m.start())
            ):
                mention = _arranged_ahead(sentence, dates, turn.time)
            if mention is None and predicate in _STARTING and (rule.starts or rule.dated):
                mention = _start_said_after(scope.after, turn.time)
            elif (
                mention is not None
                and predicate in _STARTING
                and rule.dated
                and not rule.starts
                and (later := _start_said_after(scope.after, turn.time)) is not None
            ):
                mention = later  # "I got a job at X. I start on the 1st of April."
            if mention is not None and predicate in _STARTING and not (rule.future or rule.starts):
                mention = _ahead(sentence, mention, turn.time)
            if mention is None and rule.needs_date:
                return []
            if mention is not None and rule.future:
                objects = [f"{_TRAILING_PREP.sub('', o)} ({mention.label()})" for o in objects]
            elif mention is not None and (rule.dated or rule.starts):
                when = mention.start
        if when is None and predicate in _STARTING and rule.kind == "assert" and not rule.future:
            when = _opening_start(sentence, turn.time)
        confidence = round(max(0.1, rule.confidence - (0.1 if third else 0.0)), 2)
        if predicate == MEDIUM:
            return self._media(
                rule, objects, sentence, surface, turn, subject, when, confidence, scope, state, earlier
            )
        if predicate in (SWITCH, SWAP, CORRECT):
            old = (m.group("old") or "").strip()
            return self._replace(
                predicate, subject, old, objects[0], surface, turn, when, confidence, state, earlier
            )
        if rule.predicate in ("friend_of",):
            objects = [resolver.canonical(o) for o in objects]
        kind: str = rule.kind
        if (
            kind == "retract"
            and predicate != ANY_PREDICATE
            and (
                _STOPPED.search(sentence[m.start() :]) or _STOPPED.search(clause_prefix(sentence, m.start()))
            )
        ):
            kind = "end"  # "I don't live in Austin anymore": it held, and stopped (the past stays true)
        if kind == "end" and predicate == ANY_PREDICATE:
            held = [
                t
                for t in self._history(subject, state, earlier)[::-1]
                if _mentions(t, objects[0], strict=True)
            ][:1]
            if not held:  # "I dropped Italian": what held Italian ends; nothing if nothing did
                return []
            predicate, objects = held[0].predicate, [held[0].object]
        if kind == "end":  # stopped holding at the date said (default: the turn's time)
            return [
                FactCandidate(
                    subject=subject,
                    predicate=predicate,
                    object="" if o == PREVIOUS else o,
                    surface=surface,
                    valid_to=when,
                    source_turn_ids=[turn.turn_id],
                    confidence=confidence,
                    kind="end",
                )
                for o in objects
            ]
        facts = [
            FactCandidate(
                subject=subject,
                predicate=predicate,
                object=o,
                surface=surface,
                valid_from=when,
                source_turn_ids=[turn.turn_id],
                confidence=confidence,
                kind=rule.kind,
            )
            for o in objects
        ]
        if rule.kind == "retract":
            # the reading may differ from the turn ("i" restored, lead-in dropped): find the cue
            at = turn.text.casefold().find(m.group(0).casefold())
            before = turn.text[:at] if at >= 0 else sentence[: m.start()]
            return self._resolve_retractions(facts, turn, index, state, earlier, _states_something(before))
        if _is_correction(predicate, sentence):
            # "sorry, my number is actually ...": the earlier value was wrong, not merely replaced
            withdraw = FactCandidate(
                subject=subject,
                predicate=predicate,
                object=PREVIOUS,
                surface=surface,
                source_turn_ids=[turn.turn_id],
                confidence=confidence,
                kind="retract",
            )
            said = {f.object.casefold() for f in facts}  # two rules reading one value: it withdraws nothing
            withdrawn = self._resolve_retractions([withdraw], turn, index, state, earlier)
            return [w for w in withdrawn if w.object.casefold() not in said] + facts
        return facts

    # --- works without a medium, switches and corrections ------------------------------------------

    def _media(
        self,
        rule: Rule,
        objects: list[str],
        sentence: str,
        surface: str,
        turn: Turn,
        subject: str,
        when: datetime | None,
        confidence: float,
        scope: _Scope,
        state: _State,
        earlier: list[FactCandidate],
    ) -> list[FactCandidate]:
        """A work started or ended: reading or watching, as its history, the words around it or a
        work ended in the same turn say; an ending nothing decides ends whichever is running."""
        obj = objects[0]
        media = _medium_of(
            obj, sentence, scope.context, subject, self._history(subject, state, earlier), earlier
        )
        if media is None:
            if rule.kind != "end":
                return []
            media_list, confidence = ["reading", "watching"], min(confidence, 0.6)
        else:
            media_list = [media]
        end = rule.kind == "end"
        return [
            FactCandidate(
                subject=subject,
                predicate=p,
                object=obj,
                surface=surface,
                valid_from=None if end else when,
                valid_to=when if end else None,
                source_turn_ids=[turn.turn_id],
                confidence=confidence,
                kind="end" if end else "assert",
            )
            for p in media_list
        ]

    def _replace(
        self,
        how: str,
        subject: str,
        old: str,
        new: str,
        surface: str,
        turn: Turn,
        when: datetime | None,
        confidence: float,
        state: _State,
        earlier: list[FactCandidate],
    ) -> list[FactCandidate]:
        """ "switched from violin to cello" ends what held the old value and starts the new one;
        "it's Leeds, not Sheffield" withdraws the old value and states the new one for the same time.
        The predicate is the one the speaker's earlier fact about the old value has."""
        held: dict[tuple[str, str], FactCandidate] = {}
        for who in self._circle(subject, state, earlier, surface, how == CORRECT):
            for t in self._history(who, state, earlier)[::-1]:
                key = (t.subject, t.predicate)
                if t.kind == "assert" and key not in held and _same_value(t.object, old):
                    held[key] = t  # the latest value said of each predicate that held it
            if held:  # the speaker's own facts first, then the people they spoke about
                break
        out: list[FactCandidate] = []
        for target in held.values():
            base = {
                "subject": target.subject,
                "surface": surface,
                "source_turn_ids": [turn.turn_id],
                "confidence": confidence,
            }
            value = new if how == SWAP else _substitute(target.object, old, new)
            if how == CORRECT:
                out += [
                    FactCandidate(predicate=target.predicate, object=target.object, kind="retract", **base),
                    FactCandidate(
                        predicate=target.predicate, object=value, valid_from=target.valid_from, **base
                    ),
                ]
            else:
                out += [
                    FactCandidate(
                        predicate=target.predicate, object=target.object, valid_to=when, kind="end", **base
                    ),
                    FactCandidate(predicate=target.predicate, object=value, valid_from=when, **base),
                ]
        return out

    # --- subject and filters ---------------------------------------------------------------------

    def _subject(
        self,
        m: re.Match[str],
        sentence: str,
        turn: Turn,
        resolver: AliasResolver,
        anchor: _Anchor | None = None,
    ) -> tuple[str | None, bool]:
        groups = m.groupdict()
        name = groups.get("name")
        if not name:
            return resolver.canonical(turn.speaker), False
        if anchor is not None and anchor.group == "name" and _anchored(m, anchor):
            return resolver.canonical(name), resolver.canonical(name) != resolver.canonical(turn.speaker)
        if not self._plausible_name(name, m, sentence, resolver):
            return None, True
        return resolver.canonical(name), resolver.canonical(name) != resolver.canonical(turn.speaker)

    @staticmethod
    def _plausible_name(name: str, m: re.Match[str], sentence: str, resolver: AliasResolver) -> bool:
        """A capitalised word taken as a person only when the sentence reads that way."""
        if (
            name.lower() in NOT_NAMES
            or name.lower() in SENTENCE_ADVERBS
            or name.lower().endswith("ing")
            or name.lower() in ("everything", "nothing", "something", "anything", "life", "work")
            or resolver.is_common_word(name)
        ):
            return False
        groups = m.groupdict()
        if groups.get("vbase") or _BAD_AFTER_NAME.match(sentence[m.end("name") :]):
            return False  # "Dogs love ...": a base-form verb does not agree with one person
        if groups.get("rel"):
            return True
        before = re.search(r"([A-Za-z,']+)\s*$", sentence[: m.start("name")])
        if (
            before
            and before.group(1).lower().rstrip(",") not in _FUNCTION_WORDS
            and before.group(1)[:1].islower()
        ):
            return False  # "my dog Max loves ...": an appositive, not a person subject
        return True

    @staticmethod
    def _admissible(rule: Rule, m: re.Match[str], sentence: str, dates: Sequence[DateMention]) -> bool:
        prefix = clause_prefix(sentence, m.start())
        if m.groupdict().get("fp") and _in_relative_clause(sentence, m.start("fp"), dates):
            return False
        if sentence[: m.start()].count('"') % 2 == 1:
            return False  # inside a quotation: someone else's words
        if _HYPOTHETICAL.search(prefix) or _EMBEDDED.search(prefix):
            return False
        if not rule.negated and _NEGATION.search(prefix):
            return False
        # "a UX designer at Goanna Health now, no longer junior": what is no longer so there is
        # another attribute, said after the fact in its own clause
        tail = _ATTRIBUTE_CHANGED.sub(" ", sentence[m.start() :])
        ceased = bool(_CESSATION.search(tail) or _CESSATION.search(prefix))
        if rule.cessation == "required" and not ceased and not _CORRECTION.search(prefix):
            return False
        if rule.cessation == "stopped" and not _STOPPED.search(tail):
            return False
        return not (rule.cessation == "forbidden" and rule.kind == "assert" and ceased)

    # --- retractions -----------------------------------------------------------------------------

    def _resolve_retractions(
        self,
        facts: list[FactCandidate],
        turn: Turn,
        index: int,
        state: _State,
        earlier: list[FactCandidate],
        said_here: bool = False,
    ) -> list[FactCandidate]:
        out: list[FactCandidate] = []
        # "Please forget that" both withdraws and asks to forget: the request it records is not
        # among what it withdraws.
        earlier = [f for f in earlier if f.predicate != "forget_request"]
        for fact in facts:
            if fact.predicate == ANY_PREDICATE and fact.object == PREVIOUS:
                targets = self._previous_statement(fact.subject, turn, index, state, earlier, said_here)
            elif fact.predicate == ANY_PREDICATE:
                targets = [
                    t for t in self._history(fact.subject, state, earlier)[::-1] if _mentions(t, fact.object)
                ][:1]
            else:
                candidates = [
                    t for t in self._history(fact.subject, state, earlier) if t.predicate == fact.predicate
                ]
                if fact.object == PREVIOUS:
                    targets = candidates[-1:] or [fact.model_copy(update={"object": ""})]
                elif fact.object == AHEAD:  # what was planned to start after now
                    targets = [t for t in candidates if t.valid_from is not None and t.valid_from > turn.time]
                else:
                    same = [t for t in candidates if _same_object(t.object, fact.object)]
                    targets = same[-1:] or [fact]
            out.extend(
                fact.model_copy(update={"predicate": t.predicate, "object": t.object}) for t in targets
            )
        return out

    @staticmethod
    def _history(subject: str, state: _State, earlier: list[FactCandidate]) -> list[FactCandidate]:
        """What the subject said before this point: the ledger's facts, then this run's, oldest first."""
        known = state.known(subject) if state.known is not None else []
        return (
            known
            + [s.fact for s in state.said if s.fact.subject == subject]
            + [f for f in earlier if f.subject == subject and f.kind == "assert"]
        )

    def _called_off(
        self, text: str, turn: Turn, resolver: AliasResolver, state: _State, facts: list[FactCandidate]
    ) -> list[FactCandidate]:
        """Withdrawals of plans the turn calls off by any name: the words before the cue (or, for
        "that's not happening", the words said before it in the turn) are matched against the
        plans the speaker and the people they spoke about hold, by their values."""
        speaker = resolver.canonical(turn.speaker)
        out: list[FactCandidate] = []
        cues = [(m, m.group("np")) for m in _CALLED_OFF.finditer(text)]
        cues += [(m, m.group("np") or m.group("np2") or m.group("np3")) for m in _TURNED_DOWN.finditer(text)]
        for m, np in cues:
            if (
                _NEGATION.search(np)
                or _HYPOTHETICAL.search(np)
                or _CONDITION.search(clause_prefix(text, m.start()))
            ):
                continue  # "it's not off", "if the trip is cancelled", "If Oslo is cancelled we'll ..."
            said = [
                w
                for w in re.findall(r"[\w-]+", re.sub(r"'s\b", "", np))
                if w.lower() not in _PLAN_NOUNS
                and w.lower() not in _CALENDAR
                and w.lower() not in _FUNCTION_WORDS
                and w.lower() not in _PLAIN_WORDS
                and len(w) > 2
            ]
            named = said[-2:] if said else []
            if not named and re.sub(r"'s$", "", np.split()[-1].lower()) in _ANAPHORA:
                named = [
                    w
                    for w in _CAP_WORD.findall(text[: m.start()])
                    if w.lower() not in _FUNCTION_WORDS and w.lower() not in _CALENDAR and w != "I"
                ][-2:]
            words = {w.lower().removesuffix("'s") for w in named} - {"i"}
            if not words:
                continue
            surface = turn.text[max(0, m.start() - 40) : m.end()].strip()
            for who in self._circle(speaker, state, facts, m.group(0), True):
                plans = [
                    t
                    for t in self._history(who, state, facts)
                    if t.kind == "assert"
                    and (t.predicate == "plans_to" or (t.valid_from is not None and t.valid_from > turn.time))
                    and words & _words(t.object)
                ]
                # the latest plan named, and with it a move or job it had dated ahead ("planning to
                # move to Berlin this summer" holds Berlin from June: "not Berlin after all" ends both)
                latest = {t.predicate: t for t in plans}
                for t in latest.values():
                    withdraw = _withdrawal(t, surface, turn)
                    if not any(
                        (f.kind, f.subject, f.predicate, f.object)
                        == ("retract", t.subject, t.predicate, t.object)
                        for f in [*facts, *out]
                    ):
                        out.append(withdraw)
                        out.extend(self._instead(t, words, text[m.end() :], withdraw, facts))
        return out

    @staticmethod
    def _instead(
        plan: FactCandidate, words: set[str], after: str, withdraw: FactCandidate, facts: list[FactCandidate]
    ) -> list[FactCandidate]:
        """ "the Madrid program got cancelled ... I'll do the exchange in Lisbon instead": the plan
        called off, with its named value replaced by the value of the same kind said with "instead"
        (nothing when a rule already read a plan naming that value)."""
        m = re.search(r"[^.!?]*\binstead\b", after, re.IGNORECASE)
        if m is None:
            return []
        old = [w for w in re.findall(r"[\w'-]+", plan.object) if w.lower() in words and w[:1].isupper()]
        if not old:
            return []
        new = typed_replacement(old[-1], m.group(0), {plan.subject})
        if new is None or any(f.kind == "assert" and new.lower() in f.object.lower() for f in facts):
            return []
        return [
            withdraw.model_copy(
                update={"object": _substitute(plan.object, old[-1], new), "kind": "assert", "confidence": 0.7}
            )
        ]

    def _referred(
        self, speaker: str, clause: str, state: _State, earlier: list[FactCandidate]
    ) -> FactCandidate | None:
        """The latest fact of the speaker's (or of someone they spoke about) whose value the clause
        they say they said holds ("did I say the climbing was on tuesday?")."""
        for who in self._circle(speaker, state, earlier, clause, True):
            held = [
                t
                for t in self._history(who, state, earlier)
                if t.kind == "assert" and t.predicate not in _NOT_CORRECTED and _same_value(clause, t.object)
            ]
            if held:
                return held[-1]
        return None

    def _corrected(
        self, target: FactCandidate, frame: re.Match[str], after: str, turn: Turn, facts: list[FactCandidate]
    ) -> list[FactCandidate]:
        """The turn's facts once the referred-to value is put right: a new value of the same fact
        said after the reference replaces it; else the first value of the same kind said after it
        ("I meant thursday")."""
        surface = turn.text[frame.start() : frame.end() + len(after)].strip()[:300]
        withdraw = _withdrawal(target, surface, turn)
        same = [
            f
            for f in facts
            if f.kind == "assert" and (f.subject, f.predicate) == (target.subject, target.predicate)
        ]
        if same:
            if all(_same_object(f.object, target.object) for f in same):
                return facts
            done = any(
                f.kind == "retract"
                and (f.subject, f.predicate, f.object)
                == (withdraw.subject, withdraw.predicate, withdraw.object)
                for f in facts
            )
            return facts if done else [withdraw, *facts]
        clause = frame.group("clause")
        old = " ".join(
            w for w in target.object.split() if re.search(rf"\b{re.escape(w)}\b", clause, re.IGNORECASE)
        )
        new = typed_replacement(old or target.object, after, {target.subject, turn.speaker})
        if new is None:
            return facts
        value = _substitute(target.object, old, new) if old else new
        return [
            *facts,
            withdraw,
            withdraw.model_copy(update={"object": value, "kind": "assert", "valid_from": target.valid_from}),
        ]

    def _circle(
        self, speaker: str, state: _State, earlier: list[FactCandidate], surface: str, others: bool
    ) -> list[str]:
        """Whose facts a correction may put right, nearest first: the speaker, then (`others`) the
        people named in the correcting sentence, then the relatives and friends the speaker named
        before ("not peanuts for Felix, it's sesame"; "my sister ... it's Nice, not Marseille")."""
        people = [speaker]
        if not others:
            return people
        mentioned = [
            n for n in re.findall(r"\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+\b", surface) if n not in NOT_NAMES
        ]
        related = [
            name
            for f in self._history(speaker, state, earlier)
            if (name := named_value(f.object) or (f.object if f.predicate == "friend_of" else None))
        ]
        said = [s.fact.subject for s in state.said if s.speaker == speaker]
        said += [f.subject for f in earlier]
        for name in [*mentioned, *related[::-1], *said[::-1]]:
            if name not in people:
                people.append(name)
        return people

    def _previous_statement(
        self,
        subject: str,
        turn: Turn,
        index: int,
        state: _State,
        earlier: list[FactCandidate],
        said_here: bool = False,
    ) -> list[FactCandidate]:
        """What "scratch that" withdraws: the speaker's earlier facts in this turn, else their
        facts from their latest fact-bearing turn, if recent and in the same session. When the
        turn itself said something before the cue that no rule read ("my SIN is 046 454 286,
        please forget that"), "that" is that, not an older fact: nothing is withdrawn."""
        same_turn = [f for f in earlier if f.kind == "assert"]
        if same_turn:
            return same_turn
        if said_here:
            return []
        mine = [
            s
            for s in state.said
            if s.speaker == subject
            and s.session_id == turn.session_id
            and index - s.index <= self.lookback_turns
            and s.fact.predicate != "forget_request"
        ]
        if not mine:
            return []
        last = mine[-1].index
        return [s.fact for s in mine if s.index == last]


_FILLER = _FUNCTION_WORDS | frozenset("ah ugh uh please".split())
"""Words that say nothing of their own before a retraction cue: the function words and a few
interjections."""


def _states_something(text: str) -> bool:
    """Whether words said before a retraction cue state something of their own (a number, a
    name, or several words beyond fillers and function words), so that "that" can point at them;
    "Oh wait, I was wrong about that, scratch that" states nothing of its own."""
    if re.search(r"\d", text):
        return True
    if any(
        w.lower() not in NOT_NAMES for w in re.findall(r"(?<=[a-z,;] )[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+", text)
    ):
        return True  # a name mid-sentence ("my ex Joost keeps calling, forget that")
    words = [w for w in re.findall(r"[^\W_]+", text.lower()) if w not in _FILLER]
    return len(words) >= 6


def _in_relative_clause(sentence: str, start: int, dates: Sequence[DateMention]) -> bool:
    """ "the post I made last week": a subject right after a noun opens a relative clause, whose
    verb says nothing new about the speaker. Date phrases and adverbs ("Last week I ...") do not."""
    before = re.search(r"([A-Za-z']+)\s+$", sentence[:start])
    if before is None:
        return False
    word = before.group(1)
    if not word[:1].islower() or word in _FUNCTION_WORDS or word.endswith(("ly", "wise")):
        return False
    return not any(d.span[1] == before.end(1) for d in dates)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in {"a", "an", "the", "my", "our"}}


def _same_object(known: str, said: str) -> bool:
    """ "a new car" and "car" name the same thing; so do "Google" and "google"."""
    k, s = _words(known), _words(said)
    if not k or not s:
        return False
    return k == s or k <= s or s <= k or (known.split()[-1].lower() == said.split()[-1].lower())


def _mentions(fact: FactCandidate, phrase: str, strict: bool = False) -> bool:
    """Whether `fact` is about `phrase`: shares a word with its object or surface (`strict`: its
    object holds every word of the phrase)."""
    words = _words(phrase) - {"about", "that", "moving", "living", "working", "being", "having"}
    if strict:
        return bool(words) and words <= _words(fact.object)
    return bool(words) and bool(words & (_words(fact.object) | _words(fact.surface)))


def _same_value(known: str, said: str) -> bool:
    """ "playing violin" holds "violin"; "Sheffield" is "sheffield"."""
    k, s = _words(known), _words(said)
    return bool(s) and s <= k


def _substitute(known: str, old: str, new: str) -> str:
    """The known value with the old words put right ("playing violin" -> "playing cello"); the new
    value as said when it already holds the rest of the known one ("+1 415 555 0199" with "0199"
    put right by "+1 415 555 0191")."""
    if _words(known) - _words(old) <= _words(new):
        return new
    pattern = re.compile(r"\b" + r"\s+".join(map(re.escape, old.split())) + r"\b", re.IGNORECASE)
    return pattern.sub(new, known, count=1) if pattern.search(known) else new


_MEDIA = ("reading", "watching")


def _medium_of(
    title: str,
    sentence: str,
    context: str,
    subject: str,
    history: list[FactCandidate],
    earlier: list[FactCandidate],
) -> str | None:
    """Reading or watching, for a title said without its medium: what the speaker said of the same
    title before, else the medium words of the sentence, then of the turn and its neighbours (the
    title's own words aside), else the medium of a work the same turn ended or started."""
    key = _words(title)
    for f in [*history, *earlier][::-1]:
        if f.predicate in _MEDIA and f.subject == subject and _words(f.object) == key:
            return f.predicate
    for text in (sentence, context):
        medium = medium_by_cues(text.replace(title, " "))
        if medium:
            return medium
    siblings = {f.predicate for f in earlier if f.predicate in _MEDIA and f.subject == subject}
    if len(siblings) == 1:
        return siblings.pop()
    # "Finished Creation Lake. I'm onto Tomb of Sand now": the medium of the work just ended, as
    # its history says, when the ending itself could not tell
    ended = {
        frozenset(_words(f.object))
        for f in earlier
        if f.kind == "end" and f.predicate in _MEDIA and f.subject == subject
    }
    for f in history[::-1]:
        if f.kind == "assert" and f.predicate in _MEDIA and frozenset(_words(f.object)) in ended:
            return f.predicate
    return None


_AFFIRM = re.compile(
    r"^\W*(?:yes|yep|yeah|yup|correct|exactly|indeed|that's\s+(?:right|correct|true)|right|sure\s+(?:am|do)|"
    r"I\s+(?:do|am|have))\b(?!\s*,?\s*but\b)",
    re.IGNORECASE,
)
_SECOND_PERSON = re.compile(r"\byou(?:'re|'ve|'ll)?\b|\byour\b", re.IGNORECASE)
_TAG = re.compile(
    r"\s*,?\s*(?:right|correct|is\s+that\s+(?:right|correct)|isn't\s+it|don't\s+you|aren't\s+you|haven't\s+you|"
    r"didn't\s+you|no|yes|yeah)?\s*\?+\s*$",
    re.IGNORECASE,
)
_TO_FIRST = (
    (re.compile(r"^(?:(?:so|and|oh|now)\s*,?\s+)?(?:are\s+you|you\s+are|you're)\b", re.I), "I am"),
    (re.compile(r"^(?:(?:so|and|oh|now)\s*,?\s+)?(?:have\s+you|you\s+have|you've)\b", re.I), "I have"),
    (re.compile(r"^(?:(?:so|and|oh|now)\s*,?\s+)?(?:do\s+you|you)\b", re.I), "I"),
    (re.compile(r"\byou're\b", re.I), "I'm"),
    (re.compile(r"\byou've\b", re.I), "I've"),
    (re.compile(r"\byourself\b", re.I), "myself"),
    (re.compile(r"\byours\b", re.I), "mine"),
    (re.compile(r"\byour\b", re.I), "my"),
    (re.compile(r"\byou\b", re.I), "me"),
)


def first_person(guess: str) -> str | None:
    """The agent's second-person question as the user's statement: "You live in Boston, right?" ->
    "I live in Boston." (None when it does not read as a guess about the user)."""
    text = _TAG.sub("", guess.translate(_APOSTROPHES)).strip()
    if not re.match(
        r"^(?:(?:so|and|oh|now)\s*,?\s+)?(?:are\s+you|have\s+you|do\s+you|you|your)\b", text, re.I
    ):
        return None
    for pattern, repl in _TO_FIRST:
        text = (
            pattern.sub(repl, text, count=1) if pattern.pattern.startswith("^") else pattern.sub(repl, text)
        )
    return text[:1].upper() + text[1:] + "."


def _is_correction(predicate: str, sentence: str) -> bool:
    """A single-valued fact said as a correction ("sorry", "actually", "I mean") rather than as a
    change ("now", "anymore", "since")."""
    return (
        builtin_cardinality(predicate) == Cardinality.SINGLE
        and bool(_CORRECTING.search(sentence))
        and not _CHANGE.search(sentence)
    )


def _same_breath(fact: FactCandidate, earlier: list[FactCandidate]) -> list[FactCandidate]:
    """`fact`, preceded by the withdrawal of a different value of the same single-valued fact said
    earlier in the same turn for the same time ("Leo is 6. Sorry, Leo is 7 now."): the later
    word wins instead of leaving two values the ledger cannot order."""
    if fact.kind != "assert" or builtin_cardinality(fact.predicate) != Cardinality.SINGLE:
        return [fact]
    said = [
        f
        for f in earlier
        if f.kind == "assert"
        and (f.subject, f.predicate) == (fact.subject, fact.predicate)
        and f.valid_from == fact.valid_from
        and f.object.lower() != fact.object.lower()
    ]
    withdrawn = {f.object.lower() for f in earlier if f.kind == "retract" and f.predicate == fact.predicate}
    changed = bool(_CHANGE_VERB.search(fact.surface)) and not _CORRECTING.search(fact.surface)
    return [
        f.model_copy(update={"kind": "end", "surface": fact.surface, "valid_to": None})
        if changed
        else f.model_copy(update={"kind": "retract", "surface": fact.surface})
        for f in said[-1:]
        if f.object.lower() not in withdrawn
    ] + [fact]


def _withdrawal(fact: FactCandidate, surface: str, turn: Turn) -> FactCandidate:
    """The retraction of an earlier fact that a later turn called off or put right: it names the
    fact's exact value, so the engine withdraws that revision and nothing else. A plan held since
    an earlier session and called off now was a plan until now ("What was Kenji planning to buy
    in June?" still has an answer): it ends at this turn instead of being withdrawn from the start."""
    ends = fact.predicate == "plans_to" and fact.valid_from is not None and fact.valid_from < turn.time
    return FactCandidate(
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
        surface=surface,
        source_turn_ids=[turn.turn_id],
        confidence=0.8,
        kind="end" if ends else "retract",
        valid_to=turn.time if ends else None,
    )
