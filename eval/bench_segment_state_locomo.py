"""Deep mode on the local-model LoCoMo sample with segment states off and on, interleaved per
question (issue #19).

Why interleaved: on a shared 2-core machine the load drifts by 2-5x within an hour, so three
sequential runs (off, cold, warm) would compare the machine's load as much as the feature. Here
every question is answered by both arms back to back, their order alternating (the planner's
server prompt cache favours whichever arm asks second), and a question whose states-on answer had
to build a state is asked once more with every state present:

- `off/`: today's path, the assistant on the llama.cpp server (with its RAM prompt cache).
- `first/`: states on, the first time this run asks the question: a state is built for each
  segment activated for the first time (cold), restored for a segment seen before.
- `warm/`: states on with every state of the question's segments present: the `first/` row when it
  built none, else a second answer right after it.

Each folder holds `rows.jsonl` in the harness's format (`emem eval report` and
`bench_segment_state` read it); `calls.jsonl` keeps every LLM call (role, latency, tokens). The
run resumes where its logs stop. Summarise it with:

    python -m emem.eval.bench_segment_state_locomo --report --out OUT --home HOME --memory-home MEM

Run it against servers started by `emem llm serve` into HOME (its llm.json names the roles); the
conversations and the states go to MEM. Give the in-process assistant the servers' threads:

    EMEM_LLM_THREADS=1 python -m emem.eval.bench_segment_state_locomo --home /work/kvhome \\
        --memory-home /work/kvhome/run --consolidation offline \\
        --data /work/shared/data/locomo10.json --out eval/results/locomo-local-kv
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from emem.agents.master import ReadRuntime, ask_graph, master_graph
from emem.agents.roles import READ_ROLES, RoleModels
from emem.config import recipe
from emem.llm.config import build_chat_model, load_llm_settings
from emem.llm.usage import UsageRecorder
from emem.memory import Memory

from .bench_segment_state import _pct, summarise
from .harness import error_row, score_output
from .locomo_data import LocomoQuestion, iter_questions, load_locomo
from .runlog import LOG_NAME, RunLog, RunRow, read_rows
from .systems import namespace_for, sample_to_emem, to_output

SYSTEM = "emem-deep"
ARMS = ("off", "first", "warm")


def interleave_categories(questions: Sequence[LocomoQuestion]) -> list[LocomoQuestion]:
    """The sample's questions dealt round-robin over categories, conversations in file order, so a
    run stopped early still covers every category (and a later conversation is ingested only when
    its questions come up).

    Args:
        questions: the sample, in file order.
    Returns:
        The same questions, reordered.
    """
    order: list[LocomoQuestion] = []
    for sample_id in dict.fromkeys(q.sample_id for q in questions):
        by_cat: dict[int, list[LocomoQuestion]] = {}
        for q in questions:
            if q.sample_id == sample_id:
                by_cat.setdefault(q.category, []).append(q)
        while any(by_cat.values()):
            for cat in sorted(by_cat):
                if by_cat[cat]:
                    order.append(by_cat[cat].pop(0))
    return order


class Arm:
    """One configuration of the roles over the shared Memory, with its own call log."""

    def __init__(self, name: str, memory: Memory, roles: RoleModels, recorder: UsageRecorder,
                 activate: int, out: Path) -> None:  # fmt: skip
        self.name = name
        self.recorder = recorder
        read = recipe("default").read.model_copy(update={"activate": activate})
        self.runtime = ReadRuntime(memory, roles, config=read)
        self.log = RunLog(out / name / LOG_NAME)
        self.calls = out / name / "calls.jsonl"

    def answer(self, q: LocomoQuestion, budget: int) -> RunRow:
        """Answer one question in deep mode; its row, and its calls appended to calls.jsonl."""
        seen = len(self.recorder.calls)
        start = time.perf_counter()
        try:
            out = to_output(
                ask_graph(
                    master_graph(),
                    q.question,
                    namespace_for(q.sample_id),
                    "deep",
                    None,
                    budget,
                    context=self.runtime,
                )  # fmt: skip
            )
            row = score_output(q, SYSTEM, out, (time.perf_counter() - start) * 1000)
        except Exception as exc:  # every failure becomes a logged row, as in the harness
            row = error_row(q, SYSTEM, f"{type(exc).__name__}: {exc}", (time.perf_counter() - start) * 1000)
        with self.calls.open("a") as fh:
            for call in self.recorder.calls[seen:]:
                fh.write(json.dumps({"qid": q.qid, **call.model_dump()}) + "\n")
        return row


def build_roles(home: Path, segment_state: str, recorder: UsageRecorder) -> RoleModels:
    """The read roles from HOME's llm.json, with segment states `off` or `local`."""
    settings = load_llm_settings(home).model_copy(update={"segment_state": segment_state})
    return RoleModels({role: build_chat_model(role, settings, recorder) for role in READ_ROLES})


def role_latency(out: Path, arm: str, rows: dict[str, RunRow]) -> dict[str, list[float]]:
    """Seconds per question in the planner, the assistants and the reader. The planner and the
    reader run alone, so their calls' latencies are summed; a hop's assistants are sent together
    and wait for one another (one model, one call at a time), so a call's latency includes its
    queueing, and the assistants' time is the answer's latency minus the planner's and the
    reader's (routing and aggregation, milliseconds, stay in it)."""
    path = out / arm / "calls.jsonl"
    per: dict[tuple[str, str], float] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            c = json.loads(line)
            if c["qid"] in rows and c["role"] in ("planner", "reader"):
                per[(c["qid"], c["role"])] = per.get((c["qid"], c["role"]), 0.0) + c["latency_ms"] / 1000
    out_roles: dict[str, list[float]] = {"planner": [], "assistant": [], "reader": []}
    for qid, row in rows.items():
        planner, reader = per.get((qid, "planner"), 0.0), per.get((qid, "reader"), 0.0)
        out_roles["planner"].append(planner)
        out_roles["reader"].append(reader)
        out_roles["assistant"].append(row.latency_ms / 1000 - planner - reader)
    return out_roles


def restores(out: Path, arm: str, qids: set[str]) -> list[dict]:
    """The assistant calls of `arm` that restored a state (tokens, bytes, load time)."""
    path = out / arm / "calls.jsonl"
    if not path.exists():
        return []
    calls = [json.loads(line) for line in path.read_text().splitlines()]
    return [c for c in calls if c["qid"] in qids and c.get("restored_tokens")]


def report(out: Path, states_dir: Path | None) -> str:
    """The run's figures as markdown: arms on the questions all three answered, the cold subset,
    latency per role, disk and load time, and the issue's Done-when ratios.

    Args:
        out: the run's folder (off/, first/, warm/).
        states_dir: the home's segment-state folder, for disk use.
    Returns:
        The markdown.
    """
    loaded = {a: {r.qid: r for r in read_rows(out / a / LOG_NAME, RunRow)} for a in ARMS}
    common = set.intersection(*(set(rows) for rows in loaded.values()))
    cold = {q for q in common if loaded["first"][q].usage.states_built > 0}
    lines = [f"{len(common)} questions answered in every arm; {len(cold)} of them built a state "
             "on their first states-on answer (cold).", ""]  # fmt: skip
    cols = ["questions", "prompt_tok", "computed_tok", "restored_tok", "assistant_computed_tok",
            "restored_mb", "restore_s", "states_built", "p50_s", "p95_s", "score", "errors"]  # fmt: skip
    lines += ["| arm | " + " | ".join(cols) + " | same answer as off |", "|" + " --- |" * (len(cols) + 2)]
    figures: dict[str, dict[str, float]] = {}
    for label, arm, qids in (
        ("off (all)", "off", common), ("first pass (all)", "first", common), ("warm (all)", "warm", common),
        ("off (cold questions)", "off", cold), ("cold (first pass, built)", "first", cold),
        ("warm (cold questions)", "warm", cold),
    ):  # fmt: skip
        rows = [loaded[arm][q] for q in sorted(qids)]
        base = {q: loaded["off"][q].prediction for q in qids}
        f = summarise(rows, base)
        figures[label] = f
        cells = [f"{f[c]:.3f}" if c == "score" else f"{f[c]:,.1f}" if isinstance(f[c], float) else str(f[c])
                 for c in cols]  # fmt: skip
        lines.append(
            f"| {label} | " + " | ".join(cells) + f" | {f.get('same_answer', 0)}/{f.get('compared', 0)} |"
        )
    same_cw = sum(
        1 for q in cold if loaded["first"][q].prediction.strip() == loaded["warm"][q].prediction.strip()
    )
    lines += ["", f"Cold and warm answers identical on {same_cw} of {len(cold)} cold questions.", ""]
    lines += ["Seconds per question in each role's calls (p50 / p95 / mean):", "",
              "| arm | planner | assistant | reader |", "| --- | --- | --- | --- |"]  # fmt: skip
    for arm in ARMS:
        per = role_latency(out, arm, {q: loaded[arm][q] for q in common})
        cells = []
        for role in ("planner", "assistant", "reader"):
            v = per.get(role, [])
            cells.append(f"{_pct(v, 0.5):.1f} / {_pct(v, 0.95):.1f} / {sum(v) / len(v):.1f}" if v else "-")
        lines.append(f"| {arm} | " + " | ".join(cells) + " |")
    warm_restores = restores(out, "warm", common) + restores(out, "first", common)
    if warm_restores:
        ms = [c["restore_ms"] for c in warm_restores]
        mb = [c["restored_bytes"] / 2**20 for c in warm_restores]
        lines += ["", f"Restores: {len(ms)} (first and warm arms); state size p50 {_pct(mb, 0.5):.1f} MB; "
                  f"load time p50 {_pct(ms, 0.5):.0f} ms, p95 {_pct(ms, 0.95):.0f} ms "
                  f"({sum(mb) / max(sum(ms) / 1000, 1e-9):.0f} MB/s)."]  # fmt: skip
    if states_dir is not None and states_dir.exists():
        files = list(states_dir.glob("*.state"))
        total = sum(f.stat().st_size for f in files) / 2**20
        lines += ["", f"States on disk: {len(files)} files, {total:.1f} MB."]
    off, warm = figures["off (all)"], figures["warm (all)"]
    if warm["p50_s"] > 0 and off["prompt_tok"] > 0:
        lines += ["", f"Done-when: warm computes {warm['computed_tok'] / off['prompt_tok']:.2f} of today's "
                  f"prompt tokens per question (target <= 0.25); off p50 / warm p50 = "
                  f"{off['p50_s'] / warm['p50_s']:.2f}x (target >= 3)."]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True, help="memory home with llm.json and models/")
    parser.add_argument("--data", type=Path, help="locomo10.json (not needed with --report)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--memory-home", type=Path, help="where conversations and states go (default: HOME)")
    parser.add_argument(
        "--consolidation",
        choices=("llm", "offline"),
        default="llm",
        help="summariser and adjudicator: HOME's models, or the offline rules (ingest in minutes, not an hour)",
    )
    parser.add_argument("--per-category", type=int, default=20)
    parser.add_argument("--sample", default="first")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--activate", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="stop after this many questions")
    parser.add_argument("--report", action="store_true", help="only summarise OUT (writes OUT/summary.md)")
    args = parser.parse_args(argv)
    if args.report:
        text = report(args.out, (args.memory_home or args.home) / "segment-state")
        (args.out / "summary.md").write_text(text)
        print(text)
        return
    if args.data is None:
        parser.error("--data is required")

    samples = {s.sample_id: s for s in load_locomo(args.data)}
    questions = interleave_categories(
        list(iter_questions(list(samples.values()), per_category=args.per_category, sample=args.sample))
    )
    if args.limit is not None:
        questions = questions[: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "questions.json").write_text(json.dumps([q.qid for q in questions], indent=0) + "\n")

    off_rec, on_rec = UsageRecorder(), UsageRecorder()
    off_roles = build_roles(args.home, "off", off_rec)
    on_roles = build_roles(args.home, "local", on_rec)
    if off_roles.get("assistant") is None or type(on_roles.get("assistant")).__name__ != "LlamaStateChat":
        raise SystemExit("need a local assistant endpoint whose model is pulled into HOME/models")
    consolidation = RoleModels(
        {r: None if args.consolidation == "offline" and r in ("summariser", "adjudicator") else m
         for r, m in off_roles.models.items()}
    )  # fmt: skip
    with Memory(args.memory_home or args.home, roles=consolidation) as memory:
        arms = {
            "off": Arm("off", memory, off_roles, off_rec, args.activate, args.out),
            "first": Arm("first", memory, on_roles, on_rec, args.activate, args.out),
            "warm": Arm("warm", memory, on_roles, on_rec, args.activate, args.out),
        }
        arms["warm"].runtime = arms["first"].runtime  # same roles: share the namespace views
        done = {name: {r.qid for r in arm.log.rows()} for name, arm in arms.items()}
        prepared: set[str] = set()
        for i, q in enumerate(questions):
            if all(q.qid in done[a] for a in ARMS):
                continue
            if q.sample_id not in prepared:
                t0 = time.perf_counter()
                ns = namespace_for(q.sample_id)
                memory.add_conversation(sample_to_emem(samples[q.sample_id]), namespace=ns)
                memory.index(ns)
                memory.consolidate(ns)
                prepared.add(q.sample_id)
                print(f"prepared {q.sample_id} in {time.perf_counter() - t0:.0f}s", flush=True)
            order = ("off", "first") if i % 2 == 0 else ("first", "off")
            rows: dict[str, RunRow] = {}
            for name in order:
                if q.qid not in done[name]:
                    rows[name] = arms[name].answer(q, args.budget)
                    arms[name].log.append(rows[name])
            if q.qid not in done["warm"]:
                first = rows.get("first")
                if first is None:
                    first = next(r for r in arms["first"].log.rows() if r.qid == q.qid)
                warm = arms["warm"].answer(q, args.budget) if first.usage.states_built else first
                arms["warm"].log.append(warm)
                rows["warm"] = warm
            print(
                f"[{i + 1}/{len(questions)}] {q.qid} cat {q.category}: "
                + ", ".join(
                    f"{n} {r.latency_ms / 1000:.1f}s computed {r.usage.computed_prompt_tokens or r.usage.prompt_tokens}"
                    f" built {r.usage.states_built}"
                    for n, r in rows.items()
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
