"""Which endpoint serves which role. Every role is offline unless the user names both an endpoint
and a model for it: emem never goes online, or to a paid API, on its own.

Precedence, later wins, field by field: defaults (offline) < `<home>/llm.json` (top level, then
its "roles") < EMEM_LLM_BASE_URL/_MODEL/_API_KEY < EMEM_LLM_<ROLE>_BASE_URL/_MODEL/_API_KEY.
An empty environment value clears the field, so `EMEM_LLM_JUDGE_MODEL=` takes one role offline.
OPENAI_API_KEY only fills a missing api_key; it never makes a role online.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emem.errors import ConfigError
from emem.llm.base import ChatModel
from emem.llm.usage import UsageRecorder

ROLES: tuple[str, ...] = ("planner", "assistant", "reader", "summariser", "extractor", "adjudicator", "judge")
_FIELDS = ("base_url", "model", "api_key")
CONFIG_FILE = "llm.json"


class RoleConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = Field(default=None, repr=False)

    @property
    def online(self) -> bool:
        return bool(self.base_url and self.model)


class LLMSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roles: dict[str, RoleConfig] = Field(default_factory=lambda: {r: RoleConfig() for r in ROLES})
    timeout: float = 60.0
    max_retries: int = 3
    max_concurrency: int = 4
    structured_output: Literal["auto", "json_schema", "json_object", "plain"] = "auto"
    """How to ask for JSON: negotiate (auto) or force one mode (see OpenAIChatModel)."""
    segment_state: Literal["off", "local"] = "off"
    """"local": run the assistant role in-process on its local GGUF and keep each segment's
    prefix as saved model state (emem.segment_state). Only for an assistant served from this
    machine (a loopback base_url whose model is under `<home>/models/`); remote endpoints stay
    text-only whatever this says."""
    threads: int = Field(default=2, ge=1)
    """CPU threads of a model run in-process (the segment-state assistant). On a loaded machine
    one thread can beat two: llama.cpp's threads wait on each other at every step, and a waiting
    thread whose core is taken stalls the step (see docs/local-llm.md)."""
    models_dir: str | None = None
    """Where local GGUF files are (`<home>/models`, set from the home the settings came from)."""

    def role(self, name: str) -> RoleConfig:
        if name not in ROLES:
            raise ConfigError(f"unknown LLM role {name!r}; roles are {', '.join(ROLES)}")
        return self.roles.get(name) or RoleConfig()

    @property
    def offline(self) -> bool:
        return not any(self.role(r).online for r in ROLES)


class _FileRole(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = Field(default=None, repr=False)


class _FileConfig(_FileRole):
    roles: dict[str, _FileRole] = Field(default_factory=dict)
    timeout: float | None = None
    max_retries: int | None = None
    max_concurrency: int | None = None
    structured_output: Literal["auto", "json_schema", "json_object", "plain"] | None = None
    segment_state: Literal["off", "local"] | None = None
    threads: int | None = None


def _read_file(path: Path) -> _FileConfig:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        config = _FileConfig.model_validate(raw)
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read LLM settings: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{path}: invalid LLM settings at {where!r}: {first['msg']}") from None
    unknown = sorted(set(config.roles) - set(ROLES))
    if unknown:
        raise ConfigError(f"{path}: unknown role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
    return config


def _env_layer(env: Mapping[str, str], prefix: str) -> dict[str, str | None]:
    """Fields set under `prefix` (set-but-empty means None: cleared)."""
    out: dict[str, str | None] = {}
    for name in _FIELDS:
        key = f"{prefix}_{name.upper()}"
        if key in env:
            out[name] = env[key].strip() or None
    return out


def load_llm_settings(home: Path | None = None, env: Mapping[str, str] | None = None) -> LLMSettings:
    """Resolve per-role endpoints from `<home>/llm.json` and the environment (see module doc)."""
    env = os.environ if env is None else env
    fields: dict[str, dict[str, str | None]] = {r: {} for r in ROLES}
    extra: dict[str, Any] = {}
    path = home / CONFIG_FILE if home is not None else None
    if path is not None and path.exists():
        file = _read_file(path)
        top = file.model_dump(include=set(_FIELDS), exclude_unset=True)
        for role in ROLES:
            fields[role].update(top)
            if role in file.roles:
                fields[role].update(file.roles[role].model_dump(exclude_unset=True))
        extra = file.model_dump(
            include={
                "timeout",
                "max_retries",
                "max_concurrency",
                "structured_output",
                "segment_state",
                "threads",
            },
            exclude_none=True,
        )
    if (env.get("EMEM_LLM_STRUCTURED_OUTPUT") or "").strip():
        extra["structured_output"] = env["EMEM_LLM_STRUCTURED_OUTPUT"].strip()
    if (env.get("EMEM_LLM_SEGMENT_STATE") or "").strip():
        extra["segment_state"] = env["EMEM_LLM_SEGMENT_STATE"].strip()
    if (env.get("EMEM_LLM_THREADS") or "").strip():
        extra["threads"] = env["EMEM_LLM_THREADS"].strip()
    if home is not None:
        extra["models_dir"] = str(home / "models")
    everyone = _env_layer(env, "EMEM_LLM")
    for role in ROLES:
        fields[role].update(everyone)
        fields[role].update(_env_layer(env, f"EMEM_LLM_{role.upper()}"))
    fallback_key = (env.get("OPENAI_API_KEY") or "").strip() or None
    for role in ROLES:
        if fields[role].get("api_key") is None and fallback_key:
            fields[role]["api_key"] = fallback_key
    _check_complete(fields)
    try:
        return LLMSettings(roles={r: RoleConfig(**fields[r]) for r in ROLES}, **extra)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"invalid LLM settings at {where!r}: {first['msg']}") from None


def _check_complete(fields: Mapping[str, Mapping[str, str | None]]) -> None:
    """An endpoint that no role has a model for is a mistake, not a request to run offline:
    running offline silently would hide it behind plausible-looking answers. (A shared endpoint
    with one role's model brings that role online alone, as documented above.)"""
    if any(f.get("base_url") and f.get("model") for f in fields.values()):
        return
    with_url = [r for r, f in fields.items() if f.get("base_url")]
    if with_url:
        raise ConfigError(
            f"an LLM base_url is set (for {', '.join(with_url)}) but no model: set EMEM_LLM_MODEL (or "
            f"EMEM_LLM_<ROLE>_MODEL, or 'model' in {CONFIG_FILE}), or unset the base_url to run offline"
        )


LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def local_state_model(role: str, settings: LLMSettings) -> Path | None:
    """The GGUF file to run `role` in-process with saved segment states, or None: only the
    assistant role, only with `segment_state` "local", only for an endpoint on this machine whose
    model is a pulled file (`<home>/models/<model>.gguf`). Anything else stays text-only."""
    config = settings.role(role)
    if role != "assistant" or settings.segment_state != "local" or not config.online:
        return None
    from urllib.parse import urlparse

    host = urlparse(config.base_url or "").hostname or ""
    if host not in {h.strip("[]") for h in LOOPBACK} or settings.models_dir is None:
        return None
    path = Path(settings.models_dir) / f"{config.model}.gguf"
    return path if path.is_file() else None


def build_chat_model(
    role: str, settings: LLMSettings, recorder: UsageRecorder | None = None
) -> ChatModel | None:
    """The configured model for `role`, or None when the role is offline (use the offline path)."""
    config = settings.role(role)
    if not config.online:
        return None
    from emem.llm.openai_client import OpenAIChatModel  # the SDK loads only when going online

    assert config.base_url is not None and config.model is not None
    local = local_state_model(role, settings)
    if local is not None:
        from emem.llm.llama_state import LlamaStateChat

        return LlamaStateChat(local, config.model, n_threads=settings.threads, recorder=recorder)
    return OpenAIChatModel(
        config.base_url,
        config.model,
        config.api_key,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        max_concurrency=settings.max_concurrency,
        recorder=recorder,
        structured_output=settings.structured_output,
    )
