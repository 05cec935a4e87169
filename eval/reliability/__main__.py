"""`python -m emem.eval.reliability`: run the reliability suite and write results + a report.

Examples:
    python -m emem.eval.reliability --modes auto,deep,fast --split all --out eval/results/reliability
    python -m emem.eval.reliability --reader local --sample 24 --modes auto
    python -m emem.eval.reliability --split holdout --out /tmp/rh   # held-out: failing ids only
    python -m emem.eval.reliability --split holdout2 --out /tmp/rh2  # the second blind split
    python -m emem.eval.reliability --split holdout3 --out /tmp/rh3  # the third blind split
    python -m emem.eval.reliability --split holdout4 --out /tmp/rh4  # the fourth blind split
    python -m emem.eval.reliability --split holdout5 --out /tmp/rh5  # the fifth held-out split
    python -m emem.eval.reliability --split holdout6 --out /tmp/rh6  # the sixth held-out split
    python -m emem.eval.reliability --split holdout7 --out /tmp/rh7  # the seventh held-out split
    python -m emem.eval.reliability --split holdout8 --out /tmp/rh8  # the eighth held-out split
    python -m emem.eval.reliability --split holdout9 --out /tmp/rh9  # the ninth held-out split
    python -m emem.eval.reliability --split holdout10 --out /tmp/rh10  # the tenth held-out split
    python -m emem.eval.reliability --split holdout11 --out /tmp/rh11  # the eleventh held-out split
    python -m emem.eval.reliability --split holdout12 --out /tmp/rh12  # the twelfth held-out split
    python -m emem.eval.reliability --split holdout13 --out /tmp/rh13  # the thirteenth held-out split
    python -m emem.eval.reliability --split holdout14 --out /tmp/rh14  # the fourteenth held-out split
    python -m emem.eval.reliability --split holdout15 --out /tmp/rh15  # the fifteenth held-out split
    python -m emem.eval.reliability --split holdout16 --out /tmp/rh16  # the sixteenth held-out split
    python -m emem.eval.reliability --split holdout17 --out /tmp/rh17  # the seventeenth held-out split
    python -m emem.eval.reliability --split holdout18 --out /tmp/rh18  # the eighteenth held-out split
    python -m emem.eval.reliability --split holdout19 --out /tmp/rh19  # the nineteenth, the only blind one
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from emem.eval.reliability.cases import HELD_OUT, SPLITS, load_suite, sample_cases
from emem.eval.reliability.report import markdown_report, rate_table
from emem.eval.reliability.runner import MODES, CaseResult, run_mode


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m emem.eval.reliability", description=__doc__.splitlines()[0])
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated: auto,deep,fast")
    p.add_argument(
        "--split",
        default="all",
        choices=(*SPLITS, "all"),
        help="dev | test | holdout | holdout2 | holdout3 | holdout4 | holdout5 | holdout6 | holdout7 | holdout8 | holdout9 | holdout10 | holdout11 | holdout12 | holdout13 | holdout14 | holdout15 | holdout16 | holdout17 | holdout18 | holdout19 (the newest blind split) | all",
    )
    p.add_argument("--out", type=Path, default=Path("eval/results/reliability"))
    p.add_argument(
        "--reader", default="offline", help="offline | openai | local (endpoints from llm.json/env)"
    )
    p.add_argument(
        "--llm-home",
        type=Path,
        default=None,
        help="home whose llm.json names the endpoints for --reader local/openai (default: EMEM_HOME or ~/.emem)",
    )
    p.add_argument("--sample", type=int, default=None, help="N cases, deterministic, spread over dimensions")
    p.add_argument("--cases", default=None, help="comma-separated case ids (debugging)")
    p.add_argument(
        "--home", type=Path, default=None, help="keep the run's memory homes here (default: temporary)"
    )
    p.add_argument(
        "--show-heldout-failures",
        action="store_true",
        help="print and report the questions and answers of failing held-out cases (test, holdout, "
        "holdout2, holdout3, holdout4, holdout5, holdout6, holdout7, holdout8, holdout9, holdout10, holdout11, holdout12, holdout13, holdout14, holdout15, holdout16, holdout17, holdout18, holdout19); by default only their ids, so the held-out splits do not "
        "become tuning material",
    )
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from emem.agents.roles import RoleModels
    from emem.embedding import default_embedder
    from emem.errors import InputError
    from emem.memory import Memory, default_home

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        print(f"--modes: unknown {bad or modes}; use {','.join(MODES)}", file=sys.stderr)
        return 2
    try:
        roles = RoleModels.for_reader(args.reader, args.llm_home or default_home())
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    suite = load_suite()
    cases = suite.select(args.split, args.cases.split(",") if args.cases else None)
    if args.sample is not None:
        cases = sample_cases(cases, args.sample)
    if not cases:
        print("no case selected", file=sys.stderr)
        return 2
    embedder = default_embedder()

    def factory(home: Path) -> Memory:
        return Memory(home, embedder=embedder, roles=roles)

    def progress(r: CaseResult) -> None:
        if not args.quiet:
            mark = "ok  " if r.passed else "FAIL"
            shown = r.split not in HELD_OUT or args.show_heldout_failures
            answer = " ".join(r.answer.split())[:90] if shown else ""
            print(f"{mark} {r.mode:4} {r.case_id:28} {r.status:9} {answer}".rstrip(), flush=True)

    results: list[CaseResult] = []
    for mode in modes:
        results += run_mode(suite, cases, mode, memory_factory=factory, home=args.home, progress=progress)

    present = {c.split for c in cases}
    splits = [s for s in SPLITS if s in present] + (["all"] if args.split == "all" else [])
    args.out.mkdir(parents=True, exist_ok=True)
    header = (
        f"Run {datetime.now(UTC).isoformat(timespec='seconds')}; reader {args.reader} "
        f"({json.dumps(roles.describe())}); {len(cases)} cases; modes {','.join(modes)}.\n\n"
        f"Command: `python -m emem.eval.reliability {' '.join(argv if argv is not None else sys.argv[1:])}`"
    )
    (args.out / "results.json").write_text(
        json.dumps(
            {
                "header": header,
                "reader": args.reader,
                "models": roles.describe(),
                "modes": modes,
                "split": args.split,
                "sample": args.sample,
                "results": [r.model_dump() for r in results],
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    report = markdown_report(results, splits, modes, header, show_heldout_failures=args.show_heldout_failures)
    (args.out / "report.md").write_text(report, encoding="utf-8")
    for split in splits:
        print("\n" + rate_table(results, split, modes))
    print(f"\nwrote {args.out / 'results.json'} and {args.out / 'report.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
