"""What deep mode's routing hops cost per ask: one process, one home, the same questions asked with
each hop limit in turn (rounds alternate the order), process-CPU medians.

    python eval/loop_worker.py build --data locomo10.json --home H --conversations 10
    python -m emem.eval.bench_hop_cost --data locomo10.json --home H --conversations 10

Why: issue #16's third hop buys multi-session recall and issue #17 bounds deep's latency; this
prints what the one costs the other, on the agent-loop benchmark's home (namespace `loop`) and
questions (every 20th LoCoMo question of the conversations, the first 10 only warming up).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="path to locomo10.json")
    ap.add_argument("--home", type=Path, required=True, help="a home built by eval/loop_worker.py build")
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--hops", default="2,3", help="comma-separated hop limits to compare")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from emem import Memory

    data = json.loads(args.data.read_text())[: args.conversations]
    questions = [qa["question"] for s in data for qa in s["qa"]][::20][: 10 + args.questions]
    warm, timed = questions[:10], questions[10:]
    limits = [int(h) for h in args.hops.split(",")]
    memory = Memory(home=args.home)
    runtime = memory.read_runtime
    for q in warm:
        memory.ask(q, namespace="loop", mode="deep")
    medians: dict[int, list[float]] = {h: [] for h in limits}
    for r in range(args.rounds):
        for hops in limits if r % 2 == 0 else limits[::-1]:
            runtime.max_hops = hops
            took = []
            for q in timed:
                start = time.process_time()
                memory.ask(q, namespace="loop", mode="deep")
                took.append((time.process_time() - start) * 1000)
            medians[hops].append(statistics.median(took))
    print(f"deep ask, process CPU p50 per round ({len(timed)} questions, {args.rounds} rounds):")
    for hops in limits:
        rounds = ", ".join(f"{m:.1f}" for m in medians[hops])
        print(f"  max_hops={hops}: {rounds} ms; median {statistics.median(medians[hops]):.1f} ms")


if __name__ == "__main__":
    main()
