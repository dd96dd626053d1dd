"""Results persistence through SQLModel, on SQLite (a file, the default) or PostgreSQL (a URL), behind :class:`Store`.

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
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import Dialect, Engine, Table, bindparam, text, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from proactive_bench.store.answers import RecordedAnswers
from proactive_bench.store.cleanup import CleanupQueries
from proactive_bench.store.direct import Direct, direct
from proactive_bench.store.engine import StoreOpenError, autocommit_reads, locate, make_engine
from proactive_bench.store.judgments import JudgmentQueries
from proactive_bench.store.lease import Fences, check_fence
from proactive_bench.store.migration import migrate, require_head
from proactive_bench.store.probes import ProbeQueries
from proactive_bench.store.reading import ReadQueries
from proactive_bench.store.records import Record
from proactive_bench.store.sessions import SessionQueries
from proactive_bench.store.snapshots import LastWritten
from proactive_bench.store.tables import Run, Sweep
from proactive_bench.store.writer import WriteThread

UPDATABLE: dict[str, type[SQLModel]] = {"run": Run, "sweep": Sweep}
"""The tables whose rows, as read (:mod:`~proactive_bench.store.records`), :meth:`Store.update` changes."""


class Store(ReadQueries, SessionQueries, JudgmentQueries, ProbeQueries, CleanupQueries):
    """The results database of one results directory; the only holder of its engine."""

    def __init__(self, location: str | Path, *, read_only: bool = False) -> None:
        """Open the results database at a path (SQLite) or a URL (see :mod:`~proactive_bench.store.engine`), migrating it
        to this pbench's schema (:mod:`~proactive_bench.store.migration`); StoreOpenError or StoreSchemaError when that fails.

        ``read_only``: every connection refuses to write (SQLite ``mode=ro``, PostgreSQL read-only transactions), so a
        reader beside a running sweep changes nothing; such a database is not migrated, and one at another revision is refused."""
        self.location = locate(location)
        self.name = self.location.name
        """The database as messages name it (a path, or the URL without its password)."""
        self.read_only = read_only
        self.engine: Engine = make_engine(self.location, read_only=read_only)
        self.dialect = self.engine.dialect.name
        self.reads: Engine = autocommit_reads(self.engine)
        """Where reads of one statement run (no transaction around them on PostgreSQL), sharing the engine's connections."""
        try:
            if read_only:
                require_head(self.engine, self.name)
            else:
                migrate(self.engine, self.name)
        except DBAPIError as exc:
            raise StoreOpenError(" ".join(str(exc.orig).split())) from exc
        self.writer = WriteThread()
        """Where running episodes save their sessions, off the event loop (copies of this store share it)."""
        self.answers = RecordedAnswers(self.engine, self.writer)
        """Recorded model answers of every run on this database, written in bursts (on the writing thread)."""
        weakref.finalize(self, self.engine.dispose)  # at exit too: the last connection closed folds the WAL into the file
        self.last_snapshots: LastWritten = {}
        """The snapshots this process saved last, per run and kind: the bases of the next ones (see :mod:`~proactive_bench.store.snapshots`)."""
        self.fence: Fences | None = None
        """The lease this process writes under (see :mod:`proactive_bench.store.lease`): every session save checks it."""

    def add(self, *rows: SQLModel) -> None:
        """Insert rows in one transaction, parents first (the tables' foreign-key order); a row's generated key is set on it.

        Row by row on the driver (:mod:`~proactive_bench.store.direct`): the ORM's unit of work cost more than the inserts
        (a run's row is added at every start)."""
        with self.engine.begin() as db:
            for row in sorted(rows, key=lambda row: _TABLE_ORDER.get(row.__table__.name, len(_TABLE_ORDER))):  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
                table: Table = row.__table__  # type: ignore[attr-defined]  # as above
                values = {c.key: value for c in table.columns if not ((value := getattr(row, c.key)) is None and c.primary_key)}
                (key,) = direct(_insert_returning_key(table), db.dialect, tuple(values)).execute(db, values)
                for column, value in zip(table.primary_key.columns, key, strict=True):
                    if getattr(row, column.key) is None:
                        setattr(row, column.key, value)

    def _fetch(self, sql: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        """The reads' statements (:mod:`~proactive_bench.store.sql`), on this store's engine: each SQL text compiled once (as
        ``text(sql)``) and run on the driver (:mod:`~proactive_bench.store.direct`; untyped, its columns come back as the
        driver reads them, as through SQLAlchemy). A Ray runner reads its run at every run's start, a sweep's summary
        each session's rows."""
        with self.reads.connect() as db:
            return _read(sql, db.dialect).execute(db, params)

    def update(self, row: SQLModel | Record, **changes: Any) -> None:
        """Set columns of a stored row (a table's object, or a run or sweep as read), on the object and in the database (one
        UPDATE of those columns).

        Under a lease (``fence``), only while this process still holds it: LeaseLost otherwise, nothing changed (a
        writer that lost its run never writes a final status over the new holder's)."""
        table: Table = (UPDATABLE[row.TABLE] if isinstance(row, Record) else row).__table__  # type: ignore[union-attr]  # SQLModel sets __table__ on table classes; its stubs do not declare it
        primary = {f"{KEY_PREFIX}{column.key}": getattr(row, column.key) for column in table.primary_key.columns}
        if unknown := changes.keys() - table.columns.keys():
            raise TypeError(f"{table.name} has no columns {sorted(unknown)}")
        with self.engine.begin() as db:
            if len(direct(_update_by_key(table), db.dialect, tuple(changes)).execute(db, {**changes, **primary})) != 1:
                raise LookupError(f"{table.name} {list(primary.values())} is not in {self.name}")
            if self.fence is not None:  # after the write: on SQLite the transaction then holds the write lock
                check_fence(db, self.fence)
        for key, value in changes.items():
            setattr(row, key, value)

    def close_connections(self) -> None:
        """Close the pooled connections (before a fork: no handle may cross it; later calls reopen them)."""
        self.engine.dispose()


_TABLE_ORDER = {table.name: n for n, table in enumerate(SQLModel.metadata.sorted_tables)}
"""Every results table's place in foreign-key order (parents first)."""

KEY_PREFIX = "key_"
"""The bound parameters naming the row :meth:`Store.update` changes (no column's key starts with it)."""


READS_KEPT = 512
"""The most read statements kept compiled (their texts differ by query, and by the count of an ``IN`` list's values)."""


@lru_cache(maxsize=READS_KEPT)
def _read(sql: str, dialect: Dialect) -> Direct:
    """A read's SQL (``:name`` parameters) compiled for ``dialect``, kept for the next read of the same text."""
    return Direct(text(sql), dialect)


@cache
def _update_by_key(table: Table) -> Any:
    """An UPDATE of ``table``'s row by its primary key, returning the key (a row changed or none), built once: the columns
    it sets are the other parameters' names (a statement built per call cost its construction and cache key every time)."""
    key = table.primary_key.columns
    return update(table).where(*(column == bindparam(f"{KEY_PREFIX}{column.key}") for column in key)).returning(*key)


@cache
def _insert_returning_key(table: Table) -> Any:
    """``table``'s INSERT returning the row's primary key (generated or given), built once."""
    return table.insert().returning(*table.primary_key.columns)
