"""Lexical retrieval for the Postgres backend: emem's BM25 (rank-bm25, in memory) against
PostgreSQL full-text search, on LoCoMo categories 1-4 (questions with evidence).

    python -m emem.eval.bench_fts --data /work/shared/data/locomo10.json [--conversations 5,6,7,8,9]

Measures evidence-turn recall@10 and per-query latency (p50) for: BM25 over `index_text` (what
the read path uses on both backends), and Postgres FTS over the same text with the `english`
configuration, the question's lexemes OR-ed (an AND of every word finds almost nothing for a
natural question), ranked by `ts_rank` and by `ts_rank_cd`. Starts its own local server. The
query shape was chosen on conversations 0-4; report on 5-9.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import psycopg

from emem.eval.locomo_data import iter_questions, load_locomo
from emem.index.bm25 import BM25Index
from emem.storage.postgres.server import LocalPostgres


def recall(evidence: list[str], got: list[str]) -> float:
    return sum(e in set(got) for e in evidence) / len(evidence)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--conversations", default="5,6,7,8,9", help="comma-separated indexes")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    samples = load_locomo(args.data)
    chosen = [samples[int(i)] for i in args.conversations.split(",")]
    rows: dict[str, list[float]] = {}
    with LocalPostgres() as server, psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE docs (conv TEXT, key TEXT, body TEXT, tsv tsvector)")
        conn.execute("CREATE INDEX docs_tsv ON docs USING gin (tsv)")
        for sample in chosen:
            docs = [
                (
                    t.dia_id,
                    f"{t.speaker}: {t.text}" + (f" [image: {t.blip_caption}]" if t.blip_caption else ""),
                )
                for s in sample.sessions
                for t in s.turns
            ]
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO docs VALUES (%s, %s, %s, to_tsvector('english', %s))",
                    [(sample.sample_id, k, body, body) for k, body in docs],
                )
            bm25 = BM25Index()
            bm25.add(docs)
            for q in iter_questions([sample], categories=[1, 2, 3, 4]):
                if not q.evidence:
                    continue
                t0 = time.perf_counter()
                got = [k for k, _ in bm25.search(q.question, args.k)]
                rows.setdefault("bm25_ms", []).append((time.perf_counter() - t0) * 1000)
                rows.setdefault("bm25_recall", []).append(recall(q.evidence, got))
                for rank in ("ts_rank", "ts_rank_cd"):
                    t0 = time.perf_counter()
                    found = conn.execute(
                        "WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', %s)::text, '&', '|'), '')"
                        "::tsquery AS q) "
                        f"SELECT key FROM docs, q WHERE conv = %s AND tsv @@ q.q ORDER BY {rank}(tsv, q.q) DESC, key "
                        "LIMIT %s",
                        (q.question, sample.sample_id, args.k),
                    ).fetchall()
                    rows.setdefault(f"{rank}_ms", []).append((time.perf_counter() - t0) * 1000)
                    rows.setdefault(f"{rank}_recall", []).append(recall(q.evidence, [r[0] for r in found]))
    n = len(rows["bm25_recall"])
    print(f"LoCoMo conversations {args.conversations}, categories 1-4, {n} questions with evidence")
    print(f"| lexical retrieval | evidence recall@{args.k} | query p50 (ms) |")
    print("|---|---|---|")
    for name, label in (
        ("bm25", "BM25 (rank-bm25, in memory; today)"),
        ("ts_rank", "Postgres FTS, ts_rank"),
        ("ts_rank_cd", "Postgres FTS, ts_rank_cd"),
    ):
        print(
            f"| {label} | {statistics.fmean(rows[name + '_recall']):.3f} | "
            f"{statistics.median(rows[name + '_ms']):.2f} |"
        )


if __name__ == "__main__":
    main()
