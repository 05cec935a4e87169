"""Agent-loop benchmark: an agent appends a turn and asks its memory on the very next step.

    python -m emem.eval.bench_loop --data /work/shared/data/locomo10.json --conversations 3

The first N LoCoMo conversations go into ONE namespace (what one user's long history looks like),
minus the last `--appends` turns, which are appended one at a time, each followed by an ask: the
"first ask after appending one turn". Then ask fast / deep and search are timed over LoCoMo
questions, and the process RSS is read. Figures are medians (p50) of this run.

Where the read path has a switch for today's code path (`ReadRuntime.cached`, when present), the
same `Memory` runs each measurement with it on and off, alternating which goes first, so each
figure is printed against today's path in the same run. (That switch covers the view and vector
cache only: the incremental BM25, Chroma settings and vectorised routing apply to both arms. To
compare against main itself, use `bench_loop_ab` with main's install.) Without the switch (older commits) only
the first arm runs: compare such runs at two commits. (Two `Memory` objects were tried as the
two arms: whichever was opened first ran ~20% slower, whatever its settings.)
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from emem.eval.loop_worker import rss_mb
from emem.ingest.locomo import parse_locomo
from emem.memory import Memory
from emem.retrieval.hybrid import hybrid_turns

NAMESPACE = "loop"


def timed_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def row(name: str, new: list[float], old: list[float] | None, unit: str = "ms") -> str:
    text = f"{name:<44} p50 {p50(new):9.1f} {unit} (n={len(new)})"
    if old:
        text += f"   today's path {p50(old):9.1f} {unit} (n={len(old)}), ratio {p50(old) / max(p50(new), 1e-9):.1f}x"
    return text


def switch(m: Memory) -> Callable[[bool], None] | None:
    """Sets today's code path on (False) or off (True); None when this commit has no switch."""
    runtime = getattr(m, "read_runtime", None)
    if runtime is None or not hasattr(runtime, "cached"):
        return None

    def set_cached(on: bool) -> None:
        runtime.cached = on

    return set_cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="path to locomo10.json")
    ap.add_argument("--home", type=Path, default=None, help="store location (default: a temp dir)")
    ap.add_argument("--conversations", type=int, default=1, help="LoCoMo conversations, all in one namespace")
    ap.add_argument("--appends", type=int, default=8, help="turns appended one at a time, each then asked")
    ap.add_argument("--questions", type=int, default=30, help="LoCoMo questions timed for ask and search")
    ap.add_argument("--no-baseline", action="store_true", help="skip today's code path even when it exists")
    args = ap.parse_args()
    samples = json.loads(args.data.read_text())[: args.conversations]
    home = args.home or Path(tempfile.mkdtemp(prefix="emem-loop-"))
    turns, sessions = [], []
    for s in samples:
        batch = parse_locomo(s, s["sample_id"])
        turns += batch.turns
        sessions += batch.sessions
    held = turns[-args.appends :]
    questions = [qa["question"] for s in samples for qa in s["qa"]]
    step = max(1, len(questions) // max(args.questions, 1))
    questions = questions[::step][: args.questions]

    m = Memory(home)
    m.episodes.append(NAMESPACE, turns[: -args.appends], sessions)
    catchup_s, report = timed_ms(lambda: m.index(NAMESPACE))
    rate = report.new_turns / (catchup_s / 1000)
    use = None if args.no_baseline else switch(m)
    arms = [True, False] if use else [True]
    cold: dict[bool, float] = {}
    for on in arms[::-1]:  # today's path first: the new one then starts from an empty cache too
        if use:
            use(on)
            m.read_runtime.forget(NAMESPACE)
        cold[on] = timed_ms(lambda: m.ask(questions[0], namespace=NAMESPACE, mode="deep"))[0]

    first: dict[bool, list[float]] = {on: [] for on in arms}
    same = 0
    for i, t in enumerate(held):
        m.episodes.append(NAMESPACE, [t])
        on = arms[i % len(arms)]
        if use:
            use(on)
        q = questions[i % len(questions)]
        ms, answer = timed_ms(partial(m.ask, q, namespace=NAMESPACE, mode="deep"))
        first[on].append(ms)
        if on:
            with Memory(home) as fresh:  # the same answer as a fresh process gives from this home
                same += fresh.ask(q, namespace=NAMESPACE, mode="deep").answer == answer.answer
    reopen_ms = 0.0
    with Memory(home) as fresh:  # a new Memory's first ask: summary vectors come from the cache
        reopen_ms = timed_ms(lambda: fresh.ask(questions[0], namespace=NAMESPACE, mode="deep"))[0]

    fast: dict[bool, list[float]] = {on: [] for on in arms}
    deep: dict[bool, list[float]] = {on: [] for on in arms}
    search: dict[bool, list[float]] = {on: [] for on in arms}
    for i, q in enumerate(questions):
        for on in arms if i % 2 == 0 else arms[::-1]:  # alternate: process-wide memos favour the second
            if use:
                use(on)
            fast[on].append(timed_ms(partial(m.ask, q, namespace=NAMESPACE, mode="fast"))[0])
            deep[on].append(timed_ms(partial(m.ask, q, namespace=NAMESPACE, mode="deep"))[0])
            search[on].append(timed_ms(partial(m.search, q, namespace=NAMESPACE, k=10))[0])
    # The search core alone (hybrid_turns: BM25 + dense + RRF), dense half exact vs Chroma's index.
    ns = m.indexes.current(NAMESPACE)
    core: dict[str, list[float]] = {"exact": [], "chroma": []}
    has_exact = "exact" in inspect.signature(hybrid_turns).parameters  # absent before exact scoring
    for q in questions if has_exact else []:
        core["exact"].append(timed_ms(partial(hybrid_turns, ns, q, 10))[0])
        core["chroma"].append(timed_ms(partial(hybrid_turns, ns, q, 10, exact=False))[0])
    rss = rss_mb()
    m.close()

    old = (lambda d: d.get(False)) if use else (lambda d: None)
    print(
        f"emem agent-loop benchmark — {len(samples)} LoCoMo conversation(s) in one namespace, {len(turns)} turns"
    )
    print(f"home {home}; today's path in this run: {'yes (ReadRuntime.cached=False)' if use else 'no'}")
    print(f"index catch-up: {report.new_turns} turns in {catchup_s / 1000:.1f} s = {rate:.0f} turns/s")
    print(
        f"first ask ever (view built, nothing cached): {cold[True]:.0f} ms"
        + (f"; today's path {cold[False]:.0f} ms" if use else "")
    )
    print(row("first ask (deep) after appending one turn", first[True], old(first)))
    print(f"  answer equal to a fresh process's: {same}/{len(first[True])}")
    print(f"first ask of a new Memory on this home (same process, model loaded): {reopen_ms:.0f} ms")
    print(row("ask fast", fast[True], old(fast)))
    print(row("ask deep", deep[True], old(deep)))
    print(row("search k=10 (Memory.search)", search[True], None))
    if core["exact"]:
        print(row("search core (hybrid_turns), exact dense", core["exact"], core["chroma"]))
        print("  (its baseline: the same call on Chroma's approximate index, today's dense half)")
    print(f"process RSS at the end: {rss:.0f} MB")


if __name__ == "__main__":
    main()
