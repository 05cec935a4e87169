"""Guarantee 3, erasure: forgotten content leaves every file of the home (every byte is scanned,
SQLite -wal/-shm files and Chroma's folder included), every index and every cache; the ledger
keeps only tombstones (id, content hash, time, reason); other content and namespaces stay intact."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import stores_in_home
from typer.testing import CliRunner

from emem.cli import app
from emem.errors import InputError
from emem.memory import Memory
from emem.retrieval.view import open_segments

REPO = Path(__file__).resolve().parents[1]
SECRET_CITY = "Zyxwvutopia"
SECRET_EMPLOYER = "Quorblattica"
SECRET_CAPTION = "a vermilion qwoxylophone"
SECRET_TURN = f"I just moved to {SECRET_CITY} for a new job."
T0 = "2023-01-05T10:00:00+00:00"
pytestmark = pytest.mark.usefixtures("each_backend")


class ExactEmbedder:
    """Deterministic vectors with an exact unit norm (four entries of +-0.5), so Chroma stores
    them bit for bit and a byte scan can look for them after erasure."""

    name = "exact-test-embedder"
    dim = 16

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            digest = hashlib.sha256(text.encode("utf-8")).digest()
            picks: list[int] = []
            for byte in digest:
                if byte % self.dim not in picks:
                    picks.append(byte % self.dim)
                if len(picks) == 4:
                    break
            for j, pos in enumerate(picks):
                out[row, pos] = 0.5 if digest[-1 - j] % 2 else -0.5
        return out


OTHER_CITY = "Keepsakeville"


def conversation(cid: str, city: str = SECRET_CITY, caption: str = SECRET_CAPTION) -> dict:
    first = f"I just moved to {city} for a new job."
    return {
        "conversation_id": cid,
        "sessions": [
            {
                "session_id": "S1",
                "time": T0,
                "turns": [
                    {"turn_id": "S1:1", "speaker": "Dana", "text": first},
                    {"turn_id": "S1:2", "speaker": "Omar", "text": "Wow, congratulations on the move!"},
                    {"turn_id": "S1:3", "speaker": "Dana", "text": "I work at a bakery called Crumbs."},
                ],
            },
            {
                "session_id": "S2",
                "time": "2023-03-01T10:00:00+00:00",
                "turns": [
                    {"turn_id": "S2:1", "speaker": "Omar", "text": "How is the new place?"},
                    {
                        "turn_id": "S2:2",
                        "speaker": "Dana",
                        "text": "Lovely, look at this.",
                        "image_caption": caption,
                    },
                ],
            },
        ],
    }


def scan(home: Path, needles: list[str]) -> list[tuple[str, str]]:
    """Every (file, needle) where the needle's bytes occur in a file of the home (any case)."""
    hits = []
    for root, _, files in os.walk(home):
        for name in files:
            path = Path(root) / name
            data = path.read_bytes().lower()
            for needle in needles:
                if needle.lower().encode("utf-8") in data:
                    hits.append((str(path.relative_to(home)), needle))
    return hits


def scan_bytes(home: Path, blobs: list[bytes]) -> list[str]:
    return [
        str(Path(root, name).relative_to(home))
        for root, _, files in os.walk(home)
        for name in files
        for blob in blobs
        if blob in Path(root, name).read_bytes()
    ]


def run_log(home: Path) -> Path:
    """An eval run log inside the home: one row quoting the secret turn, one that does not."""
    path = home / "eval" / "run1" / "rows.jsonl"
    path.parent.mkdir(parents=True)
    rows = [
        {"qid": "q1", "system": "emem", "question": "Where did Dana move?", "prediction": SECRET_TURN},
        {
            "qid": "q2",
            "system": "emem",
            "question": "Where does Dana work?",
            "prediction": "a bakery called Crumbs",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def filled(home: Path):
    """A home with the secret in namespace "ns" (turns, facts, vectors, summaries, caches, a log),
    a second conversation there, and the same conversation with other strings in "other"."""
    m = Memory(home, embedder=ExactEmbedder())
    m.add_conversation(conversation("c1"), namespace="ns")
    m.add_conversation(conversation("c2", "Porto", "a plain wooden chair"), namespace="ns")
    m.add_conversation(conversation("c1", OTHER_CITY, "a teal kazoo"), namespace="other")
    m.assert_fact("Dana", "works_at", SECRET_EMPLOYER, T0, namespace="ns", sources=["c1/S1:1"])
    m.consolidate("ns")
    m.consolidate("other")
    m.index("ns")  # vectors written to the index (a read alone may hold them in memory)
    m.index("other")
    m.episodes.put_segment_summary("ns", "c1/S1", "h", f"Dana moved to {SECRET_CITY}.", "test-model")
    assert [h.turn_id for h in m.search(SECRET_CITY, namespace="ns", k=1)] == ["S1:1"]
    assert [h.turn_id for h in m.search(OTHER_CITY, namespace="other", k=1)] == ["S1:1"]
    assert (
        SECRET_CITY in m.ask("Where did Dana move to?", namespace="ns", mode="deep").model_dump_json()
    )  # caches filled
    run_log(home)
    yield m
    m.close()


def secret_vectors() -> list[bytes]:
    embedder = ExactEmbedder()
    return [embedder.embed([f"Dana: {SECRET_TURN}"])[0].tobytes()]


@pytest.mark.embedded_only("scans the home's files byte by byte")
def test_forget_turn_leaves_no_byte_of_it_anywhere(filled: Memory, home: Path) -> None:
    m = filled
    needles = [SECRET_CITY, SECRET_EMPLOYER]
    assert scan(home, needles), "precondition: the scan finds the secret before erasure"
    assert scan_bytes(home / "chroma", secret_vectors()), "precondition: the vector is stored bit for bit"

    report = m.forget(namespace="ns", turn_ids=["S1:1"], conversation_id="c1", reason="user request #42")

    assert report.complete, report.warnings
    assert report.turn_refs == ["c1/S1:1"] and report.turns == 1
    assert report.revisions >= 2  # the projected lives_in fact and the asserted works_at citing it
    assert report.vectors == 1 and report.segment_summaries == 1 and report.log_rows_redacted == 1
    assert scan(home, needles) == []
    assert scan_bytes(home, secret_vectors()) == []
    for wal in home.glob("*-wal"):
        assert wal.stat().st_size == 0
    # gone from every read path, caches included
    assert all(SECRET_CITY not in h.text for h in m.search(SECRET_CITY, namespace="ns", k=20))
    answer = m.ask("Where did Dana move to?", namespace="ns", mode="deep")
    assert SECRET_CITY not in answer.model_dump_json()
    assert all(SECRET_CITY not in v for f in m.facts(namespace="ns") for v in f.values)
    assert SECRET_CITY not in m.history("Dana", namespace="ns").model_dump_json()
    assert m.segment_summaries("ns") == {}
    # the rest of the namespace, the other conversation and the other namespace are intact
    assert m.stats("ns").turns == 9 and m.stats("other").turns == 5
    assert [h.turn_id for h in m.search("bakery Crumbs", namespace="ns", k=1)]
    assert any(OTHER_CITY in t.text for t in m.episodes.turns("other"))
    assert any(OTHER_CITY in v for f in m.facts(namespace="other") for v in f.values)
    assert {f for f, _ in scan(home, [OTHER_CITY])} >= {"episodes.sqlite3", "ledger.sqlite3"}
    # the kept log row survives, the quoting one is gone
    rows = (home / "eval" / "run1" / "rows.jsonl").read_text().splitlines()
    assert [json.loads(r)["qid"] for r in rows] == ["q2"]
    # tombstones: ids and hashes, the time and the reason, never the content
    tombs = m.ledger.tombstones("ns")
    assert {t["kind"] for t in tombs} == {"turn", "revision", "relation"}  # works_at: an unresolved tie
    assert {t["reason"] for t in tombs} == {"user request #42"}
    assert {t["erasure_id"] for t in tombs} == {report.erasure_id}
    assert "turn:c1/S1:1" in {t["id"] for t in tombs}
    assert SECRET_CITY not in json.dumps(tombs)


@pytest.mark.embedded_only("scans the home's files byte by byte")
def test_forget_drops_the_cached_summary_vectors(filled: Memory, home: Path) -> None:
    """Read views cache summary vectors by content hash in the home (vectors.sqlite3): the
    erased turn's segment summary is embedded there, and must go with the turn."""
    m = filled
    summary = ExactEmbedder().embed([f"Dana moved to {SECRET_CITY}."])[0].tobytes()
    held = scan_bytes(home, [summary])
    assert held and all(f.startswith("vectors.sqlite3") for f in held), held

    report = m.forget(namespace="ns", turn_ids=["S1:1"], conversation_id="c1")

    assert report.complete and "vectors.sqlite3" in report.files_compacted
    assert scan_bytes(home, [summary]) == []
    assert (
        m.ask("Where does Dana work?", namespace="ns", mode="deep").status != "error"
    )  # re-embeds what survives
    assert scan_bytes(home, [summary]) == []


@pytest.mark.embedded_only("scans the home's files byte by byte")
def test_drop_namespace_drops_its_cached_vectors_only(filled: Memory, home: Path) -> None:
    m = filled
    m.ask("Where did Dana move to?", namespace="other", mode="deep")
    view = m.read_runtime.view("other")
    # Closed segments' summary vectors are cached; a conversation's open (latest) segment routes by
    # its turn vectors and caches none (retrieval.view.open_segments).
    still_open = open_segments(view.segments)
    kept = [
        ExactEmbedder().embed([s.summary])[0].tobytes()
        for s in view.segments
        if s.segment_id not in still_open
    ]
    assert kept
    summary = ExactEmbedder().embed([f"Dana moved to {SECRET_CITY}."])[0].tobytes()
    assert scan_bytes(home, [summary])

    m.drop_namespace("ns")

    assert scan_bytes(home, [summary]) == []
    assert all(scan_bytes(home, [blob]) for blob in kept), "the other tenant's cache stays"


@pytest.mark.embedded_only("scans the home's files byte by byte")
def test_scan_is_clean_after_close_and_reopen(filled: Memory, home: Path) -> None:
    filled.forget(namespace="ns", session_id="S2", conversation_id="c1")
    filled.close()
    assert scan(home, [SECRET_CAPTION]) == []
    with Memory(home, embedder=ExactEmbedder()) as m:
        assert m.stats("ns").turns == 8
        assert all(h.image_caption != SECRET_CAPTION for h in m.search("qwoxylophone", namespace="ns", k=20))
    assert scan(home, [SECRET_CAPTION]) == []


def test_forget_subject_takes_its_facts_and_their_source_turns(filled: Memory, home: Path) -> None:
    m = filled
    m.assert_fact("Zorblax Quintavius", "lives_in", "Vexholm", T0, namespace="ns", sources=["c2/S1:3"])
    rev = m.assert_fact(
        "zorblax  QUINTAVIUS", "lives_in", "Krellport", "2023-02-01T00:00:00+00:00", namespace="ns"
    )
    m.revoke(rev.id, namespace="ns", reason="retracted Krellport")
    before = {t.turn_id for t in m.episodes.turns("ns", conversation_id="c2")}

    report = m.forget(namespace="ns", subject="Zorblax Quintavius")

    assert report.turn_refs == ["c2/S1:3"]  # the one source turn; turns without facts stay
    assert report.revisions == 4  # two assertions, the revocation, and the fact extracted from S1:3
    assert m.history("Zorblax Quintavius", namespace="ns").entries == []
    assert {t.turn_id for t in m.episodes.turns("ns", conversation_id="c2")} == before - {"S1:3"}
    if stores_in_home():
        assert scan(home, ["Zorblax", "Vexholm", "Krellport"]) == []


def test_forget_refuses_ambiguous_and_empty_selections(filled: Memory) -> None:
    with pytest.raises(InputError, match=r"exists in 2 conversations \(c1, c2\)"):
        filled.forget(namespace="ns", turn_ids=["S1:1"])
    with pytest.raises(InputError, match="nothing to forget"):
        filled.forget(namespace="ns")
    with pytest.raises(InputError, match="turn_ids"):
        filled.forget(namespace="ns", turn_ids="S1:1")  # type: ignore[arg-type]
    assert filled.stats("ns").turns == 10


def test_forget_is_idempotent_and_resumes_after_a_crash(filled: Memory, home: Path, monkeypatch) -> None:
    import emem.erasure as erasure

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("killed mid-erasure")

    monkeypatch.setattr(erasure, "_scrub_vectors", crash)
    with pytest.raises(KeyboardInterrupt):
        filled.forget(namespace="ns", conversation_id="c1")
    monkeypatch.undo()
    again = filled.forget(namespace="ns", conversation_id="c1")  # the recorded intent is finished first
    assert again.complete and again.turns == 0 and again.vectors == 0 and len(again.resumed) == 1
    assert "conversation 'c1'" in again.not_found[0]
    if stores_in_home():
        assert scan(home, [SECRET_CITY, SECRET_CAPTION]) == []
    assert filled.indexes.namespace_indexes("ns").dense.count() == 5
    assert filled.forget(namespace="ns", conversation_id="c1").vectors == 0


def test_drop_namespace_removes_the_tenant_only(filled: Memory, home: Path) -> None:
    report = filled.drop_namespace("ns")
    assert report.complete and report.turns == 10
    stats = filled.stats("ns")
    assert (stats.turns, stats.sessions, stats.facts) == (0, 0, 0)
    assert filled.ledger.get_watermark("ns", "consolidate:offline-rules/1") == 0
    assert [t["kind"] for t in filled.ledger.tombstones("ns")][-1] == "namespace"
    model = filled.indexes.embedder.name
    assert not filled.backend.vectors.exists("ns", "turns", model)
    assert filled.backend.vectors.exists("other", "turns", model)
    assert filled.episodes.coverage("ns") == {}
    assert filled.stats("other").turns == 5
    assert [h.turn_id for h in filled.search(OTHER_CITY, namespace="other", k=1)] == ["S1:1"]
    if stores_in_home():
        assert scan(home, [SECRET_CITY, "moved to Porto", SECRET_CAPTION]) == []


@pytest.mark.embedded_only("connects to ledger.sqlite3")
def test_ledger_stays_append_only_after_a_purge(filled: Memory) -> None:
    filled.forget(namespace="ns", turn_ids=["S1:3"], conversation_id="c2")
    assert filled.ledger.store.integrity_problems() == []
    conn = sqlite3.connect(filled.home / "ledger.sqlite3")  # the database refuses, whoever connects
    for sql in ("DELETE FROM revisions", "UPDATE revisions SET object='x'", "DELETE FROM tombstones"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)


def test_another_process_sees_the_erasure_at_its_next_search(tmp_path: Path) -> None:
    """A long-lived reader (this process: BM25, views and Chroma client warm) while `emem forget`
    runs in a second process: the next search here neither errors nor returns the erased turn."""
    home = tmp_path / "shared"
    reader = Memory(home)
    reader.add_conversation(conversation("c1"), namespace="ns")
    assert [h.turn_id for h in reader.search(SECRET_CITY, namespace="ns", k=1)] == ["S1:1"]
    code = "import sys; from emem.cli import app; sys.argv = ['emem', *sys.argv[1:]]; app()"
    args = ["forget", "-n", "ns", "--turn", "S1:1", "--home", str(home), "--json"]
    out = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["turns"] == 1
    hits = reader.search(SECRET_CITY, namespace="ns", k=20)
    assert hits and all(SECRET_CITY not in h.text for h in hits)
    dense = reader.indexes.namespace_indexes("ns").dense
    assert len(dense.keys() | set(dense.pending)) == 4  # written, or held by the read (PENDING_MAX)
    reader.close()
    if stores_in_home():
        assert scan(home, [SECRET_CITY]) == []


def test_another_process_erasure_reaches_the_ask_caches(tmp_path: Path) -> None:
    home = tmp_path / "shared"
    reader = Memory(home)
    reader.add_conversation(conversation("c1"), namespace="ns")
    assert SECRET_CITY in reader.ask("Where did Dana move to?", namespace="ns", mode="deep").model_dump_json()
    code = "import sys; from emem.cli import app; sys.argv = ['emem', *sys.argv[1:]]; app()"
    args = ["forget", "-n", "ns", "--turn", "S1:1", "--home", str(home)]
    assert (
        subprocess.run(
            [sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, timeout=120
        ).returncode
        == 0
    )
    for mode in ("deep", "fast"):
        assert (
            SECRET_CITY
            not in reader.ask("Where did Dana move to?", namespace="ns", mode=mode).model_dump_json()
        )
    reader.close()


def test_cli_forget_and_drop_namespace(filled: Memory, home: Path) -> None:
    filled.close()
    runner = CliRunner()
    res = runner.invoke(
        app, ["forget", "-n", "ns", "--subject", "Dana", "--reason", "gdpr", "--json", "--home", str(home)]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["revisions"] >= 2
    res = runner.invoke(app, ["forget", "-n", "ns", "--home", str(home)])
    assert res.exit_code == 2 and "nothing to forget" in res.stderr and "Traceback" not in res.output
    res = runner.invoke(app, ["drop-namespace", "ns", "--home", str(home)])
    assert res.exit_code == 2 and "--yes" in res.stderr
    res = runner.invoke(app, ["drop-namespace", "ns", "--yes", "--home", str(home)])
    assert res.exit_code == 0 and "erased from namespace 'ns'" in res.stdout
