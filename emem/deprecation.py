"""The public API's one argument order, and the path off the old one.

Every `Memory` method that takes something besides the namespace takes the namespace as a
keyword (`memory.ask("Where?", namespace="priya")`, `memory.resolve("Priya", "works_at",
namespace="priya")`); methods about the namespace alone take it first (`memory.stats("priya")`).
Earlier releases mixed `search(query, namespace)` with `resolve(namespace, subject, ...)`. Calls
in the old order still work, with an `EmemDeprecationWarning` naming the new form: the namespace
is required, so a call without `namespace=` is unambiguously an old-order call.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


class EmemDeprecationWarning(DeprecationWarning):
    """Raised for calls in an old argument order (a subclass, so tests can turn only ours into errors)."""


def _legacy_call(name: str, position: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Move an old-order positional namespace into `kwargs` and warn; return the other positionals."""
    if "namespace" in kwargs or len(args) <= position:
        return args
    rest = list(args)
    kwargs["namespace"] = rest.pop(position)
    old = "namespace first" if position == 0 else "namespace second"
    warnings.warn(
        f"Memory.{name}: the positional namespace ({old}) is deprecated; "
        f"pass it as a keyword, e.g. {name}(..., namespace={kwargs['namespace']!r})",
        EmemDeprecationWarning,
        stacklevel=3,
    )
    return tuple(rest)


def namespace_keyword(old_position: int) -> Callable[[F], F]:
    """Accept the old order (namespace at `old_position` among the positionals) with a warning.

    Args:
        old_position: where the namespace stood among the method's positional arguments (after
            `self`) in the old signature.

    Returns:
        A decorator for sync or async methods whose new signature has a keyword-only `namespace`.
    """

    def decorate(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def awrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                return await fn(self, *_legacy_call(fn.__name__, old_position, args, kwargs), **kwargs)

            return cast(F, awrapper)

        @functools.wraps(fn)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            return fn(self, *_legacy_call(fn.__name__, old_position, args, kwargs), **kwargs)

        return cast(F, wrapper)

    return decorate
