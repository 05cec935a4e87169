"""Embedder benchmark: the shipped MiniLM against its dynamically quantised copy, in one run.

    python -m emem.eval.bench_embedder --data /work/shared/data/locomo10.json --texts 512 --rounds 3

Both embed the same LoCoMo turns as index catch-up does (`speaker: text`), rounds alternating
which goes first; single texts (a question, a ~230-token segment summary) are timed the same way.
Agreement: cosine between the two models' vectors of each turn, and the overlap of each LoCoMo
question's top-10 turns. Recall on the read path is bench_retrieval's job (`--embedder qint8`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from emem.embedding import MiniLMEmbedder, build_quantised_minilm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--texts", type=int, default=512, help="LoCoMo turns embedded per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-sizes", default="32", help="comma-separated, tried for both models")
    ap.add_argument("--models", type=Path, default=Path(tempfile.gettempdir()) / "emem-models")
    args = ap.parse_args()
    data = json.loads(args.data.read_text())
    texts = [
        f"{t['speaker']}: {t['text']}"
        for s in data
        for key, session in s["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ][: args.texts]
    questions = [qa["question"] for s in data[:1] for qa in s["qa"]][:100]
    summary = " ".join(texts[:40])
    start = time.perf_counter()
    path = build_quantised_minilm(args.models)
    print(f"quantised copy: {path} ({(time.perf_counter() - start):.1f} s, reused when present)")
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        models = {
            "shipped": MiniLMEmbedder(batch_size=batch),
            "qint8": MiniLMEmbedder(batch_size=batch, model=path),
        }
        rate: dict[str, list[float]] = {k: [] for k in models}
        single: dict[str, dict[str, list[float]]] = {k: {"question": [], "summary": []} for k in models}
        vectors: dict[str, np.ndarray] = {}
        for r in range(args.rounds):
            for name in list(models) if r % 2 == 0 else list(models)[::-1]:
                t0 = time.perf_counter()
                vectors[name] = models[name].embed(texts)
                rate[name].append(len(texts) / (time.perf_counter() - t0))
                for kind, text in (
                    ("question", questions[r % len(questions)]),
                    ("summary", f"{r} {summary}"),
                ):
                    t0 = time.perf_counter()
                    models[name].embed([text])
                    single[name][kind].append((time.perf_counter() - t0) * 1000)
        med = {k: statistics.median(v) for k, v in rate.items()}
        print(
            f"batch {batch}: turns/s p50 shipped {med['shipped']:.1f}, qint8 {med['qint8']:.1f} "
            f"(ratio {med['qint8'] / med['shipped']:.2f}x; {args.texts} turns x {args.rounds} rounds)"
        )
        for kind in ("question", "summary"):
            a, b = (statistics.median(single[k][kind]) for k in ("shipped", "qint8"))
            print(f"  one {kind}: shipped {a:.1f} ms, qint8 {b:.1f} ms (ratio {a / b:.2f}x)")
    va, vb = vectors["shipped"], vectors["qint8"]
    cos = (va * vb).sum(axis=1)
    qa, qb = models["shipped"].embed(questions), models["qint8"].embed(questions)
    n = min(len(texts), 10)
    overlap = [
        len(set(np.argsort(-(va @ qa[i]))[:n]) & set(np.argsort(-(vb @ qb[i]))[:n])) / n
        for i in range(len(questions))
    ]
    print(
        f"agreement: cosine mean {cos.mean():.4f} (min {cos.min():.4f}); top-10 overlap {np.mean(overlap):.3f}"
    )


if __name__ == "__main__":
    main()
