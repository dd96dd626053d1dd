"""``pbench gc``: deleting runs and removing what no run refers to, never what a remaining or live run uses."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.episode import archive_references, opened_checkpoint
from proactive_bench.reporting.html import render_report
from proactive_bench.store import Store, Sweep, writing
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import MINI


def count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(sql).fetchone()[0])


def checkpoint_files(store: Store, run_id: str) -> list[dict[str, str]]:
    run = store.run(run_id)
    assert run is not None
    files = []
    for position in range(4):
        with opened_checkpoint(store, run, position) as workspace:
            assert workspace is not None
            files.append({name: workspace.read_text(name) for name in workspace.files()})
    return files


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, str, str]:
    """A database with a passive run and a stuffer run of the mini episode (they share the seed files, not their outputs)."""
    db = tmp_path / "results" / "r.db"
    kept = run_episode_json("--persona", "mini", "--model", "scripted:passive", "--data", str(MINI), "--db", str(db))["run_id"]
    doomed = run_episode_json("--persona", "mini", "--model", "scripted:stuffer", "--data", str(MINI), "--db", str(db))["run_id"]
    return db, kept, doomed


def test_deleting_a_run_removes_only_what_no_other_run_uses(two_runs: tuple[Path, str, str]) -> None:
    db, kept, doomed = two_runs
    before = checkpoint_files(Store(db), kept)
    archives = count(db, "SELECT COUNT(*) FROM workspacearchive")
    planned = json.loads(run_cli("gc", "--db", str(db), "--runs", doomed, "--dry-run", "--json").stdout)
    assert planned["runs"] == [doomed] and planned["archives"] > 0
    assert count(db, "SELECT COUNT(*) FROM workspacearchive") == archives and count(db, "SELECT COUNT(*) FROM run") == 2  # nothing yet
    done = json.loads(run_cli("gc", "--db", str(db), "--runs", doomed, "--json").stdout)
    assert {k: v for k, v in done.items() if k != "dry_run"} == {k: v for k, v in planned.items() if k != "dry_run"}
    assert count(db, "SELECT COUNT(*) FROM workspacearchive") == archives - done["archives"]
    assert count(db, f"SELECT COUNT(*) FROM sessionrun WHERE run_id = '{doomed}'") == 0
    assert count(db, f"SELECT COUNT(*) FROM checkpoint WHERE run_id = '{doomed}'") == 0
    assert (
        count(db, "SELECT COUNT(*) FROM snapshot") == 3 * 5
        and count(db, "SELECT COUNT(*) FROM toolcall WHERE session_run_id NOT IN (SELECT id FROM sessionrun)") == 0
    )
    assert not (db.parent / "workspaces" / doomed).exists() and (db.parent / "workspaces" / kept).is_dir()
    store = Store(db)
    assert checkpoint_files(store, kept) == before  # every checkpoint of the remaining run still opens, file for file
    assert "a3" in "".join(render_report(store, kept).pages().values())
    again = json.loads(run_cli("gc", "--db", str(db), "--json").stdout)
    assert again["archives"] == again["sweeps"] == 0


def test_a_run_being_written_is_not_deleted(two_runs: tuple[Path, str, str]) -> None:
    db, _kept, doomed = two_runs
    store = Store(db)
    with writing(store, doomed, beat=False):  # a live writer (this process) holds the run's lease
        result = run_cli("gc", "--db", str(db), "--runs", doomed)
    assert result.exit_code == 3 and "not deleted" in result.output and result.output.count("\n") == 1
    assert store.run(doomed) is not None and count(db, f"SELECT COUNT(*) FROM sessionrun WHERE run_id = '{doomed}'") == 3
    assert run_cli("gc", "--db", str(db), "--runs", "no-such-run").exit_code == 2


def test_a_deleted_runs_answers_and_empty_sweeps_go_shared_caches_and_a_leased_sweep_stay(two_runs: tuple[Path, str, str]) -> None:
    db, kept, doomed = two_runs
    store = Store(db)
    for namespace in (f"{kept}/a1", f"{doomed}/a1", "odyssey-summaries/task-1"):  # the last: a cache runs share
        store.answers.add(namespace, "k", 1, "[]")
    store.add(Sweep(id="empty"), Sweep(id="starting"))
    with writing(store, "starting", beat=False):  # a sweep being started: its runs are not there yet
        done = json.loads(run_cli("gc", "--db", str(db), "--runs", doomed, "--json").stdout)
    assert done["sweeps"] == 1 and store.sweep("empty") is None and store.sweep("starting") is not None
    assert store.answers.keys(f"{doomed}/a1") == set()
    assert store.answers.keys(f"{kept}/a1") == store.answers.keys("odyssey-summaries/task-1") == {("k", 1)}


def test_collecting_holds_the_write_lock_from_its_first_statement(two_runs: tuple[Path, str, str]) -> None:
    """A session saved meanwhile lands wholly before the collection (its archives are reached) or after it (it stores them again)."""
    db, _kept, _doomed = two_runs
    attempts: list[str] = []

    def references(archive: bytes) -> Any:
        with sqlite3.connect(db, timeout=0) as other:
            try:
                other.execute("INSERT INTO sweep (id, created, status, config) VALUES ('x', '2026-01-01', 'running', '{}')")
            except sqlite3.OperationalError as exc:
                attempts.append(str(exc))
        return archive_references(archive)

    Store(db).collect_garbage(references)
    assert attempts and set(attempts) == {"database is locked"}
