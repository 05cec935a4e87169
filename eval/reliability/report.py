"""Pass-rate tables and the failure list, from scored results (pure: results in, text out)."""

from __future__ import annotations

from collections.abc import Sequence

from emem.eval.reliability.cases import DIMENSIONS, HELD_OUT, SPLITS
from emem.eval.reliability.runner import CaseResult


def pass_rates(results: Sequence[CaseResult], split: str) -> dict[str, dict[str, tuple[int, int]]]:
    """(passed, total) per dimension (and "overall") per mode, for one split ("all" for every case)."""
    table: dict[str, dict[str, tuple[int, int]]] = {}
    for r in results:
        if split != "all" and r.split != split:
            continue
        for key in (r.dimension, "overall"):
            passed, total = table.setdefault(key, {}).get(r.mode, (0, 0))
            table[key][r.mode] = (passed + r.passed, total + 1)
    return table


def _cell(value: tuple[int, int] | None) -> str:
    if value is None or value[1] == 0:
        return "-"
    passed, total = value
    return f"{100 * passed / total:.0f}% ({passed}/{total})"


def rate_table(results: Sequence[CaseResult], split: str, modes: Sequence[str]) -> str:
    """A markdown table: one row per dimension (then overall), one column per mode."""
    table = pass_rates(results, split)
    lines = [f"| dimension ({split}) | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for key in [*DIMENSIONS, "overall"]:
        if key in table:
            lines.append(f"| {key} | " + " | ".join(_cell(table[key].get(m)) for m in modes) + " |")
    return "\n".join(lines)


def _quote(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return (text[:limit] + "...") if len(text) > limit else text


def _failure_detail(r: CaseResult) -> str:
    when = f" (as_of {r.as_of})" if r.as_of else ""
    return (
        f"- **{r.case_id}** [{r.dimension}, {r.split}, {r.mode}"
        + (f"->{r.mode_used}" if r.mode_used and r.mode_used != r.mode else "")
        + f"] {r.question}{when}\n"
        f"  - answer ({r.status}): {_quote(r.answer)}\n" + "".join(f"  - {f}\n" for f in r.failures)
    )


def _failure_ids(failures: Sequence[CaseResult]) -> str:
    """One line per failing case: its id, dimension and the modes it failed in (no question, no answer)."""
    modes: dict[tuple[str, str], list[str]] = {}
    for r in failures:
        modes.setdefault((r.case_id, r.dimension), []).append(r.mode)
    return "".join(f"- {case_id} [{dim}]: {', '.join(ms)}\n" for (case_id, dim), ms in modes.items())


def leak_table(results: Sequence[CaseResult], splits: Sequence[str], modes: Sequence[str]) -> str:
    """Forget-request cases whose evidence or packed context holds a forbidden value, per split
    and mode (the score reads the answer text only; this reads what it cites)."""
    rows = [
        "## Forgotten values in evidence\n",
        f"| split | {' | '.join(modes)} |",
        "|---|" + "---|" * len(modes),
    ]
    for split in splits:
        mine = [
            r for r in results if r.dimension == "forget_request" and (split == "all" or r.split == split)
        ]
        cells = []
        for mode in modes:
            asked = [r for r in mine if r.mode == mode and r.forbid]
            cells.append(f"{sum(bool(r.evidence_leaks) for r in asked)} of {len(asked)}")
        rows.append(f"| {split} | {' | '.join(cells)} |")
    return "\n".join(rows) + "\n"


def markdown_report(
    results: Sequence[CaseResult],
    splits: Sequence[str],
    modes: Sequence[str],
    header: str,
    *,
    show_heldout_failures: bool = False,
) -> str:
    """The whole report: a table per split, then the failures split by split. Dev failures come with
    their question, answer, status and the checks that failed; a held-out split (test, holdout,
    holdout2...holdout19) lists only its failing case ids unless `show_heldout_failures`, so
    reading a report does not turn the held-out cases into tuning material.

    Args:
        results: scored results of one run.
        splits: the splits to tabulate ("all" for every case), in order.
        modes: the modes run, one column each.
        header: the run's description (date, reader, command).
        show_heldout_failures: list held-out failures in full, as for dev.

    Returns:
        Markdown text.
    """
    parts = [f"# Reliability suite\n\n{header}\n"]
    for split in splits:
        parts.append(rate_table(results, split, modes) + "\n")
    parts.append(leak_table(results, splits, modes) + "\n")
    failures = [r for r in results if not r.passed]
    parts.append(f"## Failures ({len(failures)} of {len(results)})\n")
    present = list(dict.fromkeys(r.split for r in results))
    for split in [s for s in SPLITS if s in present] + [s for s in present if s not in SPLITS]:
        mine = [r for r in failures if r.split == split]
        full = split not in HELD_OUT or show_heldout_failures
        note = "" if full or not mine else " (held out: ids only; `--show-heldout-failures` lists them)"
        parts.append(f"### {split}: {len(mine)} failed{note}\n")
        if full:
            parts.extend(_failure_detail(r) for r in mine)
        elif mine:
            parts.append(_failure_ids(mine))
    return "\n".join(parts)
