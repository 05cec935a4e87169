from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import small_conversation

from emem.errors import ConflictError, InputError
from emem.memory import Memory


def dump(memory: Memory, ns: str) -> list[tuple]:
    return [(t.seq, t.conversation_id, t.turn_id, t.text, t.hash) for t in memory.episodes.turns(ns)]


def test_add_conversation_stores_every_turn_with_times(memory: Memory) -> None:
    report = memory.add_conversation(small_conversation(), namespace="ns")
    assert report.added == 6 and report.unchanged == 0
    turns = memory.episodes.turns("ns")
    assert [t.turn_id for t in turns] == ["S1:1", "S1:2", "S1:3", "S2:1", "S2:2", "S2:3"]
    assert turns[0].time.isoformat() == "2022-03-01T10:00:00+00:00"
    assert turns[4].image_caption == "a yellow surfboard leaning on a wall"
    assert all(t.recorded_at >= turns[0].recorded_at for t in turns)


def test_reingest_is_idempotent(memory: Memory) -> None:
    memory.add_conversation(small_conversation(), namespace="ns")
    before = dump(memory, "ns")
    again = memory.add_conversation(small_conversation(), namespace="ns")
    assert again.added == 0 and again.unchanged == 6
    assert dump(memory, "ns") == before


def test_conflicting_reingest_is_rejected_and_changes_nothing(memory: Memory) -> None:
    memory.add_conversation(small_conversation(), namespace="ns")
    before = dump(memory, "ns")
    changed = small_conversation()
    changed["sessions"][1]["turns"][2]["text"] = "My sister Lena adopted a dog."
    changed["sessions"][1]["turns"].append({"turn_id": "S2:4", "speaker": "Dana", "text": "new turn"})
    with pytest.raises(ConflictError, match=r"turn 'S2:3'"):
        memory.add_conversation(changed, namespace="ns")
    assert dump(memory, "ns") == before  # the new S2:4 in the same batch was not stored either


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c["sessions"][1]["turns"][1].update(text="   "), r"session S2 turn S2:2: field 'text'"),
        (lambda c: c["sessions"][1].update(time="June 15th"), r"session S2 field 'time'.*unparsable"),
        (lambda c: c["sessions"][0]["turns"][0].pop("speaker"), r"turn S1:1: missing field 'speaker'"),
        (lambda c: c["sessions"][0]["turns"][2].update(text=42), r"turn S1:3: field 'text' must be str"),
        (
            lambda c: c["sessions"][1]["turns"][0].update(time="2022-13-40T00:00:00"),
            r"turn S2:1 field 'time'",
        ),
        (lambda c: c["sessions"][1]["turns"][0].update(text="x" * 200_001), r"turn S2:1: field 'text'"),
        (lambda c: c["sessions"][0].pop("turns"), r"session S1: missing field 'turns'"),
    ],
)
def test_bad_turn_in_batch_leaves_store_unchanged(memory: Memory, mutate, message: str) -> None:
    memory.add_conversation(small_conversation("c0"), namespace="ns")
    before = dump(memory, "ns")
    bad = small_conversation()
    mutate(bad)
    with pytest.raises(InputError, match=message):
        memory.add_conversation(bad, namespace="ns")
    assert dump(memory, "ns") == before


def test_errors_name_the_file(memory: Memory, tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"conversation_id": "c1", "sessions": [')
    with pytest.raises(InputError, match=r"broken.json: malformed JSON"):
        memory.ingest_file(bad, namespace="ns")
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputError, match="invalid UTF-8"):
        memory.ingest_file(bad, namespace="ns")
    with pytest.raises(InputError, match="file not found"):
        memory.ingest_file(tmp_path / "missing.json", namespace="ns")
    assert memory.stats("ns").turns == 0


def test_locomo_format(memory: Memory, tmp_path: Path) -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Look", "blip_caption": "a photo of a cat"},
            ],
            "session_2_date_time": "10:04 am on 12 June, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Back again."}],
        },
        "qa": [],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    report = memory.ingest_file(path, namespace="ns")
    assert report.added == 3
    turns = memory.episodes.turns("ns")
    assert turns[1].image_caption == "a photo of a cat" and turns[1].session_id == "S1"
    assert turns[2].time.isoformat() == "2023-06-12T10:04:00+00:00"
    sample["conversation"]["session_2_date_time"] = "25:04 am on 12 June, 2023"
    path.write_text(json.dumps([sample]))
    with pytest.raises(InputError, match=r"session_2_date_time: impossible LoCoMo date"):
        memory.ingest_file(path, namespace="ns2")
    assert memory.stats("ns2").turns == 0


def test_jsonl_events_and_add_turns(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [
        {
            "conversation_id": "c",
            "session_id": "s",
            "turn_id": "1",
            "speaker": "A",
            "text": "one",
            "time": "2024-01-01T00:00:00Z",
        },
        {
            "conversation_id": "c",
            "session_id": "s",
            "turn_id": "2",
            "speaker": "B",
            "text": "two",
            "time": "2024-01-01T00:01:00Z",
        },
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert memory.ingest_file(path, namespace="ns").added == 2
    path.write_text(json.dumps(lines[0]) + "\n{not json}\n")
    with pytest.raises(InputError, match=r"events.jsonl line 2: malformed JSON"):
        memory.ingest_file(path, namespace="ns")
    report = memory.add_turns(
        [
            {
                "conversation_id": "c",
                "session_id": "s",
                "turn_id": "3",
                "speaker": "A",
                "text": "three",
                "time": "2024-01-01T00:02:00+00:00",
            }
        ],
        namespace="ns",
    )
    assert report.added == 1
    with pytest.raises(InputError, match=r"turns\[0\] turn 4: missing field 'time'"):
        memory.add_turns(
            [{"conversation_id": "c", "session_id": "s", "turn_id": "4", "speaker": "A", "text": "x"}],
            namespace="ns",
        )


def test_namespaces_are_isolated(memory: Memory) -> None:
    memory.add_conversation(small_conversation(), namespace="tenant-a")
    other = small_conversation()
    other["sessions"][0]["turns"][0]["text"] = "I moved to Oslo, which tenant-a must never see."
    memory.add_conversation(
        other, namespace="tenant-b"
    )  # same ids, different content: fine in another namespace
    hits_a = memory.search("Oslo", namespace="tenant-a", k=10)
    assert all("Oslo" not in h.text for h in hits_a)
    hits_b = memory.search("moved to Oslo", namespace="tenant-b", k=1)
    assert hits_b[0].text.startswith("I moved to Oslo")
    assert memory.stats("tenant-a").turns == 6 and memory.stats("tenant-c").turns == 0


@pytest.mark.parametrize("bad", ["", " ", "a b", "x" * 200, None, 3])
def test_bad_namespace_is_refused(memory: Memory, bad) -> None:
    with pytest.raises(InputError, match="namespace"):
        memory.add_conversation(small_conversation(), namespace=bad)
