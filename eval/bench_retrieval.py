"""Retrieval benchmark for the read path on LoCoMo categories 1-4 (offline models).

    python -m emem.eval.bench_retrieval --data ../shared/data/locomo10.json [--conversations 0,1] [--budget 2000]
        [--curve 500,1000,2000,4000 --curve-limit 20] [--plot recall_vs_budget.png]

For fast and deep modes: segment routing recall (fraction of evidence sessions activated, over
all hops), evidence-turn recall of the packed context, packed context tokens, orchestration
tokens, latency; per category, per number of evidence sessions, and per half of the data set:
deep's turn scorer was fitted on conversations 0-4 (emem.retrieval.turnscore), so figures on 5-9
are out of sample and figures on 0-4 in sample; `--weights reverse` scores with the weights
fitted on 5-9 instead (then 0-4 is the out-of-sample half). Baselines measured in the same run:
BM25 over turns alone (evidence recall@10, evidence-session recall@5 sessions). `--curve` repeats
fast and deep at other budgets (on the first `--curve-limit` questions of each conversation) for
the packed-recall-vs-budget curve. Each conversation is its own namespace; the home is reused
between runs so indexes persist.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from emem.agents.master import ReadRuntime, ask_graph, master_graph
from emem.embedding import MiniLMEmbedder, build_quantised_minilm
from emem.eval.locomo_data import iter_questions, load_locomo
from emem.eval.metrics import CATEGORY_NAMES, session_number
from emem.eval.report import fmt, md_table
from emem.memory import Memory
from emem.retrieval import turnscore
from emem.retrieval.ner import typed_matching_status


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
    memory.add_conversation(conversation, namespace=ns)
    memory.index(ns)
    memory.consolidate(ns)
    return ns


def split_of(conversation: int) -> str:
    """Which half a conversation belongs to: the scorer's weights were fitted on 0-4."""
    return "0-4" if conversation < 5 else "5-9"


def sessions_label(n: int) -> str:
    return str(n) if n < 3 else "3+"


def table(rows: list[dict], cols: list[tuple[str, str]], group: str, groups: list) -> str:
    """Means of `cols` over all rows and per value of `group`."""
    header = ["metric", f"all (n={len(rows)})"] + [
        f"{g} (n={sum(1 for r in rows if r[group] == g)})" for g in groups
    ]
    body = [
        [label, fmt(mean([r[key] for r in rows]))]
        + [fmt(mean([r[key] for r in rows if r[group] == g])) for g in groups]
        for label, key in cols
    ]
    return md_table(header, body)


def ask_row(m: Memory, q: object, ns: str, budget: int) -> dict:
    """Fast and deep on one question at one budget."""
    row: dict = {}
    for mode in ("fast", "deep"):
        a = m.ask(q.question, namespace=ns, mode=mode, budget=budget)  # type: ignore[attr-defined]
        packed = {e.turn_id for e in a.evidence}
        row[f"{mode}_turn_recall"] = recall(q.evidence, packed)  # type: ignore[attr-defined]
        row[f"{mode}_tokens"] = a.usage.context_tokens
        row[f"{mode}_latency_ms"] = a.latency_ms
        row[f"{mode}_orchestration_tokens"] = a.usage.prompt_tokens + a.usage.completion_tokens
        if mode == "deep":
            sessions = {session_number(s.session_id) for s in a.activated_segments}
            row["deep_segments"] = len(a.activated_segments)
            row["deep_hops"] = len(a.usage.segments_per_hop)
            row["deep_max_segments_per_hop"] = max(a.usage.segments_per_hop, default=0)
            row["deep_session_recall"] = session_recall(q.evidence, sessions)  # type: ignore[attr-defined]
            first = (
                {s.session_id for s in a.activated_segments[: a.usage.segments_per_hop[0]]}
                if a.usage.segments_per_hop
                else set()
            )
            row["deep_session_recall_hop1"] = session_recall(
                q.evidence,  # type: ignore[attr-defined]
                {session_number(s) for s in first},
            )
    return row


def plot_curve(curve: dict[str, dict[int, float]], orchestration: dict[str, float], path: Path) -> None:
    """Packed evidence recall against the budget (log axis), one line per system."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for i, (mode, points) in enumerate(curve.items()):
        xs = sorted(points)
        label = f"{mode} ({orchestration[mode]:.0f} orchestration tokens/question)"
        ax.plot(xs, [points[x] for x in xs], marker="osD^"[i % 4], label=label)
    ax.set_xscale("log")
    ax.set_xticks(
        sorted({x for p in curve.values() for x in p}),
        [str(x) for x in sorted({x for p in curve.values() for x in p})],
    )
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_ylim(0, 1.05)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlabel("context budget, tokens (log scale)")
    ax.set_ylabel("packed evidence-turn recall")
    ax.set_title("Packed evidence recall vs budget (LoCoMo cats 1-4, offline)")
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "emem-bench-locomo")
    ap.add_argument("--conversations", default=None, help="comma-separated indexes (default: all)")
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=None, help="questions per conversation")
    ap.add_argument("--weights", choices=("shipped", "reverse"), default="shipped",
                    help="deep's turn scorer: fitted on conversations 0-4 (shipped) or on 5-9")  # fmt: skip
    ap.add_argument("--hops", type=int, default=None, help="deep's routing hops (default: the shipped value)")
    ap.add_argument(
        "--curve", default=None, help="other budgets for the recall-vs-budget curve, e.g. 500,1000,4000"
    )
    ap.add_argument("--curve-limit", type=int, default=20, help="questions per conversation on the curve")
    ap.add_argument("--plot", type=Path, default=None, help="write the recall-vs-budget plot (PNG) here")
    ap.add_argument(
        "--episode", action="store_true", help="also run deep with episode context (a second graph)"
    )
    ap.add_argument("--out", type=Path, default=None, help="write per-question JSONL here")
    ap.add_argument(
        "--embedder",
        choices=("shipped", "qint8"),
        default="shipped",
        help="shipped MiniLM, or its dynamically quantised copy (built into <home>/models)",
    )
    args = ap.parse_args()
    if args.weights == "reverse":
        turnscore.WEIGHTS.update(turnscore.WEIGHTS_FIT_5_9)
        turnscore.INTERCEPT = turnscore.INTERCEPT_FIT_5_9
    samples = load_locomo(args.data)
    raw = json.loads(args.data.read_text())
    chosen = (
        [int(x) for x in args.conversations.split(",")] if args.conversations else list(range(len(samples)))
    )
    budgets = sorted({args.budget, *(int(b) for b in args.curve.split(","))}) if args.curve else [args.budget]
    rows = []
    curve_rows: dict[int, list[dict]] = {b: [] for b in budgets}
    t0 = time.perf_counter()
    embedder = None
    if args.embedder == "qint8":
        embedder = MiniLMEmbedder(model=build_quantised_minilm(args.home / "models"))
    with Memory(args.home, embedder=embedder) as m:
        print(f"embedder: {m.indexes.embedder.name}; {typed_matching_status()}")
        if args.hops is not None:
            m.read_runtime.max_hops = args.hops
        episode = ReadRuntime(m, m.roles, episode_context=True) if args.episode else None
        for ci in chosen:
            sample = samples[ci]
            ns = ingest_conversation(m, raw[ci], sample.sample_id)
            idx = m.indexes.current(ns)
            qs = [q for q in iter_questions([sample], categories=[1, 2, 3, 4]) if q.evidence][: args.limit]
            for qi, q in enumerate(qs):
                bm = [idx.turns[k] for k, _ in idx.bm25.search(q.question, 50)]
                bm_ids = [t.turn_id for t in bm]
                bm_sessions: list[int] = []
                for t in bm:
                    n = session_number(t.turn_id)
                    if n not in bm_sessions:
                        bm_sessions.append(n)
                row = {
                    "qid": q.qid,
                    "conversation": ci,
                    "split": split_of(ci),
                    "category": q.category,
                    "evidence_sessions": sessions_label(len({session_number(e) for e in q.evidence})),
                    "bm25_recall@10": recall(q.evidence, set(bm_ids[:10])),
                    "bm25_session_recall@5": session_recall(q.evidence, set(bm_sessions[:5])),
                    **ask_row(m, q, ns, args.budget),
                }
                if episode is not None:
                    a = ask_graph(master_graph(), q.question, ns, "deep", None, args.budget, context=episode)
                    row["deep_episode_turn_recall"] = recall(q.evidence, {e.turn_id for e in a.evidence})
                rows.append(row)
                if qi < args.curve_limit:
                    for b in budgets:
                        curve_rows[b].append(row if b == args.budget else {**row, **ask_row(m, q, ns, b)})
    elapsed = time.perf_counter() - t0
    if args.out:
        args.out.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    print(
        f"emem retrieval benchmark — LoCoMo categories 1-4, {len(rows)} questions with evidence, "
        f"{len(chosen)} conversations, budget {args.budget} tokens, offline models, deep scorer weights "
        f"{'fitted on 0-4' if args.weights == 'shipped' else 'fitted on 5-9'}; {elapsed:.0f} s"
    )
    if not rows:
        print("no questions scored (--limit 0 builds the home only)")
        return
    cols = [
        ("BM25 turn recall@10 (baseline)", "bm25_recall@10"),
        ("BM25 session recall@5 (baseline)", "bm25_session_recall@5"),
        ("deep: evidence-session recall, first hop", "deep_session_recall_hop1"),
        ("deep: evidence-session recall, all hops", "deep_session_recall"),
        ("deep: evidence-turn recall of packed context", "deep_turn_recall"),
        ("fast: evidence-turn recall of packed context", "fast_turn_recall"),
        ("deep: orchestration tokens/question", "deep_orchestration_tokens"),
        ("deep: activated segments", "deep_segments"),
    ]
    if args.episode:
        cols.insert(5, ("deep + episode context: evidence-turn recall", "deep_episode_turn_recall"))
    cats = sorted({r["category"] for r in rows})
    for r in rows:
        r["category_name"] = f"{r['category']} {CATEGORY_NAMES[r['category']]}"
    print("\nPer category:\n")
    print(table(rows, cols, "category_name", [f"{c} {CATEGORY_NAMES[c]}" for c in cats]))
    print("\nPer number of sessions holding the question's evidence:\n")
    print(table(rows, cols, "evidence_sessions", sorted({r["evidence_sessions"] for r in rows})))
    print("\nPer half (scorer fitted on " + ("0-4" if args.weights == "shipped" else "5-9") + "):\n")
    print(table(rows, cols, "split", sorted({r["split"] for r in rows})))
    for mode in ("fast", "deep"):
        toks = [r[f"{mode}_tokens"] for r in rows]
        lat = [r[f"{mode}_latency_ms"] for r in rows]
        orch = [r[f"{mode}_orchestration_tokens"] for r in rows]
        print(
            f"{mode}: packed context tokens mean {mean(toks):.0f} (max {max(toks)}), "
            f"orchestration tokens/question (offline stand-ins) mean {mean(orch):.0f}, "
            f"latency p50 {pct(lat, 0.5):.0f} ms p95 {pct(lat, 0.95):.0f} ms"
        )
    print(
        f"deep: activated segments mean {mean([r['deep_segments'] for r in rows]):.2f}, hops mean "
        f"{mean([r['deep_hops'] for r in rows]):.2f}, most segments in one hop "
        f"{max(r['deep_max_segments_per_hop'] for r in rows)}"
    )
    if args.curve:
        n = len(curve_rows[budgets[0]])
        curve = {
            mode: {b: mean([r[f"{mode}_turn_recall"] for r in curve_rows[b]]) for b in budgets}
            for mode in ("fast", "deep")
        }
        orch_tokens = {
            mode: mean([r[f"{mode}_orchestration_tokens"] for r in curve_rows[args.budget]])
            for mode in ("fast", "deep")
        }
        print(
            f"\nPacked evidence-turn recall vs budget ({n} questions: the first {args.curve_limit} of each conversation):\n"
        )
        print(md_table(["system", *(str(b) for b in budgets), "orchestration tokens/question"],
                       [[mode, *(fmt(curve[mode][b]) for b in budgets), f"{orch_tokens[mode]:.0f}"] for mode in curve]))  # fmt: skip
        if args.plot:
            plot_curve(curve, orch_tokens, args.plot)
            print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
