"""Who holds a role for the speaker (emem.extract.roles): each role its own single-valued open
predicate, so a new holder supersedes the old one, as-of questions get the holder then, and a
role nobody mentioned is not an error. Conversations written for these tests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from dated_conversations import dated_conversation

from emem import Memory
from emem.agents.planner import offline_plan
from emem.extract.offline import split_sentences
from emem.extract.roles import asked_roles, role_predicate, roles
from emem.models import Turn

T = datetime(2025, 4, 10, 12, tzinfo=UTC)


def held(text: str, speaker: str = "user") -> list[tuple[str, str, str, str | None]]:
    turn = Turn(conversation_id="c", session_id="s", turn_id="t", speaker=speaker, text=text, time=T)
    return [
        (f.subject, f.predicate, f.object, f.valid_from.date().isoformat() if f.valid_from else None)
        for f in roles(turn, lambda s: s, [text[s:e] for s, e in split_sentences(text)])
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My therapist is Dr Oyelowo, she's great.", [("user", "therapist", "Dr Oyelowo", None)]),
        ("Our landlord is Mr Petrakis.", [("user", "landlord", "Mr Petrakis", None)]),
        (
            "Sunniva has been my line manager since 3 March.",
            [("user", "line_manager", "Sunniva", "2025-03-03")],
        ),
        (
            "Bartholomew steps up to head chef from the 1st of June.",
            [("user", "head_chef", "Bartholomew", "2025-06-01")],
        ),
        ("We've hired a new sous, Ottilie, from a bistro in Hull.", [("user", "sous_chef", "Ottilie", None)]),
        ("Our new GP is Dr Achterberg.", [("user", "gp", "Dr Achterberg", None)]),
        ("Ainsley's head gardener now, since Boris retired.", [("user", "head_gardener", "Ainsley", None)]),
        (
            "A woman called Perpetua Okafor is taking over as site supervisor.",
            [("user", "supervisor", "Perpetua Okafor", None)],
        ),
        (  # a takeover ahead starts when the turn says (T is 10 April 2025)
            "Hal retires in June. Marisol is taking over as head gardener.",
            [("user", "head_gardener", "Marisol", "2025-06-01")],
        ),
        (
            "We've got a new conductor from March, Benedikta Soltau.",
            [("user", "conductor", "Benedikta Soltau", None)],
        ),
    ],
)
def test_a_role_holder_said_in_several_ways(text: str, expected: list) -> None:
    assert held(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "My sister is a nurse.",
        "My old boss is Dana, we still get coffee.",
        "My coach isn't Kwame any more.",
        "Is my coach Kwame?",
        "Tomasz is a teacher.",
        "Your mentor is Ilse.",
        "The doctor is Monday.",
        "Tom's boss is awful.",
        "Tom's manager rang.",
    ],
)
def test_not_a_role_held_now(text: str) -> None:
    assert held(text) == []


def test_role_names() -> None:
    assert role_predicate("PhD supervisor") == "supervisor"
    assert role_predicate("running coach") == "coach"
    assert role_predicate("head chef") == "head_chef"
    assert role_predicate("new sous") == "sous_chef"
    assert asked_roles("Who was my running coach in April 2025?") == ["coach"]
    assert asked_roles("Who supervises my thesis?") == ["supervisor"]
    assert asked_roles("Who is the best teacher?") == []
    assert asked_roles("Who teaches my Japanese class now?") == ["teacher"]
    assert asked_roles("Who directs the Calder Singers?") == ["director"]
    assert asked_roles("Who is my sister?") == []
    assert (
        offline_plan("Who's the head chef at my restaurant?", subjects=["user"]).predicates[0] == "head_chef"
    )


def conversation() -> dict:
    return dated_conversation(
        [
            (
                "2025-01-12T10:00:00Z",
                [
                    ("user", "I'm a junior at a design studio. My manager is Leopoldine, she's strict."),
                    ("assistant", "Leopoldine is your manager. Noted."),
                    ("user", "Our landlord is Mr Petrakis, he never fixes anything."),
                ],
            ),
            (
                "2025-05-20T10:00:00Z",
                [
                    ("user", "Restructure at work! Casimir has been my manager since 1 May."),
                    ("assistant", "Casimir is your manager from 1 May."),
                ],
            ),
        ],
        cid="r1",
    )


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory):
    m = Memory(Path(tmp_path_factory.mktemp("roles")))
    m.add_conversation(conversation(), namespace="studio")
    yield m
    m.close()


@pytest.mark.parametrize("mode", ["auto", "fast", "deep"])
def test_the_holder_now_and_then(memory: Memory, mode: str) -> None:
    now = memory.ask("Who is my manager?", namespace="studio", mode=mode)
    assert "Casimir" in now.answer and "Leopoldine" not in now.answer
    then = memory.ask("Who was my manager in March 2025?", namespace="studio", mode=mode)
    assert "Leopoldine" in then.answer and "Casimir" not in then.answer
    as_of = memory.ask("Who is my manager?", namespace="studio", mode=mode, as_of="2025-04-01T00:00:00Z")
    assert "Leopoldine" in as_of.answer


def test_a_role_asked_of_a_place_is_its_holder_in_the_namespace(tmp_path: Path) -> None:
    # "Who directs the Calder Singers?" names a choir the ledger knows nothing of; the director
    # the speaker told of is the holder
    conv = dated_conversation(
        [
            (
                "2025-01-12T10:00:00Z",
                [
                    ("user", "I sing with the Calder Singers. Our director is Mr Pennyfeather."),
                    ("assistant", "Mr Pennyfeather directs the Calder Singers."),
                ],
            ),
            (
                "2025-05-20T10:00:00Z",
                [("user", "Choir news: we've got a new director from June, Ilse Brandauer.")],
            ),
        ],
        cid="r2",
    )
    with Memory(tmp_path) as m:
        m.add_conversation(conv, namespace="choir")
        for mode in ("auto", "fast", "deep"):
            answer = m.ask("Who directs the Calder Singers now?", namespace="choir", mode=mode)
            assert "Brandauer" in answer.answer and "Pennyfeather" not in answer.answer, (mode, answer.answer)


def test_a_role_never_mentioned_is_not_an_error(memory: Memory) -> None:
    answer = memory.ask("Who is my dentist?", namespace="studio", mode="auto")
    assert answer.status == "abstained"
