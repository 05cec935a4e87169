"""Values put right in the same breath ("starts 2 October. sorry, 3 October") are read as meant,
by shape and whatever the topic; a cue that repairs no value changes nothing; and the reader
answers from the repair while the evidence stays as said. Conversations are written for these
tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from dated_conversations import dated_conversation
from said import user_turns

from emem.agents.amounts import money_span
from emem.extract.offline import OfflineExtractor
from emem.memory import Memory
from emem.repairs import repaired


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("The recital is on 4 March. sorry, 5 March, the 4th is the dress rehearsal", "on 5 March."),
        ("Sofia's rent is £640 a month. wait, no, I checked, it's £690", "rent is £690 a month"),
        ("Swimming is on Mondays and chess on Fridays. sorry, chess is Thursdays", "chess on Thursdays"),
        ("my new number is 07123 456789. wait, no, 456798, I always swap them", "07123 456798"),
        ("Noa's the one who's vegetarian. no sorry, that's Lior, Noa eats anything", "Lior's the one"),
        ("the party is on the 12th of May. Sorry, the 19th.", "on the 19th of May"),
        ("I work Monday, Tuesday and Friday. sorry, Thursday, not Friday.", "Tuesday and Thursday"),
        ("Her birthday's the 3rd of June, no, the 13th. The 13th of June.", "the 13th of June"),
        ("The gym is £40, no, £45 a month.", "The gym is £45 a month"),
        (
            "A mandolin for a player in Nashville. No, Asheville. The Nashville one was last year.",
            "in Asheville.",
        ),
        ("My Gaelic class is on Wednesdays. Tuesdays, sorry. They moved it.", "on Tuesdays. They moved it."),
        ("A full rebuild takes me thirty hours. Forty, if I'm honest about the sanding.", "forty hours"),
        ("We've got nine boats in for winter. Ten, actually, I forgot the dinghy.", "ten boats"),
        ("I'm on the late shift every second week. Third, actually, they changed it.", "every third week"),
        # a second cue whose day is said of something else does not undo the first repair
        (
            "The exam is on the 8th of May. No, the 1st, sorry, the 8th is my mum's birthday.",
            "the 1st of May",
        ),
        # put right after a dash, in the same sentence
        (
            "We counted 42 swifts over the barn - sorry, 24, I read it backwards.",
            "We counted 24 swifts over the barn,",
        ),
        (
            "Her recital is on the 9th of June - no, the 6th of June, at seven.",
            "on the 6th of June, at seven.",
        ),
        ("The new landlord is Mr. Okafor - sorry, Mrs. Okafor.", "The new landlord is Mrs. Okafor."),
        ("My dentist is Dr. Fairbairn - no, hang on, Dr. Fairweather.", "My dentist is Dr. Fairweather."),
        # a number under twenty opening its sentence is a number, not a name
        (
            "We planted the orchard last spring. Eleven trees. Twelve, actually, the fig counts.",
            "Twelve trees",
        ),
        # "hold on" before a value that stands alone, introduced by "it's"
        (
            "The open day is on the 4th of May. Hold on, it's the 14th. The 4th is a bank holiday.",
            "the 14th of May",
        ),
        # a doubt said again is a repair; a measure is a number joined to its noun
        ("Choir practice is on Mondays. Or is it Tuesdays? Tuesdays. Mondays is yoga.", "on Tuesdays."),
        ("We rented a four-berth narrowboat on the canal. Sorry, six-berth.", "a six-berth narrowboat"),
        # "well" puts right a value said after the same preposition
        (
            "The festival runs from the 2nd to the 6th of August. Well, to the 7th of August.",
            "to the 7th of August",
        ),
        # a name with what it is of
        (
            "My essay went to the Review of Ecology. No wait, the Annals of Ecology.",
            "to the Annals of Ecology.",
        ),
        # the repair's value comes in the next sentence, after saying there was a mistake
        (
            "The gate code is 4471. Hang on, that was the old one, it changed in May. It's 4417 now.",
            "code is 4417.",
        ),
        (
            "Their puppy is called Biscuit. No, sorry, I'm muddling it, Biscuit was next door's. He's Crumpet.",
            "called Crumpet.",
        ),
        (
            "We'll be twenty at the table. Wait, no. Two cousins cancelled. Eighteen.",
            "be eighteen at the table",
        ),
    ],
)
def test_a_value_put_right_replaces_the_one_of_its_shape(said: str, meant: str) -> None:
    assert meant in repaired(said)


@pytest.mark.parametrize(
    "said",
    [
        "Sorry to hear that. I moved to Leeds on 3 May.",
        "Sorry, I forgot to say: Mia starts school on 3 September.",
        "We went to Rome in June. Sorry, Paul wants to know if you're coming.",
        "We paid £300 for the tickets. I mean, it was worth it, the band played 3 encores.",
        "No, Yarrow is on normal food, since the 3rd of May.",
        "Is it the 3rd? No, I don't think so.",
        "I asked Tom. No, Mary wasn't there.",
        "Did you see Leeds? No, Sarah went.",
        "We drove to Leeds - sorry, it rained the whole way.",
        "I've got 3 kids - no, I mean it, they're loud.",
        "Choir is on Mondays. Hold on, the Smiths are coming.",
        "Choir is on Mondays. Or is it Tuesdays? I'll check.",
        "We stayed in Porto for a week. Well, in August we might go back.",
        "We have twelve hens. Wait, no. That is wrong.",
        "We met Paul at the market. Sorry. It was raining. Tom.",
    ],
)
def test_a_cue_that_puts_no_value_right_changes_nothing(said: str) -> None:
    assert repaired(said) == said


def test_the_ledger_holds_the_value_put_right_in_the_same_sentence() -> None:
    """The extractor reads what the reader reads: "Dr. Fairbairn - no, hang on, Dr. Fairweather"
    files Dr. Fairweather, and a value of the next sentence is not taken back with it."""
    facts = [
        (f.kind, f.predicate, f.object)
        for f in OfflineExtractor()(
            user_turns("My GP is Dr. Fairbairn - no, hang on, Dr. Fairweather. Fairbairn is the locum.")
        )
    ]
    assert ("retract", "gp", "Dr. Fairbairn") in facts
    assert ("assert", "gp", "Dr. Fairweather") in facts
    assert not [f for f in facts if f[0] == "retract" and f[2] == "Fairbairn"]


def test_the_house_number_put_right_keeps_its_street() -> None:
    assert repaired("The flat is 91 Harbour Street. Sorry, 19 Harbour Street.").startswith(
        "The flat is 19 Harbour Street."
    )


def test_a_sum_is_read_from_the_clause_about_the_question() -> None:
    assert money_span("Sofia's rent is £690 a month, the deposit was £1,200", {"rent"}) == "£690 a month"
    assert money_span("We walked 5 km to the market.", {"market"}) is None


CONV = dated_conversation(
    [
        (
            "2025-02-01T09:00:00+00:00",
            [
                (
                    "user",
                    "The kids' swimming gala is on 14 March. sorry, 15 March, the 14th is a school trip.",
                ),
                ("assistant", "Gala noted."),
                ("user", "Tom's allergic to peanuts. no sorry, that's Ellie, Tom eats anything."),
                ("assistant", "Thanks."),
                ("user", "my locker at the pool is 1142. wait, no, 1124."),
                ("user", "the gala entry fee is £18 each. sorry, £12, I was thinking of last year"),
                (
                    "user",
                    "My karate grading is on the 8th of March. No, the 1st, sorry, the 8th is Tom's party.",
                ),
                ("user", "The kids' sports day is in June, weather permitting."),
                ("assistant", "Sports day in June."),
                ("user", "Sports day is on the 20th of June. No, the 27th. The 20th is the school fair."),
                ("assistant", "Sports day on the 27th."),
                (
                    "user",
                    "The school play is on the 5th of July. Hold on, it's the 12th. "
                    "The 5th is when my sister lands from Lima.",
                ),
            ],
        ),
    ],
    cid="r",
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("repairs")) / "home")
    mem.add_conversation(CONV, namespace="repairs")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ["fast", "deep"])
@pytest.mark.parametrize(
    ("question", "right", "wrong"),
    [
        ("Which of my kids is allergic to peanuts?", "Ellie", "Tom"),
        ("When is the kids' swimming gala?", "15 March", "14 March"),
        ("How much is the gala entry fee?", "£12", "£18"),
        ("When is the grading?", "1 March", "8 March"),
        ("When is the kids' sports day?", "27 June", "20 June"),
        ("When is the school play?", "12 July", "5 July"),
        # a bare day in the sentence about the question takes the month said before it
        ("When does my sister land from Lima?", "5 July", "12 July"),
    ],
)
def test_answers_come_from_the_repair(
    memory: Memory, mode: str, question: str, right: str, wrong: str
) -> None:
    answer = memory.ask(question, namespace="repairs", mode=mode)
    assert right in answer.answer and wrong not in answer.answer, answer.answer
    # the evidence stays as said
    assert any(
        cue in e.text for cue in ("no sorry", "wait, no", "sorry,", "Hold on") for e in answer.evidence
    )


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        (
            "Bins go out Monday and Thursday, sorry, Monday and Friday. Recycling is fortnightly.",
            "Bins go out Monday and Friday. Recycling is fortnightly.",
        ),
        (
            "Choir moved to Mondays. Wait, Tuesdays. Mondays the hall is booked.",
            "Choir moved to Tuesdays. Mondays the hall is booked.",
        ),
    ],
)
def test_a_list_or_a_bare_value_put_right(text: str, meant: str) -> None:
    assert repaired(text) == meant


@pytest.mark.parametrize(
    "text", ["Choir is on Mondays. Wait, Paul said Tuesday.", "Wait, Tuesday works too."]
)
def test_a_bare_wait_that_opens_a_clause_repairs_nothing(text: str) -> None:
    assert repaired(text) == text


def test_the_corrected_weekday_of_the_latest_turn_answers_now() -> None:
    from datetime import UTC, datetime

    from emem.agents.reader import weekday_answer
    from emem.answer import EvidenceItem

    def turn(tid: str, month: int, text: str) -> EvidenceItem:
        t = datetime(2025, month, 1, tzinfo=UTC)
        return EvidenceItem(
            conversation_id="c", session_id=tid[:2], turn_id=tid, speaker="user", text=text, time=t, score=1.0
        )

    said = [
        turn("S1:1", 3, "My dentist check-ups are Thursdays, after work."),
        turn("S2:1", 9, "I told you check-ups were on Thursdays. It's Tuesdays actually."),
    ]
    assert weekday_answer("Which day are my check-ups?", said, now=True) == "Tuesdays"
    assert weekday_answer("Which day were my check-ups?", said, now=False) == "Thursdays"
    moved = [
        turn("S1:1", 3, "Piano is on Mondays."),
        turn("S2:1", 5, "Ana's changed our day, from Monday to Thursday."),
    ]
    assert weekday_answer("What day is piano?", moved, now=True) == "Thursday"
    both = [turn("S1:1", 3, "Lessons are Monday and Wednesday evenings.")]
    assert weekday_answer("Which evenings are my lessons?", both, now=True) == "Monday and Wednesday"
    assert weekday_answer("Which evening is my lesson?", both, now=True) == "Monday"


def test_a_month_is_put_to_the_day_another_turn_gives() -> None:
    from datetime import UTC, datetime

    from emem.agents.reader import temporal_lookup
    from emem.answer import EvidenceItem

    def said(i: int, when: datetime, text: str) -> EvidenceItem:
        return EvidenceItem(
            conversation_id="c", session_id="S", turn_id=f"S:{i}", speaker="user", time=when, text=text
        )

    month = said(1, datetime(2024, 10, 2, tzinfo=UTC), "I'm sitting the sergeant's exam in January.")
    day = said(2, datetime(2024, 12, 10, tzinfo=UTC), "The exam is on the 29th of January, 9am.")
    assert temporal_lookup("When was my sergeant's exam?", [month, day]) == "29 January 2025"
    assert temporal_lookup("When is my sergeant's exam?", [month, day]) == "29 January 2025"
    other = said(3, datetime(2024, 12, 10, tzinfo=UTC), "My dentist is on the 3rd of March.")
    assert temporal_lookup("When was my sergeant's exam?", [month, other]) == "January 2025"
