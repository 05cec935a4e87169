"""Agent-loop benchmark against another emem install, in one run: this branch and a baseline
(main's checkout in its own virtualenv) measured alternately, each in fresh processes on a copy of
one home built by the baseline's code.

    python -m emem.eval.bench_loop_ab --data /work/shared/data/locomo10.json --conversations 10 \\
        --baseline-python /path/to/main/.venv/bin/python --rounds 2

Each arm runs eval/loop_worker.py (by path, so each interpreter measures its own emem): the
baseline `build`s the home once, then each arm `measure`s per round on a fresh copy of it, arms
alternating which goes first. Each round also times index catch-up (`catchup`: the conversations
appended to a new home, then indexed) in each arm, turns per second of wall clock and of process
CPU (`--catch-up 0` skips it). Figures are medians over all of an arm's samples; ratios are
baseline / this branch, except for catch-up rates (higher is better), where they are branch / baseline. `--namespaces 50 --turns 120` puts 50 namespaces in one home instead.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("loop_worker.py")


def run(python: str, action: str, home: Path, args: argparse.Namespace, extra: list[str]) -> dict[str, Any]:
    cmd = [python, str(WORKER), action, "--data", str(args.data), "--home", str(home)]
    cmd += ["--conversations", str(args.conversations), "--appends", str(args.appends)]
    cmd += [
        "--questions",
        str(args.questions),
        "--namespaces",
        str(args.namespaces),
        "--turns",
        str(args.turns),
    ]
    done = subprocess.run(cmd + extra, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd + extra)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--baseline-python", required=True, help="interpreter with the baseline emem installed")
    ap.add_argument("--conversations", type=int, default=1)
    ap.add_argument("--namespaces", type=int, default=0)
    ap.add_argument("--turns", type=int, default=0)
    ap.add_argument("--appends", type=int, default=8)
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--check-fresh", action="store_true", help="this branch: answers equal a new Memory's")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--base-home", type=Path, default=None, help="copy this home instead of building one")
    ap.add_argument(
        "--catch-up",
        type=int,
        default=-1,
        help="conversations each arm indexes from scratch per round (default: --conversations; 0: none)",
    )
    args = ap.parse_args()
    if args.base_home and not (args.base_home / "episodes.sqlite3").is_file():
        ap.error(f"--base-home {args.base_home}: no emem home there (no episodes.sqlite3)")
    if not (Path(args.baseline_python).is_file() or shutil.which(args.baseline_python)):
        ap.error(f"--baseline-python {args.baseline_python}: no such interpreter")
    work = args.work or Path(tempfile.mkdtemp(prefix="emem-loop-ab-"))
    arms = {
        "baseline": (args.baseline_python, []),
        "branch": (
            sys.executable,
            ["--check-fresh"] if args.check_fresh else [],
        ),
    }
    # One home, built by the baseline's code, copied for every measurement: both arms start from
    # the same bytes (this branch lowers the collection's HNSW sync threshold on its first write).
    if args.base_home:  # a home `build` made earlier (same arguments), e.g. with its caches warm
        shutil.copytree(args.base_home, work / "base")
        build = {"turns": 0, "turns_per_s": float("nan")}
    else:
        build = run(args.baseline_python, "build", work / "base", args, [])
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in arms}
    catch_up = args.conversations if args.catch_up < 0 else args.catch_up
    catch_args = argparse.Namespace(**{**vars(args), "conversations": catch_up, "namespaces": 0})
    for r in range(args.rounds):
        for name in list(arms) if r % 2 == 0 else list(arms)[::-1]:
            python, extra = arms[name]
            home = work / f"run-{name}"
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(work / "base", home)
            warmed = run(python, "warm", home, args, [])
            if warmed["turns"]:
                print(
                    f"{name}: warm-up caught {warmed['turns']} turns up at {warmed['turns_per_s']:.1f} "
                    "turns/s (BM25 always; vectors too when the home's are another model's; untimed)"
                )
            samples[name].append(run(python, "measure", home, args, extra))
            if catch_up:
                fresh = work / f"catchup-{name}"
                shutil.rmtree(fresh, ignore_errors=True)
                caught = run(python, "catchup", fresh, catch_args, [])
                shutil.rmtree(fresh, ignore_errors=True)
                samples[name][-1].update({f"catchup_{k}": v for k, v in caught.items()})

    def pooled(name: str, key: str) -> list[float]:
        out: list[float] = []
        for s in samples[name]:
            value = s.get(key)
            out += value if isinstance(value, list) else ([] if value is None else [value])
        return out

    what = (
        f"{args.namespaces} namespaces x {args.turns or 'all'} turns"
        if args.namespaces
        else (f"{args.conversations} LoCoMo conversation(s) in one namespace")
    )
    print(f"emem agent-loop A/B — {what}; {args.rounds} rounds; work {work}")
    print(f"home built by the baseline: {build['turns']} turns indexed at {build['turns_per_s']:.1f} turns/s")
    rows = [
        ("first ask after appending one turn (deep)", "after_write_ms"),
        ("  the same, process CPU time", "after_write_cpu_ms"),
        ("ask deep", "deep_ms"),
        ("  the same, process CPU time", "deep_cpu_ms"),
        ("ask fast", "fast_ms"),
        ("  the same, process CPU time", "fast_cpu_ms"),
        ("search k=10", "search_ms"),
        ("  the same, process CPU time", "search_cpu_ms"),
        ("search k=10, a query never asked", "search_new_ms"),
        ("  the same, process CPU time", "search_new_cpu_ms"),
        ("first ask in another namespace of the home", "other_ns_first_ask_ms"),
        ("import emem.memory (cold start)", "import_ms"),
        ("Memory(home) (cold start)", "open_ms"),
        ("first search of a process", "first_search_ms"),
        ("first ask of a process (view built)", "first_ask_ms"),
        ("process RSS at the end (MB)", "rss_mb"),
    ]
    for label, key in rows:
        a, b = pooled("branch", key), pooled("baseline", key)
        if not a or not b:
            continue
        print(
            f"{label:<46} branch p50 {med(a):8.1f} (n={len(a)})   baseline p50 {med(b):8.1f} (n={len(b)})   "
            f"ratio {med(b) / max(med(a), 1e-9):.2f}x"
        )
    for label, key in (
        ("index catch-up, turns/s (wall)", "catchup_turns_per_s"),
        ("  the same, turns per CPU second", "catchup_turns_per_cpu_s"),
    ):
        a, b = pooled("branch", key), pooled("baseline", key)
        if a and b:
            print(
                f"{label:<46} branch p50 {med(a):8.1f} (n={len(a)})   baseline p50 {med(b):8.1f} (n={len(b)})   "
                f"ratio {med(a) / max(med(b), 1e-9):.2f}x ({catch_up} conversation(s), "
                f"{int(med(pooled('branch', 'catchup_turns')))} turns)"
            )
    if args.check_fresh:
        same = sum(s["same_answer"] for s in samples["branch"])
        print(f"branch answers equal to a fresh Memory's: {same}/{len(pooled('branch', 'after_write_ms'))}")


if __name__ == "__main__":
    main()
