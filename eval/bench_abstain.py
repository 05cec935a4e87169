"""Abstention on LoCoMo's category 5 (adversarial: the question asks about something the
conversation never says) through `Memory.ask`, offline roles, on bench_retrieval's namespaces.

    python -m emem.eval.bench_abstain --data ../shared/data/locomo10.json --home H [--mode deep]
        [--conversations 0,1] [--out answers.jsonl]

Counts the questions the reader abstains on (higher is better: none of them has an answer in the
conversation). The home is bench_retrieval's (each conversation its own namespace), so the two
benchmarks read the same indexes and ledger.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from emem.eval.bench_retrieval import ingest_conversation
from emem.eval.locomo_data import iter_questions, load_locomo
from emem.memory import Memory
from emem.retrieval.ner import typed_matching_status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "emem-bench-locomo")
    ap.add_argument("--conversations", default=None, help="comma-separated indexes (default: all)")
    ap.add_argument("--mode", default="deep", choices=("deep", "fast", "auto"))
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--out", type=Path, default=None, help="write per-question JSONL here")
    args = ap.parse_args()
    samples = load_locomo(args.data)
    raw = json.loads(args.data.read_text())
    chosen = (
        [int(x) for x in args.conversations.split(",")] if args.conversations else list(range(len(samples)))
    )
    rows = []
    t0 = time.perf_counter()
    with Memory(args.home) as m:
        for ci in chosen:
            ns = ingest_conversation(m, raw[ci], samples[ci].sample_id)
            for q in iter_questions([samples[ci]], categories=[5]):
                a = m.ask(q.question, namespace=ns, mode=args.mode, budget=args.budget)
                rows.append({"qid": q.qid, "conversation": ci, "status": a.status, "answer": a.answer})
    if args.out:
        args.out.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    abstained = sum(r["status"] == "abstained" for r in rows)
    per = {ci: sum(r["status"] == "abstained" for r in rows if r["conversation"] == ci) for ci in chosen}
    print(
        f"LoCoMo category 5, mode {args.mode}, budget {args.budget}: {abstained} of {len(rows)} "
        f"abstained ({time.perf_counter() - t0:.0f} s); per conversation {per}; {typed_matching_status()}"
    )


if __name__ == "__main__":
    main()
