"""``pbench view`` on the command line: it serves, and a missing database or a taken port is one line."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import urllib.request
from pathlib import Path

from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import MINI


def test_a_missing_database_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.db"
    result = run_cli("view", "--db", str(missing))
    assert result.exit_code == 2 and f"no results database at {missing}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not missing.exists()  # nothing made


def test_a_taken_port_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert run_cli("episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", str(db)).exit_code == 0
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = run_cli("view", "--db", str(db), "--port", str(port))
    assert result.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in result.stderr and "--port" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_it_serves_the_database_on_loopback_until_stopped(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    episode = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:passive", "--db", str(db))
    run_id = json.loads(episode.stdout)["run_id"]
    viewer = subprocess.Popen([*PBENCH, "view", "--db", str(db), "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert viewer.stderr is not None
        line = viewer.stderr.readline()
        found = re.search(r"pbench view: (http://127\.0\.0\.1:\d+/) \(results .*r\.db, read-only", line)
        assert found, line
        with urllib.request.urlopen(found[1] + f"runs/{run_id}", timeout=30) as page:
            assert page.status == 200 and f"Run <code>{run_id}</code>" in page.read().decode()
    finally:
        viewer.terminate()
        viewer.wait(timeout=30)
