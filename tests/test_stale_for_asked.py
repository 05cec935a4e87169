"""A turn is stale for what the question asks, not for everything it says: a turn telling of a job
that later ended still says where its speaker lived then (`stale_revisions` with the plan's
predicates); a turn telling nothing of the asked predicates is stale only when nothing it told
still holds ("I drive the 42 bus and I live in Torry" still says which bus after a move). Values
here are written for this test."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dated_conversations import dated_conversation

from emem import Memory
from emem.agents.currentness import stale_revisions
from emem.answer import EvidenceItem

T = datetime(2024, 4, 1, tzinfo=UTC)


def rev(rid: str, predicate: str) -> Any:
    return SimpleNamespace(
        id=rid,
        subject="user",
        subject_key="user",
        predicate=predicate,
        object=rid,
        surface="",
        valid_to=None,
        known_from=T,
    )


def test_only_the_asked_predicates_make_a_turn_stale() -> None:
    turn = EvidenceItem(
        conversation_id="c",
        turn_id="t1",
        session_id="s",
        speaker="user",
        time=T,
        text="I'm leaving the bakery, and I'm staying in my flat in Ostend.",
        score=0.5,
    )
    sources = {"c/t1": [rev("job", "works_at"), rev("home", "lives_in")]}
    held = {"works_at": [], "lives_in": [rev("home", "lives_in")]}

    def resolve(subject: str, predicate: str) -> Any:
        return SimpleNamespace(revisions=held[predicate], status="state" if held[predicate] else "miss")

    # asked nothing of either: the home it tells of still holds, so it is not stale
    assert stale_revisions([turn], sources, resolve) == {}
    assert stale_revisions([turn], sources, resolve, ["lives_in"]) == {}
    assert "c/t1" in stale_revisions([turn], sources, resolve, ["works_at"])
    # a turn telling nothing of what is asked is judged by all it says
    assert "c/t1" in stale_revisions([turn], {"c/t1": [rev("job", "works_at")]}, resolve, ["lives_in"])
    # nothing it told holds any more: stale, whatever is asked
    gone = {"c/t1": [rev("job", "works_at"), rev("old-home", "lives_in")]}
    assert "c/t1" in stale_revisions([turn], gone, resolve)
    assert "c/t1" in stale_revisions([turn], gone, resolve, ["has_pet"])


def test_a_turn_whose_facts_ended_still_tells_what_no_fact_was_read_from() -> None:
    def told(text: str, predicate: str, surface: str) -> tuple[EvidenceItem, list[Any]]:
        turn = EvidenceItem(
            conversation_id="c", turn_id="t1", session_id="s", speaker="user", time=T, text=text, score=0.5
        )
        said = rev("said", predicate)
        said.surface = surface
        ended = rev("ended", predicate)
        ended.object, ended.surface, ended.valid_to = "said", surface, T  # the same value, ended
        return turn, [said, ended]

    def resolve(subject: str, predicate: str) -> Any:
        return SimpleNamespace(revisions=[], status="state")

    # the dog died; the class said beside it was filed as nothing, and still holds
    dog = "Also we have a basset hound called Filou."
    turn, revs = told(
        f"Pottery, mostly. I go to a class at Atelier Terre every Tuesday. {dog}", "has_pet", dog
    )
    assert stale_revisions([turn], {"c/t1": revs}, resolve) == {}
    # what was said around a plan called off goes with it
    trip = "Morag and I are going to Japan in April."
    turn, revs = told(f"{trip} Two weeks, Kyoto and Tokyo.", "plans_to", trip)
    assert "c/t1" in stale_revisions([turn], {"c/t1": revs}, resolve)
    # a value replaced (not ended) takes the turn along
    turn, revs = told(f"{dog} The bus into town takes forty minutes.", "has_pet", dog)
    assert "c/t1" in stale_revisions([turn], {"c/t1": revs[:1]}, resolve)


def test_a_turn_with_one_fact_superseded_still_answers_the_others(tmp_path: Any) -> None:
    from test_forget_phrasings import chat

    from emem.memory import Memory

    conv = chat(
        (
            "2025-02-03T19:00:00+00:00",
            [
                ("user", "I drive the number 42 bus in Aberdeen and I live in Torry with my partner Anders."),
                ("assistant", "Two of you and a bus route, busy life."),
            ],
        ),
        (
            "2025-09-10T19:00:00+00:00",
            [("user", "We've moved out of Torry, we've got a little house in Cults now.")],
        ),
    )
    with Memory(tmp_path / "h") as m:
        m.add_conversation(conv, namespace="bus")
        for mode in ("auto", "deep", "fast"):
            bus = m.ask("What bus do I drive?", namespace="bus", mode=mode)
            assert "42" in bus.answer, (mode, bus.answer)
            home = m.ask("Where do I live now?", namespace="bus", mode=mode)
            assert "Cults" in home.answer and "Torry" not in home.answer, (mode, home.answer)


def test_a_place_left_in_one_sentence_and_replaced_in_the_next(tmp_path: Path) -> None:
    # no ledger value for where Ffion works; the latest turn drops the old place and names the new
    conv = dated_conversation(
        [
            (
                "2025-01-14T19:00:00Z",
                [("user", "My wife Ffion is a physio, three days a week at a clinic in Penarth.")],
            ),
            (
                "2025-03-22T19:00:00Z",
                [
                    (
                        "user",
                        "Correction to something I told you: Ffion works four days a week in Penarth, not three.",
                    )
                ],
            ),
            (
                "2025-09-30T19:00:00Z",
                [
                    (
                        "user",
                        "And Ffion has left the clinic in Penarth. She's doing her four days at a practice in Barry now.",
                    )
                ],
            ),
        ],
        cid="ffion",
    )
    with Memory(tmp_path) as m:
        m.add_conversation(conv, namespace="home")
        for mode in ("auto", "fast", "deep"):
            answer = m.ask("Where does Ffion work now?", namespace="home", mode=mode)
            assert "Barry" in answer.answer and "Penarth" not in answer.answer, (mode, answer.answer)
