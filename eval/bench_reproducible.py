"""Same data, same ranking (issue #17 item 6): two fresh homes per LoCoMo conversation, one written
and indexed in bulk, one written in chunks with an index catch-up after each chunk, and every
question's top-k `search` turns and scores compared exactly.

    python -m emem.eval.bench_reproducible --data /work/shared/data/locomo10.json --conversations 0,5

Batch-dependent vectors (per-tensor activation quantisation) or an approximate index built in a
different order would show up here as questions whose lists differ.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from emem.ingest.locomo import parse_locomo
from emem.memory import Memory

NS = "repro"


def rankings(
    home: Path, turns: list, questions: list[str], chunk: int, k: int
) -> list[list[tuple[str, float]]]:
    """Every question's top-k (turn id, score) from a home written `chunk` turns at a time, with a
    catch-up (a search) after each chunk when there are several."""
    with Memory(home) as mem:
        for start in range(0, len(turns), chunk):
            mem.add_turns(turns[start : start + chunk], namespace=NS)
            if chunk < len(turns):
                mem.search("catch up", 1, namespace=NS)
        return [[(h.turn_id, h.score) for h in mem.search(q, k, namespace=NS)] for q in questions]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--conversations", default="0", help="comma-separated indexes")
    ap.add_argument("--chunk", type=int, default=7, help="turns per write in the chunked home")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    data = json.loads(args.data.read_text())
    same = differ = 0
    with tempfile.TemporaryDirectory() as root:
        for ci in (int(x) for x in args.conversations.split(",") if x.strip()):
            sample = data[ci]
            turns = parse_locomo(sample).turns
            questions = [q["question"] for q in sample["qa"]]
            bulk = rankings(Path(root) / f"bulk-{ci}", turns, questions, len(turns), args.k)
            chunked = rankings(Path(root) / f"chunked-{ci}", turns, questions, args.chunk, args.k)
            n_same = sum(a == b for a, b in zip(bulk, chunked, strict=True))
            same += n_same
            differ += len(questions) - n_same
            print(f"conversation {ci}: {len(turns)} turns, {n_same} of {len(questions)} questions identical")
    print(f"identical top-{args.k} turns and scores on {same} of {same + differ} questions")


if __name__ == "__main__":
    main()
