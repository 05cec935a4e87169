"""Things moved to another time: a when / which-day question is answered by the time the thing
was last moved to ("moved the deadline to 15 September", "switched from Mondays to Fridays"),
not by the first date said, except for a past period before the move, or a question asking what
came first. Sentences are written for these tests."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from said_evidence import T, said
from test_forget_phrasings import chat

from emem.agents.rescheduled import rescheduled
from emem.memory import Memory


def test_the_latest_move_answers() -> None:
    ev = said(
        "The recital is on the 12th of April.",
        "The recital got postponed to the 3rd of May, the hall flooded.",
        "Ugh, they pushed the recital back to June 7.",
    )
    assert rescheduled("When is the recital?", ev) == "June 7"


def test_it_moved_is_what_the_turn_spoke_of_before() -> None:
    ev = said(
        "Oh, and Tomás is getting married! September, in Seville.",
        "Tomás's wedding is off for September. The venue flooded. They've moved it to April next year.",
    )
    assert rescheduled("When is Tomás's wedding now?", ev, people={"Tomás"}) == "April"
    # "it" in a turn about something else is not the wedding
    other = said("Tomás's wedding is in September.", "The dentist cancelled. They've moved it to April.")
    assert rescheduled("When is Tomás's wedding now?", other, people={"Tomás"}) is None


def test_their_date_moved_is_the_date_of_the_people_asked_about() -> None:
    ev = said(
        "Ines and Bastien: the 14th of June, at Hartwell Barn.",
        "Ines and Bastien have moved their date to the 21st of June, the barn double-booked.",
    )
    people = {"Ines", "Bastien"}
    assert rescheduled("When is Ines and Bastien's wedding?", ev, people=people) == "the 21st of June"
    # their date said of other people is not the date asked about
    other = said(
        "Ines and Bastien: the 14th of June.", "Mara and Joss have moved their date to the 2nd of May."
    )
    assert rescheduled("When is Ines and Bastien's wedding?", other, people=people | {"Mara", "Joss"}) is None


def test_a_move_of_something_else_the_person_had_does_not_answer() -> None:
    ev = said("Jonas's birthday is the 3rd of May.", "The ski trip moved to March, Jonas couldn't get leave.")
    assert rescheduled("When is Jonas's birthday?", ev, people={"Jonas"}) is None


def test_a_switch_from_one_day_to_another() -> None:
    ev = said("My choir moved to Mondays.", "Choir switched from Mondays to Fridays this term.")
    assert rescheduled("Which day is my choir?", ev) == "Fridays"


def test_a_past_period_and_what_came_first_are_not_moved() -> None:
    ev = said("Pilates is on Tuesdays.", "Pilates moved to Thursdays.")
    assert rescheduled("Which day was pilates in March 2024?", ev, until=T + timedelta(days=10)) is None
    assert rescheduled("When was pilates originally?", ev) is None
    assert rescheduled("Where is pilates?", ev) is None


CONV = chat(
    (
        "2024-02-03T09:00:00+00:00",
        [
            ("user", "The grant report for Halvorsen is due on the 30th of April."),
            ("assistant", "Noted."),
        ],
    ),
    (
        "2024-04-10T18:30:00+00:00",
        [("user", "Good news, Halvorsen moved the grant report deadline to 20 May.")],
    ),
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("moved")) / "home")
    mem.add_conversation(CONV, namespace="mv")
    yield mem
    mem.close()


@pytest.mark.parametrize("mode", ("auto", "deep", "fast"))
def test_every_mode_answers_the_new_time(memory: Memory, mode: str) -> None:
    a = memory.ask("When is the grant report due?", namespace="mv", mode=mode)
    assert "20 May" in a.answer and "30th" not in a.answer, a.answer


def test_a_date_denied_beside_the_new_one_and_a_year_deferred_to(tmp_path: Path) -> None:
    """ "not in November ... May next year" and "I'm not sitting it this year. Deferring to
    2026." answer a question about now with the new time, in every mode."""
    conv = chat(
        (
            "2024-02-03T09:00:00+00:00",
            [
                ("user", "My sister's graduation is in Galway in November. I've booked the train already."),
                ("user", "I'm sitting the bar exam in August, fingers crossed."),
            ],
        ),
        (
            "2024-09-20T09:00:00+00:00",
            [
                (
                    "user",
                    "The graduation's not happening in November - the university had a fire. They're saying May next year.",
                ),
                ("user", "I'm not sitting the bar exam this year, work is mad. Deferring to 2026."),
            ],
        ),
    )
    m = Memory(tmp_path / "h")
    m.add_conversation(conv, namespace="n")
    for mode in ("auto", "fast", "deep"):
        graduation = m.ask("When is my sister's graduation now?", namespace="n", mode=mode)
        assert "May" in graduation.answer and "November" not in graduation.answer, (mode, graduation.answer)
        exam = m.ask("When will I sit the bar exam now?", namespace="n", mode=mode)
        assert "2026" in exam.answer and "August" not in exam.answer, (mode, exam.answer)
    m.close()
