"""Replies to a question someone asked in the conversation (pure rules).

An agent asks the user things ("How long have you been cooking?") and the user answers in a few
words ("About four years."). Read alone, such a reply says nothing a rule can type: it names
neither the activity nor the person. Read after the question it answers, it is the answer itself.
So when a question put to memory asks what was asked in the conversation (the same wh-phrase and
the same content words, with "you" standing for the one who replied), the reply's first sentence
answers it. The rule keys on the conversation's own question, never on a word list of topics, so
it carries over to whatever the agent asks about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from emem.agents.spans import sentences
from emem.answer import EvidenceItem
from emem.index.text import tokenize
from emem.subjects import speaker_roles

_WH = re.compile(
    r"\b(how\s+(?:long|many|much|old|often|far)|what|which|where|who|whom|whose|when)\b", re.IGNORECASE
)
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|mine|myself|the\s+user)\b", re.IGNORECASE)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
_TRAILING_ID = re.compile(r"^(.*?)(\d+)$")
_NOT_AN_ANSWER = re.compile(
    r"^\s*(?:why|what\s+do\s+you\s+mean|not\s+sure|i\s+(?:don't|do\s+not)\s+know|no\s+idea|"
    r"i'd\s+rather\s+not|never\s+mind|hmm+|um+|well)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Reply:
    """A reply read as the answer to the conversation's own question."""

    answer: str
    """The reply's first sentence, without its closing punctuation."""
    asked: EvidenceItem
    """The turn that asked."""
    reply: EvidenceItem
    """The turn that answered."""


def _wh(text: str) -> str | None:
    m = _WH.search(text)
    return re.sub(r"\s+", " ", m.group(1).lower()) if m else None


def _last_question(text: str) -> str | None:
    """The last sentence of a turn that ends with a question mark (an agent's turn often
    acknowledges first and asks last)."""
    asked = [s for s in sentences(text) if s.endswith("?")]
    return asked[-1] if asked else None


def _next_id(turn_id: str) -> str | None:
    m = _TRAILING_ID.match(turn_id)
    return f"{m.group(1)}{int(m.group(2)) + 1}" if m else None


def _about_replier(question: str, replier: str, roles: dict[str, str]) -> bool:
    """Whether the question put to memory is about the one who replied: "I"/"my" when the
    replier is the user, or the replier's name."""
    if _FIRST_PERSON.search(question) and roles.get(replier) != "agent":
        return True
    first = replier.split()[0] if replier.split() else replier
    return bool(first) and re.search(rf"\b{re.escape(first)}\b", question, re.IGNORECASE) is not None


def _same_question(question: str, asked: str, replier: str) -> bool:
    """The same wh-phrase and content words; "you" in the asked question stands for the replier,
    whose name (or "I"/"my") the question put to memory uses instead."""
    if not _SECOND_PERSON.search(asked):
        return False
    wh = _wh(question)
    if wh is None or wh != _wh(asked):
        return False
    name = set(tokenize(replier))
    want = set(tokenize(question)) - name
    said = set(tokenize(asked)) - name
    return bool(said) and said == want


def reply_to_question(
    question: str, evidence: Sequence[EvidenceItem], *, before: datetime | None = None
) -> Reply | None:
    """The latest reply, among the packed turns, to a question the conversation itself asked in
    the words of `question`.

    Args:
        question: the question put to memory.
        evidence: the packed turns (the asking turn and the reply must both be among them).
        before: when given, only replies said before it (a question about a past time).

    Returns:
        The reply, or None when no packed turn asked this question and was answered.
    """
    by_id = {(e.conversation_id, e.turn_id): e for e in evidence}
    roles: dict[str, str] = dict(speaker_roles([e.speaker for e in evidence]))
    found: list[Reply] = []
    for asked in evidence:
        line = _last_question(asked.text)
        nxt = _next_id(asked.turn_id)
        reply = by_id.get((asked.conversation_id, nxt)) if line and nxt else None
        if reply is None or reply.speaker == asked.speaker or reply.session_id != asked.session_id:
            continue
        if before is not None and reply.time >= before:
            continue
        if not _same_question(question, line or "", reply.speaker):
            continue
        if not _about_replier(question, reply.speaker, roles):
            continue
        first = next(iter(sentences(reply.text)), "")
        if not first or first.endswith("?") or _NOT_AN_ANSWER.match(first):
            continue
        found.append(Reply(first.rstrip(".!").strip(), asked, reply))
    return max(found, key=lambda r: r.reply.time) if found else None
