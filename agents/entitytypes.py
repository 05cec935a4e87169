"""Whether a candidate answer span is the kind of entity a question asks for, by spaCy's entity
labels read in the span's own sentence (emem.retrieval.ner: the installed small English pipeline,
offline; without it every span is accepted).

Why: capitalised-word rules cannot tell a person from a place ("Who does Tariq live with?" is not
answered by "Hackney"); the NER labels the span in context.
"""

from __future__ import annotations

import re
from functools import lru_cache

from emem.agents.spans import AnswerType
from emem.retrieval.ner import bundled_ner

_WRONG = {
    AnswerType.PERSON: frozenset({"GPE", "LOC", "FAC", "ORG", "DATE", "TIME", "MONEY", "QUANTITY"}),
}
"""Labels a span of the asked type is never: a person is not a city, a place is not a person."""


@lru_cache(maxsize=4096)
def _labels(text: str) -> tuple[tuple[str, str], ...]:
    tagger = bundled_ner()
    return tuple(tagger.spans(text)) if tagger is not None else ()


def wrong_kind(kind: AnswerType, span: str, text: str) -> bool:
    """True when spaCy labels the span, in the text it was cut from, as an entity the question's
    type excludes ("Hackney" as GPE for a who-question); for a person, only when the text also
    says it as a place ("out of Hackney"), since the small pipeline mislabels names.

    Args:
        kind: the question's answer type.
        span: the candidate answer.
        text: the turn it comes from.

    Returns:
        Whether the span is of a kind the question does not ask for (False when unknown).
    """
    wrong = _WRONG.get(kind)
    if not wrong:
        return False
    if kind is AnswerType.PERSON and not _LOCATIVE.search(text.split(span)[0] if span in text else ""):
        return False  # the small pipeline mislabels names ("my friend Nadia" as GPE): need a place's preposition too
    return any(label in wrong and (ent == span or span in ent) for ent, label in _labels(text))


_LOCATIVE = re.compile(r"\b(?:in|at|from|to|of|near|into|around)\s+(?:the\s+)?$", re.I)
"""A preposition right before the span: said as a place ("out of Hackney")."""
