"""HTTP API benchmark: search and ask latency under 8 concurrent clients, against the same calls
made in-process (same concurrency, same memory home, same questions).

    python -m emem.eval.bench_http [--data ../shared/data/locomo10.json] [--clients 8] [--requests 200]

The server is `python -m emem serve` in its own process (uvicorn, one worker) on 127.0.0.1; the
clients are threads with one httpx connection each. In-process, the same number of threads call
`Memory.search` / `Memory.ask(mode="fast")` on one Memory. Reports p50/p95 per call and the ratio
HTTP / in-process. With --data, the first LoCoMo conversation is the memory; otherwise emem's
example conversation.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from emem.cli.demo import example_conversation
from emem.memory import Memory

KEY = "bench-key-0123456789abcdef"
NS = "bench"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_concurrent(clients: int, requests: int, call: Callable[[int, int], object]) -> list[float]:
    """`requests` calls spread over `clients` threads; returns each call's latency in ms."""
    latencies: list[float] = []
    lock = threading.Lock()

    def worker(w: int) -> None:
        for i in range(w, requests, clients):
            start = time.perf_counter()
            call(w, i)
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def questions(data: Path | None) -> tuple[dict, list[str]]:
    if data is None:
        conv = example_conversation()
        qs = ["Where does Alice live?", "What does Ben do for work?", "What did Alice make in pottery class?",
              "Where did Ben travel?", "What pets do Alice and Ben have?"]  # fmt: skip
        return conv, qs
    sample = json.loads(data.read_text())[0]
    qs = [q["question"] for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)][:50]
    return sample, qs


def wait_ready(url: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("server did not start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--port", type=int, default=8791)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="emem-bench-http-"))
    conv, qs = questions(args.data)
    with Memory(home) as m:
        m.add_conversation(conv, namespace=NS)
        m.index(NS)
        m.ask(qs[0], namespace=NS, mode="fast")  # warm the read path
        turns = m.stats(NS).turns
        inproc = {
            "search": run_concurrent(
                args.clients, args.requests, lambda w, i: m.search(qs[i % len(qs)], 10, namespace=NS)
            ),
            "ask (fast)": run_concurrent(
                args.clients, args.requests, lambda w, i: m.ask(qs[i % len(qs)], namespace=NS, mode="fast")
            ),
        }
    keys = home / "keys.json"
    keys.write_text(json.dumps({KEY: [NS]}))
    url = f"http://127.0.0.1:{args.port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "emem", "serve", "--home", str(home), "--keys", str(keys), "--port", str(args.port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ},
    )  # fmt: skip
    try:
        wait_ready(url)
        sessions = [
            httpx.Client(base_url=url, headers={"X-API-Key": KEY}, timeout=120) for _ in range(args.clients)
        ]

        def post(op: str, body: Callable[[int], dict]) -> Callable[[int, int], None]:
            def call(w: int, i: int) -> None:
                r = sessions[w].post(f"/v1/{op}", json=body(i))
                r.raise_for_status()

            return call

        for op, body in (("search", lambda i: {"namespace": NS, "query": qs[i % len(qs)]}),
                         ("ask", lambda i: {"namespace": NS, "question": qs[i % len(qs)], "mode": "fast"})):  # fmt: skip
            post(op, body)(0, 0)  # warm the server's read path
        over_http = {
            "search": run_concurrent(
                args.clients,
                args.requests,
                post("search", lambda i: {"namespace": NS, "query": qs[i % len(qs)], "k": 10}),
            ),
            "ask (fast)": run_concurrent(
                args.clients,
                args.requests,
                post("ask", lambda i: {"namespace": NS, "question": qs[i % len(qs)], "mode": "fast"}),
            ),
        }
    finally:
        server.terminate()
        server.wait(30)
    source = args.data.name + " conversation 0" if args.data else "example conversation"
    print(
        f"emem HTTP API benchmark: {source} ({turns} turns), {args.clients} concurrent clients, "
        f"{args.requests} calls per row"
    )
    print(
        "| call | in-process p50 ms | in-process p95 ms | HTTP p50 ms | HTTP p95 ms | HTTP/in-process p50 | p95 |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in inproc:
        a, b = inproc[name], over_http[name]
        pa50, pa95, pb50, pb95 = (
            percentile(a, 0.5),
            percentile(a, 0.95),
            percentile(b, 0.5),
            percentile(b, 0.95),
        )
        print(
            f"| {name} | {pa50:.1f} | {pa95:.1f} | {pb50:.1f} | {pb95:.1f} | {pb50 / pa50:.2f}x | {pb95 / pa95:.2f}x |"
        )
    print(f"(medians of all calls: in-process search {statistics.median(inproc['search']):.1f} ms)")


if __name__ == "__main__":
    main()
