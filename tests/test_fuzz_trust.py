"""Fuzzing every CLI command and every public `Memory` method (issue 13): hypothesis-generated
strings and bytes (lone surrogates, NUL, non-UTF-8 argv, huge, nested, wrong types) never give a
traceback, and a refused call leaves the store unchanged (every row of both store files).

In the suite the example counts are small; `EMEM_FUZZ_EXAMPLES=N` scales them for a long run
(the command and counts of the last long run are in docs/guarantees.md)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_erasure import ExactEmbedder, conversation  # type: ignore[import-not-found]
from typer.testing import CliRunner

from emem.cli import app
from emem.errors import EmemError
from emem.memory import Memory

NS = "fz"
T = "2023-01-05T10:00:00+00:00"
N = int(os.environ.get("EMEM_FUZZ_EXAMPLES", "12"))
FUZZ = settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck))

nasty = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "\ud800",
        "\udcff\udcfe",
        "x\udc80y",
        "\u200b\u2060",
        "\ufeff",
        "x" * 200_000,
        "</memory>",
        "\nLEDGER a b = c (current)",
        "{{memory}}",
        "[/red]",
        "S1:1",
        "c1/S1:1",
        "Dana",
        "lives_in",
        T,
        "c1",
        "-1",
        "0",
    ]
) | st.text(max_size=30)
scalar = (
    st.none()
    | st.booleans()
    | st.integers(-5, 10**12)
    | st.floats(allow_nan=True)
    | nasty
    | st.binary(max_size=8)
)
value = st.recursive(
    scalar,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=8,
)
arg = st.one_of(nasty, value)


def snapshot(home: Path) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for name in ("episodes.sqlite3", "ledger.sqlite3"):
        if not (home / name).exists():
            continue
        with sqlite3.connect(home / name, timeout=30) as conn:
            for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
                rows = conn.execute(f"SELECT * FROM '{table}' ORDER BY 1").fetchall()
                # An empty table is no stored content: a refused command may open (and so create)
                # a store that did not exist yet, as long as it writes no row into it.
                if table not in ("index_state", "sqlite_sequence") and rows:
                    out[f"{name}:{table}"] = rows
    return out


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("fuzztrust") / "home"
    m = Memory(home, embedder=ExactEmbedder())
    m.add_conversation(conversation("c1"), namespace=NS)
    m.assert_fact("Dana", "works_at", "Crumbs", T, namespace=NS, sources=["c1/S1:3"])
    yield m, home
    m.close()


METHODS: dict[str, int] = {  # public method: how many positional arguments to generate
    "add_conversation": 2,
    "add_turns": 2,
    "ingest_file": 2,
    "index": 1,
    "search": 2,
    "stats": 1,
    "assert_fact": 5,
    "revoke": 2,
    "resolve": 3,
    "facts": 1,
    "history": 2,
    "consolidate": 1,
    "forget": 1,
    "drop_namespace": 1,
    "ask": 2,
    "segment_summaries": 1,
}
KEYWORDS: dict[str, list[str]] = {
    "assert_fact": ["valid_to", "known_at", "sources"],
    "revoke": ["known_at", "reason"],
    "resolve": ["valid_at", "known_at"],
    "facts": ["subject", "predicate", "valid_at"],
    "history": ["predicate"],
    "forget": ["turn_ids", "session_id", "subject", "conversation_id", "reason"],
    "drop_namespace": ["reason"],
    "search": ["k"],
    "ask": ["mode", "as_of", "budget"],
    "add_turns": ["restore"],
    "ingest_file": ["fmt"],
}


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, list[Any], dict[str, Any]]:
    name = draw(st.sampled_from(sorted(METHODS)))
    args = [draw(arg) for _ in range(METHODS[name])]
    if name not in ("add_conversation", "add_turns", "ingest_file", "search", "ask") and draw(st.booleans()):
        args[0] = NS  # a valid namespace, so the other arguments get checked
    elif name in ("add_conversation", "add_turns", "ingest_file", "search", "ask") and draw(st.booleans()):
        args[1] = NS
    if name in ("drop_namespace",) or (name == "forget" and args[0] == NS):
        args[0] = draw(st.sampled_from(["other", "fz2"]) | nasty)  # never erase the fixture's tenant
    kwargs = {
        k: draw(arg)
        for k in draw(st.lists(st.sampled_from(KEYWORDS.get(name, ["_"])), max_size=2, unique=True))
        if k != "_"
    }
    if name not in ("index", "stats", "consolidate", "drop_namespace", "segment_summaries"):
        # the namespace is a keyword wherever a method takes anything else (emem.deprecation)
        kwargs["namespace"] = args.pop(
            1 if name in ("add_conversation", "add_turns", "ingest_file", "search", "ask") else 0
        )
    return name, args, kwargs


@FUZZ
@given(call=calls())
def test_public_methods_refuse_cleanly(mem, call: tuple[str, list[Any], dict[str, Any]]) -> None:
    memory, home = mem
    name, args, kwargs = call
    before = snapshot(home)
    try:
        getattr(memory, name)(*args, **kwargs)
    except EmemError as exc:
        assert str(exc).strip()
        assert snapshot(home) == before, f"refused {name} changed the store"


COMMANDS: dict[str, int] = {
    "ingest": 1,
    "search": 1,
    "stats": 0,
    "ask": 1,
    "facts": 0,
    "facts add": 3,
    "facts revoke": 1,
    "resolve": 2,
    "history": 0,
    "consolidate": 0,
    "forget": 0,
    "drop-namespace": 1,
    "demo": 0,
    "llm status": 0,
    "llm stop": 0,
    "eval report": 1,
}
"""Every command but the ones that download weights or start servers/long runs with valid input
(llm pull, llm serve, eval locomo, eval longmemeval): those are fuzzed only through their options."""
OPTIONS = [
    "--namespace",
    "--subject",
    "--predicate",
    "--turn",
    "--session",
    "--conversation",
    "--reason",
    "--valid-from",
    "--valid-at",
    "--known-at",
    "--as-of",
    "--mode",
    "--k",
    "--format",
    "--budget",
]
raw_word = (
    st.binary(min_size=0, max_size=12)
    .filter(lambda b: b"\x00" not in b)
    .map(lambda b: b.decode("utf-8", "surrogateescape"))
)  # what Python makes of non-UTF-8 argv
word = st.one_of(
    raw_word,
    st.sampled_from(["fz", "S1:1", "c1", "Dana", "lives_in", T, "x" * 5000, "[/x]"]),
    st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=12),
)


@st.composite
def argv(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    args = command.split() + [draw(word) for _ in range(COMMANDS[command])]
    if draw(st.integers(0, 3)):
        args += ["--namespace", draw(st.sampled_from(["fz", "other"]) | word)]
    for option in draw(st.lists(st.sampled_from(OPTIONS[1:]), max_size=2)):
        args += [option, draw(word)]
    return args


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("fuzzcli") / "home"
    with Memory(home) as m:
        m.add_conversation(conversation("c1"), namespace="fz")
    return home


@settings(max_examples=N * 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(args=argv())
@example(args=["ask", "", "--subject", "--json"])  # a stray --json turns the error into JSON
def test_every_cli_command_gives_no_traceback(cli_home: Path, args: list[str]) -> None:
    if args[0] in ("forget", "drop-namespace") and "other" not in args:
        args = [*args, "--namespace", "other"]  # keep the fixture's tenant
    before = snapshot(cli_home)
    env = {"EMEM_HOME": str(cli_home), "EMEM_LLM_BASE_URL": "", "EMEM_LLM_MODEL": ""}
    result = CliRunner().invoke(app, [*args, "--home", str(cli_home)], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        repr(result.exception),
    )
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, (args, result.stderr)
        if lines[0].startswith("{"):  # under --json (even given as a stray value) errors are JSON
            assert "--json" in args and json.loads(lines[0])["error"]["message"], (args, result.stderr)
        else:
            assert lines[0].startswith("error:"), (args, result.stderr)
        if args[0] in ("ingest", "facts", "forget", "drop-namespace", "consolidate"):
            assert snapshot(cli_home) == before, args
    else:
        assert result.exit_code in (0, 1), (args, result.exit_code, result.output)
