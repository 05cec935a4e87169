"""The offline extractor on how values change: works started and ended without a medium, pets said
together and leaving by name, switches, corrections, start dates said in the next sentence, plans
called off, contact details given in new shapes. Sentences here are written for these tests (they
are not the reliability suite's conversations); the last class runs consolidation on a real ledger,
so facts said in one session are read back in the next."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import said

from emem.consolidate import consolidate
from emem.extract.offline import OfflineExtractor
from emem.ledger import Ledger
from emem.models import StoredTurn, Turn

T = datetime(2024, 3, 3, 12, 0, tzinfo=UTC)  # a Sunday


def facts(*texts: str, speaker: str = "user") -> list[tuple[str, str, str, str]]:
    """(subject, predicate, object, kind) of every candidate, turns said in order by one speaker
    ("A:" marks the assistant's turn)."""
    turns = said(texts, T, speaker)
    return [(f.subject, f.predicate, f.object, f.kind) for f in OfflineExtractor()(turns)]


def dated(*texts: str) -> list[tuple[str, str, str, datetime | None, datetime | None]]:
    turns = [
        Turn(conversation_id="c", session_id="s", turn_id=f"t{i}", speaker="user", text=t, time=T)
        for i, t in enumerate(texts)
    ]
    return [(f.predicate, f.object, f.kind, f.valid_from, f.valid_to) for f in OfflineExtractor()(turns)]


class TestWorksWithoutAMedium:
    def test_a_start_after_an_end_takes_the_ended_work_s_medium(self) -> None:
        got = facts("I'm reading Dune.", "I finished Dune and started Dune Messiah.")
        assert ("user", "reading", "Dune", "end") in got
        assert ("user", "reading", "Dune Messiah", "assert") in got
        assert not [f for f in got if f[1] == "watching"]

    def test_medium_words_in_the_next_turn_decide(self) -> None:
        got = facts("Picked up Station Eleven last night.", "A:Great novel! Enjoy it.")
        assert got == [("user", "reading", "Station Eleven", "assert")]

    def test_screen_words_decide_watching(self) -> None:
        assert facts("We're halfway through Severance on TV.") == [
            ("user", "watching", "Severance", "assert")
        ]
        assert facts("I'm on season 2 of Succession.") == [("user", "watching", "Succession", "assert")]

    def test_subject_dropped(self) -> None:
        assert facts("Currently reading The Overstory.") == [("user", "reading", "The Overstory", "assert")]
        got = facts("I'm watching The Crown.", "Done with The Crown, moving on to Bridgerton.")
        assert ("user", "watching", "The Crown", "end") in got
        assert ("user", "watching", "Bridgerton", "assert") in got

    def test_nothing_decides_no_start_is_guessed(self) -> None:
        assert facts("Just started Babel, loving it so far.") == []
        # an ending nothing decides ends whichever is running (low confidence, never recorded anew)
        assert {f[1] for f in facts("Finished Piranesi.")} == {"reading", "watching"}

    def test_an_end_and_a_start_in_one_turn_are_ordered(self) -> None:
        got = dated(
            "I'm reading Klara and the Sun.", "Just wrapped up Klara and the Sun. Picked up Emma last night."
        )
        emma = next(f for f in got if f[1] == "Emma")
        klara_end = next(f for f in got if f[1] == "Klara and the Sun" and f[2] == "end")
        assert emma[3] == datetime(2024, 3, 2, tzinfo=UTC)
        assert klara_end[4] == emma[3]


class TestPets:
    @pytest.mark.parametrize(
        ("text", "pets"),
        [
            ("We have two cats, Pixel and Mango.", ["a cat named Pixel", "a cat named Mango"]),
            (
                "We took in two foster kittens last Sunday, Fig and Olive.",
                ["a foster kitten named Fig", "a foster kitten named Olive"],
            ),
            (
                "we've got a dog named Juniper and a rabbit named Clove",
                ["a dog named Juniper", "a rabbit named Clove"],
            ),
            (
                "We have a cat named Miso and two guinea pigs, Bean and Toast.",
                ["a cat named Miso", "a guinea pig named Bean", "a guinea pig named Toast"],
            ),
            ("We just adopted a rescue greyhound, her name's Luna.", ["a greyhound dog named Luna"]),
            ("We got a puppy! We named him Ziggy.", ["a puppy named Ziggy"]),
        ],
    )
    def test_pets_said_together_are_one_fact_each(self, text: str, pets: list[str]) -> None:
        assert [f[2] for f in facts(text) if f[1] == "has_pet" and f[3] == "assert"] == pets

    def test_a_count_without_as_many_names_stays_a_count(self) -> None:
        assert facts("We have three cats, Pixel and Mango.")[:1] == [
            ("user", "has_pet", "three cats", "assert")
        ]

    @pytest.mark.parametrize(
        "text",
        [
            "Mango passed away on Monday.",
            "Sadly we had to rehome Mango.",
            "Mango got adopted by our neighbours.",
            "We gave Mango away.",
        ],
    )
    def test_a_pet_leaves_by_its_name(self, text: str) -> None:
        got = facts(text)
        assert ("user", "has_pet", "Mango", "end") in got
        assert not [f for f in got if f[3] == "assert"]

    def test_lost_by_species_and_name_is_an_end_not_a_new_pet(self) -> None:
        assert facts("We lost our cat Tigger last week.") == [
            ("user", "has_pet", "a cat named Tigger", "end")
        ]

    def test_a_pet_got_and_lost_in_one_turn_held_before_it_ended(self) -> None:
        got = dated("I got two goldfish, Salt and Pepper. Sadly Pepper died last week.")
        pepper = next(f for f in got if f[1] == "a goldfish named Pepper")
        end = next(f for f in got if f[2] == "end")
        assert pepper[3] is not None and pepper[3] < end[4]


class TestSwitchesAndCorrections:
    def test_switch_moves_the_held_value(self) -> None:
        got = facts("I play violin.", "I switched from violin to viola.")
        assert got[-2:] == [("user", "hobby", "violin", "end"), ("user", "hobby", "viola", "assert")]

    def test_switch_with_a_pronoun_for_the_named_person(self) -> None:
        got = facts(
            "Yusuf is doing medicine in Edinburgh.", "Yusuf called, he's switching from medicine to biology."
        )
        assert ("Yusuf", "studies", "medicine", "end") in got
        assert ("Yusuf", "studies", "biology", "assert") in got

    def test_a_swap_moves_the_held_value_whole(self) -> None:
        got = facts("In the evenings I'm learning the cello.", "I've swapped the cello for a harp.")
        assert ("user", "learning", "cello", "end") in got and (
            "user",
            "learning",
            "harp",
            "assert",
        ) in got, got
        car = facts("I drive a Fiat Panda.", "I traded the Panda for a Skoda Octavia.")
        assert ("user", "drives", "Skoda Octavia", "assert") in car, car
        assert facts("I swapped shifts with Dana for Friday.") == []

    def test_switch_to_nothing_held_says_nothing(self) -> None:
        assert facts("I switched from violin to viola.") == []

    @pytest.mark.parametrize(
        ("first", "second", "predicate", "old", "new"),
        [
            (
                "I live in Sheffield.",
                "Wait, sorry, it's Leeds not Sheffield.",
                "lives_in",
                "Sheffield",
                "Leeds",
            ),
            ("I work at Acme.", "Actually it's Globex, not Acme.", "works_at", "Acme", "Globex"),
            ("I live in Portland.", "Oops, I live in Salem, not Portland.", "lives_in", "Portland", "Salem"),
        ],
    )
    def test_it_s_x_not_y_corrects_y(
        self, first: str, second: str, predicate: str, old: str, new: str
    ) -> None:
        got = facts(first, second)
        assert ("user", predicate, old, "retract") in got
        assert got[-1] == ("user", predicate, new, "assert")

    def test_not_y_with_nothing_said_of_y_is_no_fact(self) -> None:
        assert facts("It's fun, not work.") == []

    def test_a_corrected_number_withdraws_the_one_just_given(self) -> None:
        got = facts(
            "My phone number is 0113 496 0521.",
            "Hang on, the number is 0113 496 0512, I swapped the last two digits.",
        )
        assert got[-2:] == [
            ("user", "phone", "0113 496 0521", "retract"),
            ("user", "phone", "0113 496 0512", "assert"),
        ]

    def test_a_name_after_an_interjection_is_still_the_subject(self) -> None:
        assert facts("Leo is 6.", "No wait, Leo is 7.")[-1] == ("Leo", "age", "7", "assert")

    def test_dropping_what_was_learned_ends_it(self) -> None:
        got = facts("I've been doing Italian on Duolingo.", "I dropped Italian.")
        assert got == [("user", "learning", "Italian", "assert"), ("user", "learning", "Italian", "end")]


class TestStartDates:
    def test_a_job_accepted_starts_on_the_date_said_next(self) -> None:
        got = dated(
            "I accepted an offer from Halcyon Robotics. I'll be a test technician there, starting in August."
        )
        assert ("works_at", "Halcyon Robotics", "assert", datetime(2024, 8, 1, tzinfo=UTC), None) in got
        assert ("job_title", "test technician", "assert", datetime(2024, 8, 1, tzinfo=UTC), None) in got

    def test_a_job_got_starts_on_the_day_said_next(self) -> None:
        got = dated("I got a job at Nairn Motors in Aberdeen. I start on the 1st of April.")
        assert got == [("works_at", "Nairn Motors", "assert", datetime(2024, 4, 1, tzinfo=UTC), None)]

    def test_start_and_last_day(self) -> None:
        assert dated("I start at Google on Monday.") == [
            ("works_at", "Google", "assert", datetime(2024, 3, 4, tzinfo=UTC), None)
        ]
        assert dated("My last day at Acme is Friday.") == [
            ("works_at", "Acme", "end", None, datetime(2024, 3, 8, tzinfo=UTC))
        ]

    def test_no_start_cue_no_date_moved(self) -> None:
        got = dated("I got a job at Nairn Motors. My sister visits on the 1st of April.")
        assert got[0][3] is None


class TestPlansAndMoves:
    def test_not_moving_after_all(self) -> None:
        got = facts("We're not moving to Denver after all.")
        assert ("user", "lives_in", "Denver", "retract") in got

    def test_the_x_trip_called_off(self) -> None:
        assert facts("We called off the Morocco trip, too much going on.") == [
            ("user", "plans_to", "Morocco", "retract")
        ]
        assert facts("Scrap the Lisbon plan, we're going to Porto instead.")[0] == (
            "user",
            "plans_to",
            "Lisbon",
            "retract",
        )

    def test_a_cancelled_trip_is_not_a_visit(self) -> None:
        assert facts("We cancelled our trip to Japan.") == [("user", "plans_to", "Japan", "retract")]

    def test_staying_withdraws_the_move_planned_ahead(self) -> None:
        got = facts(
            "I'm planning to move to Denver next spring.", "We've decided to stay in Tulsa after all."
        )
        assert ("user", "lives_in", "Denver", "retract") in got

    @pytest.mark.parametrize(
        ("text", "place"),
        [
            ("Home is Seattle these days.", "Seattle"),
            ("I'm back in Chicago for good.", "Chicago"),
            ("I'm still in Dundee, working at Kerr's Garage.", "Dundee"),
        ],
    )
    def test_homes(self, text: str, place: str) -> None:
        assert ("user", "lives_in", place, "assert") in facts(text)

    @pytest.mark.parametrize("asked", ["Omar! How's life in Madrid?", "Hey, how's the new flat in Madrid?"])
    def test_a_question_about_life_somewhere_says_where_the_other_lives(self, asked: str) -> None:
        turns = [
            Turn(conversation_id="c", session_id="s", turn_id="1", speaker="Nina", text=asked, time=T),
            Turn(conversation_id="c", session_id="s", turn_id="2", speaker="Omar", text="Busy!", time=T),
        ]
        got = [(f.subject, f.predicate, f.object) for f in OfflineExtractor()(turns)]
        assert got == [("Omar", "lives_in", "Madrid")]

    def test_sentence_adverbs_are_nobody(self) -> None:
        assert facts("Finally settled in Aberdeen.", speaker="Callum") == [
            ("Callum", "lives_in", "Aberdeen", "assert")
        ]


class TestEmployersAndContacts:
    @pytest.mark.parametrize(
        ("text", "org"),
        [
            ("I'm based in Lisbon, working remotely for a Berlin startup called Tessellate.", "Tessellate"),
            ("I'm still at Kerr's Garage in Dundee, fixing vans all day.", "Kerr's Garage"),
            ("I started at a design studio called Forma last month.", "Forma"),
        ],
    )
    def test_employers(self, text: str, org: str) -> None:
        assert ("user", "works_at", org, "assert") in facts(text)

    def test_leaving_an_employer_ends_it(self) -> None:
        got = dated("I work for Tessellate.", "Also I left Tessellate last month.")
        assert ("works_at", "Tessellate", "end", None, datetime(2024, 2, 1, tzinfo=UTC)) in got

    @pytest.mark.parametrize(
        ("text", "predicate", "value"),
        [
            (
                "Please use kofi@halcyonrobotics.com for everything from now on.",
                "email",
                "kofi@halcyonrobotics.com",
            ),
            ("I changed my email to jo@newmail.com.", "email", "jo@newmail.com"),
            ("My email changed, it's now jo@new.com.", "email", "jo@new.com"),
            ("New number: 555-201-3344.", "phone", "555-201-3344"),
            ("My number's changed too, it's 07700 900461 now.", "phone", "07700 900461"),
            ("You can reach me on +44 7700 900123.", "phone", "+44 7700 900123"),
        ],
    )
    def test_contact_details(self, text: str, predicate: str, value: str) -> None:
        assert ("user", predicate, value, "assert") in facts(text)

    def test_dates_and_short_numbers_are_not_phones(self) -> None:
        assert not [f for f in facts("New number: 2024-06-14.") if f[1] == "phone"]
        assert not [f for f in facts("Please use 12 34 for the door.") if f[1] == "phone"]

    def test_a_bare_answer_to_the_agent_s_question(self) -> None:
        got = facts("A:What's the address of the flat?", "It's 22 Alder Road, Flat 3, Bristol.")
        assert ("user", "address", "22 Alder Road, Flat 3, Bristol", "assert") in got

    def test_a_greeting_on_its_own_before_the_name(self) -> None:
        assert ("user", "name", "Maya", "assert") in facts("Hi! I'm Maya. I live in Denver.")

    def test_doing_a_subject_is_studying_it(self) -> None:
        assert facts("Idris is doing law in Manchester.", speaker="Aisha") == [
            ("Idris", "studies", "law", "assert")
        ]
        assert facts("I'm doing the dishes.") == []


def _stored(seq: int, session: str, text: str, day: int) -> StoredTurn:
    return StoredTurn(
        conversation_id="c",
        session_id=session,
        turn_id=f"{session}:{seq}",
        speaker="user",
        text=text,
        time=T + timedelta(days=day),
        namespace="ns",
        seq=seq,
        recorded_at=T,
        hash=f"h{seq}",
    )


class TestAcrossSessions:
    """Consolidation runs the extractor once per session; what a later session refers back to
    comes from the ledger (a real one)."""

    @pytest.fixture
    def ledger(self, tmp_path):
        with Ledger(tmp_path / "ledger.sqlite") as led:
            yield led

    def run(self, ledger: Ledger, *turns: tuple[str, str, int]) -> None:
        stored = [_stored(i + 1, s, text, day) for i, (s, text, day) in enumerate(turns)]
        consolidate("ns", stored, ledger, OfflineExtractor())

    def test_finished_in_a_later_session_ends_the_book(self, ledger: Ledger) -> None:
        self.run(
            ledger,
            ("S1", "I'm reading Piranesi right now.", 0),
            ("S2", "Finished Piranesi. Started The Night Circus.", 30),
        )
        assert ledger.resolve("ns", "user", "reading").values == ["The Night Circus"]
        assert ledger.resolve("ns", "user", "watching").status == "miss"
        assert ledger.resolve("ns", "user", "reading", valid_at=T + timedelta(days=10)).values == ["Piranesi"]

    def test_switch_across_sessions(self, ledger: Ledger) -> None:
        self.run(
            ledger,
            ("S1", "I'm learning Portuguese.", 0),
            ("S2", "I switched from Portuguese to Italian.", 30),
        )
        assert ledger.resolve("ns", "user", "learning").values == ["Italian"]

    def test_left_in_a_later_session_ends_the_job_and_keeps_its_past(self, ledger: Ledger) -> None:
        self.run(ledger, ("S1", "I work for Tessellate.", 0), ("S2", "I left Tessellate last week.", 60))
        assert ledger.resolve("ns", "user", "works_at").status == "miss"
        assert ledger.resolve("ns", "user", "works_at", valid_at=T + timedelta(days=30)).values == [
            "Tessellate"
        ]


class TestMorePhrasings:
    """Phrasings written after the first round, each for a pattern rather than a sentence."""

    @pytest.mark.parametrize(
        ("texts", "expected"),
        [
            (("I got a job offer from Globex and accepted it.",), ("user", "works_at", "Globex", "assert")),
            (
                ("I'm going to be a product manager at Globex.",),
                ("user", "job_title", "product manager", "assert"),
            ),
            (("I'll be joining Globex as a PM in July.",), ("user", "works_at", "Globex", "assert")),
            (
                ("I don't use that email anymore, it's jane@new.com now.",),
                ("user", "email", "jane@new.com", "assert"),
            ),
            (("Please update my email to c@d.com.",), ("user", "email", "c@d.com", "assert")),
            (
                ("We had a baby girl, Rose, in March.",),
                ("user", "has_child", "a baby girl named Rose", "assert"),
            ),
            (
                ("I'm reading a book called The Midnight Library.",),
                ("user", "reading", "The Midnight Library", "assert"),
            ),
            (("I stopped watching The Office.",), ("user", "watching", "The Office", "end")),
            (("Our trip to Iceland fell through.",), ("user", "plans_to", "Iceland", "retract")),
            (("The Japan trip got cancelled.",), ("user", "plans_to", "Japan", "retract")),
            (("I have 2 dogs and a cat.",), ("user", "has_pet", "a cat", "assert")),
            (
                ("Our second dog, Mochi, arrived last week.",),
                ("user", "has_pet", "a dog named Mochi", "assert"),
            ),
            (
                ("I live in Austin.", "We moved again, we're in Dallas now."),
                ("user", "lives_in", "Dallas", "assert"),
            ),
            (
                ("I'm planning a trip to Rome in May.", "We had to cancel Rome."),
                ("user", "plans_to", "go to Rome (May 2024)", "retract"),
            ),
            (
                ("I'm moving to Denver in June.", "Plans changed, we're staying in Austin."),
                ("user", "lives_in", "Denver", "retract"),
            ),
        ],
    )
    def test_phrasing(self, texts: tuple[str, ...], expected: tuple[str, str, str, str]) -> None:
        assert expected in facts(*texts)

    @pytest.mark.parametrize(
        "text",
        [
            "We're thinking of moving to Portland.",
            "We might move to Austin next year.",
            "I turned down the offer from Initech.",
        ],
    )
    def test_maybes_and_refusals_are_no_facts(self, text: str) -> None:
        assert facts(text) == []

    def test_a_second_verb_of_change_ends_the_first_value(self) -> None:
        got = facts("I've been vegetarian for five years but recently went vegan.")
        assert ("user", "diet", "vegetarian", "end") in got
        assert ("user", "diet", "vegan", "assert") in got
        assert not [f for f in got if f[3] == "retract"]

    def test_a_change_said_with_actually_is_not_a_correction(self) -> None:
        got = facts("I'm vegan now.", "Actually I've gone back to being vegetarian.")
        assert got == [("user", "diet", "vegan", "assert"), ("user", "diet", "vegetarian", "assert")]

    def test_a_correction_in_one_breath_still_withdraws(self) -> None:
        got = facts("Leo is 6. Sorry, Leo is 7 now, he had his birthday last week.")
        assert ("Leo", "age", "6", "retract") in got


class TestOtherPeople:
    def test_a_leading_pronoun_means_the_person_just_named(self) -> None:
        got = facts("My sister Hannah is visiting from Leeds next week. She's a primary school teacher.")
        assert ("Hannah", "job_title", "primary school teacher", "assert") in got

    def test_no_antecedent_no_fact(self) -> None:
        assert not [f for f in facts("She's a primary school teacher.") if f[1] == "job_title"]

    def test_a_companion_does_not_hide_the_subject(self) -> None:
        got = facts(
            "The wedding was beautiful. Kasia and her husband moved to Wroclaw right after.", speaker="Ola"
        )
        assert ("Kasia", "lives_in", "Wroclaw", "assert") in got


class TestEndingsAndStarts:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("We just moved into a new apartment in Brooklyn.", ("user", "lives_in", "Brooklyn", "assert")),
            ("I moved back home to Ohio.", ("user", "lives_in", "Ohio", "assert")),
            ("I'm done with keto, back to normal eating.", ("user", "diet", "keto", "end")),
            ("I stopped being vegan last month.", ("user", "diet", "vegan", "end")),
            ("I used to live in Boston.", ("user", "lives_in", "Boston", "end")),
            (
                "We welcomed our second child, a boy named Theo.",
                ("user", "has_child", "a son named Theo", "assert"),
            ),
            (
                "I'm taking Spanish classes at the community college.",
                ("user", "learning", "Spanish", "assert"),
            ),
            (
                "Oh, and I adopted another cat last month, her name is Nala.",
                ("user", "has_pet", "a cat named Nala", "assert"),
            ),
        ],
    )
    def test_phrasing(self, text: str, expected: tuple[str, str, str, str]) -> None:
        assert expected in facts(text)

    def test_temporary_stays_are_not_homes(self) -> None:
        assert facts("I'm working from Lisbon this month.") == []
        assert facts("I'm in Tokyo for work this week.") == []
