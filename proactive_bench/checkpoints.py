"""Session-end checkpoints, and picking an episode run up where it stopped.

At the end of every session the runner packs the workspace folder through
the jail (:func:`workspace_archive`: a manifest of folders, files and links,
and each file's content stored once by sha256, so unchanged files cost no
new content) and saves it in the results database in
the same transaction as the session's turn rows, model-call records, grades,
snapshots and final status (:meth:`~proactive_bench.store.Store.save_session`);
the first session also saves the workspace the run started from (position 0,
for reports). Identical manifests and contents are stored once. A session is therefore
saved whole or not at all: resuming restores the workspace of the last
finished session and runs the unfinished one again. Its model calls that had
already been answered are served from the run's recording
(:mod:`proactive_bench.llm.cache`), so finished turns cost nothing twice and
the results equal those of an uninterrupted run. Checkpoints that earlier
versions saved as files (``checkpoints/<run>/<position>.tar``) or folders are
read as well, as are tar archives that versions before the manifest saved.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import stat
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from proactive_bench.env import jail
from proactive_bench.env.workspace import Workspace
from proactive_bench.grading import GradeResult
from proactive_bench.metrics import comp, count_statuses
from proactive_bench.results import SessionResult
from proactive_bench.store import Grade, IntentEvent, MessageRow, Run, SessionRun, Store

FINAL_STATUSES = frozenset({"completed", "truncated", "error"})
MANIFEST_MAGIC = b"pbench-workspace/2\n"


class ResumeError(RuntimeError):
    """A run whose saved state is incomplete and cannot be continued."""


@dataclass(frozen=True)
class PackedWorkspace:
    """A workspace as a manifest (what is where) and the contents of its files by sha256.

    ``blobs`` leaves out the contents the caller said are already stored
    (earlier checkpoints of the run), so a session's checkpoint costs its
    manifest plus what changed.
    """

    manifest: bytes
    blobs: dict[str, bytes]
    cut: list[str]
    """What the workspace held that was not packed (see :func:`jail.walk`)."""


def workspace_archive(workspace: Workspace, stored: set[str] | None = None) -> PackedWorkspace:
    """The workspace as :func:`jail.walk` lists it: folders, regular files (content by sha256) and symlinks (as links, never followed).

    The manifest is zlib-compressed JSON after :data:`MANIFEST_MAGIC`; names
    that are not UTF-8 are kept exactly (JSON escapes of their surrogates).
    What the walk cut is in the manifest and logged. ``stored``: sha256 of
    contents already in the store, left out of ``blobs``; the new ones are added to it.
    """
    scan = workspace.scan()
    known = stored if stored is not None else set()
    blobs: dict[str, bytes] = {}
    entries: list[list[str | int]] = []
    for entry in scan.entries:
        mode = stat.S_IMODE(entry.stat.st_mode)
        if entry.kind == "file":
            try:
                data = jail.read_file(workspace.root, entry.path)
            except jail.Refused as exc:
                scan.note_cut(entry.path, str(exc))
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest not in known:
                blobs[digest] = data
            entries.append([entry.path, "file", mode, digest])
        else:
            entries.append([entry.path, entry.kind, mode, entry.target])
    known.update(blobs)
    cut = scan.cut_summary()
    body = json.dumps({"entries": entries, "cut": cut}, ensure_ascii=True, separators=(",", ":"))
    return PackedWorkspace(MANIFEST_MAGIC + zlib.compress(body.encode("ascii"), 6), blobs, cut)


def saved_workspace(store: Store, run: Run, position: int) -> bytes | Path | None:
    """The workspace after the run's ``position``-th session: a manifest or an earlier version's tar archive or folder, or None."""
    archive = store.checkpoint(run.id, position)
    if archive is not None:
        return archive
    earlier = Path(run.workspace).parent.parent / "checkpoints" / run.id / f"{position:03d}.tar"
    if earlier.is_file():
        return earlier.read_bytes()
    folder = earlier.with_suffix("")
    return folder if folder.is_dir() else None


def restore_workspace(workspace: Workspace, saved: bytes | Path, store: Store | None = None) -> None:
    """Make the workspace folder an exact copy of a saved one: a manifest (its file contents read from ``store``),
    an earlier version's tar archive, or a folder. Emptying and rebuilding are iterative (any depth)."""
    clear_folder(workspace.root)
    if isinstance(saved, Path):
        shutil.copytree(saved, workspace.root, symlinks=True, dirs_exist_ok=True)
    elif saved.startswith(MANIFEST_MAGIC):
        if store is None:
            raise ResumeError("a workspace manifest needs the store that holds its files")
        unpack_manifest(workspace.root, saved, store)
    else:
        with tarfile.open(fileobj=io.BytesIO(saved)) as archive:
            archive.extractall(workspace.root, filter="tar")  # names stay inside; links are kept as saved


def unpack_manifest(root: Path, manifest: bytes, store: Store) -> None:
    """Create a manifest's folders, files and links under ``root`` (names are checked to stay inside)."""
    entries = json.loads(zlib.decompress(manifest[len(MANIFEST_MAGIC) :]))["entries"]
    contents = store.archives({str(e[3]) for e in entries if e[1] == "file"})
    for path, kind, mode, value in entries:
        jail.check_relative(path)
        target = root / path
        if kind == "dir":
            target.mkdir(exist_ok=True)
            os.chmod(target, mode | 0o700)
        elif kind == "link":
            os.symlink(value, target)
        else:
            if value not in contents:
                raise ResumeError(f"a checkpoint's file {jail.shown(path)} has no stored content")
            target.write_bytes(contents[value])
            os.chmod(target, mode)


def clear_folder(root: Path) -> None:
    """Remove everything inside ``root`` (not following links), iteratively, however deep."""
    pending, folders = [root], []
    while pending:
        folder = pending.pop()
        folders.append(folder)
        with os.scandir(folder) as listing:
            for child in listing:
                if child.is_dir(follow_symlinks=False):
                    pending.append(Path(child.path))
                else:
                    os.unlink(child.path)
    for folder in reversed(folders[1:]):
        os.rmdir(folder)


def restore_checkpoint(store: Store, run: Run, position: int, workspace: Workspace) -> None:
    """Put the workspace back as it was after the run's ``position``-th session; ResumeError when it was not saved."""
    saved = saved_workspace(store, run, position)
    if saved is None:
        raise ResumeError(f"run {run.id}: the workspace after session {position} was not saved")
    restore_workspace(workspace, saved, store)


@contextmanager
def opened_checkpoint(store: Store, run: Run, position: int) -> Iterator[Workspace | None]:
    """A checkpoint's files as a (temporary) workspace folder, or None when it was not saved."""
    saved = saved_workspace(store, run, position)
    if saved is None or isinstance(saved, Path):
        yield Workspace(saved) if saved is not None else None
        return
    with tempfile.TemporaryDirectory(prefix="pbench-checkpoint-") as scratch:
        workspace = Workspace(Path(scratch))
        restore_workspace(workspace, saved, store)
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
