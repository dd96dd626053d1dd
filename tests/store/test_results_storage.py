"""Small results: what a reference run adds to the database, delta snapshots rebuilt exactly, and databases written before compression."""

from __future__ import annotations

import gzip
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from proactive_bench.env import expand_snapshot
from proactive_bench.episode import opened_checkpoint
from proactive_bench.reporting.html import render_report
from proactive_bench.store import Run, SessionRun, Snapshot, Store, ToolCallRow, pending_row
from proactive_bench.store.snapshots import CHAIN
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.paths import DATA, LEGACY_DBS

LEGACY = LEGACY_DBS / "main-644e5c8.db.gz"
LEGACY_RUN = "f151ec7dbbe4"
KINDS = ("workspace", "memory", "apps", "apps_start", "burden")


def database_bytes(db: Path) -> int:
    """The database file plus its WAL, after folding the WAL in (what the results cost on disk)."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def snapshots(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every session's snapshots, the workspace listing made whole (a resumed run lists it whole once, an uninterrupted one as a delta)."""
    found: list[dict[str, Any]] = []
    listing: dict[str, Any] = {}
    for session_run in store.session_runs(run_id):
        assert session_run.id is not None
        found.append({kind: store.snapshot(session_run.id, kind) for kind in KINDS})
        listing = found[-1]["workspace"] = expand_snapshot(listing, found[-1]["workspace"])
        if found[-1]["burden"] is not None:  # fields the burden gained since a row was written read as their defaults
            found[-1]["burden"] = {"reasked": 0} | found[-1]["burden"]
    return found


@pytest.mark.usefixtures("admitted_pharmacist")
def test_a_twenty_session_reference_run_adds_at_most_one_megabyte(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    out = run_episode_json("--persona", "pharmacist", "--model", "scripted:reference", "--db", str(db))
    assert len(out["sessions"]) == 20
    size = database_bytes(db)
    assert size <= 1_000_000, f"{size:,} bytes"  # main before compression and deltas: 3.5 MB
    with sqlite3.connect(db) as conn:
        deltas = conn.execute("SELECT COUNT(*), MAX(LENGTH(content)) FROM snapshot WHERE kind = 'apps' AND base IS NOT NULL").fetchone()
        compressed = conn.execute("SELECT COUNT(*) FROM workspacearchive WHERE codec = 'zstd'").fetchone()[0]
    assert deltas[0] >= 20 - 20 // CHAIN - 1 and deltas[1] < 4_000  # a 45 kB app state that a session changed: a small delta
    assert compressed > 50


@pytest.mark.usefixtures("admitted_pharmacist")
def test_a_three_run_sweep_adds_at_most_two_megabytes(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    result = run_cli("sweep", "--models", "scripted:reference", "--personas", "pharmacist", "--runs", "3", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    size = database_bytes(db)
    assert size <= 2_000_000, f"{size:,} bytes"
    with sqlite3.connect(db) as conn:  # the runs' workspaces hold the same files: each content is stored once
        (contents,) = conn.execute("SELECT COUNT(*) FROM workspacearchive").fetchone()
        (files,) = conn.execute("SELECT COUNT(DISTINCT run_id) FROM checkpoint").fetchone()
    assert files == 3 and contents < 3 * 100


def test_delta_snapshots_are_rebuilt_exactly_over_many_sessions(tmp_path: Path) -> None:
    store = Store(tmp_path / "d.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".")
    store.add(run)
    rng = random.Random(7)
    state: dict[str, Any] = {"tasks": [{"id": n, "title": f"task {n}", "done": False} for n in range(300)], "clock": 0}
    saved: list[dict[str, Any]] = []
    for position in range(1, 2 * CHAIN + 4):
        state = json.loads(json.dumps(state))
        state["clock"] += 3600
        state["tasks"][rng.randrange(300)]["done"] = True
        state["tasks"].append({"id": 300 + position, "title": "ünïcode ✓ " * position, "done": None})
        saved.append(state)
        session_run = SessionRun(run_id=run.id, session_id=f"s{position}", position=position, status="completed")
        store.save_session(
            session_run, [pending_row(Snapshot, kind="apps", content=state), pending_row(Snapshot, kind="memory", content={})], {}
        )
    sessions = store.session_runs(run.id)
    assert [store.snapshot(s.id, "apps") for s in sessions] == saved
    assert store.latest_snapshot(run.id, "apps") == saved[-1] and store.snapshot(sessions[0].id, "memory") == {}
    rows = [row for s in sessions for row in store.rows(Snapshot, s.id) if row.kind == "apps"]
    assert [row.base is None for row in rows].count(True) == 3  # a whole one starts each chain of CHAIN
    assert all(len(row.content) < 400 for row in rows if row.base is not None)  # about 20 kB of JSON each


def test_a_session_with_two_snapshots_of_one_kind_is_refused_and_nothing_of_it_is_saved(tmp_path: Path) -> None:
    """Snapshot ids are matched to their rows by kind (one INSERT, no row order): the unique key keeps a kind once per session."""
    store = Store(tmp_path / "k.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".")
    store.add(run)
    twice = [pending_row(Snapshot, kind="apps", content={"a": 1}), pending_row(Snapshot, kind="apps", content={"a": 2})]
    with pytest.raises(IntegrityError, match="UNIQUE"):
        store.save_session(SessionRun(run_id=run.id, session_id="s1", position=1), twice, {})
    assert store.session_runs(run.id) == []


@pytest.mark.usefixtures("admitted_pharmacist")
def test_resume_rescore_and_report_see_the_same_state_as_an_uninterrupted_run(tmp_path: Path) -> None:
    whole = run_episode_json(
        "--persona", "pharmacist", "--model", "scripted:reference", "--sessions", "1-4", "--db", str(tmp_path / "a.db")
    )
    db = tmp_path / "b.db"
    cut = run_episode_json("--persona", "pharmacist", "--model", "scripted:reference", "--sessions", "1-4", "--db", str(db))
    store = Store(db)
    run = store.run(cut["run_id"])
    assert run is not None
    for session_run in reversed(store.session_runs(run.id)[2:]):  # a later session's snapshots are deltas on an earlier one's
        store.delete_session_run(session_run)  # as if killed during session 3
    store.update(run, status="running")
    resumed = run_cli("resume", run.id, "--db", str(db), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["sessions"] == whole["sessions"]
    assert snapshots(store, run.id) == snapshots(Store(tmp_path / "a.db"), whole["run_id"])
    rescored = run_cli("rescore", run.id, "--db", str(db), "--json")
    assert rescored.exit_code == 0, rescored.output
    assert [s["comp"] for s in json.loads(rescored.stdout)["sessions"]] == [s["comp"] for s in whole["sessions"]]
    assert "s04_" in "".join(render_report(store, run.id).pages().values())


@pytest.fixture
def legacy_db(tmp_path: Path) -> Path:
    """The database main wrote at 644e5c8 (before compression and deltas): pharmacist sessions 1-3 by scripted:reference,
    session 3 deleted as if killed during it; its paths moved to this checkout and this test's folder."""
    db = tmp_path / "legacy.db"
    db.write_bytes(gzip.decompress(LEGACY.read_bytes()))
    with sqlite3.connect(db) as conn:
        config = json.loads(conn.execute("SELECT config FROM run WHERE id = ?", (LEGACY_RUN,)).fetchone()[0])
        config["data_root"] = str(DATA)
        conn.execute(
            "UPDATE run SET data_root = ?, workspace = ?, config = ? WHERE id = ?",
            (str(DATA), str(tmp_path / "workspaces" / LEGACY_RUN), json.dumps(config), LEGACY_RUN),
        )
    return db


@pytest.mark.usefixtures("admitted_pharmacist")
def test_a_database_written_before_compression_opens_resumes_rescores_and_reports(legacy_db: Path, tmp_path: Path) -> None:
    with sqlite3.connect(legacy_db) as conn:
        assert "base" not in {row[1] for row in conn.execute("PRAGMA table_info(snapshot)")}
    store = Store(legacy_db)  # adds the new columns; the old rows stay as they were written
    old = snapshots(store, LEGACY_RUN)
    fresh = run_episode_json(
        "--persona", "pharmacist", "--model", "scripted:reference", "--sessions", "1-3", "--db", str(tmp_path / "new.db")
    )
    new_store = Store(tmp_path / "new.db")
    assert old == snapshots(new_store, fresh["run_id"])[:2]  # old JSON rows and new deltas: the same state
    partial = json.loads(run_cli("results", LEGACY_RUN, "--db", str(legacy_db), "--format", "json", "--include-partial").stdout)
    assert partial["runs"][0]["failures"]["not_run"] == 1
    run = store.run(LEGACY_RUN)
    assert run is not None
    with opened_checkpoint(store, run, 2) as workspace:  # files stored raw before compression
        assert workspace is not None and workspace.files()
    resumed = run_cli("resume", LEGACY_RUN, "--db", str(legacy_db), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["sessions"] == fresh["sessions"]
    assert snapshots(store, LEGACY_RUN) == snapshots(new_store, fresh["run_id"])  # session 3's deltas on old-layout bases
    rescored = run_cli("rescore", LEGACY_RUN, "--db", str(legacy_db), "--json")
    assert rescored.exit_code == 0, rescored.output
    assert [s["comp"] for s in json.loads(rescored.stdout)["sessions"]] == [s["comp"] for s in fresh["sessions"]]
    report = run_cli("report", LEGACY_RUN, "--db", str(legacy_db), "--out", str(tmp_path / "r.html"))
    assert report.exit_code == 0, report.output
    assert "s03_oral_vanc_bud_worksheet" in "".join(page.read_text() for page in tmp_path.rglob("*.html"))


def test_tool_results_written_before_compression_read_as_written(legacy_db: Path) -> None:
    with sqlite3.connect(legacy_db) as conn:
        (text,) = conn.execute("SELECT result FROM toolcall WHERE tool_name = 'read_file' LIMIT 1").fetchone()
    store = Store(legacy_db)
    first = store.session_runs(LEGACY_RUN)[0]
    from_store = [row.result for row in store.rows(ToolCallRow, first.id)]
    assert json.loads(text) in from_store


def test_recorded_answers_are_compressed_and_old_text_rows_read_as_written(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    store = Store(db)
    long = json.dumps([{"text": "The AUC is 512 mg·h/L; the trough is 14 mg/L. " * 40}])
    store.answers.add("r1/s1", "long", 1, long)
    store.answers.add("r1/s1", "short", 1, "[]")
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO modelcall_cache (namespace, key, occurrence, generations) VALUES ('r0/s1', 'old', 1, '[\"as written\"]')")
        stored = dict(conn.execute("SELECT key, generations FROM modelcall_cache").fetchall())
    assert isinstance(stored["long"], bytes) and len(stored["long"]) < len(long) / 5 and stored["short"] == "[]"
    assert store.answers.generations("r1/s1", "long", 1) == long and store.answers.generations("r1/s1", "short", 1) == "[]"
    assert store.answers.generations("r0/s1", "old", 1) == '["as written"]'
