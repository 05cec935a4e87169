"""Bad input from the CLI and the Python API (issue 13, defects 5, 7 and 9): one `error:` line and
exit 2 (or an InputError naming the field), never a traceback, and the store left unchanged."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_erasure import ExactEmbedder, conversation  # type: ignore[import-not-found]

from emem.errors import InputError, StoreError
from emem.memory import Memory

T0 = "2023-01-05T10:00:00+00:00"


def emem(home: Path, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI as a user would, with raw bytes in argv (non-UTF-8 included)."""
    env = {**os.environ, "EMEM_HOME": str(home)}
    argv = [sys.executable.encode(), b"-c", b"from emem.cli import main; main()"]
    argv += [a if isinstance(a, bytes) else a.encode() for a in args]
    return subprocess.run(argv, env=env, capture_output=True, timeout=300)


def dump(home: Path) -> list[str]:
    """Every row of every store file (logical content: a checkpoint may move pages around), index
    coverage aside (derived state, caught up on demand)."""
    out = []
    for name in ("episodes.sqlite3", "ledger.sqlite3"):
        if (home / name).exists():
            with sqlite3.connect(home / name) as conn:
                out += [
                    line
                    for line in conn.iterdump()
                    if line.startswith("INSERT") and "index_state" not in line
                ]
    return out


def one_error_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, err
    assert "Traceback" not in err and err.startswith("error:") and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def cli_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    src = tmp_path / "c.json"
    src.write_text(json.dumps(conversation("c1")), encoding="utf-8")
    assert emem(home, "ingest", str(src), "-n", "ns", "--no-index").returncode == 0
    return home


def test_non_utf8_arguments_are_one_error_line(cli_home: Path) -> None:
    before = dump(cli_home)
    cases = [
        ["search", b"\xff\xfe", "-n", "ns"],
        ["facts", "add", b"\xff", "lives_in", "Paris", "-n", "ns", "--valid-from", T0],
        ["resolve", b"\xff", "lives_in", "-n", "ns"],
        ["history", "-n", "ns", "--subject", b"\xff"],
        ["forget", "-n", "ns", "--turn", "S1:1", "--conversation", "c1", "--reason", b"\xff"],
        ["ask", b"\xff", "-n", "ns"],
        ["stats", "-n", b"\xff"],
    ]
    for args in cases:
        one_error_line(emem(cli_home, *args))
    assert dump(cli_home) == before


def test_home_that_cannot_be_a_directory(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert "not a directory" in one_error_line(emem(afile, "stats", "-n", "ns"))
    assert "cannot create" in one_error_line(emem(afile / "sub", "stats", "-n", "ns"))


@pytest.mark.parametrize("name", ["episodes.sqlite3", "ledger.sqlite3"])
def test_corrupted_store_file_is_named(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / name).write_bytes(b"this is not a database\n" * 200)
    err = one_error_line(emem(home, "facts", "-n", "ns"))
    assert name in err and "backup" in err
    with pytest.raises(StoreError, match=name):
        Memory(home, embedder=ExactEmbedder()).ledger.count("ns")


def test_ingest_refuses_devices_and_checks_size_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert "not a regular file" in one_error_line(emem(home, "ingest", "/dev/zero", "-n", "ns"))
    assert "directory" in one_error_line(emem(home, "ingest", str(tmp_path), "-n", "ns"))
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert "not a regular file" in one_error_line(emem(home, "ingest", str(fifo), "-n", "ns"))


def test_large_jsonl_is_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import emem.ingest.loader as loader

    events = [
        {
            "conversation_id": "c1",
            "session_id": "S1",
            "turn_id": f"S1:{i}",
            "speaker": "A",
            "text": f"line {i}",
            "time": T0,
        }
        for i in range(50)
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("read whole"))
    assert len(loader.read_path(path).turns) == 50
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 100)
    with pytest.raises(InputError, match="larger than"):
        loader.read_path(path)


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    good = json.dumps(conversation("c1"))
    dup = good.replace(
        '"text": "I work at a bakery called Crumbs."',
        '"text": "I work at a bakery called Crumbs.", "text": "something else"',
    )
    assert dup != good
    (tmp_path / "d.json").write_text(dup, encoding="utf-8")
    line = (
        '{"conversation_id": "c1", "session_id": "S1", "turn_id": "S1:1", "speaker": "A", '
        '"text": "a", "text": "b", "time": "2023-01-05T10:00:00+00:00"}\n'
    )
    (tmp_path / "d.jsonl").write_text(line, encoding="utf-8")
    with Memory(tmp_path / "home", embedder=ExactEmbedder()) as m:
        for name in ("d.json", "d.jsonl"):
            with pytest.raises(InputError, match="duplicate key 'text'"):
                m.ingest_file(tmp_path / name, namespace="ns")
        assert m.stats("ns").turns == 0


@pytest.fixture
def mem(tmp_path: Path):
    with Memory(tmp_path / "home", embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
        yield m


def test_python_api_validates_every_field(mem: Memory) -> None:
    def refused(field: str, call) -> None:  # type: ignore[no-untyped-def]
        before = (mem.stats("ns"), mem.ledger.revisions("ns"))
        with pytest.raises(InputError) as info:
            call()
        assert field in str(info.value), (field, str(info.value))
        assert (mem.stats("ns"), mem.ledger.revisions("ns")) == before

    ok = {"namespace": "ns", "subject": "Dana", "predicate": "lives_in", "object": "Paris", "valid_from": T0}
    refused("sources", lambda: mem.assert_fact(**ok, sources="c1/S1:1"))  # type: ignore[arg-type]
    refused("sources", lambda: mem.assert_fact(**ok, sources=["c1/S9:9"]))
    refused("sources", lambda: mem.assert_fact(**ok, sources=["other/S1:1"]))
    refused("object", lambda: mem.assert_fact(**{**ok, "object": "x" * 5_000_000}))
    refused("subject", lambda: mem.assert_fact(**{**ok, "subject": 5}))
    refused("subject", lambda: mem.assert_fact(**{**ok, "subject": "Dana \ud800"}))
    refused("object", lambda: mem.assert_fact(**{**ok, "object": "\u200b\u200b"}))
    refused("subject", lambda: mem.resolve("\udcff", "lives_in", namespace="ns"))
    refused("subject", lambda: mem.history(None, namespace="ns"))  # type: ignore[arg-type]
    rev = mem.assert_fact(**ok, sources=["c1/S1:1"])
    refused("reason", lambda: mem.revoke(rev.id, namespace="ns", reason="why \ud800"))
    refused(
        "reason", lambda: mem.forget(namespace="ns", turn_ids=["S1:1"], conversation_id="c1", reason="\ud800")
    )
    refused("turns", lambda: mem.add_turns(None, namespace="ns"))  # type: ignore[arg-type]
    turn = {"conversation_id": "c1", "session_id": "S1", "turn_id": "S1:9", "speaker": "Dana", "time": T0}
    refused(
        "image_caption",
        lambda: mem.add_turns([{**turn, "text": "hi", "image_caption": "a\x00b"}], namespace="ns"),
    )
    refused("text", lambda: mem.add_turns([{**turn, "text": "\u200b\u2060\ufeff "}], namespace="ns"))
    refused("speaker", lambda: mem.add_turns([{**turn, "text": "hi", "speaker": "\u200b"}], namespace="ns"))
    refused("query", lambda: mem.search("\ud800", namespace="ns"))
