"""Store queries over session runs: saving a finished session whole, deleting one, and workspace checkpoints (compressed);
reading them is in :mod:`~proactive_bench.store.reading`."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from typing import Any

from sqlalchemy import Engine, Table, bindparam, insert, or_, update
from sqlmodel import Session, col, func, select

from proactive_bench.json_text import valid_unicode
from proactive_bench.logs import get_logger
from proactive_bench.store.answers import RecordedAnswers, answer_fences, write_answers
from proactive_bench.store.codec import compress_if_smaller, decompress
from proactive_bench.store.direct import direct
from proactive_bench.store.engine import insert_ignoring, upsert
from proactive_bench.store.lease import Fences, check_fence
from proactive_bench.store.pending import PendingRow, insert_rows
from proactive_bench.store.records import SessionRunLike
from proactive_bench.store.snapshots import LastWritten, remember, write_snapshots
from proactive_bench.store.tables import (
    SESSION_TABLES,
    Checkpoint,
    Run,
    SessionRun,
    Snapshot,
    WorkspaceArchive,
)

log = get_logger(__name__)


class SessionQueries:
    """The :class:`~proactive_bench.store.database.Store` methods over session runs and checkpoints."""

    engine: Engine
    reads: Engine
    answers: RecordedAnswers
    fence: Fences | None
    last_snapshots: LastWritten

    def save_session(
        self,
        session_run: SessionRun | PendingRow,
        rows: Sequence[PendingRow],
        checkpoints: Mapping[int, bytes],
        blobs: Mapping[str, bytes] | None = None,
    ) -> None:
        """A finished session, its rows and workspace checkpoints (position to archive), in one transaction.
        ``session_run``: its row, as the table's object (its ``id`` is set here) or as ``pending_row(SessionRun, ...)``
        (plain values: an ORM object costs tens of µs to make).

        ``blobs`` (sha256 to bytes: the file contents a checkpoint manifest names) go into the archive table too,
        compressed where that makes them smaller; snapshots are stored as deltas (:mod:`~proactive_bench.store.snapshots`).

        The session run gets its id here; its rows go in table by table as bulk
        inserts (this runs at every session end of every run of a sweep). A
        session is saved whole or not at all, its workspace included, and with
        every model answer recorded so far on this database; under a lease
        (``fence``), only while this process still holds it (LeaseLost otherwise).
        """
        values = _session_run_values(session_run)
        try:
            session_run_id = self._save(values, rows, checkpoints, blobs or {})
        except UnicodeEncodeError:  # a lone surrogate no reader of outside text caught: stored as U+FFFD, the session kept
            log.warning("lone_surrogates_replaced", run_id=values["run_id"])
            rows = [PendingRow(row.table, valid_unicode(row.values)) for row in rows]
            session_run_id = self._save(valid_unicode(values), rows, checkpoints, blobs or {})
        if isinstance(session_run, SessionRun):
            session_run.id = session_run_id

    def _save(
        self, values: dict[str, Any], rows: Sequence[PendingRow], checkpoints: Mapping[int, bytes], blobs: Mapping[str, bytes]
    ) -> int:
        """:meth:`save_session`'s transaction; the session run's id."""
        run_id = values["run_id"]
        dialect = self.engine.dialect
        add_archive, point, started, insert_run = _session_statements(dialect.name)
        answers = self.answers.take()  # every answer recorded so far goes in with it (replay needs them all)
        try:
            with self.engine.begin() as db:  # the driver's cursor (direct.py): SQLAlchemy's execution cost more than the statements
                direct(started, dialect).execute(db, {"run_id": run_id})  # the first write: the transaction holds the write lock from here
                lost = check_fence(db, self.fence or (), answer_fences(answers))  # the save's leases and the answers', in one read
                write_answers(db, answers, lost)
                ((session_run_id,),) = direct(insert_run, dialect, tuple(values)).execute(db, values)
                insert_rows(db, session_run_id, [row for row in rows if row.table is not Snapshot])
                snapshots = write_snapshots(
                    db, run_id, session_run_id, [row.values for row in rows if row.table is Snapshot], self.last_snapshots
                )
                manifests = {position: (hashlib.sha256(data).hexdigest(), data) for position, data in checkpoints.items()}
                archived = {**blobs, **dict(manifests.values())}
                direct(add_archive, dialect, ARCHIVE_COLUMNS, many=True).executemany(
                    db, [_archive_row(digest, data) for digest, data in archived.items()]
                )
                direct(point, dialect, CHECKPOINT_COLUMNS, many=True).executemany(
                    db, [{"run_id": run_id, "position": position, "sha256": digest} for position, (digest, _) in manifests.items()]
                )
        except BaseException:
            self.answers.put_back(answers)  # written later, by the next flush or save
            raise
        remember(self.last_snapshots, snapshots)
        return int(session_run_id)

    def add_rows(self, session_run_id: int, rows: Sequence[PendingRow]) -> None:
        """Rows for a saved session (re-scoring's model calls, for instance), in one transaction."""
        with self.engine.begin() as db:
            insert_rows(db, session_run_id, rows)

    def sessions_ending_per_run(self, sweep_id: str, statuses: Collection[str]) -> dict[str, int]:
        """Per run of the sweep, how many of its session runs have one of ``statuses`` (one grouped count: a sweep's
        progress, read every half second, costs a row per run rather than one per session)."""
        with Session(self.reads) as db:
            query = (
                select(SessionRun.run_id, func.count())
                .join(Run, col(Run.id) == col(SessionRun.run_id))
                .where(Run.sweep_id == sweep_id, col(SessionRun.status).in_(statuses))
                .group_by(SessionRun.run_id)
            )
            return {run_id: count for run_id, count in db.exec(query)}

    def delete_session_run(self, session_run: SessionRunLike) -> None:
        """Remove a session run and every row that belongs to it, in one transaction."""
        with Session(self.engine) as db:
            for table in SESSION_TABLES:
                for row in db.exec(select(table).where(table.session_run_id == session_run.id)):  # type: ignore[attr-defined]  # table is one of several row classes, each with these columns
                    db.delete(row)
            stale = db.get(SessionRun, session_run.id)
            if stale is not None:
                db.delete(stale)
            db.commit()

    def checkpoint(self, run_id: str, position: int) -> bytes | None:
        """The archive of a run's workspace after its ``position``-th session, if it was saved here."""
        with Session(self.engine) as db:
            stmt = select(WorkspaceArchive.data, col(WorkspaceArchive.codec)).join(
                Checkpoint, col(Checkpoint.sha256) == col(WorkspaceArchive.sha256)
            )
            found = db.exec(stmt.where(Checkpoint.run_id == run_id, Checkpoint.position == position)).first()
            return None if found is None else _content(*found)

    def archives(self, digests: set[str]) -> dict[str, bytes]:
        """Stored archives and file contents by sha256 (those found among ``digests``)."""
        wanted, found = sorted(digests), dict[str, bytes]()
        with Session(self.engine) as db:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                stmt = select(col(WorkspaceArchive.sha256), col(WorkspaceArchive.data), col(WorkspaceArchive.codec)).where(
                    col(WorkspaceArchive.sha256).in_(chunk)
                )
                found.update((digest, _content(data, codec)) for digest, data, codec in db.exec(stmt))
        return found


def _session_run_values(session_run: SessionRun | PendingRow) -> dict[str, Any]:
    """A session run's columns to insert (its key left out when it has none yet)."""
    if isinstance(session_run, PendingRow):
        if session_run.table is not SessionRun:
            raise TypeError(f"a session run's row, not {session_run.table.__name__}'s")
        return session_run.values
    table: Table = SessionRun.__table__  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
    return {c.key: value for c in table.columns if not ((value := getattr(session_run, c.key)) is None and c.primary_key)}


def _archive_row(digest: str, content: bytes) -> dict[str, Any]:
    data, codec = compress_if_smaller(content)
    return {"sha256": digest, "data": data, "codec": codec}


def _content(data: bytes, codec: str | None) -> bytes:
    """An archive row's content: ``data`` as stored, or decompressed."""
    if codec is None:
        return data
    if codec != "zstd":
        raise ValueError(f"workspace archive stored with codec {codec!r}, which this pbench cannot read")
    return decompress(data)


ARCHIVE_COLUMNS = ("sha256", "data", "codec")
CHECKPOINT_COLUMNS = ("run_id", "position", "sha256")


@cache
def _session_statements(dialect: str) -> tuple[Any, Any, Any, Any]:
    """Store an archive unless already there; point a run's position at an archive (replacing an earlier pointer);
    mark a run that saves its first session (of this start) as running (RunStatus: created or interrupted → running);
    insert the session run, returning its id."""
    runs = Run.__table__  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
    sessions = SessionRun.__table__  # type: ignore[attr-defined]  # as above
    resumable = or_(runs.c.status == "created", runs.c.status == "interrupted")  # not an IN: an IN's list is rendered at execution
    return (
        insert_ignoring(WorkspaceArchive, dialect),
        upsert(Checkpoint, ["run_id", "position"], ["sha256"], dialect),
        update(runs).where(runs.c.id == bindparam("run_id"), resumable).values(status="running"),
        insert(sessions).returning(sessions.c.id),
    )
