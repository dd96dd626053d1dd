"""Resume after SIGKILL, and replay of a recorded run with the model server gone."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, func, select

from proactive_bench.dataset.loading import load_episode
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.store import (
    Grade,
    IntentEvent,
    LLMCall,
    MessageRow,
    SessionRun,
    Store,
    ToolCallRow,
)
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
)
from tests.helpers.admitted import admit_unchanged
from tests.helpers.cli import PBENCH, run_cli, stub_server_args
from tests.helpers.once import once_per_run
from tests.helpers.paths import DATA, MINI
from tests.helpers.stub_models import FakeUserModel, agent_model

EPISODE = ["episode", "--persona", "pharmacist", "--model", "scripted:passive", "--json"]
"""Its runs find the episode admitted (:func:`admit_unchanged`): their subject is the kill and the resume, not the data's checks."""


def outcome(out: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What must not change between an uninterrupted and a resumed run."""
    return [(s["session_id"], s["status"], s["turns"], s["completed"], s["inferred"], s["provided"], s["comp"]) for s in out["sessions"]]


def row_counts(db: Path, run_id: str) -> dict[str, int]:
    store = Store(db)
    with Session(store.engine) as s:
        ids = [sr.id for sr in s.exec(select(SessionRun).where(SessionRun.run_id == run_id))]
        counts = {"sessionrun": len(ids)}
        for table in (MessageRow, ToolCallRow, IntentEvent, Grade):
            counts[table.__name__] = s.exec(select(func.count()).select_from(table).where(table.session_run_id.in_(ids))).one()  # type: ignore[attr-defined]
    return counts


def only_run(db: Path) -> str:
    store = Store(db)
    with Session(store.engine) as s:
        (run_id,) = s.exec(select(SessionRun.run_id).distinct()).all()
    return run_id


def uninterrupted_episode(factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, int]]:
    """:data:`EPISODE` played whole (in this process: a new interpreter would only add its imports): what it prints
    (``--json``) and its rows per table; played once per test run (the SIGTERM test in
    tests/reliability/test_interrupts.py compares against it too)."""

    def play(folder: Path) -> tuple[dict[str, Any], dict[str, int]]:
        db = folder / "r.db"
        admit_unchanged(folder, DATA, ["pharmacist"], factory)
        done = run_cli(*EPISODE, "--db", str(db))
        assert done.exit_code == 0, done.output
        printed = json.loads(done.stdout)
        return printed, row_counts(db, printed["run_id"])

    return once_per_run(factory, "pharmacist-passive-episode", play)


@pytest.mark.heavy
def test_sigkill_at_random_points_then_resume_gives_identical_results(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    expected, expected_rows = uninterrupted_episode(tmp_path_factory)
    rng = random.Random(7)
    resumed_some = 0
    for attempt in range(3):
        db = tmp_path / f"k{attempt}" / "r.db"
        admit_unchanged(db.parent, DATA, ["pharmacist"], tmp_path_factory)
        proc = subprocess.Popen([*PBENCH, *EPISODE, "--db", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (db.exists() and _finished_sessions(db) >= 1 + attempt):
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        run_id = only_run(db)
        resumed = run_cli("resume", run_id, "--db", str(db), "--json")  # in this process: what the kill left is all it reads
        assert resumed.exit_code == 0, resumed.output
        out = json.loads(resumed.stdout)
        assert outcome(out) == outcome(expected)
        assert (out["proc"], out["comp"]) == (expected["proc"], expected["comp"])
        assert row_counts(db, run_id) == expected_rows
        resumed_some += 1
    assert resumed_some == 3


def _finished_sessions(db: Path) -> int:
    """Read-only peek (never creates tables or locks) at how many sessions the child finished."""
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)) as conn:
            return int(conn.execute("select count(*) from sessionrun where status = 'completed'").fetchone()[0])
    except sqlite3.Error:  # not created yet, or mid-creation
        return 0


def test_replay_with_the_server_stopped_gives_identical_decisions(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    fake = FakeUserModel()

    def respond(body: dict[str, Any]) -> Reply:
        return fake(body) if body["model"].startswith("stub-") else agent_model(body)

    with StubServer(respond) as server:
        first = run_cli(
            "episode",
            "--json",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            "openai:agent",
            "--db",
            str(db),
            *stub_server_args(server.base_url),
        )
        live_requests = len(server.requests)
    assert first.exit_code == 0, first.output
    recorded = json.loads(first.stdout)
    replayed = run_cli("replay", recorded["run_id"], "--db", str(db), "--json")
    assert replayed.exit_code == 0, replayed.output
    again = json.loads(replayed.stdout)
    assert again["run_id"] != recorded["run_id"] and live_requests > 0
    assert outcome(again) == outcome(recorded)
    store = Store(db)
    grades = {
        rid: [(g.item_id, g.score, g.rationale) for sr in store.session_runs(rid) for g in store.rows(Grade, sr.id)]
        for rid in (recorded["run_id"], again["run_id"])
    }
    assert grades[recorded["run_id"]] == grades[again["run_id"]]
    labels = {
        rid: [(e.intent_id, e.status, e.turn) for sr in store.session_runs(rid) for e in store.rows(IntentEvent, sr.id)] for rid in grades
    }
    assert labels[recorded["run_id"]] == labels[again["run_id"]]
    calls = [c for sr in store.session_runs(again["run_id"]) for c in store.rows(LLMCall, sr.id)]
    assert calls and all(c.cached for c in calls)


def test_replay_of_a_run_with_different_data_fails_clearly(tmp_path: Path, mini_copy: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(agent_model) as server:
        first = run_cli(
            "episode",
            "--json",
            "--data",
            str(mini_copy),
            "--persona",
            "mini",
            "--model",
            "openai:agent",
            "--db",
            str(db),
            "--base-url",
            server.base_url,
            "--sessions",
            "a1",
        )
    run_id = json.loads(first.stdout)["run_id"]
    session = mini_copy / "episodes" / "mini" / "sessions" / "a1.yaml"
    session.write_text(session.read_text().replace("Can you summarise notes/batch.csv for me?", "Summarise notes/batch.csv, please."))
    replayed = run_cli("replay", run_id, "--db", str(db), "--json")
    assert replayed.exit_code == 1
    (s,) = json.loads(replayed.stdout)["sessions"]
    assert s["status"] == "error" and "no recorded answer" in s["error"]


def test_a_run_killed_in_its_first_session_starts_over_from_the_seed(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    clean = json.loads(
        run_cli("episode", "--json", "--persona", "mini", "--model", "scripted:reference", "--data", str(MINI), "--db", str(db)).stdout
    )
    store = Store(db)
    run = start_run(store, load_episode(MINI, "mini"), RunSpec(persona="mini", model="scripted:reference", data_root=str(MINI)), tmp_path)
    leftover = Path(run.workspace) / "out" / "half-written.md"  # what the killed first session left behind
    leftover.parent.mkdir(parents=True)
    leftover.write_text("partial")
    assert run.status == "created"
    resumed = run_cli("resume", run.id, "--db", str(db), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert outcome(json.loads(resumed.stdout)) == outcome(clean)
    assert not leftover.exists() and Store(db).run(run.id).status == "finished"
