"""Guarantee 1, crash safety: SIGKILL at random and at chosen moments. Every acknowledged write
survives intact, nothing half-written is visible, the indexes catch up with the episode store,
the ledger's invariants hold, and consolidation killed midway reruns to exactly the ledger of an
uninterrupted run. `python -m emem.eval.crash_loop --kills 50` is the long version."""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest

from emem.eval import crash_loop as cl
from emem.memory import Memory


def run_child(args: list[str]) -> tuple[set[int], list[str]]:
    proc = cl._spawn(args)
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == -signal.SIGKILL, err[-3000:]
    lines = out.splitlines()
    return {int(x.split()[1]) for x in lines if x.startswith("ACK ")}, lines


@pytest.mark.slow
def test_random_sigkills_lose_no_acknowledged_write(tmp_path: Path) -> None:
    summary = cl.run_loop(3, tmp_path, seed=7, log=lambda _line: None, max_wait=0.8)
    assert summary.problems == []
    assert summary.kills == 3 and summary.consolidate_kills == 1
    assert summary.turns_stored > 0


def test_kill_after_commit_before_ack_keeps_the_batch_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    acked, _ = run_child(["ingest", str(home), "r", "0", "100", "after-commit"])
    assert acked == {0, 1, 2}
    problems, unacked = cl.check_ingest(home, "r", 0, acked, random.Random(0))
    assert problems == [] and unacked == 1  # batch 3 committed; its ack was never printed


def test_kill_inside_index_catch_up_leaves_indexes_that_catch_up(tmp_path: Path) -> None:
    home = tmp_path / "home"
    acked, _ = run_child(["ingest", str(home), "r", "0", "2", "in-index"])
    assert acked == {0, 1}  # killed after writing vectors for them, before recording coverage
    with Memory(home) as m:
        assert m.stats(cl.NS).index_coverage.get("dense_turns", 0) == 0
    problems, unacked = cl.check_ingest(home, "r", 0, acked, random.Random(0))
    assert problems == [] and unacked == 0


def test_consolidation_killed_mid_run_reruns_to_the_uninterrupted_ledger(tmp_path: Path) -> None:
    reference_home, home = tmp_path / "reference", tmp_path / "home"
    turns = cl.consolidation_turns("r", sessions=12)
    with Memory(reference_home) as m:
        m.add_turns(turns, namespace=cl.NS)
        m.consolidate(cl.NS)
        reference = cl.ledger_rows(m)
    with Memory(home) as m:
        m.add_turns(turns, namespace=cl.NS)
    _, lines = run_child(["consolidate", str(home), "0", "5"])
    assert "DONE" not in lines
    with Memory(home) as m:
        assert m.ledger.get_watermark(cl.NS, "consolidate:offline-rules/1") == 30  # 5 sessions of 6
        assert cl.ledger_rows(m) != reference
        m.consolidate(cl.NS)
        assert cl.ledger_rows(m) == reference
        assert cl.ledger_invariants(m) == []
        m.consolidate(cl.NS)  # and once more: nothing new
        assert cl.ledger_rows(m) == reference


@pytest.mark.parametrize(
    ("step", "victim"),
    [("deleted", "session:b2"), ("vectors_scrubbed", "namespace"), ("random", "session:b5")],
)
def test_crash_loop_erasure_kills(tmp_path: Path, step: str, victim: str) -> None:
    summary = cl.Summary()
    line = cl.erase_kill(tmp_path, "r", 3, random.Random(0), summary, step=step, victim=victim)
    assert summary.problems == [], line
    assert summary.erase_kills == 1
    if step != "random":  # killed after the commit: finished on reopen
        assert summary.erase_recorded == 1
