"""CI slice of the real benchmark: one LoCoMo conversation, two questions per category, every
system, offline reader, end to end through the CLI. Skipped when the data is not beside the repo
(it is CC BY-NC and never copied into it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from emem.cli import app
from emem.eval.systems import SYSTEM_NAMES

REPO = Path(__file__).resolve().parents[1]
LOCOMO = Path(os.environ.get("EMEM_LOCOMO_PATH", REPO.parent / "shared" / "data" / "locomo10.json"))


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not found beside the repository")
def test_locomo_slice_end_to_end(tmp_path: Path) -> None:
    raw = json.loads(LOCOMO.read_text())
    sample = min(raw, key=lambda s: sum(len(v) for k, v in s["conversation"].items() if isinstance(v, list)))
    picked, per_cat = [], {}
    for qa in sample["qa"]:
        if per_cat.get(qa["category"], 0) < 2:
            per_cat[qa["category"]] = per_cat.get(qa["category"], 0) + 1
            picked.append(qa)
    sample = {**sample, "qa": picked}
    data = tmp_path / "slice.json"
    data.write_text(json.dumps([sample]))
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["eval", "locomo", "--data", str(data), "--out", str(out), "--home", str(tmp_path / "home")]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    assert len(per_cat) >= 4 and len(rows) == len(picked) * len(SYSTEM_NAMES)
    assert {r["system"] for r in rows} == set(SYSTEM_NAMES)
    assert all(r["status"] != "error" for r in rows), [r for r in rows if r["status"] == "error"][:1]
    assert all(0.0 <= r["score"] <= 1.0 for r in rows)
    report = (out / "report.md").read_text()
    assert "offline reader" in report and "4 = single-hop, 1 = multi-hop" in report
    assert (out / "manifest.json").exists() and (out / "score_by_category.png").exists()
    # resumable: a rerun logs nothing new
    again = CliRunner().invoke(
        app, ["eval", "locomo", "--data", str(data), "--out", str(out), "--home", str(tmp_path / "home")]
    )
    assert again.exit_code == 0 and len((out / "rows.jsonl").read_text().splitlines()) == len(rows)
