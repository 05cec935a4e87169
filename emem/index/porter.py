"""The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980) with the
extensions NLTK's `PorterStemmer` applies by default, so that BM25's tokens are the ones the
index was tuned with, without NLTK as a dependency of the library.

The extensions, as NLTK's default mode has them: a few irregular forms map to fixed stems; words
of one or two letters are kept; "ies"/"ied" of four-letter words become "ie"; "y" becomes "i"
only after a consonant that is not the first letter; "alli" is reduced before the other step 2
rules; "fulli" -> "ful"; "logi" -> "log"; "bli" -> "ble" (not "abli"); and a two-letter stem of
vowel then consonant counts as consonant-vowel-consonant.

Pure functions: `stem(word)` lower-cases and stems one word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_IRREGULAR: dict[str, str] = {
    form: base
    for base, forms in {
        "sky": ("sky", "skies"),
        "die": ("dying",),
        "lie": ("lying",),
        "tie": ("tying",),
        "news": ("news",),
        "inning": ("innings", "inning"),
        "outing": ("outings", "outing"),
        "canning": ("cannings", "canning"),
        "howe": ("howe",),
        "proceed": ("proceed",),
        "exceed": ("exceed",),
        "succeed": ("succeed",),
    }.items()
    for form in forms
}
"""Forms the rules would stem wrongly, and their stems."""

Condition = Callable[[str], bool] | None
Rule = tuple[str, str, Condition]
"""(suffix, replacement, condition on the stem left when the suffix is removed)."""


def consonant(word: str, i: int) -> bool:
    """Whether word[i] is a consonant: not a, e, i, o, u, and "y" only at the start or after a
    vowel."""
    letter = word[i]
    if letter in "aeiou":
        return False
    if letter == "y":
        return i == 0 or not consonant(word, i - 1)
    return True


def measure(stem: str) -> int:
    """Porter's m: how many vowel-run-then-consonant-run pairs the stem has ([C](VC)^m[V])."""
    pattern = "".join("c" if consonant(stem, i) else "v" for i in range(len(stem)))
    return pattern.count("vc")


def has_vowel(stem: str) -> bool:
    return any(not consonant(stem, i) for i in range(len(stem)))


def double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and consonant(word, len(word) - 1)


def cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y (or is a two-letter vowel-consonant
    word: an extension)."""
    n = len(word)
    if n >= 3:
        shape = consonant(word, n - 3) and not consonant(word, n - 2) and consonant(word, n - 1)
        return shape and word[-1] not in "wxy"
    return n == 2 and not consonant(word, 0) and consonant(word, 1)


def _positive(stem: str) -> bool:
    return measure(stem) > 0


def _above_one(stem: str) -> bool:
    return measure(stem) > 1


def apply_rules(word: str, rules: Sequence[Rule]) -> str:
    """The first rule whose suffix the word ends with decides, whether its condition holds or not.
    The suffix "*d" stands for a double consonant."""
    for suffix, replacement, condition in rules:
        if suffix == "*d":
            if double_consonant(word):
                stem = word[:-2]
                return stem + replacement if condition is None or condition(stem) else word
            continue
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            return stem + replacement if condition is None or condition(stem) else word
    return word


def step1a(word: str) -> str:
    """Plurals: sses -> ss, ies -> i (ie in a four-letter word), s -> ""."""
    if len(word) == 4 and word.endswith("ies"):
        return word[:-3] + "ie"
    return apply_rules(word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)])


def step1b(word: str) -> str:
    """Past tenses and gerunds: eed, ed, ing, then tidy the stem (at -> ate, hopp -> hop...)."""
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and has_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    else:
        return word
    last = stem[-1]
    return apply_rules(
        stem,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", last, lambda _: last not in "lsz"),
            ("", "e", lambda s: measure(s) == 1 and cvc(s)),
        ],
    )


def step1c(word: str) -> str:
    """y -> i after a consonant that is not the word's first letter."""
    return apply_rules(word, [("y", "i", lambda s: len(s) > 1 and consonant(s, len(s) - 1))])


_STEP2: list[Rule] = [
    ("ational", "ate", _positive),
    ("tional", "tion", _positive),
    ("enci", "ence", _positive),
    ("anci", "ance", _positive),
    ("izer", "ize", _positive),
    ("bli", "ble", _positive),
    ("alli", "al", _positive),
    ("entli", "ent", _positive),
    ("eli", "e", _positive),
    ("ousli", "ous", _positive),
    ("ization", "ize", _positive),
    ("ation", "ate", _positive),
    ("ator", "ate", _positive),
    ("alism", "al", _positive),
    ("iveness", "ive", _positive),
    ("fulness", "ful", _positive),
    ("ousness", "ous", _positive),
    ("aliti", "al", _positive),
    ("iviti", "ive", _positive),
    ("biliti", "ble", _positive),
    ("fulli", "ful", _positive),
]


def step2(word: str) -> str:
    """Double suffixes to single ones (ational -> ate, iveness -> ive...), where m > 0."""
    if word.endswith("alli") and _positive(word[:-4]):
        return step2(word[:-4] + "al")
    # "logi" -> "log" keeps the "l" with the stem when measuring, so "geology" stems like "biology".
    return apply_rules(word, [*_STEP2, ("logi", "log", lambda s: _positive(s + "l"))])


_STEP3: list[Rule] = [
    ("icate", "ic", _positive),
    ("ative", "", _positive),
    ("alize", "al", _positive),
    ("iciti", "ic", _positive),
    ("ical", "ic", _positive),
    ("ful", "", _positive),
    ("ness", "", _positive),
]

_STEP4: list[Rule] = [
    *((suffix, "", _above_one) for suffix in ("al", "ance", "ence", "er", "ic", "able", "ible", "ant")),
    *((suffix, "", _above_one) for suffix in ("ement", "ment", "ent")),
    ("ion", "", lambda s: _above_one(s) and s[-1] in "st"),
    *((suffix, "", _above_one) for suffix in ("ou", "ism", "ate", "iti", "ous", "ive", "ize")),
]


def step5(word: str) -> str:
    """A final e goes where m > 1, or m = 1 and the stem does not end cvc; ll -> l where m > 1."""
    if word.endswith("e"):
        stem = word[:-1]
        if measure(stem) > 1 or (measure(stem) == 1 and not cvc(stem)):
            word = stem
    return apply_rules(word, [("ll", "l", lambda s: _above_one(s + "l"))])


def stem(word: str) -> str:
    """Lower-case and stem one word (as NLTK's `PorterStemmer().stem(word)` does by default).

    Args:
        word: one word, no spaces.

    Returns:
        Its stem.
    """
    word = word.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2:
        return word
    word = step1c(step1b(step1a(word)))
    word = apply_rules(apply_rules(step2(word), _STEP3), _STEP4)
    return step5(word)
