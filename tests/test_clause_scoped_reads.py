"""Session 29's new-user trial: what one clause says stays with that clause. A date said in the
clause about a planned move does not date the home the user lives in now; a later clause's
pastime is read after a greedy object capture; "What instrument ...?" takes the instrument among
the pastimes; and a "where" question is not answered by a make ("a Yamaha") or a denied name."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from dated_conversations import dated_conversation

from emem.agents.reader import event_date
from emem.agents.spans import AnswerType, typed_span
from emem.answer import EvidenceItem
from emem.extract.offline import OfflineExtractor
from emem.memory import Memory
from emem.models import Turn

NS = "lena"


def _facts(text: str) -> set[tuple[str, str, str, str | None]]:
    turn = Turn(
        conversation_id="c",
        session_id="S1",
        turn_id="S1:1",
        speaker="user",
        text=text,
        time="2030-03-01T10:00:00Z",
    )
    return {
        (f.predicate, f.object, f.kind, f.valid_from.date().isoformat() if f.valid_from else None)
        for f in OfflineExtractor()([turn])
    }


def test_a_move_s_date_dates_the_new_home_not_the_present_one() -> None:
    for text in (
        "We live in Leeds for now, but we're moving to York in the summer.",
        "We live in Leeds but we're moving to York in June.",
    ):
        found = _facts(text)
        assert ("lives_in", "Leeds", "assert", None) in found, (text, found)
        assert ("lives_in", "York", "assert", "2030-06-01") in found, (text, found)
        assert not [f for f in found if f[2] == "retract"], (text, found)


def test_a_home_taken_for_a_move_still_begins_with_the_move() -> None:
    found = _facts("I'm moving up at the end of July and I've rented a flat in Partick.")
    assert [f for f in found if f[:2] == ("lives_in", "Partick")][0][3] == "2030-07-21"


def test_a_later_clause_is_read_after_a_greedy_capture() -> None:
    found = _facts("I also play the cello in a community orchestra, and I do pottery on Saturdays.")
    assert {("hobby", "cello", "assert", None), ("hobby", "pottery", "assert", None)} <= found


def test_a_make_or_a_denied_name_is_not_where() -> None:
    text = "And I bought the bike last week, but it's a Yamaha MT-07 in the end, not the Honda."
    assert typed_span(AnswerType.PLACE, text, None, set()) is None
    assert typed_span(AnswerType.PLACE, "We spent a week in Lisbon.", None, set()) == "Lisbon"


def conversation() -> dict[str, Any]:
    return dated_conversation(
        [
            (
                "2042-02-03T18:00:00+00:00",
                [
                    ("user", "I've started running again, three mornings a week."),
                    ("assistant", "That's great. Any other hobbies?"),
                    (
                        "user",
                        "I also play the cello in a community orchestra, and I do pottery on Saturdays.",
                    ),
                    ("user", "We live in Leeds for now, but we're moving to York in the summer."),
                ],
            ),
            (
                "2042-07-20T18:00:00+00:00",
                [
                    ("user", "We moved to York last week, the boxes are everywhere."),
                    ("user", "I bought a Volvo XC40 for the commute, not the Golf I wanted."),
                    ("user", "I've switched from cello to the double bass, the orchestra needed one."),
                ],
            ),
        ],
        cid="lena",
    )


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with Memory(tmp_path_factory.mktemp("lena") / "h") as mem:
        mem.add_conversation(conversation(), namespace=NS)
        yield mem


@pytest.mark.parametrize("mode", ["fast", "deep", "auto"])
@pytest.mark.parametrize(
    ("question", "expected", "absent"),
    [
        ("Where did I live in March 2042?", "Leeds", "York"),
        ("Where do I live?", "York", "Leeds"),
        ("What instrument do I play?", "double bass", "running"),
        ("What instrument did I play in March 2042?", "cello", "running"),
        ("What are my hobbies?", "pottery", "cello"),
    ],
)
def test_the_trial_questions_are_answered(
    memory: Memory, mode: str, question: str, expected: str, absent: str
) -> None:
    a = memory.ask(question, namespace=NS, mode=mode)
    assert expected in a.answer and absent not in a.answer, (mode, question, a.answer)


def test_there_points_at_the_place_the_turn_before_named() -> None:
    turns = [
        Turn(
            conversation_id="c",
            session_id="S1",
            turn_id=f"S1:{i}",
            speaker=speaker,
            text=text,
            time="2030-03-01T10:00:00Z",
        )
        for i, (speaker, text) in enumerate(
            [("Ines", "Congratulations! Will you move to Braga?"), ("Tomas", "Yes, I'll move there in May.")],
            1,
        )
    ]
    found = {(f.subject, f.predicate, f.object, f.valid_from) for f in OfflineExtractor()(turns)}
    assert [f for f in found if f[1:3] == ("lives_in", "Braga")][0][3].month == 5, found


def moving_friends() -> dict[str, Any]:
    return dated_conversation(
        [
            ("2043-01-10T19:00:00+00:00", [("Tomas", "I bake bread at a small bakery in Porto.")]),
            (
                "2043-03-02T19:00:00+00:00",
                [
                    ("Tomas", "I got the head baker job at Forno Velho in Braga!"),
                    ("Ines", "Congratulations! Will you move to Braga?"),
                    ("Tomas", "Yes, I'll move there in May."),
                ],
            ),
            (
                "2043-06-20T19:00:00+00:00",
                [("Tomas", "I'm in Braga now, the new job started two weeks ago.")],
            ),
        ],
        cid="tomas",
    )


@pytest.mark.parametrize("mode", ["fast", "deep"])
def test_a_move_said_ahead_and_confirmed_later_keeps_its_month(tmp_path: Any, mode: str) -> None:
    """The forecast ("I'll move there in May") is not replaced by the same value said again
    without a start ("I'm in Braga now"): the move's month is still May, and "I'll" reads forward."""
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(moving_friends(), namespace="t")
        a = mem.ask("When did Tomas move to Braga?", namespace="t", mode=mode)
        assert "May 2043" in a.answer, a.answer
        assert "Braga" in mem.ask("Where does Tomas live?", namespace="t", mode=mode).answer
        held = mem.resolve(
            "Tomas",
            "lives_in",
            namespace="t",
            valid_at=datetime(2043, 6, 1, tzinfo=UTC),
            known_at=datetime(2043, 7, 1, tzinfo=UTC),
        )
        assert held.values == ["Braga"], held  # the forecast month holds: it was not revoked


def test_a_reference_denied_in_the_next_words_is_put_right() -> None:
    """ "I mentioned a while ago that Rosa's a dentist. She isn't, she's a dental hygienist": the
    reference is not said again, the old value is withdrawn and the new one filed."""
    turns = [
        Turn(
            conversation_id="c",
            session_id=f"S{i}",
            turn_id=f"S{i}:1",
            speaker="user",
            text=text,
            time=f"2030-0{i}-01T10:00:00Z",
        )
        for i, text in enumerate(
            [
                "My sister Rosa lives nearby. Rosa's a dentist, so she nags me about flossing.",
                "I mentioned a while ago that Rosa's a dentist. She isn't, she's a dental hygienist at a clinic.",
            ],
            1,
        )
    ]
    found = [
        (f.subject, f.predicate, f.object, f.kind)
        for f in OfflineExtractor()(turns)
        if f.predicate == "job_title"
    ]
    assert found == [
        ("Rosa", "job_title", "dentist", "assert"),
        ("Rosa", "job_title", "dentist", "retract"),
        ("Rosa", "job_title", "dental hygienist", "assert"),
    ], found


def test_a_date_something_was_put_off_to_is_ahead() -> None:
    e = EvidenceItem(
        turn_id="S2:5",
        session_id="S2",
        conversation_id="c",
        speaker="Jo",
        time=datetime(2031, 7, 30, tzinfo=UTC),
        text="Gethin's pushed the EP to September, he's got a festival job in August.",
    )
    assert event_date(e)[0].year == 2031
