"""Network namespaces standing in for separate hosts, for tests and benchmarks of several
machines on one PostgreSQL.

Each "host" is a Linux network namespace with its own network stack, linked to the machine's
by a veth pair on a /30 of its own: the server listens on the outer end's address, so a process
started in the namespace (`Host.command`) reaches it over a network link, as a remote machine
would, and not over loopback. Creating them needs root and iproute2 (`hosts_problem` says why
not, for a skip message).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Host:
    """One network namespace and the server address reachable from it."""

    netns: str
    server_ip: str
    """The server's address on this host's link (listen on it)."""
    network: str
    """The CIDR range all hosts of a `network_hosts` call share (trust it in pg_hba.conf)."""

    def command(self, argv: Sequence[str]) -> list[str]:
        """`argv` run inside this host's network namespace."""
        return ["ip", "netns", "exec", self.netns, *argv]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


@contextmanager
def network_hosts(count: int) -> Iterator[list[Host]]:
    """Create `count` network namespaces, each with a veth link to this machine; deleted on exit.

    Args:
        count: how many hosts (at most 63: each takes a /30 of one 10.231.x.0/24).
    Returns:
        A context manager yielding the hosts.
    Raises:
        subprocess.CalledProcessError: `ip` refused (not root, no netns support).
    """
    if not 0 < count <= 63:
        raise ValueError(f"count must be 1..63, got {count}")
    tag, octet = uuid.uuid4().hex[:6], random.Random().randrange(1, 250)
    network = f"10.231.{octet}.0/24"
    made: list[Host] = []
    try:
        for i in range(count):
            netns, outer, inner = f"emem{tag}{i}", f"em{tag}{i}o", f"em{tag}{i}i"
            server_ip, client_ip = f"10.231.{octet}.{4 * i + 1}", f"10.231.{octet}.{4 * i + 2}"
            _ip("netns", "add", netns)
            made.append(Host(netns, server_ip, network))
            _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", netns)
            _ip("addr", "add", f"{server_ip}/30", "dev", outer)
            _ip("link", "set", outer, "up")
            _ip("netns", "exec", netns, "ip", "addr", "add", f"{client_ip}/30", "dev", inner)
            _ip("netns", "exec", netns, "ip", "link", "set", inner, "up")
            _ip("netns", "exec", netns, "ip", "link", "set", "lo", "up")
        yield made
    finally:
        for i, host in enumerate(made):
            subprocess.run(["ip", "link", "del", f"em{tag}{i}o"], capture_output=True, timeout=30)
            subprocess.run(["ip", "netns", "del", host.netns], capture_output=True, timeout=30)


def hosts_problem() -> str | None:
    """Why network namespaces with a veth link cannot be made here (not root, no iproute2, or the
    kernel or container refuses), or None when they can: it makes and deletes a probe."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    if shutil.which("ip") is None:
        return "needs iproute2 (the `ip` command) to create network namespaces"
    try:
        with network_hosts(1):
            pass
    except subprocess.CalledProcessError as exc:
        return f"cannot create a network namespace with a veth link here: {(exc.stderr or '').strip()}"
    return None
