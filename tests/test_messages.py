"""Message ingestion: LangChain messages and OpenAI-style dicts become turns with defaults."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from emem.errors import InputError
from emem.memory import Memory

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def test_dicts_and_langchain_messages_become_turns(memory: Memory) -> None:
    report = memory.add_messages(
        [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "I adopted a cat named Miso."},
            AIMessage(content="", tool_calls=[{"name": "remember", "args": {}, "id": "call1"}]),
            ToolMessage(content="ok", tool_call_id="call1"),
            {"role": "assistant", "content": "Congratulations on Miso!"},
            HumanMessage(
                content=[{"type": "text", "text": "She is grey."}, {"type": "image_url", "image_url": {}}]
            ),
        ],
        namespace="ns",
        conversation_id="chat",
        time=T0,
        user_name="Priya",
    )
    assert (report.added, report.skipped) == (3, 3)
    turns = memory.episodes.turns("ns")
    assert [(t.speaker, t.text) for t in turns] == [
        ("Priya", "I adopted a cat named Miso."),
        ("assistant", "Congratulations on Miso!"),
        ("Priya", "She is grey."),
    ]
    assert {t.conversation_id for t in turns} == {"chat"}
    assert all(t.time == T0 for t in turns)
    assert len({t.turn_id for t in turns}) == 3 and len({t.session_id for t in turns}) == 1


def test_idle_gap_starts_a_new_session_and_short_pause_continues(memory: Memory) -> None:
    memory.add_messages([{"role": "user", "content": "first"}], namespace="ns", time=T0)
    memory.add_messages(
        [{"role": "user", "content": "soon after"}], namespace="ns", time=T0 + timedelta(minutes=10)
    )
    memory.add_messages(
        [{"role": "user", "content": "next day"}], namespace="ns", time=T0 + timedelta(days=1)
    )
    memory.add_messages(
        [{"role": "user", "content": "an hour later"}],
        namespace="ns",
        time=T0 + timedelta(days=1, hours=1),
        idle_gap=7200,
    )
    sessions = [t.session_id for t in memory.episodes.turns("ns")]
    assert sessions[0] == sessions[1] != sessions[2] == sessions[3]


def test_time_defaults_to_now(memory: Memory) -> None:
    before = datetime.now(UTC)
    memory.add_messages([{"role": "user", "content": "hello"}], namespace="ns")
    (turn,) = memory.episodes.turns("ns")
    assert before <= turn.time <= datetime.now(UTC)


def test_resent_state_adds_only_new_messages(memory: Memory) -> None:
    history = [HumanMessage(content="My flight is on Friday.", id="h1"), AIMessage(content="Noted.", id="a1")]
    assert memory.add_messages(history, namespace="ns", time=T0).added == 2
    history.append(HumanMessage(content="It leaves at 7am.", id="h2"))
    report = memory.add_messages(history, namespace="ns", time=T0 + timedelta(minutes=1))
    assert (report.added, report.unchanged) == (1, 2)
    assert [t.turn_id for t in memory.episodes.turns("ns")] == ["h1", "a1", "h2"]


def test_metadata_is_stored_and_returned_in_hits(memory: Memory) -> None:
    memory.add_messages(
        [
            {
                "role": "user",
                "content": "Book the dentist for Tuesday.",
                "metadata": {"channel": "sms", "urgent": True},
            }
        ],
        namespace="ns",
        metadata={"channel": "web", "app": "planner"},
        time=T0,
    )
    (turn,) = memory.episodes.turns("ns")
    assert turn.metadata == {"channel": "sms", "urgent": True, "app": "planner"}
    (hit,) = memory.search("dentist", namespace="ns", k=1)
    assert hit.metadata == {"channel": "sms", "urgent": True, "app": "planner"}


def test_every_problem_is_reported_at_once_and_nothing_is_stored(memory: Memory) -> None:
    bad = [
        {"role": "user"},
        {"content": "no role", "colour": "red"},
        {"role": "wizard", "content": "abracadabra"},
        {"role": "user", "content": "x", "time": "yesterday-ish"},
        {"role": "user", "content": "y", "metadata": {"nested": {"a": 1}}},
        42,
        {"role": "user", "content": "fine"},
    ]
    with pytest.raises(InputError) as err:
        memory.add_messages(bad, namespace="ns")
    msg = str(err.value)
    for needle in [
        "messages[0]: missing field(s) ['content']",
        "messages[1]: missing field(s) ['role']; unknown field(s) ['colour']",
        "messages[2]: unknown role 'wizard'",
        "messages[3] field 'time'",
        "messages[4]: field 'metadata'",
        "messages[5]: expected a LangChain message",
    ]:
        assert needle in msg, (needle, msg)
    assert "messages[6]" not in msg
    assert memory.episodes.turns("ns") == []


def test_bad_arguments_are_reported_together(memory: Memory) -> None:
    with pytest.raises(InputError) as err:
        memory.add_messages(
            [{"role": "user", "content": "x"}], namespace="ns", conversation_id="", time="soon", idle_gap=-1
        )
    assert "conversation_id" in str(err.value) and "time" in str(err.value) and "idle_gap" in str(err.value)
    with pytest.raises(InputError, match="list of messages"):
        memory.add_messages("hello", namespace="ns")  # type: ignore[arg-type]


def test_add_turns_reports_all_missing_fields_at_once(memory: Memory) -> None:
    with pytest.raises(InputError) as err:
        memory.add_turns([{"turn_id": "1", "text": "x", "role": "user"}], namespace="ns")
    msg = str(err.value)
    assert "missing fields 'conversation_id', 'session_id', 'speaker', 'time'" in msg
    assert "unknown field(s) ['role']" in msg


def test_old_home_is_migrated_and_keeps_its_turns(tmp_path: Path) -> None:
    """A home written before turns had metadata opens, keeps its rows and hashes, and takes metadata."""
    home = tmp_path / "old"
    home.mkdir()
    conn = sqlite3.connect(home / "episodes.sqlite3")
    conn.executescript(
        """CREATE TABLE turns (seq INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL,
        conversation_id TEXT NOT NULL, session_id TEXT NOT NULL, turn_id TEXT NOT NULL, speaker TEXT NOT NULL,
        text TEXT NOT NULL, image_caption TEXT, time TEXT NOT NULL, recorded_at TEXT NOT NULL, hash TEXT NOT NULL,
        UNIQUE (namespace, conversation_id, turn_id));"""
    )
    from emem.models import Turn

    old = Turn(conversation_id="c", session_id="s", turn_id="1", speaker="A", text="old words", time=T0)
    conn.execute(
        "INSERT INTO turns (namespace, conversation_id, session_id, turn_id, speaker, text, time, recorded_at, hash)"
        " VALUES ('ns','c','s','1','A','old words',?,?,?)",
        (T0.isoformat(), T0.isoformat(), old.content_hash()),
    )
    conn.commit()
    conn.close()
    with Memory(home) as m:
        (t,) = m.episodes.turns("ns")
        assert t.text == "old words" and t.metadata is None and t.hash == old.content_hash()
        again = m.add_turns([old], namespace="ns")  # same content, same hash: idempotent across the migration
        assert again.unchanged == 1
        m.add_messages(
            [{"role": "user", "content": "new", "metadata": {"k": 1}}], namespace="ns", conversation_id="c"
        )
        assert m.episodes.turns("ns")[-1].metadata == {"k": 1}


def test_system_message_alone_adds_nothing(memory: Memory) -> None:
    report = memory.add_messages([SystemMessage(content="rules")], namespace="ns")
    assert (report.added, report.skipped) == (0, 1)
