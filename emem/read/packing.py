"""Budgeted packing of provenance closures. Pure: same closures and budget, same result.

A closure goes in whole or not at all, and closures sharing a group (an operation's set: the
count or list members, both temporal endpoints, a current value with the revision that excludes
the old one) go in together or not at all. The budget is never exceeded; a header several
closures share (their session and date) is counted once, with the first of them packed.
"""

from __future__ import annotations

from collections.abc import Sequence

from emem.answer import Closure, PackResult


def pack(closures: Sequence[Closure], budget: int) -> PackResult:
    groups: dict[str, list[Closure]] = {}
    for c in closures:
        groups.setdefault(c.group, []).append(c)
    position = {g: i for i, g in enumerate(groups)}  # first appearance breaks ties
    order = sorted(groups, key=lambda g: (-max(c.priority for c in groups[g]), position[g]))
    chosen: list[Closure] = []
    headers: set[str] = set()
    used = 0
    dropped = []
    for g in order:
        size = cost(groups[g], headers)
        if used + size <= budget:
            chosen.extend(groups[g])
            headers |= {c.header for c in groups[g] if c.header is not None}
            used += size
        else:
            dropped.append(g)
    return PackResult(closures=chosen, tokens=used, budget=budget, dropped_groups=dropped)


def cost(closures: Sequence[Closure], headers: set[str] | frozenset[str] = frozenset()) -> int:
    """Tokens `closures` add to a context whose headers `headers` are already paid: their own
    tokens and each new header once.

    Args:
        closures: the closures to add.
        headers: headers the context already holds.

    Returns:
        The tokens they add.
    """
    new = {c.header: c.header_tokens for c in closures if c.header is not None and c.header not in headers}
    return sum(c.tokens for c in closures) + sum(new.values())
