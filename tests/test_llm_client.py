"""The LLM client layer against a scripted in-process server: negotiation, retries, recording,
concurrency; the LangChain adapter; per-role settings. Offline and fast (timeouts of 0.3 s)."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import openai
import pytest
from fake_openai_server import (
    FAKE_USAGE,
    FakeOpenAIServer,
    Reply,
    empty,
    fake_embedding,
    http_error,
    ok,
    ok_no_usage,
    prose_around,
    reject_json_schema,
    reject_response_format,
    response_format_type,
    slow,
    truncated_json,
    wrong_schema,
)
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

from emem.errors import ConfigError, LLMError
from emem.llm import (
    ROLES,
    ChatModel,
    LangChainChatModel,
    LLMSettings,
    OpenAIChatModel,
    UsageRecorder,
    build_chat_model,
    load_llm_settings,
)
from emem.llm.openai_client import known_mode, reset_mode_cache
from emem.tokens import count_tokens

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
ANSWER = json.dumps({"answer": "Paris"})
MESSAGES = [{"role": "system", "content": "You answer questions."}, {"role": "user", "content": "Capital?"}]


@pytest.fixture(autouse=True)
def _fresh_mode_cache() -> None:
    reset_mode_cache()


def client(server: FakeOpenAIServer, recorder: UsageRecorder | None = None, **kw: object) -> OpenAIChatModel:
    # A generous timeout: on a loaded machine the fake server can take longer than a short one to
    # answer, and a timed-out attempt is retried, which would change the request counts asserted.
    # The timeout tests pass their own short one.
    options: dict = {"timeout": 5.0, "max_retries": 2, "backoff": 0.01, "recorder": recorder} | kw
    return OpenAIChatModel(server.base_url, "fake-model", **options)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- ok path and recording -------------------------------------------------------------------


def test_ok_reply_with_schema_uses_json_schema_and_records_usage() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer(ok(ANSWER)) as server:
        llm = client(server, recorder)
        assert isinstance(llm, ChatModel)
        result = llm.chat("reader", MESSAGES, schema=SCHEMA, max_tokens=64, prompt_hash="h1")
    assert result.data == {"answer": "Paris"} and result.text == ANSWER
    body = server.chat_requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["model"] == "fake-model" and body["max_tokens"] == 64 and body["temperature"] == 0.0
    assert body["messages"] == MESSAGES  # json_schema mode leaves the prompt alone
    [call] = recorder.calls
    assert call == result.call
    assert (call.role, call.model, call.backend, call.ok, call.error) == (
        "reader",
        "fake-model",
        "openai",
        True,
        None,
    )
    assert (call.prompt_tokens, call.completion_tokens) == (
        FAKE_USAGE["prompt_tokens"],
        FAKE_USAGE["completion_tokens"],
    )
    assert call.prompt_hash == "h1" and call.latency_ms > 0
    assert known_mode(server.base_url, "fake-model") == "json_schema"


def test_plain_chat_without_schema_sends_no_response_format() -> None:
    with FakeOpenAIServer(ok("Hello there.")) as server:
        result = client(server).chat("assistant", MESSAGES)
    assert result.text == "Hello there." and result.data is None
    assert "response_format" not in server.chat_requests[0]


def test_a_reply_cut_off_at_max_tokens_is_flagged() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer(lambda _req: Reply(content="The answer is Par", finish_reason="length")) as server:
        result = client(server, recorder).chat("reader", MESSAGES, max_tokens=4)
    assert result.text == "The answer is Par" and result.call.truncated
    with FakeOpenAIServer(ok("Paris.")) as server:
        assert not client(server, recorder).chat("reader", MESSAGES).call.truncated
    usage = recorder.usage()
    assert (
        usage.truncated_calls == 1 and usage.by_role["reader"].truncated_calls == 1 and usage.llm_calls == 2
    )


def test_langchain_reply_cut_off_is_flagged() -> None:
    cut = AIMessage(content="The answer is Par", response_metadata={"finish_reason": "length"})
    fake = GenericFakeChatModel(messages=iter([cut, AIMessage(content="Paris.")]))
    model = LangChainChatModel(fake, model="fake")
    assert model.chat("reader", MESSAGES).call.truncated
    assert not model.chat("reader", MESSAGES).call.truncated


def test_tokens_are_counted_locally_when_usage_is_absent() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer(ok_no_usage("A short reply.")) as server:
        client(server, recorder).chat("assistant", MESSAGES)
    [call] = recorder.calls
    assert call.completion_tokens == count_tokens("A short reply.")
    assert call.prompt_tokens == count_tokens("\n".join(m["content"] for m in MESSAGES))


# --- capability negotiation ------------------------------------------------------------------


def test_fallback_json_schema_to_json_object_is_remembered() -> None:
    with FakeOpenAIServer(reject_json_schema(ANSWER)) as server:
        first = client(server).chat("extractor", MESSAGES, schema=SCHEMA)
        assert first.data == {"answer": "Paris"}
        assert [response_format_type(b) for b in server.chat_requests] == ["json_schema", "json_object"]
        fallback = server.chat_requests[1]
        assert fallback["response_format"]["schema"] == SCHEMA
        assert "JSON" in fallback["messages"][0]["content"]  # the schema is also in the prompt
        assert known_mode(server.base_url, "fake-model") == "json_object"
        # A later call (even from a new client object) skips the failing mode.
        second = client(server).chat("extractor", MESSAGES, schema=SCHEMA)
    assert second.data == {"answer": "Paris"}
    assert [response_format_type(b) for b in server.chat_requests[2:]] == ["json_object"]


def test_fallback_all_the_way_to_plain_text_with_instruction() -> None:
    with FakeOpenAIServer(reject_response_format(f"Sure! Here you go: {ANSWER} Cheers.")) as server:
        result = client(server).chat("extractor", MESSAGES, schema=SCHEMA)
    assert result.data == {"answer": "Paris"}
    kinds = [response_format_type(b) for b in server.chat_requests]
    assert kinds == ["json_schema", "json_object", None]
    plain = server.chat_requests[-1]
    assert plain["messages"][0]["role"] == "system"
    assert plain["messages"][0]["content"].startswith("You answer questions.")
    assert '"required": ["answer"]' in plain["messages"][0]["content"]
    assert known_mode(server.base_url, "fake-model") == "plain"


def test_confirmed_mode_is_not_downgraded_by_a_transient_error() -> None:
    with FakeOpenAIServer([ok(ANSWER), http_error(500), ok(ANSWER)]) as server:
        llm = client(server)
        llm.chat("reader", MESSAGES, schema=SCHEMA)
        llm.chat("reader", MESSAGES, schema=SCHEMA)
    assert [response_format_type(b) for b in server.chat_requests] == ["json_schema"] * 3


def test_prose_and_fences_around_json_are_parsed() -> None:
    with FakeOpenAIServer(prose_around({"answer": "Rome"})) as server:
        assert client(server).chat("reader", MESSAGES, schema=SCHEMA).data == {"answer": "Rome"}


# --- failures, retries, errors ---------------------------------------------------------------


def test_http_500_is_retried_then_bounded_llm_error() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer(http_error(500, "model crashed\nbadly")) as server:
        with pytest.raises(LLMError) as info:
            client(server, recorder, max_retries=2).chat("assistant", MESSAGES)
    assert len(server.chat_requests) == 3  # 1 + max_retries
    message = str(info.value)
    assert message.startswith(f"LLM endpoint {server.base_url} returned HTTP 500: model crashed badly")
    assert "\n" not in message and "3 attempt(s)" in message
    [call] = recorder.calls
    assert not call.ok and call.error == message and call.backend == "openai"
    assert call.prompt_tokens == count_tokens("\n".join(m["content"] for m in MESSAGES))
    assert call.completion_tokens == 0


def test_schema_call_against_a_dead_server_stays_bounded() -> None:
    with FakeOpenAIServer(http_error(503)) as server:
        with pytest.raises(LLMError, match="HTTP 503"):
            client(server, max_retries=1).chat("reader", MESSAGES, schema=SCHEMA)
    # two negotiation steps, then 1 + max_retries plain attempts; nothing is cached
    assert len(server.chat_requests) == 4
    assert known_mode(server.base_url, "fake-model") is None


def test_transient_500_then_success() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer([http_error(500), ok("fine")]) as server:
        result = client(server, recorder).chat("assistant", MESSAGES)
    assert result.text == "fine" and recorder.calls[0].ok and len(recorder.calls) == 1


def test_rate_limit_is_retried() -> None:
    with FakeOpenAIServer([http_error(429, "slow down"), ok("fine")]) as server:
        assert client(server).chat("assistant", MESSAGES).text == "fine"
    assert len(server.chat_requests) == 2


def test_client_error_is_not_retried() -> None:
    with FakeOpenAIServer(http_error(401, "invalid api key")) as server:
        with pytest.raises(LLMError, match="returned HTTP 401: invalid api key"):
            client(server).chat("assistant", MESSAGES)
    assert len(server.chat_requests) == 1


def test_timeout_is_retried_then_llm_error_quickly() -> None:
    recorder = UsageRecorder()
    # The server would take 10 s per attempt: two attempts cut at 0.3 s each finish far below one
    # full reply, with room for a loaded machine (a bound near 0.6 s failed under load).
    with FakeOpenAIServer(slow(10.0)) as server:
        started = time.perf_counter()
        with pytest.raises(LLMError, match=r"timed out after 0\.3s") as info:
            client(server, recorder, max_retries=1, timeout=0.3).chat("assistant", MESSAGES)
        elapsed = time.perf_counter() - started
    assert len(server.chat_requests) == 2 and elapsed < 6
    assert str(info.value).startswith(f"LLM endpoint {server.base_url} timed out")
    assert recorder.calls[0].ok is False


def test_connection_refused_is_a_quick_clear_llm_error() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    recorder = UsageRecorder()
    llm = OpenAIChatModel(base_url, "m", timeout=0.3, max_retries=2, backoff=0.01, recorder=recorder)
    started = time.perf_counter()
    with pytest.raises(LLMError) as info:
        llm.chat("planner", MESSAGES)
    assert time.perf_counter() - started < 2
    assert str(info.value).startswith(f"LLM endpoint {base_url} unreachable: connection refused")
    assert recorder.calls[0].ok is False and recorder.calls[0].prompt_tokens > 0


def test_truncated_json_counts_as_a_failed_attempt() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer([truncated_json(), ok(ANSWER)]) as server:
        result = client(server, recorder).chat("extractor", MESSAGES, schema=SCHEMA)
    assert result.data == {"answer": "Paris"}
    # a parse failure is not a reason to change response_format
    assert [response_format_type(b) for b in server.chat_requests] == ["json_schema", "json_schema"]
    [call] = recorder.calls  # one logical call, tokens of both answered attempts
    assert call.prompt_tokens == 2 * FAKE_USAGE["prompt_tokens"]
    assert call.completion_tokens == 2 * FAKE_USAGE["completion_tokens"]


def test_persistently_truncated_json_ends_in_llm_error() -> None:
    recorder = UsageRecorder()
    with FakeOpenAIServer(truncated_json()) as server:
        with pytest.raises(LLMError, match="unusable JSON: reply JSON is truncated"):
            client(server, recorder, max_retries=1).chat("extractor", MESSAGES, schema=SCHEMA)
    [call] = recorder.calls
    assert not call.ok and call.completion_tokens == 2 * FAKE_USAGE["completion_tokens"]


def test_wrong_schema_json_is_retried_then_llm_error() -> None:
    with FakeOpenAIServer([wrong_schema(), ok(ANSWER)]) as server:
        assert client(server).chat("reader", MESSAGES, schema=SCHEMA).data == {"answer": "Paris"}
    with FakeOpenAIServer(wrong_schema()) as server:
        with pytest.raises(LLMError, match="missing required field"):
            client(server, max_retries=1).chat("reader", MESSAGES, schema=SCHEMA)


def test_empty_content_is_a_failure() -> None:
    with FakeOpenAIServer([empty(), ok("now something")]) as server:
        assert client(server).chat("assistant", MESSAGES).text == "now something"
    with FakeOpenAIServer(empty()) as server:
        with pytest.raises(LLMError, match="empty reply"):
            client(server, max_retries=0).chat("assistant", MESSAGES)
    assert len(server.chat_requests) == 1


def test_unexpected_sdk_exception_is_recorded_as_llm_error(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = UsageRecorder()
    llm = OpenAIChatModel("http://127.0.0.1:9/v1", "m", recorder=recorder)

    def boom(**_kwargs: object) -> None:
        raise TypeError("odd payload")

    monkeypatch.setattr(llm._client.chat.completions, "create", boom)
    with pytest.raises(LLMError, match="failed unexpectedly: TypeError: odd payload"):
        llm.chat("reader", MESSAGES)
    assert recorder.calls[0].ok is False


# --- concurrency -----------------------------------------------------------------------------


def test_max_concurrency_bounds_requests_in_flight() -> None:
    recorder = UsageRecorder()
    errors: list[BaseException] = []
    with FakeOpenAIServer(ok("done", delay=0.05)) as server:
        llm = client(server, recorder, max_concurrency=2, timeout=5)

        def work() -> None:
            try:
                llm.chat("reader", MESSAGES)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=5)
    assert not errors
    assert len(recorder.calls) == 8 and all(c.ok for c in recorder.calls)
    assert 1 <= server.max_in_flight <= 2


def test_fake_server_embeddings_are_deterministic() -> None:
    with FakeOpenAIServer([]) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=2)
        out = sdk.embeddings.create(model="e", input=["a", "b"])
        again = sdk.embeddings.create(model="e", input="a")
    assert [d.embedding for d in out.data] == [fake_embedding("a"), fake_embedding("b")]
    assert again.data[0].embedding == fake_embedding("a")


# --- LangChain adapter -----------------------------------------------------------------------


def test_langchain_adapter_parses_and_records() -> None:
    recorder = UsageRecorder()
    fake = FakeListChatModel(responses=[f"Here:\n```json\n{ANSWER}\n```", "plain words"])
    llm = LangChainChatModel(fake, recorder=recorder)
    assert isinstance(llm, ChatModel) and llm.model == "fake-list-chat-model"
    result = llm.chat("reader", MESSAGES, schema=SCHEMA)
    assert result.data == {"answer": "Paris"}
    assert llm.chat("assistant", MESSAGES).text == "plain words"
    first, second = recorder.calls
    assert (first.backend, first.role, first.ok) == ("langchain", "reader", True)
    assert first.completion_tokens == count_tokens(result.text) and first.prompt_tokens > 0
    assert second.prompt_tokens == count_tokens("\n".join(m["content"] for m in MESSAGES))


def test_langchain_adapter_prefers_usage_metadata() -> None:
    usage = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    fake = GenericFakeChatModel(messages=iter([AIMessage(content="hi", usage_metadata=usage)]))
    call = LangChainChatModel(fake, model="scripted").chat("judge", MESSAGES).call
    assert (call.model, call.prompt_tokens, call.completion_tokens) == ("scripted", 3, 2)


def test_langchain_adapter_retries_bad_json_then_fails_clearly() -> None:
    fake = FakeListChatModel(responses=["no json here", ANSWER])
    assert LangChainChatModel(fake).chat("reader", MESSAGES, schema=SCHEMA).data == {"answer": "Paris"}
    recorder = UsageRecorder()
    bad = FakeListChatModel(responses=['{"answer": "cut'])
    with pytest.raises(LLMError, match="truncated"):
        LangChainChatModel(bad, recorder=recorder, max_retries=1).chat("reader", MESSAGES, schema=SCHEMA)
    [call] = recorder.calls
    assert not call.ok and "2 attempt(s)" in (call.error or "")


def test_langchain_adapter_wraps_model_exceptions() -> None:
    class Broken(FakeListChatModel):
        def _call(self, *args: object, **kwargs: object) -> str:
            raise RuntimeError("backend exploded")

    recorder = UsageRecorder()
    with pytest.raises(LLMError, match="RuntimeError: backend exploded"):
        LangChainChatModel(Broken(responses=["x"]), recorder=recorder).chat("planner", MESSAGES)
    assert recorder.calls[0].ok is False


# --- settings --------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    import os

    for key in list(os.environ):
        if key.startswith("EMEM_LLM") or key == "OPENAI_API_KEY":
            monkeypatch.delenv(key)
    return monkeypatch


def test_defaults_are_all_offline(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setenv("OPENAI_API_KEY", "sk-should-not-go-online")
    settings = load_llm_settings(tmp_path)
    assert settings.offline and set(settings.roles) == set(ROLES)
    assert all(build_chat_model(r, settings) is None for r in ROLES)
    assert settings.role("judge").api_key == "sk-should-not-go-online"  # fallback only


def test_precedence_file_then_env_all_roles_then_env_per_role(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "llm.json").write_text(
        json.dumps(
            {
                "base_url": "http://file-host/v1",
                "model": "file-model",
                "api_key": "file-key",
                "timeout": 12,
                "roles": {"assistant": {"model": "file-assistant"}, "judge": {"base_url": "http://judge/v1"}},
            }
        )
    )
    settings = load_llm_settings(tmp_path)
    assert settings.role("reader").model_dump() == {
        "base_url": "http://file-host/v1",
        "model": "file-model",
        "api_key": "file-key",
    }
    assert settings.role("assistant").model == "file-assistant"
    assert settings.role("judge").base_url == "http://judge/v1" and settings.timeout == 12

    clean_env.setenv("EMEM_LLM_MODEL", "env-model")  # all roles: beats the file, roles included
    clean_env.setenv("EMEM_LLM_READER_MODEL", "env-reader")  # per role: beats everything
    clean_env.setenv("EMEM_LLM_PLANNER_BASE_URL", "")  # empty: clears, the role goes offline
    clean_env.setenv("OPENAI_API_KEY", "sk-env")
    settings = load_llm_settings(tmp_path)
    assert settings.role("assistant").model == "env-model"
    assert settings.role("reader").model == "env-reader"
    assert settings.role("reader").api_key == "file-key"  # OPENAI_API_KEY only fills gaps
    assert not settings.role("planner").online
    assert build_chat_model("planner", settings) is None

    recorder = UsageRecorder()
    llm = build_chat_model("reader", settings, recorder)
    assert isinstance(llm, OpenAIChatModel)
    assert (llm.base_url, llm.model, llm.timeout, llm.recorder) == (
        "http://file-host/v1",
        "env-reader",
        12,
        recorder,
    )
    assert "file-key" not in repr(llm) and "file-key" not in repr(settings)


def test_env_alone_brings_one_role_online(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("EMEM_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    clean_env.setenv("EMEM_LLM_ASSISTANT_MODEL", "qwen")
    clean_env.setenv("OPENAI_API_KEY", "sk-fallback")
    settings = load_llm_settings(None)
    assert [r for r in ROLES if settings.role(r).online] == ["assistant"]
    assert settings.role("assistant").api_key == "sk-fallback"


def test_settings_errors_are_config_errors(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown LLM role 'poet'"):
        LLMSettings().role("poet")
    (tmp_path / "llm.json").write_text("{not json")
    with pytest.raises(ConfigError, match="llm.json: cannot read"):
        load_llm_settings(tmp_path)
    (tmp_path / "llm.json").write_text(json.dumps({"roles": {"poet": {"model": "x"}}}))
    with pytest.raises(ConfigError, match="unknown role"):
        load_llm_settings(tmp_path)
    (tmp_path / "llm.json").write_text(json.dumps({"modle": "typo"}))
    with pytest.raises(ConfigError, match="invalid LLM settings at 'modle'"):
        load_llm_settings(tmp_path)


def test_structured_output_can_be_forced_to_plain(tmp_path) -> None:
    """A server that accepts json_object but is slow at it can be told to use plain text."""
    from emem.llm.config import build_chat_model, load_llm_settings

    (tmp_path / "llm.json").write_text(
        json.dumps({"base_url": "http://127.0.0.1:9/v1", "model": "m", "structured_output": "plain"})
    )
    settings = load_llm_settings(tmp_path, env={})
    assert settings.structured_output == "plain"
    assert build_chat_model("assistant", settings).structured_output == "plain"
    assert (
        load_llm_settings(tmp_path, env={"EMEM_LLM_STRUCTURED_OUTPUT": "json_object"}).structured_output
        == "json_object"
    )
    with FakeOpenAIServer(ok('{"answer": "x"}')) as server:
        model = OpenAIChatModel(server.base_url, "m", structured_output="plain", max_retries=0)
        result = model.chat("reader", [{"role": "user", "content": "q"}], schema=SCHEMA)
        assert result.data == {"answer": "x"}
        assert "response_format" not in server.chat_requests[0]


def test_prompt_tokens_not_hidden_by_prefix_caching() -> None:
    from emem.llm.openai_client import prompt_tokens_billed

    assert prompt_tokens_billed(1000, 950) == 1000  # the server's own count wins when plausible
    assert prompt_tokens_billed(5, 950) == 950  # a cached prefix reported as 5 tokens is not the cost
    assert prompt_tokens_billed(None, 120) == 120
