"""Workspace checkpoints: manifests and contents in the results database round-trip files, folders and links.

(Checkpoints of earlier formats become manifests when their database is opened: tests/store/test_store_migrations.py.)"""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest
from sqlmodel import Session, select

from proactive_bench.env.workspace import Workspace
from proactive_bench.episode.checkpoints import (
    MANIFEST_MAGIC,
    PackedWorkspace,
    ResumeError,
    WorkspacePacker,
    opened_checkpoint,
    restore_checkpoint,
    workspace_archive,
)
from proactive_bench.store import Run, SessionRun, Store, WorkspaceArchive


def filled(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.write_text("notes/dose.md", "5 mg")
    ws.write_text("a.txt", "alpha")
    (ws.root / "empty").mkdir()
    (ws.root / "latest.md").symlink_to("notes/dose.md")
    return ws


def saved_run(tmp_path: Path, checkpoints: dict[int, PackedWorkspace]) -> tuple[Store, Run]:
    store = Store(tmp_path / "r.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=str(tmp_path / "workspaces" / "x"))
    store.add(run)
    blobs = {digest: data for pack in checkpoints.values() for digest, data in pack.blobs.items()}
    store.save_session(
        SessionRun(run_id=run.id, session_id="s1", position=1, status="completed"),
        [],
        {p: c.manifest for p, c in checkpoints.items()},
        blobs,
    )
    return store, run


def test_an_archive_restores_the_workspace_exactly(tmp_path: Path) -> None:
    ws = filled(tmp_path / "ws")
    store, run = saved_run(tmp_path, {1: workspace_archive(ws)})
    ws.write_text("a.txt", "changed")
    ws.write_text("later.txt", "added after the checkpoint")
    restore_checkpoint(store, run, 1, ws)
    assert ws.files() == ["a.txt", "notes/dose.md"] and ws.read_text("a.txt") == "alpha"
    assert (ws.root / "empty").is_dir() and (ws.root / "latest.md").is_symlink()


def test_an_archive_opens_as_a_temporary_workspace_and_identical_ones_are_stored_once(tmp_path: Path) -> None:
    archive = workspace_archive(filled(tmp_path / "ws"))
    store, run = saved_run(tmp_path, {0: archive, 1: archive})
    with opened_checkpoint(store, run, 0) as saved:
        assert saved is not None and saved.read_text("notes/dose.md") == "5 mg"
        scratch = saved.root
    assert not scratch.exists()
    with Session(store.engine) as db:
        assert len(db.exec(select(WorkspaceArchive.sha256)).all()) == 3  # one manifest and the two file contents


def test_a_missing_checkpoint_is_named(tmp_path: Path) -> None:
    store, run = saved_run(tmp_path, {})
    with opened_checkpoint(store, run, 9) as saved:
        assert saved is None
    with pytest.raises(ResumeError, match=f"run {run.id}: the workspace after session 9 was not saved"):
        restore_checkpoint(store, run, 9, Workspace(tmp_path / "ws"))


def test_delta_checkpoints_restore_every_position(tmp_path: Path) -> None:
    ws = filled(tmp_path / "ws")
    packer, store = WorkspacePacker(), Store(tmp_path / "r.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=str(tmp_path / "workspaces" / "x"))
    store.add(run)
    expected = {}
    for position in (1, 2, 3):
        ws.write_text(f"s{position}.md", f"session {position}")
        if position == 3:
            (ws.root / "a.txt").unlink()
            shutil.rmtree(ws.root / "notes")
            (ws.root / "notes").write_text("a file where a folder was")
        pack = packer.pack(ws)
        expected[position] = {rel: ws.read_text(rel) for rel in ws.files()}
        session_run = SessionRun(run_id=run.id, session_id=f"s{position}", position=position, status="completed")
        store.save_session(session_run, [], {position: pack.manifest}, pack.blobs)
    assert len(pack.manifest) < 300 and len(pack.blobs) == 2  # a delta: the new file and the file where a folder was
    for position, files in expected.items():
        with opened_checkpoint(store, run, position) as saved:
            assert saved is not None and {rel: saved.read_text(rel) for rel in saved.files()} == files


def test_a_crafted_manifest_cannot_write_through_its_own_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    store, run = saved_run(tmp_path, {})
    body = {
        "base": None,
        "entries": [["a", "link", 0o777, str(outside)], ["a/planted.txt", "file", 0o644, "0" * 64]],
        "removed": [],
        "cut": [],
    }
    manifest = MANIFEST_MAGIC + zlib.compress(json.dumps(body).encode())
    store.save_session(
        SessionRun(run_id=run.id, session_id="s2", position=2, status="completed"), [], {2: manifest}, {"0" * 64: b"planted"}
    )
    with pytest.raises(OSError, match="symlink leaving the workspace"):
        restore_checkpoint(store, run, 2, Workspace(tmp_path / "ws"))
    assert not (outside / "planted.txt").exists()
