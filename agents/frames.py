"""Question frames: read the value a turn states *of the question's subject, with the question's
verb*, instead of matching keywords.

Why: the offline reader finds a turn by the words it shares with the question and then cuts a
span by the question's type. A question's words are often not the answer's ("What sport does Teo
do now?" is answered by "he's doing judo on Tuesdays now": no "sport" in it), so a turn that
answers is dropped, or a sentence that shares the words but says nothing of the subject is quoted
whole. A frame is the question's structure (who is asked about, which verb, which kind of thing),
and a turn answers it only with a clause whose subject is that person (named, a pronoun carrying
the last name on, or "I" for the speaker) and whose verb is the question's; the value is the noun
phrase the verb takes. No clause of that shape, no value: the reader then abstains rather than
quote loosely related text.

Pure functions over text; no model, no lexicon beyond a few verb forms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from emem.agents.spans import AnswerType, after_correction, sentences, typed_span
from emem.extract.patterns import inflect, irregular_forms, verb_lemma

SELF = "\x00self"
"""The frame subject of a first-person question ("What car do I drive?"): the user, whoever that
is in the conversation (its speaker name or "user")."""


@dataclass(frozen=True)
class Frame:
    """What a "what/which/where ... <aux> <subject> <verb> ...?" question asks."""

    subject: str
    """A name as written in the question, or SELF."""
    verb: str
    """The main verb as asked ("do", "play", "moving")."""
    head: str | None
    """The noun asked for ("sport" in "What sport ..."), or None ("What does ...")."""
    occupation: bool = False
    """The question asks what someone does for a living."""


_FRAME = re.compile(
    r"^\s*(?i:(?:in|at|on|for|from|to|with)\s+)?(?i:what|which|where)\s+(?:(?P<head>[a-z][\w -]*?)\s+)?"
    r"(?P<aux>(?i:does|do|did|is|are|was|were|has|have|had))\s+"
    r"(?P<subj>the user|I|[A-Z][\w'’-]+)\s+(?P<verb>[a-z]+)\b(?P<rest>[^?]*)\??\s*$"
)
_OCCUPATION = re.compile(r"\bdo\s+(?:for\s+(?:a\s+living|work)|professionally)\b", re.I)
_NOT_VERBS = frozenset("now currently still really usually also ever these".split())


def question_frame(question: str) -> Frame | None:
    """The question's frame, or None when it is not of the "<wh> [head] <aux> <subject> <verb>"
    form ("What is Kayode's job?" has no verb of its own; "When ..." asks a time).

    Args:
        question: the question as asked.

    Returns:
        The frame, or None.
    """
    m = _FRAME.match(question)
    if not m or m.group("verb") in _NOT_VERBS or re.search(r"['’]s?$", m.group("subj")):
        return None  # "What is Ottavio's favourite snack?": a possessor, not a subject and verb
    subject = m.group("subj")
    subject = SELF if subject in ("I", "the user") else re.sub(r"['’]s$", "", subject)
    head = m.group("head")
    head_word = head.split()[-1].lower() if head else None
    if head_word in ("kind", "type", "sort"):
        head_word = None
    occupation = head is None and bool(_OCCUPATION.search(f"{m.group('verb')} {m.group('rest')}"))
    return Frame(subject=subject, verb=m.group("verb").lower(), head=head_word, occupation=occupation)


_ACTIVITY = frozenset({"do", "play", "practise", "practice", "take", "have"})
"""Verbs that take an activity alike: "he does piano" answers "What instrument does he play?"."""


_INTEREST = re.compile(
    r"\b(?:into|likes?|loves?|(?:obsessed|fascinated|mad|crazy|nuts|keen)\s+(?:with|about|on)|"
    r"(?:a\s+|the\s+|big\s+|huge\s+)*fan\s+of)\b",
    re.I,
)
""""What is Ilyas into?" asks what he likes, in whatever words: "Ilyas likes bin lorries", "Zayd
is the one obsessed with planes", "she's really into climbing"."""


def _lemma(verb: str) -> str:
    """The lemma of an asked verb, from the extractor's one verb table ("drove" -> "drive";
    "moving" -> "mov", "plays" -> "play")."""
    return verb_lemma(verb)


def verb_forms(verb: str) -> re.Pattern[str]:
    """A pattern for the forms of the asked verb (and of the activity verbs, when it is one).

    Args:
        verb: the verb as the question writes it.

    Returns:
        A compiled pattern matching any form as a whole word.
    """
    if verb.lower() == "into":
        return _INTEREST
    lemma = _lemma(verb)
    lemmas = _ACTIVITY if lemma in _ACTIVITY else {lemma}
    forms: set[str] = set()
    for lem in lemmas:
        if (irregular := irregular_forms(lem)) is not None:
            forms |= irregular
        else:
            forms.add(rf"{re.escape(lem)}\w{{0,4}}")
            if lem.endswith("y"):  # "study" -> "studies", "studied", which the stem does not reach
                forms |= {f for form in inflect(lem) for f in form.split("|")}
    return re.compile(rf"\b(?:{'|'.join(sorted(forms))})\b", re.I)


_CLAUSE = re.compile(r"[;,:]\s+|\s+(?:and|but|while|whereas|so)\s+|\s+-\s+")
_LEAD = re.compile(r"^\s*(?:(?:and|but|so|then|also|oh|well|now|anyway|plus|ok|okay)\b[\s,]*)*", re.I)
_PRONOUN = re.compile(r"^(?:he|she|they|him|her|his|their)(?:['’](?:s|re|d|ll|ve))?\b", re.I)
_FIRST = re.compile(r"^(?:i|i['’](?:m|ve|d|ll)|we|we['’](?:re|ve|d|ll)|my|our|me)\b", re.I)
_NAME_LEAD = re.compile(
    r"^(?:(?i:my|our|his|her|their)\s+(?:[a-z]+\s+)?|[A-Z][\w-]+['’]s\s+(?=[A-Z]))?(?P<name>[A-Z][\w'’-]+?)(?:['’]s)?\b"
)


_NOT_SUBJECTS = frozenset(
    "I I'm I've I'd I'll The A An It It's That This There Here What No Yes Yeah Yep Nope Nah Sorry Thanks Oh "
    "Well Hi Hey Right OK Okay Sure".split()
)
"""Capitalised words that open a clause without naming anyone ("No, that's Emiliano")."""
_THATS = re.compile(r"^(?:that|this|it)(?:['’]s|\s+is|\s+was)\s+(?P<name>[A-Z][\w'’-]+)\b")
"""A clause that names who is meant ("that's Emiliano, he's fourteen"): what follows is about them."""


def _clause_subject(clause: str, previous: str | None, speaker: str) -> str | None:
    """Who a clause is about: a name it opens with (after "my brother"), the speaker for "I",
    the previous clause's subject for a pronoun or no subject at all."""
    text = _LEAD.sub("", clause).strip()
    named = _NAME_LEAD.match(text)
    if named and named.start("name") > 0 and named.group("name") not in _NOT_SUBJECTS:
        return named.group("name")  # "My neighbour Greta has ...": about Greta, not the speaker
    if _FIRST.match(text):
        return SELF if speaker else None
    if (meant := _THATS.match(text)) and meant.group("name") not in _NOT_SUBJECTS:
        return meant.group("name")
    if _PRONOUN.match(text):
        return previous
    if named and named.group("name") not in _NOT_SUBJECTS:
        return named.group("name")
    return previous


def bound_clauses(text: str, subject: str, speaker: str, user_names: Sequence[str] = ()) -> list[str]:
    """The clauses of a turn said of `subject` (a name, or SELF for the user), in order.

    Args:
        text: the turn.
        subject: the frame subject.
        speaker: who said the turn.
        user_names: the names the user goes by (speaker names, "user", a name they told):
            first-person clauses of their turns are about the user.

    Returns:
        The clauses whose subject is the frame's.
    """
    users = {n.lower() for n in user_names}
    self_speaker = speaker.lower() in users or speaker.lower() == "user"
    wanted = subject.lower()
    out: list[str] = []
    previous: str | None = None  # a pronoun carries the last subject on, across sentences
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue  # a question states nothing
        for clause in (c for c in _CLAUSE.split(sentence) if c and c.strip()):
            who = _clause_subject(clause, previous, speaker)
            previous = who
            if who is None:
                continue
            if who == SELF:
                if subject == SELF and self_speaker:
                    out.append(clause)
                elif subject != SELF and (speaker.lower() == wanted or (self_speaker and wanted in users)):
                    # "Where does Lena work?" and Lena says "I work at ..."; or the user, whom
                    # the question names by the name they told.
                    out.append(clause)
            elif who.lower() == wanted:
                out.append(clause)
    return out


_NEGATED = re.compile(r"\b(?:not|never|no longer|stopped|quit|dropped|gave up)\b|n['’]t\b", re.I)
_STOP = frozenset(
    "now today tonight currently these days every on at in for from with by to about as than and or but when "
    "because since after before until if again too anymore though really lately once twice still also "
    "this that next last so then who which where while".split()
)
_SKIP = frozenset("a an the my his her their our your its some more".split())
_PARTICLES = frozenset("up out off into for to at with in on".split())
_EMPTY = frozenset(
    "it that this them something anything stuff things thing one lot bit well fine okay ok great good sure "
    "time way".split()
)
_MAX_WORDS = 5


_NOMINAL = re.compile(r"\b(?:a|an|the|my|his|her|their|our|your|its|of)\s+$", re.I)


def verb_in(clause: str, forms: re.Pattern[str]) -> re.Match[str] | None:
    """The first form of the verb used as a verb in the clause: not a noun after a determiner
    ("my driving licence" says nothing of what anyone drives).

    Args:
        clause: one clause.
        forms: the verb's forms (`verb_forms`).

    Returns:
        The match, or None.
    """
    return next((m for m in forms.finditer(clause) if not _NOMINAL.search(clause[: m.start()])), None)


def object_after(clause: str, forms: re.Pattern[str]) -> str | None:
    """The noun phrase the verb takes in the clause ("he's doing judo on Tuesdays now" -> "judo"),
    or None when the verb is absent, negated or takes nothing that names a thing.

    Args:
        clause: one clause.
        forms: the verb's forms (`verb_forms`).

    Returns:
        The value, verbatim, or None.
    """
    m = verb_in(clause, forms)
    if m is None or _NEGATED.search(clause[: m.start()]):
        return None
    words: list[str] = []
    for word in re.findall(r"[\w'’&.:-]+", clause[m.end() :]):
        low = word.lower().strip(".")
        if not words and (low in _SKIP or low in _PARTICLES):
            continue  # "signed up for the Porto 10k": the particle and preposition lead to it
        if low in _STOP or len(words) >= _MAX_WORDS:
            break
        words.append(word.rstrip("."))
        if word.endswith("."):
            break
    value = " ".join(words).strip(" .")
    if not value or value.lower() in _EMPTY or all(w.lower() in _EMPTY for w in value.split()):
        return None
    return value


_ROLE = re.compile(
    r"\b(?:is|was|am|['’]s|['’]m|works?\s+as|working\s+as|job\s+as|freelancing\s+as|as)\s+(?:an?|the)\s+"
    r"(?P<role>(?:[a-z-]+\s+){0,2}[a-z-]+)",
    re.I,
)


def role_in(clause: str) -> str | None:
    """The occupation a clause gives its subject ("She's a retired pilot" -> "retired pilot";
    "freelancing as an illustrator" -> "illustrator"), or None."""
    m = _ROLE.search(clause)
    if not m or _NEGATED.search(clause[: m.start()]):
        return None
    words = []
    for word in m.group("role").split():
        if word.lower() in _STOP:
            break
        words.append(word)
    return " ".join(words) or None


_TYPED = frozenset({AnswerType.PLACE, AnswerType.PERSON, AnswerType.PROPER, AnswerType.COLOUR})


def frame_value(
    frame: Frame,
    kind: AnswerType,
    text: str,
    speaker: str,
    exclude: set[str],
    user_names: Sequence[str] = (),
) -> str | None:
    """The value a turn states of the frame's subject with the frame's verb, or None.

    Args:
        frame: the question's frame.
        kind: the question's answer type (a place question takes a place after the verb).
        text: the turn.
        speaker: who said it.
        exclude: names that are not values (the people asked about, speakers).
        user_names: the names the user goes by.

    Returns:
        The value span, verbatim, or None.
    """
    forms = verb_forms(frame.verb)
    corrected = after_correction(text)
    if corrected is not None:
        text = corrected  # "the Warsaw one. Wait, no, it's the Gdańsk half": only what stands
    for clause in reversed(bound_clauses(text, frame.subject, speaker, user_names)):
        # The last clause said of the subject wins: a turn that changes its mind ("Maja quit
        # piano, she's doing ballet now") ends with what holds.
        if frame.occupation:
            role = role_in(clause)
            if role:
                return role
            continue
        m = verb_in(clause, forms)
        if m is None:
            continue
        rest = clause[m.start() :]
        if kind in _TYPED:
            span = typed_span(kind, rest, None, exclude)
            if span:
                return span
            continue
        if kind is AnswerType.OTHER:
            value = object_after(clause, forms)
            if value and value.lower() not in exclude:
                return value
    return None


def says_with_verb(frame: Frame, sentence: str) -> bool:
    """Whether a whole sentence (no value span found) uses the asked verb as a verb, or gives a
    role when the question asks for one: without it, a sentence sharing the question's topic does
    not answer it.

    Args:
        frame: the question's frame.
        sentence: the candidate answer.

    Returns:
        True when the sentence may answer.
    """
    if frame.occupation:
        return role_in(sentence) is not None
    if _lemma(frame.verb) in _LIGHT_VERBS:
        return True  # "What did I do last summer?" is answered by any verb; "work" by "at the bakery"
    return verb_in(sentence, verb_forms(frame.verb)) is not None


def says_of_subject(frame: Frame, sentence: str, speaker: str, user_names: Sequence[str] = ()) -> bool:
    """Whether a sentence uses the asked verb in a clause said of the question's subject: "What did
    Nate find in his notebooks?" is not answered by Joanna's "Thanks Nate! ... I found these old
    notebooks", whose finding is hers. Light verbs and role questions are left to `says_with_verb`.

    Args:
        frame: the question's frame.
        sentence: the candidate answer.
        speaker: who said it.
        user_names: the names the user goes by (as for `bound_clauses`).

    Returns:
        True when a clause bound to the frame's subject uses the verb.
    """
    if frame.occupation or _lemma(frame.verb) in _LIGHT_VERBS:
        return says_with_verb(frame, sentence)
    forms = verb_forms(frame.verb)
    return any(
        verb_in(c, forms) is not None for c in bound_clauses(sentence, frame.subject, speaker, user_names)
    )


_LIGHT_VERBS = frozenset({"do", "have", "get", "work", "be", "go"})
"""Verbs a statement rarely repeats: "What food intolerance do I have?" is answered by "I'm
lactose intolerant", "Where was she working?" by "I'm still at the bakery"."""


_GENERIC_MODIFIERS = frozenset(
    "new old other same first last next one two three big small little good great nice favourite favorite "
    "usual own whole only main real".split()
)


def modified_head(sentence: str, head: str) -> str | None:
    """The asked noun with the words that say which one, as a sentence says it ("Next time I want
    an aisle seat though" -> "aisle seat" for "Which seat ...?"), or None when the sentence names
    the noun bare or with words that do not tell one apart ("a new seat").

    Args:
        sentence: a candidate answer sentence.
        head: the noun the question asks for.

    Returns:
        The modifier words and the noun, verbatim, or None.
    """
    det = r"(?:a|an|the|my|his|her|their|our|your)"
    pattern = rf"\b{det}\s+((?:[\w-]+\s+){{1,2}}?){re.escape(head)}s?\b"
    for m in re.finditer(pattern, sentence, re.I):
        if _NEGATED.search(sentence[: m.start()]):
            continue
        modifiers = m.group(1).split()
        if all(w.lower() in _GENERIC_MODIFIERS or w.lower() in _STOP for w in modifiers):
            continue
        return m.group(0).split(None, 1)[1]
    return None


_WHICH_ONE = re.compile(
    r"^\s*(?i:which|whose)\s+(?:(?i:of)\s+[\w'’ ]+?\s+)?(?P<head>[a-z]+)\s+(?P<pred>(?:is|are|was|were|has|had|have|"
    r"did|does|[a-z]+)\b[^?]*)\??\s*$"
)
"""'Which cat is on kidney food?', 'Whose dog hurt a paw?', 'Which of Keiko's kids takes violin?'."""
_PRED_STOP = frozenset(
    "is are was were has had have did does do the a an on in at of to for with out up now still this that "
    "their his her my our your its who which".split()
)


def which_one_words(question: str) -> frozenset[str] | None:
    """The words of what a "which/whose <noun> <predicate>?" question says of the one it asks
    for ("Which cat is on kidney food?" -> {"kidney", "food"}), or None for any other form.

    Args:
        question: the question as asked.

    Returns:
        The predicate's content words (lowercase, crude stems), or None.
    """
    m = _WHICH_ONE.match(question)
    if not m or re.search(r"\b[A-Z]", m.group("pred")):
        return None  # "Which race is Matteo running?" asks what Matteo does, not which one did it
    words = {_lemma(w) for w in re.findall(r"[a-z]+", m.group("pred").lower()) if w not in _PRED_STOP}
    return frozenset(words) or None


def which_one(question: str, text: str, speaker: str, exclude: set[str]) -> tuple[str, int] | None:
    """The named subject of the clause of `text` that says what the question says of the one it
    asks for ("Clementine is on special kidney food, Quince eats anything" -> "Clementine" for
    "Which cat is on kidney food?"), with how many of the predicate's words the clause shares;
    None when no clause with a named subject shares all of them but one in three.

    Args:
        question: a "which/whose <noun> <predicate>?" question.
        text: a turn.
        speaker: who said it (never the answer: "I" is not a name asked for).
        exclude: names that are not answers (the people the question names).

    Returns:
        (name, shared words), or None.
    """
    wanted = which_one_words(question)
    if not wanted:
        return None
    best: tuple[str, int] | None = None
    previous: str | None = None
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        for clause in (c for c in _CLAUSE.split(sentence) if c and c.strip()):
            who = _clause_subject(clause, previous, speaker)
            previous = who
            if who is None or who == SELF or who.lower() in exclude or who.lower() == speaker.lower():
                continue
            said = {_lemma(w) for w in re.findall(r"[a-z]+", clause.lower())}
            shared = len(wanted & said)
            if shared >= len(wanted) - len(wanted) // 3 and (best is None or shared > best[1]):
                best = (who, shared)
    return best
