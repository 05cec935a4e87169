"""What the ledger knows reaches every answer, in every mode, with no manual consolidate."""

from __future__ import annotations

from pathlib import Path

import pytest

from emem import Memory
from emem.agents.currentness import question_time, rank_for_state
from emem.agents.planner import offline_plan
from emem.agents.spans import AnswerType, answer_span, answer_type
from emem.answer import EvidenceItem

NS = "dana"
MODES = ("auto", "fast", "deep")


def conversation() -> dict:
    return {
        "conversation_id": "c1",
        "sessions": [
            {
                "session_id": "S1",
                "time": "2024-01-10T18:00:00Z",
                "turns": [
                    {
                        "turn_id": "S1:1",
                        "speaker": "Dana",
                        "text": "I live in Denver and I teach piano to kids.",
                    },
                    {"turn_id": "S1:2", "speaker": "Sam", "text": "Denver must be lovely in winter."},
                    {"turn_id": "S1:3", "speaker": "Dana", "text": "It is! I've been learning guitar too."},
                ],
            },
            {
                "session_id": "S2",
                "time": "2024-05-02T18:00:00Z",
                "turns": [
                    {"turn_id": "S2:1", "speaker": "Sam", "text": "How was the big weekend?"},
                    {
                        "turn_id": "S2:2",
                        "speaker": "Dana",
                        "text": "Look what I made in pottery class!",
                        "image_caption": "a photo of a green ceramic vase on a shelf",
                    },
                ],
            },
        ],
    }


MOVE = [
    {
        "conversation_id": "c1",
        "session_id": "S3",
        "turn_id": "S3:1",
        "speaker": "Dana",
        "text": "We moved to Portland last month, I live in Portland now.",
        "time": "2024-09-01T10:00:00Z",
    }
]


@pytest.fixture()
def memory(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "h")
    m.add_conversation(conversation(), namespace=NS)
    return m


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_answers_the_current_value_without_a_manual_consolidate(memory: Memory, mode: str) -> None:
    assert memory.ask("Where does Dana live?", namespace=NS, mode=mode).answer == "Denver"
    memory.add_turns(MOVE, namespace=NS)
    a = memory.ask("Where does Dana live?", namespace=NS, mode=mode)
    assert a.answer == "Portland" and a.status == "answered"
    assert any(f.predicate == "lives_in" and f.values == ["Portland"] for f in a.facts)
    # The turn stating the old value is shown as history, never as the current value.
    assert all(e.role != "current-value" for e in a.evidence if e.turn_id == "S1:1")


def test_the_first_read_after_a_write_projects_it_and_says_what_it_cost(memory: Memory) -> None:
    memory.ask("Where does Dana live?", namespace=NS)
    memory.add_turns(MOVE, namespace=NS)
    a = memory.ask("Where does Dana live now?", namespace=NS, mode="fast")
    assert "consolidate" in a.stage_latency_ms
    again = memory.ask("Where does Dana live now?", namespace=NS, mode="fast")
    assert "consolidate" not in again.stage_latency_ms  # nothing pending: no work
    assert memory.resolve("Dana", "lives_in", namespace=NS).values == ["Portland"]


def test_consolidate_on_read_can_be_turned_off(tmp_path: Path) -> None:
    m = Memory(tmp_path / "h", consolidate_on_read=False)
    m.add_conversation(conversation(), namespace=NS)
    assert m.resolve("Dana", "lives_in", namespace=NS).status == "miss"
    m.consolidate(NS)
    assert m.resolve("Dana", "lives_in", namespace=NS).values == ["Denver"]


@pytest.mark.parametrize("mode", MODES)
def test_as_of_and_a_dated_question_read_the_past(memory: Memory, mode: str) -> None:
    memory.add_turns(MOVE, namespace=NS)
    assert (
        memory.ask("Where does Dana live?", namespace=NS, mode=mode, as_of="2024-06-01T00:00:00Z").answer
        == "Denver"
    )
    assert memory.ask("Where did Dana live before Portland?", namespace=NS, mode=mode).answer == "Denver"


@pytest.mark.parametrize("mode", MODES)
def test_type_checked_abstention_and_image_captions(memory: Memory, mode: str) -> None:
    brand = memory.ask("What brand is Dana's guitar?", namespace=NS, mode=mode)
    assert brand.status == "abstained" and brand.answer.startswith("I don't know")
    made = memory.ask("What did Dana make in pottery class?", namespace=NS, mode=mode)
    assert made.status == "answered" and "ceramic vase" in made.answer


def test_auto_says_why_the_ledger_decides(memory: Memory) -> None:
    a = memory.ask("Where does Dana live now?", namespace=NS, mode="auto")
    assert "current state" in a.mode_reason


def test_planner_reads_present_tense_as_current_and_dates_as_past() -> None:
    assert offline_plan("Where does Dana live?", ["Dana"]).needs_current
    assert not offline_plan("Where did Dana live in 2023?", ["Dana"]).needs_current
    assert offline_plan("Where did Dana live before Portland?", ["Dana"]).asks_previous
    assert offline_plan("What was Dana's old job?", ["Dana"]).asks_previous
    # "How old" asks an age, not what came before: Dana turned 9 after being 8.
    assert not offline_plan("How old is Dana?", ["Dana"]).asks_previous
    # The current value named only to ask for the one it replaced.
    before = offline_plan("Where did Dana work before her current job?", ["Dana"])
    assert before.asks_previous and not before.needs_current
    # Where someone is from, and where they teach, are ledger facts too.
    assert offline_plan("Where does Dana come from?", ["Dana"]).predicates[0] == "hometown"
    assert "works_at" in offline_plan("Which school did Dana teach at?", ["Dana"]).predicates
    plan = offline_plan("What is Dana's job title?", ["Dana"])
    assert plan.predicates[0] == "job_title"


def test_question_time_reads_a_period_at_its_middle() -> None:
    from datetime import UTC, datetime

    plan = offline_plan("Where did Dana live in March 2024?", ["Dana"], datetime(2024, 9, 1, tzinfo=UTC))
    valid_at, known_at = question_time(plan, None)
    assert valid_at is not None and valid_at.month == 3 and valid_at.day in (16, 17) and known_at is None


def _item(tid: str, day: int, score: float) -> EvidenceItem:
    from datetime import UTC, datetime

    return EvidenceItem(
        turn_id=tid,
        session_id="S",
        conversation_id="c",
        speaker="A",
        time=datetime(2024, 1, day, tzinfo=UTC),
        text=tid,
        score=score,
    )


def test_rank_for_state_moves_stale_turns_last_and_prefers_the_latest_near_ties() -> None:
    old, new, stale = _item("old", 1, 0.50), _item("new", 9, 0.47), _item("stale", 5, 0.9)
    ranked = rank_for_state([old, new, stale], {"c/stale": [("rev", "res")]}, prefer_latest=True)  # type: ignore[list-item]
    assert [e.turn_id for e in ranked] == ["new", "old", "stale"]
    assert ranked[-1].role == "superseded-value"
    assert [e.turn_id for e in rank_for_state([old, new], {}, prefer_latest=False)] == ["old", "new"]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is the user's phone number?", AnswerType.PHONE),
        ("Where does she live?", AnswerType.PLACE),
        ("What brand is his guitar?", AnswerType.PROPER),
        ("What is the name of her cat?", AnswerType.NAME),
        ("What did Ana make at the workshop?", AnswerType.OBJECT),
        ("What does Ana like?", AnswerType.OTHER),
    ],
)
def test_answer_types(question: str, kind: AnswerType) -> None:
    assert answer_type(question) is kind


def test_spans_are_typed_or_marked_unspecific() -> None:
    assert (
        answer_span(
            "What is my number?", AnswerType.PHONE, "Call me on 555-201-3344 anytime.", None, set()
        ).text
        == "555-201-3344"
    )
    assert (
        answer_span(
            "What is her cat called?", AnswerType.NAME, "We adopted a cat named Biscuit.", None, set()
        ).text
        == "Biscuit"
    )
    unspecific = answer_span(
        "What brand is his guitar?", AnswerType.PROPER, "I've been learning guitar.", None, set()
    )
    assert not unspecific.specific


def test_a_forget_request_said_in_conversation_is_honoured_by_every_read(tmp_path: Path) -> None:
    m = Memory(tmp_path / "h")
    m.add_conversation(
        {"conversation_id": "u1", "sessions": [
            {"session_id": "S1", "time": "2024-02-01T09:00:00Z", "turns": [
                {"turn_id": "S1:1", "speaker": "user", "text": "My phone number is 555-201-3344 if you need it."},
                {"turn_id": "S1:2", "speaker": "assistant", "text": "Saved."}]},
            {"session_id": "S2", "time": "2024-03-01T09:00:00Z", "turns": [
                {"turn_id": "S2:1", "speaker": "user", "text": "Please forget my phone number."},
                {"turn_id": "S2:2", "speaker": "assistant", "text": "Done."}]}]}, namespace="u",
    )  # fmt: skip
    for mode in MODES:
        a = m.ask("What is my phone number?", namespace="u", mode=mode)
        assert a.status == "abstained" and "forget" in a.answer and "3344" not in a.answer
        assert a.withheld_by is not None and "3344" not in a.context
    assert all("3344" not in h.text for h in m.search("phone number", namespace="u", k=10))
    assert any(r.topic for r in m.forget_requests("u"))
    ignoring = Memory(tmp_path / "h", forget_policy="ignore")
    assert "555-201-3344" in ignoring.ask("What is my phone number?", namespace="u", mode="fast").answer


PRIYA = {"conversation_id": "p1", "sessions": [
    {"session_id": "S1", "time": "2024-01-10T18:00:00Z", "turns": [
        {"turn_id": "S1:1", "speaker": "Priya", "text": "Hi! I'm Priya. I live in Boston and I work at Acme Corp as a software engineer."},
        {"turn_id": "S1:2", "speaker": "assistant", "text": "Nice to meet you, Priya! How do you like Boston?"}]},
    {"session_id": "S2", "time": "2024-06-03T18:00:00Z", "turns": [
        {"turn_id": "S2:1", "speaker": "Priya", "text": "Big news: I quit Acme Corp last Friday."},
        {"turn_id": "S2:2", "speaker": "assistant", "text": "Wow! What's next?"},
        {"turn_id": "S2:3", "speaker": "Priya", "text": "I accepted an offer from Globex. I will be a product manager there, and we're moving to Seattle next month."}]},
    {"session_id": "S3", "time": "2024-09-15T18:00:00Z", "turns": [
        {"turn_id": "S3:1", "speaker": "Priya", "text": "I live in Seattle now and I love it."}]},
]}  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_the_priya_case_in_every_mode_with_no_manual_consolidate(tmp_path: Path, mode: str) -> None:
    """The issue's case: a quit, a future-tense offer and a planned move, asked now and as of."""
    m = Memory(tmp_path / "h")
    m.add_conversation(PRIYA, namespace="p")
    assert m.ask("Where does Priya work now?", namespace="p", mode=mode).answer == "Globex"
    assert m.ask("What is Priya's job title?", namespace="p", mode=mode).answer == "product manager"
    assert m.ask("Where does Priya work?", namespace="p", mode=mode, as_of="2024-07-01").answer == "Globex"
    assert m.ask("Where does Priya work?", namespace="p", mode=mode, as_of="2024-05-01").answer == "Acme Corp"
    assert m.ask("Where did Priya work before Globex?", namespace="p", mode=mode).answer == "Acme Corp"
    m.add_turns([{"conversation_id": "p1", "session_id": "S4", "turn_id": "S4:1", "speaker": "Priya",
                  "text": "Update: we moved to Portland last week.", "time": "2024-11-02T10:00:00Z"}], namespace="p")  # fmt: skip
    assert m.ask("Where does Priya live now?", namespace="p", mode=mode).answer == "Portland"


def test_deep_sees_at_least_the_turns_fast_sees(memory: Memory) -> None:
    memory.add_turns(MOVE, namespace=NS)
    for question in ("How does Dana like Portland?", "What does Dana teach?"):
        fast = {e.turn_id for e in memory.ask(question, namespace=NS, mode="fast").evidence}
        deep = {e.turn_id for e in memory.ask(question, namespace=NS, mode="deep").evidence}
        assert fast <= deep, (question, fast - deep)
