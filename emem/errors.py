"""Error types. User mistakes raise `EmemError` subclasses whose message names what and where,
so the CLI can print one line instead of a traceback."""

from __future__ import annotations


class EmemError(Exception):
    """Base class for every error emem raises on purpose."""


class InputError(EmemError, ValueError):
    """Bad input: malformed JSON, wrong types, missing fields, unparsable times.

    `where` locates the problem (file, session, turn, field) so the user can fix it.
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class ConflictError(EmemError):
    """An id already holds different content; emem never overwrites silently."""


class NotFoundError(EmemError, KeyError):
    """A named thing (revision, namespace, model file) does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not found"


class ConfigError(EmemError):
    """Configuration that cannot work (missing endpoint, bad asset hash)."""


class StoreError(EmemError):
    """A store file that cannot be used (damaged, not a database, unreadable): name it and say what to do."""


class LLMError(EmemError):
    """An LLM call failed after its retries; never replaced silently by the offline path."""
