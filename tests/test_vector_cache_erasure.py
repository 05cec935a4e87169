"""The summary-vector cache (`vectors.sqlite3`) never keeps vectors of erased content: a process
that derived summaries before another process erased the namespace must not store their vectors
after the erasure. Real processes on one home: a reader blocked inside the summary embedding, an
eraser that drops the namespace meanwhile, then the reader let go."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from emem.eval.isolation_probes import HashEmbedder
from emem.index.vector_cache import VectorCache
from emem.memory import Memory

TESTS = Path(__file__).resolve().parent
NS = "tenant"
SECRET = "zebracode7 is the alarm code"


class PausingEmbedder(HashEmbedder):
    """Hash vectors; the first time it is asked for a segment summary, it says so in `ready` and
    waits for `go` (summaries start with their date: '... talk.')."""

    def __init__(self, ready: str, go: str) -> None:
        self.ready, self.go, self.paused = Path(ready), Path(go), False

    def embed(self, texts: list[str]) -> Any:
        if not self.paused and any(" talk." in t for t in texts):
            self.paused = True
            self.ready.touch()
            deadline = time.time() + 120
            while not self.go.exists() and time.time() < deadline:
                time.sleep(0.01)
        return super().embed(texts)


def turns() -> list[dict]:
    # A second session closes S1, whose summary (quoting the secret) is then embedded and cached;
    # a conversation's open latest segment routes by its turn vectors and embeds no summary.
    later = {
        "conversation_id": "c1",
        "session_id": "S2",
        "turn_id": "S2:1",
        "speaker": "Omar",
        "text": "The trail was muddy today.",
        "time": "2023-02-01T10:00:00+00:00",
    }
    return [
        {
            "conversation_id": "c1",
            "session_id": "S1",
            "turn_id": f"S1:{i}",
            "speaker": "Dana" if i % 2 else "Omar",
            "text": f"{SECRET}, said twice {i}" if i == 1 else f"We walked the harbour trail, part {i}.",
            "time": f"2023-01-05T10:0{i}:00+00:00",
        }
        for i in range(1, 6)
    ] + [later]


def child_reader(home: str, ready: str, go: str) -> None:
    """Builds one read view (what every ask starts with) and exits: no later read cleans up."""
    with Memory(home, embedder=PausingEmbedder(ready, go)) as m:
        m.read_runtime.view(NS)


def test_a_view_built_across_an_erasure_caches_no_vector(tmp_path: Path) -> None:
    home, ready, go = tmp_path / "home", tmp_path / "ready", tmp_path / "go"
    with Memory(home, embedder=HashEmbedder()) as m:
        m.add_turns(turns(), namespace=NS)
        m.index(NS)
    code = f"import sys; sys.path.insert(0, {str(TESTS)!r}); import test_vector_cache_erasure as t; t.child_reader(*sys.argv[1:])"
    reader = subprocess.Popen(
        [sys.executable, "-c", code, str(home), str(ready), str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.time() + 180
        while not ready.exists() and reader.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        assert ready.exists(), reader.communicate()[1]
        # The reader holds summaries quoting the secret; erase the namespace under it.
        with Memory(home, embedder=HashEmbedder()) as eraser:
            eraser.drop_namespace(NS, reason="test")
        assert VectorCache(home).count(NS) == 0
        go.touch()
        _, err = reader.communicate(timeout=180)
        assert reader.returncode == 0, err
    finally:
        go.touch()
        if reader.poll() is None:
            reader.kill()
    assert VectorCache(home).count(NS) == 0  # the reader's late vectors were not stored
