"""Guarantee 5, bad input: property-based tests over every ingestion format (emem JSON, LoCoMo
JSON, JSONL, `add_turns` dicts, files on disk) and the CLI. Bad input raises an `EmemError` whose
message says where; nothing else ever escapes; and a refused write leaves the store byte for byte
unchanged (every row, and the database file after a checkpoint). CLI user errors are one line on
stderr with exit code 2, never a traceback."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from emem.cli import app
from emem.errors import ConflictError, EmemError, InputError
from emem.memory import Memory
from emem.models import MAX_TURN_CHARS

NS = "fuzz"
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
T = "2023-05-08T13:56:00+00:00"

EMEM_CONV: dict[str, Any] = {
    "conversation_id": "c1",
    "sessions": [
        {
            "session_id": "S1",
            "time": T,
            "turns": [
                {"turn_id": "S1:1", "speaker": "Ann", "text": "I moved to Lisbon."},
                {"turn_id": "S1:2", "speaker": "Ben", "text": "Nice!", "image_caption": "a tram", "time": T},
            ],
        }
    ],
}
LOCOMO: dict[str, Any] = {
    "sample_id": "loco",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"dia_id": "D1:1", "speaker": "Ann", "text": "I moved to Lisbon."},
            {"dia_id": "D1:2", "speaker": "Ben", "text": "Nice!", "blip_caption": "a tram"},
        ],
    },
}
EVENT: dict[str, Any] = {
    "conversation_id": "c9",
    "session_id": "S1",
    "turn_id": "e1",
    "speaker": "Ann",
    "text": "Hello there.",
    "time": T,
}

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c, max_size=4),
    max_leaves=12,
)
bad_times = st.sampled_from(
    [
        "",
        " ",
        "yesterday",
        "2023-02-30T00:00:00",
        "2023-13-01",
        "2023-05-08T25:00:00",
        "0001-01-01T00:00:00+05:00",
        "9999-12-31T23:59:59-05:00",
        "2023-05-08T13:56:00+24:00",
        "1:56 pm on 8 May, 2023",
        "20230508",
        "NaN",
    ]
) | st.text(max_size=30)
nasty_text = st.sampled_from(
    [
        "",
        "   ",
        "\x00",
        "a\x00b",
        "\ud800",
        "x" * (MAX_TURN_CHARS + 1),
        "[/red] [bold]",
        "\x1b[31m",
        "\u2028",
        "\ufeff",
    ]
) | st.text(max_size=40)


# -- the store's bytes ---------------------------------------------------------------------------


def snapshot(home: Path) -> tuple[Any, bytes]:
    """Every row of every table, and the database file's bytes after a checkpoint."""
    path = home / "episodes.sqlite3"
    with sqlite3.connect(path, timeout=30) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        rows = {t: conn.execute(f"SELECT * FROM '{t}' ORDER BY 1").fetchall() for t in tables}
    return rows, path.read_bytes()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("fuzz") / "home"
    memory = Memory(home)
    memory.add_conversation(EMEM_CONV, namespace=NS)
    yield memory, home
    memory.close()


def attempt(store: tuple[Memory, Path], call) -> Any:  # type: ignore[no-untyped-def]
    """Run a write; it either succeeds or raises an EmemError and changes no byte of the store."""
    memory, home = store
    before = snapshot(home)
    try:
        return call(memory)
    except EmemError as exc:
        assert str(exc).strip()
        after = snapshot(home)
        assert after[0] == before[0], "a refused write changed rows"
        assert after[1] == before[1], "a refused write changed the database file"
        return exc


# -- arbitrary and mutated inputs ------------------------------------------------------------------


@FUZZ
@given(value=json_values)
def test_arbitrary_json_is_stored_or_refused_cleanly(store, value: Any) -> None:
    attempt(store, lambda m: m.add_conversation(value, namespace=NS))
    attempt(store, lambda m: m.add_turns(value if isinstance(value, list) else [value], namespace=NS))


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


def mutate(base: Any, data: st.DataObject) -> Any:
    """Replace, delete or corrupt one value anywhere in a valid document."""
    doc = copy.deepcopy(base)
    path = data.draw(st.sampled_from(paths(doc)[1:]))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    how = data.draw(st.sampled_from(["replace", "delete", "time", "text"]))
    if how == "delete":
        del parent[path[-1]]
    else:
        strategy = {"replace": json_values, "time": bad_times, "text": nasty_text}[how]
        parent[path[-1]] = data.draw(strategy)
    return doc


def where_named(exc: Any, *places: str) -> bool:
    return isinstance(exc, ConflictError) or any(p in str(exc) for p in places)


@FUZZ
@given(data=st.data())
def test_mutated_emem_conversation(store, data: st.DataObject) -> None:
    doc = mutate(EMEM_CONV, data)
    result = attempt(store, lambda m: m.add_conversation(doc, namespace=NS))
    if isinstance(result, EmemError):
        assert where_named(result, "conversation", "namespace")


@FUZZ
@given(data=st.data())
def test_mutated_locomo_sample(store, data: st.DataObject) -> None:
    doc = mutate(LOCOMO, data)
    result = attempt(store, lambda m: m.add_conversation(doc, namespace=NS))
    if isinstance(result, EmemError):
        assert where_named(result, "conversation", "session_1", "loco", "conv-0")


@FUZZ
@given(data=st.data())
def test_mutated_add_turns_events(store, data: st.DataObject) -> None:
    events = mutate([EVENT, {**EVENT, "turn_id": "e2", "text": "Second."}], data)
    result = attempt(store, lambda m: m.add_turns(events, namespace=NS))
    if isinstance(result, EmemError):
        assert where_named(result, "turns", "namespace")


@FUZZ
@given(data=st.data(), suffix=st.sampled_from([".json", ".jsonl", ".txt"]))
def test_files_of_any_bytes(
    store, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, suffix: str
) -> None:
    base = {
        ".json": json.dumps(EMEM_CONV).encode(),
        ".jsonl": b"".join(
            json.dumps({**EVENT, "turn_id": f"f{i}"}, ensure_ascii=False).encode() + b"\n" for i in range(3)
        ),
        ".txt": json.dumps(LOCOMO).encode(),
    }[suffix]
    how = data.draw(st.sampled_from(["flip", "cut", "insert", "random"]))
    if how == "random":
        raw = data.draw(st.binary(max_size=300))
    else:
        at = data.draw(st.integers(0, len(base) - 1))
        if how == "flip":
            raw = base[:at] + bytes([base[at] ^ data.draw(st.integers(1, 255))]) + base[at + 1 :]
        elif how == "cut":
            raw = base[:at]
        else:
            raw = (
                base[:at]
                + data.draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80", b"{", b"\n"]))
                + base[at:]
            )
    path = tmp_path_factory.mktemp("files") / f"input{suffix}"
    path.write_bytes(raw)
    result = attempt(store, lambda m: m.ingest_file(path, namespace=NS))
    if isinstance(result, EmemError):
        assert where_named(result, str(path))


def test_deeply_nested_json_is_refused(store, tmp_path: Path) -> None:
    for name, raw in (("deep.json", b"[" * 100_000), ("deep.jsonl", b"[" * 100_000 + b"\n")):
        (tmp_path / name).write_bytes(raw)
        result = attempt(store, lambda m, n=name: m.ingest_file(tmp_path / n, namespace=NS))
        assert isinstance(result, InputError) and "nested too deeply" in str(result) and name in str(result)


# -- the targeted cases ------------------------------------------------------------------------------


def one_turn(text: str, turn_id: str = "big") -> dict[str, Any]:
    return {**EVENT, "conversation_id": "sizes", "turn_id": turn_id, "text": text}


@pytest.mark.parametrize("fmt", ["add_turns", "emem", "locomo", "jsonl"])
def test_turn_size_limit_in_every_format(store, tmp_path: Path, fmt: str) -> None:
    megabyte = "x" * 1_000_000

    def write(m: Memory, text: str, tid: str):  # type: ignore[no-untyped-def]
        if fmt == "add_turns":
            return m.add_turns([one_turn(text, tid)], namespace=NS)
        if fmt == "emem":
            conv = {
                "conversation_id": "sizes",
                "sessions": [
                    {
                        "session_id": "S1",
                        "time": T,
                        "turns": [{"turn_id": tid, "speaker": "Ann", "text": text}],
                    }
                ],
            }
            return m.add_conversation(conv, namespace=NS)
        if fmt == "locomo":
            sample = copy.deepcopy(LOCOMO)
            sample["sample_id"] = "sizes-loco"
            sample["conversation"]["session_1"] = [{"dia_id": tid, "speaker": "Ann", "text": text}]
            return m.add_conversation(sample, namespace=NS)
        path = tmp_path / f"{tid}.jsonl"
        path.write_text(json.dumps(one_turn(text, tid)) + "\n")
        return m.ingest_file(path, namespace=NS)

    refused = attempt(store, lambda m: write(m, megabyte, f"mb-{fmt}"))
    assert isinstance(refused, InputError)
    assert "'text'" in str(refused) and str(MAX_TURN_CHARS) in str(refused) and f"mb-{fmt}" in str(refused)
    assert isinstance(
        attempt(store, lambda m: write(m, "y" * (MAX_TURN_CHARS + 1), f"over-{fmt}")), InputError
    )
    assert attempt(store, lambda m: write(m, "z" * MAX_TURN_CHARS, f"max-{fmt}")).added == 1


def test_empty_nul_and_invalid_unicode_text_are_refused(store) -> None:
    for text in ("", "   \n\t", "a\x00b", "\ud800 lone surrogate"):
        result = attempt(store, lambda m, t=text: m.add_turns([one_turn(t, "bad-text")], namespace=NS))
        assert isinstance(result, InputError) and "turn bad-text: field 'text'" in str(result)


def test_other_control_characters_are_data_and_round_trip(store) -> None:
    memory, _ = store
    text = "bell \x07, escape \x1b[31m, tab\t, line\u2028sep, bom \ufeff and [/red] markup"
    memory.add_turns([one_turn(text, "ctrl")], namespace=NS)
    (stored,) = [t for t in memory.episodes.turns(NS) if t.turn_id == "ctrl"]
    assert stored.text == text
    # ids and speaker names end up in logs and prompts: control characters there are refused
    result = attempt(
        store, lambda m: m.add_turns([{**one_turn("x", "ctrl2"), "speaker": "Ann\x07"}], namespace=NS)
    )
    assert isinstance(result, EmemError) and "speaker" in str(result)


def test_duplicate_ids_with_different_content_are_refused(store) -> None:
    twin = [one_turn("first version", "dup"), one_turn("second version", "dup")]
    result = attempt(store, lambda m: m.add_turns(twin, namespace=NS))  # within one batch
    assert isinstance(result, ConflictError) and "turn 'dup'" in str(result)
    memory, _ = store
    assert (
        memory.add_turns(
            [one_turn("first version", "dup"), one_turn("first version", "dup")], namespace=NS
        ).unchanged
        == 1
    )
    result = attempt(
        store, lambda m: m.add_turns([one_turn("changed", "dup")], namespace=NS)
    )  # across batches
    assert isinstance(result, ConflictError)
    moved = copy.deepcopy(EMEM_CONV)
    moved["sessions"][0]["time"] = "2024-01-01T00:00:00+00:00"  # the same session, another start time
    assert isinstance(attempt(store, lambda m: m.add_conversation(moved, namespace=NS)), ConflictError)


@FUZZ
@given(when=bad_times)
def test_bad_times_everywhere(store, when: str) -> None:
    result = attempt(
        store, lambda m: m.add_turns([{**one_turn("timed", "timed"), "time": when}], namespace=NS)
    )
    if isinstance(result, EmemError):
        assert "turn timed field 'time'" in str(result)
    memory, _ = store
    for call in (
        lambda: memory.ask("Where?", namespace=NS, as_of=when),
        lambda: memory.facts(namespace=NS, valid_at=when),
        lambda: memory.resolve("Ann", "lives_in", namespace=NS, known_at=when),
    ):
        try:
            call()
        except EmemError as exc:
            assert any(k in str(exc) for k in ("as_of", "valid_at", "known_at"))


# -- the CLI ----------------------------------------------------------------------------------------

COMMANDS: dict[str, tuple[int, list[str]]] = {  # positional arguments, options
    "ingest": (1, ["--format", "--no-index"]),
    "search": (1, ["--k", "--json"]),
    "stats": (0, ["--json"]),
    "ask": (1, ["--mode", "--as-of", "--budget", "--json"]),
    "facts": (0, ["--subject", "--valid-at", "--json"]),
    "resolve": (2, ["--valid-at", "--known-at"]),
    "history": (0, ["--subject", "--predicate"]),
    "consolidate": (0, []),
    "forget": (0, ["--turn", "--session", "--subject", "--conversation", "--reason"]),
    "drop-namespace": (1, ["--yes"]),
}
FLAGS = {"--no-index", "--json", "--yes"}
cli_words = st.sampled_from(
    [
        "",
        "-1",
        "0",
        "3",
        "x",
        "fuzz",
        "S1:1",
        "c1",
        "Ann",
        "lives_in",
        "acme prod",
        "[/x]",
        "a\x1bb",
        "9" * 30,
        "2023-05-08",
        "deep",
        "../etc",
        "/nonexistent.json",
    ]
) | st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=15)


@st.composite
def argv(draw: st.DrawFn) -> list[str]:
    """Mostly well-formed command lines with bad values, plus some malformed ones."""
    command = draw(st.sampled_from(sorted(COMMANDS)))
    positional, options = COMMANDS[command]
    args = [command]
    for _ in range(draw(st.sampled_from([positional, positional, positional, 0, positional + 1]))):
        args.append(draw(cli_words))
    if command != "drop-namespace" and draw(st.integers(0, 4)):
        args += ["--namespace", draw(st.sampled_from(["fuzz", "other"]) | cli_words)]
    for option in draw(st.lists(st.sampled_from(options), max_size=3)) if options else []:
        args += [option] if option in FLAGS else [option, draw(cli_words)]
    if not draw(st.integers(0, 7)):
        args.insert(draw(st.integers(1, len(args))), "--bogus")
    return args


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli") / "home"
    with Memory(home) as memory:
        memory.add_conversation(EMEM_CONV, namespace=NS)
    return home


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(args=argv())
def test_cli_user_errors_are_one_line_exit_2(cli_home: Path, args: list[str]) -> None:
    before = snapshot(cli_home)
    result = CliRunner().invoke(app, [*args, "--home", str(cli_home)], env={"EMEM_HOME": str(cli_home)})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, result.stderr
        if lines[0].startswith("{"):  # under --json an error is one JSON object
            assert "--json" in args and json.loads(lines[0])["error"]["message"], result.stderr
        else:
            assert lines[0].startswith("error:"), result.stderr
    else:
        assert result.exit_code == 0, (result.exit_code, result.output)
    if result.exit_code != 0 and args[0] in ("ingest", "forget", "drop-namespace"):
        assert snapshot(cli_home) == before
