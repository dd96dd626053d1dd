"""Debuggable agents: a broken agent file is one line with file:line and writes no row; an agent that raises is
stored with its type, message and own frames, summarised in one line, shown in full with -v and in the report."""

from __future__ import annotations

import inspect
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from proactive_bench.store import AgentErrorRow, Store
from tests.helpers import crashing_agent
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI

RAISING_AGENT = """\
class Agent:
    def start_session(self, ctx):
        self.notes = {}

    def respond(self, message):
        return self.lookup(message)

    def lookup(self, message):
        return self.notes["missing"]

    def end_session(self):
        pass
"""

BROKEN = {
    "syntax": ("class Agent:\n    def respond(self, m)\n        return m\n", "syntax.py:2: SyntaxError: expected ':'"),
    "imports": (
        "import json\nimport pbench_no_such_lib_xyz\n",
        "imports.py:2: ModuleNotFoundError: No module named 'pbench_no_such_lib_xyz'",
    ),
    "raises": ("SETTING = 1\nraise RuntimeError('bad setting')\n", "raises.py:2: RuntimeError: bad setting"),
}


def runs_in(db: Path) -> int:
    if not db.exists():
        return 0
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("select count(*) from run").fetchone()[0])


def run_agent(command: str, agent: str, db: Path, *extra: str) -> object:
    if command == "episode":
        return run_cli("episode", "--data", str(MINI), "--persona", "mini", "--agent", agent, "--db", str(db), *extra)
    return run_cli("sweep", "--data", str(MINI), "--agent", agent, "--db", str(db), *extra)


def one_error_line(result: object) -> str:
    assert isinstance(result.exception, SystemExit) and result.exit_code == 2, result.output  # type: ignore[attr-defined]
    lines = result.output.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output  # type: ignore[attr-defined]
    return lines[0]


@pytest.mark.parametrize("command", ["episode", "sweep"])
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_agent_file_is_one_line_with_file_and_line_and_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, kind: str
) -> None:
    source, expected = BROKEN[kind]
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"{kind}.py").write_text(source)
    line = one_error_line(run_agent(command, f"{kind}.py:Agent", tmp_path / "r.db"))
    assert line == f"error: cannot import scaffold module '{kind}.py': {expected}"
    assert runs_in(tmp_path / "r.db") == 0


@pytest.mark.parametrize("command", ["episode", "sweep"])
@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("no_such_file.py:Agent", "scaffold file not found: no_such_file.py"),
        ("agent.py:Agnet", "module 'agent.py' has no attribute 'Agnet'"),
        ("scripted:referenc", "unknown scripted baseline 'scripted:referenc'"),
        ("pbench_no_such_pkg.agents:Agent", "ModuleNotFoundError: No module named 'pbench_no_such_pkg'"),
    ],
)
def test_a_model_typo_leaves_no_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, model: str, expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(RAISING_AGENT)
    Store(tmp_path / "r.db")  # an existing results database stays without rows
    assert expected in one_error_line(run_agent(command, model, tmp_path / "r.db"))
    assert runs_in(tmp_path / "r.db") == 0


def test_replay_of_a_run_whose_agent_file_broke_since_is_one_line_and_adds_no_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(RAISING_AGENT)
    db = tmp_path / "r.db"
    assert run_agent("episode", "agent.py:Agent", db, "--sessions", "1").exit_code == 1  # type: ignore[attr-defined]
    run_id = _only_run(db)
    (tmp_path / "agent.py").write_text(BROKEN["syntax"][0])
    assert "agent.py:2: SyntaxError" in one_error_line(run_cli("replay", run_id, "--db", str(db)))
    assert runs_in(db) == 1


def _only_run(db: Path) -> str:
    with closing(sqlite3.connect(db)) as conn:
        (run_id,) = conn.execute("select id from run").fetchone()
    return str(run_id)


def test_an_agent_raising_in_respond_is_stored_with_its_own_frames_and_shown_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(RAISING_AGENT)
    db = tmp_path / "r.db"
    result = run_agent("episode", "agent.py:Agent", db, "--sessions", "1")
    assert result.exit_code == 1, result.output  # type: ignore[attr-defined]
    assert "a1: agent failed at turn 1: KeyError: 'missing' (agent.py:9 in lookup)" in result.output.splitlines()  # type: ignore[attr-defined]
    assert "Traceback" not in result.output and "agent.py:6 in respond" not in result.output  # type: ignore[attr-defined]
    store = Store(db)
    (session_run,) = store.session_runs(_only_run(db))
    assert session_run.error == "agent failed at turn 1: KeyError: 'missing' (agent.py:9 in lookup)"
    (stored,) = store.rows(AgentErrorRow, session_run.id)
    assert (stored.turn, stored.type, stored.message) == (1, "KeyError", "'missing'")
    agent_file = str((tmp_path / "agent.py").resolve())
    assert [(f["file"], f["line"], f["function"], f["code"]) for f in stored.frames] == [
        (agent_file, 6, "respond", "return self.lookup(message)"),
        (agent_file, 9, "lookup", 'return self.notes["missing"]'),
    ]  # pbench's own frames (the session graph, call_respond) are cut away

    verbose = run_agent("episode", "agent.py:Agent", tmp_path / "v.db", "--sessions", "1", "-v")
    assert f"  {agent_file}:6 in respond\n    return self.lookup(message)\n  {agent_file}:9 in lookup" in verbose.output  # type: ignore[attr-defined]

    report = run_cli("report", _only_run(db), "--db", str(db), "--out", str(tmp_path / "report.html"))
    assert report.exit_code == 0, report.output
    html = (tmp_path / "runs" / f"{_only_run(db)}.html").read_text()  # the run's page holds its session views
    assert "KeyError raised in the agent's code (2 frame(s)" in html
    assert f"{agent_file}:9 in lookup\n    return self.notes[&#34;missing&#34;]" in html


def test_an_agent_failing_to_start_a_session_is_stored_at_turn_0(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    result = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--model", "test:crashing-reference", "--db", str(db))
    assert result.exit_code == 1, result.output
    line = inspect.getsourcelines(crashing_agent.CrashingReference.start_session)[1] + 2  # the raise
    summary = f"agent failed to start the session: ConnectionError: model endpoint refused the connection (crashing_agent.py:{line} in start_session)"
    assert f"a3: {summary}" in result.output.splitlines()
    store = Store(db)
    failed = [sr for sr in store.session_runs(_only_run(db)) if sr.error]
    assert [(sr.session_id, sr.error) for sr in failed] == [("a3", summary)]
    (stored,) = store.rows(AgentErrorRow, failed[0].id)
    assert (stored.turn, stored.type, [f["function"] for f in stored.frames]) == (0, "ConnectionError", ["start_session"])


def test_a_database_from_before_agent_errors_opens_and_gets_the_table(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    Store(db).close_connections()
    with closing(sqlite3.connect(db)) as conn, conn:  # as the revision before agent errors left it
        conn.execute("drop table agenterror")
        conn.execute("alter table sessionrun drop column steps")  # revision 0005, after it
        conn.execute("alter table run drop column agent")  # revision 0006
        conn.execute("update alembic_version set version_num = '0003'")
    Store(db)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("select count(*) from agenterror").fetchone() == (0,)


def test_resume_of_a_finished_sweep_says_so_and_does_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert run_cli("sweep", "--data", str(MINI), "--models", "scripted:reference", "--db", str(db)).exit_code == 0
    with closing(sqlite3.connect(db)) as conn:
        (sweep_id,) = conn.execute("select id from sweep").fetchone()
        before = conn.execute("select count(*) from sessionrun").fetchone()
    result = run_cli("resume", sweep_id, "--db", str(db), "--json")
    assert (
        result.exit_code == 0
        and result.output.strip() == f"sweep {sweep_id} is finished; nothing to resume (pbench results {sweep_id} shows it)"
    )
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("select count(*) from sessionrun").fetchone() == before
