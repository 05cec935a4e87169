"""What currentness costs the fast path, and what read-through consolidation costs the first read
after a write, on LoCoMo-size namespaces (offline roles).

    python -m emem.eval.bench_currentness --data ../shared/data/locomo10.json [--conversations 0] [--appends 20]

For every question of the chosen conversations, the fast path is asked twice in the same process,
in alternating order: as shipped (the ledger resolves what the plan names; stale turns rank last)
and with currentness off (`ReadRuntime(currentness=False)`, today's fast path before it). Reported:
p50/p95 of each, the p50 of the per-question difference, and their ratio. Then single turns are
appended and the first `ask` after each reports its consolidation stage (`stage_latency_ms`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from emem.agents.master import DEFAULT_BUDGET, ReadRuntime, ask_graph, master_graph
from emem.eval.bench_retrieval import ingest_conversation, pct
from emem.eval.locomo_data import iter_questions, load_locomo
from emem.memory import Memory

APPENDED = (
    "I moved to Lisbon last week, the light here is amazing.",
    "I started a new job at a design studio on Monday.",
    "My new phone number is 555-0142, text me anytime.",
    "We adopted a puppy named Biscuit yesterday!",
    "I'm vegetarian now, it has been a month.",
)
"""Statements the extractor reads as facts (a move, a job, a phone, a pet, a diet), so each append
gives consolidation real work, not only a watermark check."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "emem-bench-currentness")
    ap.add_argument("--conversations", default="0", help="comma-separated indexes (default: 0)")
    ap.add_argument("--appends", type=int, default=20)
    args = ap.parse_args()
    samples = load_locomo(args.data)
    raw = json.loads(args.data.read_text())
    chosen = [int(x) for x in args.conversations.split(",")]
    on_ms: list[float] = []
    off_ms: list[float] = []
    diff_ms: list[float] = []
    settle_ms: list[float] = []
    turns = 0
    t0 = time.perf_counter()
    with Memory(args.home) as m:
        with_ledger = ReadRuntime(m, m.roles, currentness=True)
        without = ReadRuntime(m, m.roles, currentness=False)
        for ci in chosen:
            ns = ingest_conversation(m, raw[ci], samples[ci].sample_id)
            turns += m.stats(ns).turns
            questions = [q.question for q in iter_questions([samples[ci]])]
            for rt in (with_ledger, without):  # warm both views and caches
                ask_graph(master_graph(), questions[0], ns, "fast", None, DEFAULT_BUDGET, context=rt)
            for i, q in enumerate(questions):
                order = (with_ledger, without) if i % 2 == 0 else (without, with_ledger)
                took = {}
                for rt in order:
                    took[rt is with_ledger] = ask_graph(
                        master_graph(), q, ns, "fast", None, DEFAULT_BUDGET, context=rt
                    ).latency_ms
                on_ms.append(took[True])
                off_ms.append(took[False])
                diff_ms.append(took[True] - took[False])
            start = datetime.now(UTC)
            for k in range(args.appends):
                when = start + timedelta(minutes=k)
                m.add_turns([{"conversation_id": f"bench-{start:%Y%m%d%H%M%S}", "session_id": f"A{k}",
                              "turn_id": f"A{k}:1", "speaker": "user", "text": APPENDED[k % len(APPENDED)],
                              "time": when.isoformat()}], namespace=ns)  # fmt: skip
                a = m.ask("Where does the user live now?", namespace=ns, mode="fast")
                settle_ms.append(a.stage_latency_ms.get("consolidate", 0.0))
    p50_on, p50_off = statistics.median(on_ms), statistics.median(off_ms)
    print(
        f"emem currentness benchmark — conversations {args.conversations} ({turns} turns), "
        f"{len(on_ms)} questions, fast mode, offline roles; {time.perf_counter() - t0:.0f} s"
    )
    print("| fast path | p50 ms | p95 ms |")
    print("| --- | --- | --- |")
    print(f"| currentness off (before) | {p50_off:.2f} | {pct(off_ms, 0.95):.2f} |")
    print(f"| as shipped (ledger + stale ranking) | {p50_on:.2f} | {pct(on_ms, 0.95):.2f} |")
    print(
        f"added p50 {statistics.median(diff_ms):.2f} ms per question (paired), ratio of p50s {p50_on / p50_off:.3f}"
    )
    if settle_ms:
        print(
            f"read-through consolidation of one appended turn: p50 {statistics.median(settle_ms):.2f} ms, "
            f"p95 {pct(settle_ms, 0.95):.2f} ms over {len(settle_ms)} appends"
        )


if __name__ == "__main__":
    main()
