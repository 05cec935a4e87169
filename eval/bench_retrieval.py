"""Retrieval benchmark for the read path on LoCoMo categories 1-4 (offline models).

    python -m emem.eval.bench_retrieval --data ../shared/data/locomo10.json [--conversations 0,1] [--budget 2000]

For fast and deep modes: segment routing recall (fraction of evidence sessions activated),
evidence-turn recall of the packed context, packed context tokens, latency. Baselines measured in
the same run: BM25 over turns alone (evidence recall@10, evidence-session recall@5 sessions).
Each conversation is its own namespace; the home is reused between runs so indexes persist.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from emem.agents.master import ReadRuntime, ask_graph, build_master_graph
from emem.embedding import MiniLMEmbedder, build_quantised_minilm
from emem.eval.locomo_data import iter_questions, load_locomo
from emem.eval.metrics import CATEGORY_NAMES, session_number
from emem.memory import Memory


def mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def recall(evidence: list[str], got: set[str]) -> float:
    return sum(e in got for e in evidence) / len(evidence)


def session_recall(evidence: list[str], sessions: set[int]) -> float:
    return sum(session_number(e) in sessions for e in evidence) / len(evidence)


def ingest_conversation(memory: Memory, conversation: dict, sample_id: str) -> str:
    """Write, index and consolidate one LoCoMo conversation into its own namespace (a no-op for
    what the reused home already holds); returns the namespace."""
    ns = f"locomo-{sample_id}"
    memory.add_conversation(conversation, ns)
    memory.index(ns)
    memory.consolidate(ns)
    return ns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "emem-bench-locomo")
    ap.add_argument("--conversations", default=None, help="comma-separated indexes (default: all)")
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=None, help="questions per conversation")
    ap.add_argument("--out", type=Path, default=None, help="write per-question JSONL here")
    ap.add_argument(
        "--embedder",
        choices=("shipped", "qint8"),
        default="shipped",
        help="shipped MiniLM, or its dynamically quantised copy (built into <home>/models)",
    )
    args = ap.parse_args()
    samples = load_locomo(args.data)
    raw = json.loads(args.data.read_text())
    chosen = (
        [int(x) for x in args.conversations.split(",")] if args.conversations else list(range(len(samples)))
    )
    rows = []
    t0 = time.perf_counter()
    embedder = None
    if args.embedder == "qint8":
        embedder = MiniLMEmbedder(model=build_quantised_minilm(args.home / "models"))
    with Memory(args.home, embedder=embedder) as m:
        print(f"embedder: {m.indexes.embedder.name}")
        filled = build_master_graph(ReadRuntime(m, m.roles, fill_context=True))
        for ci in chosen:
            sample = samples[ci]
            ns = ingest_conversation(m, raw[ci], sample.sample_id)
            idx = m.indexes.current(ns)
            qs = [q for q in iter_questions([sample], categories=[1, 2, 3, 4]) if q.evidence][: args.limit]
            for q in qs:
                bm = [idx.turns[k] for k, _ in idx.bm25.search(q.question, 50)]
                bm_ids = [t.turn_id for t in bm]
                bm_sessions: list[int] = []
                for t in bm:
                    n = session_number(t.turn_id)
                    if n not in bm_sessions:
                        bm_sessions.append(n)
                row = {
                    "qid": q.qid,
                    "category": q.category,
                    "bm25_recall@10": recall(q.evidence, set(bm_ids[:10])),
                    "bm25_session_recall@5": session_recall(q.evidence, set(bm_sessions[:5])),
                }
                for mode in ("fast", "deep"):
                    a = m.ask(q.question, ns, mode=mode, budget=args.budget)
                    packed = {e.turn_id for e in a.evidence}
                    row[f"{mode}_turn_recall"] = recall(q.evidence, packed)
                    row[f"{mode}_tokens"] = a.usage.context_tokens
                    row[f"{mode}_latency_ms"] = a.latency_ms
                    row[f"{mode}_orchestration_tokens"] = a.usage.prompt_tokens + a.usage.completion_tokens
                    if mode == "deep":
                        sessions = {session_number(s.session_id) for s in a.activated_segments}
                        row["deep_segments"] = len(a.activated_segments)
                        row["deep_session_recall"] = session_recall(q.evidence, sessions)
                a = ask_graph(filled, q.question, ns, "deep", None, args.budget)
                row["deep_fill_turn_recall"] = recall(q.evidence, {e.turn_id for e in a.evidence})
                row["deep_fill_tokens"] = a.usage.context_tokens
                rows.append(row)
    elapsed = time.perf_counter() - t0
    if args.out:
        args.out.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    print(
        f"emem retrieval benchmark — LoCoMo categories 1-4, {len(rows)} questions with evidence, "
        f"{len(chosen)} conversations, budget {args.budget} tokens, offline models; {elapsed:.0f} s"
    )
    cats = defaultdict(list)
    for r in rows:
        cats[r["category"]].append(r)
    cols = [
        ("BM25 turn recall@10 (baseline)", "bm25_recall@10"),
        ("BM25 session recall@5 (baseline)", "bm25_session_recall@5"),
        ("deep: evidence-session recall (activated)", "deep_session_recall"),
        ("deep: evidence-turn recall of packed context", "deep_turn_recall"),
        ("fast: evidence-turn recall of packed context", "fast_turn_recall"),
        (
            "deep + context fill (experimental): evidence-turn recall of packed context",
            "deep_fill_turn_recall",
        ),
    ]
    header = "| metric | all | " + " | ".join(f"{c} {CATEGORY_NAMES[c]}" for c in sorted(cats)) + " |"
    print(header)
    print("|" + "---|" * (2 + len(cats)))
    for label, key in cols:
        vals = [f"{mean([r[key] for r in rows]):.3f}"] + [
            f"{mean([r[key] for r in cats[c]]):.3f}" for c in sorted(cats)
        ]
        print(f"| {label} | " + " | ".join(vals) + " |")
    for mode in ("fast", "deep"):
        toks = [r[f"{mode}_tokens"] for r in rows]
        lat = [r[f"{mode}_latency_ms"] for r in rows]
        orch = [r[f"{mode}_orchestration_tokens"] for r in rows]
        print(
            f"{mode}: packed context tokens mean {mean(toks):.0f} (max {max(toks)}), "
            f"orchestration tokens/question (offline stand-ins) mean {mean(orch):.0f}, "
            f"latency p50 {pct(lat, 0.5):.0f} ms p95 {pct(lat, 0.95):.0f} ms"
        )
    fill = [r["deep_fill_tokens"] for r in rows]
    print(f"deep + context fill: packed context tokens mean {mean(fill):.0f} (max {max(fill)})")
    print(f"deep: activated segments mean {mean([r['deep_segments'] for r in rows]):.2f}")


if __name__ == "__main__":
    main()
