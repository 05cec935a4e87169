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
from emem.repairs import repaired

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


def corrected_in_same_breath(
    turn: Turn, sentences: Sequence[tuple[int, int]], facts: Sequence[FactCandidate]
) -> list[FactCandidate]:
    """Retractions and restatements for values put right inside their own sentence ("lost 6 - no,
    8", "Dr. Fitzgibbon - no, hang on, Dr. FitzGerald"), read by the reader's repair rules
    (`emem.repairs`), so what the ledger holds and what the reader reads agree.

    Args:
        turn: the turn.
        sentences: its sentence spans.
        facts: every fact read so far (those not read from one of this turn's sentences are
            left alone).

    Returns:
        For each value the repaired sentence no longer holds: its retraction and the words that
        replaced it, sourced to the turn.
    """
    out: list[FactCandidate] = []
    for s, e in sentences:
        out.extend(_repaired_in_sentence(turn, turn.text[s:e].strip(), facts))
    return out


def _repaired_in_sentence(turn: Turn, sentence: str, facts: Sequence[FactCandidate]) -> list[FactCandidate]:
    fixed = repaired(sentence)
    if fixed == sentence:
        return []
    out: list[FactCandidate] = []
    for fact in facts:
        if (
            fact.kind != "assert"
            or turn.turn_id not in fact.source_turn_ids
            or fact.surface.strip() not in sentence
            or fact.object not in sentence
            or fact.object in fixed
        ):
            continue
        value = _replacement(sentence, fixed, fact.object)
        if value is None or value == fact.object:
            continue
        base = {
            "subject": fact.subject,
            "predicate": fact.predicate,
            "surface": sentence,
            "source_turn_ids": [turn.turn_id],
            "confidence": fact.confidence,
        }
        out.append(FactCandidate(object=fact.object, kind="retract", **base))
        out.append(FactCandidate(object=value, valid_from=fact.valid_from, **base))
    return out


def _replacement(sentence: str, fixed: str, value: str) -> str | None:
    """What `value` became in the repaired sentence: as many words, of the same shape, where it
    stood (a repair rewrites from the value it replaces on, never what comes before it); None
    when the words there are not a value of that shape."""
    start = sentence.find(value)
    if start < 0 or fixed[:start] != sentence[:start]:
        return None
    words = fixed[start:].split()[: len(value.split())]
    new = " ".join(words).strip(" ,;:.!?-–—")
    if value.endswith(".") and not new.endswith("."):
        new = " ".join(words).strip(" ,;:!?-–—")  # "Dr." kept its full stop
    return new if new and _shape(new) == _shape(value) else None
