"""Deleting runs and collecting what no run refers to: workspace archives and file contents, empty sweeps.

Archive rows are shared across runs (one row per content), so deleting a run
deletes only its own rows; :meth:`CleanupQueries.collect_garbage` then walks
what the remaining checkpoints reach and removes the rest, in one write
transaction that holds the database's write lock from its first statement,
so a session saved at the same time either lands before it (and its archives
are reached) or after it (and stores them again). Recorded model answers go
with their run (namespace ``<run id>/...``); answers under other namespaces
are caches shared by runs (odyssey summaries and embeddings) and stay.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Column, Connection, Engine, Table, bindparam, delete, func, select
from sqlmodel import SQLModel, col

from proactive_bench.store.answers import ModelCallEntry
from proactive_bench.store.codec import decompress
from proactive_bench.store.lease import Lease
from proactive_bench.store.tables import Checkpoint, Run, SessionRun, Sweep, WorkspaceArchive

References = Callable[[bytes], Iterable[str]]
"""What one stored archive names (a manifest: its base manifest and file contents, by sha256); nothing for a file content."""


@dataclass(frozen=True)
class Garbage:
    """What :meth:`CleanupQueries.collect_garbage` removed (or, in a dry run, would remove)."""

    archives: int
    archive_bytes: int
    sweeps: int

    def as_dict(self) -> dict[str, int]:
        return {"archives": self.archives, "archive_bytes": self.archive_bytes, "sweeps": self.sweeps}


class CleanupQueries:
    """The :class:`~proactive_bench.store.database.Store` methods that delete runs and collect garbage."""

    engine: Engine

    def delete_run(self, run_id: str) -> None:
        """Remove a run and every row that belongs to it, in one transaction (the archives it used stay until :meth:`collect_garbage`).

        The caller holds the run's lease (a run being written is never deleted).
        """
        sessions = select(col(SessionRun.id)).where(col(SessionRun.run_id) == run_id).scalar_subquery()
        with self.engine.begin() as db:
            for table, column in _referring_to("sessionrun"):
                db.execute(delete(table).where(column.in_(sessions)))  # one statement per table: snapshots' bases go with them
            for table, column in _referring_to("run"):  # the session runs, checkpoints, model-call records
                db.execute(delete(table).where(column == run_id))
            db.execute(delete(ModelCallEntry).where(col(ModelCallEntry.namespace).startswith(f"{run_id}/")))
            db.execute(delete(Run).where(col(Run.id) == run_id))

    def collect_garbage(self, references: References, *, dry_run: bool = False, gone: Collection[str] = ()) -> Garbage:
        """Remove archives no checkpoint reaches (through ``references``) and sweeps with no run (and no lease: one being started
        keeps its row); with ``dry_run``, only count them, as if the runs ``gone`` were deleted too."""
        with self.engine.begin() as db:
            db.execute(delete(Lease).where(col(Lease.scope) == ""))  # a write first: the transaction holds the write lock from here
            dead = _unreached_archives(db, references, gone)
            size = sum(db.execute(_sizes(), {"digests": chunk}).scalar() or 0 for chunk in _chunks(dead))
            empty = delete(Sweep).where(
                col(Sweep.id).not_in(select(col(Run.sweep_id)).where(col(Run.sweep_id).is_not(None), col(Run.id).not_in(gone))),
                col(Sweep.id).not_in(select(col(Lease.scope))),
            )
            if dry_run:
                sweeps = db.execute(select(func.count()).select_from(Sweep).where(empty.whereclause)).scalar_one()  # type: ignore[arg-type]  # the statement was built with .where(), so its whereclause is set
            else:
                for chunk in _chunks(dead):
                    db.execute(delete(WorkspaceArchive).where(col(WorkspaceArchive.sha256).in_(chunk)))
                sweeps = db.execute(empty).rowcount
        return Garbage(len(dead), size, sweeps)

    def vacuum(self) -> None:
        """Give the space of deleted rows back to the file system (rewrites the database; waits for other writers)."""
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as db:  # PostgreSQL: never inside a transaction
            db.exec_driver_sql("VACUUM")


def _unreached_archives(db: Connection, references: References, gone: Collection[str]) -> list[str]:
    """The archive rows that no checkpoint (of a run not ``gone``) names, directly or through the manifests it names."""
    reached: set[str] = set()
    roots = select(col(Checkpoint.sha256)).where(col(Checkpoint.run_id).not_in(gone)).distinct()
    frontier = set(db.execute(roots).scalars())
    while frontier:
        reached |= frontier
        named: set[str] = set()
        for chunk in _chunks(sorted(frontier)):
            for data, codec in db.execute(_contents(), {"digests": chunk}):
                named.update(references(decompress(data) if codec else data))
        frontier = named - reached
    stored = db.execute(select(col(WorkspaceArchive.sha256))).scalars()
    return sorted(set(stored) - reached)


def _chunks(digests: list[str]) -> Iterable[list[str]]:
    for start in range(0, len(digests), 500):
        yield digests[start : start + 500]


@cache
def _contents() -> Any:
    return select(col(WorkspaceArchive.data), col(WorkspaceArchive.codec)).where(
        col(WorkspaceArchive.sha256).in_(bindparam("digests", expanding=True))
    )


@cache
def _sizes() -> Any:
    return select(func.sum(func.length(col(WorkspaceArchive.data)))).where(
        col(WorkspaceArchive.sha256).in_(bindparam("digests", expanding=True))
    )


def _referring_to(table_name: str) -> list[tuple[Table, Column[Any]]]:
    """Every other results table with a foreign key to ``table_name``, and that key's column (a table added later is cleaned up too)."""
    return [
        (table, key.parent)
        for table in SQLModel.metadata.sorted_tables
        for key in table.foreign_keys
        if key.column.table.name == table_name and table.name != table_name
    ]
