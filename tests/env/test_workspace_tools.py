"""The workspace path jail and the recording tool wrapper."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import PathEscapeError, Workspace, expand_snapshot


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    (tmp_path / "outside.txt").write_text("secret")
    ws = Workspace.seeded(tmp_path / "ws", None)
    return ToolBox(ToolEnv(ws, Memory()), resolve_tool_names([]))


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "a/../../outside.txt", "~/x", "..", "a\x00b"])
def test_paths_outside_the_workspace_are_refused(box: ToolBox, path: str) -> None:
    record = box.call("read_file", {"path": path})
    assert not record.ok and "secret" not in str(record.result)
    with pytest.raises(PathEscapeError):
        box.env.workspace.resolve(path)


def test_symlink_pointing_out_is_refused(box: ToolBox, tmp_path: Path) -> None:
    os.symlink(tmp_path / "outside.txt", box.env.workspace.root / "link.txt")
    record = box.call("read_file", {"path": "link.txt"})
    assert not record.ok and "leaves the workspace" in record.result["error"]
    assert box.env.workspace.glob_files("*.txt") == []


def test_write_edit_read_list_are_recorded(box: ToolBox) -> None:
    assert box.call("write_file", {"path": "r/a.md", "content": "one two"}).ok
    assert box.call("edit_file", {"path": "r/a.md", "old": "two", "new": "three"}).ok
    read = box.call("read_file", {"path": "r/a.md"})
    assert read.result == {"response": "one three"}
    assert box.call("list_dir", {"path": "r"}).result == {"response": ["a.md"]}
    assert [r.tool_name for r in box.records] == ["write_file", "edit_file", "read_file", "list_dir"]
    assert read.as_pibench() == {"tool_name": "read_file", "call": {"path": "r/a.md"}, "result": {"response": "one three"}, "ok": True}


def test_errors_are_results_not_exceptions(box: ToolBox) -> None:
    box.call("write_file", {"path": "a.md", "content": "x x"})
    assert "occurs 2 times" in box.call("edit_file", {"path": "a.md", "old": "x", "new": "y"}).result["error"]
    assert "invalid arguments: content: Field required" in box.call("write_file", {"path": "b.md"}).result["error"]
    assert box.call("teleport", {}).result == {"error": "unknown tool 'teleport'"}
    assert "no memory note" in box.call("memory_read", {"key": "nope"}).result["error"]


def test_memory_tools_and_snapshots(box: ToolBox) -> None:
    box.call("memory_write", {"key": "fmt", "text": "tables in Markdown"})
    assert box.call("memory_read", {}).result == {"response": {"fmt": "tables in Markdown"}}
    ws = box.env.workspace
    ws.write_text("keep.md", "v1")
    ws.write_text("gone.md", "v1")
    first = ws.snapshot()
    ws.write_text("extra.md", "new")
    (ws.root / "gone.md").unlink()
    second = ws.snapshot()
    assert first["keep.md"]["text"] == "v1" and set(second) == {"extra.md", ""}  # a delta: only what changed
    assert expand_snapshot(first, second) == {"keep.md": first["keep.md"], "extra.md": second["extra.md"]}
    assert expand_snapshot({}, first) == first


def test_calls_past_a_turn_s_limit_are_refused_unrun_and_unrecorded_and_the_limit_is_told_once(box: ToolBox) -> None:
    told: list[int] = []
    box.max_calls_per_turn, box.on_call_limit = 2, lambda: told.append(box.turn)
    box.turn = 1
    made = [box.call("write_file", {"path": f"n{i}.md", "content": "x"}) for i in range(4)]
    assert [r.ok for r in made] == [True, True, False, False] and told == [1]
    assert made[2].result == {"error": "this turn's 2 tool calls are spent: the call was not run"}
    assert [r.call["path"] for r in box.records] == ["n0.md", "n1.md"]
    assert sorted(p.name for p in box.env.workspace.root.iterdir()) == ["n0.md", "n1.md"]  # refused calls never ran
    box.turn = 2  # a new turn has its own calls
    assert box.call("list_dir", {"path": "."}).ok and box.call("memory_read", {}).ok and not box.call("list_dir", {"path": "."}).ok
    assert told == [1, 2] and len(box.records) == 4


async def test_async_calls_count_against_the_same_limit(box: ToolBox) -> None:
    box.max_calls_per_turn = 1
    assert (await box.acall("list_dir", {"path": "."})).ok
    assert not (await box.acall("list_dir", {"path": "."})).ok and len(box.records) == 1
