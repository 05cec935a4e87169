"""Async read path benchmark: `aask` against `ask` on a deep question whose five assistants call
a scripted LLM that takes a fixed time per call (no real model, so only emem's overhead and its
concurrency show).

    python -m emem.eval.bench_async [--delay 0.3] [--repeats 7]

Reports medians over the repeats for: one deep `ask`; one deep `aask`; five different questions
asked one after another with `ask`; the same five at once with `asyncio.gather(aask...)`, on
the loop's default executor (min(32, cores + 4) threads) and on a 32-thread one. With
`delay` d and five assistants a serial fan-out would take >= 5d; an overlapping one about d.
The model also counts the most calls in flight at once.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from emem.agents.roles import RoleModels
from emem.cli.demo import example_conversation
from emem.eval.slow_llm import SlowScriptedChat
from emem.llm.langchain_adapter import LangChainChatModel
from emem.memory import Memory

QUESTIONS = [
    "What pets do Alice and Ben have?",
    "Where has Alice lived?",
    "What does Ben do for work?",
    "What hobbies does Alice have?",
    "Where did Ben travel?",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delay", type=float, default=0.3, help="seconds per scripted LLM call")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    slow = SlowScriptedChat(delay=args.delay)
    roles = RoleModels({"assistant": LangChainChatModel(slow, model="slow-scripted")})
    home = Path(tempfile.mkdtemp(prefix="emem-bench-async-"))
    with Memory(home, roles=roles) as m:
        m.add_conversation(example_conversation(), namespace="demo")
        first = m.ask(QUESTIONS[0], namespace="demo", mode="deep")  # warm: indexes, view, embedder
        n_assist = len(first.activated_segments)
        rows: dict[str, list[float]] = {
            "ask": [],
            "aask": [],
            "5 x ask, serial": [],
            "5 x aask, gather": [],
            "5 x aask, gather, 32 threads": [],
        }
        in_flight: dict[str, int] = {}

        def timed(name: str, fn) -> None:
            slow.max_in_flight = 0
            start = time.perf_counter()
            fn()
            rows[name].append(time.perf_counter() - start)
            in_flight[name] = max(in_flight.get(name, 0), slow.max_in_flight)

        async def gather_all(workers: int | None = None) -> None:
            if workers is not None:  # sync nodes run on the loop's default executor
                asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(workers))
            await asyncio.gather(*(m.aask(q, namespace="demo", mode="deep") for q in QUESTIONS))

        for _ in range(args.repeats):
            timed("ask", lambda: m.ask(QUESTIONS[0], namespace="demo", mode="deep"))
            timed("aask", lambda: asyncio.run(m.aask(QUESTIONS[0], namespace="demo", mode="deep")))
            timed("5 x ask, serial", lambda: [m.ask(q, namespace="demo", mode="deep") for q in QUESTIONS])
            timed("5 x aask, gather", lambda: asyncio.run(gather_all()))
            timed("5 x aask, gather, 32 threads", lambda: asyncio.run(gather_all(32)))
    print(
        f"emem async benchmark: deep asks, {n_assist} assistants per question, scripted LLM {args.delay:.2f} s/call, "
        f"{args.repeats} repeats (medians)"
    )
    base = statistics.median(rows["ask"])
    print("| run | median s | vs one `ask` | most LLM calls in flight |")
    print("|---|---|---|---|")
    for name, values in rows.items():
        med = statistics.median(values)
        print(f"| {name} | {med:.3f} | {med / base:.2f}x | {in_flight[name]} |")
    print(
        f"serial fan-out floor for one question: {n_assist * args.delay:.2f} s; overlapped: {args.delay:.2f} s"
    )


if __name__ == "__main__":
    main()
