"""Choosing a backend: `Memory(backend=...)`, else env EMEM_BACKEND, else the embedded one.

A spec is a backend name ("embedded") or a URL whose scheme names the backend
("postgres://user@host/db", "postgresql://..."). Backends are found by scheme in `OPENERS`
("module:function", imported on first use), so the embedded default never imports a database
driver, and a backend whose extra is not installed fails with one clear error.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from emem.errors import InputError
from emem.storage.contract import BackendOpener, StorageBackend

BACKEND_ENV = "EMEM_BACKEND"
DEFAULT_BACKEND = "embedded"

OPENERS: dict[str, str] = {
    "embedded": "emem.storage.embedded:open_embedded",
    "postgres": "emem.storage.postgres:open_postgres",
    "postgresql": "emem.storage.postgres:open_postgres",
}
"""scheme -> "module:function" taking (spec, home) and returning a `StorageBackend`."""


def backend_spec(backend: str | None = None) -> str:
    """The spec in force: `backend` when given, else EMEM_BACKEND, else "embedded".

    Args:
        backend: an explicit spec (from `Memory(backend=...)` or `--backend`).

    Returns:
        The spec, stripped.
    """
    spec = backend if backend is not None else os.environ.get(BACKEND_ENV) or DEFAULT_BACKEND
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(
            f"a backend is a name or URL such as 'embedded' or 'postgres://...', got {spec!r}", "backend"
        )
    return spec.strip()


def scheme_of(spec: str) -> str:
    """ "postgres://h/db" -> "postgres"; "embedded" -> "embedded" (lower-cased)."""
    return spec.partition("://")[0].lower() if "://" in spec else spec.lower()


def redact(spec: str) -> str:
    """The spec without a password, for messages and `StorageBackend.location`."""
    head, sep, rest = spec.partition("://")
    if not sep or "@" not in rest.partition("/")[0]:
        return spec
    auth, _, host = rest.partition("@")
    user = auth.partition(":")[0]
    return f"{head}://{user}{':***' if ':' in auth else ''}@{host}"


def open_backend(backend: str | StorageBackend | None, home: Path) -> StorageBackend:
    """Open the backend a `Memory` will use.

    Args:
        backend: an already open backend (used as is), a spec, or None (EMEM_BACKEND, else embedded).
        home: the Memory's local directory.

    Returns:
        The open backend.

    Raises:
        InputError: an unknown scheme, or a backend whose optional dependencies are missing.
    """
    if backend is not None and not isinstance(backend, str):
        if not isinstance(backend, StorageBackend):
            raise InputError(
                f"expected a backend spec or a StorageBackend, got {type(backend).__name__}", "backend"
            )
        return backend
    spec = backend_spec(backend)
    return _opener(spec)(spec, home)


def _opener(spec: str) -> BackendOpener:
    scheme = scheme_of(spec)
    target = OPENERS.get(scheme)
    if target is None:
        raise InputError(
            f"unknown backend {redact(spec)!r}; use one of: {', '.join(sorted(OPENERS))} "
            "(URLs as postgres://user@host/db)",
            "backend",
        )
    module, _, func = target.partition(":")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise InputError(
            f"backend {scheme!r} is not available here ({exc}); install its extra, e.g. "
            f"pip install 'emem[{scheme}]'",
            "backend",
        ) from None
    return getattr(mod, func)
