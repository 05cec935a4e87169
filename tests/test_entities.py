"""Alias resolution: one canonical subject per person, and never two speakers merged."""

from __future__ import annotations

from datetime import UTC, datetime

from emem.extract.entities import AliasResolver, mentioned_names
from emem.models import Turn

T = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def turn(i: int, speaker: str, text: str) -> Turn:
    return Turn(conversation_id="c", session_id="s", turn_id=f"D1:{i}", speaker=speaker, text=text, time=T)


def test_prefix_of_a_speaker_resolves_to_the_speaker() -> None:
    r = AliasResolver(["Caroline", "Melanie"])
    assert r.canonical("Mel") == "Melanie"
    assert r.canonical("mel") == "Melanie"
    assert r.canonical("Caro") == "Caroline"
    assert r.canonical("Melanie's") == "Melanie"


def test_nicknames_resolve_to_the_formal_speaker_name() -> None:
    r = AliasResolver(["Robert", "Katherine", "Jonathan"])
    assert r.canonical("Bob") == "Robert"
    assert r.canonical("Kate") == "Katherine"
    assert r.canonical("Jon") == "Jonathan"


def test_a_formal_name_resolves_to_a_speaker_known_by_nickname() -> None:
    assert AliasResolver(["Bob", "Anna"]).canonical("Robert") == "Bob"


def test_two_known_speakers_are_never_merged() -> None:
    r = AliasResolver(["Jon", "Jonathan"])
    assert r.canonical("Jon") == "Jon"
    assert r.canonical("Jonathan") == "Jonathan"


def test_ambiguous_short_names_stay_as_they_are() -> None:
    r = AliasResolver(["Melanie", "Melissa"])
    assert r.canonical("Mel") == "Mel"


def test_full_name_speaker_is_reached_by_first_name() -> None:
    r = AliasResolver(["Caroline Smith", "Dev Patel"])
    assert r.canonical("Caroline") == "Caroline Smith"
    assert r.canonical("Dev") == "Dev Patel"


def test_unrelated_names_are_unchanged() -> None:
    r = AliasResolver(["Caroline", "Melanie"])
    assert r.canonical("Oscar") == "Oscar"
    assert r.canonical("Ca") == "Ca"  # too short to be evidence


def test_mentioned_names_merge_into_a_fuller_mentioned_name() -> None:
    turns = [
        turn(1, "Ann", "I met up with Jonathan yesterday."),
        turn(2, "Ben", "How is Jonathan doing?"),
        turn(3, "Ann", "Great! Jon says hi."),
    ]
    r = AliasResolver.from_turns(turns)
    assert r.canonical("Jon") == "Jonathan"
    assert r.is_known("Jonathan")
    assert not r.is_known("Zelda")


def test_mentions_are_names_used_mid_sentence() -> None:
    counts = mentioned_names(["Anna left early. Then I saw Anna again.", "Thanks Bob!"])
    assert counts["Anna"] == 1  # the first "Anna" opens a sentence, where any word is capitalised
    assert counts["Bob"] == 1
    assert "Then" not in counts and "Thanks" not in counts
