"""The offline rule extractor on hand-written turns, plus a held-out set it was not written from."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from emem.extract.entities import AliasResolver
from emem.extract.offline import OfflineExtractor
from emem.extract.schema import FactCandidate
from emem.extract.sentences import split_sentences
from emem.ledger.predicates import PREDICATES, normalise_object
from emem.models import Turn

T = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def turns_of(*lines: tuple[str, str], session: str = "S1") -> list[Turn]:
    return [
        Turn(conversation_id="c", session_id=session, turn_id=f"D1:{i}", speaker=speaker, text=text, time=T)
        for i, (speaker, text) in enumerate(lines, start=1)
    ]


def extract(*lines: tuple[str, str]) -> list[FactCandidate]:
    return OfflineExtractor()(turns_of(*lines))


def triples(text: str, speaker: str = "Caroline") -> set[tuple[str, str, str, str]]:
    return {(f.subject, f.predicate, f.object, f.kind) for f in extract((speaker, text))}


def one(text: str, speaker: str = "Caroline") -> FactCandidate:
    facts = extract((speaker, text))
    assert len(facts) == 1, facts
    return facts[0]


class TestPositive:
    @pytest.mark.parametrize(
        ("text", "predicate", "obj"),
        [
            ("I moved to Austin last year.", "lives_in", "Austin"),
            ("We finally settled in Austin!", "lives_in", "Austin"),
            ("I live in New York City now.", "lives_in", "New York City"),
            ("I've been living in Lisbon for three years.", "lives_in", "Lisbon"),
            ("Loving my new place in Seattle.", "lives_in", "Seattle"),
            ("I work at Google.", "works_at", "Google"),
            ("I work for a nonprofit downtown.", "works_at", "a nonprofit downtown"),
            ("I got a job at a local bakery!", "works_at", "a local bakery"),
            ("I'm a nurse.", "job_title", "nurse"),
            ("I'm a high school teacher.", "job_title", "high school teacher"),
            ("I work as a data analyst.", "job_title", "data analyst"),
            ("I'm single now.", "relationship_status", "single"),
            ("We broke up.", "relationship_status", "single"),
            ("I got engaged!", "relationship_status", "engaged"),
            ("We got married in 2020.", "relationship_status", "married"),
            ("I'm 32 years old.", "age", "32"),
            ("I just turned 40.", "age", "40"),
            ("My dog Max is the best.", "has_pet", "a dog named Max"),
            ("We adopted a cat.", "has_pet", "a cat"),
            ("I have two hamsters.", "has_pet", "two hamsters"),
            ("I bought a new bike.", "owns", "a new bike"),
            ("I love jazz.", "likes", "jazz"),
            ("I'm really into pottery.", "likes", "pottery"),
            ("I love to paint.", "likes", "painting"),
            ("My favorite band is Radiohead.", "likes", "Radiohead"),
            ("I can't stand country music.", "dislikes", "country music"),
            ("I don't like mushrooms.", "dislikes", "mushrooms"),
            ("I hate traffic.", "dislikes", "traffic"),
            ("I'm planning to visit Japan.", "plans_to", "visit Japan"),
            ("I've been painting a lot lately.", "hobby", "painting"),
            ("I took up pottery.", "hobby", "pottery"),
            ("I play tennis on weekends.", "hobby", "tennis"),
            ("My hobbies are chess, hiking and baking.", "hobby", "chess"),
            ("I'm studying psychology at NYU.", "studies", "psychology"),
            ("I'm majoring in biology.", "studies", "biology"),
            ("I joined a book club.", "member_of", "a book club"),
            ("I went to Paris.", "visited", "Paris"),
            ("I've been to Iceland.", "visited", "Iceland"),
            ("I went to a jazz concert.", "attended", "a jazz concert"),
            ("I'm from Sweden.", "hometown", "Sweden"),
            ("My best friend Sarah is visiting.", "friend_of", "Sarah"),
            ("My son Jake is five.", "has_child", "a son named Jake"),
            ("I'm a mom of three.", "has_child", "three kids"),
        ],
    )
    def test_first_person_statements(self, text: str, predicate: str, obj: str) -> None:
        assert ("Caroline", predicate, obj, "assert") in triples(text)

    def test_lists_split_into_facts(self) -> None:
        got = triples("I love hiking, biking and swimming.")
        assert {o for _, p, o, _ in got if p == "likes"} == {"hiking", "biking", "swimming"}

    def test_start_as_reads_title_and_employer(self) -> None:
        got = triples("I started as an intern at Acme Corp in 2019.")
        assert ("Caroline", "works_at", "Acme Corp", "assert") in got
        assert ("Caroline", "job_title", "intern", "assert") in got

    @pytest.mark.parametrize(
        ("text", "org", "title"),
        [
            ("Guess what, I got a job as head baker at Kornblume.", "Kornblume", "head baker"),
            ("I landed a new role as a data analyst with Brightwave.", "Brightwave", "data analyst"),
        ],
    )
    def test_a_job_got_as_a_title_reads_title_and_employer(self, text: str, org: str, title: str) -> None:
        """Job titles are often said without an article ("as head baker")."""
        got = triples(text)
        assert ("Caroline", "works_at", org, "assert") in got
        assert ("Caroline", "job_title", title, "assert") in got

    @pytest.mark.parametrize(
        ("text", "org"),
        [
            ("I've accepted a head of department post at Kestrel College.", "Kestrel College"),
            ("Last week I took a part-time teaching placement at Linden Primary.", "Linden Primary"),
        ],
    )
    def test_a_post_accepted_or_taken_names_the_employer(self, text: str, org: str) -> None:
        """What kind of post it is may take several words before the noun ("a head of department
        post"), and a post is accepted as often as it is got."""
        assert ("Caroline", "works_at", org, "assert") in triples(text)

    def test_every_predicate_is_a_ledger_predicate(self) -> None:
        from emem.extract.rules import ANY_PREDICATE, CORRECT, FAVOURITE, MEDIUM, RULES, SWAP, SWITCH

        placeholders = {ANY_PREDICATE, FAVOURITE, MEDIUM, SWITCH, SWAP, CORRECT}
        assert {r.predicate for r in RULES} - placeholders <= set(PREDICATES)


class TestDates:
    def test_dated_event_gets_valid_from(self) -> None:
        fact = one("I ran a charity race last Saturday.")
        assert (fact.predicate, fact.object) == ("did", "ran a charity race")
        assert fact.valid_from == datetime(2023, 5, 6, tzinfo=UTC)

    def test_visit_with_a_year(self) -> None:
        fact = one("I went to Paris last year.")
        assert (fact.predicate, fact.object, fact.valid_from) == (
            "visited",
            "Paris",
            datetime(2022, 1, 1, tzinfo=UTC),
        )

    def test_move_with_a_date(self) -> None:
        fact = one("I moved to Denver two months ago.")
        assert fact.valid_from == datetime(2023, 3, 1, tzinfo=UTC)

    def test_undated_fact_has_no_valid_from(self) -> None:
        assert one("I live in Boston.").valid_from is None

    def test_plans_carry_their_resolved_date_in_the_object(self) -> None:
        fact = one("I'm going to run a marathon next month.")
        assert (fact.predicate, fact.object, fact.valid_from) == (
            "plans_to",
            "run a marathon (June 2023)",
            None,
        )

    def test_general_events_need_a_date(self) -> None:
        assert triples("I ran a race.") == set()

    def test_past_facts_ignore_future_dates(self) -> None:
        fact = one("We adopted a kitten, and the vet visit is next week.")
        assert fact.predicate == "has_pet" and fact.valid_from is None


class TestNegative:
    @pytest.mark.parametrize(
        "text",
        [
            "Do you live in Paris?",
            "Where do you work these days?",
            "Did you move to Austin?",
            "If I moved to Paris, I'd learn French.",
            "I wish I lived in Hawaii.",
            "Maybe I'll move to Denver.",
            "I would love to visit Japan.",
            "I live in the moment.",
            "I moved to a new apartment.",
            "I don't think I love jazz.",
            "I never lived in Rome.",
            "I'm not a nurse.",
            "I love you!",
            "I love it.",
            "I love that you did that.",
            "I really like your idea.",
            "I'm a big fan of yours.",
            "I'm a huge mess right now.",
            "I'm going to cry.",
            "I'm 5 minutes away.",
            'She said "I moved to Paris" but she was lying.',
            "Sounds like fun!",
            "My mom lives in Florida.",
            "I used to live in Boston.",
            "I lived in Boston.",
            "I'm thinking of getting a dog.",
            "I went to the store.",
            "I have a dog walker.",
            "We went to the Taylor Swift concert.",
        ],
    )
    def test_no_positive_fact(self, text: str) -> None:
        got = triples(text)
        assert not {
            t
            for t in got
            if t[3] == "assert"
            and t[1] in ("lives_in", "likes", "visited", "job_title", "plans_to", "has_pet", "age")
        }, got

    def test_taylor_swift_concert_is_an_event_not_a_place(self) -> None:
        assert ("Caroline", "attended", "the Taylor Swift concert", "assert") in triples(
            "We went to the Taylor Swift concert."
        )

    def test_negated_like_is_a_dislike_not_a_like(self) -> None:
        assert triples("I don't like horror movies.") == {("Caroline", "dislikes", "horror movies", "assert")}

    def test_question_sentence_is_skipped_but_the_statement_beside_it_is_read(self) -> None:
        assert triples("Guess what? I moved to Austin!") == {("Caroline", "lives_in", "Austin", "assert")}


class TestThirdPerson:
    def test_named_speaker(self) -> None:
        facts = extract(("Caroline", "Melanie moved to Ohio."), ("Melanie", "Yes, I did!"))
        assert [(f.subject, f.predicate, f.object) for f in facts] == [("Melanie", "lives_in", "Ohio")]
        assert facts[0].confidence < 0.8  # second-hand

    def test_relative_with_a_name(self) -> None:
        assert ("Anna", "lives_in", "Rome", "assert") in triples("My sister Anna lives in Rome.")

    def test_named_person_job(self) -> None:
        assert ("Sarah", "job_title", "teacher", "assert") in triples("My best friend Sarah is a teacher.")

    def test_alias_is_resolved_to_the_speaker(self) -> None:
        facts = extract(("Caroline", "Mel got engaged last week!"), ("Melanie", "I did!"))
        assert [(f.subject, f.predicate, f.object) for f in facts] == [
            ("Melanie", "relationship_status", "engaged")
        ]

    def test_explicit_resolver_is_used(self) -> None:
        ex = OfflineExtractor(resolver=AliasResolver(["Caroline", "Melanie"]))
        facts = ex(turns_of(("Caroline", "Mel loves pottery.")))
        assert [(f.subject, f.object) for f in facts] == [("Melanie", "pottery")]

    def test_pets_and_plural_nouns_are_not_people(self) -> None:
        assert ("Max", "likes", "the park", "assert") not in triples("My dog Max loves the park.")
        assert triples("Dogs love the park.") == set()

    def test_pronoun_subjects_are_not_guessed(self) -> None:
        assert triples("She moved to Ohio.") == set()


class TestRetractions:
    def test_scratch_that_withdraws_the_previous_statement(self) -> None:
        facts = extract(
            ("Caroline", "I work at Google."),
            ("Melanie", "Wow, really?"),
            ("Caroline", "Haha scratch that, I was kidding."),
        )
        assert [(f.predicate, f.object, f.kind, f.source_turn_ids) for f in facts] == [
            ("works_at", "Google", "assert", ["D1:1"]),
            ("works_at", "Google", "retract", ["D1:3"]),
        ]

    def test_forget_that_points_at_what_the_same_turn_said(self) -> None:
        # The passport number is no fact the rules read; "that" is it, not the job said before.
        facts = extract(
            ("user", "I work at Halden Logistics now."),
            ("assistant", "Noted."),
            ("user", "oops I pasted my passport number, 553 019 224. please forget that"),
        )
        assert ("works_at", "Halden Logistics", "retract") not in {
            (f.predicate, f.object, f.kind) for f in facts
        }
        assert any(f.predicate == "works_at" and f.kind == "assert" for f in facts)

    def test_never_worked_there_names_the_earlier_employer(self) -> None:
        facts = extract(
            ("Caroline", "I work at Acme."),
            ("Melanie", "Cool!"),
            ("Caroline", "That was a joke, I never worked there."),
        )
        retracts = [(f.predicate, f.object) for f in facts if f.kind == "retract"]
        assert retracts == [("works_at", "Acme")]

    def test_not_anymore(self) -> None:
        # "anymore" / "no longer": it held and stopped (kind "end"), unlike "never" (a retraction).
        assert triples("Actually, I don't live in Austin anymore.") == {
            ("Caroline", "lives_in", "Austin", "end")
        }
        assert triples("I no longer work at Google.") == {("Caroline", "works_at", "Google", "end")}

    def test_retraction_without_an_earlier_fact_leaves_the_object_open(self) -> None:
        assert triples("I never worked there.") == {("Caroline", "works_at", "", "retract")}

    def test_quitting_and_moving_out(self) -> None:
        # Quitting ends the job in valid time (kind "end"); it does not say it never held.
        assert ("Caroline", "works_at", "Acme", "end") in triples("I quit my job at Acme last week.")
        assert ("Caroline", "lives_in", "Chicago", "retract") in triples("We moved out of Chicago.")

    def test_wrong_about_finds_the_fact_it_names(self) -> None:
        facts = extract(
            ("Caroline", "I adopted a dog named Rex."), ("Caroline", "I was wrong about the dog.")
        )
        assert [(f.predicate, f.object, f.kind) for f in facts][-1] == (
            "has_pet",
            "a dog named Rex",
            "retract",
        )

    def test_scratch_that_in_the_same_turn_withdraws_the_earlier_sentence(self) -> None:
        facts = extract(("Caroline", "I live in Boston. Scratch that. I live in Denver."))
        assert [(f.object, f.kind) for f in facts] == [
            ("Boston", "assert"),
            ("Boston", "retract"),
            ("Denver", "assert"),
        ]

    def test_correction_after_scratch_that_is_kept(self) -> None:
        facts = extract(("Caroline", "I live in Boston."), ("Caroline", "Scratch that, I live in Denver."))
        assert [(f.object, f.kind, f.source_turn_ids) for f in facts] == [
            ("Boston", "assert", ["D1:1"]),
            ("Boston", "retract", ["D1:2"]),
            ("Denver", "assert", ["D1:2"]),
        ]

    def test_scratch_that_does_not_reach_another_speaker_or_far_back(self) -> None:
        facts = extract(("Melanie", "I live in Boston."), ("Caroline", "Scratch that."))
        assert [f.kind for f in facts] == ["assert"]
        lines = (
            [("Caroline", "I live in Boston.")] + [("Melanie", "ok")] * 6 + [("Caroline", "Just kidding.")]
        )
        assert [f.kind for f in extract(*lines)] == ["assert"]

    def test_a_newer_statement_that_ceases_is_not_an_assertion(self) -> None:
        assert triples("I don't like jazz anymore.") == {("Caroline", "likes", "jazz", "end")}


class TestContract:
    TEXT = (
        "Hey Mel! So I moved to Austin last year, and honestly I love the food scene. "
        "I work at a small bakery now. My dog Max is adjusting too."
    )

    def test_surface_is_verbatim_and_sources_are_set(self) -> None:
        turns = turns_of(("Caroline", self.TEXT))
        facts = OfflineExtractor()(turns)
        assert len(facts) >= 4
        for f in facts:
            assert f.surface and f.surface in turns[0].text
            assert f.source_turn_ids == ["D1:1"]
            assert f.predicate in PREDICATES

    def test_curly_apostrophes_keep_surfaces_verbatim(self) -> None:
        text = "I\u2019m a nurse and I\u2019ve been living in Leeds."
        facts = extract(("Caroline", text))
        assert {(f.predicate, f.object) for f in facts} == {("job_title", "nurse"), ("lives_in", "Leeds")}
        assert all(f.surface in text for f in facts)

    def test_deterministic(self) -> None:
        turns = turns_of(("Caroline", self.TEXT), ("Melanie", "I'm 32 and I just got engaged!"))
        assert OfflineExtractor()(turns) == OfflineExtractor()(turns)

    def test_name(self) -> None:
        assert OfflineExtractor.name == "offline-rules/1"

    def test_sentence_splitting_keeps_abbreviations(self) -> None:
        text = "I work at St. Mary's Hospital. Dr. Lee is my boss!"
        assert [text[s:e] for s, e in split_sentences(text)] == [
            "I work at St. Mary's Hospital.",
            "Dr. Lee is my boss!",
        ]
        assert ("Caroline", "works_at", "St. Mary's Hospital", "assert") in triples(text)


class TestPatternLanguage:
    def test_inflection(self) -> None:
        from emem.extract.patterns import gerund, inflect

        assert inflect("plan") == ("plan", "plans", "planned", "planned", "planning")
        assert inflect("study").past == "studied" and inflect("move").ing == "moving"
        assert inflect("take up").past == "took up"
        assert gerund("swim") == "swimming"

    def test_verb_groups_cover_auxiliaries_and_adverbs(self) -> None:
        from emem.extract.patterns import compile_template

        p = compile_template(r"{S}{vg:live:now}\s+in\s+{obj:place}")
        for text in (
            "I live in Rome",
            "We've been living in Rome",
            "I'm currently living in Rome",
            "Anna lives in Rome",
            "I have lived in Rome",
        ):
            m = p.search(text)
            assert m is not None and m.group("obj") == "Rome", text
        assert p.search("I lived in Rome") is None  # past: not where one lives now

    def test_keywords_prefilter_and_unknown_macros(self) -> None:
        from emem.extract.patterns import compile_template, template_keywords

        assert {"move", "moved", "moving"} <= (template_keywords(r"{S}{vg:move:past}") or set())
        assert template_keywords(r"\bmy\s+wife\b") is None
        with pytest.raises(ValueError):
            compile_template("{nonsense}")

    def test_every_rule_compiles(self) -> None:
        """Rules compile on first use (not at import), so a malformed template would otherwise
        surface only when a sentence first reaches it: compile the whole table here."""
        from emem.extract.rules import RULES

        assert RULES
        for rule in RULES:
            assert rule.pattern.pattern, rule.template
        assert RULES[0].pattern is RULES[0].pattern  # compiled once, then cached


# --- held out ------------------------------------------------------------------------------------
# Written as people phrase things, after the rules and without changing the rules to fit them.
# Issue 12 added predicates (has_sibling, allergy): the two rows that state such facts now expect
# them; and "anymore" now ends a fact (kind "end") instead of retracting it: one row says so. No
# row was changed otherwise. The held-out set for the new vocabulary is heldout_vocabulary.py.
# Each row: speaker, text, expected (subject, predicate, object key, kind). An object matches when
# its normalised form contains the key (or the key contains it).

HELD_OUT: list[tuple[str, str, list[tuple[str, str, str, str]]]] = [
    (
        "Jordan",
        "We just relocated to Denver a few weeks ago, still unpacking boxes.",
        [("Jordan", "lives_in", "Denver", "assert")],
    ),
    (
        "Jordan",
        "These days I'm living in Lisbon, which I adore.",
        [("Jordan", "lives_in", "Lisbon", "assert")],
    ),
    (
        "Jordan",
        "Been working for Spotify since January, loving it so far.",
        [("Jordan", "works_at", "Spotify", "assert")],
    ),
    (
        "Jordan",
        "I'm an accountant, so tax season is brutal.",
        [("Jordan", "job_title", "accountant", "assert")],
    ),
    (
        "Jordan",
        "My husband and I got married in June 2019.",
        [("Jordan", "relationship_status", "married", "assert")],
    ),
    ("Jordan", "I finally adopted a puppy! Her name is Biscuit.", [("Jordan", "has_pet", "puppy", "assert")]),
    (
        "Jordan",
        "I really enjoy baking sourdough on Sundays.",
        [("Jordan", "likes", "baking sourdough", "assert")],
    ),
    ("Jordan", "Honestly, I can't stand reality TV.", [("Jordan", "dislikes", "reality TV", "assert")]),
    (
        "Jordan",
        "I'm hoping to run the Boston Marathon next year.",
        [("Jordan", "plans_to", "Boston Marathon", "assert")],
    ),
    (
        "Jordan",
        "Last weekend I went to a pottery workshop downtown.",
        [("Jordan", "attended", "pottery workshop", "assert")],
    ),
    ("Jordan", "I visited Tokyo back in 2018.", [("Jordan", "visited", "Tokyo", "assert")]),
    (
        "Jordan",
        "My brother Liam works at a hospital in Leeds.",
        [("Liam", "works_at", "hospital", "assert"), ("Jordan", "has_sibling", "Liam", "assert")],
    ),
    ("Jordan", "I'm thinking of moving to Berlin.", []),
    ("Jordan", "Would you ever live in Canada?", []),
    ("Jordan", "I don't eat meat anymore.", []),
    (
        "Jordan",
        "My daughter Emma started kindergarten this year.",
        [("Jordan", "has_child", "Emma", "assert")],
    ),
    ("Jordan", "I picked up knitting during lockdown.", [("Jordan", "hobby", "knitting", "assert")]),
    ("Jordan", "I've been learning Spanish on Duolingo.", [("Jordan", "studies", "Spanish", "assert")]),
    ("Jordan", "Ugh, I hate mornings.", [("Jordan", "dislikes", "mornings", "assert")]),
    (
        "Jordan",
        "We're going to Mexico next month for my sister's wedding.",
        [("Jordan", "plans_to", "Mexico", "assert")],
    ),
    ("Jordan", "I bought a kayak last summer.", [("Jordan", "owns", "kayak", "assert")]),
    ("Jordan", "I joined a running club in April.", [("Jordan", "member_of", "running club", "assert")]),
    ("Jordan", "I'm 27, turning 28 in August.", [("Jordan", "age", "27", "assert")]),
    ("Jordan", "I don't work at the bank anymore.", [("Jordan", "works_at", "bank", "end")]),
    ("Jordan", "Actually scratch that, I'm not moving to Seattle.", []),
    (
        "Jordan",
        "My friend Tom has two cats.",
        [("Tom", "has_pet", "two cats", "assert"), ("Jordan", "friend_of", "Tom", "assert")],
    ),
    ("Jordan", "If I had more money I'd buy a boat.", []),
    ("Jordan", "I'm not really into sports.", [("Jordan", "dislikes", "sports", "assert")]),
    ("Jordan", "Sarah got engaged last week!", [("Sarah", "relationship_status", "engaged", "assert")]),
    ("Jordan", "I've been to Iceland twice.", [("Jordan", "visited", "Iceland", "assert")]),
    (
        "Jordan",
        "I work as a graphic designer for a small agency.",
        [
            ("Jordan", "job_title", "graphic designer", "assert"),
            ("Jordan", "works_at", "small agency", "assert"),
        ],
    ),
    (
        "Jordan",
        "I love my new apartment in Brooklyn.",
        [("Jordan", "lives_in", "Brooklyn", "assert"), ("Jordan", "likes", "apartment", "assert")],
    ),
    ("Jordan", "Is your dog still sick?", []),
    (
        "Jordan",
        "I met my girlfriend at a concert.",
        [("Jordan", "relationship_status", "relationship", "assert")],
    ),
    ("Jordan", "We moved out of Chicago in 2021.", [("Jordan", "lives_in", "Chicago", "retract")]),
    (
        "Jordan",
        "I got promoted to senior manager last week!",
        [("Jordan", "job_title", "senior manager", "assert")],
    ),
    ("Jordan", "I'm a big Taylor Swift fan.", [("Jordan", "likes", "Taylor Swift", "assert")]),
    ("Jordan", "My son plays soccer every Saturday.", [("Jordan", "has_child", "son", "assert")]),
    ("Jordan", "I'm going to try yoga someday.", []),
    ("Jordan", "I love you guys!", []),
    ("Jordan", "Mark and I broke up in March.", [("Jordan", "relationship_status", "single", "assert")]),
    ("Jordan", "I'm allergic to cats.", [("Jordan", "allergy", "cats", "assert")]),
    ("Jordan", "We spent two weeks in Portugal last summer.", [("Jordan", "visited", "Portugal", "assert")]),
    (
        "Jordan",
        "I started volunteering at the animal shelter in January.",
        [("Jordan", "hobby", "volunteering", "assert")],
    ),
    ("Jordan", "I've got three kids.", [("Jordan", "has_child", "three kids", "assert")]),
    (
        "Jordan",
        "My cat Luna knocked over my coffee this morning.",
        [("Jordan", "has_pet", "cat named Luna", "assert")],
    ),
    ("Jordan", "Nah, I never liked horror movies.", [("Jordan", "dislikes", "horror movies", "assert")]),
    ("Jordan", "Don't you love summer?", []),
    ("Jordan", "My mom lives in Florida.", []),
    ("Jordan", "I used to live in Paris.", []),
]


def score_held_out(
    rows: Sequence[tuple[str, str, list[tuple[str, str, str, str]]]] | None = None,
) -> tuple[float, float, list[str]]:
    """Precision over every predicted fact, recall over every expected fact, on `rows` (default:
    this file's held-out phrasings)."""
    correct = predicted = found = expected = 0
    misses: list[str] = []
    for i, (speaker, text, wanted) in enumerate(HELD_OUT if rows is None else rows):
        turn = Turn(conversation_id="h", session_id="s", turn_id=f"H:{i}", speaker=speaker, text=text, time=T)
        used: set[int] = set()
        for f in OfflineExtractor()([turn]):
            predicted += 1
            for j, (subj, pred, key, kind) in enumerate(wanted):
                got, want = normalise_object(f.object), normalise_object(key)
                if (
                    j not in used
                    and (f.subject, f.predicate, f.kind) == (subj, pred, kind)
                    and got
                    and (want in got or got in want)
                ):
                    used.add(j)
                    correct += 1
                    break
            else:
                misses.append(f"false positive: {text!r} -> {f.predicate} {f.object!r} ({f.kind})")
        found += len(used)
        expected += len(wanted)
        misses += [f"missed: {text!r} -> {w}" for j, w in enumerate(wanted) if j not in used]
    return correct / max(predicted, 1), found / max(expected, 1), misses


class TestHeldOut:
    def test_precision_and_recall(self) -> None:
        precision, recall, misses = score_held_out()
        print(f"held-out precision={precision:.3f} recall={recall:.3f}", *misses, sep="\n")
        assert precision >= 0.9, misses
        assert recall >= 0.6, misses

    def test_negatives_produce_no_assertion(self) -> None:
        for speaker, text, wanted in HELD_OUT:
            if not wanted:
                got = triples(text, speaker)
                assert not {t for t in got if t[3] == "assert"}, (text, got)


def test_the_one_who_proposed_is_the_speakers_fiance() -> None:
    said = {
        (f.predicate, f.object) for f in extract(("Maren", "Omg!! Jonas proposed!! We're thinking of June."))
    }
    assert {("relationship_status", "engaged"), ("has_partner", "a fiancé named Jonas")} <= said
    assert extract(("Maren", "Jonas proposed that we split the bill.")) == []


def test_a_favourite_said_with_a_time_word_or_set_off_by_commas() -> None:
    assert ("favourite_band", "Wet Leg") in {
        (f.predicate, f.object) for f in extract(("Maren", "My favourite band these days is Wet Leg."))
    }
    assert ("favourite_band", "Wet Leg") in {
        (f.predicate, f.object) for f in extract(("Maren", "My favourite band, Wet Leg, is touring in May."))
    }


def test_a_job_title_at_an_employer_from_a_start_is_a_new_job() -> None:
    facts = extract(("user", "I got the job!! Staff nurse at Ninewells Hospital, starting 3 June."))
    assert [(f.predicate, f.object) for f in facts if f.predicate == "works_at"] == [
        ("works_at", "Ninewells Hospital")
    ]
    assert extract(("user", "Dinner at Nandos, starting at 7.")) == []


def test_a_post_said_without_an_article_is_a_job_there() -> None:
    said = {(f.predicate, f.object) for f in extract(("Ines", "I'm head baker at Pão Quente in Braga now."))}
    assert ("works_at", "Pão Quente") in said and ("job_title", "head baker") in said
    assert extract(("Ines", "I'm happy at Pão Quente.")) == []
