"""``pbench db``: a real local PostgreSQL server started, refused when its folder or port is in use, stopped; a database's info and upgrade."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from proactive_bench import postgres_server
from proactive_bench.postgres_server import LocalPostgres
from proactive_bench.store.migration import head_revision
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import MINI

pytestmark = pytest.mark.skipif(postgres_server.missing() is not None, reason=str(postgres_server.missing()))


@pytest.fixture
def server_dir() -> Iterator[Path]:
    """A folder for a server (under the system temporary folder: as root the server runs as ``postgres``); its server stopped after."""
    with tempfile.TemporaryDirectory(prefix="pbench-db-") as folder:
        os.chmod(folder, 0o755)  # as root the server runs as postgres, who must enter it
        yield Path(folder) / "pg"
        LocalPostgres(Path(folder) / "pg").stop(immediate=True)


def one_line_error(result: object) -> str:
    output = result.output  # type: ignore[attr-defined]
    assert result.exit_code != 0 and "Traceback" not in output, output  # type: ignore[attr-defined]
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    return lines[0]


def test_serve_detached_gives_a_url_that_works_as_db_and_stop_stops_it(server_dir: Path, tmp_path: Path) -> None:
    started = run_cli("db", "serve", "--dir", str(server_dir), "--detach")
    assert started.exit_code == 0, started.output
    url = started.stdout.strip()
    assert url.startswith("postgresql+psycopg://pbench@127.0.0.1:") and url.endswith("/pbench") and "\n" not in url

    fresh = json.loads(run_cli("db", "info", "--db", url, "--json").stdout)
    assert fresh == {
        "database": url,
        "dialect": "postgresql",
        "revision": None,
        "head": head_revision(),
        "runs": 0,
        "sweeps": 0,
        "sessions": 0,
    }
    upgraded = run_cli("db", "upgrade", "--db", url)
    assert upgraded.exit_code == 0 and f"upgraded from no revision to {head_revision()}" in upgraded.output
    assert run_cli("db", "upgrade", "--db", url).output.strip().endswith(f"at {head_revision()}")

    swept = run_cli("sweep", "--data", str(MINI), "--models", "scripted:reference", "--runs", "2", "--db", url, "--json")
    assert swept.exit_code == 0, swept.output
    counted = json.loads(run_cli("db", "info", "--db", url, "--json").stdout)
    assert (counted["revision"], counted["runs"], counted["sweeps"], counted["sessions"]) == (head_revision(), 2, 1, 6)
    shown = run_cli("db", "info", "--db", url).stdout
    assert "dialect   postgresql" in shown and f"revision  {head_revision()} (current)" in shown

    again = one_line_error(run_cli("db", "serve", "--dir", str(server_dir), "--detach"))
    assert "in use by a running server" in again and f"pbench db stop --dir {server_dir}" in again
    assert run_cli("db", "stop", "--dir", str(server_dir)).exit_code == 0
    assert LocalPostgres(server_dir).pid() is None
    assert "no server is running" in one_line_error(run_cli("db", "stop", "--dir", str(server_dir)))

    restarted = run_cli("db", "serve", "--dir", str(server_dir), "--detach")  # the same cluster, port and results
    assert restarted.stdout.strip() == url, restarted.output
    assert json.loads(run_cli("db", "info", "--db", url, "--json").stdout)["runs"] == 2


def test_a_taken_port_is_one_line(server_dir: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        line = one_line_error(run_cli("db", "serve", "--dir", str(server_dir), "--port", str(port), "--detach"))
    assert line == f"error: port {port} on 127.0.0.1 is taken; choose another with --port"


def test_missing_binaries_name_the_debian_package(server_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_server.shutil, "which", lambda _name: None)
    monkeypatch.setattr(postgres_server, "INSTALL_ROOT", server_dir / "nothing-installed")
    line = one_line_error(run_cli("db", "serve", "--dir", str(server_dir)))
    assert line == "error: PostgreSQL is not installed: initdb and pg_ctl not found (Debian/Ubuntu: apt-get install postgresql)"


@pytest.mark.skipif(os.geteuid() != 0, reason="as root only: the server then runs as postgres")
def test_a_folder_the_server_user_cannot_enter_is_one_line(server_dir: Path) -> None:
    os.chmod(server_dir.parent, 0o700)
    assert "who cannot reach this folder" in one_line_error(run_cli("db", "serve", "--dir", str(server_dir)))


def test_a_folder_holding_something_else_is_refused(server_dir: Path) -> None:
    (server_dir / "data").mkdir(parents=True)
    (server_dir / "data" / "notes.txt").write_text("mine")
    assert "not empty and not a PostgreSQL cluster" in one_line_error(run_cli("db", "serve", "--dir", str(server_dir)))
    assert (server_dir / "data" / "notes.txt").read_text() == "mine"


def test_serve_in_the_foreground_stops_the_server_on_ctrl_c(server_dir: Path) -> None:
    proc = subprocess.Popen([*PBENCH, "db", "serve", "--dir", str(server_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("postgresql+psycopg://"), proc.stderr.read()  # type: ignore[union-attr]
        pid = LocalPostgres(server_dir).pid()
        assert pid is not None
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err and err.strip().endswith("stopped"), err
    assert LocalPostgres(server_dir).pid() is None


def test_info_of_a_sqlite_file_and_of_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert run_cli("sweep", "--data", str(MINI), "--models", "scripted:passive", "--db", str(db)).exit_code == 0
    info = json.loads(run_cli("db", "info", "--db", str(db), "--json").stdout)
    assert (info["dialect"], info["revision"], info["runs"], info["sessions"]) == ("sqlite", head_revision(), 1, 3)
    assert (
        one_line_error(run_cli("db", "info", "--db", str(tmp_path / "none.db"))) == f"error: no results database at {tmp_path / 'none.db'}"
    )
    assert not (tmp_path / "none.db").exists()
