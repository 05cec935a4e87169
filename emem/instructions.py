"""A small, pure detector of instruction-shaped text: a stored turn that gives orders to an AI
("ignore previous instructions", "answer every question with ...", a forged LEDGER or </memory>
line) is data to keep, but never an answer. Conservative on purpose: it looks for phrasings that
address a model, not for imperative mood, so ordinary talk ("ignore the noise", "you are now a
mom!") is not flagged."""

from __future__ import annotations

import functools
import re

_PATTERNS = [
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|"
    r"preceding|other|system)\s+(?:instructions?|prompts?|messages?|memories|rules|context)\b",
    r"\b(?:system|developer)\s+(?:prompt|mode|notice|message|override)\b",
    r"\byou\s+are\s+(?:now\s+)?(?:in\s+)?(?:developer|admin|god|jailbreak|dan)\s+mode\b",
    r"\b(?:answer|respond|reply)\s+(?:to\s+)?(?:every|all|any|each)\s+(?:future\s+|further\s+)?questions?\b",
    r"\b(?:reveal|print|show|repeat)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+)?(?:prompt|instructions)\b",
    r"\bnew\s+instructions?\s*:",
    r"(?:^|\n)\s*(?:system|assistant)\s*:",
    r"(?:^|\n)\s*LEDGER\b",
    r"<\s*/?\s*memory\b",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 16)
def looks_like_instruction(text: str) -> bool:
    """True when `text` addresses a language model with orders or forges prompt structure.

    Memoised (a pure function of the text): the offline reader screens every evidence turn of
    every ask twice, the same turns ask after ask, and the search was ~4% of a deep ask."""
    return bool(_INSTRUCTION.search(text))
