"""Build `report.md` (and its PNG plots) from a run directory's log and manifest.

The report is a pure function of those two files: rebuilding it never re-runs a system, and the
same log always yields byte-identical tables (rows are sorted, the bootstrap is seeded). A run
with a public log (runlog.PublicLog) is reported from it alone when rows.jsonl is gone: no table
needs the dataset's text, and errors then show their exception class only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from .locomo_data import OFFICIAL_LOCOMO10_SHA256
from .manifest import Invocation, RunManifest, read_manifest
from .metrics import CATEGORY_NAMES, CATEGORY_ORDER, RECALL_KS, category_mapping_line
from .runlog import LOG_NAME, PublicLog, RowBase, RunRow, merge_rows, read_rows
from .stats import DEFAULT_CORRECT_THRESHOLD, bootstrap_ci, discordant_pairs, is_correct, mcnemar_exact

REPORT_NAME = "report.md"
PLOT_BY_CATEGORY = "score_by_category.png"
PLOT_VS_CONTEXT = "score_vs_context_tokens.png"
PLOT_RECALL_VS_ORCHESTRATION = "recall_vs_orchestration_tokens.png"
OFFLINE_READER_LINE = "offline reader: deterministic, not an LLM"
ANSWERABLE = (1, 2, 3, 4)


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _or_dash(value: object) -> str:
    return "–" if value is None else str(value)


def run_time_line(invocations: Sequence[Invocation]) -> str:
    """How long the run took, start by start (a resumed run has several; a killed one has no end)."""
    done = [i.seconds for i in invocations if i.seconds is not None]
    text = f"Run time: {len(invocations)} start(s)"
    if done:
        text += f", {sum(done) / 60:.1f} min wall-clock over the {len(done)} that finished"
    if len(done) < len(invocations):
        text += f"; {len(invocations) - len(done)} stopped before the end (time not recorded)"
    return text


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _mapping_note() -> str:
    return f"\n\n*Categories (LoCoMo integer labels, official order): {category_mapping_line()}.*\n"


def _qid_key(row: RunRow) -> tuple[str, int]:
    sample, _, index = row.qid.rpartition("#")
    return (sample, int(index) if index.isdigit() else -1)


def _group(rows: list[RunRow], order: Sequence[str]) -> dict[str, list[RunRow]]:
    """Rows per system, systems in manifest order, rows in question order (for determinism)."""
    grouped: dict[str, list[RunRow]] = {name: [] for name in order}
    for row in rows:
        grouped.setdefault(row.system, []).append(row)
    return {name: sorted(rs, key=_qid_key) for name, rs in grouped.items() if rs}


def _cats_present(rows: list[RunRow]) -> list[int]:
    present = {r.category for r in rows}
    return [c for c in CATEGORY_ORDER if c in present]


def _cat_header(cats: Sequence[int]) -> list[str]:
    return [f"{c} {CATEGORY_NAMES[c]}" for c in cats]


def _per_category(
    rows: list[RunRow], cats: Sequence[int], value: Callable[[RunRow], float | None]
) -> list[str]:
    cells = []
    for c in cats:
        vals = [v for r in rows if r.category == c and (v := value(r)) is not None]
        cells.append(fmt(_mean(vals)) if vals else "–")
    return cells


def _score(r: RunRow) -> float:
    return r.score


def _judge(r: RunRow) -> float | None:
    return None if r.judge_correct is None else float(r.judge_correct)


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def _reader_line(by_system: dict[str, list[RunRow]], manifest: RunManifest | None) -> str:
    """The manifest's `reader_offline` wins; otherwise a system counts as offline when every call
    it recorded was served by the offline stand-ins (Usage.offline)."""
    declared = manifest.reader_offline if manifest is not None else None
    offline = {name: all(r.usage.offline for r in rows) for name, rows in by_system.items()}
    if declared is True or (declared is None and offline and all(offline.values())):
        return (
            f"**Reader: {OFFLINE_READER_LINE}.** Scores measure memory and extraction, not an LLM's reading."
        )
    models = manifest.models if manifest is not None and manifest.models else {}
    llm = ", ".join(f"{role}: {m}" for role, m in sorted(models.items())) or "models not recorded"
    if declared is None and any(offline.values()):
        mixed = ", ".join(f"{n} ({OFFLINE_READER_LINE if o else 'LLM'})" for n, o in offline.items())
        return f"**Reader: mixed** — {mixed}. LLM models: {llm}."
    return f"**Reader: LLM** ({llm})."


def _dataset_status(sha: str | None) -> str:
    if sha is None:
        return "no dataset file recorded"
    if sha == OFFICIAL_LOCOMO10_SHA256:
        return "official LoCoMo-10, unmodified"
    return "**not the official LoCoMo-10 file**"


def _header(
    by_system: dict[str, list[RunRow]], manifest: RunManifest | None, without_text: str | None = None
) -> str:
    lines = ["# LoCoMo evaluation report", "", _reader_line(by_system, manifest), ""]
    if manifest is not None:
        code = manifest.code
        dirty = " (dirty: uncommitted changes)" if code.dirty else ""
        lines += [
            f"- Dataset: `{manifest.dataset_path or 'in-memory samples'}`, sha256 "
            f"`{manifest.dataset_sha256 or '–'}` ({_dataset_status(manifest.dataset_sha256)}; "
            f"parsed samples sha256 `{manifest.samples_sha256[:16]}…`)",
            f"- Code: git `{code.git_revision or 'unknown'}`{dirty}, emem {code.emem_version or '?'}",
            f"- Selection: categories {manifest.categories or 'all'}, conversations "
            f"{manifest.conversations or 'all'}, limit {_or_dash(manifest.limit)}",
            f"- Seed: {_or_dash(manifest.seed)}; budget: {_or_dash(manifest.budget)}",
        ]
        if manifest.invocations:
            lines.append("- " + run_time_line(manifest.invocations))
        if manifest.extra:
            lines.append("- Settings: " + ", ".join(f"{k}: {v}" for k, v in sorted(manifest.extra.items())))
        if manifest.models:
            lines.append("- Models: " + ", ".join(f"{k}: {v}" for k, v in sorted(manifest.models.items())))
    if without_text:
        lines.append("- " + without_text)
    sizes = {name: len(rows) for name, rows in by_system.items()}
    lines.append("- Systems (questions logged): " + ", ".join(f"{n} ({k})" for n, k in sizes.items()))
    qsets = {name: {r.qid for r in rows} for name, rows in by_system.items()}
    if len({frozenset(s) for s in qsets.values()}) > 1:
        lines.append("- **Systems were not run on the same questions**; paired tests use common questions.")
    lines += [
        "",
        "Metric notes: the official score is LoCoMo's token F1 (README §1.5: normalised, Porter-stemmed; "
        "category 1 comma-split partial F1, category 3 gold cut at ';', category 5 = abstention phrase), "
        "rounded to 3 decimals per question. *Overall* is the micro-average over all logged questions; "
        "*cats 1–4* the micro-average over categories 1–4. Rows that failed (status error) score 0 and "
        "stay in every average. Retrieval recall averages only questions with resolvable evidence.",
    ]
    return "\n".join(lines)


def _official_section(by_system: dict[str, list[RunRow]], cats: list[int]) -> str:
    header = ["system", *_cat_header(cats), "overall", "cats 1–4", "n"]
    rows = []
    for name, rs in by_system.items():
        answerable = [r.score for r in rs if r.category in ANSWERABLE]
        rows.append(
            [
                name,
                *_per_category(rs, cats, _score),
                fmt(_mean([r.score for r in rs])),
                fmt(_mean(answerable)) if answerable else "–",
                str(len(rs)),
            ]
        )
    counts = []
    for c in cats:
        qids = {r.qid for rs in by_system.values() for r in rs if r.category == c}
        counts.append(f"{c}: {len(qids)}")
    return (
        "## Official LoCoMo score\n\n"
        + md_table(header, rows)
        + f"\n\nQuestions per category: {', '.join(counts)}."
        + _mapping_note()
    )


def _headline_section(by_system: dict[str, list[RunRow]], n_resamples: int, seed: int) -> str:
    has_j = any(r.judge_correct is not None for rs in by_system.values() for r in rs)
    header = ["system", "overall", "95% CI", "cats 1–4", "95% CI"] + (
        ["J (cats 1–4)", "95% CI"] if has_j else []
    )
    rows = []
    for name, rs in by_system.items():
        cells = [name]
        series = [[r.score for r in rs], [r.score for r in rs if r.category in ANSWERABLE]]
        if has_j:
            series.append([float(r.judge_correct) for r in rs if r.judge_correct is not None])
        for values in series:
            ci = bootstrap_ci(values, n_resamples=n_resamples, seed=seed)
            cells += [fmt(ci.mean), f"[{fmt(ci.low)}, {fmt(ci.high)}]" if values else "–"]
        rows.append(cells)
    return (
        f"## Headline numbers with 95% bootstrap CIs\n\nPercentile bootstrap, {n_resamples} resamples, "
        f"seed {seed}.\n\n" + md_table(header, rows) + _mapping_note()
    )


def _bleu_section(by_system: dict[str, list[RunRow]], cats: list[int]) -> str:
    cats = [c for c in cats if c != 5]
    if not cats:
        return ""
    header = ["system", *_cat_header(cats), "cats 1–4"]
    rows = []
    for name, rs in by_system.items():
        vals = [r.bleu1 for r in rs if r.bleu1 is not None]
        rows.append([name, *_per_category(rs, cats, lambda r: r.bleu1), fmt(_mean(vals)) if vals else "–"])
    return (
        "## BLEU-1\n\nSentence BLEU-1 on the official normalised, stemmed tokens (clipped unigram "
        "precision × brevity penalty, no smoothing); category 5 has no gold text and is excluded.\n\n"
        + md_table(header, rows)
        + _mapping_note()
    )


def _judge_section(by_system: dict[str, list[RunRow]], cats: list[int]) -> str:
    if not any(r.judge_correct is not None or r.judge_error for rs in by_system.values() for r in rs):
        return ""
    cats = [c for c in cats if c != 5]
    header = ["system", *_cat_header(cats), "cats 1–4", "judged", "judge errors"]
    rows = []
    for name, rs in by_system.items():
        judged = [float(r.judge_correct) for r in rs if r.judge_correct is not None]
        errors = sum(1 for r in rs if r.judge_error)
        rows.append(
            [
                name,
                *_per_category(rs, cats, _judge),
                fmt(_mean(judged)) if judged else "–",
                str(len(judged)),
                str(errors),
            ]
        )
    return (
        "## LLM judge J\n\nFraction of answers a generous judge (eval/prompts/judge.md, CORRECT/WRONG, "
        "mem0-style) accepts; category 5 is not judged, failed rows count as WRONG, and rows whose "
        "judging failed are left out (counted under judge errors).\n\n"
        + md_table(header, rows)
        + _mapping_note()
    )


def _retrieves(rows: list[RunRow]) -> bool:
    return any(r.retrieved_ids or r.retrieved_sessions for r in rows)


def _retrieval_section(by_system: dict[str, list[RunRow]], cats: list[int]) -> str:
    retrieving = {n: rs for n, rs in by_system.items() if _retrieves(rs)}
    if not retrieving:
        return ""
    keys = [
        *(f"recall@{k}" for k in RECALL_KS),
        "recall@all",
        *(f"hit@{k}" for k in RECALL_KS),
        "session_recall",
    ]
    rows = []
    for name, rs in retrieving.items():
        cells = [name]
        for key in keys:
            vals = [v for r in rs if (v := r.retrieval.get(key)) is not None]
            cells.append(fmt(_mean(vals)) if vals else "–")
        cells.append(str(sum(1 for r in rs if r.evidence)))
        rows.append(cells)
    per_cat = [
        [name, *_per_category(rs, cats, lambda r: r.retrieval.get("recall@all"))]
        for name, rs in retrieving.items()
    ]
    return (
        "## Retrieval\n\nEvidence-turn recall and hit over questions with resolvable evidence (questions "
        "without evidence are excluded, unlike the official code which counts them as 1). Session recall: "
        "fraction of evidence ids whose session was retrieved (a retrieved turn counts for its session). "
        "Systems that never returned retrieved ids are omitted.\n\n"
        + md_table(["system", *keys, "n with evidence"], rows)
        + "\n\nEvidence-turn recall (all retrieved) per category:\n\n"
        + md_table(["system", *_cat_header(cats)], per_cat)
        + _mapping_note()
    )


def _percentiles(values: Sequence[float]) -> tuple[str, str]:
    if not values:
        return "–", "–"
    p50, p95 = np.percentile(np.asarray(values, dtype=float), [50, 95])
    return fmt(float(p50), 1), fmt(float(p95), 1)


def cost_section(by_system: Mapping[str, Sequence[RowBase]]) -> str:
    header = [
        "system",
        "context tok (mean)",
        "prompt tok (mean)",
        "completion tok (mean)",
        "LLM calls (mean)",
        "failed calls",
        "latency p50 ms",
        "latency p95 ms",
        "errors",
    ]
    rows, role_rows, stage_rows = [], [], []
    for name, rs in by_system.items():
        p50, p95 = _percentiles([r.latency_ms for r in rs])
        rows.append(
            [
                name,
                fmt(_mean([r.context_tokens for r in rs]), 1),
                fmt(_mean([r.usage.prompt_tokens for r in rs]), 1),
                fmt(_mean([r.usage.completion_tokens for r in rs]), 1),
                fmt(_mean([r.usage.llm_calls for r in rs]), 2),
                str(sum(r.usage.failed_calls for r in rs)),
                p50,
                p95,
                str(sum(1 for r in rs if r.status == "error")),
            ]
        )
        for role in sorted({role for r in rs for role in r.usage.by_role}):
            usages = [r.usage.by_role.get(role) for r in rs]
            models = list(dict.fromkeys(m for u in usages if u for m in u.models))
            role_rows.append(
                [
                    name,
                    role,
                    ", ".join(models) or "–",
                    fmt(_mean([u.llm_calls if u else 0 for u in usages]), 2),
                    fmt(_mean([u.prompt_tokens if u else 0 for u in usages]), 1),
                    fmt(_mean([u.completion_tokens if u else 0 for u in usages]), 1),
                ]
            )
        for stage in sorted({s for r in rs for s in r.stage_latency_ms}):
            vals = [r.stage_latency_ms[stage] for r in rs if stage in r.stage_latency_ms]
            stage_rows.append([name, stage, *_percentiles(vals), str(len(vals))])
    out = (
        "## Cost\n\nMeans are per question. Context tokens: memory context handed to the reader. "
        "Prompt/completion tokens and LLM calls: every orchestration call the system made "
        "(judge excluded).\n\n" + md_table(header, rows)
    )
    if role_rows:
        out += (
            "\n\nOrchestration tokens by role (mean per question). Model `offline-rules` is the offline "
            "stand-in: its tokens are what an LLM in that role would have read and written.\n\n"
        ) + md_table(["system", "role", "model", "calls", "prompt tok", "completion tok"], role_rows)
    if stage_rows:
        out += "\n\nLatency per stage (ms):\n\n" + md_table(
            ["system", "stage", "p50", "p95", "n"], stage_rows
        )
    judge_rows = []
    for name, rs in by_system.items():
        judged = [r.judge_usage for r in rs if r.judge_usage is not None]
        if judged:
            judge_rows.append(
                [
                    name,
                    str(sum(u.llm_calls for u in judged)),
                    str(sum(u.prompt_tokens + u.completion_tokens for u in judged)),
                ]
            )
    if judge_rows:
        out += "\n\nJudge cost (not part of the systems' cost):\n\n" + md_table(
            ["system", "judge calls", "judge tokens"], judge_rows
        )
    return out


def _mcnemar_rows(
    by_system: dict[str, list[RunRow]], outcome: Callable[[RunRow], bool | None]
) -> list[list[str]]:
    rows = []
    for (a, ra), (b, rb) in combinations(by_system.items(), 2):
        oa = {r.qid: o for r in ra if (o := outcome(r)) is not None}
        ob = {r.qid: o for r in rb if (o := outcome(r)) is not None}
        common = sorted(set(oa) & set(ob))
        only_a, only_b = discordant_pairs([oa[q] for q in common], [ob[q] for q in common])
        rows.append([a, b, str(len(common)), str(only_a), str(only_b), fmt(mcnemar_exact(only_a, only_b), 4)])
    return rows


def _significance_section(by_system: dict[str, list[RunRow]], threshold: float) -> str:
    if len(by_system) < 2:
        return ""
    header = ["A", "B", "common questions", "A right, B wrong", "B right, A wrong", "p (exact McNemar)"]
    out = (
        f"## Significance\n\nExact two-sided McNemar test on paired correctness over common questions. "
        f"Official score: correct iff score ≥ {threshold}.\n\n"
        + md_table(header, _mcnemar_rows(by_system, lambda r: is_correct(r.score, threshold)))
    )
    if any(r.judge_correct is not None for rs in by_system.values() for r in rs):
        out += "\n\nLLM judge J (judged questions only):\n\n" + md_table(
            header, _mcnemar_rows(by_system, lambda r: r.judge_correct)
        )
    return out


def errors_section(by_system: Mapping[str, Sequence[RowBase]], max_examples: int = 3) -> str:
    lines = []
    for name, rs in by_system.items():
        failed = [r for r in rs if r.status == "error"]
        for r in failed[:max_examples]:
            lines.append(f"- `{name}` `{r.qid}`: {(r.error or '').splitlines()[0][:200] if r.error else '?'}")
        if len(failed) > max_examples:
            lines.append(f"- `{name}`: … {len(failed) - max_examples} more")
    return "## Errors\n\n" + "\n".join(lines) if lines else ""


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------


MARKERS = "osD^vP*Xh<>p"


def _trade_off(ax: Any, points: dict[str, tuple[float, float]]) -> None:
    """One marker per system on a log x axis, named in a legend beside the axes: labels written
    next to the points collide when systems sit close together."""
    for i, (name, (x, y)) in enumerate(points.items()):
        # A log axis has no 0: a system that used no tokens sits at 1.
        ax.scatter([max(x, 1.0)], [y], marker=MARKERS[i % len(MARKERS)], s=50, label=name)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _plots(by_system: dict[str, list[RunRow]], cats: list[int], run_dir: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(by_system)
    written = []
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(cats) + 2), 4))
    width = 0.8 / max(1, len(names))
    x = np.arange(len(cats))
    for i, name in enumerate(names):
        vals = [_mean([r.score for r in by_system[name] if r.category == c]) for c in cats]
        ax.bar(x + i * width - 0.4 + width / 2, np.nan_to_num(vals), width, label=name)
    ax.set_xticks(x, [f"{c}\n{CATEGORY_NAMES[c]}" for c in cats])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("official LoCoMo score")
    ax.set_title("Score per category")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(run_dir / PLOT_BY_CATEGORY, dpi=120, metadata={"Software": None})
    plt.close(fig)
    written.append(PLOT_BY_CATEGORY)

    fig, ax = plt.subplots(figsize=(7.5, 4))
    _trade_off(
        ax,
        {
            n: (_mean([r.context_tokens for r in rs]), _mean([r.score for r in rs]))
            for n, rs in by_system.items()
        },
    )
    ax.set_xlabel("mean context tokens per question (log scale)")
    ax.set_ylabel("overall official score")
    ax.set_title("Score vs context size")
    fig.tight_layout()
    fig.savefig(run_dir / PLOT_VS_CONTEXT, dpi=120, metadata={"Software": None})
    plt.close(fig)
    written.append(PLOT_VS_CONTEXT)
    recall = {
        n: (_mean([r.usage.prompt_tokens + r.usage.completion_tokens for r in rs]), _mean(vals))
        for n, rs in by_system.items()
        if (vals := [v for r in rs if (v := r.retrieval.get("recall@all")) is not None])
    }
    if recall:
        fig, ax = plt.subplots(figsize=(7.5, 4))
        _trade_off(ax, recall)
        ax.set_xlabel("mean orchestration tokens per question, all LLM roles (log scale; 1 = none)")
        ax.set_ylabel("evidence-turn recall (all retrieved)")
        ax.set_title("Evidence recall vs orchestration tokens")
        fig.tight_layout()
        fig.savefig(run_dir / PLOT_RECALL_VS_ORCHESTRATION, dpi=120, metadata={"Software": None})
        plt.close(fig)
        written.append(PLOT_RECALL_VS_ORCHESTRATION)
    return written


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def build_report(
    run_dir: str | Path,
    *,
    n_resamples: int = 1000,
    seed: int | None = None,
    threshold: float = DEFAULT_CORRECT_THRESHOLD,
    plots: bool = True,
    public_log: str | Path | None = None,
) -> Path:
    """Write `report.md` (+ PNGs) into `run_dir` from its log and manifest; returns the report path.
    The bootstrap seed defaults to the manifest's seed, else 0.

    With `public_log`, its rows and latest manifest are the run's (rows.jsonl only lends the text
    of rows it shares), so the report can be rebuilt on a machine that has only the public log."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(run_dir)
    rows = read_rows(run_dir / LOG_NAME, RunRow)
    without_text = None
    if public_log is not None:
        public = PublicLog(public_log)
        manifest = public.manifest() or manifest
        rows, missing = merge_rows(rows, public.rows())
        if missing:
            without_text = (
                f"Rows: {missing} of {len(rows)} read from the public log `{Path(public_log).name}` "
                "alone: their predictions are not available here, and their errors show the "
                "exception class only"
            )
    order = manifest.systems if manifest is not None else []
    by_system = _group(rows, order)
    seed = seed if seed is not None else (manifest.seed if manifest and manifest.seed is not None else 0)
    if not by_system:
        text = _header(by_system, manifest, without_text) + "\n\nNo rows logged yet.\n"
    else:
        cats = _cats_present(rows)
        sections = [
            _header(by_system, manifest, without_text),
            _official_section(by_system, cats),
            _headline_section(by_system, n_resamples, seed),
            _bleu_section(by_system, cats),
            _judge_section(by_system, cats),
            _retrieval_section(by_system, cats),
            cost_section(by_system),
            _significance_section(by_system, threshold),
            errors_section(by_system),
        ]
        if plots:
            images = _plots(by_system, cats, run_dir)
            sections.append("## Plots\n\n" + "\n\n".join(f"![{p[:-4]}]({p})" for p in images))
        text = "\n\n".join(s for s in sections if s).rstrip() + "\n"
    path = run_dir / REPORT_NAME
    path.write_text(text, encoding="utf-8")
    return path
