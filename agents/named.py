"""A thing asked by its kind, answered by the name that ends in that kind.

"Which watch was I on in February?" after "I'm a firefighter, Red Watch at Stretford" and, later,
"moving to Blue Watch at Salford from the 1st of April": the asked noun ("watch") is the last word
of the names the evidence gives ("Red Watch", "Blue Watch"), so one of those is the answer, the
latest said by the time asked about. No extraction rule knows what a watch is; the name says it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from emem.answer import EvidenceItem


def named_instance(
    head: str | None, evidence: Sequence[EvidenceItem], until: datetime | None = None
) -> str | None:
    """The latest capitalised name ending in the asked noun, said by `until`.

    Args:
        head: the noun the question asks for ("watch"), or None.
        evidence: turns that still hold.
        until: the end of the period asked about (None: now).

    Returns:
        The name ("Red Watch"), or None when no turn names one.
    """
    if not head or len(head) < 3:
        return None
    name = re.compile(rf"\b((?:[A-Z][\w'’-]+\s+){{1,3}}){head.capitalize()}s?\b")
    best: tuple[datetime, str] | None = None
    for e in evidence:
        if until is not None and e.time > until:
            continue
        for m in name.finditer(e.text):
            words = m.group(1).split()
            if m.start() == 0 or e.text[m.start() - 2 : m.start()].strip() in (".", "!", "?"):
                # "Which Watch ...": a capitalised first word of a sentence may be no part of the name
                if len(words) == 1 and words[0].lower() in _OPENERS:
                    continue
            found = f"{' '.join(words)} {head.capitalize()}"
            if best is None or e.time >= best[0]:
                best = (e.time, found)
    return best[1] if best else None


_OPENERS = frozenset("the a an my our your his her their this that and but so then also".split())
