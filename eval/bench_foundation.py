"""Foundation benchmark: durable write latency, ingest throughput, index catch-up, search latency.

    python -m emem.eval.bench_foundation --data ../shared/data/locomo10.json

Each LoCoMo conversation goes into its own namespace (a LoCoMo-sized namespace). Baselines run in
the same process: a non-durable in-memory SQLite append (what durability costs) and BM25-only
search (what the dense half and fusion cost).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from emem.ingest.locomo import parse_locomo
from emem.memory import Memory
from emem.retrieval.hybrid import hybrid_turns


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def baseline_append_ms(turns) -> list[float]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (id TEXT PRIMARY KEY, text TEXT)")
    out = []
    for t in turns:
        start = time.perf_counter()
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t VALUES (?, ?)", (f"{t.conversation_id}/{t.turn_id}", t.text))
        conn.execute("COMMIT")
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="path to locomo10.json")
    ap.add_argument("--home", type=Path, default=None, help="store location (default: a temp dir)")
    ap.add_argument("--conversations", type=int, default=10)
    args = ap.parse_args()
    samples = json.loads(args.data.read_text())[: args.conversations]
    home = args.home or Path(tempfile.mkdtemp(prefix="emem-bench-"))
    per_turn, batch_rates, catchup, search_ms, bm25_ms, base = [], [], [], [], [], []
    with Memory(home) as m:
        for i, sample in enumerate(samples):
            batch = parse_locomo(sample, sample["sample_id"])
            half = len(batch.turns) // 2
            # 1) one durable transaction per turn (acknowledged = committed)
            for t in batch.turns[:half]:
                start = time.perf_counter()
                m.episodes.append(f"turn-{i}", [t])
                per_turn.append((time.perf_counter() - start) * 1000)
            base += baseline_append_ms(batch.turns[:half])
            # 2) whole-conversation atomic batch into its own namespace
            start = time.perf_counter()
            m.episodes.append(f"bench-{i}", batch.turns, batch.sessions)
            batch_rates.append(len(batch.turns) / (time.perf_counter() - start))
            # 3) index catch-up (dense embeddings + BM25)
            catchup.append(m.index(f"bench-{i}").seconds)
            ns = m.indexes.current(f"bench-{i}")
            for qa in sample["qa"]:
                q = qa["question"]
                start = time.perf_counter()
                m.search(q, namespace=f"bench-{i}", k=10)
                search_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                ns.bm25.search(q, 10)
                bm25_ms.append((time.perf_counter() - start) * 1000)
            assert hybrid_turns(ns, "hello", 1) is not None
    n_turns = sum(len(parse_locomo(s).turns) for s in samples)
    print(f"emem foundation benchmark — {len(samples)} LoCoMo conversations, {n_turns} turns, home {home}")
    print(
        f"durable append, one turn per transaction: p50 {pct(per_turn, 0.5):.3f} ms, p95 {pct(per_turn, 0.95):.3f} ms "
        f"(n={len(per_turn)})"
    )
    print(
        f"  baseline non-durable in-memory SQLite: p50 {pct(base, 0.5):.4f} ms; ratio {pct(per_turn, 0.5) / pct(base, 0.5):.1f}x"
    )
    print(
        f"batch ingest throughput (one atomic transaction per conversation): median {statistics.median(batch_rates):,.0f} turns/s"
    )
    print(
        f"index catch-up per conversation (embed + Chroma + BM25): median {statistics.median(catchup):.2f} s, "
        f"total {sum(catchup):.1f} s"
    )
    print(
        f"search (hybrid BM25+dense, k=10) over {len(search_ms)} LoCoMo questions: p50 {pct(search_ms, 0.5):.2f} ms, "
        f"p95 {pct(search_ms, 0.95):.2f} ms"
    )
    print(
        f"  baseline BM25 only: p50 {pct(bm25_ms, 0.5):.2f} ms; hybrid/BM25 ratio {pct(search_ms, 0.5) / pct(bm25_ms, 0.5):.1f}x"
    )


if __name__ == "__main__":
    main()
