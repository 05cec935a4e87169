"""Sentences of a turn as the extractor reads them: one splitter for the engine and its rules."""

from __future__ import annotations

import re

_ABBREVIATIONS = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Mt|vs|etc|e\.g|i\.e|approx|No)\.)$")
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+[\"')\]]*|\n|$)")
_GLUED = re.compile(r"\.[\w@]")
"""A full stop with a word character right after it is inside a token (an email, a number)."""


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of `text`; abbreviations such as "Dr." or "St." do not end a sentence."""
    spans: list[tuple[int, int]] = []
    start = None
    for m in _SENTENCE.finditer(text):
        if m.start() == m.end():
            continue
        if start is None:
            start = m.start()
        if m.end() < len(text) and (
            _ABBREVIATIONS.search(text[start : m.end()]) or _GLUED.match(text, m.end() - 1)
        ):
            continue  # "Dr. Smith", "priya.k@example.com", "3.5": no sentence ends there
        spans.append((start, m.end()))
        start = None
    if start is not None:
        spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out
