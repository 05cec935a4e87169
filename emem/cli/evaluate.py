"""`emem eval`: the benchmark harness from the command line (a thin layer over emem.eval).

The harness is the optional `eval` extra: nothing here imports emem.eval or its dependencies
until a command runs, and a missing extra is one clear error, not an ImportError traceback."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import typer

from emem.cli.common import console, user_errors
from emem.errors import ConfigError, InputError


def _ints(text: str | None, what: str) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"expected comma-separated integers, got {text!r}", what) from None


EVAL_EXTRA_MODULES = ("matplotlib", "nltk")
"""Third-party modules only the harness needs (the `eval` extra in pyproject.toml)."""


def require_eval_extra() -> None:
    """Refuse to start a benchmark whose report could not be written, naming the install line."""
    missing = [m for m in EVAL_EXTRA_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(
            f"emem eval needs the eval extra (missing: {', '.join(missing)}); "
            "install it with: pip install 'emem[eval]'"
        )


def register(app: typer.Typer, open_memory) -> None:
    eval_app = typer.Typer(
        help="Reproducible benchmarks: LoCoMo, LongMemEval, reports.", no_args_is_help=True
    )
    app.add_typer(eval_app, name="eval")

    @eval_app.command("locomo")
    @user_errors
    def locomo(
        data: Path = typer.Option(..., "--data", help="Path to locomo10.json (not shipped: CC BY-NC)."),
        conversations: str | None = typer.Option(
            None, "--conversations", help="Comma-separated indexes, e.g. 0,3."
        ),
        categories: str | None = typer.Option(None, "--categories", help="Comma-separated, e.g. 1,2,3,4,5."),
        systems: str = typer.Option(
            "emem-deep,emem-fast,emem-auto,emem-routing-paper,full-context,rag-bm25,rag-dense", "--systems"
        ),
        reader: str = typer.Option(
            "offline", "--reader", help="offline | openai | local (endpoint from config/env)."
        ),
        judge: str = typer.Option(
            "none", "--judge", help="none | openai (EMEM_LLM_JUDGE_* or the global endpoint)."
        ),
        budget: int = typer.Option(2000, "--budget"),
        limit: int | None = typer.Option(
            None, "--limit", help="Cap on questions (after filtering), in file order."
        ),
        per_category: int | None = typer.Option(
            None, "--per-category", help="Keep N questions of each category."
        ),
        sample: str = typer.Option(
            "first",
            "--sample",
            help="Which N with --per-category: first (file order) | spread (round-robin over conversations).",
        ),
        out: Path = typer.Option(Path("eval/results/locomo"), "--out"),
        home: Path | None = typer.Option(None, "--home", help="Memory home for the run (default OUT/home)."),
        reader_window: int = typer.Option(
            128_000, "--reader-window", help="Reader context window, for full-context."
        ),
        activate: int = typer.Option(
            5, "--activate", min=1, help="Segments the deep path activates per routing hop."
        ),
        fill_context: bool = typer.Option(
            False,
            "--fill-context",
            help="Experimental: deep fills the budget left with unquoted turns of its segments.",
        ),
        public_log: Path | None = typer.Option(
            None,
            "--public-log",
            help="Also log every row without LoCoMo's text (ids, scores, usage, latency) to this "
            "file, which can be committed; a rerun of the same command resumes from it alone.",
        ),
    ) -> None:
        """Run every system on the same LoCoMo questions; resumable; writes rows, manifest, report."""
        require_eval_extra()
        from emem.agents.roles import RoleModels
        from emem.eval.harness import chat_judge, run_eval
        from emem.eval.locomo_data import load_locomo
        from emem.eval.systems import Shared, build_systems
        from emem.llm.config import build_chat_model, load_llm_settings

        run_home = home or out / "home"
        roles = RoleModels.for_reader(reader, run_home)
        samples = load_locomo(data)
        idx = _ints(conversations, "--conversations")
        if idx is not None:
            bad = [i for i in idx if not 0 <= i < len(samples)]
            if bad:
                raise InputError(
                    f"conversation index out of range: {bad} (the file has {len(samples)})", "--conversations"
                )
            samples = [samples[i] for i in idx]
        judge_fn = None
        judge_setting = "none"
        if judge == "openai":
            chat = build_chat_model("judge", load_llm_settings(run_home))
            if chat is None:
                raise InputError(
                    "no judge endpoint configured (EMEM_LLM_JUDGE_MODEL / EMEM_LLM_MODEL)", "--judge"
                )
            judge_fn = chat_judge(chat)
            judge_setting = getattr(chat, "model", "chat-model")
        elif judge != "none":
            raise InputError(f"unknown judge {judge!r}; use none or openai", "--judge")
        shared = Shared(
            run_home,
            roles,
            budget=budget,
            reader_window=reader_window,
            activate=activate,
            fill_context=fill_context,
        )
        report = run_eval(
            build_systems([s.strip() for s in systems.split(",") if s.strip()], shared),
            samples,
            out_dir=out,
            categories=_ints(categories, "--categories"),
            limit=limit,
            per_category=per_category,
            sample=sample,
            judge=judge_fn,
            manifest_extra={
                "models": roles.describe(),
                "budget": budget,
                "seed": 0,
                "reader_offline": roles.get("reader") is None,
                "per_category": per_category,
                "sample": sample if per_category is not None else None,
                "activate": activate,
                "fill_context": fill_context,
                "reader_window": reader_window,
                "judge": judge_setting,
                "command": ["emem", *sys.argv[1:]],
            },
            dataset_path=data,
            public_log=public_log,
        )
        console.print(f"report: {report}")

    @eval_app.command("report")
    @user_errors
    def report(
        run_dir: Path = typer.Argument(..., help="A run's --out directory."),
        public_log: Path | None = typer.Option(
            None, "--public-log", help="The run's public log: enough alone when rows.jsonl is gone."
        ),
    ) -> None:
        """Rebuild report.md and the plots from a run's logs and manifest."""
        require_eval_extra()
        import json

        from emem.eval.report import build_report

        if public_log is not None:
            if not public_log.is_file():
                raise InputError("no such public log", str(public_log))
            console.print(f"report: {build_report(run_dir, public_log=public_log)}")
            return
        if not (run_dir / "rows.jsonl").exists():
            raise InputError("no rows.jsonl here: not a run directory", str(run_dir))
        manifest = (
            json.loads((run_dir / "manifest.json").read_text())
            if (run_dir / "manifest.json").exists()
            else {}
        )
        if (manifest.get("extra") or {}).get("benchmark") == "longmemeval":
            from emem.eval.longmemeval_run import build_lme_report

            console.print(f"report: {build_lme_report(run_dir)}")
        else:
            console.print(f"report: {build_report(run_dir)}")

    @eval_app.command("longmemeval")
    @user_errors
    def longmemeval(
        data: Path = typer.Option(
            ..., "--data", help="longmemeval_oracle.json or longmemeval_s_cleaned.json."
        ),
        systems: str = typer.Option("emem-deep,emem-fast,rag-bm25", "--systems"),
        reader: str = typer.Option("offline", "--reader"),
        judge: str = typer.Option("none", "--judge"),
        budget: int = typer.Option(2000, "--budget"),
        limit: int | None = typer.Option(None, "--limit"),
        out: Path = typer.Option(Path("eval/results/longmemeval"), "--out"),
    ) -> None:
        """Run systems on the official LongMemEval JSON (not shipped: pass its path)."""
        require_eval_extra()
        from emem.eval.longmemeval_run import run_longmemeval

        console.print(f"report: {run_longmemeval(data, systems, reader, judge, budget, limit, out)}")
