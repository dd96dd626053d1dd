"""Ctrl-C and SIGTERM with real processes: a clean stop (one line, no traceback, runs interrupted, lease released), then resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.store import pid_alive
from tests.episode.test_resume_replay import EPISODE, _finished_sessions, outcome, uninterrupted_episode
from tests.helpers.cli import PBENCH, run_cli
from tests.reliability.test_run_lock import SWEEP, children, only_sweep, sweep_outcome, table_counts, uninterrupted  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.usefixtures("admitted_pharmacist"),  # the signals are the subject here, not the data's checks at the door
]


def _as_from_a_terminal() -> None:
    """In the child: its own process group (a terminal's Ctrl-C reaches the whole group) and SIGINT not ignored."""
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(
    command: list[str], db: Path, after_sessions: int, signum: int, *, group: bool, repeat: int = 1
) -> tuple[int, str, list[int]]:
    """Run pbench on ``db``; once ``after_sessions`` are saved send ``signum`` (to its process group, as a terminal
    does, when ``group``), ``repeat`` times 0.3 s apart. Its exit code, its stderr and the workers it had."""
    db.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [*PBENCH, *command, "--db", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _finished_sessions(db) < after_sessions and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "it ended before it could be interrupted"
    workers = children(proc.pid)
    for n in range(repeat):
        if n:
            time.sleep(0.3)  # a second Ctrl-C, during the clean-up
        if proc.poll() is None:
            (os.killpg if group else os.kill)(proc.pid, signum)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err, workers


def statuses(db: Path) -> tuple[list[str], list[str], int]:
    """Sweep statuses, run statuses and held leases."""
    with closing(sqlite3.connect(db)) as conn:
        return (
            [s for (s,) in conn.execute("select status from sweep")],
            [s for (s,) in conn.execute("select status from run")],
            conn.execute("select count(*) from lease").fetchone()[0],
        )


def assert_one_clean_line(err: str, ident: str) -> None:
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    told = [line for line in err.splitlines() if "interrupt" in line.lower()]
    assert told == [f"interrupted; resume with: pbench resume {ident}"], err


def test_ctrl_c_twice_on_a_two_worker_sweep_stops_cleanly_and_resume_gives_the_uninterrupted_results(
    tmp_path: Path,
    uninterrupted: tuple[dict[Any, Any], dict[str, int]],  # noqa: F811 (the imported fixture, requested by name)
) -> None:
    db = tmp_path / "r.db"
    code, err, workers = interrupted(SWEEP, db, after_sessions=4, signum=signal.SIGINT, group=True, repeat=2)
    sweep_id = only_sweep(db)
    assert code == 130
    assert_one_clean_line(err, sweep_id)
    assert len(workers) == 2 and not any(pid_alive(w) for w in workers)
    assert statuses(db) == (["interrupted"], ["interrupted", "interrupted"], 0)
    kept = table_counts(db)["SessionRun"]
    assert 4 <= kept < 40

    resumed = subprocess.run([*PBENCH, "resume", sweep_id, "--db", str(db), "--json"], capture_output=True, text=True, timeout=180)
    assert resumed.returncode == 0, resumed.stderr
    assert (sweep_outcome(db), table_counts(db)) == uninterrupted
    assert statuses(db) == (["finished"], ["finished", "finished"], 0)


@pytest.mark.heavy
def test_sigterm_to_an_episode_stops_it_cleanly_and_resume_finishes_it(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    db = tmp_path / "r.db"
    code, err, _ = interrupted(EPISODE, db, after_sessions=3, signum=signal.SIGTERM, group=False)
    with closing(sqlite3.connect(db)) as conn:
        (run_id,) = conn.execute("select id from run").fetchone()
        saved = conn.execute("select count(*) from sessionrun").fetchone()[0]
    assert code == 143
    assert_one_clean_line(err, run_id)
    assert statuses(db) == ([], ["interrupted"], 0) and 3 <= saved < 20

    baseline, _ = uninterrupted_episode(tmp_path_factory)
    resumed = run_cli("resume", run_id, "--db", str(db), "--json")  # in this process: the stopped run's database is all it reads
    assert resumed.exit_code == 0, resumed.output
    assert outcome(json.loads(resumed.stdout)) == outcome(baseline)
    assert statuses(db) == ([], ["finished"], 0)

    again = run_cli("resume", run_id, "--db", str(db), "--json")
    assert again.exit_code == 0 and again.stdout == ""
    assert again.stderr.strip() == f"run {run_id} is finished; nothing to resume (pbench results {run_id} shows it)"
    assert table_counts(db)["SessionRun"] == 20
