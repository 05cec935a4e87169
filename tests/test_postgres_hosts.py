"""Several hosts on one PostgreSQL: each writer runs in a network namespace of its own (its own
network stack, reaching the server over a veth link at another address, as a remote machine
would), writing to its own namespace and to a shared one while it searches and asks. Nothing
acknowledged may be lost, and no read may return the other host's tenant's turns.

Needs root and iproute2 (it creates the network namespaces); skipped, saying why, without them
or where the kernel or container refuses a network namespace (emem.storage.postgres.netns)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from emem.memory import Memory
from emem.storage.postgres.netns import Host, hosts_problem, network_hosts
from emem.storage.postgres.server import LocalPostgres

TURNS = 16
WORKER = """
import json, sys
from emem.memory import Memory

url, home, me, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def turn(i):
    return {"conversation_id": me, "session_id": "s1", "turn_id": f"{me}-{i}", "speaker": me,
            "text": f"{me} reports the codeword zq{me}x{i} at step {i}", "time": "2023-01-05T10:00:00+00:00"}
with Memory(home, backend=url) as m:
    for i in range(n):
        m.add_turns([turn(i)], namespace=me)
        m.add_turns([turn(i)], namespace="shared")
        print(f"ACK {i}", flush=True)
        if i % 4 == 3:
            hits = m.search(f"codeword zq{me}x{i}", namespace=me, k=10)
            answer = m.ask(f"Which codeword did {me} report at step {i}?", namespace=me, mode="fast")
            seen = sorted({h.conversation_id for h in hits} | {e.conversation_id for e in answer.evidence})
            print("READ " + json.dumps(seen), flush=True)
"""


@pytest.fixture
def hosts() -> Iterator[list[Host]]:
    problem = hosts_problem()
    if problem is not None:
        pytest.skip(problem)
    with network_hosts(2) as made:
        yield made


def test_two_hosts_write_and_ask_at_once_without_loss_or_cross_tenant_hits(
    hosts: list[Host], tmp_path: Path
) -> None:
    with LocalPostgres(
        listen=["127.0.0.1", *(h.server_ip for h in hosts)], trusted_networks=[hosts[0].network]
    ) as server:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE hosts")
        names = ["hosta", "hostb"]
        procs = [
            subprocess.Popen(
                h.command(
                    [
                        sys.executable,
                        "-c",
                        WORKER,
                        server.url("hosts", h.server_ip),
                        str(tmp_path / name),
                        name,
                        str(TURNS),
                    ]
                ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for h, name in zip(hosts, names, strict=True)
        ]
        outputs = [p.communicate(timeout=600) for p in procs]
        for p, (_out, err) in zip(procs, outputs, strict=True):
            assert p.returncode == 0, err[-3000:]
        with Memory(tmp_path / "checker", backend=server.url("hosts")) as m:
            for name, (out, _) in zip(names, outputs, strict=True):
                acked = {int(line.split()[1]) for line in out.splitlines() if line.startswith("ACK ")}
                assert acked == set(range(TURNS))
                own = m.episodes.turns(name)
                assert {t.turn_id for t in own} == {f"{name}-{i}" for i in acked}
                assert {t.conversation_id for t in own} == {name}
                reads = [json.loads(line[5:]) for line in out.splitlines() if line.startswith("READ ")]
                assert len(reads) == TURNS // 4 and all(seen == [name] for seen in reads)
                other = names[1 - names.index(name)]
                assert all(
                    h.conversation_id == name for h in m.search(f"codeword zq{other}x3", namespace=name, k=20)
                )
            shared = m.episodes.turns("shared")
            assert len(shared) == 2 * TURNS and len({t.seq for t in shared}) == 2 * TURNS
