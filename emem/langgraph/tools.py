"""LangChain tools over one emem namespace: remember, search, ask, facts, history, forget.

Each tool returns JSON (memory content is data for the model to read, never instructions) and
turns emem's input errors into a tool error the model sees and can correct. Descriptions say
when to call the tool and what comes back, since that is all a model has to act on.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from emem.errors import EmemError

Mode = Literal["fast", "deep", "auto"]
TOOL_NAMES = ("remember", "search_memory", "ask_memory", "memory_facts", "fact_history", "forget_memory")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def hit_json(hit: Any) -> dict[str, Any]:
    """A search hit as a tool shows it: provenance first, then what was said."""
    out = {
        "conversation_id": hit.conversation_id,
        "session_id": hit.session_id,
        "turn_id": hit.turn_id,
        "time": hit.time.isoformat(),
        "speaker": hit.speaker,
        "text": hit.text,
    }
    if getattr(hit, "image_caption", None):
        out["image_caption"] = hit.image_caption
    if getattr(hit, "metadata", None):
        out["metadata"] = hit.metadata
    return out


def answer_json(answer: Any, max_evidence: int = 8) -> dict[str, Any]:
    return {
        "answer": answer.answer,
        "status": answer.status,
        "mode_used": answer.mode_used,
        "evidence": [
            {
                "conversation_id": e.conversation_id,
                "turn_id": e.turn_id,
                "time": e.time.isoformat(),
                "speaker": e.speaker,
                "text": e.text,
            }
            for e in answer.evidence[:max_evidence]
        ],
        "facts": [
            {"subject": f.subject, "predicate": f.predicate, "status": f.status, "values": f.values}
            for f in answer.facts
        ],
        **({"error": answer.error} if answer.error else {}),
    }


class RememberArgs(BaseModel):
    text: str = Field(
        description="What to remember, as a complete sentence (e.g. 'Priya is allergic to peanuts')."
    )
    speaker: str | None = Field(
        default=None,
        description="Who said or stated it; leave empty when you (the assistant) note it yourself.",
    )


class SearchArgs(BaseModel):
    query: str = Field(description="Words or a question describing what to look for.")
    k: int = Field(default=5, ge=1, le=50, description="How many turns to return.")
    conversation_id: str | None = Field(default=None, description="Only this conversation.")
    speaker: str | None = Field(default=None, description="Only turns said by this speaker.")
    since: str | None = Field(default=None, description="Only turns at or after this ISO-8601 time.")
    until: str | None = Field(default=None, description="Only turns at or before this ISO-8601 time.")


class AskArgs(BaseModel):
    question: str = Field(description="The question to answer from memory, in natural language.")
    mode: Mode = Field(
        default="auto",
        description="'fast' for a single lookup, 'deep' for questions spanning many conversations "
        "(lists, counts, changes over time), 'auto' to let memory decide.",
    )
    as_of: str | None = Field(
        default=None, description="ISO-8601 time: answer as things stood then (later turns are ignored)."
    )


class FactsArgs(BaseModel):
    subject: str | None = Field(default=None, description="Whose facts, e.g. 'Priya'; empty for everyone.")
    predicate: str | None = Field(
        default=None, description="Which kind of fact, e.g. 'lives_in'; empty for all."
    )
    as_of: str | None = Field(default=None, description="ISO-8601 time: the facts as they stood then.")


class HistoryArgs(BaseModel):
    subject: str = Field(description="Whose history, e.g. 'Priya'.")
    predicate: str | None = Field(
        default=None, description="Which kind of fact, e.g. 'lives_in'; empty for all."
    )


class ForgetArgs(BaseModel):
    turn_ids: list[str] | None = Field(
        default=None, description="Ids of the turns to erase (from search results)."
    )
    conversation_id: str | None = Field(
        default=None, description="The conversation of those turns; alone, erases the whole conversation."
    )
    subject: str | None = Field(
        default=None, description="Erase every fact about this subject and the turns behind them."
    )
    reason: str | None = Field(
        default=None, description="Why, in the user's words (kept in the erasure record)."
    )


def memory_tools(
    memory: Any,
    namespace: str,
    *,
    conversation_id: str = "notes",
    agent_name: str | None = None,
    allow_forget: bool = True,
) -> list[BaseTool]:
    """LangChain tools over one namespace of `memory`, for an agent's model to call.

    Args:
        memory: the `emem.Memory`.
        namespace: the tenant every tool reads and writes.
        conversation_id: where `remember` writes its notes.
        agent_name: the speaker of notes the agent writes itself (default "assistant").
        allow_forget: include `forget_memory` (irreversible erasure).

    Returns:
        The tools, in the order of TOOL_NAMES (without forget_memory when not allowed).
    """

    def guarded(fn: Callable[..., str]) -> Callable[..., str]:
        def run(**kwargs: Any) -> str:
            try:
                return fn(**kwargs)
            except EmemError as exc:
                raise ToolException(str(exc)) from None

        return run

    def remember(text: str, speaker: str | None = None) -> str:
        message = {"role": "assistant" if speaker is None else "user", "content": text}
        if speaker is not None:
            message["name"] = speaker
        report = memory.add_messages(
            [message],
            namespace=namespace,
            conversation_id=conversation_id,
            agent_name=agent_name,
            metadata={"kind": "note"},
        )
        return _json({"stored": report.added, "conversation_id": conversation_id})

    def search(
        query: str,
        k: int = 5,
        conversation_id: str | None = None,
        speaker: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> str:
        flt = {"conversation_id": conversation_id, "speaker": speaker, "since": since, "until": until}
        hits = memory.search(
            query, k, namespace=namespace, filter={k_: v for k_, v in flt.items() if v is not None}
        )
        return _json([hit_json(h) for h in hits])

    def ask(question: str, mode: Mode = "auto", as_of: str | None = None) -> str:
        return _json(answer_json(memory.ask(question, namespace=namespace, mode=mode, as_of=as_of)))

    def facts(subject: str | None = None, predicate: str | None = None, as_of: str | None = None) -> str:
        found = memory.facts(
            namespace=namespace, subject=subject, predicate=predicate, valid_at=as_of, known_at=as_of
        )
        return _json(
            [
                {
                    "subject": r.subject,
                    "predicate": r.predicate,
                    "status": r.status,
                    "values": r.values,
                    "sources": sorted({s for rev in r.revisions for s in rev.sources}),
                }
                for r in found
            ]
        )

    def history(subject: str, predicate: str | None = None) -> str:
        return _json(
            memory.history(subject, namespace=namespace, predicate=predicate).model_dump(mode="json")
        )

    def forget(
        turn_ids: list[str] | None = None,
        conversation_id: str | None = None,
        subject: str | None = None,
        reason: str | None = None,
    ) -> str:
        report = memory.forget(
            turn_ids, namespace=namespace, subject=subject, conversation_id=conversation_id, reason=reason
        )
        return _json(report.model_dump(mode="json"))

    specs: list[tuple[str, Callable[..., str], type[BaseModel], str]] = [
        ("remember", remember, RememberArgs,
         "Store something in long-term memory so it can be recalled in later conversations: a preference, a "
         "fact about the user or their world, a commitment. Write one complete sentence naming who it is "
         "about. Returns how many entries were stored."),
        ("search_memory", search, SearchArgs,
         "Find what was said in past conversations. Returns up to k turns, best match first, each with its "
         "conversation, turn id, time and speaker (the turn ids are what forget_memory takes). Use it to "
         "check details verbatim; use ask_memory for a direct answer."),
        ("ask_memory", ask, AskArgs,
         "Answer a question from long-term memory, with the turns and facts it rests on. Returns the answer, "
         "a status ('answered', 'abstained' when memory does not say, 'conflict' when it holds contradicting "
         "values) and the evidence. Do not guess beyond the evidence."),
        ("memory_facts", facts, FactsArgs,
         "List the facts memory currently holds (e.g. where someone lives, who they work for), each with "
         "status 'state', 'miss' or 'conflict' and the turns it came from. Facts are derived after "
         "consolidation; recent turns may not be facts yet."),
        ("fact_history", history, HistoryArgs,
         "Show how a subject's facts changed over time: each value, when it held, when it was learnt and "
         "what superseded it. Use it for 'used to', 'before', 'when did ... change' questions."),
        ("forget_memory", forget, ForgetArgs,
         "Permanently erase turns (by turn_ids and conversation_id), a whole conversation, or everything "
         "about a subject, from every store; only a tombstone remains. Irreversible: call it only when the "
         "user explicitly asks to delete something, and name exactly what. Returns what was erased."),
    ]  # fmt: skip
    tools: list[BaseTool] = []
    for name, fn, schema, description in specs:
        if name == "forget_memory" and not allow_forget:
            continue
        run = guarded(fn)

        async def arun(_run: Callable[..., str] = run, **kwargs: Any) -> str:
            return await asyncio.to_thread(lambda: _run(**kwargs))

        tools.append(
            StructuredTool.from_function(
                func=run,
                coroutine=arun,
                name=name,
                description=description,
                args_schema=schema,
                handle_tool_error=True,
            )
        )
    return tools
