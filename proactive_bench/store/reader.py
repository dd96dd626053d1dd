"""A SQLite results database read with the standard library alone: what ``pbench runs``, ``sweeps`` and ``results`` open.

:class:`Reader` has every read query of the store (:class:`~proactive_bench.store.reading.ReadQueries`, the same
SQL the full :class:`~proactive_bench.store.database.Store` runs through SQLAlchemy) on a connection that cannot
write, so a command that only reads loads neither SQLAlchemy nor SQLModel. It reads a database at this pbench's
schema revision only (:data:`~proactive_bench.store.revision.HEAD`, read from Alembic's version table without
Alembic): :func:`open_reader` answers None for any other (older: the Store migrates it; newer or foreign: the
Store refuses it with its message), and for a file that is no SQLite database (the Store says why).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from proactive_bench.store.reading import ReadQueries
from proactive_bench.store.revision import HEAD, VERSION_TABLE

BUSY_TIMEOUT = 30
"""Seconds a statement waits for a writer's lock (as the store's own SQLite connections do)."""


def sqlite_read_only(file: Path) -> sqlite3.Connection:
    """A connection that cannot write (``mode=ro``): it reads the WAL a writer beside it keeps, and never checkpoints or changes it."""
    connection = sqlite3.connect(f"file:{quote(str(file.resolve()))}?mode=ro", uri=True, timeout=BUSY_TIMEOUT, check_same_thread=False)
    connection.execute("PRAGMA query_only=ON")
    return connection


class Reader(ReadQueries):
    """The read queries of a SQLite results database at :data:`~proactive_bench.store.revision.HEAD`, on one read-only connection."""

    dialect = "sqlite"

    def __init__(self, file: Path, connection: sqlite3.Connection) -> None:
        self.name = str(file)
        self.connection = connection

    def _fetch(self, sql: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        return self.connection.execute(sql, dict(params)).fetchall()


def open_reader(file: Path) -> Reader | None:
    """A :class:`Reader` of the SQLite file, or None when it is at another schema revision, has none, or is no SQLite database."""
    try:
        connection = sqlite_read_only(file)
        if revision(connection) == HEAD:
            return Reader(file, connection)
    except sqlite3.Error:
        return None
    connection.close()
    return None


def revision(connection: sqlite3.Connection) -> str | None:
    """The one revision in Alembic's version table (None: no table, no row, or more than one)."""
    if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (VERSION_TABLE,)).fetchone() is None:
        return None
    rows = connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchall()  # a constant table name
    return rows[0][0] if len(rows) == 1 else None
