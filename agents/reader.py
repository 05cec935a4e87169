"""The reader answers from the packed context only, abstains when the evidence does not support
an answer, and reports conflicts. The offline reader is extractive and rule-based: it quotes,
counts, and does date arithmetic, but it does not paraphrase."""

from __future__ import annotations

import re
from datetime import datetime

from emem.answer import ABSTAIN, EvidenceItem, FactItem, Operation, PackResult, Plan, Status
from emem.errors import LLMError
from emem.extract.dates import find_date_mentions
from emem.index.text import tokenize
from emem.instructions import looks_like_instruction
from emem.llm.base import ChatModel
from emem.llm.usage import LLMCall
from emem.prompting import load_prompt, memory_block
from emem.tokens import count_tokens

_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def best_sentence(question: str, text: str) -> str:
    """The sentence of `text` sharing the most words with the question (verbatim)."""
    q = set(tokenize(question))
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()] or [text.strip()]
    scored = [(len(q & set(tokenize(s))), -i, s) for i, s in enumerate(sentences)]
    return max(scored)[2]


_FUTURE = re.compile(r"\b(?:will|going to|gonna|plan(?:ning)? to|next|upcoming|soon|about to)\b", re.IGNORECASE)


def event_date(e: EvidenceItem) -> tuple[datetime, str]:
    """When the evidence says the event happened: a date it mentions (read forwards when the turn
    talks about plans), else when it was said."""
    mentions = find_date_mentions(e.text, e.time, "future" if _FUTURE.search(e.text) else "past")
    if mentions:
        return mentions[0].start, mentions[0].label()
    return e.time, f"{e.time.day} {e.time:%B %Y}"


def arithmetic_endpoints(question: str, evidence: list[EvidenceItem]) -> tuple[EvidenceItem, EvidenceItem] | None:
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
    dated = [e for e in evidence if event_date(e)[0].date() != event_date(evidence[0])[0].date()] if evidence else []
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


def offline_read(question: str, plan: Plan, pack: PackResult, facts: list[FactItem]) -> tuple[str, Status]:
    conflicts = [f for f in facts if f.status == "conflict"]
    if conflicts:
        f = conflicts[0]
        return f"Conflict: {f.subject}'s {f.predicate} is one of {' or '.join(f.values)}; the ledger cannot order them", "conflict"
    states = [f for f in facts if f.status == "state" and f.values]
    # Context-fill turns (role "context") are what no assistant quoted: a model may read them,
    # but rules cannot judge them, so they never count, list or answer here.
    evidence = sorted((e for c in pack.closures for e in c.evidence if e.role != "context"), key=lambda e: -e.score)
    evidence = [e for e in evidence if not looks_like_instruction(e.text)]  # orders are data, never answers
    if states and plan.operation in (Operation.FACT, Operation.LIST):
        return ", ".join(v for f in states for v in f.values), "answered"
    if states and plan.operation == Operation.COUNT:
        return str(sum(len(f.values) for f in states)), "answered"
    if not evidence:
        return ABSTAIN, "abstained"
    if plan.operation == Operation.TEMPORAL_LOOKUP:
        return event_date(evidence[0])[1], "answered"
    if plan.operation == Operation.TEMPORAL_ARITHMETIC:
        pair = arithmetic_endpoints(question, [e for e in evidence if e.role != "superseded-value"])
        if pair is None:
            return ABSTAIN, "abstained"
        return _duration(event_date(pair[0])[0], event_date(pair[1])[0]), "answered"
    if plan.operation == Operation.COUNT:
        return str(len({(e.conversation_id, e.turn_id) for e in evidence})), "answered"
    if plan.operation == Operation.LIST:
        items = list(dict.fromkeys(best_sentence(question, e.text) for e in evidence))
        return ", ".join(items[:6]), "answered"
    return best_sentence(question, evidence[0].text), "answered"


def offline_reader_call(question: str, context: str, answer: str) -> LLMCall:
    return LLMCall(
        role="reader",
        model="offline-rules",
        backend="offline",
        prompt_tokens=count_tokens(question) + count_tokens(context),
        completion_tokens=count_tokens(answer),
    )


def llm_read(question: str, plan: Plan, pack: PackResult, facts: list[FactItem], chat: ChatModel) -> tuple[str, Status, LLMCall]:
    prompt = load_prompt("reader")
    messages = [
        {"role": "system", "content": prompt.text},
        {
            "role": "user",
            "content": memory_block([line for c in pack.closures for line in c.lines])
            + f"\nOperation: {plan.operation.value}\nQuestion: {question}\nAnswer:",
        },
    ]
    try:
        result = chat.chat("reader", messages, max_tokens=64, prompt_hash=prompt.sha256)
    except LLMError as exc:
        call = LLMCall(role="reader", model=getattr(chat, "model", "?"), backend="openai", ok=False, error=str(exc),
                       prompt_tokens=sum(count_tokens(m["content"]) for m in messages), prompt_hash=prompt.sha256)
        return "", "error", call
    text = result.text.strip().strip('"').strip()
    if not text or "no information available" in text.lower():
        return ABSTAIN, "abstained", result.call
    if any(f.status == "conflict" for f in facts) and "conflict" in text.lower():
        return text, "conflict", result.call
    return text, "answered", result.call
