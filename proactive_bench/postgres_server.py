"""A throwaway local PostgreSQL server in one folder: initdb on first use, pg_ctl start and stop, createdb.

What ``pbench db serve`` runs, and what the tests and ``scripts/bench_scale.py``
start their database server with. The binaries come from the distribution's
PostgreSQL package (``initdb`` on PATH or under ``/usr/lib/postgresql/*/bin``).
The server listens on 127.0.0.1 only, with trust authentication for the user
``pbench``; as root it runs as the ``postgres`` account (initdb refuses root).
Everything that goes wrong is a :class:`PostgresServerError` with a one-line reason.

The folder holds ``data/`` (the cluster), ``sockets/`` (its Unix socket),
``server.log`` and ``port`` (the port it was last started on, reused by default).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

SERVER_USER = "postgres"
"""The account the server runs as when pbench runs as root."""
DB_USER = "pbench"
DEBIAN_PACKAGE = "postgresql"
START_TIMEOUT_S = 60
INSTALL_ROOT = Path("/usr/lib/postgresql")
"""Where Debian and Ubuntu install each PostgreSQL version's binaries (``VERSION/bin``), off PATH."""


class PostgresServerError(RuntimeError):
    """The local server cannot be set up, started or stopped; the message says why in one line."""


def binaries() -> Path | None:
    """The folder holding initdb, pg_ctl and createdb, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found is not None:
        return Path(found).resolve().parent
    installed = sorted(INSTALL_ROOT.glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    return installed[-1].parent if installed else None


def missing() -> str | None:
    """Why no local server can be started here, or None when it can."""
    if binaries() is None:
        return f"PostgreSQL is not installed: initdb and pg_ctl not found (Debian/Ubuntu: apt-get install {DEBIAN_PACKAGE})"
    return None


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_taken(port: int) -> bool:
    """Whether something already listens on (or holds) 127.0.0.1:``port``."""
    with socket.socket() as probe:
        probe.setsockopt(
            socket.SOL_SOCKET, socket.SO_REUSEADDR, 1
        )  # as the server binds: a port whose old connections linger in TIME_WAIT is free
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", SERVER_USER, "--", *command] if os.geteuid() == 0 else command


@dataclass(frozen=True)
class LocalPostgres:
    """The server whose cluster lives in ``folder``. ``durable=False`` turns fsync off (tests); ``settings`` are more
    server settings (``name=value``, e.g. statement logging for a benchmark)."""

    folder: Path
    durable: bool = True
    settings: tuple[str, ...] = ()

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log_file(self) -> Path:
        return self.folder / "server.log"

    def initialized(self) -> bool:
        return (self.data / "PG_VERSION").is_file()

    def pid(self) -> int | None:
        """The server's pid while one runs from this folder (from ``postmaster.pid``), else None."""
        try:
            first = (self.data / "postmaster.pid").read_text().split("\n", 1)[0]
        except (OSError, UnicodeDecodeError):
            return None
        if not first.strip().isdigit():
            return None
        try:
            os.kill(int(first), 0)
        except ProcessLookupError:
            return None
        except PermissionError:  # alive, another user's
            pass
        return int(first)

    def port(self) -> int | None:
        """The port the server was last started on, from this folder."""
        try:
            return int((self.folder / "port").read_text())
        except (OSError, ValueError):
            return None

    def url(self, database: str = "pbench", port: int | None = None) -> str:
        """The SQLAlchemy URL of a database on this server (usable as ``--db``)."""
        return f"postgresql+psycopg://{DB_USER}@127.0.0.1:{port or self.port()}/{database}"

    def start(self, port: int | None = None, database: str | None = "pbench") -> str:
        """Create the cluster on first use, start the server (on ``port``, else the last one, else a free one), create
        ``database`` if it is missing; the URL of ``database`` (of the server, without a database, when None)."""
        bin_dir = binaries()
        if bin_dir is None:
            raise PostgresServerError(str(missing()))
        running = self.pid()
        if running is not None:
            raise PostgresServerError(
                f"{self.folder}: in use by a running server (pid {running}, {self.url()}); stop it with: pbench db stop --dir {self.folder}"
            )
        if not self.initialized():
            self._create_cluster(bin_dir)
        port = port or self.port() or free_port()
        if port_taken(port):
            raise PostgresServerError(f"port {port} on 127.0.0.1 is taken; choose another with --port")
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {self.folder / 'sockets'}"
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        options += "".join(f" -c {setting}" for setting in self.settings)
        self._run(
            bin_dir / "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "-l",
            str(self.log_file),
            "start",
            what="start the server",
        )
        (self.folder / "port").write_text(str(port))
        if database is None:
            return self.url("", port).rstrip("/")
        self.create_database(database, exist_ok=True)
        return self.url(database, port)

    def create_database(self, name: str, exist_ok: bool = False) -> str:
        """A new database on the running server (``createdb``); its URL."""
        bin_dir = binaries()
        assert bin_dir is not None, missing()
        command = [str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port()), "-U", DB_USER, name]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 and not (exist_ok and "already exists" in done.stderr):
            raise PostgresServerError(f"cannot create database {name}: {_last_line(done.stderr)}")
        return self.url(name)

    def stop(self, immediate: bool = False) -> bool:
        """Stop the server running from this folder (``fast``: connections closed, data flushed); False when none ran."""
        bin_dir = binaries()
        if bin_dir is None or self.pid() is None:
            return False
        self._run(
            bin_dir / "pg_ctl", "-D", str(self.data), "-m", "immediate" if immediate else "fast", "-w", "stop", what="stop the server"
        )
        return True

    def _create_cluster(self, bin_dir: Path) -> None:
        if self.folder.exists() and not self.folder.is_dir():
            raise PostgresServerError(f"{self.folder}: not a folder")
        if self.data.exists() and any(self.data.iterdir()):
            raise PostgresServerError(f"{self.data}: not empty and not a PostgreSQL cluster; give another --dir")
        (self.folder / "sockets").mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            for path in (self.folder, self.folder / "sockets"):
                shutil.chown(path, SERVER_USER)
            if subprocess.run(_as_server_user(["test", "-w", str(self.folder)]), check=False).returncode != 0:
                raise PostgresServerError(
                    f"{self.folder}: as root the server runs as the {SERVER_USER} user, who cannot reach this folder; give a --dir it can enter (e.g. under /tmp or /var/lib)"
                )
        self._run(
            bin_dir / "initdb",
            "-D",
            str(self.data),
            "-U",
            DB_USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
            what="create the cluster (initdb)",
        )

    def _run(self, program: Path, *args: str, what: str) -> None:
        done = subprocess.run(_as_server_user([str(program), *args]), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            reason = _last_line(done.stderr or done.stdout)
            if "start" in args and self.log_file.is_file():
                reason = _last_line(self.log_file.read_text(errors="replace")) or reason
            raise PostgresServerError(f"{self.folder}: cannot {what}: {reason}")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no message"
