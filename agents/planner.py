"""The master's planner: what operation a question needs, about whom, when, and whether it asks
for the current state. The offline planner is a set of readable rules over question form; the
LLM planner fills the same `Plan` from a prompt."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from emem.agents.identity import identity_name
from emem.agents.spans import measure_family
from emem.answer import Operation, Plan
from emem.errors import LLMError
from emem.extract.dates import find_date_mentions
from emem.extract.patterns import PET_FORMS, VEHICLE_NOUN
from emem.extract.roles import asked_roles
from emem.extract.rules import favourite_of
from emem.index.text import STOP_WORDS, tokenize
from emem.ledger.predicates import PREDICATES, RELATION_PREDICATES
from emem.llm.base import ChatModel
from emem.llm.jsonparse import parse_into
from emem.llm.usage import LLMCall
from emem.prompting import load_prompt
from emem.timeparse import MONTHS
from emem.tokens import count_tokens

_ARITHMETIC = re.compile(
    r"\bhow (?:long|many (?:days|weeks|months|years|hours|minutes)(?!\s+(?:a|an|per|each|every)\s+"
    r"(?:day|week|month|year|fortnight)\b)|much time)\b"
    r"|\b(?:days|weeks|months|years) (?:after|before|between|since|passed|elapsed)\b",
    re.IGNORECASE,
)
_LOOKUP = re.compile(
    r"^\s*(?:when\b|what (?:date|day|year|month|time|week)\b|which (?:year|month|day|date|week)\b|"
    r"in (?:what|which) (?:year|month)\b|on what (?:date|day)\b|around when\b)",
    re.IGNORECASE,
)
_COUNT = re.compile(r"\bhow (?:many|often)\b|\bnumber of\b|\bhow many times\b|\bcount\b", re.IGNORECASE)
_LIST = re.compile(
    r"\b(?:what|which) (?:kinds?|types?|sorts?) of\b|\blist\b|\bname (?:some|all|the)\b|"
    r"^\s*what (?:are|were)\b|^\s*(?:what|which) (?:\w+ )?(?:\w+s)\b (?:has|have|did|do|does|are|were)\b|"
    r"\bwhat (?:things|activities|hobbies|places|books|events|items|ways)\b",
    re.IGNORECASE,
)
_CURRENT = re.compile(
    r"\b(?:now|currently|current|these days|still|at the moment|at present|nowadays|latest|anymore)\b",
    re.IGNORECASE,
)


_AT_WORK = re.compile(
    r"\b(?:ride|cycle|drive|walk|wear|take|bring|get|commute|go|travel)s?\b[^?]*\b(?:to|at|from)\s+work\b"
)
"""Work as where one goes or is ("What do I ride to work?", "What do I wear at work?")."""
_WORKS_WITH = re.compile(
    r"^\s*who(?:['’]s|\s+is|\s+do|\s+does|\s+did)?\b.*\bwork(?:s|ed|ing)?\s+(?:with|alongside)\b"
)
"""A question about who someone works with: a person, not where they work."""


def asks_now(question: str) -> bool:
    """Whether a question says it asks what holds now ("now", "currently", "these days")."""
    return bool(_CURRENT.search(question))


_PRESENT = re.compile(
    r"\b(?:is|are|am|does|do|has|have)\b|\b(?:what|where|who|which|how)['’]s\b|\b(?:isn't|aren't|doesn't|don't)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:was|were|did|had|used to|wasn't|weren't|didn't|hadn't|ever|last|ago|previous(?:ly)?|before|formerly|"
    r"originally|at first|first)\b|\b\w+ed\b(?<!\bneed)(?<!\bbased)",
    re.IGNORECASE,
)
_PREVIOUS = re.compile(
    r"\b(?:before|previous(?:ly)?|used to|formerly|former|prior|originally|at first|(?<!how )old)\b",
    re.IGNORECASE,
)
"""Words asking what came before ("my old job"); "how old" asks an age, not a former value."""
_BEFORE_CURRENT = re.compile(
    r"\b(?:before|prior\s+to)\s+(?:my|your|the|his|her|their|our)\s+(?:current|present|new|latest)\b",
    re.IGNORECASE,
)
"""What came before the current value ("Where did I work before my current job?"): the question
names the current value only to ask for the one it replaced."""
_MULTI_HOP = re.compile(r"\b(?:both|in common|also|each|and|after|before|while|same)\b", re.IGNORECASE)

# Question words that point at a ledger predicate.
PREDICATE_CUES: dict[str, tuple[str, ...]] = {
    "lives_in": ("live", "living", "lives", "moved", "move", "reside", "home", "settled", "city", "relocat"),
    "job_title": (
        "job",
        "profession",
        "occupation",
        "career",
        "role",
        "position",
        "title",
        "do for a living",
    ),
    "works_at": (
        "work",
        "works",
        "working",
        "job",
        "employ",
        "company",
        "employer",
        "teach at",
        "taught at",
        "drive for",
        "drives for",
        "driving for",
        "deliver for",
        "delivers for",
        "based at",
        "which station",
        "which branch",
        "which depot",
        "which office",
    ),
    "hometown": (
        "hometown",
        "home town",
        "grew up",
        "originally",
        "come from",
        "comes from",
        "am i from",
        "is from",
    ),
    "relationship_status": ("married", "relationship", "single", "partner", "dating", "engaged", "divorc"),
    "has_pet": ("pet", "pets", "dog", "dogs", "cat", "cats", "animal", "puppy", "kitten"),
    "likes": ("like", "likes", "love", "loves", "enjoy", "enjoys", "fan"),
    "dislikes": ("dislike", "hate", "hates", "can't stand"),
    "visited": ("visit", "visited", "trip", "travel", "traveled", "travelled", "been to", "went to"),
    "plans_to": (
        "plan",
        "plans",
        "planning",
        "going to",
        "intend",
        "want to",
        "going",
        "travelling",
        "traveling",
        "heading",
    ),
    "hobby": ("hobby", "hobbies", "pastime", "free time", "activities", "instrument"),
    "has_child": ("kid", "kids", "child", "children", "son", "sons", "daughter", "daughters"),
    "studies": ("study", "studies", "studying", "degree", "major", "university", "course"),
    "owns": ("own", "owns", "bought", "buy"),
    "age": ("age", "how old"),
    "name": ("name", "called"),
    "email": ("email", "e-mail"),
    "phone": (
        "phone",
        "cell",
        "mobile",
        "number to call",
        "telephone",
        "work number",
        "home number",
        "office number",
        "studio number",
        "shop number",
    ),
    "address": ("address", "street"),
    "diet": ("diet", "vegetarian", "vegan", "pescatarian", "eat meat", "keto"),
    "reading": ("reading", "book"),
    "watching": ("watching", "show", "series", "tv"),
    "learning": ("learning", "learn"),
    "drives": ("car", "van", "truck", "vehicle", "pickup"),
    "has_partner": (
        "partner",
        "husband",
        "wife",
        "boyfriend",
        "girlfriend",
        "spouse",
        "fiance",
        "fiancé",
        "fiancée",
    ),
    "has_sibling": ("sibling", "brother", "sister"),
    "has_parent": ("parent", "mother", "father", "mom", "mum", "dad"),
    "health_condition": ("health", "condition", "diagnos", "medical", "illness"),
    "allergy": ("allerg",),
}
"""Question words that point at a ledger predicate (the vocabulary: emem.ledger.predicates)."""
STATE_WORDS: dict[str, frozenset[str]] = {
    "works_at": frozenset(
        "work works working worked job started starting joined hired employer employed position role "
        "company firm office".split()
    ),
    "lives_in": frozenset(
        "live lives living lived moved moving move home settled relocated apartment flat house based".split()
    ),
    "job_title": frozenset("work job role position title started promoted hired".split()),
    "studies": frozenset("study studying studies degree course enrolled doing".split()),
    "visited": frozenset(
        "visit visiting visited travel travelling traveling trip holiday vacation going flying flight booked".split()
    ),
    "plans_to": frozenset("plan plans planning trip travel travelling going booked".split()),
}
"""Words with which a turn states a predicate's value in other words than a question asks it
("Where did Sam work?" -> "Sam just started at Deloitte"; "live" -> "we moved to Utrecht")."""

_FAVOURITE = re.compile(r"\bfavou?rite (?P<cat>[a-z]+)", re.IGNORECASE)
_QUESTION_WORDS = {
    "what",
    "when",
    "where",
    "who",
    "whom",
    "which",
    "why",
    "how",
    "did",
    "does",
    "do",
    "is",
    "was",
    "were",
    "are",
    "has",
    "have",
    "would",
    "could",
    "can",
    "will",
    "should",
    "in",
    "on",
}
_NAME = re.compile(r"\b[A-ZÀ-ÖØ-Þ][a-zA-ZÀ-ÖØ-öø-ÿ'’-]+")
_CALENDAR = set(MONTHS) | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


class PlanReply(BaseModel):
    """What the LLM planner must return (a subset of Plan, parsed tolerantly)."""

    operation: Operation
    """Required: a reply without it is not a plan (it would silently become FACT)."""

    @field_validator("operation", mode="before")
    @classmethod
    def _spelling(cls, v: object) -> object:
        """Small models write "fact" or "temporal lookup": accept the spelling, not other words."""
        return v.strip().upper().replace(" ", "_").replace("-", "_") if isinstance(v, str) else v

    entities: list[str] = Field(default_factory=list)
    predicates: list[str] = Field(default_factory=list)
    needs_current: bool = False
    time_constraint: str | None = None
    keywords: list[str] = Field(default_factory=list)


def classify_operation(question: str) -> Operation:
    if measure_family(question) is not None:
        return Operation.FACT  # "How long is the commute?", "How many kilos is Elsie?": one quantity
    if _ARITHMETIC.search(question):
        return Operation.TEMPORAL_ARITHMETIC
    if _LOOKUP.search(question):
        return Operation.TEMPORAL_LOOKUP
    if _COUNT.search(question):
        return Operation.COUNT
    if _LIST.search(question):
        return Operation.LIST
    return Operation.FACT


STEM_CUE_LENGTH = 5
"""Cues this long or longer match as word stems ("relocat" -> "relocated"); shorter ones only as
words with a plain inflection, so "mom" does not cue has_parent in "at the moment"."""


@functools.lru_cache(maxsize=512)
def _cue_pattern(cue: str) -> re.Pattern[str]:
    if len(cue) >= STEM_CUE_LENGTH or " " in cue:
        return re.compile(rf"\b{re.escape(cue)}")
    return re.compile(rf"\b{re.escape(cue)}(?:s|es|ed|ing|d)?\b")


_PET_WORD_ASKED = re.compile(rf"\b{PET_FORMS}\b")
"""Any pet word, singular or plural ("guinea pigs", "hens", "puppies")."""
_COUNTS_OR_NAMES = re.compile(r"^\s*how\s+many\b|\b(?:called|named|names?)\b")
"""A question counting or naming members of a set."""
_SOUGHT = re.compile(r"\b(?:appl(?:y|ies|ied|ying)|interview(?:s|ed|ing)?)\s+(?:for|with|at|to)\b")
"""A question about a job applied or interviewed for, not the one held."""
_OCCUPATION = re.compile(
    r"^\s*what\s+(?:does|do)\s+[\w'’ -]+?\s+do"
    r"(?:\s+(?:now|nowadays|these\s+days|for\s+work|for\s+a\s+living)){0,2}\s*\?*\s*$",
    re.IGNORECASE,
)
"""A bare "What does Ruth do?" ("... do for work now?"): what someone does, with no object, is
their occupation."""
_DRIVES_WHAT = re.compile(
    r"^\s*(?:what|which)\s+(?:[a-z]+\s+)?(?:do|does|did|am|is|are|was|were)\s+[\w'’ -]+?\s+(?:drive|driving)"
    r"(?:\s+(?:now|nowadays|these\s+days|at\s+the\s+moment|for\s+work|then|any\s*more|around)){0,2}\s*\?*\s*$",
    re.IGNORECASE,
)
""""What do I drive?", "What am I driving for work now?": driving with no object but the one asked
for asks for the vehicle ("Why did I drive the night shift?" does not)."""


_VEHICLE_ASKED = re.compile(
    rf"^\s*(?:what|which)\s+(?:(?:kind|make|model|sort|type|brand)\s+of\s+)?(?:[a-z]+\s+)?{VEHICLE_NOUN}\b"
    r"(?!\s+(?:finance|loan|payments?|insurance|tax|MOT|mileage|repairs?|service|park|parking|keys?)\b)",
    re.IGNORECASE,
)
"""A question whose answer is a vehicle ("What van do I drive?", "Which car did she buy?"): a
vehicle word elsewhere ("navigation in the truck", "the van finance") asks for something else."""


_CITY_OF_ELSE = re.compile(
    r"\b(?:city|town)\b.*\b(?:giving|going|flying|travel\w*|visit\w*|holding|held|hosting|playing|"
    r"running|racing|speaking|presenting|performing|meeting|staying|studying|working|born|grow|grew)\b"
)
"""A city asked of another thing the question names (a talk, a race, a trip), not of a home."""


_PLANNED_MOVE = re.compile(
    r"\b(?:plan(?:s|ned|ning)?|going|intend(?:s|ed|ing)?|want(?:s|ed)?|hop(?:e|es|ed|ing))[\s_]+(?:on\s+)?"
    r"(?:to\s+)?(?:mov(?:e|ing)|relocat(?:e|ing))\b"
)
"""A question about a move still planned ("Where were they planning to move?"): a home that holds
then is where they would move from, so the plan's value comes first. (Multi-word cues reach it
joined by "_": "want_to move".)"""


def predicate_cues(question: str) -> list[str]:
    """Predicates the question's words point at, the most-cued first (ties in table order), so a
    reader answering one value takes the predicate the question names most specifically."""
    q = question.lower()
    # A cue of several words takes its words with it: "do for a living" asks for a job, and its
    # "living" is not lives_in's cue.
    for cue in sorted(
        {c for cues in PREDICATE_CUES.values() for c in cues if " " in c}, key=len, reverse=True
    ):
        q = re.sub(rf"\b{re.escape(cue)}\b", lambda m: m.group(0).replace(" ", "_"), q)
    hits = {
        p: sum(bool(_cue_pattern(c.replace(" ", "_")).search(q)) for c in cues)
        for p, cues in PREDICATE_CUES.items()
    }
    found = sorted((p for p, n in hits.items() if n), key=lambda p: -hits[p])
    if (
        "lives_in" in found
        and _CITY_OF_ELSE.search(q)
        and not re.search(
            r"\b(?:live|living|lives|lived|home|move|moved|reside|settled|relocat\w*|based)\b", q
        )
    ):
        found.remove("lives_in")  # "Which city am I giving my talk in?": the city of something else
    if "plans_to" in found and "lives_in" in found and _PLANNED_MOVE.search(q):
        found = list(dict.fromkeys(["plans_to", *found]))  # "Where were they planning to move?": the plan
    if "address" in found and "lives_in" in found and re.search(r"\bstreet\b", q):
        found = list(dict.fromkeys(["address", *found]))  # "Which street do I live on?": the address
    if _OCCUPATION.match(question):
        found = list(dict.fromkeys(["job_title", "works_at", *found]))
    if "has_pet" not in found and _COUNTS_OR_NAMES.search(q) and _PET_WORD_ASKED.search(q):
        # "How many guinea pigs does Anselm have?", "What are the hens called?": the set of pets
        # counted or named, by any pet word. Not every question with a pet word asks about the
        # set: "How long has Nate had his turtles?" is answered by a reply the set's turns crowd out.
        found.append("has_pet")
    if _AT_WORK.search(q) and not _OCCUPATION.match(question):
        # "What do I ride to work?": work is where one goes, not what is asked
        found = [p for p in found if p != "works_at"]
    if _SOUGHT.search(q) or _WORKS_WITH.search(q):
        # "What job has Hamid applied for?": a job sought is not the one held; "Who's the
        # crewmate I work with?" asks a person, not the employer
        found = [p for p in found if p not in ("works_at", "job_title")]
    if _DRIVES_WHAT.match(question):
        found = list(dict.fromkeys(["drives", *found]))
    elif "drives" in found and not _VEHICLE_ASKED.search(question):
        found.remove("drives")  # "What do I use for navigation in the truck?" asks no vehicle
    fav = _FAVOURITE.search(q)
    category = favourite_of(fav) if fav else None
    return list(dict.fromkeys([category, *found, "likes"])) if category else found


def find_entities(question: str, known: Sequence[str]) -> list[str]:
    """Known subjects named in the question (case-insensitive, possessives allowed), then other
    capitalised names in order of appearance."""
    found: list[str] = []
    lowered = question.lower()
    for name in sorted(known, key=len, reverse=True):
        if re.search(rf"\b{re.escape(name.lower())}(?:'s|’s)?\b", lowered) and name not in found:
            found.append(name)
    for m in _NAME.finditer(question):
        # "Ines's" is Ines: only the possessive goes, not every trailing "s".
        word = re.sub(r"['’]s$", "", m.group(0)).rstrip("'’")
        if m.start() == 0 or word.lower() in _QUESTION_WORDS or word.lower() in _CALENDAR or word in found:
            continue
        if not any(word.lower() == f.lower() for f in found):
            found.append(word)
    return found


_AHEAD = re.compile(
    r"\b(?:will|going to|gonna|plan(?:ning|s)? to|planned|next|upcoming|coming)\b"
    r"|\b(?:is|are|am)\s+(?:\w+\s+){0,2}?\w+ing\b|['’](?:s|re|m)\s+\w+ing\b",
    re.IGNORECASE,
)
"""A question about what is still to come: "Where is the user travelling in October?" asks
about the October ahead, "Where did she travel in October?" about the one before."""


def asked_ahead(question: str) -> Literal["past", "future"]:
    """Which way a bare month or weekday in the question is read: ahead for a future or
    present-progressive question, else back from the anchor."""
    return "future" if _AHEAD.search(question) and not _PAST_FORM.search(question) else "past"


_PAST_FORM = re.compile(r"\b(?:was|were|did|had|used to|last|ago)\b", re.IGNORECASE)


def offline_plan(
    question: str,
    known_entities: Sequence[str] = (),
    anchor: datetime | None = None,
    *,
    subjects: Sequence[str] = (),
) -> Plan:
    """Plan a question by rules. `subjects` are who it is about as `emem.subjects` resolved them
    ("my" -> the user); other named people are found here."""
    operation = classify_operation(question)
    entities = list(dict.fromkeys([*subjects, *find_entities(question, known_entities)]))
    mentions = find_date_mentions(question, anchor, asked_ahead(question)) if anchor is not None else []
    time_from = min((m.start for m in mentions), default=None)
    time_to = max((m.end for m in mentions), default=None)
    before_current = bool(_BEFORE_CURRENT.search(question))
    needs_current = not before_current and (
        bool(_CURRENT.search(question))
        or (not mentions and bool(_PRESENT.search(question)) and not _PAST.search(question))
    )
    asks_previous = before_current or (bool(_PREVIOUS.search(question)) and not _CURRENT.search(question))
    prefers_latest = needs_current or not _PAST.search(question)
    keywords = [w for w in tokenize(question) if w not in STOP_WORDS]
    reasons = [f"operation {operation.value} from the question's form"]
    if needs_current:
        reasons.append("asks for the current state: the ledger decides it in either mode")
    elif asks_previous:
        reasons.append("asks for an earlier value: the ledger's history answers it")
    deep = operation in (Operation.COUNT, Operation.LIST, Operation.TEMPORAL_ARITHMETIC)
    if deep:
        reasons.append("sets and temporal arithmetic need whole episodes")
    elif len(entities) >= 2 or _MULTI_HOP.search(question):
        deep = True
        reasons.append("several entities or a multi-hop connective")
    elif mentions:
        deep = True
        reasons.append("a time constraint")
    else:
        reasons.append("a direct lookup: the fast path suffices")
    return Plan(
        operation=operation,
        entities=entities,
        predicates=list(dict.fromkeys([*asked_roles(question), *predicate_cues(question)]))
        # "Who is Bernard?": the relation a value names him by ("a husband named Bernard")
        or (list(RELATION_PREDICATES) if identity_name(question) else []),
        time_from=time_from,
        time_to=time_to,
        needs_current=needs_current,
        asks_previous=asks_previous,
        prefers_latest=prefers_latest,
        keywords=keywords,
        mode="deep" if deep else "fast",
        reason="; ".join(reasons),
        source="offline",
    )


def plan_from_reply(
    reply: PlanReply,
    question: str,
    known: Sequence[str],
    anchor: datetime | None,
    model: str,
    *,
    subjects: Sequence[str] = (),
) -> Plan:
    """Merge an LLM plan with the deterministic parts (dates are resolved by rules, never guessed;
    the subjects "I"/"the user" stand for are resolved by emem.subjects and come first)."""
    base = offline_plan(question, known, anchor, subjects=subjects)
    # A model may invent predicates ("researched"); only the ledger's vocabulary can be resolved.
    predicates = [p for p in reply.predicates if p in PREDICATES or p.startswith("favourite_")]
    mentions = (
        find_date_mentions(reply.time_constraint, anchor, asked_ahead(question))
        if reply.time_constraint and anchor
        else []
    )
    deep = (
        reply.operation in (Operation.COUNT, Operation.LIST, Operation.TEMPORAL_ARITHMETIC)
        or len(reply.entities) >= 2
    )
    return base.model_copy(
        update={
            "operation": reply.operation,
            "entities": list(dict.fromkeys([*subjects, *reply.entities])) or base.entities,
            "predicates": predicates or base.predicates,
            # A current-state question the rules see (present tense) stays one: a small model's
            # "false" must not let a superseded value through.
            "needs_current": reply.needs_current or base.needs_current,
            "keywords": reply.keywords or base.keywords,
            "time_from": min((m.start for m in mentions), default=base.time_from),
            "time_to": max((m.end for m in mentions), default=base.time_to),
            "mode": "deep" if deep or base.mode == "deep" else "fast",
            "reason": f"planned by {model}",
            "source": model,
        }
    )


PLAN_SCHEMA = PlanReply.model_json_schema()


def offline_planner_call(question: str, plan: Plan) -> LLMCall:
    """The offline planner's call record: rules, no model, tokens counted as if it were one."""
    return LLMCall(
        role="planner",
        model="offline-rules",
        backend="offline",
        prompt_tokens=count_tokens(question),
        completion_tokens=count_tokens(plan.model_dump_json()),
    )


def llm_plan(
    question: str,
    known: Sequence[str],
    anchor: datetime | None,
    chat: ChatModel,
    *,
    subjects: Sequence[str] = (),
) -> tuple[Plan | None, list[LLMCall], str | None]:
    """Plan with the `planner` prompt; the rules still resolve dates and subjects (plan_from_reply).

    Args:
        question: the question as asked.
        known: the namespace's speakers and ledger subjects.
        anchor: "now" for relative dates (the question's as_of, or the last turn's time).
        chat: the model serving the planner role.
        subjects: who "I"/"my"/"you" stand for (emem.subjects).

    Returns:
        (plan, calls, None) on success; (None, calls, the error) when the model failed or its
        reply is not a plan (calls then end with the failed one): the caller decides what a
        failed plan means.
    """
    prompt = load_prompt("planner")
    messages = [{"role": "system", "content": prompt.text}, {"role": "user", "content": question}]
    calls: list[LLMCall] = []
    try:
        result = chat.chat("planner", messages, schema=PLAN_SCHEMA, max_tokens=200, prompt_hash=prompt.sha256)
        calls.append(result.call)
        reply = parse_into(result.data if result.data is not None else result.text, PlanReply)
        return plan_from_reply(reply, question, known, anchor, chat.model, subjects=subjects), calls, None
    except (LLMError, ValueError) as exc:
        calls.append(
            LLMCall(
                role="planner",
                model=chat.model,
                backend="openai",
                ok=False,
                error=str(exc),
                prompt_tokens=count_tokens(prompt.text + question),
            )
        )
        return None, calls, str(exc)
