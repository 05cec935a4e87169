"""What the read path derives from a turn's text on every question, once per turn object: the
text as rendered, lower-cased, its stemmed words, and the tokens its line's tail takes.

Why: a deep ask scores a few hundred turns several times (each assistant, then the master's
candidates) and counts their lines; rebuilding these strings and looking them up in text-keyed
memos was about a tenth of the ask. The turns of a namespace view live as long as the view, so
a memo by object identity (checked through a weak reference, dropped when the turn is) serves
every question the view answers.
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import dataclass

from emem.index.text import token_set
from emem.models import Turn
from emem.tokens import count_tokens


@dataclass(frozen=True, slots=True)
class TurnText:
    """A turn's text as the read path uses it."""

    rendered: str
    """`Turn.render()`: the text, with an image's caption."""
    lower: str
    """`rendered`, lower-cased (entity mentions are matched in it)."""
    words: frozenset[str]
    """`token_set(rendered)`: the stemmed content words."""
    said: str
    """" speaker: rendered", the tail every line showing the turn ends with."""
    said_tokens: int
    """Tokens `said` takes; a line "[head]" + `said` takes the head's plus these
    (emem.tokens.count_line_tokens says why that is exact)."""


MEMO_MAX = 65_536
"""Turns memoised at most (about 1 KB each); the memo starts afresh when full."""

_memo: dict[int, tuple[weakref.ref[Turn], TurnText]] = {}
_lock = threading.Lock()


def turn_text(turn: Turn) -> TurnText:
    """The turn's derived text, computed once per turn object.

    Args:
        turn: a turn (the same object across questions, as a view holds it).
    Returns:
        Its `TurnText`.
    """
    key = id(turn)
    hit = _memo.get(key)
    if hit is not None and hit[0]() is turn:
        return hit[1]
    rendered = turn.render()
    said = f" {turn.speaker}: {rendered}"
    text = TurnText(rendered, rendered.lower(), token_set(rendered), said, count_tokens(said))
    with _lock:
        if len(_memo) >= MEMO_MAX:
            _memo.clear()
        _memo[key] = (weakref.ref(turn, functools.partial(_forget, key)), text)
    return text


def _forget(key: int, _: weakref.ref[Turn]) -> None:
    """A memoised turn was collected: its id may now name another object."""
    _memo.pop(key, None)
