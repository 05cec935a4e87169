"""One arm of the agent-loop A/B benchmark (eval/bench_loop_ab.py), run as a script by path so the
same file measures whichever emem the interpreter has installed (this branch, or main's).

    python eval/loop_worker.py build   --data locomo10.json --home H --conversations 10
    python eval/loop_worker.py measure --data locomo10.json --home H --conversations 10

`build` appends the conversations (minus the last `--appends` turns of the last namespace) and
catches the indexes up; `catchup` appends every turn of the conversations to a new home and times
that one catch-up (wall and process CPU, the model opened beforehand); `warm` catches them up again with this arm's embedder (a no-op when the
home was built with it). `measure` opens the home in a fresh process and times: import and open
(cold start), the first ask, `--appends` times "append one turn, then ask deep" (the first ask
after a write), then fast, deep and search over LoCoMo questions, then search over as many
questions never asked in the process (a new query's embedding included). It prints one JSON
object.
Only public API is used, with `namespace=` as a keyword (both argument orders take it), plus
`Memory.episodes.append`, so both arms run it.
With `--namespaces N`, N namespaces each hold one conversation (cycled), cut to `--turns` turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def rss_mb() -> float:
    """Resident set size now (not the peak), from /proc; 0 where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def load(args: argparse.Namespace) -> tuple[list[tuple[str, list[Any], list[Any]]], list[str]]:
    """[(namespace, turns, sessions)] and the questions, as both arms will see them."""
    from emem.ingest.locomo import parse_locomo

    data = json.loads(Path(args.data).read_text())
    out = []
    if args.namespaces:
        for i in range(args.namespaces):
            s = data[i % len(data)]
            batch = parse_locomo(s, s["sample_id"])
            turns = batch.turns[: args.turns] if args.turns else batch.turns
            out.append((f"ns{i:03d}", turns, batch.sessions))
        questions = [qa["question"] for s in data for qa in s["qa"]]
    else:
        turns, sessions = [], []
        for s in data[: args.conversations]:
            batch = parse_locomo(s, s["sample_id"])
            turns += batch.turns
            sessions += batch.sessions
        out.append(("loop", turns, sessions))
        questions = [qa["question"] for s in data[: args.conversations] for qa in s["qa"]]
    step = max(1, len(questions) // max(args.questions, 1))
    return out, questions[::step][: args.questions]


def unasked(args: argparse.Namespace, asked: list[str]) -> list[str]:
    """As many LoCoMo questions as `load` picks, none of them asked by `measure` before: search
    on these embeds a new query, which the searches after an ask of the same question do not."""
    data = json.loads(Path(args.data).read_text())
    pool = [qa["question"] for s in data[: max(args.conversations, 1)] for qa in s["qa"]]
    seen = set(asked)
    fresh = [q for q in dict.fromkeys(pool[1::2]) if q not in seen]
    step = max(1, len(fresh) // max(args.questions, 1))
    return fresh[::step][: args.questions]


def options(args: argparse.Namespace) -> dict[str, Any]:
    """Memory keyword arguments: the shipped model or its quantised copy, when asked; by default
    whatever the installed emem chooses (`EMEM_EMBEDDER`, else its default)."""
    if args.embedder == "default":
        return {}
    if args.embedder == "shipped":
        from emem.embedding import default_embedder

        return {"embedder": default_embedder()}
    from emem.embedding import MiniLMEmbedder, build_quantised_minilm

    return {"embedder": MiniLMEmbedder(model=build_quantised_minilm(args.home / "models"))}


def warm(args: argparse.Namespace) -> dict[str, Any]:
    """Catch every namespace's indexes up with this arm's embedder, then ask once in each (both
    untimed by `measure`): a home built with another model is re-embedded here (its cost is
    catch-up's, measured apart) and its summary vectors cached, so both arms measure reads over
    their own vectors from the same state."""
    from emem.memory import Memory

    spaces, questions = load(args)
    with Memory(args.home, **options(args)) as m:
        start = time.perf_counter()
        total = sum(m.index(ns).new_turns for ns, _, _ in spaces)
        seconds = time.perf_counter() - start
        for ns, _, _ in spaces:
            m.ask(questions[0], namespace=ns, mode="deep")
    return {"turns": total, "seconds": seconds, "turns_per_s": total / max(seconds, 1e-9)}


def build(args: argparse.Namespace) -> dict[str, Any]:
    from emem.memory import Memory

    spaces, _ = load(args)
    m = Memory(args.home, **options(args))
    seconds = 0.0
    total = 0
    for i, (ns, turns, sessions) in enumerate(spaces):
        keep = turns[: -args.appends] if i == len(spaces) - 1 else turns
        m.episodes.append(ns, keep, sessions)
        start = time.perf_counter()
        total += m.index(ns).new_turns
        seconds += time.perf_counter() - start
        m.consolidate(ns)  # the offline ledger projection, so `measure` times reads, not it
    m.close()
    return {"turns": total, "seconds": seconds, "turns_per_s": total / seconds}


def catchup(args: argparse.Namespace) -> dict[str, Any]:
    """Index catch-up speed: every turn of the conversations appended to a new home, then one
    `Memory.index` per namespace, timed by the wall clock and by the process's CPU time (every
    thread's), so a run on a shared machine still shows the work done."""
    from emem.memory import Memory

    spaces, _ = load(args)
    with Memory(args.home, **options(args)) as m:
        m.search("open the embedder before the clock starts", namespace="catchup-warm", k=1)
        for ns, turns, sessions in spaces:
            m.episodes.append(ns, turns, sessions)
        wall, cpu = time.perf_counter(), time.process_time()
        total = sum(m.index(ns).new_turns for ns, _, _ in spaces)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "turns": total,
        "seconds": wall,
        "cpu_seconds": cpu,
        "turns_per_s": total / max(wall, 1e-9),
        "turns_per_cpu_s": total / max(cpu, 1e-9),
    }


def ms(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def cpu_ms(fn: Any) -> tuple[float, float, Any]:
    """(wall ms, CPU ms of the whole process, result): on a shared machine the wall time mostly
    measures the other jobs; the process's CPU time (every thread's) measures the work done."""
    cpu = time.process_time()
    took, out = ms(fn)
    return took, (time.process_time() - cpu) * 1000, out


def measure(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    from emem.memory import Memory

    import_ms = (time.perf_counter() - t0) * 1000
    spaces, questions = load(args)
    ns, turns, _ = spaces[-1]
    held = turns[-args.appends :]
    kw = options(args)
    open_ms, m = ms(lambda: Memory(args.home, **kw))
    first_search_ms = ms(lambda: m.search(questions[0], namespace=ns, k=10))[0]
    first_ask_ms = ms(lambda: m.ask(questions[1 % len(questions)], namespace=ns, mode="deep"))[0]
    out: dict[str, Any] = {
        "import_ms": import_ms,
        "open_ms": open_ms,
        "first_search_ms": first_search_ms,
        "first_ask_ms": first_ask_ms,
        "after_write_ms": [],
        "after_write_cpu_ms": [],
        "same_answer": 0,
    }
    for i, t in enumerate(held):
        m.episodes.append(ns, [t])
        q = questions[i % len(questions)]
        took, cpu, answer = cpu_ms(lambda q=q: m.ask(q, namespace=ns, mode="deep"))
        out["after_write_ms"].append(took)
        out["after_write_cpu_ms"].append(cpu)
        if args.check_fresh:
            with Memory(args.home, **kw) as fresh:
                out["same_answer"] += fresh.ask(q, namespace=ns, mode="deep").answer == answer.answer
    if len(spaces) > 1:  # first ask in every other namespace of the home, then the RSS
        out["other_ns_first_ask_ms"] = [
            ms(lambda n=n: m.ask(questions[2 % len(questions)], namespace=n, mode="deep"))[0]
            for n, _, _ in spaces[:-1]
        ]
    for key in ("fast", "deep", "search"):
        out[f"{key}_ms"], out[f"{key}_cpu_ms"] = [], []
    for q in questions:
        for key, call in (
            ("fast", lambda q=q: m.ask(q, namespace=ns, mode="fast")),
            ("deep", lambda q=q: m.ask(q, namespace=ns, mode="deep")),
            ("search", lambda q=q: m.search(q, namespace=ns, k=10)),
        ):
            took, cpu, _ = cpu_ms(call)
            out[f"{key}_ms"].append(took)
            out[f"{key}_cpu_ms"].append(cpu)
    out["search_new_ms"], out["search_new_cpu_ms"] = [], []
    for q in unasked(args, questions):
        took, cpu, _ = cpu_ms(lambda q=q: m.search(q, namespace=ns, k=10))
        out["search_new_ms"].append(took)
        out["search_new_cpu_ms"].append(cpu)
    out["rss_mb"] = rss_mb()
    m.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("build", "warm", "measure", "catchup"))
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--conversations", type=int, default=1)
    ap.add_argument("--namespaces", type=int, default=0, help="N namespaces, one conversation each")
    ap.add_argument("--turns", type=int, default=0, help="with --namespaces: turns kept per namespace")
    ap.add_argument("--appends", type=int, default=8)
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--embedder", choices=("default", "shipped", "qint8"), default="default")
    ap.add_argument("--check-fresh", action="store_true", help="compare each answer with a new Memory's")
    args = ap.parse_args()
    result = {"build": build, "warm": warm, "measure": measure, "catchup": catchup}[args.action](args)
    result["median_after_write_ms"] = (
        statistics.median(result["after_write_ms"]) if result.get("after_write_ms") else None
    )
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
