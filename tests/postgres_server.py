"""A throwaway PostgreSQL server for tests: initdb + pg_ctl in a temporary folder, on a free loopback port.

The binaries come from the distribution's ``postgresql`` package (``initdb`` on
PATH or under ``/usr/lib/postgresql/*/bin``). As root, the server runs as the
``postgres`` user (initdb refuses root). Tests that need it are skipped, with
the reason, only when the binaries are absent (the psycopg driver is a dev dependency).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

SERVER_USER = "postgres"
"""The account the server runs as when the tests run as root."""


def binaries() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found is not None:
        return Path(found).resolve().parent
    installed = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return installed[-1].parent if installed else None


def missing() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None when they can."""
    return None if binaries() is not None else "PostgreSQL is not installed (apt-get install postgresql: initdb and pg_ctl)"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", SERVER_USER, "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server on 127.0.0.1 (trust authentication, user ``pbench``), yield its base URL (no database), stop it."""
    bin_dir = binaries()
    assert bin_dir is not None, missing()
    with tempfile.TemporaryDirectory(prefix="pbench-pg-") as folder:
        root = Path(folder)
        data, sockets = root / "data", root / "sockets"
        sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(root, SERVER_USER)
            shutil.chown(sockets, SERVER_USER)
        run = {"check": True, "capture_output": True, "text": True}
        subprocess.run(_as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-U", "pbench", "-A", "trust", "-E", "UTF8", "--no-sync"]), **run)  # type: ignore[call-overload]
        port = _free_port()
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off -c full_page_writes=off"
        subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-l", str(root / "server.log"), "start"]), **run)  # type: ignore[call-overload]
        try:
            yield f"postgresql+psycopg://pbench@127.0.0.1:{port}"
        finally:
            subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]), check=False, capture_output=True)


def create_database(base_url: str, name: str) -> str:
    """A new empty database on the server; its URL."""
    with psycopg.connect(base_url.replace("+psycopg", "") + "/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{base_url}/{name}"
