"""Assistant calls on real LoCoMo sessions, cold (prefix evaluated and saved) against warm (prefix
restored), with a local GGUF run in-process (issue #19). A small, direct measurement for when a
full deep run does not fit: per question, the session holding its first evidence turn is the
segment, and the real assistant prompt is sent twice.

    python -m emem.eval.bench_segment_state_calls --home /work/kvhome --model qwen2.5-0.5b \\
        --data /work/shared/data/locomo10.json --questions 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from emem.agents.assistant import llm_assistant
from emem.answer import Plan
from emem.llm.llama_state import LlamaStateChat
from emem.memory import Memory
from emem.segment_state import SegmentStateCache

from .locomo_data import load_locomo


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True, help="a home holding the LoCoMo conversations")
    parser.add_argument("--model", default="qwen2.5-0.5b")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=3)
    args = parser.parse_args(argv)
    chat = LlamaStateChat(args.home / "models" / f"{args.model}.gguf", args.model)
    sample = load_locomo(args.data)[0]
    rows = []
    with Memory(args.home) as memory, tempfile.TemporaryDirectory() as tmp:
        states = SegmentStateCache(Path(tmp), budget_bytes=1 << 31)
        ns = f"eval-{sample.sample_id}"
        view = memory.read_runtime.view(ns)
        for qa in [q for q in sample.qa if q.evidence][: args.questions]:
            session = qa.evidence[0].split(":")[0].lstrip("D")
            seg = next(s for s in view.segments if s.session_id == f"S{session}")
            out = {}
            for name in ("cold", "warm"):
                t0 = time.perf_counter()
                report, call = llm_assistant(seg, qa.question, Plan(), chat, states=states, namespace=ns)
                out[name] = (time.perf_counter() - t0, call, report)
            rows.append(out)
            c, w = out["cold"], out["warm"]
            print(
                f"{qa.question[:50]!r}: cold {c[0]:.1f}s computed {c[1].prompt_tokens - c[1].restored_tokens} | "
                f"warm {w[0]:.1f}s computed {w[1].prompt_tokens - w[1].restored_tokens} restored {w[1].restored_tokens} "
                f"({w[1].restored_bytes / 2**20:.1f} MB, {w[1].restore_ms:.0f} ms) | same report {c[2] == w[2]}",
                flush=True,
            )
        files = list(Path(tmp).glob("*.state"))
        disk = sum(f.stat().st_size for f in files) / 2**20
    cold = [r["cold"][0] for r in rows]
    warm = [r["warm"][0] for r in rows]
    print(f"median latency cold {statistics.median(cold):.1f}s warm {statistics.median(warm):.1f}s; "
          f"states {len(files)}, {disk:.1f} MB on disk")  # fmt: skip


if __name__ == "__main__":
    main()
