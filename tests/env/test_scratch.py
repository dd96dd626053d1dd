"""Scratch folders for replayed worlds (in memory where the system offers a tmpfs) and steady views of a workspace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

import proactive_bench.env.scratch as scratch
from proactive_bench.env import SteadyWorkspace, Workspace, scratch_directory


def test_a_scratch_folder_is_in_memory_when_a_tmpfs_is_there_and_goes_away(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    memory = tmp_path / "shm"
    memory.mkdir()
    monkeypatch.setattr(scratch, "MEMORY_TEMP", memory)
    monkeypatch.delenv("TMPDIR", raising=False)
    with scratch_directory("pbench-test-") as folder:
        assert Path(folder).parent == memory and Path(folder).name.startswith("pbench-test-")
        (Path(folder) / "f.txt").write_text("x")
    assert not Path(folder).exists()


def test_a_scratch_folder_falls_back_to_the_temporary_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(scratch, "MEMORY_TEMP", tmp_path / "missing")
    monkeypatch.delenv("TMPDIR", raising=False)
    with scratch_directory("pbench-test-") as folder:
        assert Path(folder).parent == Path(tempfile.gettempdir())
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    monkeypatch.setattr(scratch, "MEMORY_TEMP", tmp_path)  # usable, but TMPDIR names another place: it wins
    monkeypatch.setenv("TMPDIR", str(chosen))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir reads TMPDIR again
    try:
        with scratch_directory("pbench-test-") as folder:
            assert Path(folder).parent == chosen
    finally:
        tempfile.tempdir = None


@pytest.mark.skipif(not hasattr(os, "ST_NOEXEC"), reason="no statvfs flags")
def test_a_noexec_tmpfs_is_not_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    class NoExec:
        f_flag = os.ST_NOEXEC

    monkeypatch.setattr(scratch, "MEMORY_TEMP", tmp_path)
    monkeypatch.setattr(scratch.os, "statvfs", lambda _path: NoExec())
    assert scratch.memory_temp() is None


def test_a_steady_workspace_walks_and_reads_once_until_written_through(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.write_text("a.md", "one")
    view = SteadyWorkspace(workspace)
    assert view.files() == ["a.md"] and view.read_text("a.md") == "one"
    workspace.write_text("b.md", "two")  # written through another object: the view keeps the state it judged
    workspace.write_text("a.md", "changed")
    assert view.glob_files("*.md") == ["a.md"] and view.read_text("a.md") == "one"
    assert SteadyWorkspace(workspace).files() == ["a.md", "b.md"]  # a new view sees the change
    view.write_text("c.md", "three")  # written through the view: it forgets what it read
    assert view.files() == ["a.md", "b.md", "c.md"] and view.read_text("a.md") == "changed"


def test_a_steady_workspace_takes_its_workspace_root_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = Workspace(tmp_path / "link-free")
    resolved: list[Path] = []
    original = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda self, *args, **kwargs: resolved.append(self) or original(self, *args, **kwargs))
    view = SteadyWorkspace(workspace)  # the session makes one per user turn: resolving looks at every folder from /
    assert view.root is workspace.root and resolved == []
