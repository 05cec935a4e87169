"""Guarantee 2, concurrency: several processes on one home. Two ingest (each catching the indexes
up after every batch, their first catch-up racing over the same unindexed turns) while a third
searches and asks (fast and deep, offline): no write is lost, no "database is locked" surfaces,
no reader sees a half-built index (every hit is a complete, intact turn; every turn a view holds
has its vector), and the dense index ends with exactly one vector per turn, none lost to a writer
whose Chroma client was stale. (A cheap deterministic embedder keeps it fast: what is tested is
Chroma and SQLite under several processes, not vector quality.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from emem.eval.isolation_probes import HashEmbedder
from emem.index.dense import fetch_vectors
from emem.index.manager import DENSE_TURNS
from emem.locking import IndexLock
from emem.memory import Memory

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
NS = "shared"
SEED_BATCHES = 10
pytestmark = pytest.mark.usefixtures("each_backend")
WORDS = "river lantern orchard violin harbor meadow glacier pepper compass marble tundra saffron".split()


def batch(writer: str, b: int, size: int = 4) -> list[dict]:
    return [
        {
            "conversation_id": f"conv-{writer}",
            "session_id": f"S{b}",
            "turn_id": f"{writer}-{b}-{j}",
            "speaker": writer,
            "text": f"tok{writer}x{b}x{j} I talked about the {WORDS[(b + j) % len(WORDS)]} "
            f"and the {WORDS[(b * 3 + j) % len(WORDS)]} today.",
            "time": f"2023-01-{1 + b % 28:02d}T10:{j:02d}:00+00:00",
        }
        for j in range(size)
    ]


def expected_texts(writers: list[str], batches: int) -> dict[tuple[str, str], str]:
    return {
        (t["conversation_id"], t["turn_id"]): t["text"]
        for w in writers
        for b in range(batches)
        for t in batch(w, b)
    }


# -- child processes ------------------------------------------------------------------------------


def reader_checks(go_file: str) -> int:
    """How many checks the reader has finished (it writes the count next to the go file)."""
    try:
        return int(Path(go_file + ".checks").read_text() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def child_writer(home: str, writer: str, batches: str, go_file: str = "") -> None:
    """Before each batch after the first, wait for one more reader check (bounded): reads then
    provably interleave with writes, however loaded the machine is."""
    with Memory(home, embedder=HashEmbedder()) as m:
        while go_file and not Path(go_file).exists():
            time.sleep(0.01)
        for b in range(int(batches)):
            deadline = time.time() + 30
            while go_file and b and reader_checks(go_file) < b and time.time() < deadline:
                time.sleep(0.01)
            report = m.add_turns(batch(writer, b), namespace=NS)
            assert report.added == 4
            m.index(NS)
    print("WRITER-DONE", flush=True)


def child_reader(home: str, writers: str, batches: str, stop_file: str, go_file: str) -> None:
    """Search and ask until the writers are done; print one JSON line per check. The writers
    start when this reader is warm (`go_file`), so the checks overlap their writes."""
    from emem.retrieval.view import build_view

    sent = expected_texts(writers.split(","), int(batches)) | expected_texts(["seed"], SEED_BATCHES)
    texts = {f"{c}/{t}": v for (c, t), v in sent.items()}
    with Memory(home, embedder=HashEmbedder()) as m:
        m.graph()
        Path(go_file).touch()
        checks = 0
        while checks < 3 or not Path(stop_file).exists():
            if m.episodes.last_seq(NS) == 0:
                time.sleep(0.01)
                continue
            checks += 1
            hits = m.search("river lantern", namespace=NS, k=10)
            bad = [h.turn_id for h in hits if texts.get(f"{h.conversation_id}/{h.turn_id}") != h.text]
            view = build_view(m.indexes.current(NS))
            zero = int((np.abs(view.turn_vectors).sum(axis=1) == 0).sum())
            mode = ("deep", "fast")[checks % 2]
            answers = [m.ask("What did they talk about regarding the violin?", namespace=NS, mode=mode)]
            status = [a.status for a in answers]
            quoted = [
                e
                for a in answers
                for e in a.evidence
                if texts.get(f"{e.conversation_id}/{e.turn_id}") != e.text
            ]
            print(
                json.dumps(
                    {
                        "hits": len(hits),
                        "bad_hits": bad,
                        "view_turns": len(view.turns),
                        "zero_vectors": zero,
                        "status": status,
                        "bad_evidence": len(quoted),
                    }
                ),
                flush=True,
            )
            Path(go_file + ".checks").write_text(str(checks))
    print("READER-DONE", flush=True)


def spawn(func: str, *args: str) -> subprocess.Popen[str]:
    code = f"import sys; sys.path.insert(0, {str(TESTS)!r}); import test_concurrency as t; t.{func}(*sys.argv[1:])"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 240) -> tuple[str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    assert "database is locked" not in err and "Traceback" not in err, err[-3000:]
    return out, err


def verify_home(home: Path, expected: dict[tuple[str, str], str]) -> None:
    with Memory(home, embedder=HashEmbedder()) as m:
        stored = {(t.conversation_id, t.turn_id): t.text for t in m.episodes.turns(NS)}
        assert stored == expected  # no lost and no extra writes, every text intact
        m.index(NS)
        dense = m.indexes.namespace_indexes(NS).dense
        keys = [str(t.seq) for t in m.episodes.turns(NS)]
        assert dense.count() == len(keys)
        assert m.stats(NS).index_coverage[DENSE_TURNS] == m.episodes.last_seq(NS)
        vectors = fetch_vectors(dense, keys)
        assert int((np.abs(vectors).sum(axis=1) == 0).sum()) == 0
        found = {key for key, _ in dense.search("talked about", len(keys) + 5)}
        assert found == set(keys)  # the HNSW index holds every vector, none from a stale writer lost


# -- tests ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_writers_and_a_reader_lose_nothing_and_see_no_half_built_index(tmp_path: Path) -> None:
    """40 turns wait unindexed, so both writers' first catch-up races for the same namespace;
    then each writes and indexes while the other's Chroma client is warm (a stale writer)."""
    home, stop, go = tmp_path / "home", tmp_path / "stop", tmp_path / "go"
    batches = 5
    with Memory(home, embedder=HashEmbedder()) as m:
        for b in range(SEED_BATCHES):
            m.add_turns(batch("seed", b), namespace=NS)
    writers = [spawn("child_writer", str(home), w, str(batches), str(go)) for w in ("wa", "wb")]
    reader = spawn("child_reader", str(home), "wa,wb", str(batches), str(stop), str(go))
    for w in writers:
        assert "WRITER-DONE" in finish(w)[0]
    stop.touch()
    out, _ = finish(reader)
    checks = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(checks) >= 3
    for c in checks:
        assert c["bad_hits"] == [] and c["zero_vectors"] == 0 and c["bad_evidence"] == 0, c
        assert "error" not in c["status"], c
    assert checks[-1]["view_turns"] > 0
    assert len({c["view_turns"] for c in checks}) >= 3  # the checks saw the store grow: they interleaved
    verify_home(home, expected_texts(["wa", "wb"], batches) | expected_texts(["seed"], SEED_BATCHES))


@pytest.mark.embedded_only("tests the embedded coordinator's flock")
def test_index_lock_is_reentrant_shared_and_exclusive(tmp_path: Path) -> None:
    lock = IndexLock.for_home(tmp_path)
    assert IndexLock.for_home(tmp_path / ".." / tmp_path.name) is lock
    seen: list[set[str]] = []
    lock.subscribe(seen.append)
    with lock.exclusive():
        lock.bump("write")
        with lock.shared():  # nested: joins the exclusive hold
            pass
    with lock.shared(), pytest.raises(RuntimeError, match="upgrade"):
        with lock.exclusive():
            pass
    probe = (
        "import fcntl, sys; fh = open(sys.argv[1], 'a+')\n"
        "try:\n    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB); print('got')\n"
        "except BlockingIOError:\n    print('blocked')\n"
    )
    with lock.shared():
        out = subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path / "index.lock")], capture_output=True, text=True
        )
    assert out.stdout.strip() == "blocked"
    # another process changing the tokens is heard at the next acquisition
    (tmp_path / "index.gen").write_text("erase=elsewhere\nwrite=elsewhere\n")
    with lock.shared():
        pass
    assert seen == [{"erase", "write"}]


OPEN_FRESH = (
    "import sys, pathlib\n"
    "from emem.index.chroma import open_chroma\n"
    "open_chroma(pathlib.Path(sys.argv[1])).list_collections()\n"
)


@pytest.mark.slow
@pytest.mark.embedded_only("Chroma is the embedded backend's vector index")
def test_processes_opening_a_fresh_chroma_directory_at_once_all_succeed(tmp_path: Path) -> None:
    """Two first catch-ups hold the index lock *shared* and both open Chroma; on a fresh directory
    their schema migrations raced ("table collections already exists", 2 of 20 opens before the
    fix). Four processes open each of two fresh directories at once."""
    for round_ in range(2):
        path = tmp_path / f"r{round_}" / "chroma"
        procs = [
            subprocess.Popen([sys.executable, "-c", OPEN_FRESH, str(path)], stderr=subprocess.PIPE, text=True)
            for _ in range(4)
        ]
        for proc in procs:
            _, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-1500:]
