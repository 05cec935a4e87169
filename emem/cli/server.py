"""`emem mcp` and `emem serve`: emem as an MCP server and as an HTTP API (the `server` extra)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from emem.cli.common import HomeOption, user_errors
from emem.errors import ConfigError


def _need_server_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"{exc.name} is not installed; install the server extra: pip install 'emem[server]'"
        ) from None


def register(app: typer.Typer, open_memory: Callable[[Path | None], Any]) -> None:
    @app.command("mcp")
    @user_errors
    def mcp_command(
        http: bool = typer.Option(False, "--http", help="Serve streamable HTTP instead of stdio."),
        host: str = typer.Option("127.0.0.1", "--host", help="HTTP bind address."),
        port: int = typer.Option(8765, "--port", min=1, max=65535),
        namespace: list[str] | None = typer.Option(
            None, "--namespace", "-n", help="Serve only this namespace (repeatable; default: any)."
        ),
        home: Path | None = HomeOption,
    ) -> None:
        """Serve remember/search/ask/facts/history/forget over MCP (stdio, or streamable HTTP)."""
        _need_server_extra()
        from emem.server.mcp_app import build_mcp

        with open_memory(home) as memory:
            server = build_mcp(memory, namespace or None)
            if http:
                server.run("streamable-http", host=host, port=port)
            else:
                server.run("stdio")

    @app.command("serve")
    @user_errors
    def serve_command(
        keys: Path = typer.Option(
            ..., "--keys", envvar="EMEM_API_KEYS", help='JSON file {"<api key>": ["namespace", ...] or "*"}.'
        ),
        host: str = typer.Option("127.0.0.1", "--host", help="Bind address."),
        port: int = typer.Option(8000, "--port", min=1, max=65535),
        max_body_bytes: int = typer.Option(
            2 * 1024 * 1024, "--max-body-bytes", min=1024, help="Largest request body."
        ),
        home: Path | None = HomeOption,
    ) -> None:
        """Serve the HTTP API (OpenAPI spec at /openapi.json, docs at /docs)."""
        _need_server_extra()
        import uvicorn

        from emem.server.http_app import KeyRing, build_app

        ring = KeyRing.from_file(keys)
        with open_memory(home) as memory:
            uvicorn.run(
                build_app(memory, ring, max_body_bytes=max_body_bytes), host=host, port=port, log_level="info"
            )
