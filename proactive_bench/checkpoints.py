"""Session-end checkpoints, and picking an episode run up where it stopped.

A run's starting workspace is saved as ``<results>/checkpoints/<run>/000.tar``.
At the end of every session the runner saves the workspace folder as
``checkpoints/<run>/<position>.tar`` (one uncompressed archive: a single file
write instead of a folder per directory, which on slow disks cost more than
the copy) and then writes, in one transaction, the session's turn rows,
model-call records, grades, snapshots and final status. A session without a
final status is therefore unfinished and has no rows but its session-run row;
resuming deletes that row, restores the state of the last finished session
and runs the unfinished one again. Its model calls that had already been
answered are served from the run's recording (:mod:`proactive_bench.llm.cache`),
so finished turns cost nothing twice and the results equal those of an
uninterrupted run. Checkpoints saved as folders by earlier versions are read
as well.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proactive_bench.env.workspace import Workspace
from proactive_bench.grading import GradeResult
from proactive_bench.metrics import comp, count_statuses
from proactive_bench.results import SessionResult
from proactive_bench.store import Grade, IntentEvent, MessageRow, Run, SessionRun, Store

FINAL_STATUSES = frozenset({"completed", "truncated", "error"})


class ResumeError(RuntimeError):
    """A run whose saved state is incomplete and cannot be continued."""


def checkpoint_path(run: Run, position: int) -> Path:
    """Where the workspace after the run's ``position``-th session is saved (0: its start)."""
    return Path(run.workspace).parent.parent / "checkpoints" / run.id / f"{position:03d}.tar"


def save_workspace(workspace: Workspace, target: Path) -> None:
    """Archive the workspace folder (files, folders, symlinks as links) to ``target``, replacing it atomically."""
    partial = target.with_name(target.name + ".partial")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(partial, "w") as archive:
        for child in sorted(workspace.root.iterdir()):
            archive.add(child, arcname=child.name)
    os.replace(partial, target)


def restore_workspace(workspace: Workspace, source: Path) -> None:
    """Make the workspace folder an exact copy of a checkpoint."""
    folder = _legacy_folder(source)
    if not source.is_file() and not folder.is_dir():
        raise ResumeError(f"checkpoint {source} is missing")
    for child in workspace.root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    if source.is_file():
        with tarfile.open(source) as archive:
            archive.extractall(workspace.root, filter="tar")  # names stay inside; links are kept as saved
    else:
        shutil.copytree(folder, workspace.root, symlinks=True, dirs_exist_ok=True)


@contextmanager
def opened_checkpoint(source: Path) -> Iterator[Workspace | None]:
    """A checkpoint's files as a (temporary) workspace folder, or None when it was not saved."""
    folder = _legacy_folder(source)
    if not source.is_file():
        yield Workspace(folder) if folder.is_dir() else None
        return
    with tempfile.TemporaryDirectory(prefix="pbench-checkpoint-") as scratch:
        workspace = Workspace(Path(scratch))
        restore_workspace(workspace, source)
        yield workspace


def _legacy_folder(source: Path) -> Path:
    """Where versions before archives kept the same checkpoint (``<position>/``)."""
    return source.with_suffix("")


def split_session_runs(store: Store, run: Run) -> tuple[dict[str, SessionRun], list[SessionRun]]:
    """The run's finished session runs by session id, and the unfinished ones."""
    finished: dict[str, SessionRun] = {}
    unfinished: list[SessionRun] = []
    for session_run in store.session_runs(run.id):
        if session_run.status in FINAL_STATUSES:
            finished[session_run.session_id] = session_run
        else:
            unfinished.append(session_run)
    return finished, unfinished


def stored_grades(store: Store, session_run: SessionRun) -> list[GradeResult]:
    assert session_run.id is not None
    rows: list[Grade] = store.rows(Grade, session_run.id)
    return [GradeResult(g.item_id, g.grader, g.weight, g.score, g.rationale, g.error) for g in rows]  # type: ignore[arg-type]


def stored_transcript(store: Store, session_run: SessionRun) -> list[dict[str, str]]:
    assert session_run.id is not None
    return [{"role": m.role, "content": m.content} for m in store.rows(MessageRow, session_run.id)]


def stored_statuses(store: Store, session_run: SessionRun) -> list[str]:
    assert session_run.id is not None
    return [e.status for e in store.rows(IntentEvent, session_run.id)]


def stored_session_result(store: Store, session_run: SessionRun) -> SessionResult:
    """A finished session's result, rebuilt from its rows."""
    grades = stored_grades(store, session_run)
    score, basis = comp(grades)
    counts = count_statuses(stored_statuses(store, session_run), session_run.intents)
    return SessionResult(
        session_run.session_id, session_run.status, session_run.turns, counts, grades, score, basis, session_run.error,
        stored_transcript(store, session_run),
    )
