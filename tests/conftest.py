"""Shared fixtures: a temporary home per test and small hand-written conversations."""

from __future__ import annotations

import copy
import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from emem.answer import EvidenceItem
from emem.memory import Memory
from emem.models import Turn
from emem.storage import BACKEND_ENV


def loopback_problem(timeout: float = 2.0) -> str | None:
    """Why a TCP connection to 127.0.0.1 fails here, or None when it works. The stand-in LLM
    servers the suite starts listen there; without it their tests would wait out every timeout."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            with socket.create_connection(server.getsockname(), timeout=timeout):
                pass
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def pytest_sessionstart(session: pytest.Session) -> None:
    problem = loopback_problem()
    if problem is not None:
        pytest.exit(
            f"the loopback interface (127.0.0.1) does not accept connections ({problem}); the suite's "
            "stand-in LLM servers need it. Bring it up (e.g. `ip link set lo up`) and rerun.",
            returncode=3,
        )


SMALL_CONVERSATION: dict[str, Any] = {
    "conversation_id": "c1",
    "sessions": [
        {
            "session_id": "S1",
            "time": "2022-03-01T10:00:00+00:00",
            "turns": [
                {"turn_id": "S1:1", "speaker": "Dana", "text": "I just moved to Lisbon for a new job."},
                {"turn_id": "S1:2", "speaker": "Omar", "text": "Lisbon! Where are you working?"},
                {
                    "turn_id": "S1:3",
                    "speaker": "Dana",
                    "text": "I work at a small robotics startup called Kinetica.",
                },
            ],
        },
        {
            "session_id": "S2",
            "time": "2022-06-15T19:30:00+00:00",
            "turns": [
                {"turn_id": "S2:1", "speaker": "Omar", "text": "How is the surfing going?"},
                {
                    "turn_id": "S2:2",
                    "speaker": "Dana",
                    "text": "Great, here is my new board.",
                    "image_caption": "a yellow surfboard leaning on a wall",
                },
                {
                    "turn_id": "S2:3",
                    "speaker": "Omar",
                    "text": "My sister Lena adopted a parrot called Kiwi.",
                },
            ],
        },
    ],
}


def small_conversation(conversation_id: str = "c1") -> dict[str, Any]:
    conv = copy.deepcopy(SMALL_CONVERSATION)
    conv["conversation_id"] = conversation_id
    return conv


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def memory(home: Path):
    with Memory(home) as m:
        yield m


# -- backends -----------------------------------------------------------------------------------

BackendFactory = Callable[[pytest.FixtureRequest, Path], str]
"""factory(request, directory) -> a backend spec naming a fresh, empty store (it may use session
fixtures through `request.getfixturevalue`, e.g. to start a database server once per run, and
`directory`, a fresh temporary directory, for anything it keeps on disk)."""


def _embedded(request: pytest.FixtureRequest, directory: Path) -> str:
    return "embedded"  # the stores live under each Memory's own home, fresh per test


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real PostgreSQL 18 + pgvector for the whole session, on 127.0.0.1 in a temp dir
    (emem.storage.postgres.server); each test gets its own database in it (`postgres_url`)."""
    from emem.storage.postgres.server import LocalPostgres

    # fsync off: the suite kills clients, never the server or the machine, and every test drops
    # its database (a checkpoint each, slow with fsync on this shared disk).
    with LocalPostgres(fsync=False) as server:
        yield server


def new_database(server: Any) -> str:
    """Create an empty database on the session's server; returns its URL."""
    import uuid

    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    return server.url(name)


def drop_database(server: Any, url: str) -> None:
    """Drop a database made by `new_database`, closing whatever connections still use it."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


@pytest.fixture
def postgres_url(postgres_server: Any) -> Iterator[str]:
    """A fresh, empty database on the session's server, dropped (with its connections) after."""
    url = new_database(postgres_server)
    yield url
    drop_database(postgres_server, url)


def _postgres(request: pytest.FixtureRequest, directory: Path) -> str:
    """A fresh database on the session's server, dropped when the requesting scope ends."""
    server = request.getfixturevalue("postgres_server")
    url = new_database(server)
    request.addfinalizer(lambda: drop_database(server, url))
    return url


BACKEND_FACTORIES: dict[str, BackendFactory] = {"embedded": _embedded, "postgres": _postgres}
"""Every backend storage-facing tests run against, by id. Another backend adds its entry here."""


def _skip_unless_embedded(request: pytest.FixtureRequest, kind: str) -> None:
    mark = request.node.get_closest_marker("embedded_only")
    if mark is not None and kind != "embedded":
        pytest.skip(f"embedded backend only: {mark.args[0] if mark.args else 'inspects its files'}")


@pytest.fixture(scope="module", params=sorted(BACKEND_FACTORIES))
def backend_kind(request: pytest.FixtureRequest) -> str:
    """The backend id this module's tests run against (parametrised: once per backend)."""
    return request.param


@pytest.fixture(scope="module")
def backend_factory(backend_kind: str, request: pytest.FixtureRequest) -> Callable[[Path], str]:
    """make(directory) -> a spec for a fresh, empty store of this module's backend (module-scoped
    fixtures call it; tests use `backend`)."""
    return lambda directory: BACKEND_FACTORIES[backend_kind](request, directory)


@pytest.fixture
def backend(backend_kind: str, backend_factory: Callable[[Path], str], request, tmp_path: Path) -> str:
    """A backend spec for a fresh, empty store (pass it as `Memory(home, backend=...)`, or as
    EMEM_BACKEND to a subprocess). Each test using it runs once per backend."""
    _skip_unless_embedded(request, backend_kind)
    return backend_factory(tmp_path / "backend")


@pytest.fixture(scope="module")
def module_backend(backend_factory: Callable[[Path], str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """One fresh store for a whole module (its module-scoped fixtures share it)."""
    return backend_factory(tmp_path_factory.mktemp("backend"))


@pytest.fixture
def each_backend(backend: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on `backend`: every `Memory(home)` it opens, and every subprocess it starts,
    gets it through EMEM_BACKEND. Storage-facing modules use it for every test with
    `pytestmark = pytest.mark.usefixtures("each_backend")`."""
    monkeypatch.setenv(BACKEND_ENV, backend)
    return backend


@pytest.fixture
def each_module_backend(
    module_backend: str, backend_kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> str:
    """`each_backend` for modules whose fixtures are module-scoped: EMEM_BACKEND names the
    module's shared store."""
    _skip_unless_embedded(request, backend_kind)
    monkeypatch.setenv(BACKEND_ENV, module_backend)
    return module_backend


@pytest.fixture
def memory_factory(backend: str, home: Path) -> Iterator[Callable[..., Memory]]:
    """Opens `Memory` objects on this test's backend (home defaults to the test's home); every
    one opened is closed at the end."""
    opened: list[Memory] = []

    def make(at: Path | None = None, **kwargs: Any) -> Memory:
        m = Memory(at if at is not None else home, backend=backend, **kwargs)
        opened.append(m)
        return m

    yield make
    for m in opened:
        m.close()


def stores_in_home() -> bool:
    """Whether the active backend (EMEM_BACKEND, as `each_backend` sets it) keeps its bytes under
    the Memory's home, so a byte scan of the home covers every store. Mixed tests run their
    semantic checks on every backend and their home scans only here; a backend with its own
    data directory gets its own scan test."""
    import os

    return os.environ.get(BACKEND_ENV, "embedded").lower() == "embedded"


def contract_rows(memory: Memory) -> dict[str, Any]:
    """Everything a backend holds, as the storage contract shows it (every namespace's turns,
    sessions, summaries and ledger rows, and pending erasures): what "the store is unchanged"
    compares on a backend whose files are not under the home."""
    backend = memory.backend
    out: dict[str, Any] = {"pending": [p.erasure_id for p in backend.episodes.pending_erasures()]}
    for ns in backend.episodes.namespaces():
        ledger = backend.ledger.load(ns) if backend.has_ledger() else ([], [])
        out[ns] = {
            "turns": [t.model_dump(mode="json") for t in backend.episodes.turns(ns)],
            "sessions": backend.episodes.sessions(ns),
            "summaries": backend.episodes.segment_summaries(ns),
            "revisions": [r.model_dump(mode="json") for r in ledger[0]],
            "relations": [r.model_dump(mode="json") for r in ledger[1]],
            "tombstones": backend.ledger.tombstones(ns) if backend.has_ledger() else [],
        }
    return out


def said(texts: tuple[str, ...], time: datetime, speaker: str = "user") -> list[Turn]:
    """Turns said in order by one speaker at `time`; a text starting "A:" is the assistant's."""
    return [
        Turn(
            conversation_id="c",
            session_id="s",
            turn_id=f"t{i}",
            speaker="assistant" if t.startswith("A:") else speaker,
            text=t.removeprefix("A:"),
            time=time,
        )
        for i, t in enumerate(texts)
    ]


def evidence_turn(day: int, text: str, speaker: str = "user") -> EvidenceItem:
    """An evidence item said `day` days after 1 January 2024, for the reader's pure rules."""
    return EvidenceItem(
        turn_id=f"S{day}:1",
        session_id=f"S{day}",
        conversation_id="c",
        speaker=speaker,
        time=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=day),
        text=text,
        score=0.5,
    )
