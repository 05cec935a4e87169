"""Pets named after they are mentioned (session 31): "The guinea pigs arrived, Anselm named them
Sprout and Bramble" files two pets of Anselm's; "adopted a kitten, we called her Pipar" names
the kitten in the same sentence; the unnamed count gives way so nothing is counted twice."""

from __future__ import annotations

from said import user_turns

from emem.extract.offline import OfflineExtractor


def _pets(*texts: str) -> list[tuple[str, str]]:
    return [(f.subject, f.object) for f in OfflineExtractor()(user_turns(*texts)) if f.predicate == "has_pet"]


def test_pets_named_together_are_each_filed_for_whoever_named_them() -> None:
    assert _pets("The guinea pigs arrived, Anselm named them Sprout and Bramble.") == [
        ("Anselm", "a guinea pig named Sprout"),
        ("Anselm", "a guinea pig named Bramble"),
    ]
    assert _pets("We named the kittens Fig and Olive.") == [
        ("user", "a kitten named Fig"),
        ("user", "a kitten named Olive"),
    ]


def test_the_count_gives_way_to_the_names() -> None:
    for text in (
        ("We got two guinea pigs and named them Sprout and Bramble.",),
        ("We got two guinea pigs.", "We named them Sprout and Bramble."),
    ):
        assert _pets(" ".join(text)) == [
            ("user", "a guinea pig named Sprout"),
            ("user", "a guinea pig named Bramble"),
        ], text
    # as many names as the count, or the names are not theirs
    assert ("user", "two guinea pigs") in _pets(
        "We got two guinea pigs. We named them Sprout, Bramble and Fern."
    )


def test_a_pet_named_later_in_its_own_sentence() -> None:
    assert _pets("adopted a black kitten on Saturday, we called her Pipar.") == [
        ("user", "a black kitten named Pipar")
    ]


def test_an_owner_the_rules_do_not_know_is_not_guessed() -> None:
    assert not [p for p in _pets("My sister got two cats and named them Tom and Jerry.") if p[0] == "user"]


def test_a_pet_s_death_said_by_name_ends_it_for_its_owner() -> None:
    facts = OfflineExtractor()(
        user_turns(
            "The guinea pigs arrived, Anselm named them Sprout and Bramble.",
            "Sad news: Bramble the guinea pig died last week. Anselm is coping.",
        )
    )
    ends = [(f.subject, f.object) for f in facts if f.predicate == "has_pet" and f.kind == "end"]
    assert ends == [("Anselm", "Bramble")]
    # nobody known to have a pet of that name: the speaker's, as before
    lone = OfflineExtractor()(user_turns("Sadly Pebble died last week."))
    assert [(f.subject, f.kind) for f in lone if f.predicate == "has_pet"] == [("user", "end")]


def test_a_kitten_s_name_answers_what_the_cats_are_called() -> None:
    from emem.agents.spans import AnswerType, same_kind, typed_span

    assert typed_span(AnswerType.NAME, "a kitten named Churro", None, set(), "cat") == "Churro"
    assert same_kind("a puppy named Rex", "dogs")
    assert not same_kind("a dog named Rex", "cat")
    assert typed_span(AnswerType.NAME, "a dog named Rex", None, set(), "cat") is None
    # the general word covers the others, not the other way round
    assert not same_kind("A tabby called Figo", "kitten")


def test_any_pet_word_cues_the_pets_when_they_are_counted_or_named() -> None:
    from emem.agents.planner import predicate_cues

    assert predicate_cues("How many guinea pigs does Anselm have now?") == ["has_pet"]
    assert "has_pet" in predicate_cues("What are the hens called?")
    # a duration is answered by a reply the pets' own turns would crowd out of the pack
    assert "has_pet" not in predicate_cues("How long has Nate had his turtles?")
    assert "has_pet" not in predicate_cues("What's my favourite chicken dish?")
