"""SQLite persistence through SQLModel: one results database per results directory, behind :class:`Store`.

Tables: runs, session runs, messages, tool calls, intent events, grades, LLM
calls, snapshots of workspace, memory and apps at each session end, and the
workspace itself as checkpoint archives (each distinct archive stored once)
(:mod:`~proactive_bench.store.tables`); recorded model answers
(:mod:`~proactive_bench.store.answers`), server probes
(:mod:`~proactive_bench.store.probes`) and leases (:mod:`~proactive_bench.store.lease`).
A session's rows are written together when it ends, so a crash loses at most
the session in progress (whose model answers the call cache keeps).
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Table, event, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, SQLModel, create_engine

from proactive_bench.store.answers import RecordedAnswers
from proactive_bench.store.cleanup import CleanupQueries
from proactive_bench.store.judgments import JudgmentQueries
from proactive_bench.store.lease import Fence
from proactive_bench.store.lookup import LookupQueries
from proactive_bench.store.migration import migrate_columns
from proactive_bench.store.probes import ProbeQueries
from proactive_bench.store.runs import RunQueries
from proactive_bench.store.sessions import SessionQueries
from proactive_bench.store.snapshots import LastWritten, SnapshotQueries


class StoreOpenError(RuntimeError):
    """A file that SQLite cannot open as a database (not a database, locked, unreadable); the message is SQLite's."""


class Store(RunQueries, LookupQueries, SessionQueries, SnapshotQueries, JudgmentQueries, ProbeQueries, CleanupQueries):
    """The results database of one results directory; the only holder of its engine."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30})
        event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            migrate_columns(self.engine, path)
            SQLModel.metadata.create_all(self.engine)
        except DBAPIError as exc:
            raise StoreOpenError(str(exc.orig)) from exc
        self.answers = RecordedAnswers(self.engine)
        """Recorded model answers of every run on this database, written in bursts."""
        weakref.finalize(self, self.engine.dispose)  # at exit too: the last connection closed folds the WAL into the file
        self.last_snapshots: LastWritten = {}
        """The snapshots this process saved last, per run and kind: the bases of the next ones (see :mod:`~proactive_bench.store.snapshots`)."""
        self.fence: Fence | None = None
        """The lease this process writes under (see :mod:`proactive_bench.store.lease`): every session save checks it."""

    def add(self, *rows: SQLModel) -> None:
        """Insert rows in one transaction."""
        with Session(self.engine, expire_on_commit=False) as db:
            db.add_all(rows)
            db.commit()  # keys are filled in by the flush; nothing is computed by the database

    def update(self, row: SQLModel, **changes: Any) -> None:
        """Set columns of a stored row, on the object and in the database (one UPDATE of those columns)."""
        table: Table = row.__table__  # type: ignore[attr-defined]
        for key, value in changes.items():
            setattr(row, key, value)
        key = {column: getattr(row, column.key) for column in table.primary_key.columns}
        with self.engine.begin() as db:
            if db.execute(update(table).where(*(column == value for column, value in key.items())).values(changes)).rowcount != 1:
                raise LookupError(f"{table.name} {list(key.values())} is not in {self.path}")

    def close_connections(self) -> None:
        """Close the pooled SQLite connections (before a fork: no handle may cross it; later calls reopen them)."""
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
