"""Lexical normalisation for BM25: lower-case word tokens, stop words dropped, Porter stems
(`emem.index.porter`). Stemming lets "moved" match "move"; the stop list keeps BM25 from
rewarding "the" and "I"."""

from __future__ import annotations

import re
from functools import lru_cache

from emem.index import porter

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves i'm i've i'd i'll you're you've that's it's don't didn't let's oh yeah wow
    really also gonna got get""".split()
)


def irregular_singular(word: str) -> str:
    """The singular of a plural no suffix rule reaches: "-children" ("grandchildren",
    "stepchildren"), which Porter keeps apart from "grandchild". A wider table (men, women, teeth,
    ...) moved one LoCoMo question's evidence out of deep's pack (bench_retrieval, session 28)
    and was not kept.

    Args:
        word: a lower-case word.
    Returns:
        Its singular, or the word as it is.
    """
    return word[:-3] if word.endswith("children") else word


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return porter.stem(irregular_singular(word))


TOKEN_CACHE = 32_768
"""Texts whose tokens `tokenize` remembers: every turn of a 10-conversation LoCoMo namespace
(5,874) with room for questions, summaries and segment texts."""


_CLITIC = re.compile(r"'(?:s|re|ve|ll|d|m)$")
"""A possessive or contracted verb: "Priya's" is a form of "Priya", "what's" of "what"."""


def _bare(word: str) -> str:
    return _CLITIC.sub("", word) if word not in STOP_WORDS else word


@lru_cache(maxsize=TOKEN_CACHE)
def _tokens(text: str) -> tuple[str, ...]:
    words = (_bare(w) for w in _WORD.findall(text.lower().replace("’", "'")))
    return tuple(_stem(w) for w in words if w and w not in STOP_WORDS)


def tokenize(text: str) -> list[str]:
    """Stemmed content-word tokens of `text`, memoised by text: each question re-scores the turns
    of the segments it reads (deep's features, support), and those texts repeat across questions.

    Args:
        text: any text.

    Returns:
        A new list on each call (callers may change it).
    """
    return list(_tokens(text))


@lru_cache(maxsize=TOKEN_CACHE)
def token_set(text: str) -> frozenset[str]:
    """The set of `tokenize(text)`, memoised by text: deep's turn features and support scores
    each built it afresh for every candidate turn of every ask (~3% of a deep ask at ten LoCoMo
    conversations), over turns that repeat from ask to ask.

    Args:
        text: any text.

    Returns:
        The stemmed content words (shared between callers: immutable).
    """
    return frozenset(_tokens(text))


def forget_tokens() -> None:
    """Drop the memoised tokens (they may hold the words of erased turns)."""
    _tokens.cache_clear()
    token_set.cache_clear()
