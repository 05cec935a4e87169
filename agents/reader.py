"""The reader answers from the packed context only, abstains when the evidence does not support
an answer, and reports conflicts. The offline reader is extractive and rule-based: it quotes,
counts, and does date arithmetic, but it does not paraphrase."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from emem.agents.ages import age_answer
from emem.agents.amounts import (
    asks_amount,
    asks_money,
    money_in,
    money_span,
    payer_words,
    sold_for,
    states_amount,
)
from emem.agents.assistant import cue_kin
from emem.agents.birthdays import birthday_answer
from emem.agents.corrected import latest_correction, without_retracted
from emem.agents.corrections import correction_in, number_put_right
from emem.agents.counts import count_over_time, counted_words
from emem.agents.currentness import said_by
from emem.agents.durations import stated_duration
from emem.agents.frames import (
    SELF,
    Frame,
    bound_clauses,
    frame_value,
    modified_head,
    question_frame,
    says_of_subject,
    which_one,
)
from emem.agents.frequency import frequency_answer
from emem.agents.identity import identity_answer
from emem.agents.members import which_member
from emem.agents.named import named_instance
from emem.agents.owners import owner_answer
from emem.agents.pets import asks_about_pet, pet_answer
from emem.agents.places import TOWN_HEADS, containing_town
from emem.agents.planner import PREDICATE_CUES, predicate_cues
from emem.agents.replies import reply_to_question
from emem.agents.rescheduled import rescheduled
from emem.agents.revoked import called_off, replacement_for
from emem.agents.spans import (
    COLOURS,
    GENERIC_KINDS,
    NEEDS_SPECIFIC,
    TIME_FRAME,
    AnswerType,
    Span,
    about,
    about_entity,
    adds_content,
    after_correction,
    answer_span,
    answer_type,
    asked_head,
    best_sentence,
    corrects_number,
    focus_words,
    has_revision_cue,
    head_noun,
    involves,
    labelled_otherwise,
    number_value,
    only_restates_given,
    only_when,
    question_names,
    revised_value,
    revises,
    salient_terms,
    sentences,
    shared_focus,
    stated_quantity,
    stated_total,
    states_something,
    type_head,
    typed_span,
)
from emem.agents.stated import ASKS_ORIGIN, age_in, origin_year, with_day_of
from emem.agents.vintages import vintage_answer
from emem.agents.yesno import with_verdict, yes_no
from emem.answer import EvidenceItem, FactItem, Operation, PackResult, Plan, Status
from emem.errors import LLMError
from emem.extract.dates import DateMention, find_date_mentions
from emem.extract.entities import NOT_NAMES
from emem.extract.patterns import INSTRUMENTS, JOBS
from emem.extract.roles import asked_roles
from emem.index.text import STOP_WORDS, tokenize
from emem.instructions import looks_like_instruction
from emem.ledger.predicates import RELATION_PREDICATES, Cardinality, builtin_cardinality, named_value
from emem.llm.base import ChatModel
from emem.llm.usage import LLMCall
from emem.numbers import CARDINALS, TEENS
from emem.prompting import load_prompt, memory_block
from emem.repairs import repaired
from emem.subjects import AGENT_NAMES
from emem.timeparse import MONTH_NAME, MONTHS, WEEKDAY
from emem.tokens import count_tokens


def abstention(question: str) -> str:
    """An honest abstention in plain words, naming what memory does not say: "I don't know:
    nothing in memory says what the user's son is called." for a name question; else the
    question quoted."""
    named = named_thing(question)
    if named:
        return f"I don't know: nothing in memory says what {named} is called."
    return f'I don\'t know: nothing in memory answers "{question.strip()}"'


_NAME_OF_PHRASE = re.compile(r"\bname of\s+(.+?)\s*\??\s*$", re.I)
_CALLED_PHRASE = re.compile(r"^\s*what(?:['’]s|\s+is|\s+was)\s+(.+?)\s+called\s*\??\s*$", re.I)
_TO_LISTENER = {"my": "your", "me": "you", "i": "you", "mine": "yours"}


def named_thing(question: str) -> str | None:
    """The thing a name question asks the name of, said to the one who asked ("What is the name
    of my son?" -> "your son"), or None for another form."""
    m = _NAME_OF_PHRASE.search(question) or _CALLED_PHRASE.match(question)
    if not m:
        return None
    words = m.group(1).split()
    return " ".join(_TO_LISTENER.get(w.lower(), w) for w in words) if 0 < len(words) <= 6 else None


_DAY_OR_MONTH = (
    r"(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\b|(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b)"
)
"""A day of the month or a month named, as a schedule says it ("the 3rd", "September")."""


_FUTURE = re.compile(
    r"\b(?:will|going to|gonna|plan(?:ning)? to|next|upcoming|soon|about to)\b|\w['’]ll\b"
    # A date something was put off to is ahead of when that was said: "pushed the EP to September".
    r"|\b(?:pushed|postponed|delayed|rescheduled|bumped)\s+(?:back\s+)?(?:[\w'’]+\s+){0,3}?(?:to|until|till)\b"
    # A present progressive with a date is an arrangement: "is getting married on the 24th".
    r"|\b(?:is|are|am)\s+\w+ing\b|['’](?:s|re|m)\s+\w+ing\b"
    # A simple present with a date is a schedule: "I start on February 3rd", "Last day is 8 March",
    # "Lina starts school in September".
    r"|\b(?:starts?|begins?|ends?)\s+(?:(?:[a-z]+\s+){0,2}?(?:on|in)\s+)?"
    + _DAY_OR_MONTH
    # ... and so is a journey said that way: "we move to Bilbao on the 1st of November"
    + r"|\b(?:we|I|they|he|she)\s+(?:move|moves|relocate|relocates|fly|flies|leave|leaves|arrive|arrives)\s+"
    r"(?:[\w'’-]+\s+){0,3}?(?:on|in)\s+"
    + _DAY_OR_MONTH
    + r"|\b(?:is|are)\s+(?:on\s+|in\s+)?"
    + _DAY_OR_MONTH,
    re.IGNORECASE,
)


_TO_MONTH = re.compile(
    r"\b(?:back |forward )?to\s+(?=(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\b)",
    re.IGNORECASE,
)


def date_text(text: str) -> str:
    """The text as the date parser reads it: "pushed back to September" says when as "in
    September" does (the parser reads months after in/by/until, not after "to")."""
    return _TO_MONTH.sub("in ", text) if "to " in text.lower() else text


_YEAR_SAID = re.compile(r"\b(?:1[89]|20)\d\d\b|['’]\d\d\b")
_RELATIVE_SAID = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|next|last|this|ago|coming|week|weekend|weeks|days?)\b",
    re.IGNORECASE,
)


def stated_label(mention: DateMention) -> str:
    """The mention's date with only the parts its words state (pure): "17 March" states no year,
    so none is given; the parser's year would be a guess at which 17 March is meant. A relative
    date ("next Friday") or one with its year keeps the full label."""
    if (
        mention.granularity == "day"
        and not _YEAR_SAID.search(mention.surface)
        and not _RELATIVE_SAID.search(mention.surface)
        and mention.end - mention.start <= timedelta(days=1)
    ):
        return f"{mention.start.day} {mention.start:%B}"
    return mention.label()


def event_date(
    e: EvidenceItem,
    *,
    ahead: bool = False,
    about: Sequence[str] = (),
    stated: bool = False,
    focus: frozenset[str] = frozenset(),
) -> tuple[datetime, str]:
    """When the evidence says the event happened: a date it mentions (read forwards when the turn
    talks about plans, or `ahead` when the question asks about something still to come), else
    when it was said. With `about` (the people the question asks of), a date said in the clauses
    naming them wins over one said of someone else in the same turn ("Priya's is May 2 and
    Paula's is May 20"). With `stated`, the label holds only the date parts the words say
    (`stated_label`): a date still to come, or recurring, has no year unless one was said. With
    `focus` (the question's words), a sentence about more of them than the first date's own
    dates the event (`_dated_in_focus`)."""
    label = stated_label if stated else DateMention.label
    forwards = ahead or _FUTURE.search(e.text)
    direction: Literal["past", "future"] = "future" if forwards else "past"
    # After an in-turn correction, the corrected date stands (handled below), whoever it is of.
    bound = about_entity(e.text, about) if about and after_correction(e.text) is None else e.text
    if bound != e.text and (own := find_date_mentions(date_text(bound), e.time, direction)):
        return own[0].start, label(own[0])
    mentions = find_date_mentions(date_text(e.text), e.time, direction)
    corrected = after_correction(e.text)
    if corrected and mentions:  # "I said December 8, but it's actually December 6"
        cut = len(e.text) - len(corrected)
        after = [m for m in mentions if m.span[0] >= cut]
        day = _BARE_DAY.search(corrected)
        if day and re.match(r"\s+(?:is|was)\b", corrected[day.end() :]):
            day = None  # "sorry, the 8th is my mum's birthday": a statement of the 8th, no repair
        if not after and day and 1 <= int(day.group(1)) <= 31:
            # "on the 17th of June. Sorry, the 24th": the corrected day of the month said before.
            last = [m for m in mentions if m.span[0] < cut][-1]
            with contextlib.suppress(ValueError):
                fixed = last.start.replace(day=int(day.group(1)))
                year = "" if stated and label(last) == f"{last.start.day} {last.start:%B}" else f" {fixed:%Y}"
                return fixed, f"{fixed.day} {fixed:%B}{year}"
        mentions = after or mentions
    text = date_text(e.text)
    # "they're not doing it in December. They're thinking March next year": a date the turn says
    # it is not is no answer when it gives another
    mentions = [m for m in mentions if not _denied(text, m)] or mentions
    if mentions and focus and (found := _dated_in_focus(text, mentions, focus)) is not None:
        if isinstance(found, DateMention):
            return found.start, label(found)
        year = "" if stated and label(mentions[0]) == stated_label(mentions[0]) else f" {found:%Y}"
        return found, f"{found.day} {found:%B}{year}"
    if mentions:
        return mentions[0].start, label(mentions[0])
    return e.time, f"{e.time.day} {e.time:%B %Y}"


def _dated_in_focus(
    text: str, mentions: Sequence[DateMention], focus: frozenset[str]
) -> DateMention | datetime | None:
    """The date of the sentence about more of the question's words than the first date's
    sentence, when it gives one: a date it states (its mention), or a bare day ("The 11th is the
    day we fly out to Sydney") in the month of the date said last before it in the turn (that
    day). None when the first date's sentence is as much about the question as any."""
    spans: list[tuple[int, int]] = []
    start = 0
    for piece in sentences(text):
        at = text.find(piece, start)
        if at < 0:
            return None
        spans.append((at, at + len(piece)))
        start = at + len(piece)

    def sentence_of(pos: int) -> tuple[int, int] | None:
        return next(((s, e) for s, e in spans if s <= pos < e), None)

    first = sentence_of(mentions[0].span[0])
    if first is None:
        return None
    best = shared_focus(text[first[0] : first[1]], set(focus))
    chosen: DateMention | datetime | None = None
    for s, e in spans:
        if (s, e) == first:
            continue
        score = shared_focus(text[s:e], set(focus))
        if score <= best:
            continue
        own = [m for m in mentions if s <= m.span[0] < e]
        if own:
            best, chosen = score, own[0]
            continue
        day = _BARE_DAY.search(text, s, e)
        said = [m for m in mentions if m.span[1] <= s and m.granularity == "day"]
        if day is None or not said or re.match(r"\s+of\b", text[day.end() :]):
            continue
        with contextlib.suppress(ValueError):
            best, chosen = score, said[-1].start.replace(day=int(day.group(1)))
    return chosen


def _new_date_given(e: EvidenceItem) -> bool:
    """Whether the turn dates something ahead of when it was said, in words that do not deny it."""
    text = date_text(e.text)
    return any(m.start > e.time and not _denied(text, m) for m in find_date_mentions(text, e.time, "future"))


def _denied(text: str, mention: DateMention) -> bool:
    """Whether the words right before a date in `text` deny it ("not doing it in December")."""
    return _DATE_DENIED.search(text[: mention.span[0]]) is not None


_DATE_DENIED = re.compile(
    r"\b(?:not|no\s+longer|never|no)\b[^.!?;,]{0,25}$|n't\b[^.!?;,]{0,25}$", re.IGNORECASE
)
"""Words that deny the date right after them ("not doing it in", "won't be in", "no December")."""


DAY_PARTS = frozenset(
    {
        "day",
        "days",
        "evening",
        "evenings",
        "morning",
        "mornings",
        "afternoon",
        "afternoons",
        "night",
        "nights",
    }
)
"""Asked heads that ask for a weekday: "Which days ...?", "What evening ...?", "Which mornings ...?"
(a "what day" that no turn answers with a weekday reads on as before)."""
_BARE_DAY = re.compile(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)
_ASKS_WEEKDAY = re.compile(r"\b(?:what|which) days?\b(?! of)", re.IGNORECASE)
_NOW = re.compile(r"\b(?:now|these\s+days)\s*\??\s*$", re.IGNORECASE)
"""A question about when something is to happen as things stand ("When is the launch now?")."""
_NOT_YET = re.compile(r"^\s*when\s+(?:is|are|will|'s)\b|^\s*when's\b", re.IGNORECASE)


_PLURAL_DAYS = re.compile(r"\b(?:days|nights|evenings|mornings|afternoons)\b", re.IGNORECASE)
_DAY_RUN = re.compile(
    rf"{WEEKDAY.pattern}(?:(?:,\s*|\s+and\s+|\s*&\s*)(?:{WEEKDAY.pattern}))*", re.IGNORECASE
)
_DAY_MOVE = re.compile(rf"\bfrom\s+{WEEKDAY.pattern}\s+to\s+(?P<to>{WEEKDAY.pattern})", re.IGNORECASE)
LATEST_OF = 3
"""A question about now reads the latest of this many best-ranked turns that name a weekday: a
day put right later ("It's Wednesdays actually") ranks with the day it replaces."""


def weekday_answer(question: str, candidates: Sequence[EvidenceItem], *, now: bool) -> str | None:
    """The weekday (or, for "which days", the weekdays said together) a "what day" question asks.

    Args:
        question: the question.
        candidates: turns about what it asks, best first.
        now: the question is about now: a turn's changed or corrected day ("switched from
            Wednesdays to Thursdays") and the latest of the best turns answer.
    Returns:
        The day(s) as said, or None when no candidate names a weekday.
    """
    found: list[tuple[EvidenceItem, re.Match[str]]] = []
    for e in candidates:
        part = e.text
        if now:
            # "I told you Thursdays. It's Wednesdays actually": the replacing clause's day
            fix = correction_in(e.text)
            fixed = fix.replacement if fix is not None and _DAY_RUN.search(fix.replacement) else None
            moved = _DAY_MOVE.search(e.text)  # "changed our day, from Wednesday to Thursday"
            part = fixed or (moved.group("to") if moved else None) or revised_value(e.text)
            part = part or after_correction(e.text) or e.text
        m = _DAY_RUN.search(part) or _DAY_RUN.search(e.text)
        if m:
            found.append((e, m))
    if not found:
        return None
    e, m = max(found[:LATEST_OF], key=lambda x: x[0].time) if now else found[0]
    run = m.group(0)
    return run if _PLURAL_DAYS.search(question) else WEEKDAY.search(run).group(0)  # type: ignore[union-attr]


def dated(e: EvidenceItem) -> bool:
    """True when the turn itself states a date (not only when it was said)."""
    return bool(find_date_mentions(date_text(e.text), e.time))


def temporal_lookup(
    question: str,
    candidates: list[EvidenceItem],
    about: Sequence[str] = (),
    focus: frozenset[str] = frozenset(),
    frame: datetime | None = None,
) -> str | None:
    """When something happens, from the candidates (best first): the weekday asked for by "what
    day" ("pottery on Tuesdays. Correction: Thursdays" -> "Thursdays"; with a `frame`, "What day
    was it in March?", the latest said by then); for something that has not
    happened yet ("When is ..."), only a date a turn states, since the day a plan was mentioned is
    not its date ("I need to book a dentist appointment" dates nothing); else the event's date.
    None when no candidate answers."""
    if _ASKS_WEEKDAY.search(question):
        said = [e for e in candidates if e.time <= frame] if frame is not None else candidates
        day = weekday_answer(question, said or candidates, now=True)
        if day is not None:
            return day
    if ASKS_ORIGIN.search(question):
        year = origin_year(candidates[: READ_DEPTH * 2])
        if year is not None:
            return year
    now = _NOW.search(question) is not None
    if now:
        # "When might the wedding happen now?": the latest turn that dates it, not the first plan
        top = candidates[: READ_DEPTH * 2]
        candidates = sorted((e for e in top if dated(e)), key=lambda e: e.time, reverse=True) + [
            e for e in candidates if e not in top or not dated(e)
        ]
    if now or _NOT_YET.search(question):
        candidates = [e for e in candidates if dated(e)]
        if not candidates:
            return None
        # A date still to come (or a recurring one: "When is my birthday?") keeps the words' parts.
        when, label = event_date(candidates[0], ahead=True, about=about, stated=True, focus=focus)
        return _with_day(when, label, candidates[1:], about)
    # A turn that states the event's date outranks one only said around it ("The wedding was
    # beautiful", said a week later, is not its date).
    stating = [e for e in candidates[: READ_DEPTH * 2] if dated(e)]
    chosen = stating[0] if stating else (candidates[0] if candidates else None)
    if chosen is None:
        return None
    when, label = event_date(chosen, about=about, focus=focus)
    return _with_day(when, label, stating[1:], about)


def _with_day(when: datetime, label: str, others: Sequence[EvidenceItem], about: Sequence[str]) -> str:
    """The label, or, when it names a month only ("the assessment in January"), the day another
    turn gives in that month ("on the 29th of January"): the same event said more exactly, with
    the year the month was said in."""
    if re.match(r"\d", label):
        return label
    for e in others:
        day, day_label = event_date(e, about=about)
        if re.match(r"\d", day_label) and day.month == when.month and abs(day.year - when.year) <= 1:
            return f"{day.day} {when:%B %Y}"
    return label


def arithmetic_endpoints(
    question: str, evidence: list[EvidenceItem]
) -> tuple[EvidenceItem, EvidenceItem] | None:
    """The evidence for each of the two events the question relates, dated differently."""
    from emem.agents.aggregate import question_sides

    sides = question_sides(question)
    if len(sides) == 2:
        first = max(evidence, key=lambda e: (len(sides[0] & set(tokenize(e.text))), e.score), default=None)
        if first is not None:
            rest = [e for e in evidence if event_date(e)[0].date() != event_date(first)[0].date()]
            second = max(rest, key=lambda e: (len(sides[1] & set(tokenize(e.text))), e.score), default=None)
            if second is not None:
                return first, second
    dated = (
        [e for e in evidence if event_date(e)[0].date() != event_date(evidence[0])[0].date()]
        if evidence
        else []
    )
    return (evidence[0], dated[0]) if dated else None


def _duration(a: datetime, b: datetime) -> str:
    days = abs((b - a).days)
    if days < 14:
        return f"{days} days"
    if days < 70:
        return f"{round(days / 7)} weeks"
    if days < 730:
        return f"{round(days / 30.44)} months"
    return f"{round(days / 365.25)} years"


def cued(word: str, predicate: str) -> bool:
    """True when a question word is one of the words that point at the predicate ("live" ->
    lives_in): such a word asks for the predicate itself, not for something about its value."""
    cues = [*PREDICATE_CUES.get(predicate, ()), *predicate.split("_")]
    return any(word.startswith(c) or c.startswith(word[:4]) for c in cues if " " not in c)


_WHAT_HEAD = re.compile(
    r"^\s*(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+|sorts?\s+of\s+)?"
    r"(?!(?:am|is|are|was|were|do|does|did|has|have|had|will|would|can|could|should|may|might|must)\b)([a-z]+)",
    re.IGNORECASE,
)


def what_head(question: str) -> str | None:
    """The noun a what/which question asks for ("What activity ..." -> "activity")."""
    m = _WHAT_HEAD.match(question)
    return m.group(1).lower() if m else None


_VALUE_DATE = re.compile(rf"\((?P<mon>{MONTH_NAME})\s+(?P<y>\d{{4}})\)\s*$", re.IGNORECASE)
"""The month a plan's value carries ("go to Salzburg (May 2030)")."""


def _dated_outside(value: str, start: datetime, end: datetime) -> bool:
    """Whether a value carries a month that lies wholly outside [start, end]."""
    m = _VALUE_DATE.search(value)
    if m is None:
        return False
    number, year = MONTHS[m["mon"].lower()], int(m["y"])
    month = datetime(year, number, 1, tzinfo=start.tzinfo or UTC)
    following = datetime(year + (number == 12), number % 12 + 1, 1, tzinfo=month.tzinfo)
    return following <= start or month > end


_HOME_PREDICATES = frozenset({"lives_in", "address", "hometown"})


def _home_value(value: str, states: list[FactItem]) -> bool:
    """Whether an answer is a home the ledger holds (a value of a home predicate)."""
    return any(f.predicate in _HOME_PREDICATES and value in f.values for f in states)


def _address_left(fact: FactItem, states: list[FactItem]) -> bool:
    """Whether an address was left by a later move: a home (`lives_in`) said after it, in a place
    the address does not name ("Gloucester Road, Bristol", then "I moved to Glasgow")."""
    if fact.predicate != "address" or not fact.revisions:
        return False
    since = max(str(r.get("valid_from") or "") for r in fact.revisions)
    text = " ".join(fact.values).lower()
    homes = [r for f in states if f.predicate == "lives_in" for r in (*f.revisions, *f.history)]
    return any(
        str(r.get("valid_from") or "") > since and str(r.get("object") or "").lower() not in text
        for r in homes
    )


def _fact_answer(question: str, plan: Plan, states: list[FactItem]) -> str | None:
    """The ledger's value for the predicate the question names most specifically (the plan lists
    the most-cued first); for "before"/"used to" questions, the latest value it replaced. None when
    the question asks for a kind of value (a colour, a name) that no resolved value holds."""
    order = {p: i for i, p in enumerate(plan.predicates)}
    states = _asked_subjects(question, plan, states)
    if plan.time_from is not None and plan.time_to is not None:
        # "Where am I going for training in June?" is not answered by a plan dated May
        states = [
            f.model_copy(update={"values": kept})
            for f in states
            if (kept := [v for v in f.values if not _dated_outside(v, plan.time_from, plan.time_to)])
        ]
    if not states:
        return None
    if answer_type(question) is AnswerType.NAME and (
        named := [f for f in states if any(map(named_value, f.values))]
    ):
        # "What's Yesenia's partner called?" cues relationship_status ("married") as much as
        # has_partner ("a wife named Delia"): a name is asked, so the value that gives one
        states = named
    # "What's my work email?" cues works_at first, but an email is asked: a predicate whose values
    # are of the asked type answers before one more cued by the question's words
    fitting = [f for f in states if f.predicate in PREDICATES_FOR.get(answer_type(question), ())]
    states = [f for f in states if not _address_left(f, states)]
    if plan.predicates and plan.predicates[0] in _HOME_PREDICATES:
        # "Where do I live?" when the ledger holds no home: an employer or a trip is a place
        # too, but not the one asked for
        places = PREDICATES_FOR[AnswerType.PLACE]
        states = [f for f in states if f.predicate in _HOME_PREDICATES or f.predicate not in places]
        fitting = [f for f in fitting if f.predicate in _HOME_PREDICATES]
        if not states:
            return None
    fact = min(fitting or states, key=lambda f: order.get(f.predicate, len(order)))
    current = {str(r.get("object")) for r in fact.revisions}
    earlier = [r for r in fact.history if str(r.get("object")) not in current]
    if plan.asks_previous and earlier:
        return str(earlier[-1].get("object_text") or earlier[-1].get("object"))
    values = [v for f in states for v in f.values] if plan.operation == Operation.LIST else list(fact.values)
    # Of several members ("a cat named Mochi", "a dog named Rex"), those the question is about.
    focus = focus_words(question, set(plan.entities))
    about_it = [v for v in values if about(v, focus)]
    head = what_head(question)
    if (
        head
        and not cued(head, fact.predicate)
        and head not in VALUE_HEADS.get(fact.predicate, ())
        and not about_it
        and plan.operation == Operation.FACT
    ):
        # "What activity do the user's kids do on Saturdays?" names has_child ("kids") but asks
        # about something else: the children's names are not the answer.
        return None
    values = about_it or values
    if head in KIND_MEMBERS:
        # "What instrument do I play?" among "running, the double bass": the values of that kind.
        values = [v for v in values if set(re.findall(r"[a-z]+", v.lower())) & KIND_MEMBERS[head]]
        if not values:
            return None
    if fact.predicate in RELATIONS and _ASKS_KIND.search(question) and plan.operation != Operation.COUNT:
        # "What breed is my sister's dog?": the kind a value says ("a corgi dog"), never the
        # name it gives ("a dog named Pretzel" says no breed).
        same = [f for f in states if f.predicate == fact.predicate]
        # "my sister's dog": the relative's own set, named last in the question, not the user's.
        last = plan.entities[-1].lower() if plan.entities else ""
        owned = [f for f in same if f.subject.lower() == last] or [fact]
        kinds = [k for f in owned for v in f.values if (k := kind_of(v))]
        return ", ".join(kinds) if kinds else None
    kind = answer_type(question)
    if (
        fact.predicate in RELATIONS
        and plan.operation == Operation.FACT
        and kind is AnswerType.OTHER
        and not _HAS.search(question)
    ):
        # "What does the user's daughter do on Saturdays?" names has_child ("daughter") but asks
        # what she does: "a daughter named Ivy" is who she is, not the answer.
        return None
    if kind is AnswerType.YESNO and focus:
        held = [v for v in list(fact.values) if about(v, focus)]
        return f"Yes: {', '.join(held)}" if held else f"No: {', '.join(fact.values)}"
    if kind is AnswerType.AGE:
        ages = [m.group(0) for v in values if (m := re.search(r"\d+", v))]
        return ", ".join(ages) if ages else None
    if kind is AnswerType.PERSON and fact.predicate in asked_roles(question):
        return ", ".join(bare_value(v) for v in values)  # "Who is my supervisor?": the holder
    if kind is AnswerType.PERSON and values and all(named_value(v) for v in values):
        return ", ".join(n for v in values if (n := named_value(v)))  # "Who is my husband?": Omar
    if kind in PREDICATES_FOR and fact.predicate not in PREDICATES_FOR[kind]:
        # "Where does my sister live?" is not answered by has_sibling = "a sister named Hannah":
        # the name a value gives is who it is, not a place or a number about them.
        typed = [
            x for v in values if (x := typed_span(kind, v, None, {n.lower() for n in [named_value(v)] if n}))
        ]
        return ", ".join(typed) if typed else None
    if (
        kind is AnswerType.NAME
        and (head := head_noun(question)) in _KIND_WORDS
        and cued(head, fact.predicate)
    ):
        # "What's Yesenia's partner called?": the name of the value the asked noun stands for
        # ("a wife named Delia"), whatever word the value uses for it ("my dog" stands for dogs
        # alone: a cat's name does not answer it)
        names = [n for v in values if (n := named_value(v))]
        if names:
            return ", ".join(names)
    if kind in (AnswerType.PHONE, AnswerType.EMAIL):
        # "What's my personal email?" is not answered by the one said as "Work email is ..."
        surfaces = {str(r.get("object_text")): str(r.get("surface") or "") for r in fact.revisions}
        values = [v for v in values if not labelled_otherwise(question, surfaces.get(v, ""), v)]
        if not values:
            return None
    if kind in NEEDS_SPECIFIC:
        # "the name of Nina's dog" is not the name in "a cat named Luna".
        head = head_noun(question) if kind is AnswerType.NAME else asked_head(question)
        typed = [
            x
            for v in values
            if (
                x := _as_is(kind, fact.predicate, v, head)
                if head in VALUE_HEADS.get(fact.predicate, ())
                else typed_span(kind, v, None, set(), head if kind is AnswerType.NAME else None)
                or (None if head and kind is AnswerType.NAME else _as_is(kind, fact.predicate, v))
            )
        ]
        return ", ".join(typed) if typed else None
    return ", ".join(bare_value(v) for v in values)


_ASKS_DAY = re.compile(r"^\s*(?:on\s+)?(?:what|which)\s+day\b", re.I)
_HAS_DAY = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?\b(?!\d)(?!\s*(?:hours?|minutes?))|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"
    r"|\b(?:today|tomorrow|yesterday)\b",
    re.I,
)
"""A day said: a day of the month or a weekday ("12 June 2024", "Thursdays"), not only a month."""
_NOT_DATES = frozenset({AnswerType.CLOCK, AnswerType.RESULT_TIME})
"""Answer types of "What time ...?" questions that a date does not answer."""
_KIND_WORDS = frozenset(
    "partner spouse pet pets sibling siblings kid kids child children parent parents".split()
)
"""Nouns that stand for every value of their predicate ("partner" for a wife or a husband)."""
_ASKS_KIND = re.compile(r"\b(?:what|which)\s+(?:breed|kind|type|sort)s?\b", re.IGNORECASE)
_NOT_KIND = frozenset(
    "a an the my our his her their new old little big baby young second third another rescue foster "
    "pet one two three four five".split()
)


def kind_of(value: str) -> str | None:
    """The kind a relation value says of its member, the words before its head noun ("a corgi
    dog" -> "corgi", "a wire-haired dachshund named Rex" -> "wire-haired"), or None when it says
    only what it is and its name ("a dog named Pretzel")."""
    words = value.split(" named ")[0].split(" called ")[0].split()
    mods = [w for w in words[:-1] if w.lower() not in _NOT_KIND]
    return " ".join(mods) if mods else None


def bare_value(value: str) -> str:
    """A value without a lower-case article before a name ("the UMC Utrecht" -> "UMC Utrecht"): an
    article written in lower case is the sentence's, not the name's ("The Night Circus" keeps it)."""
    return re.sub(r"^(?:the|a|an)\s+(?=[A-Z0-9])", "", value.strip())


def _asked_subjects(question: str, plan: Plan, states: list[FactItem]) -> list[FactItem]:
    """The facts about whom the question asks: "Where does the user's sister live?" asks about the
    sister the ledger names (Hana), so Hana's facts answer and the user's own `lives_in` does not.
    Relation facts stay (they say who the relative is). Unchanged when the question names no
    relative the ledger holds."""
    focus = focus_words(question, set(plan.entities))
    kin = [f for f in states if f.predicate in RELATIONS and any(about(v, focus) for v in f.values)]
    if not kin or any(p in RELATIONS for p in plan.predicates[:1]):
        return states  # no relative asked about, or the question asks for the relative itself
    names = {n.lower() for f in kin for v in f.values if about(v, focus) and (n := named_value(v))}
    theirs = [f for f in states if f.subject.lower() in names and f.predicate not in RELATIONS]
    if theirs:
        return theirs
    return [f for f in states if f.predicate in RELATIONS or f.subject.lower() in names]


VALUE_HEADS: dict[str, frozenset[str]] = {
    "works_at": frozenset(
        "employer company firm workplace hospital school university college startup agency bank business "
        "organisation organization studio restaurant store shop clinic office station branch depot base".split()
    ),
    "lives_in": frozenset(
        "city town country place state village neighbourhood neighborhood area part district suburb barrio quarter".split()
    ),
    "hometown": frozenset("city town country place village".split()),
    "studies": frozenset("subject degree major course university college school".split()),
    "reading": frozenset("book novel".split()),
    "watching": frozenset("show series programme program".split()),
    "learning": frozenset("language instrument skill".split()),
    "drives": frozenset("car van truck vehicle pickup ute".split()),
    "diet": frozenset("diet".split()),
}
"""Nouns a predicate's values are instances of: "Which hospital does she work at?" is answered by
`works_at` as it stands, as is "the name of her employer"."""


KIND_MEMBERS: dict[str, frozenset[str]] = {"instrument": INSTRUMENTS, "instruments": INSTRUMENTS}
"""Asked nouns whose members a lexicon lists: of several values, only members answer."""


RELATIONS = frozenset(RELATION_PREDICATES)
"""Predicates whose values are people or animals: they answer who someone is, not what they do."""
_HAS = re.compile(r"\b(?:have|has|had|own|owns|who)\b|\bwhat (?:is|are|was|were)\b", re.IGNORECASE)

PREDICATES_FOR: dict[AnswerType, frozenset[str]] = {
    AnswerType.PHONE: frozenset({"phone"}),
    AnswerType.EMAIL: frozenset({"email"}),
    AnswerType.ADDRESS: frozenset({"address"}),
    AnswerType.PLACE: frozenset(
        {"lives_in", "hometown", "visited", "address", "works_at", "studies", "plans_to"}
    ),
    AnswerType.AGE: frozenset({"age"}),
    AnswerType.PERSON: frozenset(
        {"has_child", "has_sibling", "has_parent", "has_partner", "friend_of", "name"}
    ),
}
"""Predicates whose values are of the asked type as they stand (a phone number as written); a
value of another predicate answers only through a typed span it holds."""


def _as_is(kind: AnswerType, predicate: str, value: str, head: str | None = None) -> str | None:
    """The value as it stands when the predicate's values are of the asked kind (a phone number
    for a phone question; an employer for "the name of the user's employer")."""
    if (
        predicate in PREDICATES_FOR.get(kind, ())
        or (kind is AnswerType.NAME and predicate == "name" and head in (None, "user"))
        or (
            kind is AnswerType.PROPER
            and predicate == "works_at"
            and bool(re.match(r"(?:the\s+)?[A-Z0-9]", value))
        )
    ):
        # (an employer by its name answers "Who do I work for?", asked as of a person)
        return bare_value(value)
    if head is not None and head in VALUE_HEADS.get(predicate, ()) and re.search(r"[A-Z0-9]", value):
        return bare_value(value)  # a name; "the hospital" is the kind itself, not which one
    return None


_MEASURE_WORDS = frozenset(
    "weigh weighs weighed weight heavy kilos kilograms kg pounds lbs stone grams dose doses dosage mg "
    "milligrams ml tall height far distance long take takes taking".split()
    # the forms `focus_words` leaves of them ("How many kilos is Elsie?" -> "kilo")
    + "kilo kilogram pound gram milligram dose".split()
)
"""Words that ask for a quantity rather than say what it is of: "she weighs 4.1 kg" is not about
Otis because both say "weigh"."""
READ_DEPTH = 3
"""The offline reader looks at the three best-supported holding turns for one about the question."""
LATEST_MARGIN = 0.15
"""For a question not about the past, a later turn this close to the best one's support wins."""


def _candidates(
    question: str,
    plan: Plan,
    holding: list[EvidenceItem],
    names: frozenset[str] = frozenset(),
    exclude: frozenset[str] = frozenset(),
    people: frozenset[str] = frozenset(),
) -> list[EvidenceItem]:
    """The best-supported holding turns about the question, the one to answer from first: the
    latest of those near the top when the question is not about the past, and before that a later
    turn revising the best one ("Norway is off, ... Copenhagen instead") unless the question asks
    what came before. `names` are what the ledger calls the things asked about ("Nina's cat" is
    Luna): turns naming them are about it; `exclude` are names that are not values (speakers);
    `people` are the namespace's known people (speakers, ledger subjects)."""
    kind = answer_type(question)
    if kind is AnswerType.AGE and plan.entities:
        # The typed span said of the person is what makes a turn about "how old is Pepper?".
        about_it = [e for e in holding[:READ_DEPTH] if involves(e, plan.entities)]
    elif kind in (AnswerType.MEASURE, AnswerType.ADDRESS, AnswerType.CLOCK) and plan.entities:
        # "How much does Elsie weigh?": a quantity in the asked units said of Elsie ("Elsie's
        # 8.4 kg now") is about it without the question's words; so is an address ("we're on
        # Sint-Pietersplein 4 since August" for "What's my address?"). Both change over time, so
        # for a question not about the past the latest one said answers.
        # A unit or an address is specific enough to read a little deeper than other spans: it
        # is often a reply ("is the commute better?" - "25 minutes.") ranked below the question.
        # So is a time of day ("Games are Saturday at 9:40" for the Sparks' games).
        family = type_head(kind, question)
        measured = [e for e in holding[:FRAME_DEPTH] if typed_span(kind, e.text, None, set(), family)]
        focus = focus_words(question, set(plan.entities)) - TYPE_WORDS - _MEASURE_WORDS
        about_it = [e for e in measured if involves(e, plan.entities)] or [
            # "he takes donepezil 5mg" for "How much donepezil does Dad take?": about the
            # question's other words, naming nobody else.
            e
            for e in measured
            if about(e.text, focus)
            # "Elsie is 5.6 kg" is not what Otis weighs: a turn naming someone else is about them
            and not any(re.search(rf"\b{re.escape(p)}\b", e.text, re.I) for p in people - {e.speaker})
        ]
        if plan.prefers_latest and not plan.asks_previous:
            about_it.sort(key=lambda e: e.time, reverse=True)
        return about_it
    else:
        focus = (focus_words(question, set(plan.entities)) - TYPE_WORDS) | {n.lower() for n in names}
        focus |= {w for others in cue_kin(question, plan, focus).values() for w in others}
        about_it = [e for e in holding[:READ_DEPTH] if about(f"{e.text} {e.image_caption or ''}", focus)]
    # Only turns said by or naming the people the question is about answer it ("Omar's job" is
    # not answered by Nina's "just one job now"), and not turns whose statements about the
    # question's topic are all said of someone else ("Leyla moved to Amsterdam" does not say
    # where the user lives; "Idris switched to Japanese" is not what Colette learns).
    asked = {n.lower() for n in [*plan.entities, *names]}
    about_it = [
        e
        for e in about_it
        if involves(e, plan.entities) and not told_of_others(e.text, asked, focus_of(question, plan), people)
    ]
    # "Idris's mum": what is said of Idris is not said of his mother, unless the turn names her.
    kin = unnamed_kin(question, plan)
    if kin:
        about_it = [e for e in about_it if about(e.text, kin)]
    if plan.entities and _ASKS_AGENT.search(question):
        # "What book did you recommend?": what the agent itself said answers, first, even in
        # other words than the question's (its reply to the turn that asked for it).
        agent = plan.entities[0].lower()
        said = [e for e in holding[:READ_DEPTH] if e.speaker.lower() == agent]
        about_it = said + [e for e in about_it if e not in said] if said else about_it
    if not about_it and kind is AnswerType.PLACE and plan.entities:
        # "Which city is Idris studying in?" with "Idris is doing law in Manchester": a place said
        # in the clause about a person someone else talks about, in whatever words.
        about_it = [
            e
            for e in holding[:READ_DEPTH]
            if (others := _others(e, plan.entities))
            and (clause := about_entity(e.text, others)) != e.text
            and typed_span(kind, clause, None, {e.speaker.lower(), *(n.lower() for n in plan.entities)})
        ]
    top = holding[0] if holding else None
    if (
        top is not None
        and not about_it
        and kind is AnswerType.OTHER
        and plan.prefers_latest
        and not plan.asks_previous
        and plan.entities
        and involves(top, plan.entities)
        and (change := revised_value(about_entity(top.text, _others(top, plan.entities)))) is not None
        and not only_when(change)
    ):
        # "Emma switched from violin to cello", ranked best for "What instrument does Emma
        # play?": a change of the asked person's state answers a question about their state,
        # in whatever words.
        about_it.insert(0, top)
    if kind is AnswerType.PLACE:
        # "Where do I do pottery?": "I switched my pottery class to Thursdays" changes when, not
        # where, so it does not stand in for the turn naming the place.
        about_it = [e for e in about_it if not only_when(revised_value(e.text) or "")] or about_it
    about_it = _revised_first(plan, about_it, holding, set(exclude), people)
    return about_it if _revision_led(plan, about_it) else _latest_first(plan, about_it)


_NAMED_SUBJECT = re.compile(
    r"^(?:(?:and|but|so|then|also|oh|well)\s+)?(?P<name>[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)(?:\s+and\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+)?\s+"
    r"(?:(?:just|also|finally|still|recently|now|already|has|had|is|was)\s+)?"
    r"(?P<verb>\w+ed|\w+s|is|was|got|quit|left|made|took|went|ran|bought|began|found|said|had|has|does|did)\b"
)
"""A sentence whose subject is a name: "Leyla moved to Amsterdam", "Idris switched to Japanese"."""
_SELF_SUBJECT = re.compile(r"\b(?:I|I'm|I've|I'd|we|We|my|My|our|Our|me)\b")


def sentence_subject(sentence: str) -> str | None:
    """The name a sentence is said of when it opens with a name and a verb, else None (a
    first-person sentence, or one that opens otherwise)."""
    m = _NAMED_SUBJECT.match(sentence.strip())
    if not m or m.group("name").casefold() in NOT_NAMES:
        return None
    return m.group("name")


def told_of_others(text: str, asked: set[str], focus: set[str], people: frozenset[str] = frozenset()) -> bool:
    """True when every sentence of the turn about the focus is said of a named person outside
    `asked` (lower-cased names of the people the question is about, "user" for the user) and
    none of them speaks of the asked people. Only known people count as such a subject ("Yoga is
    on Thursdays now" and "Norway is off" are not said of a person).

    Args:
        text: the turn.
        asked: who the question is about, lower-cased.
        focus: the question's content words.
        people: the namespace's known people (speakers, ledger subjects).

    Returns:
        Whether the turn only tells of someone else.
    """
    parts = [x for x in sentences(text) if about(x, focus)] or sentences(text)
    for part in parts:
        name = sentence_subject(part)
        if name is None or name.lower() in asked or name not in people:
            return False
        if any(re.search(rf"\b{re.escape(a)}\b", part, re.I) for a in asked if a != "user"):
            return False
    return bool(parts)


_NAMED_KIN_Q = re.compile(
    r"(?P<owner>\b[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+|\b(?:my|[Tt]he user['’]s)\s+[a-z]+)['’]s\s+(?P<kin>mum|mom|mother|dad|father|parents?|sister|brother|"
    r"sibling|son|daughter|kids?|child(?:ren)?|wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|"
    r"cousin|aunt|uncle|niece|nephew|grand(?:mother|father|ma|pa)|boss|manager|friend|colleague|"
    r"roommate|neighbou?r)\b"
)
_MY_KIN_Q = re.compile(
    r"\b(?:my|[Tt]he\s+user['’]s)\s+(?:(?:older|younger|big|little|eldest|oldest|youngest|baby)\s+)?"
    r"(?P<kin>mum|mom|mother|dad|father|parents|sister|brother|son|daughter|wife|husband|partner|boyfriend|"
    r"girlfriend|cousin|aunt|uncle|niece|nephew|grand(?:mother|father|ma|pa)|boss|manager|colleague|"
    r"roommate|flatmate|housemate|neighbou?r)\b"
)
"""A relative of the user's own, asked by kin ("Where does my dad live now?")."""
_KIN_SYNONYMS = {
    "mum": {"mum", "mom", "mother"},
    "mom": {"mum", "mom", "mother"},
    "mother": {"mum", "mom", "mother"},
    "dad": {"dad", "father"},
    "father": {"dad", "father"},
}


def unnamed_kin(question: str, plan: Plan) -> set[str]:
    """The kin words of "Idris's mum" when the question asks about a named person's relative
    whom the plan did not resolve to a name (the plan holds only the owner): the evidence must
    speak of that relative. Empty when there is no such phrase or the relative is named."""
    m = _NAMED_KIN_Q.search(question) or _MY_KIN_Q.search(question)
    if not m:
        return set()
    if m.re is _MY_KIN_Q:
        # "Where does my dad live?": the user's own facts are not the dad's, unless the plan
        # resolved him to a name (a question naming nobody holds only the user, whatever the
        # user is called)
        others = [n for n in plan.entities if n.lower() not in ("user", "the user")]
        if len(plan.entities) > 1 or (others and question_names(question)):
            return set()  # the relative resolved to a name the plan holds, or the question names one
        kin = m.group("kin").lower()
        return _KIN_SYNONYMS.get(kin, {kin})
    owner = m.group("owner").lower()
    if not owner.startswith(("my ", "the ")):
        # a name read from the possessive ("Idri" of "Idris's") is still the owner
        others = [n for n in plan.entities if n.lower() != "user" and not owner.startswith(n.lower())]
        if others:
            return set()  # the relative resolved to a name the plan holds
    kin = m.group("kin").lower()
    return _KIN_SYNONYMS.get(kin, {kin})


def focus_of(question: str, plan: Plan) -> set[str]:
    """The question's content words, without the answer-type words."""
    return focus_words(question, set(plan.entities)) - TYPE_WORDS


_ASKS_AGENT = re.compile(
    r"\b(?:did|do|have|had|would|will|could|can)\s+you\s+(?!think|know|remember)\w+|\byou\s+(?:said|told|recommended|suggested|mentioned)\b",
    re.IGNORECASE,
)

TYPE_WORDS = frozenset({"city", "town", "country", "place", "colour", "color", "phone", "email", "address"})
"""Question words naming the answer's type ("which city"): the typed span checks them, a turn
need not repeat them to be about the question."""


def _revision_led(plan: Plan, about_it: list[EvidenceItem]) -> bool:
    if not about_it or plan.asks_previous:
        return False
    revised = revised_value(about_it[0].text)
    return revised is not None and (plan.operation == Operation.TEMPORAL_LOOKUP or not only_when(revised))


def _revised_first(
    plan: Plan,
    about_it: list[EvidenceItem],
    holding: list[EvidenceItem],
    exclude: set[str],
    people: frozenset[str] = frozenset(),
) -> list[EvidenceItem]:
    """The latest turn that revises the best candidate, first: one naming what the best one names
    (a proper name), or one about the question that itself drops a value for another."""
    if not about_it or plan.asks_previous:
        return about_it
    top = about_it[0]
    terms = salient_terms(top.text, exclude, _others(top, plan.entities))
    told = about_entity(top.text, _others(top, plan.entities))  # what it says of the asked people
    # A question about a past period is not answered by a change said after it ended.
    until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
    later = [
        e
        for e in holding
        if e.time > top.time
        and (until is None or e.time <= until)
        and (revises(e.text, terms, told) or (e in about_it and revised_value(e.text)))
        # a change said of someone else revises nothing about the asked people
        and involves(e, plan.entities)
        and not told_of_others(e.text, {n.lower() for n in plan.entities}, terms, people)
        # "The move got pushed back to September" changes when, which only a question about
        # when it happens asks.
        and (plan.operation == Operation.TEMPORAL_LOOKUP or not only_when(revised_value(e.text) or ""))
    ]
    if not later:
        return about_it
    latest = max(later, key=lambda e: e.time)
    return [latest, *[e for e in about_it if e is not latest]]


def _latest_first(plan: Plan, about_it: list[EvidenceItem]) -> list[EvidenceItem]:
    """For a question not about the past, the latest of the candidates near the best one's support."""
    if plan.prefers_latest and about_it:
        top = about_it[0].score
        first = involves(about_it[0], plan.entities)
        near = [e for e in about_it if e.score >= top - LATEST_MARGIN and involves(e, plan.entities) == first]
        latest = max(near, key=lambda e: e.time)
        about_it = [latest, *[e for e in about_it if e is not latest]]
    return about_it


def _others(e: EvidenceItem, entities: Sequence[str]) -> list[str]:
    """The question's people other than the turn's speaker: whose clauses of the turn to read."""
    return [n for n in entities if n.lower() != e.speaker.lower()]


def _count(
    question: str,
    plan: Plan,
    states: list[FactItem],
    holding: list[EvidenceItem],
    said: Sequence[EvidenceItem] = (),
) -> str | None:
    """A count: the statements about the set replayed in time order when they change it ("three
    cats" then "Tiza died"); else the ledger's members the question is about; else a number a
    turn states about it ("I go 4 times a week"), the latest such when not asked about the past;
    else the turns. `said` is every turn read, superseded ones included: a replay needs them."""
    # "How many safes had I cracked this year?" counts safes, not years: a frame of time says when
    counting = TIME_FRAME.sub(" ", question)
    focus = focus_words(counting, set(plan.entities))
    # "How many pets": "two cats" and "a puppy" speak of pets too. Such a replay is weaker than
    # the ledger's set when the ledger tracked the set's changes itself (its history).
    kin = counted_words(counting, plan)
    involved = [e for e in said if involves(e, plan.entities)]
    # "I told you we ringed 2,800. It was 2,300.": the number a correction gives replaces the one
    # it takes back, for the period it was told of, unless a later turn states another.
    fixed = [
        (e, n)
        for e in involved
        if corrects_number(e.text) and (n := stated_quantity(e.text, focus)) is not None
    ]
    until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
    if fixed:
        at, n = max(fixed, key=lambda x: x[0].time)
        if not any(
            e.time > at.time
            and (until is None or e.time <= until)
            and stated_quantity(e.text, focus) is not None
            for e in involved
        ):
            return str(n)
    kin_trace = trace = None
    if not _EVENTS_OFTEN.search(question):
        owned = not _EVENTS.search(question)  # "how many pets did A adopt" counts events
        trace = count_over_time(involved, focus, until, start_on_gain=owned)
        if trace is not None and trace.changes:
            return str(trace.value)
        kin_trace = count_over_time(involved, kin, until, start_on_gain=owned) if kin != focus else None
    # a single value (where one works, where one lives) is no set to count: "How many people work
    # for me?" is not answered by the one employer the ledger holds
    states = [f for f in states if builtin_cardinality(f.predicate) is not Cardinality.SINGLE]
    members = [v for f in states for v in f.values if about(v, focus)] or [
        v for f in states for v in f.values
    ]
    tracked = any(f.history for f in states)
    if kin_trace is not None and kin_trace.changes and not tracked:
        return str(kin_trace.value)
    if trace is not None and members and not tracked and trace.value > len(members):
        # "our cats Gherkin and Yarrow" where extraction filed one of them: the speaker's own
        # listing is the larger set, and nothing said since changed it.
        return str(trace.value)
    # "How often": the number is said of times a week/day/month, not of the activity's name.
    counted = focus | (FREQUENCY_WORDS if _EVENTS_OFTEN.search(question) else set())
    # Only what the people asked about say or are said to have ("Leo has three guitars" does not
    # count Grace's).
    stated = [
        (e, n)
        for e in holding[: READ_DEPTH * 2]
        if involves(e, plan.entities) and (n := stated_quantity(e.text, counted)) is not None
    ]
    if plan.time_to is not None and not plan.needs_current:
        # "How many jobs did Nina have in August 2023?": what was said by the period's end.
        # A later turn taking back a number told about the period restates it.
        by_then = [(e, n) for e, n in stated if e.time <= plan.time_to or corrects_number(e.text)]
        if by_then:
            return str(max(by_then, key=lambda x: x[0].time)[1])
    if members:
        told = _latest_source_time(states)
        # A total said in a turn the ledger's members come from is about that set, in any words.
        sources = [e for e in holding if e.role == "current-value"]
        stated += [
            (e, n)
            for e in sources
            if e not in [x for x, _ in stated] and (n := stated_quantity(e.text, set())) is not None
        ]
        totals = [
            (e, n)
            for e, n in stated
            if stated_total(e.text, focus if e.role != "current-value" else set())
            and (told is None or e.time >= told)
        ]
        if totals and plan.prefers_latest:
            # "So that's three animals now", said after the last member the ledger holds: the
            # speaker's own total outranks a set extraction may have left incomplete.
            return str(max(totals, key=lambda x: x[0].time)[1])
        return str(len(members))
    if until is not None:
        # A count in a past period is never read from what was said after it ended.
        stated = [(e, n) for e, n in stated if e.time <= until]
    if stated:
        e, n = max(stated, key=lambda x: x[0].time) if plan.prefers_latest else stated[0]
        return str(n)
    if trace is not None:
        return str(trace.value)  # one statement of the set's size, never changed since
    if kin_trace is not None:
        return str(kin_trace.value)
    # Last resort, for events, the turns that mention what is counted ("how many times did she go hiking");
    # none: the count is unknown, not the number of turns retrieved.
    if not _EVENTS.search(question):
        return None  # "How many brothers?": turns mentioning brothers do not count them
    mentioning = {(e.conversation_id, e.turn_id) for e in holding if about(e.text, focus)}
    return str(len(mentioning)) if mentioning and focus else None


FREQUENCY_WORDS = frozenset({"time", "times", "week", "day", "month"})
_EVENTS_OFTEN = re.compile(r"\bhow often\b", re.IGNORECASE)
_EVENTS = re.compile(r"\bhow many times\b|\bhow often\b|\bdid\b(?!.*\b(?:have|own)\b)", re.IGNORECASE)
"""Counts of events ("how many pets did A adopt?"), which mentioning turns may count; a count of
things someone has ("how many brothers does Sven have?") is not a count of turns."""


def _settled_by_correction(fact: FactItem, evidence: list[EvidenceItem]) -> FactItem:
    """A conflict whose values were all said in one turn that corrects itself ("Leo is 6. Sorry,
    Leo is 7 now") is no conflict: the value said after the correction holds. Else the fact."""
    if fact.status != "conflict":
        return fact
    refs = {ref for r in fact.revisions for ref in r.get("sources", [])}
    if len(refs) != 1:
        return fact
    ref = next(iter(refs))
    turn = next((e for e in evidence if f"{e.conversation_id}/{e.turn_id}" == ref), None)
    corrected = after_correction(turn.text) if turn is not None else None
    if not corrected:
        return fact
    said = [v for v in fact.values if re.search(rf"(?<!\w){re.escape(v)}(?!\w)", corrected, re.I)]
    if len(said) != 1:
        return fact
    return fact.model_copy(update={"status": "state", "values": said})


def _latest_source_time(states: list[FactItem]) -> datetime | None:
    """When the latest revision behind the resolved sets was told (None when unknown)."""
    times = []
    for f in states:
        for r in f.revisions:
            with contextlib.suppress(TypeError, ValueError):
                times.append(datetime.fromisoformat(str(r.get("known_from") or r.get("valid_from"))))
    return max(times, default=None)


def offline_read(
    question: str,
    plan: Plan,
    pack: PackResult,
    facts: list[FactItem],
    people: frozenset[str] = frozenset(),
    addressed: Addressed | None = None,
) -> tuple[str, Status]:
    """Answer with a value and its evidence, or abstain. The ledger answers first; then the
    best-supported turn that still holds, cut to the span the question asks for. `people` are the
    namespace's known people: a turn telling only of another of them does not answer. A reply
    to the conversation's own asking of this question ("How long have you been cooking?" /
    "About four years.") answers a duration in place of date arithmetic, and whatever the rules
    would otherwise abstain on (agents.replies). `addressed` is the conversation's user and its
    agents when they are known: the agent's "you" is the user."""
    answer, status = _read_rules(question, plan, pack, facts, people, addressed)
    told = _told(pack)
    if (owner := owner_answer(question, told)) is not None:
        # "Whose dog is Bobbin?": the keeper the turns give the name ("Bobbin, Rhett's new puppy")
        answer, status = owner, "answered"
    named = [n for n in plan.entities if n.casefold() not in ("user", "the user")]
    if status == "abstained" and (age := age_answer(question, told, named)) is not None:
        # "How old is Horopito?" where no rule above read one: the latest turn that binds an
        # age to the name ("my cat Horopito, a tortoiseshell who's fourteen")
        answer, status = age, "answered"
    if status == "abstained" or plan.operation == Operation.TEMPORAL_ARITHMETIC:
        reply = reply_to_question(question, told, before=said_by(question, plan))
        if reply is not None:
            answer, status = reply.answer, "answered"
    if status == "answered" and (fixed := number_put_right(question, answer, told)) is not None:
        # "The fee is $1,400", then "the exam fee is $1,900, not $1,400": the number taken back
        # is not the answer, whatever rule read it
        answer = fixed
    if status == "answered" and answer_type(question) is AnswerType.YESNO:
        answer = with_verdict(answer, question)  # a yes/no question is answered yes or no, with the quote
    elif status == "answered" and not re.search(r"\bor\b", question) and echoes_question(answer, question):
        # "What position did I play in roller derby?" -> "roller derby": the question's own words
        # say nothing it did not
        answer, status = abstention(question), "abstained"
    elif status == "answered" and no_value_of_kind(question, answer):
        answer, status = abstention(question), "abstained"
    return answer, status


_WHICH = re.compile(
    r"^\s*(?:which|what)\s+(?!(?:is|was|are|were|did|does|do|has|have|had)\b)[a-z]"
    r"|^\s*what(?:['’]s|\s+is|\s+was)\s+the\s+name\s+of\b",
    re.I,
)
_POSSESSOR_ONLY = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-Ž][\w-]*['’]s\W*")
_CUE_ONLY = re.compile(
    r"\W*(?:(?:wait|no|sorry|actually|oh|ah|um+|hm+|well|hang\s+on|hold\s+on|I\s+mean)\W*)+", re.I
)
_COUNTED_WORD = re.compile("(?:" + "|".join([*CARDINALS, *TEENS, "twenty"]) + ")", re.I)
"""A number said in words: how many, never which one ("Two" is no journal)."""
_CLAUSE_SCRAP = re.compile(
    r"(?i:I|we|you|he|she|they|it)(?:['’](?:ve|m|re|s|d|ll))?(?:\s+(?!(?:a|an|the|just|my|our)\b)[a-z]+){0,2}\W*"
)
"""A subject and a verb with nothing named ("I've moved", "We've been"): a scrap of a clause."""


def no_value_of_kind(question: str, answer: str) -> bool:
    """Whether a "which/what <noun>" answer is no value at all (pure): a possessor alone ("Which
    film did Radka work on?" -> "Jolanta's"), a number word for a thing that is not a number
    ("Which journal published my second paper?" -> "Two"), or a scrap of a clause ("On which
    island ...?" -> "I've moved"). A "whose" question is answered by a possessor. Whatever the
    question, the cue of a repair alone ("Wait, no") is no value.

    Args:
        question: as asked.
        answer: the answer read.

    Returns:
        True when the answer cannot be the value the question asks for.
    """
    if re.search(r"\bwhose\b", question, re.I):
        return False
    text = answer.strip()
    if _CUE_ONLY.fullmatch(text):
        return True  # "Wait, no": the words that put a value right, without it
    if not _WHICH.search(question) and not re.match(r"^\s*(?:on|in|at|from|to)\s+which\b", question, re.I):
        return False  # "Who's doing the deliveries?" -> "Saskia's": Saskia is
    if _POSSESSOR_ONLY.fullmatch(text):
        return True
    if _CLAUSE_SCRAP.fullmatch(text):
        return True
    return answer_type(question) is AnswerType.OTHER and bool(_COUNTED_WORD.fullmatch(text.strip(" .!")))


def echoes_question(answer: str, question: str) -> bool:
    """Whether an answer's content words are all words of the question (it adds nothing).

    Args:
        answer: the answer's text.
        question: as asked.

    Returns:
        True when the answer has content words and every one is in the question.
    """
    said = {w for w in re.findall(r"[\w'’]+", answer.lower()) if w not in _FUNCTION_WORDS}
    asked = {w for w in re.findall(r"[\w'’]+", question.lower()) if w not in _FUNCTION_WORDS}
    return bool(said) and said <= asked


_FUNCTION_WORDS = frozenset(
    "a an the my our your his her their its i we you he she they it me us them is was are were be been am "
    "in on at to of for from with by and do did does what which who where when".split()
)
"""Words that carry no value of their own; "off", "not", "no" and the like do ("my Japan trip is off")."""


@dataclass(frozen=True)
class Addressed:
    """Who an agent's "you" is: the conversation's one user, and the speakers who are its agent."""

    user: str
    """The user's speaker label ("user", or the name they go by)."""
    agents: frozenset[str]
    """The agent's speaker labels."""


_YOU = re.compile(r"\b(?:(?P<poss>your)|(?P<are>you['’]re)|(?P<have>you['’]ve))\b", re.IGNORECASE)
"""The agent's words for what is the user's ("your workshop", "you're in Tartu now"); a bare
"you" is left alone ("Nice to meet you" says nothing of the user)."""


def _as_meant(e: EvidenceItem, addressed: Addressed | None = None, *, repair: bool = True) -> EvidenceItem:
    """The evidence as its speaker meant it: in-turn self-repairs applied (`agents.repairs`), and
    in an agent's turn, "you" read as the user it speaks to ("your workshop is in Earlsdon now"
    is said of the user, though it names nobody). Without `repair` (a question about what came
    before), the turn's values stay as first said."""
    text = repaired(e.text) if repair else e.text
    if addressed is not None and e.speaker in addressed.agents:
        user = addressed.user
        text = _YOU.sub(
            lambda m: f"{user}'s" if m.group("poss") else f"{user} is" if m.group("are") else f"{user} has",
            text,
        )
    return e if text == e.text else e.model_copy(update={"text": text})


def _told(pack: PackResult) -> list[EvidenceItem]:
    """Every packed turn a rule may read, context included: not a value the ledger holds in
    conflict, and not an instruction (orders are data, never answers)."""
    return [
        e
        for c in pack.closures
        for e in c.evidence
        if e.role != "conflicting-value" and not looks_like_instruction(e.text)
    ]


def _read_rules(
    question: str,
    plan: Plan,
    pack: PackResult,
    facts: list[FactItem],
    people: frozenset[str],
    addressed: Addressed | None = None,
) -> tuple[str, Status]:
    """`offline_read`'s rules, before a reply to the conversation's own question is consulted."""
    every = [e for c in pack.closures for e in c.evidence]
    readable = _told(pack)
    if asks_about_pet(question) and (pet := pet_answer(question, readable)) is not None:
        return pet, "answered"  # "Whose dog is Brisa?": the turn naming the animal says
    if (birthday := birthday_answer(question, readable)) is not None:
        return birthday, "answered"  # "When is Tamsin's dad's birthday?": the date bound to him
    frame = plan.time_to if plan.time_to is not None and not plan.needs_current else None
    if (often := frequency_answer(question, readable, frame)) is not None:
        return often, "answered"  # "How often ...?": the frequency said, not a count of turns
    if (instead := replacement_for(question, readable)) is not None:
        return instead, "answered"  # "Where did we go instead of Disneyland?": what replaced it
    if (year := vintage_answer(question, readable)) is not None:
        return year, "answered"  # "What year is my Pajero?": the year said of it, not a turn's date
    if unnamed_kin(question, plan):
        # "What does Idris's mum do?": the ledger's facts about Idris are not about his mother.
        facts = [f for f in facts if f.predicate in RELATIONS]
    facts = [_settled_by_correction(f, every) for f in facts]
    conflicts = [f for f in facts if f.status == "conflict"]
    if conflicts:
        f = conflicts[0]
        return (
            f"Conflict: {f.subject}'s {f.predicate} is one of {' or '.join(f.values)}; the ledger cannot order them",
            "conflict",
        )
    states = [f for f in facts if f.status == "state" and f.values]
    if (who := identity_answer(question, states)) is not None:
        return who, "answered"  # "Who is Bernard?": the relation a value names him by
    missing = unmentioned(question, plan, every, facts)
    if missing:
        # "What was Tom's time in the Berlin marathon?" when only the Paris half was said: what
        # the evidence says is about something else.
        return f"I don't know: nothing in memory mentions {missing[0]}.", "abstained"
    # Context-fill turns (role "context") are what no assistant quoted: a model may read them,
    # but rules cannot judge them, so they never count, list or answer here. Turns stating a value
    # the ledger no longer holds ("superseded-value") never answer either.
    evidence = sorted(
        (e for c in pack.closures for e in c.evidence if e.role not in ("context", "conflicting-value")),
        key=lambda e: -e.score,
    )
    evidence = [e for e in evidence if not looks_like_instruction(e.text)]  # orders are data, never answers
    # "starts 2 October. sorry, 3 October": read each turn as the speaker meant it (the evidence
    # the answer cites stays as said).
    evidence = [_as_meant(e, addressed, repair=not plan.asks_previous) for e in evidence]
    holding = [e for e in evidence if e.role != "superseded-value"]
    if (until := said_by(question, plan)) is not None:
        # "What diet was I on in February?": a turn said after February tells a later state.
        holding = [e for e in holding if e.time < until] or holding
    states = without_retracted([_without_negated(f, every) for f in states], holding, plan)
    # "Am I still ...?": what was said last about it, not the best quote of the plan
    told = [_as_meant(e, addressed, repair=not plan.asks_previous) for e in readable]
    verdict = yes_no(question, told)
    if verdict is not None and verdict.startswith("No"):
        # The ledger decides what is current: when it holds the asked thing as replaced, its
        # answer names the value now held; the sentences only propose which one ended it.
        ledger = _fact_answer(question, plan, states) if states else None
        if ledger is not None and ledger.startswith("No:") and answer_type(question) is AnswerType.YESNO:
            return ledger, "answered"
        return verdict, "answered"
    then = said_by(question, plan) or (
        plan.time_to
        if plan.time_to is not None and not plan.needs_current and _PAST.search(question)
        else None
    )
    moved = rescheduled(question, told, plan.asks_previous, then, people)
    if moved is not None:
        return moved, "answered"  # "When is the wedding?": the time it was last moved to
    if plan.operation == Operation.FACT and (member := which_member(question, holding, people)):
        return member, "answered"  # "Which of my sons plays football?": the one its clause names
    copular = copular_question(question)
    if copular is not None and plan.operation == Operation.FACT and not plan.asks_previous:
        # "What breed is Biscuit?" after "I told you Biscuit is a greyhound, he's actually a
        # lurcher": the ledger filed the first statement with the pet's name, and keeps it
        # (the name stands); the kind said in the correction replaces the kind.
        told_at = _latest_source_time(states) if states else None
        for e in sorted(told, key=lambda e: e.time, reverse=True):
            if told_at is not None and e.time < told_at:
                break
            kind = corrected_kind(e.text, copular)
            if kind is not None:
                return kind, "answered"
    if states and plan.operation in (Operation.FACT, Operation.LIST):
        value = _fact_answer(question, plan, states)
        if value is not None:
            later = None
            if plan.operation == Operation.FACT:
                later = _dropped_later(question, plan, states, holding) or newer_typed(
                    question, plan, states, holding
                )
            if what_head(question) in TOWN_HEADS and _home_value(value, states):
                # "Which city does Dragana live in?": the ledger's "Vračar" is a part of Belgrade
                return containing_town(later or value, told) or later or value, "answered"
            return (later or value), "answered"
    if verdict is not None:
        return verdict, "answered"
    if plan.operation == Operation.FACT:
        replaced = _replacement_of_ended(question, plan, facts, every)
        if replaced is not None:
            return replaced, "answered"
    if (
        plan.operation == Operation.COUNT
        and (states or holding or told)
        # "How many kilos is Elsie?" asks a measure in units, read below, not a count of things
        and answer_type(question) is not AnswerType.MEASURE
    ):
        # The replay reads context turns too: it judges each sentence by its own rules (what is
        # counted, the members named), and a loss is often said in a turn no assistant quoted;
        # so does a total no assistant quoted ("So three working for me now").
        n = _count(question, plan, states, holding, told)
        return (n, "answered") if n is not None else (abstention(question), "abstained")
    if not holding:
        return abstention(question), "abstained"
    corrected = _corrected_value(question, plan, holding)
    if corrected is not None:
        value, said_at = corrected
        # a later turn may drop the corrected value in turn ("Carys works in Brigg, not three
        # days" then "Carys has left the practice in Brigg ... Beverley now")
        if (
            plan.operation == Operation.FACT
            and plan.prefers_latest
            and answer_type(question) in _TYPED_PLACES
        ):
            value = _replaced_since(question, plan, value, said_at, holding) or value
        return value, "answered"
    if (
        plan.operation == Operation.FACT
        and not states
        and answer_type(question) is AnswerType.OTHER
        and (named := named_instance(what_head(question), holding, said_by(question, plan) or plan.time_to))
    ):
        return named, "answered"  # "Which watch was I on?": "Red Watch"
    off = called_off(question, plan, holding)
    if off is not None and plan.operation == Operation.TEMPORAL_LOOKUP:
        # "not happening in November ... They're saying May next year": called off for a date
        # the same turn replaces, which the lookup below answers
        source = next((e for e in holding if off in e.text), None)
        if source is not None and _new_date_given(source):
            off = None
    if off is not None:
        return off, "answered"  # "When is the surgery?": it was called off, not its old date
    if plan.operation == Operation.TEMPORAL_LOOKUP and answer_type(question) not in _NOT_DATES:
        # ("What time does the shop open?" asks an hour, "What time did Maelle run?" a time
        # taken: the typed read below, never a date.)
        candidates = _candidates(question, plan, holding, people=people) or holding
        if plan.entities and not any(dated(e) for e in candidates[:READ_DEPTH]):
            # "The wedding was beautiful", said a week later, dates nothing; a turn about the
            # same person that states a date ("getting married ... on the 24th") may, in whatever
            # words it names the event.
            candidates = candidates + [
                e
                for e in holding[:READ_DEPTH]
                if e not in candidates
                and dated(e)
                and involves(e, plan.entities)
                and not e.text.rstrip().endswith("?")
            ]
        # Turns about the same thing that state a date, after the candidates: they may give the
        # day of a month the best candidate names ("in January" / "on the 29th of January").
        focus = focus_words(question, set(plan.entities))
        candidates = candidates + [
            e for e in holding[: READ_DEPTH * 2] if e not in candidates and dated(e) and about(e.text, focus)
        ]
        began = _value_began(question, facts, evidence)
        if began is not None:
            # "When did Kofi move to Kumasi?": the turn the ledger dates Kumasi from ("I'll move
            # there in August"), not the latest that mentions it ("I'm in Kumasi now, the
            # programme started two weeks ago")
            candidates = [began, *(e for e in candidates if e is not began)]
        when = temporal_lookup(question, candidates, plan.entities, frozenset(focus), frame)
        if when and _ASKS_DAY.match(question) and not _HAS_DAY.search(when):
            when = None  # "What day does my book club meet?" is not answered by "August 2024"
        return (when, "answered") if when else (abstention(question), "abstained")
    if plan.operation == Operation.TEMPORAL_ARITHMETIC:
        stated = stated_duration(question, focus_words(question, set(plan.entities)), holding)
        if stated is not None:
            return stated, "answered"  # "thirty-one years of teaching": said, not computed
        pair = arithmetic_endpoints(question, holding)
        if pair is None:
            return abstention(question), "abstained"
        return _duration(event_date(pair[0])[0], event_date(pair[1])[0]), "answered"
    kind = answer_type(question)
    exclude = {n.lower() for n in plan.entities} | {e.speaker.lower() for e in holding}
    if kind is AnswerType.PERSON:
        # "Who wrote the book the user is reading?": the book's title is a name, not a person's.
        exclude |= {
            bare_value(v).lower()
            for f in states
            if f.predicate not in PREDICATES_FOR[AnswerType.PERSON]
            for v in f.values
        }
    if plan.operation in (Operation.FACT, Operation.LIST) and asked_head(question) in DAY_PARTS:
        # "What evening is Ione's ceramics class?" asks a weekday as "what day" does: the day
        # that replaced the old one when the turn changes it, unless the question is about then.
        pool = _candidates(question, plan, holding, people=people) or holding[:READ_DEPTH]
        if plan.time_to is not None:
            pool = [e for e in pool if e.time <= plan.time_to] or pool
        now = plan.prefers_latest and not plan.asks_previous and plan.time_to is None
        day = weekday_answer(question, pool[:READ_DEPTH], now=now)
        if day is not None:
            return day, "answered"
    copular = copular_question(question)
    if (
        copular is not None
        and plan.operation in (Operation.FACT, Operation.LIST)
        and kind is AnswerType.OTHER
    ):
        # "What breed is Rufus?": only "Rufus is a beagle" says it; a turn that merely names
        # Rufus, or says "breed" of someone else, does not.
        for e in holding[: READ_DEPTH * 2]:
            value = copular_value(e.text, copular)
            if value:
                return value, "answered"
        return abstention(question), "abstained"
    if plan.operation == Operation.LIST:
        items = [
            answer_span(question, kind, e.text, e.image_caption, exclude, _others(e, plan.entities)).text
            for e in holding
        ]
        return ", ".join(list(dict.fromkeys(items))[:6]), "answered"
    if plan.operation in (Operation.FACT, Operation.LIST) and kind in (AnswerType.OTHER, AnswerType.PERSON):
        # "Which cat is on kidney food?": the one named as the subject of the clause saying it.
        found = [
            (hit, -i)
            for i, e in enumerate(holding[:FRAME_DEPTH])
            if (hit := which_one(question, e.text, e.speaker, exclude)) is not None
        ]
        if found:
            return max(found, key=lambda x: (x[0][1], x[1]))[0][0], "answered"
    if not states and plan.operation == Operation.FACT:
        newer = newer_typed(question, plan, [], holding)
        if newer is not None:
            return newer, "answered"
    names = frozenset(n for f in states for v in f.values if (n := named_value(v)))
    # A measured quantity's unit says what it measures ("Elsie is 5.6 kg" answers "How much does
    # she weigh?" without the word): the typed span decides, not an amount naming the question's words.
    amount = plan.operation == Operation.FACT and asks_amount(question) and kind is not AnswerType.MEASURE
    amount_focus = focus_words(question, set(plan.entities)) - {"much", "per"} if amount else set()
    money = amount and asks_money(question)
    payer = payer_words(question) if money else set()
    chosen: Span | None = None
    chosen_turn = ""
    chosen_speaker = ""
    chosen_time: datetime | None = None
    pool = _candidates(question, plan, holding, names, frozenset(exclude), people)
    if money and (sold := sold_for(question, holding[: READ_DEPTH * 2], plan.entities, amount_focus)):
        return sold, "answered"  # "What did my house sell for?": "Sold! £392,000."
    for e in pool:
        span = answer_span(
            question,
            kind,
            e.text,
            e.image_caption,
            exclude,
            _others(e, plan.entities),
            current=not plan.asks_previous,
        )
        if kind in NEEDS_SPECIFIC and not span.specific:
            continue
        if kind in (AnswerType.PHONE, AnswerType.EMAIL) and labelled_otherwise(question, e.text, span.text):
            continue  # a work email is not the personal one asked for
        if amount and not (
            states_amount(span.text, amount_focus, money=money)
            or states_amount(e.text, amount_focus, money=money)
        ):
            continue  # "How much is the rent now?" is not answered by "with the rent going up"
        if money and payer and not about(e.text, payer) and e.speaker.lower() not in payer:
            continue  # "How much did the landlord charge?" is not answered by what a job cost
        if money and kind is AnswerType.OTHER and (sum_ := money_span(e.text, amount_focus)):
            # "How much deposit did Cormac pay?": the sum, not the sentence that says it; for a
            # question about now, the latest sum said of it ("It's eighty a lesson now")
            newer_sums = (
                [
                    (x, said)
                    for x in holding
                    if x.time > e.time
                    and involves(x, plan.entities)
                    and (said := money_span(x.text, amount_focus))
                    and (not payer or about(x.text, payer) or x.speaker.lower() in payer)
                ]
                if plan.prefers_latest and not plan.asks_previous and plan.time_to is None
                else []
            )
            if newer_sums:
                e, sum_ = max(newer_sums, key=lambda xs: xs[0].time)
            chosen, chosen_turn, chosen_speaker = Span(sum_, True), e.text, e.speaker
            break
        if kind is AnswerType.PERSON and not span.specific and not names_people(span.text, exclude):
            continue  # "Who wrote it?" is not answered by a sentence that names nobody
        if not span.specific and not states_something(span.text, [*plan.entities, e.speaker]):
            continue
        if not span.specific and not adds_content(span.text, question, [*plan.entities, e.speaker]):
            continue  # "he's started his new job" does not say which job
        if not span.specific and only_restates_given(span.text, question, [*plan.entities, e.speaker]):
            continue  # "What is Rhodri doing now that he's retired?" is not "Rhodri retired in March"
        if kind not in (AnswerType.PERSON, AnswerType.NAME) and only_a_person(
            span.text, people | names | exclude
        ):
            continue  # "Which marathon did Bea run?" is not answered by "Tariq!", who she spoke to
        if not span.specific and not answers_asked_kind(question, span.text):
            continue  # "Idris's mum lives in Busan" says where she lives, not what she does
        chosen, chosen_turn, chosen_speaker, chosen_time = span, e.text, e.speaker, e.time
        break
    frame = question_frame(question) if plan.operation == Operation.FACT else None
    if frame is not None and (chosen is None or not (chosen.specific or has_revision_cue(chosen_turn))):
        # No typed span: what a turn says of the asked person with the asked verb is the value
        # ("he's doing judo now" for "What sport does Teo do?"), in whatever other words.
        value = framed_value(frame, kind, plan, holding, exclude)
        if value is not None and money and not states_amount(value, amount_focus, money=True):
            value = None  # "How much did Tidewrack pay me?" is not answered by what they hired me for
        if value is not None:
            return value, "answered"
        if (
            chosen is not None
            and not has_revision_cue(chosen_turn)
            and after_correction(chosen_turn) is None
            and not says_of_subject(frame, chosen.text, chosen_speaker, _user_names(frame, plan))
        ):
            # "What car did Piet buy?" is not answered by "saving for a car": a sentence that
            # shares the topic but not the asked verb says nothing of what was bought; nor by
            # another person's "I bought a car".
            return abstention(question), "abstained"
    if chosen is not None and not chosen.specific and plan.operation == Operation.FACT:
        head = asked_head(question)
        which = modified_head(chosen.text, head) if head and kind is AnswerType.OTHER else None
        if which is not None:
            return which, "answered"  # "Which seat?": "an aisle seat", not the whole sentence
    if (
        chosen is not None
        and chosen.specific
        and plan.operation == Operation.FACT
        and plan.prefers_latest
        and kind in _TYPED_PLACES
    ):
        # "Carys works in Brigg", then "Carys has left the practice in Brigg. She's doing her
        # four days at a surgery in Beverley now": no ledger value, but the turn that drops the
        # place answers a question about now
        replaced = _replaced_since(question, plan, chosen.text, chosen_time, holding)
        if replaced is not None:
            return replaced, "answered"
    if (
        chosen is not None
        and chosen.specific
        and kind is AnswerType.PLACE
        and what_head(question) in TOWN_HEADS
    ):
        return containing_town(chosen.text, told) or chosen.text, "answered"  # Vračar's city, as above
    if chosen is not None:
        return chosen.text, "answered"
    return abstention(question), "abstained"


_TYPED_PLACES = frozenset({AnswerType.PLACE, AnswerType.PERSON})
"""Kinds whose replacement a later turn must name in kind ("in Beverley now") to replace a value."""
_PAST = re.compile(r"\b(?:did|was|were|had)\b", re.IGNORECASE)
"""A question in the past tense: a period it names is when the answer held."""


def _corrected_value(question: str, plan: Plan, holding: list[EvidenceItem]) -> tuple[str, datetime] | None:
    """The value a self-correction about the question states ("I told you the bakery was on
    Gloucester Road. It's on Cheltenham Road"), read from its replacing clause only, so the value
    it takes back is never the answer; None when no turn corrects the asked thing, or its
    replacing clause holds no value of the asked type."""
    if plan.operation not in (Operation.FACT, Operation.TEMPORAL_LOOKUP):
        return None
    money = plan.operation == Operation.FACT and asks_money(question)
    found = latest_correction(question, plan, holding, TYPE_WORDS, money_in if money else None)
    if found is None:
        return None
    e, correction = found
    if money and (sum_ := money_in(correction.replacement)):
        return sum_, e.time  # "I told you £11,000, but with the VAT it was £12,000"
    clause = e.model_copy(update={"text": correction.replacement, "image_caption": None})
    if plan.operation == Operation.TEMPORAL_LOOKUP:
        if not dated(clause):
            # "I told you her birthday was the 9th of July. It's the 19th": the day put right in
            # the date it takes back
            clause = clause.model_copy(update={"text": with_day_of(correction)})
        when = temporal_lookup(question, [clause], plan.entities) if dated(clause) else None
        return (when, e.time) if when else None
    kind = answer_type(question)
    if kind is AnswerType.AGE and (age := age_in(correction.replacement)) is not None:
        return age, e.time  # "He's seventeen": the age in words
    exclude = {n.lower() for n in plan.entities} | {e.speaker.lower()}
    span = answer_span(question, kind, clause.text, None, exclude, _others(e, plan.entities), current=True)
    if span.specific:
        return span.text, e.time
    if kind in NEEDS_SPECIFIC and not (kind in _OPEN_SHAPE and re.search(r"\s[A-Z]", clause.text)):
        return None  # a phone number, an age, a name: only a span of that shape answers
    return (correction.replacement, e.time) if answers_asked_kind(question, clause.text) else None


_OPEN_SHAPE = frozenset({AnswerType.PROPER, AnswerType.TOPIC})
"""Specific answer types a correcting clause may answer whole when it names something ("I'm at St
Cuthbert's this year"): the typed span misses names with a possessive or an abbreviation."""

FRAME_DEPTH = 6
"""The framed read looks at this many best-supported holding turns."""


def _user_names(frame: Frame, plan: Plan) -> list[str]:
    """The question's people are the user's names when the question is in the first person or
    names the user by a name they told (the planner then lists "user" among its subjects)."""
    told = any(n.lower() == "user" for n in plan.entities)
    return ["user", *plan.entities] if frame.subject == SELF or told else ["user"]


def framed_value(
    frame: Frame, kind: AnswerType, plan: Plan, holding: list[EvidenceItem], exclude: set[str]
) -> str | None:
    """The value the best-supported turns state of the frame's subject with its verb: for a
    question about now, the latest turn that states one (a later statement replaces an earlier
    one when no ledger predicate orders them); for a question about a time, the latest said by
    then; else the best-supported.

    Args:
        frame: the question's frame.
        kind: the question's answer type.
        plan: the plan (entities, time, whether the latest holds).
        holding: the holding evidence, best first.
        exclude: names that are not values.

    Returns:
        The value, or None when no turn states one.
    """
    user_names = _user_names(frame, plan)
    found = [
        (e, value)
        for e in holding[:FRAME_DEPTH]
        if (value := frame_value(frame, kind, e.text, e.speaker, exclude, user_names)) is not None
    ]
    if plan.time_to is not None:
        found = [(e, v) for e, v in found if e.time <= plan.time_to] or found
    if not found:
        return None
    if (plan.prefers_latest and not plan.asks_previous) or plan.time_to is not None:
        e, value = max(found, key=lambda ev: ev[0].time)
        terms = [w for w in re.findall(r"[\w'’-]+", value) if len(w) > 2 and not w.isdigit()]
        terms = [w for w in terms if w.lower() not in STOP_WORDS]
        if plan.time_to is None and terms:
            # "I drive a Honda Jazz", then "I sold the Jazz, we bought a Yaris": a later turn that
            # lets the value go says what replaced it, in whatever verb.
            later = [
                x
                for x in holding[:FRAME_DEPTH]
                if x.time > e.time
                and revises(x.text, terms)
                and revised_value(x.text) is not None
                and bound_clauses(x.text, frame.subject, x.speaker, user_names)  # of the same person
            ]
            if later:
                return revised_value(max(later, key=lambda x: x.time).text)
        return value
    return found[0][1]


def _value_began(
    question: str, facts: Sequence[FactItem], evidence: Sequence[EvidenceItem]
) -> EvidenceItem | None:
    """The dated turn the ledger's earliest revision of a current value the question names was read
    from: when that value began to hold ("When did Kofi move to Kumasi?" -> the revision of
    lives_in = Kumasi valid from August, from "I'll move there in August"). None when the question
    names no current value or its source turn states no date."""
    by_ref = {f"{e.conversation_id}/{e.turn_id}": e for e in evidence}
    for fact in facts:
        if fact.status != "state":
            continue
        for value in fact.values:
            if not re.search(rf"\b{re.escape(value)}\b", question, re.IGNORECASE):
                continue
            rows = [
                r
                for r in [*fact.revisions, *fact.history]
                if str(r.get("object_text") or r.get("object", "")).lower() == value.lower()
            ]
            for row in sorted(rows, key=lambda r: str(r.get("valid_from", ""))):
                said = [by_ref[s] for s in row.get("sources", []) if s in by_ref]
                if said and dated(said[0]):
                    return said[0]
                break  # the earliest says no date: the value's start is not said
    return None


def only_a_person(text: str, people: frozenset[str] | set[str]) -> bool:
    """True when the text is nothing but a person's name (the one spoken to, a child named in the
    turn): no answer to a question about a place, a thing or a time.

    Args:
        text: a candidate answer.
        people: known people's names (any case).

    Returns:
        Whether the text names only people.
    """
    words = re.findall(r"[\w'’-]+", text)
    known = {p.lower() for p in people}
    return bool(words) and all(w.lower() in known or w.lower() in ("and", "&") for w in words)


_MADE_VERB = re.compile(
    r"\bwhat did .+? (?P<verb>make|paint|draw|bake|cook|build|buy|create|knit|sew)\b", re.I
)
_PAST_OF = {
    "make": "made",
    "paint": "painted",
    "draw": "drew|drawn",
    "bake": "baked",
    "cook": "cooked",
    "build": "built",
    "buy": "bought",
    "create": "created",
    "knit": "knit|knitted",
    "sew": "sewed|sewn",
}


def answers_asked_kind(question: str, sentence: str) -> bool:
    """Whether a whole sentence (no typed span found in it) can answer the question's kind: it
    must not state only facts of another kind than the one asked ("What does she do for a
    living?" is not answered by where she lives), and "what did X make" needs a sentence that
    says something was made (signing up for a pottery course makes nothing yet).

    Args:
        question: the question as asked.
        sentence: the candidate answer sentence.

    Returns:
        False when the sentence answers another kind of question.
    """
    made = _MADE_VERB.search(question)
    if made:
        verb = made.group("verb").lower()
        forms = f"{verb}|{verb}s|{verb}ing|{_PAST_OF[verb]}"
        if not re.search(rf"\b(?:{forms})\b", sentence, re.I):
            return False
    asked = {_FAMILY.get(p, p) for p in predicate_cues(question) if p not in RELATIONS}
    said = {_FAMILY.get(p, p) for p in predicate_cues(sentence) if p not in RELATIONS | _SAID_IN_PASSING}
    return not (asked and said and not asked & said)


_SAID_IN_PASSING = frozenset({"drives"})
"""Predicates whose cue words a sentence uses of other things too ("I drive freight trains for
Harland Rail" tells where one works): they never make a sentence about something else."""


_FAMILY = {
    "works_at": "work",
    "job_title": "work",
    "studies": "work",
    "lives_in": "home",
    "address": "home",
    "hometown": "home",
    "likes": "taste",
    "dislikes": "taste",
    "hobby": "taste",
    "reading": "media",
    "watching": "media",
}
"""Predicates that answer the same kind of question ("what does she do" is answered by where she
works as by her title)."""


PEOPLE_WORDS = frozenset(
    "friend friends family mom mum dad mother father parents sister brother sibling siblings wife husband "
    "partner boyfriend girlfriend son daughter kids children child cousin aunt uncle grandma grandpa "
    "grandmother grandfather niece nephew colleague colleagues coworker coworkers boss team roommate "
    "roommates neighbour neighbor neighbours neighbors classmates teacher coach doctor everyone people "
    "group club crew band".split()
)
"""Words naming people: a sentence answers a who-question only by a name or one of these."""
_TRADES = frozenset(JOBS)
"""A trade names a person too: "I've set up an accountant to do invoices" answers "Who does my
invoices now?"."""


def names_people(sentence: str, exclude: frozenset[str] | set[str] = frozenset()) -> bool:
    """True when the sentence names someone: a people word ("with my sister") or a capitalised
    name after its first word that is not in `exclude` (speakers, titles the ledger holds)."""
    words = re.findall(r"[\w'’]+", sentence)
    return any(w.lower() in PEOPLE_WORDS or w.lower() in _TRADES for w in words) or any(
        w[:1].isupper() and w not in ("I", "I'm", "I've", "I'll", "I'd") and w.lower() not in exclude
        for w in words[1:]
    )


def _as_subject(name: str, question: str) -> bool:
    """True when the question asks about `name` as its subject or possessor ("Where does Lena
    work?", "Lena's phone"): a told name the ledger files under another subject (the user) need
    not be written in the evidence. Only a name inside what is asked about ("the Berlin marathon")
    must be."""
    n = re.escape(name)
    return bool(
        re.search(rf"\b{n}['’]s?\b(?=\s)|\b{n}['’]\s", question)
        or re.search(rf"\b(?:{_AUXILIARIES})\s+{n}\b", question, re.I)
    )


_AUXILIARIES = "does|do|did|is|was|are|were|has|have|had|will|would|can|could|should"


def unmentioned(
    question: str, plan: Plan, evidence: Sequence[EvidenceItem], facts: Sequence[FactItem]
) -> list[str]:
    """The names the question writes (capitalised, after its first subject) that neither the
    evidence nor the facts mention anywhere: a question about something memory holds nothing of.
    Subjects the question only implies ("I" -> the user) are not written, so never missing."""
    if len(plan.entities) < 2:
        return []
    known = " ".join(
        [e.text for e in evidence]
        + [e.image_caption or "" for e in evidence]
        + [e.speaker for e in evidence]
        + [f.subject for f in facts]
        + [v for f in facts for v in f.values]
    )
    return [
        n
        for n in plan.entities[1:]
        if len(n) > 2
        and n[:1].isupper()
        and re.search(rf"(?<!\w){re.escape(n)}(?!\w)", question)
        and not _as_subject(n, question)
        and not re.search(rf"{_WITHIN}{re.escape(n)}(?!\w)", question, re.I)
        and not re.search(rf"(?<!\w){_singular(n)}(?!\w)", known, re.I)
    ]


_WITHIN = (
    r"\b(?:part|parts|area|areas|neighbou?rhood|district|quarter|suburb|side|end|corner|borough)\s+of\s+"
    r"(?:the\s+)?"
)
"""A place the question asks within ("Which part of Helsinki does Ilona live in?"): the answer
names the part (Vallila), and a turn need not say the town."""


def _singular(name: str) -> str:
    """A name as a pattern that also finds its singular ("Saturdays" is mentioned by "every
    Saturday")."""
    if len(name) > 4 and name.endswith("s") and not name.endswith("ss"):
        return f"{re.escape(name[:-1])}s?"
    return re.escape(name)


def _dropped_later(
    question: str, plan: Plan, states: list[FactItem], holding: list[EvidenceItem]
) -> str | None:
    """The value that replaced the ledger's, when a later turn said by the time asked about drops
    it and names another ("I gave up on Italian. I switched to Portuguese"): extraction may not
    have caught the change, but the turn is in the evidence. A question asking for a place or a
    person takes only a replacement of that type ("Caspian's switched to swimming at the pool
    here, Ferdia plays for Cottingham" names no new home). None when no such turn is."""
    if plan.asks_previous or not plan.prefers_latest:
        return None
    fact = states[0]
    if len(fact.values) != 1:
        return None
    return _replaced_since(question, plan, fact.values[0], _latest_source_time([fact]), holding)


def _replaced_since(
    question: str, plan: Plan, value: str, told: datetime | None, holding: list[EvidenceItem]
) -> str | None:
    """What a turn said after `told` (and by the time asked about) puts in place of `value`, when
    it drops it and names another; None when no such turn is (`_dropped_later`)."""
    kind = answer_type(question)
    typed = kind in (AnswerType.PLACE, AnswerType.PERSON)
    until = plan.time_to if plan.time_to is not None and not plan.needs_current else None
    for e in sorted(holding, key=lambda e: e.time, reverse=True):
        if told is not None and e.time <= told:
            break
        if until is not None and e.time > until:
            continue
        if not involves(e, plan.entities):
            continue
        # Only what the turn says of the people asked about ("Yusuf is switching to biology.
        # Idris is still loving law" drops nothing of Idris's).
        said = about_entity(e.text, _others(e, plan.entities))
        said = re.sub(r"([.!?]),\s+", r"\1 ", said)  # clauses kept whole sentences stay sentences
        replacement = revised_value(said)
        if replacement and revises(said, [value]) and value.lower() not in replacement.lower():
            if not typed:
                return replacement
            span = typed_span(kind, replacement, None, {e.speaker.lower()})
            if span and span.lower() not in value.lower():
                return span
    return None


def _replacement_of_ended(
    question: str, plan: Plan, facts: list[FactItem], every: list[EvidenceItem]
) -> str | None:
    """For a current-state question whose ledger value has ended with nothing current ("Finished
    Piranesi. Started The Night Circus"), what the turn that ended it says in its place: the
    sentences of that turn that do not name the ended value. None when no fact ended that way."""
    if plan.asks_previous or not plan.prefers_latest:
        return None
    by_ref = {f"{e.conversation_id}/{e.turn_id}": e for e in every}
    ended_by: list[tuple[str, EvidenceItem]] = []  # (ended value, the turn that ended it)
    for f in facts:
        if f.status != "miss" or not f.history:
            continue
        last = f.history[-1]
        ended = str(last.get("object_text") or last.get("object") or "")
        turns = [by_ref[r] for r in last.get("sources", []) if r in by_ref]
        if ended and len(turns) >= 2:  # else the value's own statement only: nothing said it ended
            ended_by.append((ended, max(turns, key=lambda e: e.time)))
    for _, closing in ended_by:
        # The clauses that name none of the values this turn ended ("Sam got laid off from Delta,
        # he's starting at United" -> "he's starting at United"; a title held at Delta ends too).
        marks = [
            m
            for value, turn in ended_by
            if turn is closing
            for m in (
                [w for w in re.findall(r"[A-Z][\w'’-]+", value) if w not in ("The", "A", "An")] or [value]
            )
        ]
        rest = [
            c.strip()
            for s in sentences(closing.text)
            for c in _CLAUSE_BREAK.split(s)
            if c.strip() and not any(re.search(rf"\b{re.escape(m)}\b", c, re.I) for m in marks)
        ]
        said = ", ".join(rest)
        if said and adds_content(said, question, [*plan.entities, closing.speaker]):
            kind = answer_type(question)
            span = typed_span(kind, said, closing.image_caption, {closing.speaker.lower()})
            return span or best_sentence(question, said)
    return None


_CLAUSE_BREAK = re.compile(r",\s+|;\s+|\s+(?:but|while|whereas)\s+")


def _without_negated(fact: FactItem, every: list[EvidenceItem]) -> FactItem:
    """A set-valued fact without the values a later turn says are not so ("I'm allergic to tree
    nuts, not peanuts" after "allergic to peanuts"): extraction may have added the new value
    without ending the old one."""
    if len(fact.values) < 2:
        return fact
    told = {
        str(r.get("object_text") or r.get("object")): str(r.get("known_from") or "") for r in fact.revisions
    }
    refs = {ref for r in fact.revisions for ref in r.get("sources", [])}
    turns = [e for e in every if f"{e.conversation_id}/{e.turn_id}" in refs]
    kept = []
    for v in fact.values:
        words = [w for w in re.findall(r"[\w'’-]+", v) if len(w) > 3][:1] or [v]
        negated = any(
            re.search(rf"\bnot\s+(?:\w+\s+)?{re.escape(words[0])}", e.text, re.I)
            and e.time.isoformat() >= told.get(v, "")[:19]
            for e in turns
        )
        if not negated:
            kept.append(v)
    return fact.model_copy(update={"values": kept}) if kept and len(kept) < len(fact.values) else fact


_NEW_VALUE = re.compile(r"\b(?:new|now|changed|updated|switched|moved)\b", re.I)
_TYPED_ALONE = frozenset({AnswerType.EMAIL, AnswerType.PHONE, AnswerType.ADDRESS})


def newer_typed(question: str, plan: Plan, states: list[FactItem], holding: list[EvidenceItem]) -> str | None:
    """An email, phone number or address the person themself said is new, later than the
    ledger's value ("New email, kim@x.com, the old one is closing"): a value of that shape can only
    be that kind of value. With no ledger value (no rule read either statement), the latest such
    turn among the packed evidence, whatever its support. None when no later turn says one."""
    kind = answer_type(question)
    if kind not in _TYPED_ALONE or plan.asks_previous or not plan.prefers_latest:
        return None
    if states and not plan.entities:
        return None  # a ledger value is someone's: with nobody asked about, none is compared
    told = _latest_source_time(states[:1])
    current = {v.lower() for v in states[0].values} if states else set()
    for e in sorted(holding, key=lambda e: e.time, reverse=True):
        if told is not None and e.time <= told:
            break
        speaker = e.speaker.lower()
        if plan.entities and speaker != plan.entities[0].lower():
            continue
        if speaker in AGENT_NAMES or not _NEW_VALUE.search(e.text):
            continue  # an agent repeating a value back does not make it one
        span = typed_span(kind, e.text, None, set())
        if span and span.lower() not in current and not labelled_otherwise(question, e.text, span):
            return span  # (a new work mobile is not the personal number asked for)
    return None


_COPULAR = re.compile(
    r"^\s*(?:what|which)\s+(?P<head>[a-z]+)\s+(?:is|are|was|were)\s+(?P<rest>[\w'’ -]+?)\s*\??\s*$", re.I
)


def copular_question(question: str) -> str | None:
    """The thing a "What <kind> is <X>?" question asks the kind of ("What breed is Rufus?" ->
    "Rufus"; "What colour are Grace's hens?" -> "hens"), or None for any other form ("What book is
    Maya reading?" asks what Maya does, not what Maya is)."""
    m = _COPULAR.match(question) or _KIND_OF.match(question)
    if not m or m.group("head").lower() in _QUESTION_HEADS:
        return None
    words = m.group("rest").split()
    if (
        not words
        or len(words) > 3
        or any(w.lower().endswith("ing") or w.lower() in _PARTICLES for w in words)
    ):
        return None  # "Which team is Dylan on?" asks where Dylan is, not what Dylan is
    return re.sub(r"['’]s$", "", words[-1])


_KIND_OF = re.compile(
    r"^\s*(?:what|which)\s+(?:kind|type|sort|breed)\s+of\s+(?P<head>[a-z]+)\s+(?:is|are|was|were)\s+"
    r"(?P<rest>[\w'’ -]+?)\s*\??\s*$",
    re.I,
)
"""'What kind of dog is Rufus?': the kind of Rufus, as 'What breed is Rufus?' asks."""

_PARTICLES = frozenset("on in at from for with about to into of by like".split())
_NOT_KIND_LEADS = frozenset(
    "very so really too quite super pretty always still just getting being not also such more less only "
    "feeling doing going looking".split()
)
"""Words that open a state, not a kind: "Kiwi is very curious", "she's getting old"."""
_QUESTION_HEADS = frozenset(
    {"is", "are", "was", "were", "kind", "type", "sort", "time", "day", "date", "year"}
)


def corrected_kind(text: str, thing: str) -> str | None:
    """What a self-correction says `thing` is instead ("I told you Biscuit is a greyhound, he's
    actually a lurcher" -> "lurcher"), or None when the text corrects nothing said of it."""
    fixed = correction_in(text)
    if fixed is None or not any(re.search(rf"\b{re.escape(thing)}\b", r, re.I) for r in fixed.retracted):
        return None
    said = re.match(
        rf"^(?:(?:he|she|it|they|{re.escape(thing)})(?:['’]s|['’]re|\s+is|\s+are)\s+)?(?:actually\s+|really\s+)?"
        rf"(?:an?\s+|the\s+)?([\w -]+?)(?=\s*(?:[,.;!?]|\band\b|\bbut\b|$))",
        fixed.replacement,
        re.I,
    )
    if said is None or said.group(1).split()[0].lower() in _NOT_KIND_LEADS:
        return None
    return said.group(1).strip()


def copular_value(text: str, thing: str) -> str | None:
    """What the text says `thing` is ("Rufus is a beagle and Miso is a tabby" -> "beagle" for
    Rufus; "Kiwi, a border collie"; "Meet Waffles: beagle, nine weeks old"; "My dog Scout is a
    corgi" for "my dog"), or None. A state ("Kiwi is very curious about them") is not a kind."""
    end = r"(?=\s*(?:[,.;!?]|\band\b|\bbut\b|\bin case\b|\bwho\b|\bthat\b|$))"
    corrected = corrected_kind(text, thing)
    if corrected is not None:
        return corrected
    thing_re = rf"\b{re.escape(thing)}(?:\s+[A-Z][\w'’-]+)?"  # "my dog Scout is a corgi"
    m = None
    for pattern in (
        rf"{thing_re},?\s+(?:is|was|are|were|'s)\s+(?:an?\s+|the\s+)?(?!not\b)([\w -]+?){end}",
        rf"\b{re.escape(thing)},\s+(?:an?|the)\s+([\w -]+?){end}",  # "Kiwi, a border collie"
        rf"\b{re.escape(thing)}:\s+(?:an?\s+)?([\w -]+?){end}",  # "Meet Waffles: beagle, ..."
    ):
        for hit in re.finditer(pattern, text, re.I):
            if hit.group(1).split()[0].lower() not in _NOT_KIND_LEADS:
                m = hit
                break
        if m:
            break
    if not m:
        # "a golden retriever called Biscuit", "a rescue greyhound, her name is Plume": the kind
        # said beside the name.
        m = re.search(
            rf"\b(?:an?|my|our|his|her)\s+((?:[\w-]+\s+){{0,2}}[\w-]+)"
            rf"(?:\s+(?:called|named)|,\s+(?:his|her|its|their)\s+name\s+is)\s+{re.escape(thing)}\b",
            text,
            re.I,
        )
    if not m:
        return None
    value = m.group(1).strip()
    if number_value(value.split()[0]) is not None or value.split()[0].isdigit():
        return None  # "Rufus is six": an age, not a kind
    if value.lower() in GENERIC_KINDS:
        return None  # "a puppy named Bolt": the class, not the breed asked for
    words = value.lower().split()
    if words[-1] in GENERIC_KINDS | _NOT_BREEDS and all(w in COLOURS | _NOT_BREEDS for w in words[:-1]):
        return None  # "a rescue called Bran", "a black kitten called Bigos": no breed said
    return value


_NOT_BREEDS = frozenset("rescue stray foster little big small young old new tiny baby".split())
"""Words said of an animal that are no kind of it: "a rescue", "a little black kitten"."""


def offline_reader_call(question: str, context: str, answer: str) -> LLMCall:
    return LLMCall(
        role="reader",
        model="offline-rules",
        backend="offline",
        prompt_tokens=count_tokens(question) + count_tokens(context),
        completion_tokens=count_tokens(answer),
    )


def llm_read(
    question: str, plan: Plan, pack: PackResult, facts: list[FactItem], chat: ChatModel
) -> tuple[str, Status, LLMCall]:
    prompt = load_prompt("reader")
    messages = [
        {"role": "system", "content": prompt.text},
        {
            "role": "user",
            "content": memory_block(pack.lines())
            + f"\nOperation: {plan.operation.value}\nQuestion: {question}\nAnswer:",
        },
    ]
    try:
        result = chat.chat("reader", messages, max_tokens=64, prompt_hash=prompt.sha256)
    except LLMError as exc:
        call = LLMCall(
            role="reader",
            model=getattr(chat, "model", "?"),
            backend="openai",
            ok=False,
            error=str(exc),
            prompt_tokens=sum(count_tokens(m["content"]) for m in messages),
            prompt_hash=prompt.sha256,
        )
        return "", "error", call
    text = result.text.strip().strip('"').strip()
    if not text or "no information available" in text.lower():
        return abstention(question), "abstained", result.call
    if any(f.status == "conflict" for f in facts) and "conflict" in text.lower():
        return text, "conflict", result.call
    return text, "answered", result.call
