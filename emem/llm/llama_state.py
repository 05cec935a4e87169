"""A local GGUF model run in-process with llama-cpp-python, able to save and restore the model
state of a prompt prefix: the backend of assistants' segment states (`emem.segment_state`).

Why in-process: llama-cpp-python's server has no slot save/restore, and its disk prompt cache
pickles whole `LlamaState`s, which carry an n_batch x vocabulary float array (311 MB for Qwen's
152k vocabulary at n_batch 512) besides the KV cache, under keys emem cannot map to segments (so
it could not invalidate or erase them). Here the state saved is the KV cache of sequence 0 only
(`llama_state_seq_get_data`), plus the prefix's token ids, so a restore is checked against the
tokens it claims to hold. Only local GGUF files are run this way; remote endpoints stay text-only.

The prompt is the model's own chat template (from the GGUF, as llama_cpp.server applies it),
split where the question starts: the prefix is tokenised alone, the rest after it. Cold and warm
calls feed the model the same token ids; only where their KV comes from differs.
"""

from __future__ import annotations

import ctypes
import json
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from emem.errors import LLMError
from emem.llm.base import ChatResult
from emem.llm.jsonparse import extract_json
from emem.llm.usage import LLMCall, UsageRecorder
from emem.segment_state import SegmentStateCache, StateKey

MAGIC = b"EMEM-KV1\n"


def encode_state(tokens: list[int], kv: bytes) -> bytes:
    """One state file: magic, a JSON header line, the prefix's token ids (int32), the KV bytes."""
    import numpy as np

    header = json.dumps({"n_tokens": len(tokens), "kv_bytes": len(kv)}).encode() + b"\n"
    return MAGIC + header + np.asarray(tokens, dtype=np.int32).tobytes() + kv


def decode_state(data: bytes) -> tuple[list[int], bytes]:
    """Tokens and KV bytes of a state file; ValueError when it is not one."""
    import numpy as np

    if not data.startswith(MAGIC):
        raise ValueError("not an emem segment state")
    end = data.index(b"\n", len(MAGIC))
    header = json.loads(data[len(MAGIC) : end])
    start = end + 1
    n = int(header["n_tokens"])
    tokens = np.frombuffer(data[start : start + 4 * n], dtype=np.int32).tolist()
    kv = data[start + 4 * n :]
    if len(kv) != int(header["kv_bytes"]):
        raise ValueError("truncated segment state")
    return tokens, kv


class SegmentPrefix:
    """Where the reusable prefix of a prompt ends and what a state of it is filed under."""

    def __init__(self, chars: int, key: StateKey, turn_refs: Iterable[str]) -> None:
        """Args:
        chars: length of the last message's leading part that belongs to the prefix.
        key: the state's key (namespace, model, prompt hash, segment id and content hash).
        turn_refs: the turns the prefix holds ("conversation_id/turn_id").
        """
        self.chars = chars
        self.key = key
        self.turn_refs = list(turn_refs)


class LlamaStateChat:
    """A ChatModel over a local GGUF file, run in this process; `chat_segment` restores a saved
    prefix state instead of evaluating the prefix again. One call at a time (llama.cpp contexts
    are not thread-safe)."""

    backend = "llama_cpp"

    def __init__(
        self,
        path: Path,
        model: str,
        *,
        n_ctx: int = 4096,
        n_threads: int = 2,
        n_batch: int = 512,
        recorder: UsageRecorder | None = None,
    ) -> None:
        """Args:
        path: the GGUF file.
        model: its name (the alias the server used, e.g. "qwen2.5-0.5b").
        n_ctx / n_threads / n_batch: llama.cpp context settings (as `emem llm serve` uses).
        recorder: where calls are recorded, besides each result's `call`.
        """
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.path = path
        self.model = model
        self.model_id = f"{model}@{path.stat().st_size}"
        """Keys states: another file (or quantisation) under the same name is another model."""
        self.recorder = recorder
        self._lock = threading.Lock()
        self._llm = Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
            n_batch=n_batch, logits_all=False, verbose=False,
        )  # fmt: skip
        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise LLMError(f"{path.name} has no chat template; it cannot serve a chat role in-process")
        eos = self._llm.detokenize([self._llm.token_eos()], special=True).decode(errors="replace")
        bos_id = self._llm.token_bos()
        bos = self._llm.detokenize([bos_id], special=True).decode(errors="replace") if bos_id >= 0 else ""
        self._format = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)

    # -- prompt -----------------------------------------------------------------------------------

    def _split_tokens(
        self, messages: list[dict[str, str]], prefix_chars: int
    ) -> tuple[list[int], list[int], list[str]]:
        """The prompt's token ids: the prefix (up to `prefix_chars` into the last message) and
        the rest, each tokenised alone; and the template's stop strings."""
        formatted = self._format(messages=cast(Any, messages))
        prompt = formatted.prompt
        last = messages[-1]["content"]
        at = prompt.rfind(last)
        if at < 0 or not 0 <= prefix_chars <= len(last):
            raise LLMError("the chat template changed the prompt's last message; cannot split its prefix")
        split = at + prefix_chars
        add_bos = not formatted.added_special
        head = self._llm.tokenize(prompt[:split].encode(), add_bos=add_bos, special=True)
        tail = self._llm.tokenize(prompt[split:].encode(), add_bos=False, special=True)
        stop = (
            formatted.stop if isinstance(formatted.stop, list) else [formatted.stop] if formatted.stop else []
        )
        return head, tail, stop

    # -- state ------------------------------------------------------------------------------------

    def _save_prefix(self, tokens: list[int]) -> bytes:
        """Evaluate `tokens` from an empty context and return their state (KV of sequence 0)."""
        import llama_cpp

        self._llm.reset()
        self._llm.eval(tokens)
        ctx = self._llm.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buf = (ctypes.c_uint8 * size)()
        n = llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)
        if n == 0:
            raise LLMError("llama.cpp could not copy the prefix state")
        return encode_state(tokens, bytes(buf)[:n])

    def _restore_prefix(self, data: bytes, tokens: list[int]) -> bool:
        """Load a saved state if it holds exactly `tokens`; False (nothing changed) otherwise."""
        import llama_cpp

        try:
            saved, kv = decode_state(data)
        except ValueError:
            return False
        if saved != tokens:
            return False
        self._llm.reset()
        buf = (ctypes.c_uint8 * len(kv)).from_buffer_copy(kv)
        if llama_cpp.llama_state_seq_set_data(self._llm.ctx, buf, len(kv), 0) == 0:
            return False
        # What Llama.load_state sets: the tokens the context now holds.
        self._llm.input_ids[: len(tokens)] = tokens
        self._llm.n_tokens = len(tokens)
        return True

    # -- calls ------------------------------------------------------------------------------------

    def _complete(
        self, tokens: list[int], stop: list[str], max_tokens: int, temperature: float
    ) -> dict[str, Any]:
        try:
            out = self._llm.create_completion(
                prompt=tokens, max_tokens=max_tokens, temperature=temperature, stop=stop or None
            )
        except (RuntimeError, ValueError) as exc:
            raise LLMError(f"{self.model} (in-process) failed: {exc}") from None
        return cast(dict[str, Any], out)

    def _result(
        self, role: str, out: dict[str, Any], n_prompt: int, started: float, prompt_hash: str | None,
        schema: dict[str, Any] | None = None, **restored: Any,
    ) -> ChatResult:  # fmt: skip
        choice = out["choices"][0]
        text = choice.get("text") or ""
        call = LLMCall(
            role=role, model=self.model, backend="llama_cpp", prompt_tokens=n_prompt,
            completion_tokens=int(out.get("usage", {}).get("completion_tokens", 0)),
            latency_ms=round((time.perf_counter() - started) * 1000, 1), prompt_hash=prompt_hash,
            truncated=choice.get("finish_reason") == "length", **restored,
        )  # fmt: skip
        if self.recorder is not None:
            self.recorder.record(call)
        data = None
        if schema is not None:
            try:
                data = extract_json(text)
            except ValueError:
                data = None
        return ChatResult(text=text, data=data, call=call)

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
        """The whole prompt evaluated as text (no saved state). A `schema` is only parsed
        tolerantly from the reply: the prompt must state the format.

        Args:
            role / messages / schema / max_tokens / temperature / prompt_hash: as ChatModel.chat.
        Returns:
            The reply and its call.
        """
        started = time.perf_counter()
        with self._lock:
            head, tail, stop = self._split_tokens(messages, len(messages[-1]["content"]))
            self._llm.reset()
            out = self._complete(head + tail, stop, max_tokens, temperature)
        return self._result(role, out, len(head) + len(tail), started, prompt_hash, schema)

    def chat_segment(
        self,
        role: str,
        messages: list[dict[str, str]],
        prefix: SegmentPrefix,
        states: SegmentStateCache,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        prompt_hash: str | None = None,
    ) -> ChatResult:
        """Like `chat`, but the prompt's prefix (system prompt + segment) comes from its saved
        state when there is one; otherwise it is evaluated and its state saved for next time.

        Args:
            role / messages / max_tokens / temperature / prompt_hash: as `chat`.
            prefix: where the prefix ends, its key and the turns it holds.
            states: the home's saved states.
        Returns:
            The reply; its call counts the restored tokens, bytes and load time apart.
        """
        started = time.perf_counter()
        with self._lock:
            head, tail, stop = self._split_tokens(messages, prefix.chars)
            t0 = time.perf_counter()
            data = states.get(prefix.key)
            restored = data is not None and self._restore_prefix(data, head)
            restore_ms = (time.perf_counter() - t0) * 1000
            if not restored:
                data = self._save_prefix(head)
                states.put(prefix.key, data, len(head), prefix.turn_refs)
            out = self._complete(head + tail, stop, max_tokens, temperature)
        extra = (
            {
                "restored_tokens": len(head),
                "restored_bytes": len(data or b""),
                "restore_ms": round(restore_ms, 1),
            }
            if restored
            else {"state_built": True}
        )
        return self._result(role, out, len(head) + len(tail), started, prompt_hash, **extra)
