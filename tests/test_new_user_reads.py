"""What a new user's conversation needs read right: a date keeps only the parts said, and work
said by its activity files an employer."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dated_conversations import Session, dated_conversation

from emem.agents.reader import stated_label
from emem.extract.dates import find_date_mentions
from emem.memory import Memory

NS = "newuser"
REF = datetime(2025, 9, 20, 12, tzinfo=UTC)


def mention(text: str) -> Any:
    return find_date_mentions(text, REF, "future")[0]


def test_a_date_without_a_year_is_given_without_one() -> None:
    assert stated_label(mention("the party is on 14 August")) == "14 August"
    assert stated_label(mention("the party is on the 3rd of November")) == "3 November"
    assert "2026" in stated_label(mention("the party is on 14 August 2026"))
    # A relative date says which day it is: its year is known.
    assert "2025" in stated_label(mention("the party is next Friday"))


def chat(*sessions: Session) -> dict[str, Any]:
    return dated_conversation(list(sessions), cid="nu")


def test_a_corrected_birthday_comes_back_without_an_invented_year(tmp_path: Path) -> None:
    conv = chat(
        ("2025-02-03T09:00:00+00:00", [("user", "Hello! I'm Joaquim, my birthday's on 4 August.")]),
        (
            "2025-03-10T09:00:00+00:00",
            [("user", "Small fix: my birthday is 14 August, not 4 August."), ("assistant", "Got it.")],
        ),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        for mode in ("fast", "deep"):
            a = mem.ask("When is my birthday?", namespace=NS, mode=mode)
            assert "14 August" in a.answer, (mode, a.answer)
            assert "2025" not in a.answer and "2026" not in a.answer, (mode, a.answer)


def test_work_said_by_activity_files_the_employer(tmp_path: Path) -> None:
    conv = chat(
        (
            "2024-01-15T09:00:00+00:00",
            [("user", "I teach geography at Colegio Brisa, mostly the older kids.")],
        ),
        (
            "2025-01-20T09:00:00+00:00",
            [("user", "New chapter: I've started a job at Atlas Maps as a cartographer.")],
        ),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        mem.consolidate(NS)
        past = mem.resolve("user", "works_at", valid_at="2024-06-01T00:00:00+00:00", namespace=NS)
        assert past.values == ["Colegio Brisa"], past
        a = mem.ask("Where did I work?", namespace=NS, as_of="2024-06-01T00:00:00+00:00", mode="fast")
        assert a.status == "answered" and "Colegio Brisa" in a.answer, a.answer


def test_a_title_taken_up_ahead_is_current_from_its_start(tmp_path: Path) -> None:
    conv = chat(
        (
            "2025-01-12T19:00:00+00:00",
            [("user", "Hi, I'm Ilka. I work as a sound technician at the Gewandhaus.")],
        ),
        (
            "2025-03-20T19:00:00+00:00",
            [("user", "And I start at the Elbphilharmonie as head of audio next month.")],
        ),
        ("2025-06-02T19:00:00+00:00", [("user", "The new job is great so far.")]),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        for mode in ("auto", "fast", "deep"):
            a = mem.ask("What's my job title?", namespace=NS, mode=mode)
            assert a.answer == "head of audio", (mode, a.answer)
            before = mem.ask(
                "What's my job title?", namespace=NS, mode=mode, as_of="2025-03-25T00:00:00+00:00"
            )
            assert before.answer == "sound technician", (mode, before.answer)


def test_what_is_read_now_after_a_finished_book_is_the_title(tmp_path: Path) -> None:
    conv = chat(
        ("2025-01-12T19:00:00+00:00", [("user", "I'm reading The Overstory at the moment.")]),
        ("2025-03-20T19:00:00+00:00", [("user", "Finished The Overstory, now reading Piranesi.")]),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        for mode in ("auto", "fast", "deep"):
            assert mem.ask("What am I reading?", namespace=NS, mode=mode).answer == "Piranesi", mode


def test_the_days_something_moved_to_are_the_days_asked_for_now(tmp_path: Path) -> None:
    conv = chat(
        (
            "2036-01-08T08:00:00+00:00",
            [("user", "I'm training for a triathlon. I swim on Tuesdays and Thursdays.")],
        ),
        (
            "2036-03-02T08:00:00+00:00",
            [("user", "Swimming moved to Mondays and Wednesdays, the pool changed its timetable.")],
        ),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        for mode in ("auto", "fast", "deep"):
            now = mem.ask("Which days do I swim?", namespace=NS, mode=mode)
            assert now.answer == "Mondays and Wednesdays", (mode, now.answer)
            then = mem.ask(
                "Which days do I swim?", namespace=NS, mode=mode, as_of="2036-02-01T00:00:00+00:00"
            )
            assert then.answer == "Tuesdays and Thursdays", (mode, then.answer)
        # a day moved to is no home, and "Swimming" is nobody
        assert mem.resolve("Swimming", "lives_in", namespace=NS).status == "miss"


def test_who_a_partner_is_answers_the_name(tmp_path: Path) -> None:
    conv = chat(
        ("2025-02-03T09:00:00+00:00", [("user", "Hi! I'm Nadia, a vet in Leeds, and my husband is Omar.")])
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        for mode in ("fast", "deep"):
            a = mem.ask("Who is my husband?", namespace=NS, mode=mode)
            assert a.answer == "Omar", (mode, a.answer)
