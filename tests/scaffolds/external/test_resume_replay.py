"""Resume and replay of an external agent's run, with the shipped ``cmd:`` replay example on the pharmacist.

Resume: pbench killed (SIGKILL) between sessions and mid-session by the agent itself (tests/helpers/killing_agent.py),
then ``pbench resume`` goes on with a fresh agent process at the first unfinished session, and the figures and tool
calls come out as an uninterrupted run's. Replay: ``pbench replay`` of the run serves its recorded turns without
starting the agent, re-applies the recorded tool calls, and gives the same figures, tool calls and workspace;
a difference from the record is an error naming the session and the turn.
"""

from __future__ import annotations

import filecmp
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.admitted import admit_unchanged
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import DATA, HELPERS
from tests.helpers.reference_replay import EXAMPLES, Recording, agent_side, exported

SESSIONS = ["--data", str(DATA), "--persona", "pharmacist", "--sessions", "1-3"]
"""Run where the episode is admitted (:func:`admit_unchanged`): the subject is the agent's process, not the data's checks."""
IDS = ["s01_vanco_auc_review", "s02_dalbavancin_pt_review", "s03_oral_vanc_bud_worksheet"]


def outcome(result: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(s["session_id"], s["status"], s["turns"], s["completed"], s["inferred"], s["provided"], s["comp"]) for s in result["sessions"]]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """The in-process reference on the pharmacist's first three sessions, exported."""
    folder = tmp_path_factory.mktemp("reference")
    admit_unchanged(folder, DATA, ["pharmacist"], tmp_path_factory)
    result = run_cli("episode", "--json", *SESSIONS, "--agent", "scripted:reference", "--db", str(folder / "r.db"))
    assert result.exit_code == 0, result.output
    records = exported(folder / "r.db", json.loads(result.stdout)["run_id"], folder / "reference.jsonl")
    return folder / "reference.jsonl", records


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory, recording: Recording) -> tuple[Path, dict[str, Any], Path]:
    """The cmd: example's run of the three sessions, with the example copied to a folder of its own: (db, result, copy)."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    agents = folder / "agents"
    shutil.copytree(EXAMPLES, agents)
    db = folder / "r.db"
    admit_unchanged(folder, DATA, ["pharmacist"], tmp_path_factory)
    agent = f"cmd:{sys.executable} {agents / 'cmd_reference.py'} {recording[0]}"
    result = run_cli("episode", "--json", *SESSIONS, "--agent", agent, "--db", str(db))
    assert result.exit_code == 0, result.output
    return db, json.loads(result.stdout), agents


@pytest.mark.usefixtures("admitted_pharmacist")
@pytest.mark.parametrize("at", ["asked", "worked"])  # between sessions; mid-session, its tool calls made
def test_a_killed_run_resumes_with_a_fresh_agent_at_the_first_unfinished_session(
    tmp_path: Path, recording: Recording, uninterrupted: tuple[Path, dict[str, Any], Path], at: str
) -> None:
    db, log = tmp_path / "r.db", tmp_path / "sessions.log"
    agent = f"cmd:{sys.executable} {HELPERS / 'killing_agent.py'} {recording[0]} {log} {IDS[1]} 1 {at}"
    killed = subprocess.run(
        [*PBENCH, "episode", "--json", *SESSIONS, "--agent", agent, "--db", str(db)], capture_output=True, text=True, timeout=300
    )
    assert killed.returncode == -9, killed.stderr  # killed by its agent
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM run").fetchone()
        saved = [row[0] for row in conn.execute("SELECT session_id FROM sessionrun ORDER BY position")]
    assert saved == IDS[:1]  # the first session was saved before the kill
    resumed = run_cli("resume", run_id, "--db", str(db), "--json")
    assert resumed.exit_code == 0, resumed.output
    result = json.loads(resumed.stdout)
    _, expected, _ = uninterrupted
    assert outcome(result) == outcome(expected) and (result["proc"], result["comp"]) == (expected["proc"], expected["comp"]) == (1.0, 1.0)
    assert log.read_text().split() == [*IDS[:2], *IDS[1:]]  # the killed session starts again in a new process; s01 does not
    ours = exported(db, run_id, tmp_path / "resumed.jsonl")
    assert [agent_side(r) for r in ours] == [agent_side(r) for r in recording[1]]


@pytest.mark.usefixtures("admitted_pharmacist")
def test_a_replay_serves_the_recorded_turns_without_starting_the_agent(
    tmp_path: Path, uninterrupted: tuple[Path, dict[str, Any], Path]
) -> None:
    source_db, original, agents = uninterrupted
    db = tmp_path / "r.db"
    shutil.copy(source_db, db)
    shutil.rmtree(agents)  # the agent's program is gone: a replay must not need it
    replayed = run_cli("replay", original["run_id"], "--db", str(db), "--json")
    assert replayed.exit_code == 0, replayed.output
    result = json.loads(replayed.stdout)
    assert outcome(result) == outcome(original) and (result["proc"], result["comp"]) == (original["proc"], original["comp"])
    ours = exported(db, result["run_id"], tmp_path / "replayed.jsonl")
    theirs = exported(db, original["run_id"], tmp_path / "original.jsonl")
    assert [agent_side(r) for r in ours] == [agent_side(r) for r in theirs] and agent_side(ours[0])[0][0]
    same = filecmp.dircmp(source_db.parent / "workspaces" / original["run_id"], tmp_path / "workspaces" / result["run_id"])
    assert not (same.left_only or same.right_only or same.diff_files), (same.left_only, same.right_only, same.diff_files)


@pytest.mark.usefixtures("admitted_pharmacist")
@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        (
            "UPDATE message SET content = 'something else' WHERE role != 'agent' AND turn = 0 AND session_run_id = (SELECT id FROM sessionrun WHERE session_id = 's02_dalbavancin_pt_review' AND run_id = :run)",
            "replay of run {run}: session s02_dalbavancin_pt_review, turn 1: the agent is asked ",
        ),
        (
            "UPDATE toolcall SET result = json_object('content', 'not what it said') WHERE id = (SELECT MIN(t.id) FROM toolcall t JOIN sessionrun s ON s.id = t.session_run_id WHERE s.run_id = :run)",
            "replay of run {run}: session s01_vanco_auc_review, turn 1: ",
        ),
    ],
)
def test_a_replay_that_differs_from_the_record_is_an_error_naming_session_and_turn(
    tmp_path: Path, uninterrupted: tuple[Path, dict[str, Any], Path], tamper: str, expected: str
) -> None:
    source_db, original, _ = uninterrupted
    db = tmp_path / "r.db"
    shutil.copy(source_db, db)
    with sqlite3.connect(db) as conn:
        assert conn.execute(tamper, {"run": original["run_id"]}).rowcount == 1
    replayed = run_cli("replay", original["run_id"], "--db", str(db), "--json")
    assert replayed.exit_code == 1, replayed.output
    errors = [s["error"] for s in json.loads(replayed.stdout)["sessions"] if s["status"] == "error"]
    assert errors and expected.format(run=original["run_id"]) in errors[0], errors
    assert all("ReplayMismatchError: replay of run" in e for e in errors)  # a session after a diverged one diverges too, said so
