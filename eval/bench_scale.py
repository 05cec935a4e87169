"""Scale: several worker processes (on several hosts for Postgres) writing and asking against one
store, as it grows from 1 to 10 to 50 LoCoMo-size namespaces; embedded and Postgres in one run.

    python -m emem.eval.bench_scale --data /work/shared/data/locomo10.json --namespaces 1,10,50

A namespace is "LoCoMo-size": all 10 LoCoMo conversations (5,882 turns), so 1, 10 and 50
namespaces hold about 6k, 59k and 294k turns. Both stores grow level by level; at each level,
for each backend (alternating which goes first), `--workers` processes run at once:

1. load the namespaces added at this level (namespace j by worker j mod W): `add_turns` per
   conversation, then `index`; the wall time gives turns/s. The ledger is not consolidated
   (`--consolidate` does, and consolidates before every ask): the offline extractor is CPU that
   does not depend on the backend (bench_consolidation) and at 300k turns would dominate the run;
   so `ask` reads the turns and an empty ledger (its ledger queries still run);
2. warm up: one untimed search and ask per namespace the worker uses (views, BM25 built);
3. writes: `--writes` single-turn writes each, as fast as acknowledged (aggregate acked writes/s
   over the phase's wall time, and per-write p50/p95);
4. warm up again (the indexes catch up with phase 3's writes, untimed);
5. agent loop: `--asks` rounds each of one single-turn write, one `search` (k=10) and one `ask`
   (fast) on a LoCoMo question, so each read first catches up one fresh write.

With 1 namespace all workers share it; from 10 on, worker w uses the namespaces j with
j mod W = w. Postgres workers run each in a network namespace of its own (a "host", reaching the
server over a veth link; `emem.storage.postgres.netns`) when this runs as root with iproute2,
else on this host (said in the output). Embedded workers share one home on this host (the
embedded backend is one machine's by design).

Embedding: turn and summary vectors are all-MiniLM-L6-v2's own, computed once per distinct text
and reused by content hash (`--vectors`, a file outside the repository, built on first run by
embedding LoCoMo once through a real `Memory`): the same conversations are stored in every
namespace, and embedding 300k turns again would take an hour here. So load figures measure
storage and indexing, not the model. Question vectors are not reused: every search and ask
embeds its question with MiniLM, as in use.

Percentiles are over all workers' operations of one run (no repeated rounds: the 50-namespace
level alone takes most of an hour). The results are also written as JSON lines to `--out`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from emem.embedding import MiniLMEmbedder, default_embedder
from emem.ingest.locomo import parse_locomo
from emem.models import Turn

CONVERSATIONS_PER_NAMESPACE = 10
DEFAULT_VECTORS = Path.home() / ".cache" / "emem-bench" / "locomo-minilm-vectors.npz"


# -- vectors reused by content hash -----------------------------------------------------------------


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ReusedVectors:
    """An embedder giving MiniLM's vectors: from a table keyed by the text's sha256 when the text
    was embedded before, else from MiniLM itself (counted in `misses`). Same `name` and vectors as
    the bundled model, so the stores cannot tell the difference."""

    name = MiniLMEmbedder.name
    dim = MiniLMEmbedder.dim

    def __init__(self, table: dict[str, np.ndarray] | None = None) -> None:
        self.table: dict[str, np.ndarray] = dict(table or {})
        self.misses = 0
        self.recorded: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        """Args: texts. Returns: an (n, 384) float32 array of L2-normalised vectors."""
        keys = [text_key(t) for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self.table}.items())
        if todo:
            self.misses += len(todo)
            vectors = default_embedder().embed([t for _, t in todo])
            for (k, _), v in zip(todo, vectors, strict=True):
                self.recorded[k] = v
                self.table[k] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.table[k] for k in keys]).astype(np.float32)


def load_vectors(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return dict(zip(f["keys"].tolist(), f["vectors"], strict=True))


def save_vectors(path: Path, table: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = sorted(table)
    tmp = path.with_suffix(f".{os.getpid()}.npz")
    np.savez(tmp, keys=np.array(keys), vectors=np.stack([table[k] for k in keys]).astype(np.float32))
    os.replace(tmp, path)


def build_vectors(path: Path, samples: list[dict[str, Any]], questions: list[str]) -> int:
    """Embed every text emem embeds for one LoCoMo namespace (turns, segment summaries), once, by
    running it through an embedded `Memory`; returns how many vectors the file holds."""
    from emem.memory import Memory

    table = load_vectors(path) if path.exists() else {}
    embedder = ReusedVectors(table)
    with tempfile.TemporaryDirectory(prefix="emem-bench-scale-vectors-") as home:
        with Memory(home, embedder=embedder, backend="embedded", consolidate_on_read=False) as m:
            load_namespace(m, "warm", samples, consolidate=False)
            m.search(questions[0], namespace="warm", k=10)
            m.ask(questions[0], namespace="warm", mode="fast")
    if embedder.recorded or not path.exists():
        save_vectors(path, embedder.table)
    return len(embedder.table)


# -- what the workers do ------------------------------------------------------------------------------


def locomo_turns(samples: list[dict[str, Any]]) -> list[list[Turn]]:
    return [parse_locomo(s, s["sample_id"]).turns for s in samples]


def load_namespace(
    m: Any, namespace: str, samples: list[dict[str, Any]], consolidate: bool
) -> dict[str, float]:
    """Write all conversations to `namespace` (one batch each), index, and if asked consolidate;
    ms of each."""
    out = {"consolidate_ms": float("nan")}
    start = time.perf_counter()
    for turns in locomo_turns(samples):
        m.add_turns(turns, namespace=namespace)
    out["write_ms"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    m.index(namespace)
    out["index_ms"] = (time.perf_counter() - start) * 1000
    if consolidate:
        start = time.perf_counter()
        m.consolidate(namespace)
        out["consolidate_ms"] = (time.perf_counter() - start) * 1000
    return out


def live_turn(source: Turn, tag: str, i: int) -> Turn:
    """A new turn (new id, in a `live` conversation) saying what `source` said: its text is stored
    again, as a new utterance, and its vector is reused."""
    when = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(seconds=i)
    return source.model_copy(
        update={"conversation_id": "live", "session_id": tag, "turn_id": f"{tag}-{i}", "time": when}
    )


def timed_ms(fn: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - start) * 1000


def worker(job: dict[str, Any]) -> None:
    """One worker process: stages gated by the parent ("GO" on stdin), results as JSON on stdout."""
    from emem.memory import Memory

    samples = json.loads(Path(job["data"]).read_text())[: job["conversations"]]
    pool = [t for turns in locomo_turns(samples) for t in turns]
    questions = [qa["question"] for s in samples for qa in s["qa"]]
    embedder = ReusedVectors(load_vectors(Path(job["vectors"])))
    rank, level, namespaces = job["rank"], job["level"], job["use"]
    tag = f"L{level}w{rank}"

    def barrier(stage: str, payload: dict[str, Any]) -> None:
        print(json.dumps({"stage": stage, **payload}), flush=True)
        if sys.stdin.readline().strip() != "GO":
            raise SystemExit(0)

    def warm(m: Memory) -> None:
        for j, ns in enumerate(namespaces):
            m.search(questions[j % len(questions)], namespace=ns, k=10)
            m.ask(questions[j % len(questions)], namespace=ns, mode="fast")

    with Memory(
        job["home"], backend=job["backend"], embedder=embedder, consolidate_on_read=job["consolidate"]
    ) as m:
        barrier("ready", {})
        loads = [load_namespace(m, ns, samples, job["consolidate"]) for ns in job["load"]]
        barrier("loaded", {"loads": loads})
        warm(m)
        barrier("warm", {})
        writes = []
        for i in range(job["writes"]):
            t = live_turn(pool[(rank * 997 + i) % len(pool)], tag, i)
            writes.append(timed_ms(m.add_turns, [t], namespace=namespaces[i % len(namespaces)]))
        barrier("writes", {"write_ms": writes})
        warm(m)
        barrier("warm", {})
        loop: dict[str, list[float]] = {"write_ms": [], "search_ms": [], "ask_ms": []}
        for i in range(job["asks"]):
            ns = namespaces[i % len(namespaces)]
            q = questions[(rank * 389 + i * 7) % len(questions)]
            t = live_turn(pool[(rank * 997 + 5000 + i) % len(pool)], tag, job["writes"] + i)
            loop["write_ms"].append(timed_ms(m.add_turns, [t], namespace=ns))
            loop["search_ms"].append(timed_ms(m.search, q, namespace=ns, k=10))
            loop["ask_ms"].append(timed_ms(m.ask, q, namespace=ns, mode="fast"))
        print(json.dumps({"stage": "loop", **loop, "embed_misses": embedder.misses}), flush=True)


# -- the parent ---------------------------------------------------------------------------------------


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values), q))


def namespace_name(j: int) -> str:
    return f"ns{j:03d}"


class Workers:
    """The W worker processes of one (backend, level), stepped through their stages together."""

    def __init__(self, commands: list[list[str]], jobs: list[dict[str, Any]]) -> None:
        self.procs = [
            subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            for cmd in commands
        ]
        for p, job in zip(self.procs, jobs, strict=True):
            assert p.stdin is not None
            p.stdin.write(json.dumps(job) + "\n")
            p.stdin.flush()

    def collect(self, stage: str) -> list[dict[str, Any]]:
        out = []
        for p in self.procs:
            assert p.stdout is not None
            line = p.stdout.readline()
            if not line:
                err = p.stderr.read() if p.stderr else ""
                raise RuntimeError(f"a worker died before stage {stage!r}:\n{err[-4000:]}")
            msg = json.loads(line)
            if msg["stage"] != stage:
                raise RuntimeError(f"worker at stage {msg['stage']!r}, expected {stage!r}")
            out.append(msg)
        return out

    def go(self) -> float:
        for p in self.procs:
            assert p.stdin is not None
            p.stdin.write("GO\n")
            p.stdin.flush()
        return time.perf_counter()

    def close(self) -> None:
        for p in self.procs:
            try:
                p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()


def run_level(
    backend: str,
    home: Path,
    level: int,
    previous: int,
    args: argparse.Namespace,
    placements: list[tuple[list[str], str]],
) -> dict[str, Any]:
    """One backend at one level: load the new namespaces, then the timed phases."""
    W = args.workers
    jobs = []
    for rank in range(W):
        use = [namespace_name(j) for j in range(level) if j % W == rank] or [namespace_name(0)]
        load = [namespace_name(j) for j in range(previous, level) if j % W == rank]
        jobs.append(
            {
                "rank": rank,
                "level": level,
                "backend": placements[rank % len(placements)][1],
                "home": str(home / f"worker{rank}" if backend == "postgres" else home),
                "data": str(args.data),
                "conversations": args.conversations,
                "vectors": str(args.vectors),
                "load": load,
                "use": use,
                "writes": args.writes,
                "asks": args.asks,
                "consolidate": args.consolidate,
            }
        )
    me = [sys.executable, "-m", "emem.eval.bench_scale", "--worker"]
    workers = Workers([placements[r % len(placements)][0] + me for r in range(W)], jobs)
    try:
        workers.collect("ready")
        start = workers.go()
        loaded = workers.collect("loaded")
        load_s = time.perf_counter() - start
        workers.go()
        workers.collect("warm")
        start = workers.go()
        writes = workers.collect("writes")
        write_s = time.perf_counter() - start
        workers.go()
        workers.collect("warm")
        workers.go()
        loops = workers.collect("loop")
    finally:
        workers.close()
    loads = [x for w in loaded for x in w["loads"]]
    write_ms = [x for w in writes for x in w["write_ms"]]
    loop = {k: [x for w in loops for x in w[k]] for k in ("write_ms", "search_ms", "ask_ms")}
    new_turns = (level - previous) * args.turns_per_namespace
    return {
        "backend": backend,
        "namespaces": level,
        "turns": level * args.turns_per_namespace,
        "loaded_namespaces": level - previous,
        "load_s": load_s,
        "load_turns_per_s": new_turns / load_s if new_turns else float("nan"),
        "index_ms_p50": statistics.median([x["index_ms"] for x in loads]) if loads else float("nan"),
        "write_batch_ms_p50": statistics.median([x["write_ms"] for x in loads]) if loads else float("nan"),
        "consolidate_ms_p50": statistics.median([x["consolidate_ms"] for x in loads])
        if loads
        else float("nan"),
        "writes_per_s": len(write_ms) / write_s,
        "write_p50": pct(write_ms, 50),
        "write_p95": pct(write_ms, 95),
        "loop_write_p50": pct(loop["write_ms"], 50),
        "search_p50": pct(loop["search_ms"], 50),
        "search_p95": pct(loop["search_ms"], 95),
        "ask_p50": pct(loop["ask_ms"], 50),
        "ask_p95": pct(loop["ask_ms"], 95),
        "embed_misses": sum(w["embed_misses"] for w in loops),
        "load_avg": os.getloadavg()[0],
    }


@contextmanager
def postgres_server(given: str | None, hosts: int) -> Iterator[tuple[list[tuple[list[str], str]], str]]:
    """Where Postgres workers run: [(command prefix, URL of one fresh database as reached from
    there)], one per host, and a sentence saying where that is."""
    import psycopg

    from emem.storage.postgres.netns import hosts_problem, network_hosts
    from emem.storage.postgres.server import LocalPostgres

    name = f"scale_{uuid.uuid4().hex[:8]}"
    if given:
        with psycopg.connect(given, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        yield [([], given.rsplit("/", 1)[0] + "/" + name)], "on this host, server given by --postgres"
        return
    problem = hosts_problem() if hosts else "--hosts 0"
    with ExitStack() as stack:
        made = stack.enter_context(network_hosts(hosts)) if problem is None else []
        server = stack.enter_context(
            LocalPostgres(
                listen=["127.0.0.1", *(h.server_ip for h in made)],
                trusted_networks=[made[0].network] if made else [],
            )
        )
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        if made:  # each host reaches the server at its own link's address
            placements = [(h.command([]), server.url(name, h.server_ip)) for h in made]
            where = f"{len(made)} network namespaces as hosts, each over its own veth link"
        else:
            placements, where = [([], server.url(name))], f"on this host over 127.0.0.1 ({problem})"
        yield placements, where


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, help="path to locomo10.json")
    ap.add_argument("--namespaces", default="1,10,50", help="levels the stores grow through")
    ap.add_argument("--conversations", type=int, default=CONVERSATIONS_PER_NAMESPACE, help="per namespace")
    ap.add_argument("--workers", type=int, default=4, help="worker processes per backend")
    ap.add_argument("--writes", type=int, default=40, help="single-turn writes per worker (phase 3)")
    ap.add_argument("--asks", type=int, default=12, help="write+search+ask rounds per worker (phase 5)")
    ap.add_argument("--backends", default="embedded,postgres")
    ap.add_argument("--hosts", type=int, default=4, help="network namespaces for Postgres workers (0: none)")
    ap.add_argument("--postgres", default=None, help="a postgresql:// URL (default: start a local server)")
    ap.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS, help="content-hash vector file")
    ap.add_argument("--out", type=Path, default=None, help="append each level's results here (JSON lines)")
    ap.add_argument(
        "--consolidate",
        action="store_true",
        help="consolidate each namespace when loading it, and before every ask (default: neither)",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(json.loads(sys.stdin.readline()))
        return
    if args.data is None:
        ap.error("--data is required")
    levels = [int(x) for x in args.namespaces.split(",")]
    backends = args.backends.split(",")
    samples = json.loads(args.data.read_text())[: args.conversations]
    args.turns_per_namespace = sum(len(t) for t in locomo_turns(samples))
    questions = [qa["question"] for s in samples for qa in s["qa"]]
    start = time.perf_counter()
    n = build_vectors(args.vectors, samples, questions)
    print(f"vectors: {n} in {args.vectors} ({time.perf_counter() - start:.0f} s)", flush=True)

    results: list[dict[str, Any]] = []
    with ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="emem-bench-scale-")))
        specs: dict[str, list[tuple[list[str], str]]] = {}
        if "embedded" in backends:
            specs["embedded"] = [([], "embedded")]
        if "postgres" in backends:
            specs["postgres"], where = stack.enter_context(postgres_server(args.postgres, args.hosts))
            print(f"postgres workers: {where}", flush=True)
        previous = 0
        for i, level in enumerate(levels):
            order = list(specs) if i % 2 == 0 else list(reversed(specs))
            for backend in order:
                home = root / backend
                home.mkdir(parents=True, exist_ok=True)
                row = run_level(backend, home, level, previous, args, specs[backend])
                results.append(row)
                print(json.dumps(row), flush=True)
                if args.out:
                    with open(args.out, "a", encoding="utf-8") as f:
                        f.write(json.dumps({**row, "workers": args.workers, "hosts": args.hosts}) + "\n")
            previous = level
            print_table(results, args)


def print_table(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        f"\n{args.workers} workers per backend; per worker {args.writes} single-turn writes, then "
        f"{args.asks} rounds of write + search (k=10) + ask (fast); turn vectors reused by content hash"
    )
    print(
        f"| namespaces (turns) | backend | load + index{' + consolidate' if args.consolidate else ''} (turns/s) "
        "| writes/s (all workers) "
        "| write p50 / p95 (ms) | search p50 / p95 (ms) | ask fast p50 / p95 (ms) |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['namespaces']} ({r['turns']:,}) | {r['backend']} | {r['load_turns_per_s']:.0f} | "
            f"{r['writes_per_s']:.1f} | {r['write_p50']:.1f} / {r['write_p95']:.1f} | "
            f"{r['search_p50']:.0f} / {r['search_p95']:.0f} | {r['ask_p50']:.0f} / {r['ask_p95']:.0f} |"
        )
    print(flush=True)


if __name__ == "__main__":
    main()
