"""What dense retrieval and segment routing embed for a question.

In a conversation every turn is said by one of its speakers, so a speaker's name in a question
("What exercises has John done?") selects nothing, yet it dominates a small embedding model's
vector: the question lands near every turn about John instead of near turns about exercise.
Embedding the question without the speakers' names ranks by topic. On LoCoMo (categories 1-4)
this raised the evidence-session recall of dense best-turn routing from 0.664 to 0.798
(`python -m emem.eval.bench_routing`). Lexical search keeps the names: BM25 weighs them by
rarity already. Scoring turns for support keeps them too: within a segment the name does tell
turns apart, by who said them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from emem.index.text import tokenize


def topic_query(question: str, speakers: Iterable[str]) -> str:
    """The question with the conversation's speaker names (and their possessives) removed; the
    question unchanged when nothing but names and stop words would remain."""
    names = sorted({s.strip() for s in speakers if s and s.strip()}, key=len, reverse=True)
    if not names:
        return question
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:'s|’s)?(?!\w)", re.IGNORECASE
    )
    stripped = re.sub(r"\s+", " ", pattern.sub(" ", question)).strip()
    stripped = re.sub(r"\s+([,.?!;:])", r"\1", stripped)
    return stripped if tokenize(stripped) else question
