"""The bitemporal ledger: facts with valid time and known time; revisions, never overwrites."""

from emem.ledger.models import History, Relation, Resolution, Revision, TimelineEntry
from emem.ledger.predicates import PREDICATES, Cardinality, cardinality, normalise_object
from emem.ledger.resolver import facts_at, resolve, timeline
from emem.ledger.store import Ledger, WriteResult

__all__ = [
    "PREDICATES",
    "Cardinality",
    "History",
    "Ledger",
    "Relation",
    "Resolution",
    "Revision",
    "TimelineEntry",
    "WriteResult",
    "cardinality",
    "facts_at",
    "normalise_object",
    "resolve",
    "timeline",
]
