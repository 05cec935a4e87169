"""ChatModel over any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

Servers differ in how they take structured output, so with a schema we negotiate: `json_schema`,
then `json_object`, then plain text plus an instruction, and remember per (base_url, model) what
worked. Retries are ours (the SDK's are off) so they are bounded, visible and recorded.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Literal

import openai

from emem.errors import LLMError
from emem.llm.base import ChatResult
from emem.llm.jsonparse import read_reply, with_schema_instruction
from emem.llm.usage import LLMCall, UsageRecorder
from emem.tokens import count_tokens

Mode = Literal["json_schema", "json_object", "plain"]
MODES: tuple[Mode, ...] = ("json_schema", "json_object", "plain")
_RETRIABLE_STATUS = {408, 409, 429}
_MAX_SLEEP = 10.0

_mode_cache: dict[tuple[str, str], Mode] = {}
_mode_lock = threading.Lock()


def known_mode(base_url: str, model: str) -> Mode | None:
    """The structured-output mode this process found working for (base_url, model), if any."""
    with _mode_lock:
        return _mode_cache.get((base_url.rstrip("/"), model))


def reset_mode_cache() -> None:
    """Forget negotiated modes (tests; a server that was upgraded in place)."""
    with _mode_lock:
        _mode_cache.clear()


def _remember_mode(base_url: str, model: str, mode: Mode) -> None:
    with _mode_lock:
        _mode_cache[(base_url.rstrip("/"), model)] = mode


class _AttemptFailed(Exception):
    """One attempt failed; `retriable` says whether another attempt may help."""

    def __init__(
        self, cause: str, retriable: bool = True, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(cause)
        self.cause = cause
        self.retriable = retriable
        self.status = status
        self.retry_after = retry_after


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else inner
        if msg:
            return _one_line(str(msg))
    return _one_line(exc.message)


def _root_cause(exc: BaseException) -> BaseException:
    seen = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return seen


def _retry_after(exc: openai.APIStatusError) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return min(float(value), _MAX_SLEEP) if value else None
    except (AttributeError, ValueError):
        return None


def _read(text: str, schema: dict[str, Any] | None) -> Any:
    try:
        return read_reply(text, schema)
    except ValueError as exc:
        raise _AttemptFailed(str(exc)) from None


def _prompt_tokens(messages: list[dict[str, str]]) -> int:
    return count_tokens("\n".join(str(m.get("content", "")) for m in messages))


def prompt_tokens_billed(reported: int | None, counted: int) -> int:
    """The prompt's size in tokens. Servers that reuse a cached prefix (llama.cpp) report only the
    tokens they evaluated, which would hide most of a repeated prompt's cost; when the reported
    number is under half of our own count of what was sent, our count (tiktoken) is used."""
    if reported is None or reported < counted // 2:
        return counted
    return reported


class OpenAIChatModel:
    """A ChatModel talking HTTP to one OpenAI-compatible endpoint and model."""

    backend = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_concurrency: int = 4,
        recorder: UsageRecorder | None = None,
        structured_output: Mode | Literal["auto"] = "auto",
    ) -> None:
        """`structured_output` forces one way of asking for JSON instead of negotiating: useful
        where a server accepts a mode but is slow at it (llama.cpp's grammar-constrained
        `json_object` costs several times more per token than plain text + tolerant parsing)."""
        if max_retries < 0 or max_concurrency < 1 or timeout <= 0:
            raise ValueError("need max_retries >= 0, max_concurrency >= 1 and timeout > 0")
        if structured_output != "auto" and structured_output not in MODES:
            raise ValueError(f"structured_output must be auto or one of {MODES}")
        self.structured_output = structured_output
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.recorder = recorder
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIChatModel(base_url={self.base_url!r}, model={self.model!r})"

    def chat(
        self,
        role: str,
        messages: list[dict[str, str]],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        prompt_hash: str | None = None,
    ) -> ChatResult:
        """See `ChatModel.chat`. Tokens recorded are summed over every attempt the server
        answered (its `usage`, else counted locally); a call never answered records the prompt's
        counted tokens, so failed calls still show what they tried to send."""
        start = time.perf_counter()
        tokens = [0, 0]
        answered = False
        cut_off = [False]

        def record(ok: bool, error: str | None = None) -> LLMCall:
            prompt, completion = tokens if answered else (_prompt_tokens(messages), 0)
            call = LLMCall(
                role=role,
                model=self.model,
                backend="openai",
                prompt_tokens=prompt,
                completion_tokens=completion,
                latency_ms=(time.perf_counter() - start) * 1000,
                ok=ok,
                error=error,
                prompt_hash=prompt_hash,
                truncated=cut_off[0],
            )
            return self.recorder.record(call) if self.recorder else call

        known = known_mode(self.base_url, self.model) if schema is not None else None
        if self.structured_output != "auto":
            known = self.structured_output
        modes = list(MODES[MODES.index(known) :] if known else MODES) if schema is not None else [None]
        failures = attempts = attempts_in_mode = 0
        while True:
            mode = modes[0]
            attempts += 1
            attempts_in_mode += 1
            try:
                text, usage, cut_off[0] = self._request(messages, mode, schema, max_tokens, temperature)
                answered = True
                sent = self._messages_for(messages, mode, schema)
                tokens[0] += prompt_tokens_billed(usage[0] if usage else None, _prompt_tokens(sent))
                tokens[1] += usage[1] if usage else count_tokens(text)
                data = _read(text, schema)
            except _AttemptFailed as exc:
                negotiating = mode not in (None, "plain") and known is None and attempts_in_mode == 1
                if negotiating and exc.status is not None and exc.status != 429:
                    modes.pop(0)  # the server rejected this response_format: try the next one
                    attempts_in_mode = 0
                    continue
                failures += 1
                if not exc.retriable or failures > self.max_retries:
                    message = (
                        f"LLM endpoint {self.base_url} {exc.cause} "
                        f"[model {self.model}, {attempts} attempt(s)]"
                    )
                    record(False, message)
                    raise LLMError(message) from None
                delay = self.backoff * 2 ** (failures - 1)
                time.sleep(min(max(delay, exc.retry_after or 0.0), _MAX_SLEEP))
                continue
            if mode is not None and known is None:
                _remember_mode(self.base_url, self.model, mode)
            return ChatResult(text=text, data=data, call=record(True))

    @staticmethod
    def _messages_for(
        messages: list[dict[str, str]], mode: Mode | None, schema: dict[str, Any] | None
    ) -> list[dict[str, str]]:
        # json_object needs the schema in the prompt (and OpenAI demands the word JSON there).
        if schema is not None and mode in ("json_object", "plain"):
            return with_schema_instruction(messages, schema)
        return messages

    def _request(
        self,
        messages: list[dict[str, str]],
        mode: Mode | None,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
    ) -> tuple[str, tuple[int, int] | None, bool]:
        """One HTTP attempt; returns (content, (prompt, completion) tokens or None, cut off at max_tokens)."""
        kwargs: dict[str, Any] = {}
        if mode == "json_schema":
            json_schema = {"name": "reply", "schema": schema}
            kwargs["response_format"] = {"type": "json_schema", "json_schema": json_schema}
        elif mode == "json_object":
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        try:
            with self._slots:
                completion = self._client.chat.completions.create(
                    model=self.model,
                    messages=self._messages_for(messages, mode, schema),  # type: ignore[arg-type]
                    max_tokens=max_tokens,
                    temperature=temperature,
                    **kwargs,
                )
        except openai.APITimeoutError:
            raise _AttemptFailed(f"timed out after {self.timeout:g}s") from None
        except openai.APIConnectionError as exc:
            root = _root_cause(exc)
            reason = (
                "connection refused" if isinstance(root, ConnectionRefusedError) else _one_line(str(root))
            )
            raise _AttemptFailed(f"unreachable: {reason}") from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            raise _AttemptFailed(
                f"returned HTTP {status}: {_status_message(exc)}",
                retriable=status >= 500 or status in _RETRIABLE_STATUS,
                status=status,
                retry_after=_retry_after(exc) if status == 429 else None,
            ) from None
        except openai.APIError as exc:  # e.g. a 200 whose body is not a completion
            raise _AttemptFailed(f"returned an unusable response: {_one_line(exc.message)}") from None
        except Exception as exc:  # anything else the SDK raises still ends as a recorded LLMError
            cause = f"failed unexpectedly: {type(exc).__name__}: {_one_line(str(exc))}"
            raise _AttemptFailed(cause, retriable=False) from None
        choices = getattr(completion, "choices", None) or []
        text = (choices[0].message.content or "") if choices else ""
        usage = getattr(completion, "usage", None)
        counts = (usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else None
        cut_off = bool(choices) and getattr(choices[0], "finish_reason", None) == "length"
        return text, counts, cut_off
