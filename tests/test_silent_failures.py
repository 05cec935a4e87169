"""Partial failures are reported, never silent (issue 13, defect 8): a consolidation whose
summariser endpoint is down says so in its result, its output and its exit code; an endpoint
configured without a model is an error, not a silent switch to offline."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_erasure import ExactEmbedder, conversation  # type: ignore[import-not-found]

from emem.errors import ConfigError
from emem.llm.config import load_llm_settings
from emem.memory import Memory


def dead_endpoint() -> str:
    """A loopback port with nothing listening (connection refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def write_config(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    config = {
        "roles": {"summariser": {"base_url": dead_endpoint(), "model": "m", "api_key": "k"}},
        "max_retries": 0,
        "timeout": 5,
    }
    (home / "llm.json").write_text(json.dumps(config), encoding="utf-8")


def test_consolidate_reports_failed_summaries(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home)
    with Memory(home, embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
        report = m.consolidate("ns")
    assert report.summaries_failed == 2 and report.summaries_written == 0
    assert not report.complete and "2 of 2 segment summaries failed" in report.failures[0]
    assert report.revisions_written > 0  # the facts themselves were still projected


def test_cli_consolidate_exits_1_when_summaries_fail(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home)
    with Memory(home, embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMEM_LLM")}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from emem.cli import main; main()",
            "consolidate",
            "-n",
            "ns",
            "--home",
            str(home),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert "summaries failed: 2" in proc.stdout
    assert "incomplete: 2 of 2 segment summaries failed" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "env",
    [{"EMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1"}, {"EMEM_LLM_READER_BASE_URL": "http://127.0.0.1:9/v1"}],
)
def test_an_endpoint_without_a_model_is_an_error(tmp_path: Path, env: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="but no"):
        load_llm_settings(tmp_path, env)
    full = {
        **{k: v for k, v in os.environ.items() if not k.startswith("EMEM_LLM")},
        **env,
        "EMEM_HOME": str(tmp_path / "home"),
    }
    with Memory(tmp_path / "home", embedder=ExactEmbedder()) as m:
        m.add_conversation(conversation("c1"), namespace="ns")
    proc = subprocess.run(
        [sys.executable, "-c", "from emem.cli import main; main()", "ask", "Where?", "-n", "ns"],
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error:") and "but no" in proc.stderr, proc.stderr
