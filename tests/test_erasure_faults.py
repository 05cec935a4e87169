"""Erasure under faults (issue 13): a kill at every step boundary of `forget` and
`drop_namespace` ends, after reopen, with no erased byte anywhere and every tombstone present;
bad arguments are refused before anything changes; log redaction never touches another
tenant's rows; re-ingesting an erased turn is refused unless the caller restores it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_erasure import (  # type: ignore[import-not-found]
    SECRET_CAPTION,
    SECRET_CITY,
    SECRET_EMPLOYER,
    T0,
    ExactEmbedder,
    conversation,
    scan,
    scan_bytes,
    secret_vectors,
)

from emem.erasure import STEPS
from emem.errors import ConflictError, InputError
from emem.memory import Memory

TESTS = Path(__file__).resolve().parent
CHILD = """
import sys
sys.path.insert(0, {tests!r})
from test_erasure import ExactEmbedder
from emem.memory import Memory
m = Memory({home!r}, embedder=ExactEmbedder())
if {mode!r} == "forget":
    m.forget("ns", turn_ids=["S1:1"], conversation_id="c1", reason="gdpr")
else:
    m.drop_namespace("ns", reason="gdpr")
print("FINISHED")
"""


def fill(home: Path) -> None:
    with Memory(home, embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
        m.add_conversation(conversation("c1", "Keepsakeville", "a teal kazoo"), namespace="other")
        m.assert_fact("Dana", "works_at", SECRET_EMPLOYER, T0, namespace="ns", sources=["c1/S1:1"])
        m.consolidate("ns")
        m.index("ns")
        m.index("other")
        assert scan_bytes(home / "chroma", secret_vectors())


def run_child(home: Path, mode: str, kill_at: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EMEM_ERASURE_KILL_AT": kill_at or ""}
    code = CHILD.format(tests=str(TESTS), home=str(home), mode=mode)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def assert_erased(home: Path, mode: str) -> None:
    with Memory(home, embedder=ExactEmbedder()) as m:  # opening finishes an interrupted erasure
        assert m.episodes.pending_erasures() == []
        ids = {t["id"] for t in m.ledger.tombstones("ns")}
        kinds = [t["kind"] for t in m.ledger.tombstones("ns")]
        if mode == "forget":
            assert "turn:c1/S1:1" in ids and "revision" in kinds
            assert m.stats("ns").turns == 4
        else:
            assert {f"turn:c1/{t}" for t in ("S1:1", "S1:2", "S1:3", "S2:1", "S2:2")} <= ids
            assert kinds.count("namespace") == 1 and m.stats("ns").turns == 0
        assert len(ids) == len(kinds), "a tombstone was written twice"
    needles = [SECRET_CITY, SECRET_EMPLOYER] + ([SECRET_CAPTION] if mode == "drop" else [])
    assert scan(home, needles) == []
    # hnswlib writes index files from uninitialised memory; emem zeroes their unused slots
    # (emem.index.dense.zero_unused_slots): this scan is what found it (docs/guarantees.md).
    assert scan_bytes(home, secret_vectors()) == []
    with Memory(home, embedder=ExactEmbedder()) as m:
        assert m.stats("other").turns == 5
        assert all(SECRET_CITY not in h.text for h in m.search("moved", namespace="ns", k=10))


@pytest.mark.parametrize(
    ("mode", "step"),
    [("forget", s) for s in STEPS] + [("drop", s) for s in ("deleted", "ledger_purged", "vectors_scrubbed")],
)
def test_kill_at_every_erasure_step(tmp_path: Path, mode: str, step: str) -> None:
    home = tmp_path / "home"
    fill(home)
    proc = run_child(home, mode, step)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    if STEPS.index(step) < STEPS.index("deleted"):
        # Nothing was recorded: the erasure did not happen (the caller never got an answer).
        with Memory(home, embedder=ExactEmbedder()) as m:
            assert m.stats("ns").turns == 5 and m.ledger.tombstones("ns") == []
        proc = run_child(home, mode, None)
        assert proc.returncode == 0 and "FINISHED" in proc.stdout, proc.stderr[-2000:]
    assert_erased(home, mode)


def test_bad_reason_is_refused_before_anything_changes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    fill(home)
    before = (home / "episodes.sqlite3").read_bytes()
    with Memory(home, embedder=ExactEmbedder()) as m:
        for bad in ("gdpr \ud800", "x\x00y", "r" * 5000, 7):
            with pytest.raises(InputError, match="reason"):
                m.forget(namespace="ns", turn_ids=["S1:1"], conversation_id="c1", reason=bad)  # type: ignore[arg-type]
            with pytest.raises(InputError, match="reason"):
                m.drop_namespace("ns", reason=bad)  # type: ignore[arg-type]
        with pytest.raises(InputError, match="turn_ids"):
            m.forget(namespace="ns", turn_ids=["S1:1", "\udcff"], conversation_id="c1")
        assert m.stats("ns").turns == 5 and m.ledger.tombstones("ns") == []
        assert m.episodes.pending_erasures() == []
    assert (home / "episodes.sqlite3").read_bytes() == before


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_redaction_never_touches_another_tenant(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home, embedder=ExactEmbedder()) as m:
        a = conversation("c1")
        a["sessions"][0]["turns"][1]["text"] = "That's really cool."
        m.add_conversation(a, namespace="A")
        b = conversation("c1", "Keepsakeville", "a teal kazoo")
        b["sessions"][0]["turns"][1]["text"] = "Thanks, Melanie! That's really cool."
        m.add_conversation(b, namespace="B")
        log_b = home / "runs" / "B" / "rows.jsonl"
        log_b.parent.mkdir(parents=True)
        b_rows = [
            {"namespace": "B", "qid": "1", "prediction": "Thanks, Melanie! That's really cool."},
            {"namespace": "B", "qid": "2", "prediction": "Also Alice and Al went to Keepsakeville."},
            {"qid": "3", "prediction": "Thanks, Melanie! That's really cool."},
        ]
        log_b.write_text("".join(json.dumps(r) + "\n" for r in b_rows), encoding="utf-8")
        log_a = home / "runs" / "A" / "rows.jsonl"
        log_a.parent.mkdir(parents=True)
        a_rows = [
            {"namespace": "A", "qid": "1", "prediction": "That's really cool."},
            {"namespace": "A", "qid": "2", "prediction": "Nothing erased here."},
        ]
        log_a.write_text("".join(json.dumps(r) + "\n" for r in a_rows), encoding="utf-8")

        report = m.forget(namespace="A", subject="Al")
        assert report.not_found == ["subject 'Al'"] and report.turns == 0
        assert report.log_rows_redacted == 0
        assert _rows(log_b) == b_rows and _rows(log_a) == a_rows

        report = m.forget(namespace="A", turn_ids=["S1:2"], conversation_id="c1")
        assert report.turns == 1 and report.log_rows_redacted == 1
        assert _rows(log_b) == b_rows  # B's rows, attributed or not, are intact
        assert [r["qid"] for r in _rows(log_a)] == ["2"]


def test_reingesting_an_erased_turn_is_refused_unless_restored(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home, embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
        m.forget(namespace="ns", turn_ids=["S1:1"], conversation_id="c1")
        with pytest.raises(ConflictError, match=r"was erased .*restore"):
            m.add_conversation(conversation("c1"), namespace="ns")
        assert m.stats("ns").turns == 4  # all or nothing: the batch was refused whole
        # same content under another turn id (content hash): also refused
        moved = {
            "conversation_id": "c1",
            "session_id": "S1",
            "turn_id": "S1:1",
            "speaker": "Dana",
            "text": f"I just moved to {SECRET_CITY} for a new job.",
            "time": T0,
        }
        with pytest.raises(ConflictError, match="erased"):
            m.add_turns([moved], namespace="ns")
        report = m.add_conversation(conversation("c1"), namespace="ns", restore=True)
        assert report.added == 1 and report.unchanged == 4
        assert (
            m.add_conversation(conversation("c1"), namespace="ns").added == 0
        )  # restored: no longer refused
        assert m.stats("other").turns == 0


def test_cli_ingest_refuses_erased_turns_and_restores_with_flag(tmp_path: Path) -> None:
    home = tmp_path / "home"
    src = tmp_path / "conv.json"
    src.write_text(json.dumps(conversation("c1")), encoding="utf-8")
    env = {**os.environ, "EMEM_HOME": str(home)}

    def emem(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", "from emem.cli import main; main()", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert emem("ingest", str(src), "-n", "ns", "--no-index").returncode == 0
    assert emem("forget", "-n", "ns", "--turn", "S1:1", "--conversation", "c1").returncode == 0
    refused = emem("ingest", str(src), "-n", "ns", "--no-index")
    assert refused.returncode == 2 and "was erased" in refused.stderr and "Traceback" not in refused.stderr
    restored = emem("ingest", str(src), "-n", "ns", "--no-index", "--restore")
    assert restored.returncode == 0 and "stored 1 new turns" in restored.stdout
