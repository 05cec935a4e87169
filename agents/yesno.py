"""Yes/no questions about a plan or a state ("Am I still ...?", "Did I end up ...?", "Is X still
...?"): answered "No: <what called it off or replaced it>" when the latest statement on what the
question asks about says it ended, and "Yes: <the statement>" to a still-question when nothing said
later ends it.

Why: the best-supported turn of such a question is the plan itself (it repeats the question's
words), so a quote of it reads as a yes although a later turn called it off. What ends a plan or a
state is said with few, topic-free cues (cancelled, is off, fell through, instead, stopping, not
... in the end, moved to another time), but often without the question's words ("The motorbike's
off" for "Am I buying the Royal Enfield?"): the words of the statement that best matches the
question stand in for it, so a later sentence naming the same thing in other words is found.
Pure rules; the reader calls `yes_no` before reading a span.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from emem.agents.revoked import CALLED_OFF
from emem.agents.spans import about, focus_words, sentences
from emem.answer import EvidenceItem
from emem.timeparse import MONTH_NAME, MONTHS

ENDED = re.compile(
    CALLED_OFF.pattern + r"|\binstead\b|\bin\s+the\s+end\b|\bno\s+longer\b"
    r"|(?:\b(?:not|never)|n['’]t)\s+(?:\w+\s+){0,2}(?:anymore|any\s+more)\b|\blost\s+(?:a|an|one|two|the|my|our|his|her)\b"
    r"|\b(?:stopp(?:ed|ing)|quit(?:ting)?|gave\s+up|giving\s+up|given\s+up|dropped|ditched|abandoned)\b"
    r"|\b(?:has|have|had|it)\s+(?:now\s+)?ended\b|\b(?:is|are|it's)\s+(?:all\s+)?over\b|\bfolded\b"
    r"|\b(?:shut|closed|wound)\s+(?:it\s+)?(?:down|up)\b|\bpulled\s+out\s+of\b"
    r"|\bhad\s+to\s+(?:drop|cancel|scrap|pull\s+out|give\s+up|pass\s+on|turn\s+down)\b"
    r"|\b(?:has|have|had|just)\s+left\b|['’]ve\s+left\b|['’]s\s+left\s+(?:the|his|her|my|our|their)\b|\bchanged\s+(?:my|our|his|her|their)\s+minds?\b"
    r"|\b(?:has|have|had)\s+gone\s+(?:off\s+)?to\s+(?:work|live|join)\b|['’]s\s+gone\s+(?:off\s+)?to\s+(?:work|live|join)\b"
    r"|\b(?:moving|moved|move)\s+(?:\w+\s+){0,3}?out\s+of\b"
    r"|\b(?:switched|swapped|changed|moved)\s+(?:over\s+)?(?:from\s+[^,.;!?]+?\s+)?to\b|\bswapped\b"
    r"|\b(?:is|are|was|it['’]s|'s)\s+dead\b|\bisn['’]t\s+(?:up\s+to|going|happening)\b"
    r"|(?:^|[.,;:]\s*)not\s+[A-Z]\w+|\b(?:I['’]m|we['’]re|I\s+am|we\s+are)\s+not\s+\w+ing\b"
    r"|\bno\s+(?!worries|problem|idea|rush|way\b)[a-z]+\b"
    r"|\b(?:stood|stepped)\s+down\b|\bresign(?:ed|ing)\b|\bretired\b|\bhanded\s+(?:\w+\s+)?over\b"
    r"|\b(?:died|passed\s+away|put\s+down|put\s+to\s+sleep)\b|\blost\s+(?-i:[A-Z])\w+"
    r"|\b(?:got|was|been|has\s+been)\s+adopted\b|\bout\s*grown\b|\bgrew\s+out\s+of\b|\bsold\b|\bmoved\s+out\b",
    re.IGNORECASE,
)
"""Cues that a plan or state ended or was replaced, in any topic: a role handed on ("stood down as
treasurer"), a life or a foster placement ended ("We lost Gherkin", "Wonton got adopted"), a
condition outgrown, a thing sold."""
_REPLACEMENT = re.compile(r"\binstead\b|\bchange\s+of\s+plans?\b", re.IGNORECASE)
"""What marks a sentence as the plan that replaced another ("they're coming to us instead"): the
sentence says what holds now, so the question it best answers is answered yes."""
_RESTATED = re.compile(r"[;,]\s*(?:and\s+)?no\s+[A-ZÀ-ÖØ-ÞĀ-Ž]\w+\s*[.!]?\s*$")
"""A recap that restates a replacement by naming what it replaced ("...; no Kristiansund.")."""
_MOVED = re.compile(
    r"\b(?:moved|pushed|postponed|rescheduled|shifted|put\s+(?:it\s+)?off|deferred|delayed)\s+(?:back\s+)?(?:to|until|till)\b"
    r"|\b(?:decided\s+to\s+|going\s+to\s+|I['’]ll\s+)?wait(?:ing)?\s+(?:until|till)\b",
    re.IGNORECASE,
)
"""A plan put to another time: an end of the plan for the time the question asks about."""
_EITHER = re.compile(r"\b\w+\s+or\s+\w+", re.IGNORECASE)
_STILL = re.compile(r"\bstill\b", re.IGNORECASE)
_DONE = re.compile(
    r"\b(?:passed|finished|completed|graduated\s+from|moved\s+up\s+(?:to|from)|outgrew|grown\s+out\s+of)\b",
    re.IGNORECASE,
)
"""A stage done with: an end for a still-question ("Am I still in the A2 Dutch class?" after "I
passed Dutch A2, and I'm in the B1 class now"), not for a question whether it was done."""
_LEAD = re.compile(r"^\s*(?:after|since|following|by)\b[^,]{1,60},\s*", re.IGNORECASE)
"""A clause before the question proper ("After Emrys's message in May, were ..."): the time it
names is when to look from, not what the question asks."""
_ASKS = re.compile(r"^\s*(?:is|are|am|do|does|did|has|have|was|were|will)\b", re.IGNORECASE)
_GENERIC = frozenset("still end ended ending lined planned planning plan going anymore".split())
"""Words of the question that say it asks whether, not what."""


def _weights(words: set[str], corpus: Sequence[str]) -> dict[str, float]:
    """How telling each word is: rarer across the evidence weighs more (an inverse document
    frequency), so "flat" outweighs "moved" when both are said of several things."""
    n = len(corpus) or 1
    return {w: math.log(1 + n / (1 + sum(about(t, {w}) for t in corpus))) for w in words}


def _score(sentence: str, weights: dict[str, float]) -> float:
    # `about` reads "the wedding's been moved" as about the wedding (it drops the possessive)
    return sum(w for word, w in weights.items() if about(sentence, {word}))


def _replacement_asked(sentence: str, weights: dict[str, float], question: str = "") -> bool:
    """Whether the sentence states, as the replacement of a plan, the very thing asked ("Change
    of plan for Easter: Xabier's parents are coming to us instead" for "Did Xabier's parents come
    to us for Easter?"): it marks a replacement, ends nothing else, does not set the replacement
    against what it gave up ("We were going to ..., but ... instead"), names most of what the
    question asks (by weight) and every name it names, and negates none of its words ("The house didn't sell, so we're renting it out
    instead" for "Did we sell the house?")."""
    marker = _REPLACEMENT.search(sentence)
    if marker is None or ENDED.search(_REPLACEMENT.sub(" ", sentence)):
        return False
    if re.search(r"\bbut\b", sentence[: marker.start()], re.IGNORECASE) or not weights:
        return False
    if _score(sentence, weights) < sum(weights.values()) / 2:
        return False
    names = re.findall(r"(?<!^)(?<![.?!]\s)\b[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*", question)
    if any(n != "I" and n.split("'")[0].split("’")[0] not in sentence for n in names):
        return False  # "Are we driving to Carlisle for Easter?" is not what "... instead" says
    return not any(
        re.search(rf"(?:n['’]t|\bnot|\bnever|\bno)\s+(?:\w+\s+)?{re.escape(w)}", sentence, re.IGNORECASE)
        for w in weights
    )


_GIVEN_UP = re.compile(r"\binstead\s+of\s+(?P<gave>[^,.;!?]+)", re.IGNORECASE)


def _given_up(sentence: str, question: str) -> bool:
    """Whether the sentence names what the question asks as what was given up ("do it in
    Montreal instead of Fort Henry" for "Is the wedding going to be at Fort Henry?"): every name
    the question names is in the "instead of" phrase and nowhere else in the sentence."""
    m = _GIVEN_UP.search(sentence)
    if m is None:
        return False
    names = [n for n in re.findall(r"(?<!^)\b[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*", question.strip()) if n != "I"]
    rest = sentence[: m.start()] + sentence[m.end() :]
    return bool(names) and all(
        re.search(rf"\b{re.escape(n)}", m.group("gave")) and not re.search(rf"\b{re.escape(n)}", rest)
        for n in names
    )


def yes_no(question: str, evidence: Sequence[EvidenceItem]) -> str | None:
    """Answer a yes/no question about a plan or state from what was said last about it.

    Args:
        question: the question (a yes/no question; others return None).
        evidence: the evidence to read (the holding turns and the turns the ledger set aside as
            superseded: the plan itself may be one), any order.

    Returns:
        "No: <sentence>" when the latest sentence on the asked thing says it ended, "Yes:
        <sentence>" for a still-question whose thing nothing ended, else None.
    """
    asked = _LEAD.sub("", question)
    if not _ASKS.match(asked) or _EITHER.search(asked):
        return None  # "Is she vegan or vegetarian?" asks which, not whether
    # Names are part of what is asked ("the Rallarvegen with Sverre"); one said of everything
    # (the person asked about) weighs little by its frequency.
    focus = {w for w in focus_words(asked, set()) if w not in _GENERIC}
    if not focus:
        return None
    said = [(e, s) for e in evidence for s in sentences(e.text) if not s.rstrip().endswith("?")]
    if not said:
        return None
    corpus = [e.text for e in evidence]
    weights = _weights(focus, corpus)
    scored = [(e, s, _score(s, weights)) for e, s in said]
    best = max((x for x in scored if x[2] > 0), key=lambda x: (x[2], -x[0].time.timestamp()), default=None)
    if best is None:
        return None
    plan_turn, plan_sentence, _ = best
    if _given_up(plan_sentence, asked):
        return f"No: {plan_sentence}"  # "in Montreal instead of Fort Henry" for "... at Fort Henry?"
    replaced_by_it = _replacement_asked(plan_sentence, weights, asked)
    still = bool(_STILL.search(asked))
    if (ENDED.search(plan_sentence) or (still and _DONE.search(plan_sentence))) and not replaced_by_it:
        return f"No: {plan_sentence}"  # "the dog idea is dead btw": the best match ends it itself
    # The plan's own words stand in for the question's ("a motorbike, a Royal Enfield").
    extra = focus_words(plan_sentence, set()) - focus - _GENERIC
    extra_weights = {w: v / 2 for w, v in _weights(extra, corpus).items()}
    timed = bool(re.search(r"\b(?:in|on|by|for)\s+(?:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž]+|the\s+\w+)\b", asked))
    ends = []
    replacements = []
    for e, s, score in scored:
        if e.time < plan_turn.time or (e is plan_turn and s == plan_sentence):
            continue
        if _given_up(s, asked):
            ends.append((score + 1.0, e.time, s))  # "..., instead of Glenmore Lodge"
            continue
        if not (ENDED.search(s) or (timed and _MOVED.search(s)) or (still and _DONE.search(s))):
            continue
        if not replaced_by_it and _replacement_asked(s, weights, asked):
            # the plan was replaced by what is asked ("meant to drive down to Ailsa's folks" then
            # "Change of plan for Easter: Ailsa's folks came up to us instead")
            replacements.append((e.time, s))
            continue
        if replaced_by_it and (e is plan_turn or score <= 0 or _REPLACEMENT.search(s) or _RESTATED.search(s)):
            # what the replacement ended, said beside it ("Kedarkantha is off ... Hampta Pass
            # instead"), or the replacement said again ("Hampta Pass, 8 to 13 June, instead of ...")
            continue
        total = score + _score(s, extra_weights)
        if total > 0:
            ends.append((total, e.time, s))
    if replacements:
        when, sentence = max(replacements, key=lambda x: x[0])
        if not any(t > when for _, t, _ in ends):
            return f"Yes: {sentence}"
    if ends:
        _, _, sentence = max(ends, key=lambda x: (x[0], x[1]))
        return f"No: {sentence}"
    if _STILL.search(asked) and plan_turn.role == "superseded-value":
        # "Do I still rent the flat above the bakery?": the ledger has replaced what that turn
        # said ("we're moving to Alnwick in August"), in words no cue of an ending need use
        later = [
            (e.time, _score(x, weights) + _score(x, extra_weights), x)
            for e in evidence
            if e.time > plan_turn.time and e.role != "superseded-value"
            for x in sentences(e.text)
            if not x.rstrip().endswith("?")
        ]
        if later:
            return f"No: {max(later, key=lambda x: (x[1], x[0]))[2]}"
    if _STILL.search(asked) or replaced_by_it:
        # "Did Xabier's parents come for Easter?" best matched by "Change of plan: Xabier's
        # parents are coming to us instead": what the question asks is what replaced the plan
        return f"Yes: {plan_sentence}"
    return None


_NEGATED = re.compile(
    r"\b(?:not|never|no\s+longer|nobody|nothing)\b|n['’]t\b|\bno\s+(?!worries|problem|idea)\w+", re.IGNORECASE
)
_VERDICT = re.compile(r"^\s*(?:yes|no)\b", re.IGNORECASE)


def with_verdict(answer: str, question: str = "") -> str:
    """A yes/no question's answer that is a quote, given its verdict (pure): "No: <quote>" when
    the quote ends or negates something ("We're doing the West Highland Way instead", "I've
    decided not to sell the studio") or says the person asked about is something else than asked
    ("he's an emergency call handler" for "Is Fintan a paramedic?"), else "Yes: <quote>". An
    answer that has one is kept.

    Args:
        answer: the reader's answer to a yes/no question.
        question: the question, when known.

    Returns:
        The answer opening with "Yes:" or "No:".
    """
    if _VERDICT.match(answer):
        return answer
    ended = (
        ENDED.search(answer)
        or _NEGATED.search(answer)
        or _something_else(question, answer)
        or _another_day(question, answer)
    )
    return f"{'No' if ended else 'Yes'}: {answer}"


_DAY_MONTH = re.compile(
    rf"\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{MONTH_NAME})\b"
    rf"|\b(?P<m2>{MONTH_NAME})\s+(?:the\s+)?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)


def _days(text: str) -> set[tuple[int, int]]:
    """The (day, month) dates a text says ("the 14th of April", "April 24")."""
    out = set()
    for m in _DAY_MONTH.finditer(text):
        day, month = (m.group("d1"), m.group("m1")) if m.group("d1") else (m.group("d2"), m.group("m2"))
        out.add((int(day), MONTHS[month.lower()]))
    return out


def _another_day(question: str, answer: str) -> bool:
    """Whether "Is my defense on the 14th of April?" is answered by a quote giving another day of
    that month and not the one asked ("Defense date is the 24th of April")."""
    asked, said = _days(question), _days(answer)
    return bool(asked and said and not asked & said and {m for _, m in asked} & {m for _, m in said})


_IS_A = re.compile(
    r"^\s*(?:is|was)\s+(?P<subj>[A-Z][\w'’-]+|he|she)\s+(?:still\s+)?(?:a|an)\s+(?P<noun>[\w -]+?)\s*\??\s*$",
    re.I,
)
_SAYS_IS_A = r"(?:['’]s|\s+is|\s+was)\s+(?:now\s+|actually\s+|really\s+)?(?:a|an)\s+\w"


def _something_else(question: str, answer: str) -> bool:
    """Whether "Is <X> a <noun>?" is answered by a quote saying X is a thing without the noun's
    words ("Is Fintan a paramedic?" - "he's an emergency call handler")."""
    m = _IS_A.match(question)
    if m is None:
        return False
    subject = m.group("subj")
    said = re.search(rf"\b(?:he|she|{re.escape(subject)}){_SAYS_IS_A}", answer, re.I)
    return said is not None and not about(answer, focus_words(m.group("noun"), set()))
