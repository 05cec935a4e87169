"""Who holds a role in the speaker's life: "my supervisor is Professor Szczepanik", "Dr Vanterpool
has been my supervisor since 1 June", "Wojtek is head chef", "we've got a new social worker,
Ifeoluwa".

Why: agents are told who someone's doctor, manager, coach or landlord is, and that it changed.
No built-in predicate holds "who is my X": each role is its own single-valued open predicate of
the speaker (`supervisor`, `head_chef`, `social_worker`), so a new holder supersedes the old one
in the ledger, as-of questions get the holder at that time, and "head chef" and "sous chef" stay
apart. The role is a job noun (`emem.extract.patterns.JOBS`) or a relation of work or housing
(boss, mentor, landlord), with the modifiers that make a different role (head, sous, social).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from datetime import datetime

from emem.extract.dates import find_date_mentions
from emem.extract.entities import NOT_NAMES
from emem.extract.patterns import JOBS
from emem.extract.schema import FactCandidate
from emem.models import Turn

RELATIONAL_ROLES = ("boss", "landlord", "landlady", "mentor", "adviser", "advisor", "GP", "sous")
"""Roles that are not jobs one says one has ("I'm a boss" is not a job title)."""
KEPT_MODIFIERS = ("head", "sous", "social", "personal", "line", "deputy", "executive", "assistant", "senior")
"""Modifiers that name another role ("head chef" is not "sous chef"); others ("new", "PhD",
"running") say which holder or are said only sometimes ("my running coach" is my coach). "old",
"former" and "ex" name a past holder and are not read as holding."""
_HEADS = sorted({*JOBS, *RELATIONAL_ROLES}, key=len, reverse=True)
_ROLE = (
    r"(?P<role>(?:(?!(?:old|former|ex|previous|last|first|a|an|the|[a-z]+est)\b)[a-z]+\s+|PhD\s+){0,2}"
    r"(?:" + "|".join(re.escape(h).replace(r"\ ", r"\s+") for h in _HEADS) + r"))(?![\w-])"
)
_TITLE = r"^(?:Dr|Doctor|Professor|Prof|Mr|Mrs|Ms|Miss|Coach)\.?\s+"
_NAME = rf"(?P<name>(?:{_TITLE[1:]})?[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž][\w'-]*(?:\s+[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž][\w'-]*)?)"
_DET = r"(?P<det>(?i:my|our|your|the))"


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    """The statement patterns, compiled on first use: each holds the role alternation of a few
    hundred job nouns, which would cost every process that imports the read path (the planner
    asks `asked_roles`) tens of milliseconds at import."""
    return (
        # "my supervisor is Professor Szczepanik", "our new social worker is Ifeoluwa"
        re.compile(rf"\b{_DET}\s+{_ROLE}\s+(?:is|will\s+be)\s+(?:now\s+|still\s+)?{_NAME}"),
        # "Dr Vanterpool has been my supervisor since 1 June", "Ifeoluwa is our social worker now"
        re.compile(
            rf"(?:^|[,;:]\s+|\b(?:and|so)\s+){_NAME}\s+(?:is|has\s+been|will\s+be|became|becomes)\s+"
            rf"(?:now\s+|officially\s+)?{_DET}\s+{_ROLE}"
        ),
        # "Wojtek is head chef", "Keturah steps up to head chef from the 1st of May"
        re.compile(
            rf"(?:^|[,;:]\s+|\b(?:and|so)\s+)(?:(?i:a|some)\s+(?:guy|man|woman|lady|chap|bloke|person)\s+called\s+)?{_NAME}"
            rf"(?:\s+is(?:\s+now)?|\s+steps\s+up\s+to|\s+stepped\s+up\s+to|"
            rf"\s+(?:takes|took|has\s+taken|is\s+taking|will\s+take)\s+over\s+as)\s+(?P<det>)(?!a\s|an\s){_ROLE}"
        ),
        # "Evaristo's head brewer now": the contraction, only where the role ends the clause
        # ("Tom's boss is awful" is Tom's boss, not Tom)
        re.compile(
            rf"(?:^|[,;:]\s+|\b(?:and|so)\s+){_NAME}['’]s\s+(?:now\s+)?(?P<det>)(?!a\s|an\s){_ROLE}"
            r"(?=\s*(?:now\b|at\b|for\b|from\b|[.,;!]|$))"
        ),
        # "we've got a new social worker, Ifeoluwa", "We've hired a new sous, Cadfael"
        re.compile(
            rf"\b(?:got|hired|have|found|assigned|appointed)\s+(?P<det>a|an|our)\s+new\s+{_ROLE}(?:\s+from\s+[A-Z]\w+)?,\s+{_NAME}"
            r"(?=\s*(?:[,.;!]|$|\s+from\b|\s+who\b))"
        ),
    )


_AHEAD = re.compile(
    r"\b(?:is|are)\s+taking\s+over\b|\bwill\s+(?:take\s+over|be)\b|['’]ll\s+(?:take\s+over|be)\b"
)
"""A role held from some time ahead ("is taking over as", "will be our new coach")."""
_NEGATED = re.compile(r"\b(?:not|never|no\s+longer)\b|n't\b|\bif\b|\bmaybe\b|\bmight\b", re.I)
_NOT_ROLE_HOLDERS = frozenset({"she", "he", "it", "they", "this", "that", "there"})


def role_predicate(role: str) -> str:
    """The predicate of a role phrase: "head chef" -> head_chef, "PhD supervisor" -> supervisor,
    "new sous" -> sous_chef, "running coach" -> coach.

    Args:
        role: the role as said (modifiers and head noun).
    Returns:
        The snake_case predicate.
    """
    *mods, head = role.split()
    words = [w.lower() for w in mods if w.lower() in KEPT_MODIFIERS] + [head.lower()]
    if words == ["sous"]:
        words = ["sous", "chef"]
    return "_".join(words)


def roles(turn: Turn, subject_of: Callable[[str], str], sentences: Sequence[str]) -> list[FactCandidate]:
    """Who holds a role for the speaker, from one turn of the user or a person (not the agent).

    Args:
        turn: the turn.
        subject_of: speaker -> the subject it is filed under.
        sentences: the turn's sentences, as the extractor splits them (`split_sentences`: "Dr."
            does not end one).

    Returns:
        Single-valued open-predicate assertions (`cardinality="single"`), from a date said with
        "since"/"from" when there is one, else from the turn's time.
    """
    out: list[FactCandidate] = []
    for said in sentences:
        sentence = said.replace("\u2019", "'")
        if sentence.rstrip().endswith("?"):
            continue
        seen: set[tuple[str, str]] = set()
        for pattern in _patterns():
            for m in pattern.finditer(sentence):
                det = (m.group("det") or "").lower()
                name = m.group("name")
                first = re.sub(_TITLE, "", name).split()[0]
                if first.lower() in NOT_NAMES or first.lower() in _NOT_ROLE_HOLDERS:
                    continue
                if det == "your" or _NEGATED.search(sentence[: m.end()]):
                    continue  # the speaker's own roles, said as holding
                predicate = role_predicate(m.group("role"))
                if (predicate, name) in seen:
                    continue
                seen.add((predicate, name))
                since = re.search(
                    r"\b(?:since|from|as\s+of|starting)\s+(?P<when>[^,.;!?]+)", sentence[m.start() :]
                )
                when: datetime | None = None
                if since is not None:
                    # "since 1 June" looks back; "from the 1st of May" may lie ahead
                    ahead = not since.group(0).lower().startswith("since")
                    dates = find_date_mentions(since.group("when"), turn.time, "future" if ahead else "past")
                    when = dates[0].start if dates else None
                elif _AHEAD.search(sentence[m.start() :]):
                    # "Yolande's going on maternity leave in January. A guy called Rupert is taking
                    # over as site supervisor.": a takeover ahead starts when the turn says
                    dates = find_date_mentions(" ".join(sentences), turn.time, "future")
                    when = dates[0].start if dates and dates[0].start > turn.time else None
                out.append(
                    FactCandidate(
                        subject=subject_of(turn.speaker),
                        predicate=predicate,
                        object=name,
                        surface=sentence.strip(),
                        valid_from=when,
                        source_turn_ids=[turn.turn_id],
                        confidence=0.7,
                        cardinality="single",
                    )
                )
    return out


_DOES = {
    "supervises": "supervisor",
    "coaches": "coach",
    "manages": "manager",
    "tutors": "tutor",
    "trains": "trainer",
    "supervising": "supervisor",
    "coaching": "coach",
    "managing": "manager",
    "teaches": "teacher",
    "teaching": "teacher",
    "directs": "director",
    "directing": "director",
    "conducts": "conductor",
    "mentors": "mentor",
}
"""Verbs a "who" question asks a role by ("Who supervises my PhD?", "Who is coaching you?")."""


@functools.cache
def _asked() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The question patterns (by the role's noun, by its verb), compiled on first use."""
    by_noun = re.compile(
        rf"^\s*(?i:who)(?:'s|\s+is|\s+was|\s+will\s+be|\s+has\s+been)\s+(?:\w+'s\s+|(?i:my|our|the|your)\s+)?{_ROLE}"
    )
    by_verb = re.compile(r"^\s*(?i:who)\s+(?:(?:is|was)\s+)?(?P<verb>" + "|".join(_DOES) + r")\b")
    return by_noun, by_verb


def asked_roles(question: str) -> list[str]:
    """The role predicates a "who" question asks for: "Who is my PhD supervisor?" -> supervisor,
    "Who was head chef in March?" -> head_chef, "Who supervises my PhD?" -> supervisor.

    Args:
        question: the question.
    Returns:
        Role predicates (`role_predicate`), none when it asks no role.
    """
    by_noun, by_verb = _asked()
    m = by_noun.match(question)
    if m is not None:
        return [role_predicate(m.group("role"))]
    v = by_verb.match(question)
    return [_DOES[v.group("verb").lower()]] if v is not None else []
