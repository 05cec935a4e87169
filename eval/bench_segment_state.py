"""Compare LoCoMo runs of one system with and without saved segment states (issue #19).

Reads the `rows.jsonl` of runs made with `emem eval locomo` on the same sample (a text-only
baseline, a first pass with states on, which builds them, and a second, warm pass) and prints, per
run: questions, prompt tokens computed and restored per question (all roles and assistants only),
latency p50/p95, official score, and how many predictions equal the baseline's. It reads logs
only; the runs themselves are the benchmark.

    python -m emem.eval.bench_segment_state --system emem-deep \\
        baseline=eval/results/kv/text cold=eval/results/kv/cold warm=eval/results/kv/warm \\
        --states /work/kvhome/run/segment-state
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from .runlog import LOG_NAME, RunRow, read_rows


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summarise(rows: list[RunRow], baseline: dict[str, str] | None) -> dict[str, float]:
    """Per-question means and latency percentiles of one run.

    Args:
        rows: the run's rows of one system.
        baseline: qid -> the baseline's prediction, to count unchanged answers.
    Returns:
        The figures, by name.
    """
    n = max(len(rows), 1)
    assistant = [r.usage.by_role.get("assistant") for r in rows]
    lat = [r.latency_ms / 1000 for r in rows]
    out = {
        "questions": len(rows),
        "prompt_tok": sum(r.usage.prompt_tokens for r in rows) / n,
        "computed_tok": sum(r.usage.computed_prompt_tokens or r.usage.prompt_tokens for r in rows) / n,
        "restored_tok": sum(r.usage.restored_prompt_tokens for r in rows) / n,
        "assistant_computed_tok": sum(
            (a.computed_prompt_tokens or a.prompt_tokens) if a else 0 for a in assistant
        )
        / n,
        "restored_mb": sum(r.usage.restored_bytes for r in rows) / n / 2**20,
        "restore_s": sum(r.usage.restore_ms for r in rows) / n / 1000,
        "states_built": sum(r.usage.states_built for r in rows) / n,
        "p50_s": statistics.median(lat) if lat else 0.0,
        "p95_s": _pct(lat, 0.95),
        "score": sum(r.score for r in rows) / n,
        "errors": sum(1 for r in rows if r.status != "ok"),
    }
    if baseline is not None:
        same = [r for r in rows if r.qid in baseline]
        out["same_answer"] = sum(1 for r in same if baseline[r.qid].strip() == r.prediction.strip())
        out["compared"] = len(same)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", help="name=run_dir; the first is the baseline")
    parser.add_argument("--system", default="emem-deep")
    parser.add_argument("--states", type=Path, help="a segment-state folder, to report its disk use")
    args = parser.parse_args(argv)
    runs = [(n, Path(p)) for n, _, p in (r.partition("=") for r in args.runs)]
    loaded = {
        name: [r for r in read_rows(path / LOG_NAME, RunRow) if r.system == args.system]
        for name, path in runs
    }
    common = set.intersection(*({r.qid for r in rows} for rows in loaded.values()))
    base = {r.qid: r.prediction for r in loaded[runs[0][0]] if r.qid in common}
    cols = ["questions", "prompt_tok", "computed_tok", "restored_tok", "assistant_computed_tok",
            "restored_mb", "restore_s", "states_built", "p50_s", "p95_s", "score", "errors", "same_answer"]  # fmt: skip
    print(f"{args.system}, {len(common)} questions answered in every run")
    print("| run | " + " | ".join(cols) + " |")
    print("|" + " --- |" * (len(cols) + 1))
    for name, rows in loaded.items():
        s = summarise([r for r in rows if r.qid in common], base)
        cells = [
            f"{s[c]:.3f}" if c == "score" else f"{s[c]:,.1f}" if isinstance(s[c], float) else str(s[c])
            for c in cols
        ]
        cells[-1] = f"{s['same_answer']}/{s['compared']}"
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.states is not None and args.states.exists():
        files = list(args.states.glob("*.state"))
        print(
            f"segment states on disk: {len(files)} files, {sum(f.stat().st_size for f in files) / 2**20:.1f} MB"
        )


if __name__ == "__main__":
    main()
