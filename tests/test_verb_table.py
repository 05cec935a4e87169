"""One irregular-verb table serves the extractor's inflections and the reader's question frames."""

from __future__ import annotations

from emem.agents.frames import verb_forms
from emem.extract.patterns import inflect, verb_lemma


def test_one_irregular_verb_table_serves_extraction_and_frames() -> None:
    assert inflect("drive").past == "drove" and inflect("eat").pp == "eaten"
    assert inflect("speak").past == "spoke" and inflect("choose").ing == "choosing"
    assert verb_lemma("drove") == "drive" and verb_lemma("studies") == "study"
    assert verb_forms("drove").search("I drive a van") and verb_forms("studied").search("she studies law")
