"""Deleting stored runs and collecting what no run refers to (``pbench gc``).

A run is deleted under its lease (its sweep's, for a sweep's run), so a run
that a live process is writing is never touched: taking the lease fails with
:class:`~proactive_bench.store.LeaseHeld` instead. Its rows go in one
transaction, then its workspace folder; the workspace archives and file
contents it shared with other runs stay until :func:`collect_garbage`, which
keeps everything any remaining checkpoint reaches.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from proactive_bench.env import jail
from proactive_bench.episode import archive_references
from proactive_bench.logs import get_logger
from proactive_bench.store import Garbage, RunLike, Store, lease_scope, writing

log = get_logger(__name__)


def delete_runs(store: Store, runs: list[RunLike]) -> None:
    """Delete each run (rows, recorded answers, checkpoints' pointers, its workspace folder); LeaseHeld when one is being written."""
    for run in runs:
        with writing(store, lease_scope(run), beat=False):
            store.delete_run(run.id)
        for folder in _run_folders(run):
            jail.remove_tree(folder)
        log.info("run_deleted", run=run.id)


def collect_garbage(store: Store, *, dry_run: bool = False, gone: Collection[str] = ()) -> Garbage:
    """Remove the archives and empty sweeps no run refers to and give their space back (VACUUM);
    a ``dry_run`` only counts them, as if the runs ``gone`` were deleted too."""
    garbage = store.collect_garbage(archive_references, dry_run=dry_run, gone=gone)
    if not dry_run:
        store.vacuum()
    return garbage


def _run_folders(run: RunLike) -> list[Path]:
    """The run's workspace folder (``<results>/workspaces/<run id>``) and earlier versions' checkpoint folder, where they are pbench's."""
    workspace = Path(run.workspace)
    if workspace.name != run.id or workspace.parent.name != "workspaces":
        return []  # not a folder pbench made for this run: left alone
    return [folder for folder in (workspace, workspace.parent.parent / "checkpoints" / run.id) if folder.exists()]
