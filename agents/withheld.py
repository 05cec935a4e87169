"""Forget requests on the read path: what the user asked memory to forget never reaches an answer.

The matchers live in `emem.ledger.withhold` (one place); this module applies them to what one
question gathered (pure). A question is *about* withheld content when the question itself, one of
the facts it resolves, or its best evidence is covered by a request: the answer then says that the
user asked to forget it, and gives no value. Otherwise covered turns and facts are dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from emem.agents.spans import about as about_question
from emem.agents.spans import focus_words, sentences
from emem.answer import EvidenceItem, FactItem
from emem.extract.patterns import RELATION_WORDS
from emem.ledger.withhold import (
    ForgetRequest,
    clauses,
    continues,
    shown_surface,
    value_withheld,
    withholding,
    withholding_said,
)


@dataclass(frozen=True)
class Withheld:
    evidence: list[EvidenceItem]
    """What may be used: the evidence no request covers."""
    facts: list[FactItem]
    """The facts (and fact values) no request covers."""
    about: ForgetRequest | None = None
    """The request the question is about, when it is about withheld content."""
    dropped: list[str] = field(default_factory=list)
    """Turn refs and facts left out, for the audit trail."""
    nearest: ForgetRequest | None = None
    """The request withholding the turn ranked first for the question, on its topic or not:
    when nothing else answers, that is why ("What medication am I on?" after "I'd rather you
    didn't remember the sertraline bit": no word of the question is in the request)."""


def _turn_text(e: EvidenceItem) -> str:
    return f"{e.text} {e.image_caption or ''}"


def apply_forget_requests(
    question: str,
    evidence: Sequence[EvidenceItem],
    facts: Sequence[FactItem],
    requests: Sequence[ForgetRequest],
    withheld: Mapping[tuple[str, str], ForgetRequest] | None = None,
    ranked: Sequence[EvidenceItem] | None = None,
    entities: Sequence[str] = (),
    now: bool = False,
) -> Withheld:
    """Drop what the requests cover, and say whether the question is about it.

    Args:
        question: as asked.
        evidence, facts: what the mode gathered.
        requests: the requests in force.
        withheld: the namespace's withheld turns (`emem.ledger.withhold.withheld_turns`); None:
            each piece of evidence is matched on its own.
        ranked: one retrieval of the question that does not depend on the mode (the fast
            path's hybrid retrieval, every turn scored for support, no floor): whether the
            question is about withheld content is decided on it, so every mode decides the
            same; None: on the mode's own evidence.
        entities: the people and things the question names (the plan's entities): a turn is on
            the question's topic by its other words, not by naming the person asked about.
        now: the question asks what holds now ("now", "currently"): an on-topic statement no
            request covers, said after the withheld one, answers it.

    Returns:
        The evidence and facts that may be used, and the request the question is about.
    """
    if not requests:
        return Withheld(list(evidence), list(facts))
    kept_facts, about, dropped = _split_facts(facts, requests)
    answering = [f for f in kept_facts if f.values]
    ranked_evidence = sorted(evidence, key=lambda e: -e.score)
    kept: list[EvidenceItem] = []
    shown: dict[int, EvidenceItem] = {}
    """The evidence that may be used, by the id of what was gathered (a partly withheld turn is
    a copy without the covered sentences)."""
    # "What does Emrys do for work now?" is not about the request that named Emrys in passing:
    # a turn is on topic by what it says, unless the question says nothing but a name.
    topic = focus_words(question, set(entities)) or focus_words(question, set())
    hits: dict[int, ForgetRequest | None] = {}
    for e in ranked_evidence:
        hit = hits[id(e)] = _hit(e, withheld, requests)
        if hit is None:
            kept.append(e)
            shown[id(e)] = e
            continue
        dropped.append(f"turn:{e.conversation_id}/{e.turn_id}")
        rest = _rest_of(e, requests)
        if rest:
            # "The wedding's been moved to December. <what the user asked to forget>": the
            # sentences no request covers still answer; the covered ones never reach the reader.
            kept.append(shown.setdefault(id(e), _partial(e, rest)))
    # "What is Ilyas into?" says only whom it asks about, and a turn no request covers names him:
    # a turn withheld for what else it says ("Ilyas got a chest infection", under a medical
    # request) is not what is asked, unless the request is about him. (Two people named ask what
    # is between them: "What's going on between Citlali and Iván?")
    people = [n for n in entities if n.lower() != "user"]
    named_only = (
        len(people) == 1
        and not focus_words(question, set(entities))
        and any(re.search(rf"\b{re.escape(n)}\b", e.text) for e in kept for n in people)
    )
    scored = sorted(ranked, key=lambda e: -e.score) if ranked is not None else None
    best_first = scored or ranked_evidence
    nearest = None
    if best_first:
        top = best_first[0]
        nearest = (
            (withheld or {}).get((top.conversation_id, top.turn_id))
            if scored is not None
            else hits.get(id(top))
        )
        if nearest is not None and _of_a_relative(top.text, topic, question, entities):
            nearest = None  # what the top turn says on the topic, it says of someone else
        if nearest is not None and named_only and not _names_any(nearest, entities):
            nearest = None  # it names whom the question asks about; the request is not about them
    if not answering:
        pool = scored if scored is not None else ranked_evidence
        # "Why was the wedding moved?": the reason is said beside the event, so a turn whose
        # other sentences the request covers decides whole.
        why = bool(_WHY.match(question))
        decided: list[tuple[str, str, ForgetRequest | None]] = []
        said_at: list[datetime] = []
        for e in pool:
            hit = (withheld or {}).get((e.conversation_id, e.turn_id)) if scored is not None else hits[id(e)]
            if hit is not None and _of_a_relative(e.text, topic, question, entities):
                # "Where did Kofi live in May?" is not about "My sister Abena lives in London",
                # withheld: what it says of the topic it says of someone else.
                continue
            if hit is not None and named_only and not _names_any(hit, entities):
                continue  # said of him, withheld for something else (above)
            rest = _rest_of(e, requests) if hit is not None and not why else None
            if rest:
                withheld_part = " ".join(x for x in sentences(e.text) if x not in rest)
                decided.append((withheld_part, e.text, hit))
                decided.append((rest, e.text, None))
                said_at += [e.time, e.time]
            else:
                decided.append((_turn_text(e), e.text, hit))
                said_at.append(e.time)
        on_topic = best_on_topic_withheld(decided, topic)
        if on_topic is not None and now and _said_since(decided, said_at, topic, on_topic):
            # "Who does my invoices now?" after "For invoices I look up my RUT" (forgotten) and
            # "I've set up an accountant to do invoices": what is said since answers the "now".
            on_topic = None
        about = about or on_topic
    asked = withholding(requests, text=question)
    # Told again after the request ("my new address is 5 Elm Street" after "forget my address"):
    # a later turn in the request's own words answers; an unrelated later turn ranked first does not.
    pool = scored if scored is not None else kept
    newer = asked is not None and any(
        e.time > asked.known_from
        and (e.conversation_id, e.turn_id) not in (withheld or {})
        and asked.covers(text=_turn_text(e))
        and about_question(e.text, topic)
        for e in pool
    )
    names_it = asked is not None and not _WHY.match(question) and _names_topic(asked, question)
    if asked is not None and not newer and (not answering or names_it):
        # "What's my door code at work?" after "forget my door code": the question asks for what
        # was forgotten by name, so a ledger value its other words cue (the employer) does not
        # answer it. "Why did I drop the coworking plan?" asks a reason, not the value.
        about = about or asked
    return Withheld([shown[id(e)] for e in evidence if id(e) in shown], kept_facts, about, dropped, nearest)


def facts_shown(facts: Sequence[FactItem], requests: Sequence[ForgetRequest]) -> list[FactItem]:
    """The facts and values no request covers (pure): what routing and a later hop may use, so
    a withheld value neither steers them nor shows in their reasons and `usage.hop_terms`.

    Args:
        facts: the facts the plan resolved.
        requests: the requests in force.

    Returns:
        The kept facts, covered values and revisions left out.
    """
    return _split_facts(facts, requests)[0] if requests else list(facts)


def _split_facts(
    facts: Sequence[FactItem], requests: Sequence[ForgetRequest]
) -> tuple[list[FactItem], ForgetRequest | None, list[str]]:
    """(the facts kept, the request a withheld value answers to, what was dropped)."""
    about: ForgetRequest | None = None
    dropped: list[str] = []
    kept_facts: list[FactItem] = []
    for f in facts:
        if not f.values:
            # Nothing current (a value that ended): its history still tells the reader what
            # ended it, unless a request covers what it held.
            covered = [
                hit
                for r in f.history
                if (
                    hit := withholding_said(
                        requests,
                        _time(r.get("known_from")),
                        predicate=f.predicate,
                        obj=str(r.get("object_text") or r.get("object")),
                        subject=f.subject,
                    )
                )
            ]
            if covered:
                dropped.append(f"fact:{f.subject}:{f.predicate}")
            else:
                kept_facts.append(f)
            continue
        known = {str(r.get("object_text")): r.get("known_from") for r in f.revisions}
        surfaces = {str(r.get("object_text")): str(r.get("surface") or "") for r in f.revisions}
        values, hit = [], None
        for v in f.values:
            found, _ = value_withheld(
                requests,
                _time(known.get(v)),
                predicate=f.predicate,
                value=v,
                subject=f.subject,
                surface=surfaces.get(v, ""),
            )
            hit = hit or found
            if found is None:
                values.append(v)
        if values:
            f = f if len(values) == len(f.values) else f.model_copy(update={"values": values})
            kept_facts.append(_surfaces_shown(_revisions_kept(f, requests), requests))
        else:
            about = about or hit
            dropped.append(f"fact:{f.subject}:{f.predicate}")
    return kept_facts, about, dropped


def _revisions_kept(fact: FactItem, requests: Sequence[ForgetRequest]) -> FactItem:
    """A kept fact without the revisions of values a request covers: "forget my old address"
    keeps the current address, never the history line that says the old one."""

    def covered(r: dict[str, object]) -> bool:
        hit, _ = value_withheld(
            requests,
            _time(r.get("known_from")),
            predicate=fact.predicate,
            value=str(r.get("object_text") or r.get("object") or ""),
            subject=fact.subject,
            surface=str(r.get("surface") or ""),
        )
        return hit is not None

    revisions = [r for r in fact.revisions if str(r.get("object_text")) in fact.values or not covered(r)]
    history = [r for r in fact.history if not covered(r)]
    if len(revisions) == len(fact.revisions) and len(history) == len(fact.history):
        return fact
    return fact.model_copy(update={"revisions": revisions, "history": history})


def _surfaces_shown(fact: FactItem, requests: Sequence[ForgetRequest]) -> FactItem:
    """A kept fact whose revisions' surfaces also say covered words, with those clauses left out."""
    changed = False
    out: dict[str, list[dict[str, object]]] = {"revisions": [], "history": []}
    for name in out:
        for r in getattr(fact, name):
            surface = str(r.get("surface") or "")
            shown = shown_surface(requests, _time(r.get("known_from")), surface) if surface else surface
            changed = changed or shown != surface
            out[name].append({**r, "surface": shown} if shown != surface else r)
    return fact.model_copy(update=out) if changed else fact


def _names_topic(request: ForgetRequest, question: str) -> bool:
    """Whether the question says every content word of what the request names (a topic too short
    for focus words, "my ex", by its own words: "Where does my ex live?")."""
    words = focus_words(request.topic, set())
    if not words:
        short = re.findall(r"[a-z]{2,}", request.topic.lower())
        return bool(short) and all(re.search(rf"\b{w}\b", question.lower()) for w in short)
    return all(about_question(question, {w}) for w in words)


def _names_any(request: ForgetRequest, entities: Sequence[str]) -> bool:
    """Whether the request is about one of the people or things named (by its name pattern: what
    it covers of them as a subject)."""
    return request.names_pattern is not None and any(request.covers(subject=e) for e in entities)


_WHY = re.compile(r"^\s*(?:why|how\s+come|what\s+(?:was|is)\s+the\s+reason)\b", re.IGNORECASE)


def rest_of_turn(text: str, requests: Sequence[ForgetRequest], said: datetime) -> str | None:
    """A turn without the sentences forget requests cover (pure): a request names a statement,
    not every word said beside it.

    A sentence covered only with the one before it (the person in one sentence, "Her number is
    ..." in the next) is covered, and the sentence before stays; a turn none of whose sentences
    is covered alone or so is withheld whole: None.

    Args:
        text: the turn's text.
        requests: the requests in force.
        said: when the turn was said (a request covers what was said up to it).

    Returns:
        The uncovered sentences joined, or None when no sentence is covered alone or none is left.
    """
    # A covered sentence that joins statements is judged by its clauses: "I'm allergic to
    # peanuts, and my partner and I live at 14 Alder Road" is not all about the address.
    parts: list[str] = []
    for sentence in sentences(text):
        pieces = clauses(sentence)
        covered = [withholding_said(requests, said, text=p) is not None for p in pieces]
        parts += pieces if any(covered) and not all(covered) else [sentence]
    hit = [withholding_said(requests, said, text=p) is not None for p in parts]
    # A sentence covered only with the one before it, which is not covered alone, holds what is
    # covered: "Halyna has left Kaslo. Also, she and her husband are getting divorced." names the
    # person in one sentence and the marriage in the next; the move stays.
    for i in range(1, len(parts)):
        if not hit[i] and not hit[i - 1]:
            pair = withholding_said(requests, said, text=f"{parts[i - 1]} {parts[i]}")
            hit[i] = pair is not None
    if not any(hit):
        return None
    # A request about a person alone ("I don't want to talk about Takumi anymore. Please forget
    # him.") covers every sentence of a turn that names them: "I've found a language exchange
    # partner! Takumi, he's ..." says who the partner is in the sentence that does not.
    people_only = [r for r in requests if r.names_pattern and not r.words_pattern and not r.shapes_pattern]
    if withholding_said(people_only, said, text=text) is not None:
        return None
    # A sentence that only continues a covered one goes with it: "can you keep my passport
    # number? 533918420, expires 2029" says the number in a sentence without the topic's words.
    covered_at = [i for i, h in enumerate(hit) if h]
    for i in covered_at:
        for j in (i - 1, i + 1):
            if 0 <= j < len(parts) and not hit[j] and continues(parts[j]):
                hit[j] = True
    if all(hit):
        return None
    rest = [p for p, h in zip(parts, hit, strict=True) if not h]
    if withholding_said(requests, said, text=" ".join(rest)) is not None:
        return None
    return " ".join(rest)


def shown_source(
    e: EvidenceItem,
    requests: Sequence[ForgetRequest],
    withheld: Mapping[tuple[str, str], ForgetRequest],
) -> EvidenceItem | None:
    """A fact's source turn as a read may show it (pure): whole when no request withholds it,
    without its covered sentences when some are not covered (the value of a kept fact is said
    in them: "I'm going to propose on her birthday" beside a forgotten hiding place), else None.

    Args:
        e: the source turn as evidence.
        requests: the requests in force.
        withheld: the namespace's withheld turns.

    Returns:
        The item to cite, or None.
    """
    if (e.conversation_id, e.turn_id) not in withheld:
        return e
    rest = _rest_of(e, requests)
    return _partial(e, rest) if rest else None


def _partial(e: EvidenceItem, rest: str) -> EvidenceItem:
    """The evidence as its uncovered sentences; a quote only if those sentences still hold it."""
    quote = e.quote if e.quote and e.quote in rest else None
    return e.model_copy(update={"text": rest, "quote": quote})


def _rest_of(e: EvidenceItem, requests: Sequence[ForgetRequest]) -> str | None:
    """What of a withheld turn's evidence may still be read (`rest_of_turn`); never an agent's
    reply withheld for what it answers, nor a turn whose image caption is covered."""
    if e.image_caption and withholding_said(requests, e.time, text=e.image_caption) is not None:
        return None
    if withholding_said(requests, e.time, text=e.text) is None:
        return None
    return rest_of_turn(e.text, requests, e.time)


def _hit(
    e: EvidenceItem,
    withheld: Mapping[tuple[str, str], ForgetRequest] | None,
    requests: Sequence[ForgetRequest],
) -> ForgetRequest | None:
    if withheld is not None:
        return withheld.get((e.conversation_id, e.turn_id))
    return withholding_said(requests, e.time, text=_turn_text(e))


def _said_since(
    decided: Sequence[tuple[str, str, ForgetRequest | None]],
    said_at: Sequence[datetime],
    topic: set[str],
    request: ForgetRequest,
) -> bool:
    """Whether an on-topic statement no request covers was said after the first on-topic one
    `request` withholds (pure; `said_at` gives each entry of `decided` its time)."""
    first = next(
        (
            t
            for (text, _, hit), t in zip(decided, said_at, strict=True)
            if hit is request and about_question(text, topic)
        ),
        None,
    )
    return first is not None and any(
        hit is None and t > first and about_question(text, topic) and not whole.rstrip().endswith("?")
        for (text, whole, hit), t in zip(decided, said_at, strict=True)
    )


_KIN_SUBJECT = re.compile(
    rf"^\W*(?:(?:and|but|so|oh|also|well)\W+)?(?:[Mm]y|[Oo]ur)\s+(?:(?:little|big|older|younger|twin|best|old)\s+)?"
    rf"(?P<kin>{RELATION_WORDS})s?\b(?:,?\s+(?P<name>[A-Z][\w'’-]+),?)?"
    rf"\s+(?:is|was|are|were|has|had|lives|works|moved|\w+s|\w+ed)\b"
)
"""A sentence said of a relative ("My sister Abena lives in London"): its subject is not the
speaker, nor the person a question names unless it names the relative."""


def _of_a_relative(text: str, topic: set[str], question: str, entities: Sequence[str]) -> bool:
    """True when every sentence of the turn on the question's topic is said of a relative the
    question does not name (by kin word or name) (pure)."""
    parts = [x for x in sentences(text) if about_question(x, topic)]
    if not parts:
        return False
    asked = {e.lower() for e in entities}
    for part in parts:
        m = _KIN_SUBJECT.match(part)
        if m is None or re.search(rf"\b{m.group('kin')}", question, re.I):
            return False
        if m.group("name") and m.group("name").lower() in asked:
            return False
    return True


def best_on_topic_withheld(
    ranked: Sequence[tuple[str, str, ForgetRequest | None]], topic: set[str]
) -> ForgetRequest | None:
    """The request withholding the best-ranked turn on the question's topic, if one does (pure).

    "What book is the user reading?" is not about the coworker the user asked to forget, even when
    that turn ranks first: only the best turn that is about the question's words decides. A
    question ("Shall I update your address?") states nothing: it does not decide.

    Args:
        ranked: (the text to judge, the turn's text, the request withholding it or None), best
            first; a turn partly withheld comes as its covered sentences (with the request)
            and its other sentences (with None).
        topic: the question's focus words.

    Returns:
        The request, or None when the best on-topic turn is kept (or there is none).
    """
    for rendered, text, hit in ranked:
        if rendered and about_question(rendered, topic) and not text.rstrip().endswith("?"):
            return hit
    return None


def _time(value: object) -> datetime:
    """A revision's known time as the resolver dumped it (ISO text), or the earliest time."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        return datetime.fromisoformat(value)
    return datetime.min.replace(tzinfo=UTC)


def withheld_answer(request: ForgetRequest) -> str:
    """The answer to a question about forgotten content: that it was asked to be forgotten, never the value."""
    when = f" on {request.known_from:%d %B %Y}" if request.known_from else ""
    where = f" ({request.source.partition('/')[2] or request.source})" if request.source else ""
    return f"I can't answer that: the user asked me to forget it{when}{where}."
