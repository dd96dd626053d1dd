"""Session-end checkpoints, and picking an episode run up where it stopped.

A run's starting workspace is copied to ``<results>/checkpoints/<run>/000/``.
At the end of every session the runner copies the workspace folder to
``checkpoints/<run>/<position>/`` and then writes, in one transaction, the
session's turn rows, model-call records, grades, snapshots and final status.
A session without a final status is therefore unfinished and has no rows but
its session-run row; resuming deletes that row, restores the state of the
last finished session and runs the unfinished one again. Its model calls
that had already been answered are served from the run's recording
(:mod:`proactive_bench.llm.cache`), so finished turns cost nothing twice and
the results equal those of an uninterrupted run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from proactive_bench.env.workspace import Workspace
from proactive_bench.grading import GradeResult
from proactive_bench.metrics import comp, count_statuses
from proactive_bench.results import SessionResult
from proactive_bench.store import Grade, IntentEvent, MessageRow, Run, SessionRun, Store

FINAL_STATUSES = frozenset({"completed", "truncated", "error"})


class ResumeError(RuntimeError):
    """A run whose saved state is incomplete and cannot be continued."""


def checkpoint_dir(run: Run, position: int) -> Path:
    return Path(run.workspace).parent.parent / "checkpoints" / run.id / f"{position:03d}"


def save_workspace(workspace: Workspace, target: Path) -> None:
    """Copy the workspace folder to ``target``, replacing it atomically (rename)."""
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(workspace.root, partial, symlinks=True)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def restore_workspace(workspace: Workspace, source: Path) -> None:
    """Make the workspace folder an exact copy of a checkpoint."""
    if not source.is_dir():
        raise ResumeError(f"checkpoint {source} is missing")
    for child in workspace.root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    shutil.copytree(source, workspace.root, symlinks=True, dirs_exist_ok=True)


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
