"""Assistant agents: each holds one uncompressed segment, reads all of it, and returns verbatim
evidence (exact quotes with turn ids and times), a local note, or "nothing relevant".

A quote that is not in the segment is rejected: assistants may select, never paraphrase.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from pydantic import BaseModel, Field

from emem.agents.planner import PREDICATE_CUES, STATE_WORDS
from emem.answer import EvidenceItem, Plan
from emem.errors import LLMError
from emem.index.manager import turn_key
from emem.index.text import tokenize
from emem.llm.base import ChatModel
from emem.llm.jsonparse import parse_into
from emem.llm.llama_state import LlamaStateChat, SegmentPrefix
from emem.llm.usage import LLMCall
from emem.models import StoredTurn
from emem.prompting import data_text, load_prompt, memory_block
from emem.retrieval.turntext import turn_text
from emem.retrieval.view import NamespaceView
from emem.segment_state import SegmentStateCache, StateKey, segment_hash
from emem.segments import Segment
from emem.timeparse import MONTHS
from emem.tokens import count_tokens

RELEVANCE_FLOOR = 0.42
"""Offline assistant: the segment is relevant when its best turn reaches this blended score."""
CANDIDATE_FLOOR = 0.25
"""Below this a turn is never offered as evidence; between the floors it is offered, ranked low."""
DATE_WORDS = frozenset(
    tokenize(" ".join(MONTHS) + " currently these days nowadays still anymore at the moment")
)
"""Month names and abbreviations, and the words that ask for the current state ("these days"),
as the index tokenises them: they say when, not what."""
_YEAR = re.compile(r"(?:19|20)\d\d")


class AssistantReport(BaseModel):
    segment_id: str
    relevant: bool
    evidence: list[EvidenceItem] = Field(default_factory=list)
    note: str = ""
    rejected_quotes: list[str] = Field(default_factory=list)
    """Quotes not found verbatim in any one turn of the segment: dropped, never paraphrased in."""
    reattributed_quotes: list[str] = Field(default_factory=list)
    """"given id -> real id" for verbatim quotes given under a wrong turn id."""
    error: str | None = None


class QuoteReply(BaseModel):
    turn_id: str
    quote: str


class AssistantReply(BaseModel):
    relevant: bool = False
    evidence: list[QuoteReply] = Field(default_factory=list)
    note: str = ""


_QUOTE_OBJECT = re.compile(
    r'\{\s*"turn_id"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"quote"\s*:\s*"((?:[^"\\]|\\.)*)"\s*\}'
)


def parse_assistant_reply(text: str) -> AssistantReply:
    """Parse the reply; if it is not whole JSON (cut off at max_tokens), keep every complete
    {"turn_id", "quote"} object it holds. Nothing salvageable is an error, not "irrelevant"."""
    try:
        return parse_into(text, AssistantReply)
    except ValueError as exc:
        import json

        items = [
            QuoteReply(turn_id=json.loads(f'"{t}"'), quote=json.loads(f'"{q}"'))
            for t, q in _QUOTE_OBJECT.findall(text)
        ]
        if not items:
            raise exc
        return AssistantReply(relevant=True, evidence=items, note="reply was cut off; complete quotes kept")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def verify_quote(turn: StoredTurn, quote: str) -> bool:
    """True when `quote` is a verbatim span of the turn (whitespace and case aside)."""
    q = _squash(quote.strip().strip('"“”'))
    return bool(q) and any(q in _squash(t) for t in (turn.text, turn.render(), data_text(turn.render())))


def locate_quote(segment: Segment, by_id: dict[str, StoredTurn], quote: QuoteReply) -> StoredTurn | None:
    """The turn a quote comes from: the one it names when the quote is verbatim there; otherwise
    the only turn of the segment that holds it verbatim (small models garble ids, e.g. "2" for
    "D2:2", while copying the words exactly). A quote found in several turns, or in none, is rejected."""
    named = by_id.get(quote.turn_id.strip())
    if named is not None and verify_quote(named, quote.quote):
        return named
    holders = [t for t in segment.turns if verify_quote(t, quote.quote)]
    return holders[0] if len(holders) == 1 else None


def evidence_item(
    turn: StoredTurn, segment: Segment, score: float, quote: str | None = None, role: str = "evidence"
) -> EvidenceItem:
    """A turn as evidence, with its role ("evidence" or "context")."""
    return EvidenceItem(
        turn_id=turn.turn_id,
        session_id=turn.session_id,
        conversation_id=turn.conversation_id,
        speaker=turn.speaker,
        time=turn.time,
        text=turn.text,
        image_caption=turn.image_caption,
        quote=quote,
        score=score,
        segment_id=segment.segment_id,
        role=role,
    )


def _said(turn: StoredTurn) -> str:
    """What every line of a turn ends with, whatever id and date prefix it (count_line_tokens)."""
    return turn_text(turn).said


def head_tokens(head: str) -> int:
    """Tokens of a line's head ("[id]" or "[id | date]"), which the tail after it never merges
    with (emem.tokens.count_line_tokens says why): a line costs this plus its turn's
    `TurnText.said_tokens`."""
    return count_tokens(head)


def packed_line_tokens(turn: StoredTurn) -> int:
    """The tokens of a turn's line as the packed context renders it ("[id] speaker: text"),
    its session header aside: what the turn costs the budget (emem.read.aggregate.turn_line)."""
    return head_tokens(f"[{turn.turn_id}]") + turn_text(turn).said_tokens


def turn_line(turn: StoredTurn) -> str:
    return f"[{turn.turn_id} | {turn.time:%Y-%m-%d}] {turn.speaker}: {turn.render()}"


def segment_lines(turns: Sequence[StoredTurn], start: datetime) -> list[str]:
    """A segment's turns as an assistant reads them, under a prompt that states the segment's
    date (`start`): each turn's date is written only when its day differs from the turn before
    (the first from `start`). A session said in one day repeats no date, which was about a sixth
    of every line the assistants read; a segment spanning days still dates each new day.

    Args:
        turns: the segment's turns, in order.
        start: the day the prompt's header gives.
    Returns:
        One line per turn.
    """
    return [f"{head}{_said(t)}" for head, t in zip(segment_heads(turns, start), turns, strict=True)]


def segment_heads(turns: Sequence[StoredTurn], start: datetime) -> list[str]:
    """The heads of `segment_lines` ("[id]" or "[id | date]"), each followed there by `_said`.

    Args:
        turns: the segment's turns, in order.
        start: the day the prompt's header gives.
    Returns:
        One head per turn.
    """
    heads, day = [], start.date()
    for t in turns:
        when = "" if t.time.date() == day else f" | {t.time:%Y-%m-%d}"
        day = t.time.date()
        heads.append(f"[{t.turn_id}{when}]")
    return heads


def support_scores(
    turns: Sequence[StoredTurn], turn_vectors: np.ndarray, question: str, plan: Plan, q_vec: np.ndarray
) -> list[float]:
    """How well each turn supports an answer: meaning (cosine), shared words, named entities.
    The words of a date the question names ("in September 2024") are a constraint on when, not
    content a turn must share: they do not count as shared words."""
    q_terms = set(tokenize(question)) - DATE_WORDS
    q_terms = {w for w in q_terms if not _YEAR.fullmatch(w)} or set(tokenize(question))
    entities = {e.lower() for e in plan.entities}
    kin = cue_kin(question, plan, q_terms)
    dense = turn_vectors @ q_vec
    out = []
    for i, turn in enumerate(turns):
        text = turn_text(turn)
        words = text.words
        # A question word naming a ledger predicate ("diet") is matched by the predicate's other
        # words ("pescatarian"): the vocabulary says what a value of it looks like.
        matched = (q_terms & words) | {w for w, others in kin.items() if others & words}
        overlap = len(matched) / max(len(q_terms), 1)
        mentioned = {e for e in entities if e in text.lower or e == turn.speaker.lower()}
        out.append(0.6 * float(dense[i]) + 0.4 * overlap + 0.05 * len(mentioned))
    return out


def cue_kin(
    question: str, plan: Plan, q_terms: set[str], *, states: bool = True
) -> dict[str, frozenset[str]]:
    """For the question's word that cues its first predicate ("diet"), the predicate's other
    one-word cues as the index tokenises them ("vegetarian", "vegan", ...); with `states`, for a
    word the predicate's value is stated with ("work"), the other such words ("job", "joined":
    emem.agents.planner.STATE_WORDS). Empty otherwise."""
    if not plan.predicates or plan.predicates[0] not in PREDICATE_CUES:
        return {}
    predicate = plan.predicates[0]
    cues = [c for c in PREDICATE_CUES[predicate] if " " not in c]
    # Only the word naming the predicate's kind ("diet", "pet") stands for its values; a value
    # word ("cat") stands for itself.
    head_words = [cues[0], *predicate.split("_")]
    heads = set(tokenize(" ".join(head_words)))
    # a head's own plural names the kind too ("children" for has_child's "child")
    heads |= {t for c in cues if any(c.startswith(h) for h in head_words if len(h) > 2) for t in tokenize(c)}
    tokens = {t for c in cues for t in tokenize(c)}
    kin = {w: frozenset(tokens - {w}) for w in q_terms & heads}
    if states:
        said = _state_tokens(predicate)
        kin |= {w: kin.get(w, frozenset()) | (said - {w}) for w in q_terms & said}
    return kin


@functools.lru_cache(maxsize=64)
def _state_tokens(predicate: str) -> frozenset[str]:
    return frozenset(t for w in STATE_WORDS.get(predicate, ()) for t in tokenize(w))


def supported_evidence(
    view: NamespaceView,
    turns: Sequence[StoredTurn],
    question: str,
    plan: Plan,
    q_vec: np.ndarray,
    *,
    keep_all: bool = False,
) -> tuple[list[EvidenceItem], bool]:
    """Retrieved turns as evidence, scored by support, and whether any turn reaches
    RELEVANCE_FLOOR. Unless `keep_all` (full context), nothing is kept when none does (so the
    reader abstains), and turns under CANDIDATE_FLOOR are dropped."""
    if not turns:
        return [], False
    scores, relevant = _support(view, turns, question, plan, q_vec)
    evidence = [
        evidence_item(t, view.segment_for(t), round(s, 4), t.text)
        for t, s in zip(turns, scores, strict=True)
        if keep_all or _kept(s, relevant)
    ]
    return evidence, relevant


def supported_and_ranked(
    view: NamespaceView,
    turns: Sequence[StoredTurn],
    question: str,
    plan: Plan,
    q_vec: np.ndarray,
) -> tuple[list[EvidenceItem], list[EvidenceItem]]:
    """`supported_evidence` and `supported_evidence(keep_all=True)` from one scoring: the cut
    evidence and the whole ranking (the same items), for a caller that needs both.

    Args:
        view: the namespace's view.
        turns: retrieved turns, best first.
        question: the question as asked.
        plan: its plan.
        q_vec: the question's vector.
    Returns:
        (the evidence kept, every turn as evidence), in retrieval order.
    """
    if not turns:
        return [], []
    scores, relevant = _support(view, turns, question, plan, q_vec)
    ranking = [
        evidence_item(t, view.segment_for(t), round(s, 4), t.text) for t, s in zip(turns, scores, strict=True)
    ]
    return [e for e, s in zip(ranking, scores, strict=True) if _kept(s, relevant)], ranking


def _support(
    view: NamespaceView, turns: Sequence[StoredTurn], question: str, plan: Plan, q_vec: np.ndarray
) -> tuple[list[float], bool]:
    """Each turn's support score, and whether any reaches RELEVANCE_FLOOR."""
    vectors = view.turn_vectors[[view.row_of[turn_key(t)] for t in turns]]
    scores = support_scores(turns, vectors, question, plan, q_vec)
    return scores, max(scores) >= RELEVANCE_FLOOR


def _kept(score: float, relevant: bool) -> bool:
    """The cut: nothing when no turn is relevant, else every turn from CANDIDATE_FLOOR up."""
    return relevant and score >= CANDIDATE_FLOOR


def ranked_assistant(
    segment: Segment,
    question: str,
    ranked: Sequence[tuple[StoredTurn, float, float]],
    budget: int,
) -> tuple[AssistantReport, LLMCall]:
    """Offline assistant of the deep path: every visible turn of the segment, ranked by the
    calibrated score (comparable across segments), best first, until the turns would fill the
    budget alone. No floor drops the segment: whether the question is answerable is decided once,
    by the master, on all the evidence; `relevant` only says whether the best turn's support
    reaches RELEVANCE_FLOOR.

    Args:
        segment: the segment held.
        question: the question as asked.
        ranked: (turn, calibrated score, support score) of each visible turn.
        budget: the question's context budget in tokens.
    Returns:
        The report (evidence by id, verbatim) and the call's token cost: the segment read, and
        the ranked ids written (the master looks the turns up verbatim).
    """
    order = sorted(ranked, key=lambda r: (-r[1], r[0].seq))
    # Each turn's line as the segment renders it, found by identity: the ranked turns are the
    # segment's own objects (hashing a turn model hashes every field).
    heads = segment_heads(segment.turns, segment.start)
    head_of = {id(t): h for t, h in zip(segment.turns, heads, strict=True)}
    evidence, used = [], 0
    for turn, score, _ in order:
        if used >= budget:
            break
        evidence.append(evidence_item(turn, segment, round(score, 4), turn.text))
        head = head_of.get(id(turn)) or f"[{turn.turn_id} | {turn.time:%Y-%m-%d}]"
        used += head_tokens(head) + turn_text(turn).said_tokens
    relevant = bool(ranked) and max(r[2] for r in ranked) >= RELEVANCE_FLOOR
    note = (
        f"{len(evidence)} turn(s) ranked on {segment.start:%d %B %Y}; best "
        + ", ".join(e.turn_id for e in evidence[:3])
        if relevant
        else f"nothing clearly relevant; {len(evidence)} turn(s) ranked"
    )
    read = sum(head_tokens(h) + turn_text(t).said_tokens for t, h in zip(segment.turns, heads, strict=True))
    read += count_tokens(question)
    written = count_tokens(note) + sum(count_tokens(f"{e.turn_id} {e.score}") for e in evidence)
    call = LLMCall(
        role="assistant",
        model="offline-rules",
        backend="offline",
        prompt_tokens=read,
        completion_tokens=written,
    )
    return AssistantReport(
        segment_id=segment.segment_id, relevant=relevant, evidence=evidence, note=note
    ), call


def _task(segment: Segment, question: str, operation: str) -> str:
    return load_prompt("assistant_task").render(
        session_date=f"{segment.start:%d %B %Y}",
        memory=memory_block(segment_lines(segment.turns, segment.start)),
        question=question,
        operation=operation,
    )


def segment_prefix(
    segment: Segment, messages: list[dict[str, str]], namespace: str, model_id: str, prompt_hash: str
) -> SegmentPrefix | None:
    """Where the question-independent part of the assistant prompt ends (system prompt, session
    date and turns), and its state key; None if the task template puts the question first."""
    probe = _task(segment, "\x00", "\x00")
    line = probe.rfind("\n", 0, probe.index("\x00")) + 1
    head = probe[:line]
    if not head or not messages[-1]["content"].startswith(head):
        return None
    key = StateKey(
        namespace=namespace,
        model=model_id,
        prompt_hash=prompt_hash,
        segment_id=segment.segment_id,
        segment_hash=segment_hash(messages[0]["content"] + "\x1f" + head),
    )
    refs = [f"{t.conversation_id}/{t.turn_id}" for t in segment.turns]
    return SegmentPrefix(len(head), key, refs)


def llm_assistant(
    segment: Segment,
    question: str,
    plan: Plan,
    chat: ChatModel,
    *,
    states: SegmentStateCache | None = None,
    namespace: str | None = None,
) -> tuple[AssistantReport, LLMCall]:
    """One assistant call on a chat model. With `states` and a model that runs in-process
    (LlamaStateChat), the system prompt and segment come from a saved state after the first
    activation (emem.segment_state); any other model reads them as text.

    Args:
        segment: the segment held (visible turns only).
        question / plan: the question and its plan.
        chat: the assistant role's model.
        states: the home's saved segment states (None: text only).
        namespace: the tenant (keys the states).
    Returns:
        The report and the call.
    """
    prompt = load_prompt("assistant")
    visible_turns = {t.turn_id: t for t in segment.turns}
    # The session comes before the question: small models follow the instructions nearest the end,
    # and the (system + session) prefix can be reused for the next question: by a server's prompt
    # cache, or as a saved segment state.
    messages = [
        {"role": "system", "content": prompt.text},
        {"role": "user", "content": _task(segment, question, plan.operation.value)},
    ]
    prompt_hash = prompt.sha256 + load_prompt("assistant_task").sha256
    prefix = (
        segment_prefix(segment, messages, namespace, chat.model_id, prompt_hash)
        if states is not None and namespace is not None and isinstance(chat, LlamaStateChat)
        else None
    )
    try:
        # No schema: the prompt states the format, and the reply is parsed here so that a reply
        # cut off mid-way still yields its complete quotes (each is verified against the segment).
        if prefix is not None and states is not None and isinstance(chat, LlamaStateChat):
            result = chat.chat_segment(
                "assistant", messages, prefix, states, max_tokens=800, prompt_hash=prompt.sha256
            )
        else:
            result = chat.chat("assistant", messages, max_tokens=800, prompt_hash=prompt.sha256)
    except LLMError as exc:
        call = LLMCall(
            role="assistant",
            model=getattr(chat, "model", "?"),
            backend="openai",
            ok=False,
            error=str(exc),
            prompt_tokens=sum(count_tokens(m["content"]) for m in messages),
            prompt_hash=prompt.sha256,
        )
        return AssistantReport(segment_id=segment.segment_id, relevant=False, error=str(exc)), call
    try:
        reply = parse_assistant_reply(result.text)
    except ValueError as exc:
        bad = result.call.model_copy(update={"ok": False, "error": f"unusable reply: {exc}"})
        return AssistantReport(segment_id=segment.segment_id, relevant=False, error=str(exc)), bad
    evidence, rejected, reattributed = [], [], []
    for q in reply.evidence:
        turn = locate_quote(segment, visible_turns, q)
        if turn is None:
            rejected.append(f"{q.turn_id}: {q.quote[:80]}")
            continue
        if turn.turn_id != q.turn_id.strip():
            reattributed.append(f"{q.turn_id} -> {turn.turn_id}")
        evidence.append(evidence_item(turn, segment, 1.0, q.quote.strip()))
    report = AssistantReport(
        segment_id=segment.segment_id,
        relevant=bool(evidence),
        evidence=evidence,
        note=reply.note or ("nothing relevant" if not evidence else ""),
        rejected_quotes=rejected,
        reattributed_quotes=reattributed,
    )
    return report, result.call
