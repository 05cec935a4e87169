"""Forget requests said in conversation, and what each one withholds (pure; the one place for it).

A user who says "please forget my social security number" has not called `Memory.forget`; the turn
is stored like any other. Consolidation records the request in the ledger (predicate
`forget_request`, subject = the user, object = the topic, sources = the turn), so it is auditable
in `history` and can be revoked like any fact. This module turns those revisions into matchers and
says, for a turn's text or a fact, which request withholds it.

A topic covers what a small table says it covers: "medical information" the health_condition and
allergy facts and turns using medical words; "phone number" the phone predicate and phone-shaped
strings; "social security number" SSN-shaped strings and the words; a person's name every turn and
fact naming that person. A topic outside the table covers turns holding all its content words.

Policy (`Memory(forget_policy=...)`, else EMEM_FORGET_POLICY): `withhold` (default) - the read path
withholds matching content from every read from the request's known time on and says the user asked
to forget it; `erase` - consolidation also erases the matching turns through `Memory.forget`;
`ignore` - requests are recorded but withhold nothing.

Pass the time of the read (now) as `known_at`, not a question's as-of time: a request also covers
questions about the past.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from itertools import combinations
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from emem.errors import InputError
from emem.index.porter import stem
from emem.ledger.predicates import subject_key
from emem.timeparse import MONTH_NAMES, MONTHS

ForgetPolicy = Literal["withhold", "erase", "ignore"]
POLICIES: tuple[ForgetPolicy, ...] = ("withhold", "erase", "ignore")
POLICY_ENV = "EMEM_FORGET_POLICY"
PREDICATE = "forget_request"
SAID_PREFIX = "said: "
"""A topic that is a statement ("said: I have early cataracts."), recorded for a request that
points back ("Please forget that"): it withholds exactly the turns that hold the statement."""


def forget_policy(value: str | None = None) -> ForgetPolicy:
    """The policy given, else EMEM_FORGET_POLICY, else "withhold"; InputError for anything else."""
    raw = value if value is not None else os.environ.get(POLICY_ENV) or "withhold"
    policy = str(raw).strip().lower()
    if policy not in POLICIES:
        where = "forget_policy" if value is not None else POLICY_ENV
        raise InputError(f"forget policy must be one of {', '.join(POLICIES)}, got {raw!r}", where)
    return policy  # type: ignore[return-value]


def policy_withholds(policy: ForgetPolicy) -> bool:
    """Whether reads withhold what requests name (withhold and erase do; ignore does not)."""
    return policy != "ignore"


# --- value shapes and word lists ----------------------------------------------------------------

SSN = r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)"
PHONE = (
    r"(?<![\d-])(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{3}\)|\d{3})[\s.-]?\d{3}[\s.-]?\d{4}(?![\d-])"
    r"|(?<![\w+-])(?=\+?(?:\d[\s.-]?){9,})(?:\+\d{1,3}[\s.-]?|0)\d{1,4}(?:[\s.-]?\d{2,4}){1,4}(?![\w-])"
)
"""A phone number: North American groups, or an international or national one (+44 7700 900412,
07700 900412, 06 4821 7730): a leading + or 0 and nine or more digits in groups."""
EMAIL = r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
STREET = (  # case-sensitive: "5 miles down the road" is not an address
    r"(?:\b\d{1,5}\s+(?:[A-Z][\w'-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|"
    r"Court|Ct|Way|Place|Pl|Terrace|Close|Crescent)\b\.?)"
)
IBAN = r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}(?:\s?[A-Z0-9]{1,3})?\b"
CARD = r"(?<![\d-])(?:\d{4}[\s-]?){3}\d{4}(?![\d-])"
"""Bank shapes: an IBAN, a 16-digit card number (a sort code looks like a date: its words find it)."""
AMOUNT = (
    r"(?i:(?<![\d.])\d[\d,.]*\s*(?:k\s+)?(?:lei|euros?|eur|pounds?|dollars?|usd|gbp|chf|francs?|kr|sek|nok|dkk|zloty|"
    r"yen|rupees?)\b|[€$£]\s?\d[\d,.]*(?:\s*k\b)?)"
)
"""A sum of money (digits with a currency): "9,800 lei a month" is a salary without the word."""
MEDICATION_WORDS = (
    r"\b(?:prescri\w*|medications?|meds|medicines?|pills?|tablets?|doses?|dosage|antidepressants?|"
    r"antibiotics?|inhalers?|insulin|\d+\s?(?:mg|mcg|ml)|sertraline|fluoxetine|citalopram|escitalopram|"
    r"metformin|lisinopril|levothyroxine|ibuprofen|paracetamol|\w+statins?|\w+prazole)\b"
)
"""Words and shapes of medication, what is taken and how much: "I take sertraline 50mg"."""
MEDICAL_WORDS = (
    r"\ba&e\b|\b(?:medical|health|doctors?|hospital|clinic|diagnos\w*|therap(?:y|ies|ist)|physio\w*|gp|"
    r"surgery|symptoms?|illness|disease|injur(?:y|ies|ed)|tendin\w*|sprain\w*|fractur\w*|allerg\w*|asthma|"
    r"diabet\w*|cancer|depression|anxiety|adhd|migraines?|blood\s+pressure|hypertension|arthritis|chemo\w*|"
    r"pregnan\w*|infection|covid|psychiatr\w*)\b|" + MEDICATION_WORDS
)
"""Medical words, and medication's: "I take sertraline 50mg" is medical information without the
word."""
_DEBT_WORDS = (
    r"\b(?:debts?|owe[sd]?|owing|loans?|overdrafts?|arrears|bankrupt\w*|borrow(?:ed|ing)?|in\s+the\s+red|"
    r"credit\s+cards?|payday|repayments?|bailiffs?|ccj|county\s+court\s+judg(?:e)?ments?|sav(?:ed|ings?)|"
    r"deposit|mortgage|(?:months?|weeks?)\s+behind|behind\s+(?:with|on)\s+(?:the\s+|her\s+|his\s+|my\s+)?"
    r"(?:rent|payments?|mortgage))\b"
)
"""Words of debts and savings, with or without a sum ("Gudrun's three months behind")."""


class Topic(NamedTuple):
    """One row of the table: how a request's topic is recognised and what it then covers."""

    cue: str
    """Regex (case-insensitive) that recognises the topic in the request's words."""
    predicates: tuple[str, ...]
    """Facts with these predicates (about the requester) are withheld."""
    words: str | None
    """Regex (case-insensitive) for turn text that talks about the topic."""
    shapes: tuple[str, ...] = ()
    """Regexes for the values themselves (in turns and in fact objects)."""


TOPICS: tuple[Topic, ...] = (
    Topic(r"\bsocial\s+security\b|\bssn\b", (), r"\bsocial\s+security\b|\bssn\b", (SSN,)),
    Topic(
        r"\b(?:phone|cell|mobile|telephone)\b|^(?:(?:my|[A-Z][\w-]*['’]s)\s+)?number$",
        ("phone",),
        r"\b(?:phone|cell\s+number|mobile\s+number|telephone)\b|\bmy\s+(?:number|mobile|cell)\b",
        (PHONE,),
    ),
    Topic(r"\be-?mails?\b", ("email",), r"\be-?mail\b", (EMAIL,)),
    Topic(r"\b(?:home\s+)?address\b", ("address",), r"\baddress\b", (STREET,)),
    Topic(
        r"^(?:(?:the|my|our|that)\s+)?hiding\s+(?:spot|place)$|\bwhere\s+(?:\w+\s+){0,3}(?:is|are)\s+hidden\b",
        (),
        r"\b(?:hid|hide|hides|hidden|stash(?:ed)?)\b",
    ),
    Topic(
        r"\bwhere\s+(?:I|we)\s+live\b",
        ("lives_in", "address"),
        r"\b(?:live|living|moved|moving|relocat\w+)\s+(?:in|to|at)\b",
        (STREET,),
    ),
    Topic(
        r"\b(?:medical|health|diagnos\w*|illness|conditions?)\b",
        ("health_condition", "allergy"),
        MEDICAL_WORDS,
    ),
    # Therapy is the mind's care, not every medical word: "forget the therapy stuff" leaves a
    # child's kiwi allergy answerable.
    Topic(
        r"\b(?:therap(?:y|ies|ists?)|counsell?(?:ing|ors?))\b",
        (),
        r"\b(?:therap(?:y|ies|ists?)|counsell?(?:ing|ors?)|psycholog\w*|psychiatr\w*|mental\s+health|anxiety|"
        r"depression|depressed|panic\s+attacks?|antidepressants?|sertraline|fluoxetine|citalopram|escitalopram)\b",
    ),
    # Medication is what is taken, not every medical word: "forget my medication" leaves a
    # child's allergy answerable.
    Topic(r"\b(?:medications?|meds|prescriptions?)\b", (), MEDICATION_WORDS),
    Topic(
        r"\b(?:date\s+of\s+birth|birth\s*date|birthday|dob|when\s+I\s+was\s+born|age)\b",
        ("birthday", "age"),
        r"\b(?:date\s+of\s+birth|birth\s*date|birthday|dob|born\s+(?:on|in)|years?\s+old)\b",
    ),
    Topic(r"\ballerg\w*", ("allergy",), r"\ballerg\w*"),
    # A pregnancy is said without the word "baby" ("Ludmila is pregnant, due in March"): "the baby
    # news" covers the pregnancy's words.
    Topic(
        r"\b(?:bab(?:y|ies)|pregnan\w*)\b",
        (),
        r"\b(?:pregnan\w*|expecting\s+(?:a\s+baby|a\s+little|twins)|bab(?:y|ies)|due\s+date|maternity|paternity)\b",
    ),
    # Body weight: "forget my weight" covers "I'm 84 kilos", said without the word.
    Topic(
        r"\bweigh(?:t|ts|s|ed|ing)?\b",
        (),
        r"\bweigh(?:t|ts|s|ed|ing)?\b|\b\d+(?:\.\d+)?\s*(?:kilos?|kgs?|lbs?|stone)\b",
    ),
    Topic(
        r"\bdiet\b|\beating\s+habits\b",
        ("diet",),
        r"\b(?:diet|vegetarian|vegan|keto|pescatarian|paleo|gluten[- ]free)\b",
    ),
    Topic(
        r"\b(?:job|work|employer|career)\b|\bwhere\s+I\s+work\b",
        ("works_at", "job_title"),
        r"\b(?:job|employer|boss|coworkers?|colleagues?|(?:work|working|worked)\s+(?:at|for|as))\b",
    ),
    # Bank and card details: "forget my bank details" covers the account number said as
    # "payouts go to account 41558806, sort code 20-45-77", in whatever words.
    Topic(
        r"\b(?:bank(?:ing)?|account\s+(?:numbers?|details|no)|sort\s+codes?|iban|routing\s+numbers?|"
        r"(?:credit|debit|bank)\s+cards?|card\s+(?:numbers?|details))\b",
        (),
        r"\b(?:bank(?:ing)?|accounts?\s+(?:numbers?|no\b)|sort\s+codes?|iban|routing\s+numbers?|swift|"
        r"(?:credit|debit|bank)\s+cards?|card\s+numbers?|cvv|(?:business|current|savings|checking)\s+account)\b",
        (IBAN, CARD),
    ),
    # Debts: "forget what I told you about Gareth's debts" covers "he owes about £18,000 on credit
    # cards" by its words; money in general ("the money details", "my finances") covers every sum.
    Topic(r"\b(?:debts?|loans?|overdraft|arrears)\b", (), _DEBT_WORDS),
    Topic(
        r"\b(?:money\s+(?:problems|troubles|worries|details)|finances?|financial|savings)\b",
        (),
        _DEBT_WORDS + "|" + AMOUNT,
    ),
    # A bankruptcy is an event, not every sum said since: its words, not the amounts.
    Topic(r"\bbankrupt\w*|\binsolven\w*", (), _DEBT_WORDS + r"|\bwent\s+under\b|\binsolven\w*"),
    # What someone earns is not where they work: "forget my salary" leaves the employer answerable.
    Topic(
        r"\b(?:salary|salaries|wages?|pay|income|earnings|how\s+much\s+I\s+(?:earn|make))\b",
        (),
        r"\b(?:salary|salaries|wages?|pay\s*(?:rise|raise|cut|check|cheque|slip)s?|payslips?|(?:a|my|the)\s+raise|"
        r"earn\w*|income)\b|(?<!charge\s)(?<!charges\s)(?<!charging\s)(?<!charged\s)"
        + AMOUNT
        + r"\s+(?:a|an|per)\s+(?:hour|week|month|year)\b",
    ),
    # (A price the user charges, "I charge £38 an hour", is not what they are paid.)
    Topic(
        r"\b(?:school|schools|nursery|college|university|uni|classes|teachers?)\b",
        ("studies",),
        r"\b(?:schools?|primary|secondary|nursery|academy|college|university|uni|kindergarten|preschool|"
        r"teachers?|classmates?|year\s+\d+|grade\s+\d+)\b",
    ),
    Topic(
        r"\b(?:relationship|dating|boyfriend|girlfriend|partner|husband|wife|divorce|marriage|separation)\b",
        ("relationship_status", "has_partner"),
        r"\b(?:relationship|dating|boyfriend|girlfriend|partner|husband|wife|divorced?|married|marriage|engaged|"
        r"separat(?:ed|ing|ion)|split\s+up|ex(?:-\w+)?)\b",
    ),
    # "my ex" is one person, not every partner: the words that name an ex.
    Topic(
        r"\bex(?:-\w+)?\b",
        (),
        r"\bex(?:-(?:husband|wife|partner|boyfriend|girlfriend|fianc\w+))?\b|"
        r"\bformer\s+(?:husband|wife|partner|boyfriend|girlfriend)\b",
    ),
)

_STOP = frozenset(
    """my our me i the a an about what that which said told you your all any of on in to for and or
    information info details detail data stuff things thing everything anything something personal
    private history records record bit bits whole
    be being been is was were are am got get gets getting had has have having it its""".split()
)
_MODIFIERS = frozenset(
    """old new current previous former latest full home personal exact real actual own
    number numbers name names trip trips visit visits""".split()
)
"""Words that say which value of a topic, not what the topic is: "my old address" is the address
row, not turns that say "old"."""
_SECRET_HEADS = frozenset("code codes pin password passcode passphrase combination login".split())
"""Words that name a secret: a topic ending in one is that secret, whatever the words before it."""
_PROPER = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
"""Capitalised words in a topic name one thing ("Alder Road"), which narrows what the topic covers."""
_NAME = re.compile(r"^[A-Z][a-z]+(?:[\s-][A-Z][a-z]+)?$")
_ACRONYM = re.compile(r"^[A-Z]{2,6}s?$")
"""A word in capitals ("PIN", "SSN") is a common noun written short, not a name: "my bank PIN"
is every turn that says the PIN, not a person or place called PIN."""


class _Matcher(NamedTuple):
    predicates: tuple[str, ...]
    words: str | None
    """Regex over the lowercased turn text (the topic's words); written in lowercase."""
    shapes: str | None
    """Regex over the text as written and over fact values (SSN, phone, email, street shapes)."""
    names: str | None
    """Case-sensitive regex for the people a request is about (turns, values and subjects)."""
    owners: tuple[str, ...] = ()
    """Whose facts `predicates` withholds when the topic names someone else ("Theo's job");
    empty: the requester's own."""


@lru_cache(maxsize=1024)
def matcher(topic: str) -> _Matcher:
    """What a topic covers, derived from the table (cached: requests are rebuilt on every read)."""
    topic = " ".join(topic.split())
    if topic.startswith(SAID_PREFIX):
        words = re.findall(r"\w+", topic[len(SAID_PREFIX) :].lower())
        said = r"\W+".join(map(re.escape, words))
        return _Matcher((), rf"\b{said}\b" if words else None, None, None)
    rows = [t for t in TOPICS if re.search(t.cue, topic, re.IGNORECASE)]
    if not rows and not re.search(r"\b[A-Z][a-z]", topic):
        # (A topic naming someone is narrowed by the name below: "owing Teodoro money".)
        using = [t for t in TOPICS if t.words and re.search(t.words, topic.lower())]
        if using:
            return _said_in_rows(topic, using)
    proper = [
        n.removesuffix("'") if n.endswith("s'") else n  # "the Gowdas' address": the Gowdas
        for n in _PROPER.findall(topic)
        if n != "I" and not _ACRONYM.match(n) and not any(re.search(t.cue, n, re.IGNORECASE) for t in TOPICS)
    ]
    owners = [n[:-2] for n in proper if n.endswith("'s") and _NAME.match(n[:-2])]
    owners += [n for n in proper if f"{n}'" in topic and n.endswith("s") and _NAME.match(n)]
    if rows and owners:
        # "Theo's new job": the topic's facts about Theo, and turns naming Theo with the topic's
        # words or a value of its shape ("Ms Tachibana ... Her number is 078-391-5527"); Theo's
        # dog is not part of it
        words = [t.words for t in rows if t.words] + [s for t in rows for s in t.shapes if s != STREET]
        name = "|".join(re.escape(o.casefold()) for o in owners)
        if any("phone" in t.predicates for t in rows):
            words.append(rf"\b(?:(?:{name})['’]s|his|her|their)\s+number\b")  # "Robin's number is ..."
        if any("address" in t.predicates for t in rows):
            # "the Gowdas' address": "Their place is 14, 3rd Street", "Where do the Gowdas live?"
            words.append(r"\b(?:his|her|their)\s+(?:place|house|flat)\s+is\b|\blives?\b|\bliving\b")
        every = f"(?s:^(?=.*\\b(?:{name})\\b)(?=.*(?:{_join(words)})))" if words else None
        preds = tuple(dict.fromkeys(p for t in rows for p in t.predicates))
        return _Matcher(preds, every, None, None, tuple(owners))
    if rows and proper:
        # "the old Alder Road address": only what names Alder Road, not every address
        names = "|".join(rf"\b{re.escape(n)}\b" for n in proper)
        return _Matcher((), None, None, names)
    if rows:
        words = [t.words for t in rows if t.words]
        narrower = qualifiers(topic, rows)
        if narrower and words:
            # "my knee diagnosis": turns with a medical word that also say "knee", not every
            # medical word (the hospital the user works at); facts go with the turns they were
            # read from
            every = "".join(rf"(?=.*\b{_word_stem(w)})" for w in narrower)
            return _Matcher((), f"(?s:^{every}(?=.*(?:{_join(words)})))", None, None)
        preds = tuple(dict.fromkeys(p for t in rows for p in t.predicates))
        shapes = list(dict.fromkeys(s for t in rows for s in t.shapes))
        return _Matcher(preds, _join(words), _join(shapes), None)
    bare = re.sub(r"^(?:about\s+)?(?:my|our)\s+", "", topic).strip(" .!?,")
    if _NAME.match(bare) and bare.casefold() not in _STOP:
        return _Matcher((), None, None, rf"\b{re.escape(bare)}(?:'s)?\b")
    content = _content_words(topic)
    if not content:
        return _Matcher((), None, None, None)
    named = {n.casefold() for n in _PROPER.findall(topic) for n in n.split()} - {"i"}
    anchors = [w for w in content if w in named]
    rest = [w for w in content if w not in named]
    if anchors and len(rest) > 1:
        # "owing Teodoro money", "Chiamaka's fiancé being posted abroad": the person named, and
        # most of the other words (a request paraphrases what was said: "I owe my brother
        # Teodoro three thousand euros" has no "money")
        fixed = "".join(rf"(?=.*\b{_word_stem(w)})" for w in anchors)
        return _Matcher((), f"(?s:^{fixed}(?:{_some_of(rest, (len(rest) + 1) // 2)}))", None, None)
    if len(content) > 1 and content[-1] in ("name", "names"):
        content = content[:-1]  # "that patient's name": the turn naming the patient says it
    if len(content) >= 3 and content[-1] in _SECRET_HEADS:
        # "the honey-house combination": the secret itself (its word, or a value of digits) and
        # what says whose, not every turn about the honey house
        head = rf"(?=.*(?:\b{_word_stem(content[-1])}|\d[\d\s.-]{{1,}}\d))"
        return _Matcher((), f"(?s:^{head}(?:{_some_of(content[:-1], 1)}))", None, None)
    if len(content) >= 3:
        # "the spare key hiding place": a request describes what was said in its own words (the
        # turn said "under the blue flowerpot"): half its words, two at least, name the turn
        return _Matcher((), f"(?s:^(?:{_some_of(content, max(2, (len(content) + 1) // 2))}))", None, None)
    every = "".join(rf"(?=.*\b{_word_stem(w)})" for w in content)
    return _Matcher((), f"(?s:^{every})", None, None)


def _some_of(words: Sequence[str], need: int) -> str:
    """A regex alternation that holds when a text says `need` of `words` (each by its family)."""
    return "|".join(
        "".join(rf"(?=.*\b{_word_stem(w)})" for w in group) for group in combinations(words, need)
    )


def _said_in_rows(topic: str, rows: Sequence[Topic]) -> _Matcher:
    """A topic that names no row but uses a word its turns use ("the sleeping tablets",
    "sertraline", "blood pressure"): with other words, turns with a word of the rows that also say
    those ("sleeping" and a medical word: "my GP's put me on zopiclone because I wasn't
    sleeping"); alone, turns saying that word ("blood pressure", not every medical word)."""
    narrower = qualifiers(topic, rows)
    if narrower:
        every = "".join(rf"(?=.*\b{_word_stem(w)})" for w in narrower)
        words = _join([t.words for t in rows if t.words])
        return _Matcher((), f"(?s:^{every}(?=.*(?:{words})))", None, None)
    said = {m.group(0) for t in rows if t.words for m in re.finditer(t.words, topic.lower())}
    family = [rf"\b{_word_stem(w)}" if w.isalpha() else rf"\b{re.escape(w)}\b" for w in sorted(said)]
    return _Matcher((), _join(family), None, None)


def _content_words(topic: str) -> list[str]:
    """A topic's words that say what it is about, lowercased, any alphabet ("fiancé")."""
    words = [re.sub(r"'s$", "", w) for w in re.findall(r"[\w']+", topic.casefold())]
    return list(dict.fromkeys(w.strip("'") for w in words if w.strip("'") and w not in _STOP))


def qualifiers(topic: str, rows: Sequence[Topic]) -> list[str]:
    """The words of a topic beyond what its table rows recognise ("knee" in "my knee
    diagnosis"): they narrow the topic to what mentions them. Words that only pick a value
    ("old", "new") and the rows' own words do not.

    Args:
        topic: the request's topic.
        rows: the table rows its cue matched.

    Returns:
        The narrowing words, lowercased.
    """
    rest = topic
    for t in rows:
        rest = re.sub(t.cue, " ", rest, flags=re.IGNORECASE)
        rest = re.sub(t.words, " ", rest.lower()) if t.words else rest
    return [w for w in _content_words(rest) if w not in _MODIFIERS and len(w) >= 3 and w.isalpha()]


_IRREGULAR = {
    "fall": ("falls", "fell", "fallen", "falling"),
    "break": ("breaks", "broke", "broken", "breaking"),
    "fight": ("fights", "fought", "fighting"),
    "lose": ("loses", "lost", "losing"),
    "sell": ("sells", "sold", "selling"),
    "buy": ("buys", "bought", "buying"),
}
"""A topic word's irregular forms: "my fall" covers "I fell on the stairs"."""


def _word_stem(word: str) -> str:
    """A word of a topic as a pattern for its family ("counselling" covers "counsellor",
    "diabetes" covers "diabetic", "layoffs" covers "layoff", "owing" covers "owe"): a long word
    keeps its first letters (all but three, at least five) and any ending; a short one must be
    whole or share its stem."""
    if word in _IRREGULAR:
        return rf"(?:{'|'.join(map(re.escape, (word, *_IRREGULAR[word])))})\b"
    if len(word) < 6 or not word.isalpha():
        root = stem(word) if word.isalpha() else word
        if len(root) >= 3 and root != word:
            return rf"(?:{re.escape(word)}\b|{re.escape(root)}\w*)"
        return rf"{re.escape(word)}\b"
    return rf"{re.escape(word[: max(5, len(word) - 3)])}\w*"


def _join(parts: Sequence[str]) -> str | None:
    return "|".join(f"(?:{p})" for p in parts) if parts else None


@lru_cache(maxsize=2048)
def _compile(pattern: str) -> re.Pattern[str]:
    """Compiled once per distinct pattern and shared by every request (no flags: the word patterns
    run on lowercased text, which is about three times faster than IGNORECASE)."""
    return re.compile(pattern)


_SHAPE_CHARS = re.compile(r"[\d@]")
"""Shapes (numbers, emails) need a digit or an @: without one their regex is not run."""


class ForgetRequest(BaseModel):
    """A forget request as recorded in the ledger, with the matcher derived from its topic."""

    revision_id: str
    subject: str
    """Who asked (the user's subject)."""
    topic: str
    """What they asked to forget, as recorded ("social security number", "Alex")."""
    source: str | None = None
    """The turn the request was said in ("conv/turn"), when it came from a conversation."""
    known_from: datetime
    predicates: list[str]
    """Facts (about the requester) with these predicates are withheld."""
    words_pattern: str | None = None
    """Regex over lowercased turn text for the topic's words."""
    shapes_pattern: str | None = None
    """Regex for value shapes (SSN, phone, email, street address) in turns and fact values."""
    names_pattern: str | None = None
    """Case-sensitive regex for the person the request is about, in turns, values and subjects."""
    owners: list[str] = []
    """Whose facts `predicates` covers when the topic names another person ("Theo's new job");
    empty: the requester's own facts."""
    current_values: list[str] = []
    old_values: list[str] = []
    """For a request about a past value ("my old address"): the topic's values that were current
    when it was made, and those they had replaced (the ledger's, about the requester). A text or
    value that says a current one and no old one is not what the user asked to forget: "my new
    address is 3 Quay Street" stays. Empty: every value of the topic is covered."""
    told_from: datetime | None = None
    told_until: datetime | None = None
    """When the request says the topic was told ("the medical thing I told you about in March",
    "the ADHD stuff from March"): only what was said then is covered, so a hospital job told in
    June is not withheld by a request about a medical matter told in March. None: any time."""

    @classmethod
    def for_topic(
        cls, topic: str, *, subject: str, revision_id: str, known_from: datetime, source: str | None = None
    ) -> ForgetRequest:
        m = matcher(topic)
        return cls(
            revision_id=revision_id,
            subject=subject,
            topic=topic,
            source=source,
            known_from=known_from,
            predicates=list(m.predicates),
            words_pattern=m.words,
            shapes_pattern=m.shapes,
            names_pattern=m.names,
            owners=list(m.owners),
        )

    def covers(
        self,
        text: str | None = None,
        predicate: str | None = None,
        obj: str | None = None,
        subject: str | None = None,
    ) -> bool:
        """Whether this request withholds the turn text, or the fact subject.predicate = obj."""
        if text is not None and self._covers_text(text, text.lower(), bool(_SHAPE_CHARS.search(text))):
            return True
        if obj is not None and self._spares(obj):
            return False
        if (
            predicate is not None
            and predicate in self.predicates
            and (
                subject is None
                or subject_key(subject) in {subject_key(o) for o in (self.owners or [self.subject])}
            )
        ):
            return True
        for value in (obj, subject):
            if value is None:
                continue
            if self.names_pattern is not None and _compile(self.names_pattern).search(value):
                return True
            if (
                value is obj
                and self.shapes_pattern is not None
                and _compile(self.shapes_pattern).search(value)
            ):
                return True
            if (
                value is obj
                and self.words_pattern is not None
                and _compile(self.words_pattern).search(value.lower())
            ):
                return True
        return False

    def _covers_text(self, text: str, lowered: str, shaped: bool) -> bool:
        return bool(
            (self.words_pattern is not None and _compile(self.words_pattern).search(lowered))
            or (shaped and self.shapes_pattern is not None and _compile(self.shapes_pattern).search(text))
            or (self.names_pattern is not None and _compile(self.names_pattern).search(text))
        ) and not self._spares(text)

    def _spares(self, text: str) -> bool:
        """Whether the text says a value current when the request was made and no value it had
        replaced (only for a request about a past value)."""
        if not self.current_values:
            return False
        lowered = text.casefold()
        return any(_says(lowered, v) for v in self.current_values) and not any(
            _says(lowered, v) for v in self.old_values
        )


def _says(lowered: str, value: str) -> bool:
    """Whether a lowercased text says a value, whole or by its first part ("14 Alder Road" of
    "14 Alder Road, Bristol")."""
    forms = {value.casefold().strip(), value.split(",")[0].casefold().strip()}
    return any(len(f) >= 3 and re.search(rf"(?<!\w){re.escape(f)}(?!\w)", lowered) for f in forms)


EVERYTHING_RECORDED = datetime(9000, 1, 1, tzinfo=UTC)
"""A read time after every turn's: what has been written, whatever time it carries."""


def active_forget_requests(
    ledger: Any, namespace: str, known_at: datetime | None = None
) -> list[ForgetRequest]:
    """Requests recorded in `namespace`, known at `known_at` and not revoked by then.

    One ledger read; call it once per question and reuse the list for every piece of evidence.

    Args:
        ledger: an emem.ledger.store.Ledger.
        namespace: the tenant.
        known_at: the time of the read, not the question's as-of time. Default: every request
            recorded so far, whatever time its turn carries. A request is honoured from the
            moment it is written: one in a turn stamped ahead of the clock (an imported
            conversation, a client's clock set wrong) must not leak what it names until then.

    Returns:
        The requests, oldest first.
    """
    when = known_at or EVERYTHING_RECORDED
    out = []
    for res in ledger.facts(namespace, predicate=PREDICATE, valid_at=when, known_at=when):
        for rev in res.revisions:
            request = ForgetRequest.for_topic(
                rev.object_text,
                subject=rev.subject,
                revision_id=rev.id,
                known_from=rev.known_from,
                source=rev.sources[0] if rev.sources else None,
            )
            window = told_month(rev.surface or "", rev.known_from)
            if window is not None:
                request = request.model_copy(update={"told_from": window[0], "told_until": window[1]})
            if request.predicates and _PAST_VALUE.search(rev.object_text):
                request = _with_values(ledger, namespace, request)
            if _PARTNER_TOPIC.match(rev.object_text):
                request = _with_partners(ledger, namespace, request)
            out.append(request)
    return sorted(out, key=lambda r: (r.known_from, r.revision_id))


_PAST_VALUE = re.compile(r"\b(?:old|previous|former|prior|earlier)\b", re.IGNORECASE)
"""A topic that names a past value of itself ("my old address", "my previous job")."""


def _with_values(ledger: Any, namespace: str, request: ForgetRequest) -> ForgetRequest:
    """The request with the values of its predicates current when it was made, and the ones they
    replaced; unchanged when there was nothing older (then "my old address" is the one given)."""
    current: list[str] = []
    old: list[str] = []
    for predicate in request.predicates:
        res = ledger.resolve(
            namespace, request.subject, predicate, valid_at=request.known_from, known_at=request.known_from
        )
        current += [v for v in res.values if v]
        old += [r.object_text for r in res.history if r.object_text and r.object_text not in res.values]
    if not current or not old:
        return request
    return request.model_copy(update={"current_values": current, "old_values": old})


_PARTNER_TOPIC = re.compile(
    r"^(?:(?:my|our|the)\s+)?(?:old\s+|former\s+)?(?P<kin>ex(?:-\w+)?|boyfriend|girlfriend|husband|wife|partner|"
    r"fianc\w*)$",
    re.IGNORECASE,
)
"""A request about the requester's partner or ex by role ("forget my boyfriend", "forget him"
after "my ex and I split up"): the ledger says whom that is."""
_NAMED_VALUE = re.compile(r"\bnamed\s+(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)")


def _with_partners(ledger: Any, namespace: str, request: ForgetRequest) -> ForgetRequest:
    """The request with the names of the partners the ledger held by the time it was made (of
    the role it names: a boyfriend, a wife; any, for "partner"; for "ex", only those it no longer
    held as current), so the turns naming them ("Colby and I are thinking of moving in together")
    are covered too."""
    said = _PARTNER_TOPIC.match(request.topic)
    kin = said.group("kin").lower() if said is not None else "partner"
    res = ledger.resolve(
        namespace, request.subject, "has_partner", valid_at=request.known_from, known_at=request.known_from
    )
    names: list[str] = []
    # An ex is a partner the ledger no longer holds as current, never the current husband.
    held = res.history if kin.startswith("ex") else [*res.revisions, *res.history]
    for r in held:
        value = r.object_text or ""
        m = _NAMED_VALUE.search(value)
        if m is None or (kin != "partner" and not kin.startswith("ex") and kin not in value.lower()):
            continue
        names.append(m.group("name"))
    update: dict[str, Any] = {}
    if not kin.startswith("ex"):
        # "my boyfriend": what is said of him, not every marriage ("my sister is getting married")
        update["words_pattern"] = rf"\b(?:my|our)\s+(?:ex-?)?{re.escape(kin)}\b"
    if names:
        pattern = "|".join(rf"\b{re.escape(n)}(?:'s)?\b" for n in dict.fromkeys(names))
        update["names_pattern"] = f"{request.names_pattern}|{pattern}" if request.names_pattern else pattern
    return request.model_copy(update=update) if update else request


_TOLD_IN = re.compile(
    r"\b(?:(?:told\s+(?:you|me)|said|mentioned|gave\s+you|shared|brought\s+up)(?:\s+(?:about|to\s+you))?"
    r"(?:\s+\w+){0,2}?\s+(?:back\s+)?in|(?:stuff|thing|things|bit|news|info|business)\s+from)\s+"
    rf"(?:(?P<month>{'|'.join(m.title() for m in MONTH_NAMES)})\b|(?:the\s+)?(?P<season>(?i:spring|summer|autumn|fall|winter))\b)"
)
"""The month or season a request says its topic was told in ("I told you about in March", "the
stuff from the summer"); a month said of the topic itself ("the trip in March") does not follow a
telling."""
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
"""A season's first month, the northern hemisphere's (meteorological seasons, three months each)."""
_SLACK = timedelta(days=3)


def told_month(sentence: str, known: datetime) -> tuple[datetime, datetime] | None:
    """When a request says it was told (pure): that month (or season), the latest one begun by
    the request, with three days either side (a turn near midnight in another zone). None: it
    does not say.

    Args:
        sentence: the request as said.
        known: when the request was made.

    Returns:
        (from, until), or None.
    """
    m = _TOLD_IN.search(sentence)
    if m is None:
        return None
    if m.group("month"):
        month, length = MONTHS[m.group("month").lower()], 1
    else:
        month, length = _SEASONS[m.group("season").lower()], 3
    year = known.year if month <= known.month else known.year - 1
    start = datetime(year, month, 1, tzinfo=known.tzinfo or UTC)
    after = month - 1 + length
    end = datetime(year + after // 12, after % 12 + 1, 1, tzinfo=start.tzinfo)
    return start - _SLACK, end + _SLACK


def withholding(
    requests: Sequence[ForgetRequest],
    text: str | None = None,
    predicate: str | None = None,
    obj: str | None = None,
    *,
    subject: str | None = None,
) -> ForgetRequest | None:
    """The request that withholds this turn text or this fact, else None (pure, no I/O).

    Args:
        requests: from `active_forget_requests`.
        text: a turn's text (render it with its image caption).
        predicate, obj: a fact's predicate and value.
        subject: the fact's subject (a request about a person covers facts about them; a topic's
            predicates cover only the requester's own facts).

    Returns:
        The first request that covers it, or None.
    """
    if not requests:
        return None
    if text is not None:
        lowered, shaped = text.lower(), bool(_SHAPE_CHARS.search(text))
        for request in requests:
            if request._covers_text(text, lowered, shaped):
                return request
    if predicate is None and obj is None and subject is None:
        return None
    for request in requests:
        if request.covers(predicate=predicate, obj=obj, subject=subject):
            return request
    return None


def withholding_said(
    requests: Sequence[ForgetRequest],
    said: datetime,
    text: str | None = None,
    predicate: str | None = None,
    obj: str | None = None,
    *,
    subject: str | None = None,
) -> ForgetRequest | None:
    """Like `withholding`, among the requests made when or after the content was said: what the
    user tells again after asking to forget is new information, not what they asked to forget.

    Args:
        requests: from `active_forget_requests`.
        said: when the turn was said, or when the fact became known.
        text, predicate, obj, subject: as for `withholding`.

    Returns:
        The first such request that covers it, or None.
    """
    return withholding(
        [
            r
            for r in requests
            if r.known_from >= said
            and (r.told_from is None or r.told_until is None or r.told_from <= said < r.told_until)
        ],
        text=text,
        predicate=predicate,
        obj=obj,
        subject=subject,
    )


_CLAUSE_BREAK = re.compile(r"\s*(?:[,;]\s*(?:and|but|while|whereas)\b|;)\s*", re.IGNORECASE)
"""Where one sentence joins two statements: "I'm allergic to peanuts, and my partner and I live
at 14 Alder Road"."""


def clauses(sentence: str) -> list[str]:
    """The statements one sentence joins (pure); the sentence alone when it joins none, or when a
    piece is too short to state anything on its own (under three words).

    Args:
        sentence: one sentence.

    Returns:
        Its clauses, verbatim and in order.
    """
    label = _LABELLED.match(sentence)
    if label is not None:
        # "The honey-house combination: Ferris has put a proper lock with a key on it.": a label,
        # then a statement of its own
        return [label.group("label"), *clauses(label.group("said"))]
    parts = [p.strip() for p in _CLAUSE_BREAK.split(sentence) if p.strip()]
    if len(parts) < 2 or any(len(p.split()) < 3 for p in parts):
        return [sentence]
    return parts


_LABELLED = re.compile(
    r"^(?P<label>[^:]{3,60}?):\s+(?P<said>(?:[A-Z][a-z]+|I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey)\s+(?:has|have|had|is|was|are|were|"
    r"got|put|changed|moved|swapped|replaced|switched|bought|sold|[a-z]+ed)\b.*)$"
)
"""A sentence that names its topic before a colon and then says something of it in a clause with
its own subject and verb; not "The wifi password: bluefish twenty two"."""


_CONTINUES = re.compile(
    r"\d[\d\s.-]{2,}\d|\d{3,}|^\W*(?:it|it's|its|that|that's|this|these|those|they|they're|their|he|he's|she|"
    r"she's|his|her|which|expires?|pin|code|number)\b",
    re.IGNORECASE,
)
"""A sentence that carries on the one before: a value of three or more digits, or one that opens
by pointing back ("It's 4471", "Her number is ...")."""


_OWN_SUBJECT = re.compile(
    r"^\W*(?:(?:and|also|oh|btw|plus|so)\W+)?(?:the|my|our|your)\s+(?P<np>(?:[\w-]+\s+){0,3}?[\w-]+)"
    r"(?:\s+(?:is|are|was|were)\b|'s\b)",
    re.IGNORECASE,
)
_BARE_VALUE_NOUNS = frozenset({"number", "code", "pin", "password", "one", "digits", "details"})
"""Nouns that name no topic of their own: "The number is 4471" carries on "forget my locker code"."""


def continues(sentence: str) -> bool:
    """Whether a sentence or clause carries on the one before (pure): a value, a pointer back,
    or three words at most. A sentence that names its own topic ("The policy number is
    HX-448812") is its own statement, even with a value in it."""
    own = _OWN_SUBJECT.match(sentence)
    if own is not None and any(w not in _BARE_VALUE_NOUNS for w in own.group("np").lower().split()):
        return False
    return bool(_CONTINUES.search(sentence)) or len(sentence.split()) <= 3


def said_uncovered(requests: Sequence[ForgetRequest], said: datetime, text: str, value: str) -> bool:
    """Whether a value read from a covered text is said in a clause no request covers (pure):
    "peanuts" in "I'm allergic to peanuts, and we live at 14 Alder Road" is not part of a request
    to forget the address.

    Args:
        requests: from `active_forget_requests`.
        said: when the text was said.
        text: the words the value was read from (a sentence or a turn).
        value: the value.

    Returns:
        True when some uncovered clause says the value.
    """
    people_only = [r for r in requests if r.names_pattern and not r.words_pattern and not r.shapes_pattern]
    if withholding_said(people_only, said, text=text) is not None:
        return False  # a request about a person covers every clause that names them
    lowered = value.casefold()
    parts = clauses(text)
    covered = [withholding_said(requests, said, text=p) is not None for p in parts]
    return any(
        lowered in part.casefold()
        and not covered[i]
        # "... my passport number, and it's 533918420": a clause carrying on a covered one is it
        and not (continues(part) and any(covered[j] for j in (i - 1, i + 1) if 0 <= j < len(parts)))
        for i, part in enumerate(parts)
    )


def shown_surface(requests: Sequence[ForgetRequest], said: datetime, surface: str) -> str:
    """A revision's surface without the clauses the requests cover (pure): the words a kept value
    was read from may also say what the user asked to forget.

    Args:
        requests: from `active_forget_requests`.
        said: when the surface was said (the revision's known time).
        surface: the words the revision was read from.

    Returns:
        The surface itself when nothing in it is covered, else its uncovered clauses.
    """
    if withholding_said(requests, said, text=surface) is None:
        return surface
    return " ".join(p for p in clauses(surface) if withholding_said(requests, said, text=p) is None)


def withheld_turns(
    turns: Sequence[Any], requests: Sequence[ForgetRequest], agents: Collection[str] = ()
) -> dict[tuple[str, str], ForgetRequest]:
    """Every turn the requests withhold, the one set every read uses (ask in any mode, search).

    A turn is withheld when a request made when or after it was said covers its text (rendered
    with its image caption). The agent's reply right after a withheld turn is withheld with it:
    "Of course, I'll keep Wednesday mornings clear for the clinic" repeats what it answers without
    the words the request names. A second turn of the agent's in a row says something else.

    Args:
        turns: a namespace's stored turns (any order; read in seq order).
        requests: from `active_forget_requests`.
        agents: the speaker labels that are the agent (their replies follow what they answer).

    Returns:
        (conversation_id, turn_id) -> the request that withholds the turn.
    """
    if not requests:
        return {}
    out: dict[tuple[str, str], ForgetRequest] = {}
    ordered = sorted(turns, key=lambda t: t.seq)
    # The last withheld turn of each session and who said it, while the agent's replies follow.
    open_: dict[tuple[str, str], tuple[str, ForgetRequest]] = {}
    for t in ordered:
        where = (t.conversation_id, t.session_id)
        hit = withholding_said(requests, t.time, text=t.render())
        pending = open_.get(where)
        if hit is None and pending is not None:
            # Only the reply right after it: a second turn in a row moves on ("I've got news ...").
            open_.pop(where, None)
            if t.speaker in agents and t.speaker != pending[0]:
                hit = pending[1]
        elif hit is not None and t.speaker not in agents:
            open_[where] = (t.speaker, hit)
        if hit is not None:
            out[(t.conversation_id, t.turn_id)] = hit
    return out


def value_withheld(
    requests: Sequence[ForgetRequest],
    said: datetime,
    *,
    predicate: str,
    value: str,
    subject: str,
    surface: str = "",
) -> tuple[ForgetRequest | None, bool]:
    """The request that withholds a fact's value (pure): by the fact, else by the words it was
    read from ("Dad's diabetes" covers "he's diabetic", whatever predicate it was filed under),
    unless a clause of its own says it. The one rule for revisions (`revision_withheld`) and the
    read path's facts (emem.agents.withheld).

    Args:
        requests: from `active_forget_requests`.
        said: when the value became known.
        predicate, value, subject: the fact.
        surface: the words it was read from, if any.

    Returns:
        (the request, or None; whether the words it was read from are covered but a clause of its
        own spares it, so they are shown without the rest).
    """
    hit = withholding_said(requests, said, predicate=predicate, obj=value, subject=subject)
    if hit is None and surface:
        hit = withholding_said(requests, said, text=surface)
        if hit is not None and said_uncovered(requests, said, surface, value):
            return None, True
    return hit, False


def revision_withheld(
    requests: Sequence[ForgetRequest], revision: Any, withheld: Collection[str] = ()
) -> ForgetRequest | None:
    """The request that withholds a ledger revision, else None (pure): its fact is covered, the
    words it was read from are, or it was projected from a withheld turn ("conv/turn" in
    `withheld`). The requests themselves are never withheld: they stay auditable.

    Args:
        requests: from `active_forget_requests`.
        revision: an emem.ledger.models.Revision.
        withheld: refs ("conv/turn") of withheld turns.

    Returns:
        The request, or None.
    """
    if not requests or revision.predicate == PREDICATE:
        return None
    said = revision.known_from
    hit, spared = value_withheld(
        requests,
        said,
        predicate=revision.predicate,
        value=revision.object_text,
        subject=revision.subject,
        surface=revision.surface or "",
    )
    if hit is None and withheld and not spared:
        source = next((s for s in revision.sources if s in withheld), None)
        if source is not None:
            hit = next((r for r in requests if r.known_from >= said), None)
    return hit


def withhold_resolution(
    resolution: Any, requests: Sequence[ForgetRequest], withheld: Collection[str] = ()
) -> Any:
    """A resolution without what the requests withhold (pure): `resolve` and `facts` (and the
    HTTP, MCP and LangGraph tools over them) must not hand back a value `ask` withholds.

    Args:
        resolution: an emem.ledger.models.Resolution.
        requests: from `active_forget_requests`.
        withheld: refs ("conv/turn") of withheld turns.

    Returns:
        The resolution itself when nothing is withheld, else a copy without the withheld
        revisions and values (status "miss" when no value is left).
    """
    if not requests:
        return resolution
    if resolution.predicate == PREDICATE:
        return _requests_shown(resolution)
    gone = [r for r in resolution.revisions if revision_withheld(requests, r, withheld) is not None]
    old = [r for r in resolution.history if revision_withheld(requests, r, withheld) is not None]
    shown = [_surface_shown(requests, r) for r in resolution.revisions]
    if not gone and not old:
        if all(a is b for a, b in zip(shown, resolution.revisions, strict=True)):
            return resolution
        return resolution.model_copy(update={"revisions": shown})
    revisions = [s for r, s in zip(resolution.revisions, shown, strict=True) if r not in gone]
    hidden = {r.object_text for r in gone} - {r.object_text for r in revisions}
    values = [v for v in resolution.values if v not in hidden]
    status = resolution.status if values else "miss"
    if status == "conflict" and len(values) < 2:
        status = "state"
    return resolution.model_copy(
        update={
            "values": values,
            "revisions": revisions,
            "history": [r for r in resolution.history if r not in old],
            "status": status,
        }
    )


def _surface_shown(requests: Sequence[ForgetRequest], revision: Any) -> Any:
    """A kept revision whose surface also says covered words, with those clauses left out."""
    if not revision.surface:
        return revision
    surface = shown_surface(requests, revision.known_from, revision.surface)
    return revision if surface == revision.surface else revision.model_copy(update={"surface": surface})


def withheld_marker(request: ForgetRequest) -> str:
    """What an audit view shows in place of a withheld value: that it existed and why it is not
    shown, never the value."""
    return f"[withheld: the user asked to forget this on {request.known_from.date().isoformat()}]"


def withhold_history(history: Any, requests: Sequence[ForgetRequest], withheld: Collection[str] = ()) -> Any:
    """A history whose withheld revisions keep their place, times and relations but not their
    values (pure): the audit trail shows that something was recorded and then withheld by a
    request, which stays listed itself, without handing back what the user asked to forget.

    Args:
        history: an emem.ledger.models.History.
        requests: from `active_forget_requests`.
        withheld: refs ("conv/turn") of withheld turns.

    Returns:
        The history itself when nothing is withheld, else a copy with redacted revisions.
    """
    if not requests:
        return history
    entries = []
    changed = False
    for entry in history.entries:
        if entry.revision.predicate == PREDICATE:
            revision = _request_shown(entry.revision)
            if revision is not entry.revision:
                entry = entry.model_copy(update={"revision": revision})
                changed = True
            entries.append(entry)
            continue
        hit = revision_withheld(requests, entry.revision, withheld)
        if hit is None:
            revision = _surface_shown(requests, entry.revision)
            if revision is not entry.revision:
                entry = entry.model_copy(update={"revision": revision})
                changed = True
            entries.append(entry)
            continue
        marker = withheld_marker(hit)
        revision = entry.revision.model_copy(
            update={"object": marker, "object_text": marker, "surface": marker}
        )
        entries.append(entry.model_copy(update={"revision": revision}))
        changed = True
    return history.model_copy(update={"entries": entries}) if changed else history


def shown_topic(topic: str) -> str:
    """A request's topic as reads show it: a "said: ..." topic is the very statement the user asked
    to forget, so it is named by where it was, never quoted."""
    if topic.startswith(SAID_PREFIX):
        return "what the user said just before this request"
    return topic


def _request_shown(revision: Any) -> Any:
    """A forget_request revision whose statement topic is not quoted (`shown_topic`); the
    revision itself when its topic is not a statement."""
    if not revision.object_text.startswith(SAID_PREFIX):
        return revision
    text = shown_topic(revision.object_text)
    return revision.model_copy(update={"object": text, "object_text": text})


def _requests_shown(resolution: Any) -> Any:
    """A forget_request resolution whose statement topics are not quoted (`shown_topic`)."""
    if not any(v.startswith(SAID_PREFIX) for v in resolution.values):
        return resolution
    return resolution.model_copy(
        update={
            "values": [shown_topic(v) for v in resolution.values],
            "revisions": [_request_shown(r) for r in resolution.revisions],
            "history": [_request_shown(r) for r in resolution.history],
        }
    )
