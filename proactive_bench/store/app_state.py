"""Engines and transactions of the simulated apps' state databases (not the results database).

The apps (:mod:`proactive_bench.env.apps`, :mod:`proactive_bench.env.messaging`)
define their own tables and query them on the session handed to them: their
databases are part of the world under test, so that ORM code stays with the
apps. Making the engine (file or in-memory, pragmas, pool) and opening a
transaction are persistence plumbing and live here, like every other engine.

Every in-memory database's engine shares one SQLite dialect and one compiled-statement cache
(:func:`_memory_engine`): SQLAlchemy keys a compiled statement by its dialect object, and a dialect per engine
compiled each app's statements again for every episode run. Only compiled SQL is shared; each engine has its own
connection, so no row of one database is seen by another.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast

from sqlalchemy import URL, Engine, MetaData, event
from sqlalchemy.engine import Dialect
from sqlalchemy.pool import StaticPool
from sqlalchemy.util import LRUCache
from sqlmodel import Session, create_engine


@dataclass(frozen=True)
class AppDatabase:
    """An open app-state database: its engine, and the in-memory SQLite connection behind it (None for a file)."""

    engine: Engine
    memory: sqlite3.Connection | None


def open_app_database(metadata: MetaData, path: Path | None, image: bytes | None = None) -> AppDatabase:
    """The app state in memory (``path`` None) or in a database file, with every table of ``metadata``.

    A new database is a copy of an empty one built once per process (no DDL per
    episode run), or of ``image`` (a serialized database of those tables) when
    given; an existing file gets the tables added since it was made.
    """
    image = image or _empty_database(metadata, tuple(sorted(metadata.tables)))
    fresh = path is None or not path.exists()
    memory: sqlite3.Connection | None = None
    if path is None:
        memory = sqlite3.connect(":memory:", check_same_thread=False)
        memory.deserialize(image)  # every table, without running the DDL again
        engine = _memory_engine(memory)
    else:
        if fresh:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(image)
        engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _app_db_pragmas)
    if memory is not None:  # the pool's one connection set up now (pragmas, dialect), as :func:`driver_transaction` uses it
        engine.raw_connection().close()
    if not fresh:
        metadata.create_all(engine)
    return AppDatabase(engine, memory)


@contextmanager
def app_transaction(engine: Engine) -> Iterator[Session]:
    """A transaction on an app database: committed when the block ends normally, rolled back on error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def driver_transaction(engine: Engine, memory: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """A transaction on an app database's own sqlite3 connection: committed when the block ends normally, rolled back on
    error. In memory (``memory``, :class:`AppDatabase`'s) the connection itself, the only one its engine's pool holds;
    a file's checked out from the engine's pool, as a session takes it. For a few plain statements run often (the
    simulated clock's): a session's or SQLAlchemy connection's set-up, the pool's check-out and the statements' compiling
    and result handling cost several times the statements."""
    pooled = engine.raw_connection() if memory is None else None
    driver = memory if pooled is None else pooled.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    try:
        yield driver
        driver.commit()
    except BaseException:
        driver.rollback()
        raise
    finally:
        if pooled is not None:
            pooled.close()


def _app_db_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Foreign keys on; no fsync and an in-memory journal: the app database is scratch state that a
    resumed run rebuilds from the session-end snapshot in the results store, so it need not survive a crash."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute("PRAGMA journal_mode=MEMORY")
    cursor.close()


MEMORY_QUERY_CACHE = 500
"""How many compiled statements the in-memory engines keep together (an engine's default; a Trainee play's fill a few
dozen: the ORM's flushes keep theirs on each table's mapper, keyed by the dialect too)."""


@dataclass(frozen=True)
class _MemoryKit:
    """What every in-memory app database's engine shares: an initialized SQLite dialect, its URL, what it runs on each
    new connection, and the compiled-statement cache."""

    dialect: Dialect
    url: URL
    on_connect: Callable[[Any], None] | None
    compiled: LRUCache[Any, Any]


@cache
def _memory_kit() -> _MemoryKit:
    """Made once per process: the dialect is initialized on a throwaway connection, as ``create_engine`` does on an
    engine's first connection."""
    prototype = create_engine("sqlite://", poolclass=StaticPool)
    with prototype.connect():
        pass
    prototype.dispose()
    dialect = prototype.dialect
    return _MemoryKit(dialect, prototype.url, dialect.on_connect_url(prototype.url), LRUCache(MEMORY_QUERY_CACHE))


def _memory_engine(connection: sqlite3.Connection) -> Engine:
    """An engine on one in-memory SQLite connection (its only connection) that compiles with the shared dialect and
    cache, and runs on that connection what the dialect runs on each new one (``create_engine`` would too)."""
    kit = _memory_kit()
    pool = StaticPool(cast(Callable[[], Any], lambda: connection), dialect=kit.dialect)
    if (on_connect := kit.on_connect) is not None:
        event.listen(pool, "connect", lambda dbapi_connection, _record: on_connect(dbapi_connection))
    return Engine(pool, kit.dialect, kit.url, execution_options={"compiled_cache": kit.compiled})


@cache
def _empty_database(metadata: MetaData, table_names: tuple[str, ...]) -> bytes:
    """The file image of a database holding every table of ``metadata``, built once per process and table set."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    engine = create_engine("sqlite://", creator=lambda: connection)
    metadata.create_all(engine)
    image = connection.serialize()
    engine.dispose()
    connection.close()
    return image
