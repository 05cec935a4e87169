"""Pass-rate tables and the failure list, from scored results (pure: results in, text out)."""

from __future__ import annotations

from collections.abc import Sequence

from emem.eval.reliability.cases import DIMENSIONS
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


def markdown_report(
    results: Sequence[CaseResult], splits: Sequence[str], modes: Sequence[str], header: str
) -> str:
    """The whole report: a table per split, then every failure with its question, answer, status
    and the checks that failed."""
    parts = [f"# Reliability suite\n\n{header}\n"]
    for split in splits:
        parts.append(rate_table(results, split, modes) + "\n")
    failures = [r for r in results if not r.passed]
    parts.append(f"## Failures ({len(failures)} of {len(results)})\n")
    for r in failures:
        when = f" (as_of {r.as_of})" if r.as_of else ""
        parts.append(
            f"- **{r.case_id}** [{r.dimension}, {r.split}, {r.mode}"
            + (f"->{r.mode_used}" if r.mode_used and r.mode_used != r.mode else "")
            + f"] {r.question}{when}\n"
            f"  - answer ({r.status}): {_quote(r.answer)}\n" + "".join(f"  - {f}\n" for f in r.failures)
        )
    return "\n".join(parts)
