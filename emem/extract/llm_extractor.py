"""Fact extraction by a chat model, under the same contract as the offline rules.

The model's reply is evidence to check, not truth: each fact must name a turn of its batch, a
known predicate and a readable date, or it is dropped (and counted) while the rest are kept. A
failed call loses only its own batch; `failures` says how many batches were lost so a caller can
tell a quiet conversation from a broken backend.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from emem.errors import InputError, LLMError
from emem.extract.dates import resolve_relative_date
from emem.extract.entities import AliasResolver
from emem.extract.schema import FactCandidate
from emem.ledger.predicates import PREDICATES, builtin_cardinality, predicate_name
from emem.llm.base import ChatModel, ChatResult
from emem.llm.jsonparse import extract_json
from emem.llm.usage import LLMCall
from emem.models import Turn
from emem.prompting import data_text, fill, memory_block
from emem.prompting import load_prompt as load_template
from emem.subjects import speaker_roles
from emem.timeparse import parse_iso_time
from emem.tokens import count_tokens

PROMPT_FILE = "extract_facts.md"
_SYSTEM_MARK, _USER_MARK = "<!-- system -->", "<!-- user -->"


@dataclass(frozen=True)
class PromptTemplate:
    system: str
    user: str
    sha256: str


def load_prompt(name: str = PROMPT_FILE) -> PromptTemplate:
    """Read the template shipped in `emem.prompts` (through emem.prompting's one loader) and split
    it into its system and user parts; its hash is recorded with every call."""
    prompt = load_template(name.removesuffix(".md"))
    if _USER_MARK not in prompt.text:
        raise InputError(f"prompt {name} lacks the {_USER_MARK} marker")
    system, user = prompt.text.split(_USER_MARK, 1)
    return PromptTemplate(system.replace(_SYSTEM_MARK, "").strip(), user.strip(), prompt.sha256)


def fact_schema(predicates: Sequence[str], *, open_predicates: bool = True) -> dict[str, Any]:
    """JSON schema of the reply: {"facts": [...]}. With `open_predicates`, a predicate outside the
    list is a snake_case name proposed with its `cardinality`."""
    predicate: dict[str, Any] = (
        {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
        if open_predicates
        else {"type": "string", "enum": list(predicates)}
    )
    fact = {
        "type": "object",
        "properties": {
            "subject": {"type": "string"},
            "predicate": predicate,
            "cardinality": {"type": ["string", "null"], "enum": ["single", "multi", None]},
            "object": {"type": "string"},
            "turn_id": {"type": "string"},
            "quote": {"type": "string"},
            "valid_from": {"type": ["string", "null"]},
            "valid_to": {"type": ["string", "null"]},
            "kind": {"type": "string", "enum": ["assert", "retract", "end"]},
            "confidence": {"type": "number"},
        },
        "required": ["subject", "predicate", "object", "turn_id", "quote", "kind"],
    }
    return {
        "type": "object",
        "properties": {"facts": {"type": "array", "items": fact}},
        "required": ["facts"],
    }


def render_turn(turn: Turn) -> str:
    """One turn as one line of data (emem.prompting.data_text: no line break, no angle bracket),
    so no field can close the block or start a line of its own."""
    return data_text(f"[{turn.turn_id} | {turn.time.isoformat()}] {turn.speaker}: {turn.render()}")


def batches(turns: Sequence[Turn], max_tokens: int) -> Iterator[list[Turn]]:
    """Consecutive turns of one session, up to about `max_tokens` of rendered text per batch."""
    batch: list[Turn] = []
    size = 0
    for turn in turns:
        cost = count_tokens(render_turn(turn))
        if batch and (turn.session_id != batch[-1].session_id or size + cost > max_tokens):
            yield batch
            batch, size = [], 0
        batch.append(turn)
        size += cost
    if batch:
        yield batch


_FIRST_PERSON = frozenset({"i", "me", "myself", "we", "us", "speaker", "the speaker", "user"})


class LLMExtractor:
    """Extract facts with `chat` (role "extractor"), one call per batch of turns."""

    def __init__(
        self,
        chat: ChatModel,
        name: str | None = None,
        *,
        max_batch_tokens: int = 1500,
        max_reply_tokens: int = 2048,
        predicates: Sequence[str] | None = None,
        open_predicates: bool = True,
    ) -> None:
        self.chat = chat
        self.prompt = load_prompt()
        self.prompt_hash = self.prompt.sha256
        self.name = name or f"llm:{chat.model}/{self.prompt_hash[:8]}"
        self.max_batch_tokens = max_batch_tokens
        self.max_reply_tokens = max_reply_tokens
        self.predicates = tuple(predicates or PREDICATES)
        self.open_predicates = open_predicates
        """Accept snake_case predicates outside the list when the reply gives their cardinality."""
        self.schema = fact_schema(self.predicates, open_predicates=open_predicates)
        self._roles: Mapping[str, str] = {}
        """Speaker roles of the turns being read (facts from the agent's turns are dropped)."""
        self.failures = 0
        """Batches whose call failed (cumulative over calls)."""
        self.errors: list[str] = []
        self.dropped = 0
        """Facts in replies that were unusable (missing field, unknown predicate, bad date...)."""
        self.calls: list[LLMCall] = []
        """Every call made, with its tokens; failed ones too (ok=False)."""

    def messages(self, batch: Sequence[Turn]) -> list[dict[str, str]]:
        speakers = "speakers: " + ", ".join(dict.fromkeys(t.speaker for t in batch))
        system = fill(self.prompt.system, {"predicates": ", ".join(self.predicates)})
        user = fill(self.prompt.user, {"memory": memory_block([speakers, *(render_turn(t) for t in batch)])})
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def __call__(self, turns: Sequence[Turn]) -> list[FactCandidate]:
        resolver = AliasResolver.from_turns(turns)
        self._roles = speaker_roles([t.speaker for t in turns])
        out: list[FactCandidate] = []
        for batch in batches(turns, self.max_batch_tokens):
            try:
                result = self.chat.chat(
                    role="extractor",
                    messages=self.messages(batch),
                    schema=self.schema,
                    max_tokens=self.max_reply_tokens,
                    temperature=0.0,
                    prompt_hash=self.prompt_hash,
                )
            except LLMError as exc:
                self.failures += 1
                self.errors.append(f"turns {batch[0].turn_id}..{batch[-1].turn_id}: {exc}")
                self.calls.append(
                    LLMCall(
                        role="extractor",
                        model=getattr(self.chat, "model", "?"),
                        backend="openai",
                        ok=False,
                        error=str(exc),
                        prompt_hash=self.prompt_hash,
                    )
                )
                continue
            self.calls.append(result.call)
            out.extend(self.parse(result, batch, resolver))
        return out

    # --- reading the reply -----------------------------------------------------------------------

    def parse(
        self, result: ChatResult, batch: Sequence[Turn], resolver: AliasResolver
    ) -> list[FactCandidate]:
        items = _fact_items(result)
        if items is None:
            self.failures += 1
            self.errors.append(f"turns {batch[0].turn_id}..{batch[-1].turn_id}: reply has no facts list")
            return []
        by_id = {t.turn_id: t for t in batch}
        out = []
        for item in items:
            fact = self._fact(item, by_id, resolver)
            if fact is None:
                self.dropped += 1
            else:
                out.append(fact)
        return out

    def _fact(self, item: Any, by_id: dict[str, Turn], resolver: AliasResolver) -> FactCandidate | None:
        if not isinstance(item, dict):
            return None
        turn = by_id.get(str(item.get("turn_id") or _first(item.get("source_turn_ids")) or ""))
        predicate, cardinality = self._predicate(item)
        subject, obj = item.get("subject"), item.get("object")
        kind = str(item.get("kind") or "assert").strip().lower()
        if turn is None or predicate is None or kind not in ("assert", "retract", "end"):
            return None
        if self._roles.get(turn.speaker) == "agent":
            return None  # the agent's own words are not facts about the user
        if not isinstance(subject, str) or not subject.strip() or not isinstance(obj, str | int | float):
            return None
        obj = str(obj).strip()
        if not obj and kind == "assert":
            return None
        valid_from = _when(item.get("valid_from"), turn.time)
        valid_to = _when(item.get("valid_to"), turn.time)
        if valid_from is False or valid_to is False:
            return None
        subject = turn.speaker if subject.strip().lower() in _FIRST_PERSON else subject
        try:
            confidence = min(1.0, max(0.0, float(item.get("confidence", 0.8))))
        except (TypeError, ValueError):
            confidence = 0.8
        return FactCandidate(
            subject=resolver.canonical(subject),
            predicate=predicate,
            object=obj,
            surface=_surface(item.get("quote") or item.get("surface"), turn.text),
            valid_from=valid_from or None,
            valid_to=valid_to or None,
            source_turn_ids=[turn.turn_id],
            confidence=confidence,
            kind=kind,  # type: ignore[arg-type]
            cardinality=cardinality,  # type: ignore[arg-type]
        )

    def _predicate(self, item: dict[str, Any]) -> tuple[str | None, str | None]:
        """(predicate, cardinality to declare): a listed or built-in predicate, or an open one the
        reply gives a cardinality for; (None, None) when unusable."""
        try:
            name = predicate_name(str(item.get("predicate") or ""))
        except InputError:
            return None, None
        if name in self.predicates or builtin_cardinality(name) is not None:
            return name, None
        card = str(item.get("cardinality") or "").strip().lower()
        if self.open_predicates and card in ("single", "multi"):
            return name, card
        return None, None


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else None


def _fact_items(result: ChatResult) -> list[Any] | None:
    data = result.data
    if data is None:
        try:
            data = extract_json(result.text)
        except ValueError:
            return None
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        facts = data.get("facts")
        if isinstance(facts, list):
            return facts
        lists = [v for v in data.values() if isinstance(v, list)]
        return lists[0] if len(lists) == 1 else None
    return None


def _when(value: Any, anchor: datetime) -> datetime | None | bool:
    """valid_from as given: ISO, or a phrase such as "last Friday" resolved against the turn;
    None when absent; False when present but unreadable (the fact is then dropped)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "null", "none", "unknown")):
        return None
    if not isinstance(value, str):
        return False
    try:
        return parse_iso_time(value.strip())
    except InputError:
        pass
    mention = resolve_relative_date(value, anchor)
    if mention is None or mention.surface.strip().lower() != value.strip().lower().rstrip("."):
        return False
    return mention.start


def _surface(quote: Any, text: str) -> str:
    """The quoted span as it stands in the turn; the whole turn when the quote is not verbatim."""
    if isinstance(quote, str) and quote.strip():
        raw = quote.strip()
        for q in (raw, raw.replace("\u2039", "<").replace("\u203a", ">")):  # undo data_text's brackets
            if q in text:
                return q
            i = text.lower().find(q.lower())
            if i >= 0:
                return text[i : i + len(q)]
    return text
