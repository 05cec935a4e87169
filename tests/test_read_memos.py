"""Per-view and per-text memos of the read path return what computing afresh returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from emem.agents.spans import has_revision_cue
from emem.index.text import tokenize
from emem.memory import Memory

T0 = "2023-01-05T10:00:00+00:00"


def turn(n: int, text: str, time: str = T0) -> dict:
    return {
        "conversation_id": "c1",
        "session_id": "S1",
        "turn_id": f"S1:{n}",
        "speaker": "Dana",
        "text": text,
        "time": time,
    }


def test_tokenize_hands_out_a_new_list_each_call() -> None:
    first = tokenize("Dana moved to Porto in May")
    first.append("mutated")
    assert tokenize("Dana moved to Porto in May") == ["dana", "move", "porto", "may"]


def test_revision_turns_follow_the_view_across_writes(home: Path) -> None:
    with Memory(home) as m:
        m.add_turns(
            [
                turn(1, "We booked a trip to Iceland."),
                turn(2, "The weather was lovely.", "2023-01-05T10:01:00+00:00"),
            ],
            namespace="ns",
        )
        rt = m.read_runtime
        view = rt.view("ns")
        assert rt.revision_turns(view) == [t for t in view.turns if has_revision_cue(t.text)]
        m.add_turns(
            [turn(3, "Iceland is off, we're going to Porto instead.", "2023-01-06T10:00:00+00:00")],
            namespace="ns",
        )
        grown = rt.view("ns")
        found = rt.revision_turns(grown)
        assert found == [t for t in grown.turns if has_revision_cue(t.text)]
        assert [t.turn_id for t in found] == ["S1:3"]
        answer = m.ask("Where is Dana going on the trip?", namespace="ns", mode="deep")
    assert "S1:3" in [e.turn_id for e in answer.evidence]


def test_one_ask_catches_up_once_and_sees_one_view(home: Path, monkeypatch) -> None:
    with Memory(home) as m:
        m.add_turns([turn(1, "We booked a trip to Iceland.")], namespace="ns")
        m.ask("Where is Dana going?", namespace="ns", mode="deep")  # builds the view
        calls: list[str] = []
        current = m.indexes.current
        monkeypatch.setattr(m.indexes, "current", lambda ns, *a: calls.append(ns) or current(ns, *a))
        m.ask("Where is Dana going?", namespace="ns", mode="deep")
        assert calls == ["ns"]  # every node of the ask shared one catch-up
        rt = m.read_runtime
        with rt.one_view_per_ask():
            first = rt.view("ns")
            m.add_turns([turn(2, "Porto instead.", "2023-01-06T10:00:00+00:00")], namespace="ns")
            assert rt.view("ns") is first  # one snapshot per ask
        grown = rt.view("ns")  # outside an ask: caught up on every call, as before
        assert [t.turn_id for t in grown.turns] == ["S1:1", "S1:2"]
        answer = m.ask("Where is Dana going instead?", namespace="ns", mode="deep")
    assert "S1:2" in [e.turn_id for e in answer.evidence]


def test_search_reuses_the_query_vector_an_ask_made(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(home) as m:
        m.add_turns(
            [turn(1, "We booked a trip to Iceland."), turn(2, "Porto instead.", "2023-01-06T10:00:00+00:00")],
            namespace="ns",
        )
        m.ask("Where is Dana going?", namespace="ns", mode="fast")
        embedder = m.indexes.embedder
        texts: list[str] = []
        real = embedder.embed
        # monkeypatch, not assignment and re-assignment: restoring by assignment would leave an
        # instance attribute shadowing the class's method on an embedder other tests share.
        monkeypatch.setattr(embedder, "embed", lambda batch: texts.extend(batch) or real(batch))
        hits = m.search("Where is Dana going?", namespace="ns", k=2)
        assert texts == []  # the ask's vector, not a second inference
        m.search("Iceland trip", namespace="ns", k=2)
        assert len(texts) == 1
        monkeypatch.undo()
        assert "embed" not in vars(embedder)
    with Memory(home) as fresh:
        again = fresh.search("Where is Dana going?", namespace="ns", k=2)
    assert [(h.turn_id, h.score) for h in hits] == [(h.turn_id, h.score) for h in again]


def test_withheld_turns_after_a_write_rescan_only_the_sessions_written(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write rescans the sessions its turns joined, and the set is what a full scan gives."""
    import emem.read.context as context
    from emem.ledger.withhold import withheld_turns

    def said(session: str, n: int, speaker: str, text: str, time: str) -> dict:
        ids = {"conversation_id": "c1", "session_id": session, "turn_id": f"{session}:{n}"}
        return {**ids, "speaker": speaker, "text": text, "time": time}

    s1, s2 = "2024-05-02T08:00:00+00:00", "2024-06-10T08:00:00+00:00"
    with Memory(home) as m:
        m.add_turns(
            [
                said("S1", 1, "user", "I was diagnosed with asthma as a kid.", s1),
                said("S1", 2, "assistant", "Noted, I will keep that in mind.", s1),
                said("S2", 1, "user", "One thing: please delete my medical information.", s2),
                said("S2", 2, "assistant", "Done.", s2),
            ],
            namespace="ns",
        )
        m.ask("What was I diagnosed with?", namespace="ns", mode="fast")  # projects the request
        rt = m.read_runtime
        first = rt.withheld("ns", rt.view("ns"))
        assert ("c1", "S1:1") in first
        scanned: list[int] = []
        full = context.withheld_turns
        monkeypatch.setattr(
            context, "withheld_turns", lambda turns, *a: scanned.append(len(turns)) or full(turns, *a)
        )
        m.add_turns(
            [
                said("S1", 3, "user", "My asthma inhaler is the blue one.", s1),
                said("S1", 4, "assistant", "I'll remember the blue one.", s1),
                said("S3", 1, "user", "I bought bread today.", "2024-07-01T08:00:00+00:00"),
            ],
            namespace="ns",
        )
        view = rt.view("ns")
        got = rt.withheld("ns", view)
        agents = {"assistant"}
        expected = withheld_turns(view.turns, rt.forget_requests("ns"), agents)
    assert list(got) == list(expected) and got == expected
    assert {("c1", "S1:3"), ("c1", "S1:4")} <= set(got)
    assert scanned == [5]  # S1's four turns and S3's one, not all seven


def test_search_under_a_forget_request_keeps_its_allowed_turns_per_view(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search without a filter reuses the set of turns it may return while the indexes and the
    withheld turns are the same; a write or an erasure makes it anew, and every search returns
    what a new Memory's does."""
    import emem.memory as memory

    def said(n: int, speaker: str, text: str, time: str) -> dict:
        return {
            "conversation_id": "c1",
            "session_id": "S1",
            "turn_id": f"S1:{n}",
            "speaker": speaker,
            "text": text,
            "time": time,
        }

    t = "2024-05-02T08:00:00+00:00"
    scans: list[int] = []
    real = memory.allowed_keys
    monkeypatch.setattr(
        memory, "allowed_keys", lambda ns, keep: scans.append(len(ns.turns)) or real(ns, keep)
    )
    with Memory(home) as m:
        m.add_turns(
            [
                said(1, "user", "I was diagnosed with asthma as a kid.", t),
                said(2, "assistant", "Noted, I will keep that in mind.", t),
                said(3, "user", "Please delete my medical information.", t),
                said(4, "user", "My sister lives in Porto.", t),
            ],
            namespace="ns",
        )
        m.ask("Where does my sister live?", namespace="ns", mode="fast")  # projects the request
        first = m.search("asthma diagnosis", namespace="ns")
        again = m.search("where does my sister live", namespace="ns")
        assert scans == [4]
        assert ("S1:1") not in {h.turn_id for h in first}
        m.add_turns([said(5, "user", "My sister moved to Lisbon.", t)], namespace="ns")
        grown = m.search("where does my sister live", namespace="ns")
        assert scans == [4, 5] and "S1:5" in {h.turn_id for h in grown}
        later = m.search("asthma diagnosis", namespace="ns")
        assert scans == [4, 5]
    with Memory(home) as fresh:
        assert fresh.search("asthma diagnosis", namespace="ns") == later
        assert fresh.search("where does my sister live", namespace="ns") == grown
    assert again != grown


def test_date_mentions_are_memoised_per_text_wall_time_and_zone() -> None:
    """A new list each call, equal to an uncached computation, and two equal instants in other
    zones (a different local day) never share an entry."""
    from datetime import UTC, datetime, timedelta, timezone

    from emem.extract import dates

    text = "We went hiking yesterday and again last Friday."
    utc = datetime(2023, 5, 8, 23, 30, tzinfo=UTC)
    east = utc.astimezone(timezone(timedelta(hours=3)))  # the same instant, already May 9
    dates.forget_date_mentions()
    first = dates.find_date_mentions(text, utc)
    first.append(first[0])
    again = dates.find_date_mentions(text, utc)
    assert len(again) == len(first) - 1
    dates.forget_date_mentions()
    assert dates.find_date_mentions(text, utc) == again
    assert dates.find_date_mentions(text, east) == list(
        dates._date_mentions.__wrapped__(text, east, "past", (east.isoformat(), repr(east.tzinfo)))
    )
    assert [m.start for m in dates.find_date_mentions(text, east)] != [m.start for m in again]
