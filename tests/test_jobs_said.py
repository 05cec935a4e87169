"""A new job said by the employer's name ("I took the Ostler job"), by what one does for it ("I'm
driving for Parcelway now"), or as an offer its holder starts; "Who do I work for?" answered by
the ledger's employer; and "I've left X" ending what a still-question asks about."""

from __future__ import annotations

import pytest
from said import extracted, spoken

from emem.agents.spans import AnswerType, answer_type
from emem.agents.yesno import yes_no


def _facts(*texts: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in extracted(*texts, predicate="works_at")}


@pytest.mark.parametrize(
    ("said", "employer"),
    [
        ("Guess what, I took the Brannock job, I start on Monday.", "Brannock"),
        ("She said yes! I got the Harwell Ensemble job.", "Harwell Ensemble"),
        ("I'm delivering for Zipcart these days.", "Zipcart"),
        ("I'm trucking, well, hauling nights for Deverell Freight out of Leeds.", "Deverell Freight"),
        ("I've been offered head gardener at Ashcombe Hall. I start in May.", "Ashcombe Hall"),
        ("I've taken a job in the payroll team at Morrow Logistics. I start in June.", "Morrow Logistics"),
        # an aside between dashes does not hide where the job is
        (
            "I'm a cooper - I make barrels, mostly for whisky - at Speyburn Cooperage in Craigellachie.",
            "Speyburn Cooperage",
        ),
        ("Starting at Halden Freight on Monday.", "Halden Freight"),
    ],
)
def test_a_new_job_said_by_the_employers_name(said: str, employer: str) -> None:
    assert ("works_at", employer) in _facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "I took the Lisbon job! Moved to Lisbon on Friday.",  # a place, said as a place
        "I got the ICU job, starting on intensive care in April.",  # a unit's initials
        "I've been offered a job at Kestrel Labs but I turned it down.",  # an offer never started
        "I'm a member at Riverside Gym now.",  # a word with an agent ending that is no trade
        "I'm a regular at the Crown and Anchor.",
        "I'm at home now, as a matter of fact.",
        "Starting Middlemarch tonight, it's enormous.",  # a book begun, not a job
        "Passed Welsh level 1! Starting Level 2 in the autumn.",
    ],
)
def test_what_is_no_employer_is_not_filed_as_one(said: str) -> None:
    assert _facts(said) == set()


def test_who_one_works_or_drives_for_asks_for_an_employer() -> None:
    assert answer_type("Who do I work for?") is AnswerType.PROPER
    assert answer_type("Who does Lena drive for now?") is AnswerType.PROPER
    assert answer_type("Who does Lena live with?") is not AnswerType.PROPER


def test_ive_left_ends_what_a_still_question_asks_about() -> None:
    evidence = [
        spoken("I do two days at the library in Frome.", 1),
        spoken("I've left the library, finally.", 9),
    ]
    assert yes_no("Does Kit still work at the library?", evidence) == "No: I've left the library, finally."


@pytest.mark.parametrize(
    ("plan", "ended", "question"),
    [
        (
            "I'm thinking of an allotment by the river.",
            "I've given up on the allotment idea.",
            "Am I still getting an allotment?",
        ),
        (
            "I've started a book club at work.",
            "The book club has ended, nobody came.",
            "Is the book club still going?",
        ),
        (
            "I'm playing the Leeds gig in May.",
            "I've had to drop the Leeds gig, it clashes.",
            "Am I still playing the Leeds gig?",
        ),
        (
            "Gwil works for me as a labourer.",
            "Gwil's gone to work on the wind farm, better money.",
            "Is Gwil still working for me?",
        ),
    ],
)
def test_what_ends_a_plan_answers_a_still_question_no(plan: str, ended: str, question: str) -> None:
    assert yes_no(question, [spoken(plan, 1)]) == f"Yes: {plan}"
    assert yes_no(question, [spoken(plan, 1), spoken(ended, 9)]) == f"No: {ended}"


@pytest.mark.parametrize(
    ("said", "employer"),
    [
        ("I'm a boat electrician, I rewire yachts for Quayline Marine in Falmouth.", "Quayline Marine"),
        ("I service boilers for Hearth & Home now.", "Hearth & Home"),
    ],
)
def test_work_said_by_the_trade_done_for_an_employer(said: str, employer: str) -> None:
    assert ("works_at", employer) in _facts(said)


def test_a_favour_done_for_someone_is_no_employer() -> None:
    assert _facts("I fix bikes for my nephew at weekends.") == set()


@pytest.mark.parametrize(
    ("said", "start"),
    [
        # said on 1 March 2025: "I start on the 1st of May" is this May, not last May
        ("I've accepted a head chef job at The Gannet, I start on the 1st of May.", (2025, 5, 1)),
        ("I took the Ostler job, we begin in June.", (2025, 6, 1)),
    ],
)
def test_a_start_said_in_the_present_lies_ahead(said: str, start: tuple[int, int, int]) -> None:
    (fact,) = extracted(said, predicate="works_at")
    assert fact.valid_from is not None
    assert (fact.valid_from.year, fact.valid_from.month, fact.valid_from.day) == start


def test_the_post_named_before_job_is_the_title() -> None:
    said = "I've accepted a head chef job at The Gannet, I start on the 1st of May."
    assert [f.object for f in extracted(said, predicate="job_title")] == ["head chef"]
    assert extracted("I took a night job at Brindle's.", predicate="job_title") == []


@pytest.mark.parametrize(
    ("said", "who", "employer"),
    [
        (
            "Lukas has gone out on his own. He left Dunmore Electric in May and registered his own "
            "company, Brandt Electrical.",
            "Lukas",
            "Brandt Electrical",
        ),
        (
            "I left Ember Glass. I'm running my own studio. I'm calling it Slow Fire Studio.",
            "user",
            "Slow Fire Studio",
        ),
        (
            "I'm opening my own practice, Moss Hearing and Balance, in Frankfort.",
            "user",
            "Moss Hearing and Balance",
        ),
        (
            "Big news: I've left Brightsmile. I'm with Coastal Dental Outreach now.",
            "user",
            "Coastal Dental Outreach",
        ),
        (
            "I'm starting my own small-batch coffee roastery, Ember Hill Roasters, in Whitby.",
            "user",
            "Ember Hill Roasters",
        ),
        (
            "Job news: the museum contract ended, I'm at the Canal Trust now, as a lock keeper.",
            "user",
            "the Canal Trust",
        ),
        ("I'm a saddler, bench saddler, at Tanner & Vane in Walsall.", "user", "Tanner & Vane"),
        (
            "I'm the head cheesemaker at the Greenbank Dairy Cooperative in Monroe.",
            "user",
            "the Greenbank Dairy Cooperative",
        ),
    ],
)
def test_a_business_of_ones_own_or_a_firm_one_is_with(said: str, who: str, employer: str) -> None:
    assert (who, employer) in {(f.subject, f.object) for f in extracted(said, predicate="works_at")}


@pytest.mark.parametrize(
    "said",
    [
        "I left Tom. I'm with Jamie Fraser now.",  # a person, not a firm
        "I'm calling it Slow Fire Studio.",  # a name, but nothing set up before it
    ],
)
def test_being_with_someone_or_naming_something_is_no_job(said: str) -> None:
    assert [f for f in extracted(said, predicate="works_at") if f.kind == "assert"] == []


@pytest.mark.parametrize(
    ("said", "title"),
    [
        ("I'm chief electrician at Halyard Yachts now.", "chief electrician"),
        ("I'm a senior nurse at St Mary's.", "senior nurse"),
        ("Work news, I've been made team leader at Donnybrook.", "team leader"),
        ("Guess what, I've been made deputy head at Fernside.", "deputy head"),
        # the employer named with "the" before the title said after it
        ("New job! I've started at the Royal Infirmary as a ward clerk.", "ward clerk"),
        ("I joined the Kelburn Trust as a project officer in May.", "project officer"),
        # the title after a job taken at the employer
        ("I've accepted a job at the Natural History Museum as a curator, starting in May.", "curator"),
        ("I've taken a post with Ofsted as an inspector.", "inspector"),
    ],
)
def test_a_rank_is_part_of_the_title_and_a_post_given_is_one(said: str, title: str) -> None:
    assert [f.object for f in extracted(said, predicate="job_title")] == [title]


@pytest.mark.parametrize("said", ["I've been made redundant.", "I've been made an offer by Kestrel Labs."])
def test_being_made_something_else_is_no_post(said: str) -> None:
    assert extracted(said, predicate="job_title") == []


@pytest.mark.parametrize(
    ("said", "title", "employer", "start"),
    [
        # said on 1 March 2025
        (
            "And I start at the Elbphilharmonie as head of audio next month.",
            "head of audio",
            "the Elbphilharmonie",
            (2025, 4, 1),
        ),
        ("I'll be joining Acme as a senior engineer in May.", "senior engineer", "Acme", (2025, 5, 1)),
        ("I'll be starting at Marrow as sous chef on the 3rd.", "sous chef", "Marrow", (2025, 3, 3)),
        ("From June I'll be working as a nurse at St Luke's.", "nurse", "St Luke's", (2025, 6, 1)),
        (
            "Next week I start my new job as a data analyst at Brightwell.",
            "data analyst",
            "Brightwell",
            (2025, 3, 3),
        ),
    ],
)
def test_a_job_ahead_files_its_title_and_employer_from_its_start(
    said: str, title: str, employer: str, start: tuple[int, int, int]
) -> None:
    for predicate, value in (("job_title", title), ("works_at", employer)):
        (fact,) = extracted(said, predicate=predicate)
        assert fact.object == value
        assert fact.valid_from is not None
        assert (fact.valid_from.year, fact.valid_from.month, fact.valid_from.day) == start


@pytest.mark.parametrize(
    "said",
    [
        "I start at 9 as usual.",
        "I'll be working as hard as I can.",
        "I start my new job tomorrow.",
        "She will be joining us as a guest.",
    ],
)
def test_what_starts_but_names_no_post_files_no_title(said: str) -> None:
    assert extracted(said, predicate="job_title") == []


def test_new_is_no_part_of_a_title() -> None:
    said = "I'm going to be the new head chef at Ortolan."
    assert [f.object for f in extracted(said, predicate="job_title")] == ["head chef"]
