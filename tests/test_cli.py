"""The CLI as a user meets it: the demo, ingest/search/stats/ask, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import small_conversation
from typer.testing import CliRunner

from emem.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_demo_answers_on_the_deep_path(tmp_path: Path) -> None:
    result = run("demo", "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "deep mode" in out and "offline stand-ins" in out
    assert "A: Austin" in out and "(superseded-value)" in out and "I don't know" in out


def test_ingest_search_stats_ask(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps(small_conversation()))
    result = run("ingest", str(conv), "--namespace", "ns", "--home", home)
    assert result.exit_code == 0 and "stored 6 new turns" in result.output
    result = run("search", "parrot", "--namespace", "ns", "--json", "--home", home)
    hits = json.loads(result.output)
    assert hits[0]["turn_id"] == "S2:3" and set(hits[0]) >= {
        "turn_id",
        "session_id",
        "speaker",
        "time",
        "text",
        "score",
    }
    stats = json.loads(run("stats", "--namespace", "ns", "--json", "--home", home).output)
    assert stats["turns"] == 6 and stats["index_coverage"]["dense_turns"] == 6
    answer = json.loads(
        run(
            "ask", "Who adopted a parrot?", "--namespace", "ns", "--json", "--mode", "deep", "--home", home
        ).output
    )
    assert answer["mode_used"] == "deep" and answer["status"] in {"answered", "abstained"}
    assert {"answer", "evidence", "usage", "activated_segments", "latency_ms"} <= set(answer)


def test_user_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    cases = [
        ("ingest", str(bad), "--namespace", "ns", "--home", home),
        ("ingest", str(tmp_path / "missing.json"), "--namespace", "ns", "--home", home),
        ("ingest", str(bad), "--namespace", "bad namespace!", "--home", home),
        ("ask", "anything?", "--namespace", "empty", "--home", home),
        ("ask", "anything?", "--namespace", "ns", "--mode", "slow", "--home", home),
        ("ask", "anything?", "--namespace", "ns", "--as-of", "yesterday", "--home", home),
        (
            "facts",
            "add",
            "Alice",
            "teleports_to",
            "Mars",
            "--valid-from",
            "2023-01-01",
            "--namespace",
            "ns",
            "--home",
            home,
        ),
    ]
    for args in cases:
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        assert result.output.strip().startswith("error:") and len(result.output.strip().splitlines()) <= 2, (
            result.output
        )


def test_facts_add_declares_an_open_predicate(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    base = ("--valid-from", "2023-01-01", "--namespace", "ns", "--home", home)
    assert run("facts", "add", "Alice", "speaks", "French", "--cardinality", "multi", *base).exit_code == 0
    assert run("facts", "add", "Alice", "speaks", "Hindi", *base).exit_code == 0
    bad = run("facts", "add", "Alice", "speaks", "Urdu", "--cardinality", "single", *base)
    assert bad.exit_code == 2 and "multi-valued" in bad.output
    out = run("resolve", "Alice", "speaks", "--namespace", "ns", "--home", home)
    assert out.exit_code == 0 and "French" in out.output and "Hindi" in out.output


def test_the_first_ask_after_an_unindexed_ingest_shows_its_catch_up(tmp_path: Path) -> None:
    """Indexing on a first read can take minutes: the terminal shows it instead of looking hung."""
    path = tmp_path / "c.json"
    path.write_text(json.dumps(small_conversation()))
    home = str(tmp_path / "h")
    assert run("ingest", str(path), "--namespace", "ns", "--no-index", "--home", home).exit_code == 0
    result = run("ask", "Where does Ana live?", "--namespace", "ns", "--mode", "fast", "--home", home)
    assert result.exit_code == 0, result.output
    assert "indexing" in result.output and "A:" in result.output
    again = run("ask", "Where does Ana live?", "--namespace", "ns", "--mode", "fast", "--home", home)
    assert "indexing" not in again.output


def test_markup_in_memory_and_questions_is_printed_as_text(tmp_path: Path) -> None:
    """Rich markup in a turn or a question is data: printed verbatim, never parsed as a tag."""
    home = str(tmp_path / "h")
    conv = small_conversation()
    conv["sessions"][0]["turns"][0]["text"] = "My locker tag reads [/x] [bold]parrot[/bold] today."
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(conv))
    assert run("ingest", str(path), "--namespace", "ns", "--home", home).exit_code == 0
    for question in ("What does the locker tag read? [/x]", "parrot [bold]"):
        result = run("ask", question, "--namespace", "ns", "--mode", "fast", "--home", home)
        assert result.exit_code == 0, result.output
        assert result.exception is None
    assert "[/x]" in result.output or "[bold]" in result.output
