"""Tenant isolation probes: many namespaces with overlapping names, ids, entities and texts; every
read in one namespace must return nothing from another.

    python -m emem.eval.isolation_probes --probes 10000      # or: python -m eval.isolation_probes

Each namespace's turns and asserted facts carry a namespace-unique token (in the text, and in
some fact values), while conversation, session and turn ids, speakers, subjects and most
sentences are the same everywhere. A probe picks a namespace and a random read (search, ask in
fast/deep/auto mode, facts, resolve, history, stats), often baiting it with another namespace's
token, and flags a leak when another namespace's token appears in the result (the echoed
question aside). Prints the leaks found (must be 0) and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NAMESPACES = [
    "acme",
    "Acme",
    "ACME",
    "acme2",
    "acme.prod",
    "acme-prod",
    "acme/prod",
    "acme:prod",
    "acme@prod",
    "t1",
    "t10",
    "t1.0",
    "a",
    "a/b",
    "a/b/c",
    "x-1",
    "x-10",
]
SUBJECTS = ["Dana", "Omar", "Lena"]
SHARED = [
    "I just moved to Lisbon for a new job.",
    "I work at Kinetica now.",
    "We adopted a dog named Rex.",
    "The weather was lovely and we walked along the river.",
    "I live in Porto.",
    "My favourite food is sushi.",
]
QUESTIONS = [
    "Where does {s} live?",
    "Where does {s} work now?",
    "What pets does {s} have?",
    "What does {s} like?",
    "When did {s} move?",
    "How many pets does {s} have?",
    "What did {s} say about {w}?",
]


class HashEmbedder:
    """A cheap deterministic embedder (hashed bag of words) for fast runs: isolation does not
    depend on vector quality, only on which collection a vector lives in."""

    name = "hash-bow-64"
    dim = 64

    def embed(self, texts: list[str]) -> Any:
        import hashlib

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = hashlib.blake2b(word.encode("utf-8"), digest_size=4).digest()
                out[row, int.from_bytes(h[:2], "little") % self.dim] += 1.0 if h[2] % 2 else -1.0
            out[row, row % self.dim] += 1e-3  # never the zero vector
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def make_token(rng: random.Random) -> str:
    return "lk" + "".join(rng.choice(string.ascii_lowercase) for _ in range(7)) + "q"


@dataclass
class World:
    namespaces: list[str]
    tokens: dict[str, str]
    turns_per_namespace: int

    def others(self, ns: str) -> list[str]:
        return [self.tokens[o] for o in self.namespaces if o != ns]


def build_world(memory: Any, namespaces: list[str], seed: int) -> World:
    """Fill each namespace with the same conversation shape (two conversations, three sessions of
    five turns), the namespace token in every turn, and facts whose values carry the token."""
    rng = random.Random(seed)
    tokens: dict[str, str] = {}
    while len(tokens) < len(namespaces):
        tok = make_token(rng)
        if all(tok not in t and t not in tok for t in tokens.values()):
            tokens[namespaces[len(tokens)]] = tok
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for ns in namespaces:
        tok = tokens[ns]
        town = tok.capitalize() + "ville"
        convs = []
        for c in ("c1", "c2"):
            sessions = []
            for s in range(3):
                turns = []
                for j in range(5):
                    if (s + j) % 4 == 0:
                        text = f"I just moved to {town} for a new job."
                    else:
                        text = f"{rng.choice(SHARED)} Remember {tok} please."
                    turns.append({"turn_id": f"S{s}:{j}", "speaker": SUBJECTS[(s + j) % 3], "text": text})
                when = start + timedelta(days=30 * s + (c == "c2"))
                sessions.append({"session_id": f"S{s}", "time": when.isoformat(), "turns": turns})
            convs.append({"conversation_id": c, "sessions": sessions})
        for conv in convs:
            memory.add_conversation(conv, namespace=ns)
        memory.consolidate(ns)
        for subject in SUBJECTS:
            memory.assert_fact(
                subject, "likes", f"{tok} cake", start.isoformat(), namespace=ns, sources=["c1/S0:0"]
            )
        memory.index(ns)
    return World(namespaces=list(namespaces), tokens=tokens, turns_per_namespace=30)


@dataclass
class ProbeSummary:
    probes: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    leaks: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.by_kind.items()))
        return (
            f"isolation probes: {self.probes} probes ({kinds}) over {len(NAMESPACES)} namespaces; "
            f"leaks found: {len(self.leaks)} [{self.seconds:.0f}s]"
        )


def _dump(result: Any) -> str:
    if isinstance(result, list):
        return "\n".join(_dump(r) for r in result)
    if hasattr(result, "model_dump_json"):
        exclude = {"question"} if type(result).__name__ == "Answer" else None
        return result.model_dump_json(exclude=exclude)
    return str(result)


def probe(memory: Any, world: World, rng: random.Random) -> tuple[str, str, list[str]]:
    """One random read in a random namespace: (kind, namespace, leaked tokens)."""
    ns = rng.choice(world.namespaces)
    own, others = world.tokens[ns], world.others(ns)
    bait = rng.choice(others)
    subject = rng.choice(SUBJECTS)
    word = rng.choice([own, bait, "river", "Lisbon", "Rex", bait.capitalize() + "ville"])
    kind = rng.choice(["search", "search", "ask", "facts", "resolve", "history", "stats"])
    if kind == "search":
        query = " ".join(
            rng.sample([own, bait, "moved", "job", "dog", "river", "Kinetica", word], k=rng.randint(1, 3))
        )
        result: Any = memory.search(query, namespace=ns, k=rng.randint(1, 30))
    elif kind == "ask":
        mode = rng.choice(["fast", "deep", "auto"])
        kind = f"ask-{mode}"
        question = rng.choice(QUESTIONS).format(s=subject, w=word)
        result = memory.ask(question, namespace=ns, mode=mode)
    elif kind == "facts":
        result = memory.facts(namespace=ns, subject=rng.choice([None, subject]))
    elif kind == "resolve":
        result = memory.resolve(
            subject, rng.choice(["lives_in", "likes", "works_at", "has_pet"]), namespace=ns
        )
    elif kind == "history":
        result = memory.history(subject, namespace=ns)
    else:
        stats = memory.stats(ns)
        result = stats
        if stats.turns != world.turns_per_namespace:
            return kind, ns, [f"stats counts {stats.turns} turns, expected {world.turns_per_namespace}"]
    text = _dump(result).lower()
    return kind, ns, [t for t in others if t in text]


def harness_probe(home: Path, world_seed: int, systems: list[str], out_dir: Path) -> list[str]:
    """The eval harness end to end on three tiny LoCoMo samples whose conversations are identical
    but for a per-sample token: no logged row of one sample may mention another's token."""
    from .harness import run_eval
    from .locomo_data import LocomoQA, LocomoSample, LocomoSession, LocomoTurn
    from .runlog import RunRow, read_rows
    from .systems import Shared, build_systems

    rng = random.Random(world_seed)
    tokens = {f"s{i}": make_token(rng) for i in range(3)}
    samples = []
    for sid, tok in tokens.items():
        turns = [
            LocomoTurn(
                speaker="Dana" if j % 2 else "Omar",
                dia_id=f"D1:{j + 1}",
                text=f"{SHARED[j % len(SHARED)]} The code word is {tok}.",
            )
            for j in range(6)
        ]
        samples.append(
            LocomoSample(
                sample_id=sid,
                speakers=("Omar", "Dana"),
                sessions=[LocomoSession(number=1, date_time="1:56 pm on 8 May, 2023", turns=turns)],
                qa=[
                    LocomoQA(question="What is the code word?", answer=tok, evidence=["D1:2"], category=1),
                    LocomoQA(question="Where does Dana live?", answer="Porto", evidence=["D1:5"], category=1),
                ],
            )
        )
    from emem.agents.roles import RoleModels

    shared = Shared(home, RoleModels())
    run_eval(build_systems(systems, shared), samples, out_dir=out_dir, progress=False)
    leaks = []
    for row in read_rows(out_dir / "rows.jsonl", RunRow):
        text = row.model_dump_json(exclude={"question", "gold"}).lower()
        leaks += [
            f"harness {row.system} {row.qid}: {t}"
            for s, t in tokens.items()
            if s != row.sample_id and t in text
        ]
    return leaks


def run_probes(n: int, home: Path, seed: int = 0, log=print, embedder: Any = None) -> ProbeSummary:  # type: ignore[no-untyped-def]
    """`embedder` None uses emem's default (MiniLM); tests pass `HashEmbedder()` for speed."""
    from emem.memory import Memory

    started = time.perf_counter()
    rng = random.Random(seed)
    summary = ProbeSummary()
    with Memory(home, embedder=embedder) as memory:
        world = build_world(memory, NAMESPACES, seed)
        for i in range(n):
            kind, ns, leaked = probe(memory, world, rng)
            summary.probes += 1
            summary.by_kind[kind] += 1
            summary.leaks += [f"probe {i} {kind} in {ns!r}: {t}" for t in leaked]
            if log and (i + 1) % 1000 == 0:
                log(f"{i + 1} probes, {len(summary.leaks)} leaks")
    summary.seconds = time.perf_counter() - started
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--probes", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--home", type=Path, default=None, help="work home (default: a fresh temp dir)")
    ap.add_argument(
        "--harness",
        default="emem-fast,emem-deep,rag-bm25,rag-dense,full-context",
        help="systems for the eval-harness probe ('' to skip)",
    )
    args = ap.parse_args(argv)
    root = args.home or Path(tempfile.mkdtemp(prefix="emem-isolation-"))
    summary = run_probes(args.probes, root / "home", args.seed)
    print(summary.line())
    leaks = list(summary.leaks)
    if args.harness:
        harness_leaks = harness_probe(
            root / "harness-home", args.seed, args.harness.split(","), root / "harness-run"
        )
        print(f"eval harness probe ({args.harness}): leaks found: {len(harness_leaks)}")
        leaks += harness_leaks
    for leak in leaks[:50]:
        print("  LEAK", leak)
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
