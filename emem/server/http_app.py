"""emem's HTTP API (FastAPI): the operations of emem.server.ops as POST /v1/<operation>, with an
OpenAPI spec at /openapi.json.

Security model: every request carries an API key (`Authorization: Bearer <key>` or `X-API-Key`);
each key names the namespaces it may read and write ("*" for all). A request for any other
namespace gets 403 with the same body whether that namespace exists or not, before memory is
touched. Request bodies above `max_body_bytes` get 413. Every error is JSON:
`{"error": {"type": ..., "message": ..., "where": ...}}`, never a traceback.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from emem import __version__
from emem.erasure import ErasureReport
from emem.errors import ConfigError, ConflictError, EmemError, InputError, LLMError, NotFoundError
from emem.ledger.models import History
from emem.models import IngestReport
from emem.server import ops

log = logging.getLogger("emem.server")
DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024
ALL = "*"


class ErrorDetail(BaseModel):
    type: str
    message: str
    where: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    def __init__(self, status: int, type_: str, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.status, self.type, self.message, self.where = status, type_, message, where


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class KeyRing:
    """API keys and the namespaces each may use. Keys are held as SHA-256 digests and compared in
    constant time."""

    def __init__(self, grants: Mapping[str, Iterable[str]]) -> None:
        self._grants: list[tuple[bytes, frozenset[str]]] = []
        for key, spaces in grants.items():
            if not isinstance(key, str) or len(key) < 16:
                raise ConfigError("every API key must be a string of at least 16 characters")
            names = frozenset([spaces] if isinstance(spaces, str) else spaces)
            if not names:
                raise ConfigError("every API key must name at least one namespace (or '*')")
            self._grants.append((_digest(key), names))

    @classmethod
    def from_file(cls, path: Path) -> KeyRing:
        """A JSON object {"<key>": ["namespace", ...] or "*"}."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read API keys from {path}: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a JSON object mapping each key to its namespaces")
        return cls(data)

    def namespaces(self, key: str | None) -> frozenset[str] | None:
        """The namespaces `key` may use, or None for an unknown key."""
        if not key:
            return None
        d = _digest(key)
        found = None
        for digest, names in self._grants:  # no early exit: same time for every key
            if hmac.compare_digest(digest, d):
                found = names
        return found


class LimitBody:
    """ASGI middleware: refuse bodies over `limit` bytes (by Content-Length, and while streaming)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(
        self, scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]], send: Any
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        too_big = JSONResponse(
            status_code=413,
            content=ErrorBody(
                error=ErrorDetail(type="too_large", message=f"request body exceeds {self.limit} bytes")
            ).model_dump(),
        )
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await too_big(scope, receive, send)
            return
        # A body without (or with a false) Content-Length is read here, up to the limit, then replayed.
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.limit:
                await too_big(scope, receive, send)
                return
            if not message.get("more_body"):
                break
        body, sent = b"".join(chunks), False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


_STATUS = [(InputError, 400, "input_error"), (ConflictError, 409, "conflict"), (NotFoundError, 404, "not_found"),
           (LLMError, 502, "llm_error"), (ConfigError, 500, "config_error")]  # fmt: skip
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Bad input"},
    401: {"model": ErrorBody, "description": "Missing or unknown API key"},
    403: {"model": ErrorBody, "description": "The key may not use this namespace"},
    404: {"model": ErrorBody, "description": "The namespace (or what was named) does not exist"},
    409: {"model": ErrorBody, "description": "Conflicting content"},
    413: {"model": ErrorBody, "description": "Request body too large"},
    422: {"model": ErrorBody, "description": "Request does not match the schema"},
    500: {"model": ErrorBody, "description": "Server misconfiguration or an unexpected error"},
    502: {"model": ErrorBody, "description": "An LLM call failed"},
}


def build_app(memory: Any, keys: KeyRing, *, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> FastAPI:
    """The HTTP API over `memory`.

    Args:
        memory: the `emem.Memory` to serve.
        keys: the API keys and their namespaces.
        max_body_bytes: the largest request body accepted.

    Returns:
        The FastAPI app (serve it with uvicorn).
    """
    app = FastAPI(
        title="emem",
        version=__version__,
        description="Auditable long-term memory for LLM agents. Every request names a namespace its API key may use.",
    )
    bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
    header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The API key")

    def granted(
        credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
        api_key: str | None = Depends(header),
    ) -> frozenset[str]:
        spaces = keys.namespaces(credentials.credentials if credentials else api_key)
        if spaces is None:
            raise ApiError(401, "unauthorized", "missing or unknown API key")
        return spaces

    def authorize(spaces: frozenset[str], namespace: str) -> None:
        if ALL not in spaces and namespace not in spaces:
            # the same answer for a namespace that exists and one that does not
            raise ApiError(403, "forbidden", "this API key may not use that namespace", "namespace")

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content=_body(exc.type, exc.message, exc.where))

    @app.exception_handler(EmemError)
    async def _emem_error(_: Request, exc: EmemError) -> JSONResponse:
        status, kind = next(((s, k) for cls, s, k in _STATUS if isinstance(exc, cls)), (400, "error"))
        where = getattr(exc, "where", None)
        message = str(exc)
        if where and message.startswith(f"{where}: "):
            message = message[len(where) + 2 :]
        return JSONResponse(status_code=status, content=_body(kind, message, where))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
            for e in exc.errors()
        )
        return JSONResponse(status_code=422, content=_body("invalid_request", problems or "invalid request"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(status_code=exc.status_code, content=_body("http_error", str(exc.detail)))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse(
            status_code=500, content=_body("internal_error", "internal error; see the server log")
        )

    def endpoint(name: str, response: type[BaseModel], summary: str) -> None:
        fn, model = ops.OPERATIONS[name]

        def handler(request: model, spaces: frozenset[str] = Depends(granted)) -> Any:  # type: ignore[valid-type]
            authorize(spaces, request.namespace)  # type: ignore[attr-defined]
            return fn(memory, request)  # type: ignore[operator]

        handler.__name__ = name
        # the request model is chosen at run time; string annotations (PEP 563) cannot name it
        handler.__annotations__.update({"request": model, "spaces": frozenset[str], "return": Any})
        app.post(
            f"/v1/{name}", response_model=response, responses=ERRORS, summary=summary, operation_id=name
        )(handler)

    endpoint("remember", IngestReport, "Store messages or a note as turns")
    endpoint("search", ops.SearchResponse, "Hybrid search over turns")
    endpoint("ask", ops.AskResponse, "Answer a question with evidence")
    endpoint("facts", ops.FactsResponse, "Current facts from the ledger")
    endpoint("history", History, "How a subject's facts changed")
    endpoint("forget", ErasureReport, "Erase turns, a conversation, a session or a subject")

    @app.get("/v1/health", summary="Liveness", operation_id="health")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    app.add_middleware(LimitBody, limit=max_body_bytes)
    return app


def _body(kind: str, message: str, where: str | None = None) -> dict[str, Any]:
    return ErrorBody(error=ErrorDetail(type=kind, message=message, where=where)).model_dump(exclude_none=True)
