"""A value put right in the next breath: "The new flat is 91 Harbour Street. Sorry, 19 Harbour
Street, I wrote it backwards."

The second sentence has no verb a rule could read, only a cue of correcting and a value. The
value it puts right is the one just read from the sentence before, recognised by its shape (the
same number of words, numbers where numbers were and capitalised words where capitalised words
were), so an address corrects an address and a phone number a phone number, whatever the
predicate, with no list of predicates or wordings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emem.extract.schema import FactCandidate
from emem.models import Turn

_CUE = re.compile(
    r"^\W*(?:sorry|oops|whoops|I\s+mean|I\s+meant|correction|no\s+wait|wait|make\s+that|typo)\W*[,:!-]?\s+"
    r"(?P<value>[^,;!?]+?)\s*(?:[,;!?]|\.(?:\s|$)|$)",
    re.IGNORECASE,
)


def _shape(value: str) -> tuple[str, ...]:
    """One letter per word: D for a word with digits, C for a capitalised word, w otherwise."""
    return tuple("D" if re.search(r"\d", w) else "C" if w[:1].isupper() else "w" for w in value.split())


def corrected_in_next_breath(
    turn: Turn, sentences: Sequence[tuple[int, int]], facts: Sequence[FactCandidate]
) -> list[FactCandidate]:
    """Retractions and restatements for values put right by the sentence after them.

    Args:
        turn: the turn.
        sentences: its sentence spans.
        facts: what was read from the turn so far.

    Returns:
        For each value put right: its retraction and the corrected assertion, sourced to the turn.
    """
    out: list[FactCandidate] = []
    text = turn.text
    for (ps, pe), (s, e) in zip(sentences, sentences[1:], strict=False):
        m = _CUE.match(text[s:e])
        if m is None:
            continue
        value = m.group("value").strip()
        if not re.search(r"\d|[A-Z]", value):
            continue  # "sorry, I forgot": no value
        previous = text[ps:pe]
        for fact in facts:
            if (
                fact.kind != "assert"
                or turn.turn_id not in fact.source_turn_ids
                or fact.object not in previous
                or fact.object == value
                or _shape(fact.object) != _shape(value)
            ):
                continue
            base = {
                "subject": fact.subject,
                "predicate": fact.predicate,
                "surface": text[ps:e],
                "source_turn_ids": [turn.turn_id],
                "confidence": fact.confidence,
            }
            out.append(FactCandidate(object=fact.object, kind="retract", **base))
            out.append(FactCandidate(object=value, valid_from=fact.valid_from, **base))
    return out
