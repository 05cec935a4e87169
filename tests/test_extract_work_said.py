"""Where someone works, said by what they do there ("I fix bikes at Spokesmith", "I'm running the
workshop at Velo Noord now") or with a job head the rules otherwise leave out as ambiguous ("a line
cook at Ortolan"); not a hobby done somewhere ("I cook at home", "I run at Bushy Park")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from emem.extract.offline import OfflineExtractor
from emem.models import Turn

T = datetime(2025, 1, 1, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str]]:
    turn = Turn(conversation_id="c", session_id="s", turn_id="t", speaker="user", text=text, time=T)
    return {(f.predicate, f.object) for f in OfflineExtractor()([turn]) if f.kind == "assert"}


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("I fix bikes at Spokesmith in Ghent and I'm hopeless at remembering things", "Spokesmith"),
        ("big change: I'm running the workshop at Velo Noord now", "Velo Noord"),
        ("I'm a line cook at Ortolan in Bristol.", "Ortolan"),
        ("I bake sourdough for Crumbworth Bakery three nights a week", "Crumbworth Bakery"),
    ],
)
def test_work_said_by_what_one_does_there(text: str, employer: str) -> None:
    assert ("works_at", employer) in facts(text)


def test_a_cook_at_a_named_place_has_that_job() -> None:
    assert ("job_title", "line cook") in facts("I'm a line cook at Ortolan in Bristol.")


@pytest.mark.parametrize(
    "text",
    ["I'm a good cook.", "I cook at home most nights.", "I run at Bushy Park every Saturday."],
)
def test_a_hobby_done_somewhere_is_not_a_job(text: str) -> None:
    assert not {p for p, _ in facts(text)} & {"works_at", "job_title"}


def facts_of(*texts: str, speaker: str = "user") -> set[tuple[str, str, str]]:
    """(subject, predicate, object) asserted from one turn per text, in order."""
    turns = [
        Turn(conversation_id="c", session_id="s", turn_id=f"t{i}", speaker=speaker, text=t, time=T)
        for i, t in enumerate(texts)
    ]
    return {(f.subject, f.predicate, f.object) for f in OfflineExtractor()(turns) if f.kind == "assert"}


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I'm a dental hygienist, four days a week.", "dental hygienist"),
        ("I'm at St Luke's now, as a radiographer.", "radiographer"),
        ("Twelve years a postwoman and my knees know it.", "postwoman"),
        ("I'm teaching piano full time now, nine pupils.", "piano teacher"),
    ],
)
def test_a_job_said_in_other_ways(text: str, title: str) -> None:
    assert ("user", "job_title", title) in facts_of(text)


def test_a_job_said_by_its_verb_of_the_person_named_before() -> None:
    # "the Crown Theatre" names a place, so "He" is the one person of the sentence before
    found = facts_of("Tobias has left the Crown Theatre. He's freelancing now, mostly weddings.")
    assert ("Tobias", "job_title", "freelance") in found


@pytest.mark.parametrize(
    "text", ["I'm teaching my nephew chess this summer.", "Ten years a fan of the band."]
)
def test_teaching_someone_or_a_fandom_is_not_a_job(text: str) -> None:
    assert not {p for p, _ in facts(text)} & {"job_title"}
