"""Workspace checkpoints: archives round-trip files, folders and links; folders from earlier versions still read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proactive_bench.checkpoints import ResumeError, opened_checkpoint, restore_workspace, save_workspace
from proactive_bench.env.workspace import Workspace


def filled(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.write_text("notes/dose.md", "5 mg")
    ws.write_text("a.txt", "alpha")
    (ws.root / "empty").mkdir()
    (ws.root / "latest.md").symlink_to("notes/dose.md")
    return ws


def test_an_archive_restores_the_workspace_exactly(tmp_path: Path) -> None:
    ws = filled(tmp_path / "ws")
    target = tmp_path / "checkpoints" / "run" / "001.tar"
    save_workspace(ws, target)
    assert target.is_file() and not target.with_name("001.tar.partial").exists()
    ws.write_text("a.txt", "changed")
    ws.write_text("later.txt", "added after the checkpoint")
    restore_workspace(ws, target)
    assert ws.files() == ["a.txt", "notes/dose.md"] and ws.read_text("a.txt") == "alpha"
    assert (ws.root / "empty").is_dir() and (ws.root / "latest.md").is_symlink()


def test_an_archive_opens_as_a_temporary_workspace(tmp_path: Path) -> None:
    target = tmp_path / "000.tar"
    save_workspace(filled(tmp_path / "ws"), target)
    with opened_checkpoint(target) as saved:
        assert saved is not None and saved.read_text("notes/dose.md") == "5 mg"
        scratch = saved.root
    assert not scratch.exists()


def test_folder_checkpoints_of_earlier_versions_still_work(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints" / "002"
    shutil.copytree(filled(tmp_path / "ws").root, folder, symlinks=True)
    with opened_checkpoint(folder.with_suffix(".tar")) as saved:
        assert saved is not None and saved.root == folder.resolve()
    fresh = Workspace(tmp_path / "fresh")
    restore_workspace(fresh, folder.with_suffix(".tar"))
    assert fresh.files() == ["a.txt", "notes/dose.md"]


def test_a_missing_checkpoint_is_named(tmp_path: Path) -> None:
    with opened_checkpoint(tmp_path / "009.tar") as saved:
        assert saved is None
    with pytest.raises(ResumeError, match="009.tar is missing"):
        restore_workspace(Workspace(tmp_path / "ws"), tmp_path / "009.tar")
