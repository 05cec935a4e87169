"""A last-resort reading of forget requests, by the shape of a request rather than its phrasing.

The forget rules of `emem.extract.rules` read requests phrase by phrase, and each new set of
conversations brought requests they missed (measured: the rules written from one split's
phrasings filed 12 of the next split's 27 requests). This module reads a request by its parts,
each from a class of words rather than a list of phrasings:

- a *directive*: an imperative, "can you ...", "I'd like you to ...", "I'd rather you ...",
  "don't ..." (at the start of the sentence or of a clause after "so", "and", a dash or a colon);
- a verb of *erasing* ("forget", "wipe", "bin", "get rid of", ...) or a negated verb of
  *keeping* ("don't keep", "I'd rather that wasn't stored");
- what it names: a thing ("the old admin password"), what was told about a thing ("everything I
  told you about that dispute"), or a word that points back ("it", "that", "any of it").

Verbs that also mean other things ("drop", "clear", "bin", "lose") count only with a sign that
the memory is addressed: "please", "would you", a place of memory ("out of your notes"), or an
object that is information ("the PIN", "what I said"). Pure functions; `emem.extract.rules`
turns a `Found` into topics.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_ERASE_PLAIN = (
    r"forget|unremember|unlearn|delete|erase|remove|wipe|scrub|purge|expunge|shred|"
    r"get\s+rid\s+of|throw\s+(?:away|out)|cross\s+out|strike\s+out|take\s+out|discard"
)
"""Verbs of erasing that, said as a request, mean nothing else."""
_ERASE_AMBIGUOUS = r"drop|bin|ditch|scrap|dump|toss|junk|trash|clear|lose|strike|cut|take"
"""Verbs of erasing that also mean other things ("drop the kids off", "clear the table")."""
_ERASE_PAST = (
    r"forgot|unremembered|deleted|erased|removed|wiped|scrubbed|purged|shredded|got\s+rid\s+of|"
    r"threw\s+(?:away|out)|took\s+out|discarded|dropped|binned|ditched|scrapped|dumped|cleared|lost|"
    r"struck"
)
_KEEP = (
    r"keep|store|save|record|retain|remember|log|track|note(?:\s+down)?|write\s+down|"
    r"hold\s+on\s*to|hang\s+on\s*to|hold\s+onto|hang\s+onto"
)
_KEPT = (
    r"kept|stored|saved|recorded|retained|remembered|logged|tracked|noted(?:\s+down)?|written(?:\s+down)?|"
    r"filed|held|said|mentioned|on\s+(?:file|record)|in\s+(?:your|the|any|my)\s+(?:memory|notes|records?|files?)|"
    r"anywhere"
)
_LEAD = (
    r"(?:(?:and|also|so|oh|ok(?:ay)?|right|now|then|actually|anyway|honestly|look|listen|but|one\s+more\s+thing|"
    r"last\s+thing|while\s+I\s+think\s+of\s+it)[,:]?\s+)*"
)
_POLITE = r"(?:please\s+|kindly\s+|just\s+)*"
_ASKING = (
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+|just\s+)*|"
    r"(?:I(?:'d|\s+would)\s+(?:like|love|want|prefer)\s+(?:you\s+to|it\s+if\s+you)|I\s+(?:want|need)\s+you\s+to)\s+)?"
)
_HEADS = (
    # 0: an erasing verb asked for ("Remove everything ...", "can you take it out ...")
    rf"{_POLITE}{_ASKING}{_POLITE}(?P<verb>{_ERASE_PLAIN}|(?P<amb>{_ERASE_AMBIGUOUS}))\b",
    # 1: a keeping verb refused ("don't keep any of it", "please don't hang onto that")
    rf"{_POLITE}(?:don't|do\s+not|never)\s+(?:{_KEEP})\b",
    rf"{_ASKING}not\s+(?:{_KEEP})\b",
    rf"I\s+(?:don't|do\s+not)\s+want\s+you\s+(?:to\s+)?(?:{_KEEP}|keeping|storing|remembering|holding\s+on\s*to)\b",
    # 2: a wish that it were erased or never kept ("I'd rather you removed ...")
    rf"I(?:'d|\s+would)\s+(?:rather|prefer(?:\s+it\s+if)?)\s+you\s+(?:{_ERASE_PAST}|(?:didn't|did\s+not|don't|wouldn't)\s+(?:{_KEEP}))\b",
    # 3: "pretend I never told you his name"
    r"(?:pretend|act\s+(?:like|as\s+if))\s+(?:that\s+)?I\s+(?:never|didn't|did\s+not)\s+(?:told\s+you|tell\s+you|mentioned|mention|said|say)\b",
)
_REQUEST = re.compile(rf"{_LEAD}(?:{'|'.join(f'(?:{h})' for h in _HEADS)})", re.IGNORECASE)

_WISHED_AWAY = re.compile(
    r"\bI(?:'d|\s+would)\s+(?:rather|prefer(?:\s+it\s+if)?)\s+"
    r"(?:there\s+(?:was|were)\s+no\s+(?:record|note|trace|mention)s?\s+of\s+(?P<of>[^.!?;]{1,80}?)(?=\s*(?:[.!?;,]|$)|\s+(?:anywhere|here|at\s+all)\b)|"
    r"(?P<subj>it|that|this|they|those|these|the\s+[^.!?;,]{1,60}?|my\s+[^.!?;,]{1,60}?|any\s+of\s+(?:it|that|this))\s+"
    r"(?:wasn't|weren't|was\s+not|were\s+not|not\s+be|never\s+be|had\s+never\s+been|hadn't\s+been|didn't\s+(?:live|sit|stay))\s+"
    rf"(?:(?:{_KEPT})|(?:anywhere|here|around)))",
    re.IGNORECASE,
)
"""A wish that something were not kept: "I'd rather that wasn't kept", "I'd rather there was no
record of it anywhere"."""
_GONE = re.compile(
    r"\bI(?:'d|\s+would)?\s+(?:like|want|need)\s+(?P<obj>[^.!?;,]{1,60}?)\s+(?:gone|removed|deleted|erased|wiped)"
    r"(?=\s+(?:from|out\s+of|off)\s+(?:your|the)\s+(?:memory|notes|records?|files?|head|mind|system)\b|"
    r"(?:\s+(?:altogether|entirely|completely|for\s+good))?\s*(?:[.!;]|$))",
    re.IGNORECASE,
)
"""A wish that something were gone ("I'd like it gone from your memory altogether")."""

_CLAUSE_START = re.compile(r"(?:^|[:;]\s+|\s[-–—]+\s+|,\s+(?:so|and|but|then)\s+|\bso\s+|,\s+)")
"""Where a request may start: the sentence, or a clause after a colon, a dash, "so", "and"."""

_MEMORY_SIGN = re.compile(
    r"\b(?:out\s+of\s+(?:your|the)|from\s+(?:your|the)\s+"
    r"(?:memory|notes|records?|files?|head|mind|brain|system)|memory|records?|notes)\b|"
    r"\b(?:code|pin|password|passcode|number|name|details?|info(?:rmation)?|address|figure|amount|"
    r"what\s+I\s+(?:said|told|mentioned)|(?:everything|anything|all)\s+I\s+(?:said|told|mentioned)|"
    r"I\s+(?:gave|told|sent|shared)\s+you|(?:bit|part|stuff|line)\s+about)\b",
    re.IGNORECASE,
)
"""Signs that an ambiguous verb ("drop", "bin") is addressed to the memory."""

_NOT_A_REQUEST = re.compile(
    r"^(?:I|we|he|she|they|you)\s+(?:just\s+|already\s+)?(?:forgot|deleted|removed|lost|dropped|cleared|binned)\b|"
    r"\b(?:I|we)\s+(?:won't|will\s+not|will|'ll)\s+(?:forget|keep|delete)\b|"
    r"^(?:done|understood|noted|okay|ok|sure|of\s+course)\b|"
    r"^(?:oh\s+)?forget\s+(?:it|that|about\s+it)\s*[,!.;-]|"
    r"\bforget\s+(?:it|that|about\s+it)\s*[,;–—-]+\s*(?:it|that|I|we|they|let's|never)\b|"
    r"\bforget\s+about\s+[^,.;]+,\s+(?:we're|we\s+are|I'm|I\s+am|let's|we'll|I'll|we\s+will|I\s+will)\b",
    re.IGNORECASE,
)
"""A report or a promise, not a request ("I deleted the app", "I won't keep it", "Done, forgotten")."""

_TAIL = re.compile(
    r"(?:\s*,?\s*(?:please|would\s+you|will\s+you|could\s+you|can\s+you|too|as\s+well|altogether|entirely|"
    r"completely|for\s+good|for\s+me|while\s+you(?:'re|\s+are)\s+at\s+it|from\s+(?:your|the)\s+\w+|"
    r"out\s+of\s+(?:your|the)\s+\w+|off\s+(?:your|the)\s+\w+|anywhere|everywhere|at\s+all|now|then|"
    r"even\s+here|thanks?(?:\s+you)?)\b)+\s*$",
    re.IGNORECASE,
)
_POINTER = re.compile(
    r"^(?:(?:all|any|every|each|some)\s+of\s+)?(?:it|that|this|them|those|these|everything|anything|all|"
    r"the\s+lot|that\s+(?:bit|part|stuff|one)|this\s+(?:bit|part|stuff|one)|the\s+whole\s+(?:thing|lot))$",
    re.IGNORECASE,
)
_TOLD = re.compile(
    r"^(?:(?:all|any|every)\s+)?(?:everything|anything|all|whatever|what|the\s+(?:stuff|bit|part|things?))\s+"
    r"(?:(?:I|we)\s+(?:ever\s+|just\s+)?(?:said|told\s+you|mentioned|shared|wrote|gave\s+you)|you\s+(?:know|have))"
    r"(?:\s+(?:about|regarding|re|on|of)\s+(?P<about>.+))?$",
    re.IGNORECASE,
)
_TOLD_CLAUSE = re.compile(
    r"(?:,\s*)?\b(?:(?:what|that|which)\s+)?(?:I|we)\s+(?:ever\s+|just\s+)?(?:told\s+you|mentioned|said|shared)"
    r"(?:\s+(?:about|in|on|last|back|earlier)\b[^,:;]*)?",
    re.IGNORECASE,
)
"""A clause saying a topic was told ("what I told you in April"): no part of the topic."""
_SAID_IT = re.compile(
    r"^(?:that\s+)?I\s+(?:ever\s+|even\s+|once\s+)?(?:told\s+you|mentioned|said|brought\s+up)"
    r"(?:\s+(?:about\s+)?(?P<about>.+))?$",
    re.IGNORECASE,
)
"""What a request says was told ("forget I ever told you about it")."""
_FRONTED = re.compile(
    r"^(?:(?:and|also|so|oh|right|now|okay|ok)[,]?\s+)?(?:(?:about|as\s+for|regarding|re|on)\s+)?"
    r"(?P<front>[^:;.!?]{2,70}?)(?:\s+(?:thing|business|stuff|matter|situation))?\s*(?::|\s[-–—]+\s)",
    re.IGNORECASE,
)
"""A topic named before the request ("The Gerlach thing: ...", "About Mama's diagnosis: ...")."""
_HAS_VERB = re.compile(
    r"\b(?:is|was|are|were|be|been|am|has|have|had|do|does|did|I|we|you|he|she|they|'s|'re|'ve|'m|'d|'ll|"
    r"can|could|will|would|should|may|might|must|[a-z]+ed|[a-z]+s)\b",
)


class Found(NamedTuple):
    """A request read by its parts."""

    obj: str
    """What it names, cleaned of its tail ("the old admin password"); "" when only pointed at."""
    obj_start: int
    """Where `obj` starts in the sentence."""
    told: bool
    """`obj` is what was told about something ("everything I told you about that dispute")."""
    front: str | None
    """A topic named before the request in the same sentence."""
    before: str
    """The sentence before the request's clause (what a pointer may point at)."""


def find_request(sentence: str) -> Found | None:
    """Read `sentence` as a forget request, if it is one.

    Args:
        sentence: one sentence of a user's turn.

    Returns:
        The request's parts, or None when the sentence asks nothing of the memory.
    """
    text = sentence.strip()
    if not text or _NOT_A_REQUEST.search(text):
        return None
    for starts in _CLAUSE_START.finditer(text):
        m = _REQUEST.match(text, starts.end())
        if m is None:
            continue
        if m.groupdict().get("amb") and not _MEMORY_SIGN.search(text[m.start() :]):
            continue
        return _found(text, m.end(), m.start())
    for pattern in (_WISHED_AWAY, _GONE):
        m = pattern.search(text)
        if m is not None:
            group = next(g for g in ("of", "subj", "obj") if m.groupdict().get(g) is not None)
            return _parts(text, m.group(group), m.start(group), m.start())
    return None


def _found(text: str, end: int, start: int) -> Found | None:
    rest = text[end:]
    obj = re.split(r"[.!?;]|\s[-–—]+\s|,\s+(?:so|and|but|because|since|as)\b", rest, maxsplit=1)[0]
    lead = len(obj) - len(obj.lstrip())
    return _parts(text, obj, end + lead, start)


def _parts(text: str, obj: str, at: int, start: int) -> Found | None:
    obj = obj.strip()
    obj = re.sub(r",\s+[A-Z][a-z]+$", "", obj)  # "Don't hang on to it, Flo": a name called, not named
    if re.match(
        r"(?i:me|us|you|yourself|each\s+other)\b|(?i:it|that|this)\s+(?:quiet|down|up|short|simple|brief|going)\b",
        obj,
    ):
        return None  # "Don't keep me waiting", "don't keep it quiet": no thing to forget
    if re.fullmatch(r"(?i:him|her|them)(?:\s+.*)?", obj):
        return None  # a person to forget: the rules read whom "him" means (`forget_topic`)
    obj = re.sub(r"^(?:about|of)\s+", "", obj, flags=re.IGNORECASE)
    if re.search(
        r"\b(?:from|out\s+of|off)\s+(?:the|my|our|a|his|her|their)\s+(?!memory|notes|records?|files?|system)\w+",
        obj,
    ):
        return None  # "remove the onions from the recipe": taken from a thing, not from memory
    obj = _TAIL.sub("", obj).strip(" ,")
    # "the old code I gave you": "old" picks which value, the topic is the code
    obj = re.sub(r"^((?:the|my|our|that|this)\s+)(?:old|previous|former|earlier)\s+", r"\1", obj, flags=re.I)
    told = False
    if (m := _TOLD.match(obj) or _SAID_IT.match(obj)) is not None:
        told = True
        obj = m.group("about") or ""
        if not obj and not re.search(r"\b(?:it|that|this|them)$", m.group(0)):
            return None  # "Forget what I said.": it takes back, the rules read it as a retraction
    else:  # "the PIN I gave you back in January"
        obj = re.sub(r"\s+(?:I|we)\s+(?:gave|told|sent|shared|mentioned)(?:\s+you)?(?:\s+\w+){0,4}$", "", obj)
    if _POINTER.match(obj) or re.fullmatch(r"(?i:his|her|their|its)\s+\w+", obj):
        obj = ""
    head = text[:start]
    fronted = _FRONTED.match(head) if head else None
    front = fronted.group("front").strip() if fronted else None
    if front is not None:  # "The biopsy and all the business that came after it"
        front = re.sub(r"\s+and\s+(?:all|everything|anything)\b.*$", "", front, flags=re.IGNORECASE)
    if front is None and head.strip(" ,;:-–—"):
        front = _subject_of(head) or fragment_topic(_TOLD_CLAUSE.sub("", head))
    elif front is not None:
        front = _TOLD_CLAUSE.sub("", front).strip() or None
    before = re.sub(r"[\s,;:–—-]*(?:\b(?:so|and|but|then))?[\s,;:–—-]*$", "", head, flags=re.IGNORECASE)
    return Found(obj, at, told, front, before.strip())


def _subject_of(clause: str) -> str | None:
    """The definite noun phrase a clause opens with ("The Hacienda thing is paid off, and ..."):
    what a pointer after it refers to."""
    m = re.match(
        r"^(?:(?:and|also|so|oh|right|now)[,]?\s+)?(?P<np>(?:the|that|this|my|our)\s+[^,;:]{1,50}?)\s+"
        r"(?:is|was|are|were|has|have|had|'s|and\s+all)\b",
        clause.strip(),
        re.IGNORECASE,
    )
    return m.group("np") if m else None


def fragment_topic(sentence: str) -> str | None:
    """The thing a verbless sentence names before a request points at it ("The IVF.", "And the
    thing from 2019, the charge."), else None.

    Args:
        sentence: the sentence before the request.

    Returns:
        The noun phrase, or None when the sentence says something (has a verb).
    """
    s = sentence.strip().rstrip(".!:")
    s = re.sub(
        r"^(?:(?:and|also|so|oh|right|now|about|same\s+(?:for|with|goes\s+for)|as\s+for)[,]?\s+)+",
        "",
        s,
        flags=re.IGNORECASE,
    )
    if not s or len(s.split()) > 10 or _HAS_VERB.search(s.replace("'s ", " ")):
        return None
    if "," in s:  # "the thing from 2019, the charge": the second names it more exactly
        parts = [p.strip() for p in s.split(",") if p.strip()]
        return ", ".join(parts)
    return s


def pointed_things(sentence: str) -> list[str]:
    """Things a statement points back at ("so that keypad code is dead", "That staff entrance code
    from Hafenküche is useless now"): what a later "clear it out" refers to.

    Args:
        sentence: the statement before the request.

    Returns:
        The demonstrative noun phrases, in order.
    """
    return [
        m.group(0)
        for m in re.finditer(
            r"\b(?:[Tt]hat|[Tt]hose)\s+(?:old\s+)?[a-z]+(?:\s+[a-z]+){0,2}"
            # "That staff entrance code from Hafenküche is useless now": where it is from, then the verb
            r"(?=(?:\s+(?:from|at|for)\s+(?:the\s+|my\s+|our\s+)?[\w'’-]+(?:\s+[\w'’-]+)?)?\s+(?:is|was|are|were|has|I)\b)",
            sentence,
        )
    ]


def things_in(clause: str) -> list[str]:
    """The definite things a statement names ("I quit the weekend job at the dive shop when I
    broke my wrist" -> "the weekend job at the dive shop"): what a request in the same sentence
    that only points ("so please forget it") is about.

    Args:
        clause: the statement before the request.

    Returns:
        The noun phrases, in order.
    """
    return [
        m.group(0)
        for m in re.finditer(
            r"\b(?:the|that|this|my|our)\s+[^,;.:!?]{1,60}?(?=\s+(?:when|because|since|while|after|before|so|but|"
            r"and\s+(?:I|we|he|she|they)|is|was|are|were)\b|[,;.:!?]|$)",
            clause,
        )
    ]


def fronted_in(sentence: str) -> str | None:
    """The topic a statement names before its colon or dash ("The Gerlach thing: our lawyer
    says ..."), else None.

    Args:
        sentence: a statement.

    Returns:
        The fronted phrase, without what says it was told.
    """
    m = _FRONTED.match(sentence.strip())
    if m is None:
        return None
    front = _TOLD_CLAUSE.sub("", m.group("front")).strip()
    if not front or _REQUEST.match(front) or re.match(r"(?i:I|we|you|he|she|they|it)\b", front):
        return None  # "Drop it - I don't want ...": a request, not a phrase naming its topic
    return front


_AMBIGUOUS_OPEN = re.compile(
    rf"^{_LEAD}{_POLITE}(?:{_ERASE_AMBIGUOUS})\s+(?:the|my|our|this|that|those|these)\s+",
    re.IGNORECASE,
)


def asks_nothing_of_memory(sentence: str) -> bool:
    """Whether a sentence that sounds like a request asks nothing of the memory: a report or a
    promise ("I deleted the app"), a dismissal ("forget it, I'll ask"), a plan dropped ("Forget
    about the picnic, we're staying in"), a thing taken from another thing ("remove the onions
    from the recipe"), or a verb with other senses used of a thing ("Clear the table ...").

    Args:
        sentence: one sentence.

    Returns:
        True when the sentence is not a request to forget, whatever rule reads it as one.
    """
    text = sentence.strip()
    if _NOT_A_REQUEST.search(text):
        return True
    if re.search(
        r"^(?:\w+\s+){0,6}?(?:remove|delete|clear|take|wipe)\s+(?!(?:what|everything|anything|all|whatever)\b)"
        r"(?:(?!\b(?:about|told|said|mentioned)\b)[^.!?;]){1,60}?\s+(?:from|out\s+of|off)\s+"
        r"(?:the|my|our|a|his|her|their)\s+(?!memory|notes|records?|files?|system)\w+",
        text,
        re.IGNORECASE,
    ):
        return True
    return bool(_AMBIGUOUS_OPEN.match(text)) and not _MEMORY_SIGN.search(text)
