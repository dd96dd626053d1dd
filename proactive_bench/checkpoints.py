"""Session-end checkpoints, and picking an episode run up where it stopped.

At the end of every session the runner archives the workspace folder (one
uncompressed tar, built in memory) and saves it in the results database in
the same transaction as the session's turn rows, model-call records, grades,
snapshots and final status (:meth:`~proactive_bench.store.Store.save_session`);
the first session also saves the workspace the run started from (position 0,
for reports). Identical archives are stored once. A session is therefore
saved whole or not at all: resuming restores the workspace of the last
finished session and runs the unfinished one again. Its model calls that had
already been answered are served from the run's recording
(:mod:`proactive_bench.llm.cache`), so finished turns cost nothing twice and
the results equal those of an uninterrupted run. Checkpoints that earlier
versions saved as files (``checkpoints/<run>/<position>.tar``) or folders are
read as well.
"""

from __future__ import annotations

import io
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
from proactive_bench.trace import was_clipped

FINAL_STATUSES = frozenset({"completed", "truncated", "error"})


class ResumeError(RuntimeError):
    """A run whose saved state is incomplete and cannot be continued."""


def workspace_archive(workspace: Workspace) -> bytes:
    """The workspace folder (files, folders, symlinks as links) as an uncompressed tar archive."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for child in sorted(workspace.root.iterdir()):
            archive.add(child, arcname=child.name)
    return buffer.getvalue()


def saved_workspace(store: Store, run: Run, position: int) -> bytes | Path | None:
    """The workspace after the run's ``position``-th session: an archive, a folder of an earlier version, or None."""
    archive = store.checkpoint(run.id, position)
    if archive is not None:
        return archive
    earlier = Path(run.workspace).parent.parent / "checkpoints" / run.id / f"{position:03d}.tar"
    if earlier.is_file():
        return earlier.read_bytes()
    folder = earlier.with_suffix("")
    return folder if folder.is_dir() else None


def restore_workspace(workspace: Workspace, saved: bytes | Path) -> None:
    """Make the workspace folder an exact copy of a saved one (an archive, or a folder)."""
    for child in workspace.root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    if isinstance(saved, Path):
        shutil.copytree(saved, workspace.root, symlinks=True, dirs_exist_ok=True)
        return
    with tarfile.open(fileobj=io.BytesIO(saved)) as archive:
        archive.extractall(workspace.root, filter="tar")  # names stay inside; links are kept as saved


def restore_checkpoint(store: Store, run: Run, position: int, workspace: Workspace) -> None:
    """Put the workspace back as it was after the run's ``position``-th session; ResumeError when it was not saved."""
    saved = saved_workspace(store, run, position)
    if saved is None:
        raise ResumeError(f"run {run.id}: the workspace after session {position} was not saved")
    restore_workspace(workspace, saved)


@contextmanager
def opened_checkpoint(store: Store, run: Run, position: int) -> Iterator[Workspace | None]:
    """A checkpoint's files as a (temporary) workspace folder, or None when it was not saved."""
    saved = saved_workspace(store, run, position)
    if saved is None or isinstance(saved, Path):
        yield Workspace(saved) if saved is not None else None
        return
    with tempfile.TemporaryDirectory(prefix="pbench-checkpoint-") as scratch:
        workspace = Workspace(Path(scratch))
        restore_workspace(workspace, saved)
        yield workspace


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


def stored_session_result(store: Store, session_run: SessionRun) -> SessionResult:
    """A finished session's result, rebuilt from its rows."""
    assert session_run.id is not None
    grades = stored_grades(store, session_run)
    score, basis = comp(grades)
    events: list[IntentEvent] = store.rows(IntentEvent, session_run.id)
    counts = count_statuses([e.status for e in events], session_run.intents)
    return SessionResult(
        session_run.session_id, session_run.status, session_run.turns, counts, grades, score, basis, session_run.error,
        stored_transcript(store, session_run), sum(was_clipped(e.evidence) for e in events),
    )
