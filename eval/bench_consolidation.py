"""Consolidation benchmark: project facts from all LoCoMo conversations with the offline extractor.

    python -m emem.eval.bench_consolidation --data ../shared/data/locomo10.json

Reports facts projected, revocations, conflicts found, and time per conversation; the baseline
run in the same process is the extractor alone (no ledger writes), so the ratio is what the
ledger's bookkeeping (ids, relations, watermark transactions) costs. A second consolidate() on the
same turns must write nothing (idempotence).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from emem.extract.offline import OfflineExtractor
from emem.memory import Memory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=None)
    args = ap.parse_args()
    samples = json.loads(args.data.read_text())
    home = args.home or Path(tempfile.mkdtemp(prefix="emem-consolidate-"))
    rows = []
    predicates: Counter[str] = Counter()
    with Memory(home) as m:
        for sample in samples:
            ns = f"c-{sample['sample_id']}"
            m.add_conversation(sample, namespace=ns)
            turns = m.episodes.turns(ns)
            start = time.perf_counter()
            OfflineExtractor()(turns)
            extract_s = time.perf_counter() - start
            report = m.consolidate(ns)
            again = m.consolidate(ns)
            assert again.revisions_written == 0, "consolidation is not idempotent"
            for res in m.facts(namespace=ns):
                predicates[res.predicate] += len(res.values)
            rows.append((sample["sample_id"], len(turns), report, extract_s, m.ledger.count(ns)))
    print(f"emem consolidation benchmark — {len(rows)} LoCoMo conversations, offline extractor, home {home}")
    print(
        "| conversation | turns | candidates | revisions | revocations | conflicts | skipped | seconds | extractor-only s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for sid, n, r, ex, _ in rows:
        print(
            f"| {sid} | {n} | {r.candidates} | {r.revisions_written} | {r.revocations} | {r.conflicts} | {r.skipped} | {r.seconds:.2f} | {ex:.2f} |"
        )
    total = lambda f: sum(f(r) for r in rows)  # noqa: E731
    print(
        f"| total | {total(lambda r: r[1])} | {total(lambda r: r[2].candidates)} | {total(lambda r: r[2].revisions_written)} | "
        f"{total(lambda r: r[2].revocations)} | {total(lambda r: r[2].conflicts)} | {total(lambda r: r[2].skipped)} | "
        f"{total(lambda r: r[2].seconds):.2f} | {total(lambda r: r[3]):.2f} |"
    )
    med = statistics.median(r[2].seconds for r in rows)
    base = statistics.median(r[3] for r in rows)
    print(
        f"median seconds per conversation: consolidate {med:.2f}, extractor alone {base:.2f} (ratio {med / base:.2f}x); "
        f"re-running consolidate wrote nothing (idempotent)"
    )
    print("current facts by predicate: " + ", ".join(f"{p} {c}" for p, c in predicates.most_common()))


if __name__ == "__main__":
    main()
