"""Where the results database is (a SQLite path or a SQLAlchemy URL), its engine, and the statements whose SQL differs by dialect.

``--db`` and ``PBENCH_DB`` take a file path (SQLite, the embedded default) or
a URL: ``sqlite:///PATH`` or ``postgresql+psycopg://USER:PASSWORD@HOST:PORT/NAME``
(``postgresql://`` means the same driver). Everything that differs between
the two lives here: connection settings (SQLite's pragmas and busy timeout),
insert-or-ignore and upsert, and byte-wise ordering of text.
"""

from __future__ import annotations

import importlib
import sqlite3
import time
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

from sqlalchemy import URL, ColumnElement, Dialect, Engine, Table, create_engine, event, make_url
from sqlalchemy.exc import ArgumentError, InvalidatePoolError

from proactive_bench.store.defaults import DEFAULT_RESULTS
from proactive_bench.store.reader import sqlite_read_only

DIALECTS = ("sqlite", "postgresql")
"""The databases the results store runs on."""


class StoreOpenError(RuntimeError):
    """A database that cannot be opened as a results database (not a database, unreachable, a bad URL); the message says why."""


@dataclass(frozen=True)
class Location:
    """A results database: its SQLAlchemy URL, and the file when it is SQLite."""

    url: URL
    file: Path | None

    @property
    def name(self) -> str:
        """How messages name it: the path, or the URL without its password."""
        return str(self.file) if self.file is not None else self.url.render_as_string(hide_password=True)

    @property
    def reopen(self) -> str:
        """What another process of this run opens it by: the absolute path, or the URL with its password (never print or store it)."""
        return str(self.file.resolve()) if self.file is not None else self.url.render_as_string(hide_password=False)

    @property
    def results_dir(self) -> Path:
        """Where runs' workspaces and the validation cache go: beside a SQLite file, else ./pbench-runs (the machine's own disk)."""
        return self.file.parent if self.file is not None else DEFAULT_RESULTS

    @property
    def shareable(self) -> str:
        """What may be stored in a run's settings: the absolute path, or the URL without a password (libpq then reads PGPASSWORD or ~/.pgpass)."""
        return str(self.file.resolve()) if self.file is not None else self.url.set(password=None).render_as_string(hide_password=False)


def locate(location: str | Path) -> Location:
    """A path (SQLite) or a URL as a :class:`Location`; StoreOpenError for a URL of another database or a malformed one."""
    text = str(location)
    if "\x00" in text:
        raise StoreOpenError("a path or URL with a NUL byte in it")
    if "://" not in text:
        return Location(URL.create("sqlite", database=text), Path(text))
    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise StoreOpenError(f"not a database URL ({exc})") from None
    backend = url.get_backend_name()
    if backend not in DIALECTS:
        raise StoreOpenError(
            f"a {backend} URL; the results store runs on SQLite (a path or sqlite:///PATH) or PostgreSQL (postgresql+psycopg://...)"
        )
    if backend == "postgresql":
        return Location(url.set(drivername="postgresql+psycopg"), None)
    if not url.database:
        raise StoreOpenError("a sqlite URL without a file (sqlite:///PATH)")
    return Location(url, Path(url.database))


def make_engine(where: Location, read_only: bool = False) -> Engine:
    """The engine of a results database, with its dialect's connection settings; ``read_only``: no connection may write."""
    if where.file is None:
        options = {"options": "-c default_transaction_read_only=on"} if read_only else {}
        engine = create_engine(where.url, connect_args=options)
        event.listen(engine, "checkin", _note_use)
        event.listen(engine, "checkout", partial(_ping_if_idle, engine.dialect))
        return engine
    file = where.file
    if read_only:
        return create_engine(where.url, creator=lambda: sqlite_read_only(file))  # the file's URL: a pool of connections, as for writing
    where.file.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(where.url, connect_args={"timeout": SQLITE_BUSY_S})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def autocommit_reads(engine: Engine) -> Engine:
    """The engine the store's reads of one statement run on: on PostgreSQL outside any transaction (autocommit: the SELECT
    alone, one round trip and one server statement where psycopg's BEGIN and the pool's ROLLBACK around it made three;
    one statement sees one snapshot either way); on SQLite the engine itself (its driver begins no transaction to read).
    It shares the engine's pool: each checkout sets autocommit on the connection and its return sets it back."""
    return engine.execution_options(isolation_level="AUTOCOMMIT") if engine.dialect.name == "postgresql" else engine


@cache
def insert_ignoring(table: Table | type[Any], dialect: str) -> Any:
    """INSERT that keeps the row already there when a unique key collides (ON CONFLICT DO NOTHING); built once per
    table and dialect (a statement built anew costs its construction and cache key at every execution)."""
    return _insert(dialect)(table).on_conflict_do_nothing()


def upsert(table: Table | type[Any], keys: list[str], replace: list[str], dialect: str) -> Any:
    """INSERT that, when ``keys`` collide, sets the ``replace`` columns of the row already there to the new values."""
    statement = _insert(dialect)(table)
    return statement.on_conflict_do_update(index_elements=keys, set_={column: statement.excluded[column] for column in replace})


def bytewise(column: ColumnElement[str], dialect: str) -> ColumnElement[str]:
    """A text column compared byte by byte (SQLite's default; PostgreSQL's database collation may order punctuation otherwise)."""
    return column.collate("C") if dialect == "postgresql" else column


def _insert(dialect: str) -> Any:
    if dialect not in DIALECTS:
        raise ValueError(f"the results store has no statements for {dialect}")
    return importlib.import_module(f"sqlalchemy.dialects.{dialect}").insert  # the dialect in use only: PostgreSQL's costs a SQLite open


PING_IDLE_S = 1.0
"""A pooled PostgreSQL connection idle for longer is pinged before use (a server restarted meanwhile invalidates the pool);
one used more recently is not: a ping at every checkout was a round trip, several per session (SQLAlchemy's pool_pre_ping)."""
_USED = "pbench_used"
"""The key of a pooled connection's ``info`` holding when it was last checked in (time.monotonic)."""


def _note_use(_dbapi_connection: Any, record: Any) -> None:
    record.info[_USED] = time.monotonic()


def _switch_to_wal(cursor: Any) -> None:
    """``PRAGMA journal_mode=WAL``, tried again while another connection holds a lock, up to :data:`SQLITE_BUSY_S`.

    A new file stays in rollback-journal mode until its first write; a second process opening it while the first one
    writes (creating the schema) cannot switch it, and SQLite answers "database is locked" at once instead of waiting
    for the busy timeout (three processes opening one new file at once failed about one time in fifteen)."""
    deadline, wait = time.monotonic() + SQLITE_BUSY_S, WAL_RETRY_S
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + wait > deadline:
                raise
        time.sleep(wait)
        wait = min(wait * 2, 0.1)


def _ping_if_idle(dialect: Dialect, dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """Ping a connection idle for over PING_IDLE_S (a new one is not); one found gone invalidates the pool's connections,
    as pool_pre_ping does, and the pool connects again."""
    used = record.info.get(_USED)
    if used is None or time.monotonic() - used <= PING_IDLE_S:
        return
    try:
        dialect.do_ping(dbapi_connection)
    except dialect.loaded_dbapi.Error as exc:
        if dialect.is_disconnect(exc, dbapi_connection, None):
            raise InvalidatePoolError(f"the connection was lost while idle ({exc})") from exc
        raise


SQLITE_BUSY_S = 30.0
"""How long a SQLite connection waits for another's lock (its busy timeout, and the WAL switch's retries)."""
WAL_RETRY_S = 0.01
"""The first wait before trying the WAL switch again (doubled up to 0.1 s)."""


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    _switch_to_wal(cursor)
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
