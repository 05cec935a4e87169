"""emem's Porter stemmer (BM25's tokens) stems as NLTK's default `PorterStemmer` does: the BM25
rankings, and so every benchmark figure, stay what they were when NLTK stemmed them."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from emem.index.porter import stem

REPO = Path(__file__).resolve().parents[1]

# Examples from Porter's paper and NLTK's extensions (irregular forms, short words, "ies" of four
# letters, "logi"), with their stems.
KNOWN = {
    "caresses": "caress", "ponies": "poni", "ties": "tie", "cats": "cat", "feed": "feed",
    "agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing",
    "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan",
    "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail", "filing": "file",
    "happy": "happi", "sky": "sky", "skies": "sky", "relational": "relat", "conditional": "condit",
    "generalization": "gener", "geology": "geolog", "dying": "die", "news": "news", "moved": "move",
    "moving": "move", "is": "is", "as": "as", "Moving": "move",
}  # fmt: skip


def test_known_stems() -> None:
    assert {w: stem(w) for w in KNOWN} == KNOWN


def _vocabulary() -> set[str]:
    """Every word of the conversations the repository ships, and generated words built to end in
    each suffix the rules handle (with a fixed seed)."""
    words: set[str] = set()
    for path in [REPO / "emem" / "data" / "example_conversation.json",
                 *sorted((REPO / "eval" / "reliability" / "conversations").glob("*.json"))]:  # fmt: skip
        words.update(re.findall(r"[a-z]+", json.dumps(json.loads(path.read_text())).lower()))
    suffixes = (
        "ational tional enci anci izer bli alli entli eli ousli ization ation ator alism iveness "
        "fulness ousness aliti iviti biliti fulli logi icate ative alize iciti ical ful ness al ance "
        "ence er ic able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize ies ied eed "
        "ed ing sses ss s y e ll"
    ).split()
    rnd = random.Random(7)
    letters = "aeiouybcdlmnrstzgw"
    for _ in range(20_000):
        head = "".join(rnd.choice(letters) for _ in range(rnd.randint(0, 6)))
        words.add(head + rnd.choice(suffixes) + rnd.choice(["", "s", "ed", "ing", "ly", "y"]))
    return words


def test_stems_as_nltk_does() -> None:
    porter = pytest.importorskip("nltk.stem.porter")  # the eval extra (dev installs it)
    nltk_stem = porter.PorterStemmer().stem
    words = _vocabulary()
    assert len(words) > 15_000
    differ = {w: (stem(w), nltk_stem(w)) for w in words if stem(w) != nltk_stem(w)}
    assert differ == {}
