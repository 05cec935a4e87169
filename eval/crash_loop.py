"""Crash loop: SIGKILL emem at random moments and check that nothing acknowledged is lost.

    python -m emem.eval.crash_loop --kills 50        # or: python -m eval.crash_loop --kills 50

Three kinds of victim, in turn (of every four kills, two hit ingestion, one a consolidation and one
an erasure):

* ingest: a child process appends random batches of 1-5 turns to one home, printing `ACK <batch>`
  only after `add_turns` returned (committed), and catches the indexes up every few batches, so
  kills land in SQLite commits, in embedding, and in Chroma writes. After each kill the home is
  reopened and checked: every acknowledged batch is stored intact (content hash), every stored
  batch is whole (atomic) and exactly what was sent, SQLite files pass `integrity_check`, the
  indexes catch up to the episode store (dense vector count and coverage equal the turns, a
  unique token of an acknowledged turn is found), and the ledger's invariants hold after a
  consolidation.
* consolidate: a child consolidates a fixed set of sessions with a deliberately slow (but
  otherwise identical) offline extractor and is killed midway; rerunning consolidation must give
  exactly the ledger of an uninterrupted run (revision and relation rows, watermark).
* erase: a child erases one session (`forget`) or the whole namespace (`drop_namespace`) and is
  killed either at a chosen step boundary (emem.erasure.STEPS, via EMEM_ERASURE_KILL_AT) or at a
  random moment. After reopening: no erasure is left pending; if the erasure had committed, no
  byte of an erased turn's unique token is left in any file of the home and every erased turn has
  exactly one tombstone; if it had not, every turn is still there and a rerun completes it; the
  other turns are untouched and the dense index holds exactly one vector per stored turn.

Prints one line per kill and a summary; exits 1 if any check failed. The test suite runs a few
kills through `run_loop`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
NS = "crash"
BASE = datetime(2023, 1, 1, tzinfo=UTC)
CITIES = ["Lisbon", "Porto", "Berlin", "Austin", "Osaka", "Quito", "Tromso", "Lagos"]
COMPANIES = ["Kinetica", "Acme Corp", "Globex", "Initech", "Hooli", "Vandelay"]
PETS = ["a dog named Rex", "a cat named Miso", "a parrot named Kiwi"]
SPEAKERS = ["Ann", "Ben", "Cleo"]


# -- deterministic content ----------------------------------------------------------------------


def sentence(rng: random.Random) -> str:
    city, company, pet = rng.choice(CITIES), rng.choice(COMPANIES), rng.choice(PETS)
    return rng.choice(
        [
            f"I just moved to {city} for a new job.",
            f"I work at {company} now.",
            f"I don't live in {city} anymore.",
            f"We adopted {pet}.",
            f"I started working at {company} last week.",
            f"I'm not working at {company} anymore.",
            f"I live in {city}.",
            "The weather was lovely and we walked along the river for hours.",
        ]
    )


def batch_turns(run: str, child: int, batch: int) -> list[dict[str, Any]]:
    """The turns of batch `batch` of child `child`: derived from the ids alone, so the checker
    knows exactly what an acknowledged (or any stored) batch must contain."""
    rng = random.Random(f"{run}/{child}/{batch}")
    k = rng.randint(1, 5)
    when = BASE + timedelta(days=child, minutes=batch)
    return [
        {
            "conversation_id": f"conv-{child}",
            "session_id": f"b{batch}",
            "turn_id": f"b{batch}-{j}of{k}",
            "speaker": rng.choice(SPEAKERS),
            "text": f"crashtok{child}x{batch}x{j} {sentence(rng)}",
            "time": (when + timedelta(seconds=j)).isoformat(),
        }
        for j in range(k)
    ]


def consolidation_turns(run: str, sessions: int = 40) -> list[dict[str, Any]]:
    rng = random.Random(f"{run}/consolidate")
    out = []
    for s in range(sessions):
        when = BASE + timedelta(days=s)
        out += [
            {
                "conversation_id": "facts",
                "session_id": f"S{s}",
                "turn_id": f"S{s}:{j}",
                "speaker": rng.choice(SPEAKERS),
                "text": sentence(rng),
                "time": (when + timedelta(minutes=j)).isoformat(),
            }
            for j in range(6)
        ]
    return out


# -- the children (run in their own process, killed with SIGKILL) --------------------------------


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def child_ingest(home: str, run: str, child: int, index_every: int, die: str = "") -> None:
    """Ingest until killed. `die` makes the child kill itself at a chosen point instead (tests):
    "after-commit" (batch 3 committed, its ack never printed) or "in-index" (vectors written to
    Chroma, coverage not yet recorded)."""
    from emem.memory import Memory

    memory = Memory(home)
    if die == "in-index":
        memory.episodes.set_coverage = lambda *args: _die()  # type: ignore[method-assign]
    print("READY", flush=True)
    batch = 0
    while True:
        memory.add_turns(batch_turns(run, child, batch), namespace=NS)
        if die == "after-commit" and batch == 3:
            _die()
        print(f"ACK {batch}", flush=True)
        batch += 1
        if batch % index_every == 0:
            memory.index(NS)


class SlowExtractor:
    """The offline extractor, slowed down so a kill lands between session transactions."""

    def __init__(self, delay: float, die_after: int = 0) -> None:
        from emem.extract.offline import OfflineExtractor

        self._inner = OfflineExtractor()
        self.name = self._inner.name
        self.delay = delay
        self.die_after = die_after
        self.calls = 0

    def __call__(self, turns):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.die_after and self.calls > self.die_after:
            _die()  # mid-run: `die_after` sessions committed, the next one extracted but not written
        time.sleep(self.delay)
        return self._inner(turns)


def child_consolidate(home: str, delay: float, die_after: int = 0) -> None:
    from emem.memory import Memory

    memory = Memory(home)
    extractor = SlowExtractor(delay, die_after)
    extractor._inner(memory.episodes.turns(NS)[:6])  # warm up, so the kill lands in the run
    memory.ledger.get_watermark(NS, "consolidate:" + extractor.name)
    print("READY", flush=True)
    memory.consolidate(NS, extractor)
    print("DONE", flush=True)


# -- checks ------------------------------------------------------------------------------------


def integrity(path: Path) -> str:
    with sqlite3.connect(path, timeout=30) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


def ledger_rows(memory: Any) -> dict[str, Any]:
    """The ledger's content, minus what depends on when it was written (seq, recorded_at)."""
    ledger = memory.ledger
    revs = sorted(
        json.dumps({k: v for k, v in dict(r).items() if k not in ("seq", "recorded_at")}, sort_keys=True)
        for r in ledger._rows("SELECT * FROM revisions WHERE namespace = ?", (NS,))
    )
    rels = sorted(
        json.dumps({k: v for k, v in dict(r).items() if k not in ("seq", "recorded_at")}, sort_keys=True)
        for r in ledger._rows("SELECT * FROM relations WHERE namespace = ?", (NS,))
    )
    marks = sorted(
        (r["name"], r["seq"])
        for r in ledger._rows("SELECT name, seq FROM watermarks WHERE namespace = ?", (NS,))
    )
    return {"revisions": revs, "relations": rels, "watermarks": marks}


def ledger_invariants(memory: Any) -> list[str]:
    problems = []
    ledger = memory.ledger
    triggers = {r["name"] for r in ledger._rows("SELECT name FROM sqlite_master WHERE type='trigger'", ())}
    for name in ("revisions_no_update", "revisions_no_delete", "relations_no_update", "relations_no_delete"):
        if name not in triggers:
            problems.append(f"ledger trigger {name} missing")
    ids = {r["id"] for r in ledger._rows("SELECT id FROM revisions WHERE namespace = ?", (NS,))}
    for r in ledger._rows(
        "SELECT id, target_id FROM revisions WHERE namespace = ? AND kind='revocation'", (NS,)
    ):
        if r["target_id"] not in ids:
            problems.append(f"revocation {r['id'][:12]} targets a missing revision")
    for r in ledger._rows("SELECT id, from_id, to_id FROM relations WHERE namespace = ?", (NS,)):
        if r["from_id"] not in ids or r["to_id"] not in ids:
            problems.append(f"relation {r['id'][:12]} points at a missing revision")
    refs = {f"{t.conversation_id}/{t.turn_id}" for t in memory.episodes.turns(NS)}
    for r in ledger._rows("SELECT id, sources FROM revisions WHERE namespace = ?", (NS,)):
        missing = set(json.loads(r["sources"])) - refs
        if missing:
            problems.append(f"revision {r['id'][:12]} cites unknown turns {sorted(missing)[:2]}")
    last = memory.episodes.last_seq(NS)
    for name, seq in ledger_rows(memory)["watermarks"]:
        if seq > last:
            problems.append(f"watermark {name} at {seq} beyond the last turn {last}")
    return problems


def check_ingest(
    home: Path, run: str, child: int, acked: set[int], rng: random.Random
) -> tuple[list[str], int]:
    """Reopen the home after a kill; return (problems, batches committed without an ack)."""
    from emem.index.dense import fetch_vectors
    from emem.index.manager import DENSE_TURNS
    from emem.memory import Memory
    from emem.models import Turn

    problems: list[str] = []
    for name in ("episodes.sqlite3", "ledger.sqlite3", "chroma/chroma.sqlite3"):
        if (home / name).exists() and (verdict := integrity(home / name)) != "ok":
            problems.append(f"{name}: integrity_check says {verdict}")
    with Memory(home) as memory:
        stored = {(t.conversation_id, t.turn_id): t for t in memory.episodes.turns(NS)}
        mine = {k: t for k, t in stored.items() if k[0] == f"conv-{child}"}
        batches = {int(tid.split("-")[0][1:]) for _, tid in mine}
        for batch in sorted(acked | batches):
            expected = batch_turns(run, child, batch)
            present = [mine.get((e["conversation_id"], e["turn_id"])) for e in expected]
            if batch in acked and not all(present):
                problems.append(f"acknowledged batch {batch} lost {sum(p is None for p in present)} turns")
            elif any(present) and not all(present):
                problems.append(
                    f"batch {batch} half-written: {sum(p is not None for p in present)}/{len(present)}"
                )
            for e, p in zip(expected, present, strict=True):
                if p is not None and p.hash != Turn(**e).content_hash():
                    problems.append(f"turn {e['turn_id']} stored with different content")
        if len(mine) != sum(len(batch_turns(run, child, b)) for b in batches):
            problems.append("stored turns that no batch sent")
        unacked = len(batches - acked)
        memory.index(NS)
        last = memory.episodes.last_seq(NS)
        keys = [str(t.seq) for t in memory.episodes.turns(NS)]
        dense = memory.indexes._indexes(NS).dense
        if dense.count() != len(keys):
            problems.append(f"dense index holds {dense.count()} vectors for {len(keys)} turns")
        coverage = memory.stats(NS).index_coverage
        if coverage.get(DENSE_TURNS) != last or coverage.get("bm25_turns") != last:
            problems.append(f"index coverage {coverage} short of the last turn {last}")
        vectors = fetch_vectors(dense, keys)
        if len(keys) and int((abs(vectors).sum(axis=1) == 0).sum()):
            problems.append("some turns have no vector")
        if acked:
            batch = rng.choice(sorted(acked))
            token = batch_turns(run, child, batch)[0]["text"].split()[0]
            hits = [h.turn_id for h in memory.search(token, namespace=NS, k=3)]
            if f"b{batch}-0of{len(batch_turns(run, child, batch))}" not in hits:
                problems.append(f"search for {token} misses its turn")
        memory.consolidate(NS)
        problems += ledger_invariants(memory)
    return problems, unacked


# -- erasure ------------------------------------------------------------------------------------

ERASE_CHILD = 1000
"""Child number whose batches fill an erasure home (their turns carry unique tokens)."""


def child_erase(home: str, victim: str) -> None:
    """Erase `victim` ("session:<id>" or "namespace"); the kill comes from outside or from
    EMEM_ERASURE_KILL_AT."""
    from emem.memory import Memory

    memory = Memory(home)
    print("READY", flush=True)
    if victim == "namespace":
        memory.drop_namespace(NS, reason="crash loop")
    else:
        memory.forget(
            namespace=NS,
            session_id=victim.split(":", 1)[1],
            conversation_id=f"conv-{ERASE_CHILD}",
            reason="crash loop",
        )
    print("DONE", flush=True)


def _files_holding(home: Path, needles: list[bytes]) -> list[str]:
    hits = []
    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            hits += [f"{path.relative_to(home)}" for n in needles if n in data]
    return sorted(set(hits))


def erase_kill(
    root: Path,
    run: str,
    n: int,
    rng: random.Random,
    summary: Summary,
    step: str | None = None,
    victim: str | None = None,
) -> str:
    """One erasure killed at `step` (a step of emem.erasure.STEPS or "random"; drawn when None)."""
    from emem.erasure import KILL_ENV, STEPS
    from emem.memory import Memory

    home = root / f"erase-{n}"
    batches = 8
    with Memory(home) as memory:
        for b in range(batches):
            memory.add_turns(batch_turns(run, ERASE_CHILD, b), namespace=NS)
        memory.consolidate(NS)
        memory.index(NS)
    victim = victim or ("namespace" if rng.random() < 0.25 else f"session:b{rng.randrange(batches)}")
    doomed = [
        t
        for b in range(batches)
        for t in batch_turns(run, ERASE_CHILD, b)
        if victim == "namespace" or t["session_id"] == victim.split(":", 1)[1]
    ]
    kept = [t for b in range(batches) for t in batch_turns(run, ERASE_CHILD, b) if t not in doomed]
    step = step or rng.choice([*STEPS, "random"])
    env = {**os.environ, KILL_ENV: "" if step == "random" else step}
    code = "import sys; from eval.crash_loop import _child_main; _child_main(sys.argv[1:])"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "erase", str(home), victim],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if step == "random":
        _wait_ready(proc)
        time.sleep(rng.uniform(0.0, 1.5))
        _, err = _kill(proc)
    else:
        _, err = proc.communicate(timeout=300)
    problems: list[str] = []
    if step != "random" and proc.returncode != -signal.SIGKILL:
        problems.append(f"erase child exited {proc.returncode} instead of dying at {step}: {err[-300:]}")
    tokens = [t["text"].split()[0].encode() for t in doomed]
    for name in ("episodes.sqlite3", "ledger.sqlite3", "chroma/chroma.sqlite3"):
        if (home / name).exists() and (verdict := integrity(home / name)) != "ok":
            problems.append(f"{name}: integrity_check says {verdict}")
    with Memory(home) as memory:  # opening finishes an erasure that had committed
        if memory.episodes.pending_erasures():
            problems.append("an erasure is still pending after reopen")
        stored = {t.turn_id for t in memory.episodes.turns(NS)}
        recorded = not any(t["turn_id"] in stored for t in doomed)
        if not recorded:
            if not all(t["turn_id"] in stored for t in doomed):
                problems.append("an unrecorded erasure deleted some turns")
    if not recorded:  # killed before the commit: nothing happened; a rerun must finish it
        rerun = subprocess.run(
            [sys.executable, "-c", code, "erase", str(home), victim],
            cwd=REPO,
            env={**os.environ, KILL_ENV: ""},
            capture_output=True,
            text=True,
            timeout=300,
        )
        if rerun.returncode != 0:
            problems.append(f"rerun of the erasure failed: {rerun.stderr[-300:]}")
    with Memory(home) as memory:
        tombs = [t["id"] for t in memory.ledger.tombstones(NS) if t["kind"] == "turn"]
        stored = {t.turn_id for t in memory.episodes.turns(NS)}
        if any(t["turn_id"] in stored for t in doomed):
            problems.append("erased turns still stored")
        if not all(t["turn_id"] in stored for t in kept):
            problems.append("a turn that was not erased is gone")
        missing = [t["turn_id"] for t in doomed if f"turn:conv-{ERASE_CHILD}/{t['turn_id']}" not in tombs]
        if missing or len(tombs) != len(set(tombs)):
            problems.append(f"tombstones: {len(missing)} missing, {len(tombs) - len(set(tombs))} duplicated")
        memory.index(NS)
        count = memory.indexes.current(NS).dense.count()
        if count != len(stored):
            problems.append(f"dense index holds {count} vectors for {len(stored)} turns")
    left = _files_holding(home, tokens)
    if left:
        problems.append(f"erased tokens left in {left}")
    summary.kills += 1
    summary.erase_kills += 1
    summary.erase_recorded += int(recorded)
    summary.problems += [f"kill {summary.kills}: {p}" for p in problems]
    return (
        f"kill {summary.kills:3d} erase ({victim}): killed at {step}, "
        f"{'committed, finished on reopen' if recorded else 'not committed, rerun finished it'}"
        + (f" {problems}" if problems else " OK")
    )


# -- the loop ----------------------------------------------------------------------------------


@dataclass
class Summary:
    kills: int = 0
    ingest_kills: int = 0
    consolidate_kills: int = 0
    consolidate_mid_run: int = 0
    erase_kills: int = 0
    erase_recorded: int = 0
    """Erasure kills that landed after the erasure committed (finished on reopen)."""
    acked_batches: int = 0
    unacked_committed: int = 0
    turns_stored: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"crash loop: {self.kills} SIGKILLs ({self.ingest_kills} during ingestion/indexing, "
            f"{self.consolidate_kills} during consolidation, {self.consolidate_mid_run} of them mid-run, "
            f"{self.erase_kills} during erasure, {self.erase_recorded} of them after it committed); "
            f"{self.acked_batches} acknowledged batches all intact, {self.unacked_committed} committed "
            f"before their ack was printed, {self.turns_stored} turns stored; problems: {len(self.problems)}"
        )


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    code = "import sys; from eval.crash_loop import _child_main; _child_main(sys.argv[1:])"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_ready(proc: subprocess.Popen[str], timeout: float = 120) -> None:
    assert proc.stdout is not None
    timer = threading.Timer(timeout, proc.kill)  # a child that hangs at start fails, never blocks
    timer.start()
    try:
        line = proc.stdout.readline()
    finally:
        timer.cancel()
    if line.strip() != "READY":
        err = proc.stderr.read() if proc.stderr else ""
        raise RuntimeError(f"child did not start: {line!r} {err[-2000:]}")


def _kill(proc: subprocess.Popen[str]) -> tuple[list[str], str]:
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    return out.splitlines(), err


def ingest_kill(
    home: Path,
    run: str,
    child: int,
    rng: random.Random,
    summary: Summary,
    log,  # type: ignore[no-untyped-def]
    max_wait: float = 2.5,
) -> None:
    proc = _spawn(["ingest", str(home), run, str(child), str(rng.choice([1, 2, 3]))])
    _wait_ready(proc)
    time.sleep(rng.uniform(0.05, max_wait))
    lines, err = _kill(proc)
    acked = {int(x.split()[1]) for x in lines if x.startswith("ACK ")}
    if proc.returncode != -signal.SIGKILL:
        summary.problems.append(
            f"ingest child {child} exited {proc.returncode} before the kill: {err[-500:]}"
        )
    problems, unacked = check_ingest(home, run, child, acked, rng)
    summary.kills += 1
    summary.ingest_kills += 1
    summary.acked_batches += len(acked)
    summary.unacked_committed += unacked
    summary.problems += [f"kill {summary.kills}: {p}" for p in problems]
    log(
        f"kill {summary.kills:3d} ingest: {len(acked)} acked, {unacked} committed unacked, "
        f"{'OK' if not problems else problems}"
    )


def consolidate_kill(
    root: Path, run: str, n: int, rng: random.Random, summary: Summary, reference: dict
) -> str:
    from emem.memory import Memory

    home = root / f"consolidate-{n}"
    with Memory(home) as memory:
        memory.add_turns(consolidation_turns(run), namespace=NS)
        total = memory.episodes.last_seq(NS)
    proc = _spawn(["consolidate", str(home), "0.03"])
    _wait_ready(proc)
    time.sleep(rng.uniform(0.05, 2.5))
    lines, _ = _kill(proc)
    with Memory(home) as memory:
        mark = memory.ledger.get_watermark(NS, "consolidate:offline-rules/1")
        mid = 0 < mark < total and "DONE" not in lines
        memory.consolidate(NS)
        same = ledger_rows(memory) == reference
        problems = [] if same else ["rerun after the kill gives a different ledger than an uninterrupted run"]
        problems += ledger_invariants(memory)
    summary.kills += 1
    summary.consolidate_kills += 1
    summary.consolidate_mid_run += int(mid)
    summary.problems += [f"kill {summary.kills}: {p}" for p in problems]
    return (
        f"kill {summary.kills:3d} consolidate: killed at watermark {mark}/{total}, rerun "
        f"{'identical to the uninterrupted run' if same else 'DIFFERENT'}"
        + (f" {problems}" if problems else "")
    )


def run_loop(kills: int, root: Path, seed: int = 0, log=print, max_wait: float = 2.5) -> Summary:  # type: ignore[no-untyped-def]
    """`kills` SIGKILLs; an ingest child is killed up to `max_wait` seconds after it started."""
    from emem.memory import Memory

    rng = random.Random(seed)
    run = f"run{seed}"
    summary = Summary()
    reference_home = root / "reference"
    with Memory(reference_home) as memory:
        memory.add_turns(consolidation_turns(run), namespace=NS)
        memory.consolidate(NS)
        reference = ledger_rows(memory)
    home = root / "ingest"
    for n in range(kills):
        if n % 4 == 2:
            log(consolidate_kill(root, run, n, rng, summary, reference))
        elif n % 4 == 3:
            log(erase_kill(root, run, n, rng, summary))
        else:
            ingest_kill(home, run, n, rng, summary, log, max_wait)
    with Memory(home) as memory:
        summary.turns_stored = memory.episodes.counts(NS)[2]
    return summary


def _child_main(argv: list[str]) -> None:
    if argv[0] == "ingest":
        child_ingest(argv[1], argv[2], int(argv[3]), int(argv[4]), *argv[5:])
    elif argv[0] == "consolidate":
        child_consolidate(argv[1], float(argv[2]), *map(int, argv[3:]))
    elif argv[0] == "erase":
        child_erase(argv[1], argv[2])
    else:
        raise SystemExit(f"unknown child {argv[0]!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=50, help="how many SIGKILLs (default 50)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", type=Path, default=None, help="work directory (default: a fresh temp dir)")
    args = ap.parse_args(argv)
    root = args.dir or Path(tempfile.mkdtemp(prefix="emem-crash-"))
    started = time.perf_counter()
    summary = run_loop(args.kills, root, args.seed)
    print(summary.line() + f" [{time.perf_counter() - started:.0f}s, {root}]")
    for problem in summary.problems:
        print("  PROBLEM", problem)
    return 1 if summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
