"""Small things a user hits: Chroma and LangGraph warnings, version, typing marker."""

from __future__ import annotations

import json
import subprocess
import sys

from emem.memory import Memory


def test_chroma_rebuilds_emem_embedding_function_in_a_fresh_process(memory: Memory) -> None:
    """A process that opens the home's Chroma and loads a collection's stored configuration (as
    erasure does, listing collections) must find emem's embedding function by name instead of
    warning "Could not reconstruct embedding function emem" or refusing."""
    memory.add_turns(
        [{"conversation_id": "c", "session_id": "s", "turn_id": "1", "speaker": "A", "text": "hello world",
          "time": "2024-01-01T00:00:00Z"}], namespace="ns",
    )  # fmt: skip
    memory.index("ns")  # writes the vector (a search alone may hold it in memory, unwritten)
    script = (
        "import sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "from chromadb.api.collection_configuration import load_collection_configuration_from_json\n"
        "from emem.index.dense import open_chroma\n"
        "client = open_chroma(__import__('pathlib').Path(sys.argv[1]))\n"
        "(col,) = client.list_collections()\n"
        "print(load_collection_configuration_from_json(col.configuration_json)['embedding_function'].name())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(memory.home / "chroma")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "emem"


CHECKPOINT_SCRIPT = """
import logging, sys, tempfile
from typing import TypedDict
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from emem import Memory
from emem.cli.demo import example_conversation
from emem.langgraph import checkpoint_serializer

records = []
handler = logging.Handler()
handler.emit = records.append
logging.getLogger("langgraph").addHandler(handler)

class State(TypedDict, total=False):
    question: str
    namespace: str
    mode: str
    answer: object

m = Memory(tempfile.mkdtemp())
m.add_conversation(example_conversation(), "demo")
g = StateGraph(State)
g.add_node("memory", m.graph())
g.add_edge(START, "memory")
g.add_edge("memory", END)
saver = InMemorySaver(serde=checkpoint_serializer()) if sys.argv[1] == "emem" else InMemorySaver()
app = g.compile(checkpointer=saver)
cfg = {"configurable": {"thread_id": "t"}}
app.invoke({"question": "Where does Alice live?", "namespace": "demo", "mode": "fast"}, cfg)
answer = app.get_state(cfg).values["answer"]
print(type(answer).__name__, answer.answer)
print("WARNINGS", sum("unregistered type emem" in r.getMessage() for r in records))
"""


def test_answer_in_a_checkpoint_loads_without_unregistered_type_warning() -> None:
    """Run in fresh processes: LangGraph warns once per type per process."""
    outs = {}
    for mode in ("default", "emem"):
        out = subprocess.run(
            [sys.executable, "-c", CHECKPOINT_SCRIPT, mode], capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, out.stderr[-2000:]
        outs[mode] = out.stdout.splitlines()
    assert outs["default"][0] == outs["emem"][0] and outs["emem"][0].startswith("Answer ")
    assert outs["default"][1] != "WARNINGS 0"  # the problem is real with LangGraph's default serializer
    assert outs["emem"][1] == "WARNINGS 0"


def emem(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    env.pop("EMEM_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "emem", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_cli_version_global_options_json_errors_and_missing_namespaces(tmp_path) -> None:
    from emem import __version__

    assert emem("--version").stdout.strip() == f"emem {__version__}"
    home = str(tmp_path / "home")
    assert emem("--home", home, "demo").returncode == 0  # global option before the command
    before = emem("--home", home, "search", "pottery", "-n", "demo", "--k", "1", "--json")
    after = emem("search", "pottery", "-n", "demo", "--k", "1", "--json", "--home", home)
    glob = emem("--json", "--home", home, "search", "pottery", "-n", "demo", "--k", "1")
    assert before.returncode == after.returncode == glob.returncode == 0
    assert json.loads(before.stdout) == json.loads(after.stdout) == json.loads(glob.stdout)

    for command in (["search", "x"], ["stats"], ["ask", "x"], ["facts"], ["resolve", "Alice", "lives_in"],
                    ["history", "--subject", "Alice"], ["consolidate"]):  # fmt: skip
        typo = emem(*command, "-n", "demmo", "--home", home)
        assert typo.returncode == 2 and "namespace 'demmo' does not exist" in typo.stderr, command
        as_json = emem("--json", *command, "-n", "demmo", "--home", home)
        assert as_json.returncode == 2
        assert json.loads(as_json.stderr)["error"]["type"] == "NotFoundError", command
    usage = emem("search", "--json", "--bogus")
    assert usage.returncode == 2 and json.loads(usage.stderr)["error"]["type"] == "UsageError"


def test_tables_keep_ids_and_dates_whole_at_80_columns(tmp_path) -> None:
    home = str(tmp_path / "home")
    emem("--home", home, "demo")
    search = emem("search", "pottery class", "-n", "demo", "--home", home, "--k", "3")
    hits = json.loads(
        emem("search", "pottery class", "-n", "demo", "--home", home, "--k", "3", "--json").stdout
    )
    for h in hits:
        assert f" {h['turn_id']} " in search.stdout and h["time"][:10] in search.stdout
    facts = emem("facts", "-n", "demo", "--home", home).stdout
    resolved = json.loads(emem("facts", "-n", "demo", "--home", home, "--json").stdout)
    for r in resolved:
        for rev in r["revisions"]:
            assert rev["id"][:12] in facts and rev["valid_from"][:10] in facts
    assert max(len(line) for line in facts.splitlines()) <= 80
