"""Budgeted packing of provenance closures. Pure: same closures and budget, same result.

A closure goes in whole or not at all, and closures sharing a group (an operation's set: the
count or list members, both temporal endpoints, a current value with the revision that excludes
the old one) go in together or not at all. The budget is never exceeded.
"""

from __future__ import annotations

from collections.abc import Sequence

from emem.answer import Closure, PackResult


def pack(closures: Sequence[Closure], budget: int) -> PackResult:
    groups: dict[str, list[Closure]] = {}
    for c in closures:
        groups.setdefault(c.group, []).append(c)
    order = sorted(groups, key=lambda g: (-max(c.priority for c in groups[g]), list(groups).index(g)))
    chosen: list[Closure] = []
    used = 0
    dropped = []
    for g in order:
        size = sum(c.tokens for c in groups[g])
        if used + size <= budget:
            chosen.extend(groups[g])
            used += size
        else:
            dropped.append(g)
    return PackResult(closures=chosen, tokens=used, budget=budget, dropped_groups=dropped)
