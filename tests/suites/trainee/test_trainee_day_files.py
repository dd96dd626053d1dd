"""With ``--days 2``, each day's files and colleagues appear when that day starts: day 1 sees none of day 2's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from proactive_bench.env import Workspace
from proactive_bench.store import MessageRow, Store
from proactive_bench.suites.trainee import compose_scenario, play
from tests.helpers.cli import run_episode_json
from tests.helpers.paths import HELPERS

AGENTS = HELPERS / "trainee_agents.py"


@pytest.mark.parametrize("name", ["s2-n2", "s5-n5"])
def test_day_one_sees_no_file_or_colleague_of_day_two(tmp_path: Path, name: str) -> None:
    db = tmp_path / "pbench.db"
    summary = run_episode_json("--suite", "trainee", "--agent", f"{AGENTS}:WorkspaceLister", "--task", name, "--days", "2", "--db", str(db))
    store = Store(db)
    seen = {}
    for session in store.session_runs(summary["runs"][0]["run_id"]):
        [reply] = [m.content for m in store.rows(MessageRow, session.id) if m.role == "agent"]
        seen[session.session_id] = json.loads(reply)
    scenario = compose_scenario(name, 2)
    files = [{p for t in day.tasks for p in t.draft.files} for day in scenario.days]
    handles = [{n.handle for n in day.npcs} for day in scenario.days]
    assert files[0] and files[1] and not files[0] & files[1]
    day1, day2 = seen["day1"], seen["day2"]
    assert set(day1["listed"]) == set(day1["globbed"]) == files[0]  # day 1's files, and nothing of day 2
    assert set(day1["contacts"]) == handles[0]
    assert set(day2["listed"]) == set(day2["globbed"]) == files[0] | files[1]  # day 2's arrive; day 1's work stays
    assert handles[1] <= set(day2["contacts"])


def test_the_offline_player_places_each_day_when_it_starts() -> None:
    """``pbench validate``'s player: the oracle still scores 1.0 on both days with day 2's files placed only on day 2."""
    scenario = compose_scenario("s4-n3", 2)
    assert [d.figures.checkpoint_score for d in play(scenario, "reference")] == [1.0, 1.0]


def test_files_placed_later_replace_a_link_left_in_their_way(tmp_path: Path) -> None:
    """An agent that plants a symlink where a later day's file goes cannot make the placement write outside the workspace."""
    outside = tmp_path / "outside.txt"
    outside.write_text("host file")
    workspace = Workspace(tmp_path / "ws")
    (workspace.root / "day2").mkdir()
    os.symlink(outside, workspace.root / "day2" / "notes.txt")
    seed = tmp_path / "seed"
    (seed / "day2").mkdir(parents=True)
    (seed / "day2" / "notes.txt").write_text("day two notes")
    workspace.place(seed)
    assert outside.read_text() == "host file"
    placed = workspace.root / "day2" / "notes.txt"
    assert not placed.is_symlink() and placed.read_text() == "day two notes"


def test_files_placed_later_replace_a_folder_or_hard_link_in_their_way(tmp_path: Path) -> None:
    """Whatever the agent left at a later day's path (a folder, a hard link to another file) gives way; nothing else changes."""
    workspace = Workspace(tmp_path / "ws")
    workspace.write_text("day2/report.txt/inner.txt", "a folder where a file goes")
    workspace.write_text("mine.txt", "the agent's own file")
    os.link(workspace.root / "mine.txt", workspace.root / "day2" / "sheet.csv")
    seed = tmp_path / "seed"
    (seed / "day2").mkdir(parents=True)
    (seed / "day2" / "report.txt").write_text("the report")
    (seed / "day2" / "sheet.csv").write_text("a,b")
    workspace.place(seed)
    assert workspace.read_text("day2/report.txt") == "the report" and workspace.read_text("day2/sheet.csv") == "a,b"
    assert workspace.read_text("mine.txt") == "the agent's own file"
