"""The statements of the hot write path (a session's save, the recorded answers' flush), compiled once per dialect and run
on the driver's cursor.

Through :meth:`sqlalchemy.engine.Connection.execute`, a statement already compiled still costs 15 to 25 µs of Python per
execution (an execution context, every parameter set processed, a result set up), several times what SQLite takes to run
it; a save runs about a dozen. A :class:`Direct` statement is compiled by SQLAlchemy once (its SQL, and the bound
parameters' processors of its types: times as text on SQLite, JSON, compression), and each execution only applies those
processors and hands the values to the DBAPI cursor of the transaction's connection, so what is stored is what
SQLAlchemy would store (``tests/store/test_direct.py`` compares the rows on SQLite and PostgreSQL). A driver error is
raised as SQLAlchemy raises it (``IntegrityError``, ``OperationalError``: :class:`sqlalchemy.exc.DBAPIError`).

Only statements that need nothing at execution time qualify: no column default computed in Python, no expanding
``IN``, no parameter name that needs escaping (refused when compiled), and result columns read as the driver returns
them (ids, text).

A batch of rows (:meth:`Direct.executemany`) of an INSERT goes to PostgreSQL as multi-row ``INSERT ... VALUES (...),
(...)`` statements of at most :data:`ROWS_PER_INSERT` rows, in the batch's order: psycopg's ``executemany`` sends every
row as a statement of its own, which the server parses, plans and runs one by one (about 25 a session's save). They
are written with PostgreSQL's own ``$n`` parameters and run on a raw cursor (``psycopg.RawCursor``): psycopg parses a
query's ``%s`` parameters again at every execution once it has over 50 (a save's six model calls have 96). SQLite
keeps ``executemany``: in process, with no round trips, one statement for six rows saved about 2 µs of 13 (measured
with ``sqlite3``), not worth a second way of writing each statement there.
An upsert's rows in one batch must not share a key (PostgreSQL refuses to update a row twice in one statement).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import itemgetter
from typing import Any, cast

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement


class Direct:
    """A statement compiled for one dialect, executed straight on the driver's cursor (see the module)."""

    __slots__ = ("_by_count", "_error", "_get", "_literals", "_names", "_processors", "_rows", "dialect", "positional", "sql")

    def __init__(self, statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None = None, many: bool = False) -> None:
        """``keys``: the columns an INSERT or UPDATE without values of its own sets; ``many``: executed for several rows
        at once (no implicit RETURNING of the generated key)."""
        compiled = cast(
            SQLCompiler, statement.compile(dialect=dialect, column_keys=None if keys is None else list(keys), for_executemany=many)
        )
        if compiled.insert_prefetch or compiled.update_prefetch or compiled.post_compile_params or compiled.escaped_bind_names:
            raise ValueError(f"not a statement to run directly (defaults computed in Python, an expanding IN or escaped names): {compiled}")
        self.sql = compiled.string
        self.dialect = dialect
        self.positional = compiled.positional
        names = tuple(compiled.positiontup if self.positional and compiled.positiontup is not None else compiled.binds)
        binds = [compiled.binds[name] for name in names]
        self._names = names
        self._literals = {name: bind.effective_value for name, bind in zip(names, binds, strict=True) if not bind.required}
        """The values of the parameters a row need not give (a literal's)."""
        self._processors = tuple(
            (n, process) for n, bind in enumerate(binds) if (process := bind.type.dialect_impl(dialect).bind_processor(dialect)) is not None
        )
        """Per parameter whose type has one, its place and the processor SQLAlchemy's execution applies (None included)."""
        self._get: Callable[[Mapping[str, Any]], Sequence[Any]] = _getter(names)
        self._error = dialect.loaded_dbapi.Error
        self._rows = _multirow(self.sql, names) if many and compiled.isinsert and dialect.name in MULTIROW_DIALECTS else None
        """A batch's multi-row form: the SQL before and after its VALUES row, that row's text around its parameters, and
        the place in a row's processed values of each parameter (None: the batch runs as ``executemany``)."""
        self._by_count: dict[int, str] = {}
        """The multi-row statement's SQL per number of rows, made at its first use."""

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """The driver's parameters for one row of ``values`` (by bound parameter name), processed as SQLAlchemy does."""
        row = self._processed(values)
        return tuple(row) if self.positional else dict(zip(self._names, row, strict=True))

    def _processed(self, values: Mapping[str, Any]) -> list[Any]:
        """One row's parameter values in the order of their names, processed as SQLAlchemy does."""
        row = list(self._get({**self._literals, **values} if self._literals else values))
        for n, process in self._processors:
            row[n] = process(row[n])
        return row

    def execute(self, db: Connection, values: Mapping[str, Any] | None = None) -> list[Any]:
        """Run it once inside ``db``'s transaction; the rows it returns (a SELECT, or RETURNING), as the driver gives them."""
        params = self.params(values or {})
        with driver_cursor(db) as cursor:
            try:
                cursor.execute(self.sql, params)
                return list(cursor.fetchall()) if cursor.description is not None else []
            except self._error as exc:
                raise self._raised(db, self.sql, params, exc) from exc

    def executemany(self, db: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run it for every row (one driver call; no rows returned) inside ``db``'s transaction."""
        if not rows:
            return
        if self._rows is not None:
            self._insert_values(db, rows, self._rows[3])
            return
        params = [self.params(row) for row in rows]
        with driver_cursor(db) as cursor:
            try:
                cursor.executemany(self.sql, params)
            except self._error as exc:
                raise self._raised(db, self.sql, params, exc, ismulti=True) from exc

    def _insert_values(self, db: Connection, rows: Sequence[Mapping[str, Any]], order: tuple[int, ...]) -> None:
        """The rows as multi-row INSERTs of at most :data:`ROWS_PER_INSERT` rows each, in order, on a raw cursor."""
        cursor = kept_cursor(db, raw=True)
        for start in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[start : start + ROWS_PER_INSERT]
            sql = self._by_count.get(len(chunk)) or self._by_count.setdefault(len(chunk), self._sql_for(len(chunk)))
            params = [values[n] for values in map(self._processed, chunk) for n in order]
            try:
                cursor.execute(sql, params)
            except self._error as exc:
                raise self._raised(db, sql, params, exc) from exc

    def _raised(self, db: Connection, sql: str, params: Any, exc: Any, ismulti: bool = False) -> StatementError:
        """The driver's error ``exc`` (its DBAPI's ``Error``) as SQLAlchemy raises it from its own execution: when it tells
        of a lost connection (a server that ended it, a restart), ``db`` is invalidated first, so the pool replaces the
        connection (and its kept cursor) instead of resetting a dead one, which logged a traceback."""
        lost = self.dialect.is_disconnect(exc, db.connection.dbapi_connection, None)
        if lost:
            db.invalidate(exc)
        return DBAPIError.instance(sql, params, exc, self._error, dialect=self.dialect, connection_invalidated=lost, ismulti=ismulti)

    def _sql_for(self, count: int) -> str:
        """The INSERT of ``count`` rows, its parameters numbered ``$1``, ``$2``, ... row after row."""
        assert self._rows is not None
        head, pieces, tail, _ = self._rows
        width = len(pieces) - 1
        rows = ("".join(f"{piece}${row * width + n}" for n, piece in enumerate(pieces[:-1], 1)) + pieces[-1] for row in range(count))
        return head + ", ".join(rows) + tail


@contextmanager
def driver_cursor(db: Connection) -> Iterator[Any]:
    """The cursor a statement runs on in ``db``: on PostgreSQL the connection's kept one (:func:`kept_cursor`); on SQLite
    a new one, closed after (a sqlite3 cursor that outlived its connection's close would keep that connection open, a
    write lock included, until the cursor went; a new one costs a few µs)."""
    if db.dialect.name not in KEPT_CURSOR_DIALECTS:
        cursor = db.connection.cursor()
        try:
            yield cursor
        finally:
            cursor.close()
        return
    yield kept_cursor(db)


def kept_cursor(db: Connection, raw: bool = False) -> Any:
    """The cursor :class:`Direct` statements run on in ``db`` on PostgreSQL: one per driver connection (a
    ``psycopg.RawCursor`` for ``raw``), made at its first use and kept in the pool's record of that connection, which
    drops it when it replaces the connection. A new psycopg cursor learns again how to send and read each type: a
    SELECT of one parameter took 46 µs of CPU on a new cursor, 28 µs on a kept one."""
    pooled = db.connection
    key = _RAW_CURSOR if raw else _CURSOR
    cursor = pooled.info.get(key)
    if cursor is None:
        driver = pooled.dbapi_connection
        assert driver is not None, "a checked-out connection has its driver's"
        cursor = db.dialect.loaded_dbapi.RawCursor(driver) if raw else driver.cursor()
        pooled.info[key] = cursor
    return cursor


_CURSOR, _RAW_CURSOR = "pbench_cursor", "pbench_raw_cursor"
"""The keys of a pooled connection's ``info`` holding its kept cursors."""
KEPT_CURSOR_DIALECTS = frozenset({"postgresql"})
"""Where statements run on a kept cursor (:func:`driver_cursor`)."""


def direct(statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None = None, many: bool = False) -> Direct:
    """``statement`` as a :class:`Direct` for ``dialect``, compiled at its first use (kept per dialect, as long as the
    dialect lives; the statement itself must be one built once, as each call site's ``functools.cache`` does)."""
    global _last
    last_dialect, found = _last
    if last_dialect is not dialect:
        found = _compiled.setdefault(dialect, {})
        _last = (dialect, found)  # in a process with one database, the same dialect comes next: no weak reference made
    key = (statement, None if keys is None else tuple(keys), many)
    made = found.get(key)
    if made is None:
        made = found[key] = Direct(statement, dialect, keys, many)
    return made


_compiled: weakref.WeakKeyDictionary[Dialect, dict[tuple[Any, ...], Direct]] = weakref.WeakKeyDictionary()
"""Per dialect (each engine has its own), its statements as compiled for it."""
_last: tuple[Dialect | None, dict[tuple[Any, ...], Direct]] = (None, {})
"""The dialect looked up last and its statements."""


ROWS_PER_INSERT = 100
"""At most this many rows in one multi-row INSERT (a save writes a few to a few dozen per table; PostgreSQL takes
65,535 parameters in one statement)."""
MULTIROW_DIALECTS = frozenset({"postgresql"})
"""Where a batch of INSERT rows runs as multi-row statements (see the module)."""
_NAMED = re.compile(r"%\(([^)]+)\)s")
"""A named parameter as psycopg's ``pyformat`` writes it."""


def _multirow(sql: str, names: Sequence[str]) -> tuple[str, tuple[str, ...], str, tuple[int, ...]]:
    """``sql`` (an INSERT of one row with named parameters, all of them in its VALUES row) as the text before that row,
    the row's text around its parameters, the text after it (``%%`` as ``%``: PostgreSQL's own parameters need no
    escape), and where each parameter is among ``names``; ValueError for any other statement."""
    found = sql.find(" VALUES (")
    start = found + len(" VALUES ")  # the row's opening parenthesis
    depth, end = 0, start
    if found >= 0:
        for end in range(start, len(sql)):  # to the parenthesis that closes it
            depth += {"(": 1, ")": -1}.get(sql[end], 0)
            if depth == 0:
                break
    head, row, tail = sql[:start], sql[start : end + 1], sql[end + 1 :]
    split = _NAMED.split(row)  # text, name, text, ..., text
    used = split[1::2]
    if found < 0 or depth != 0 or "%(" in head + tail or sorted(used) != sorted(names) or "$" in sql:
        raise ValueError(f"not an INSERT of one row with its parameters in VALUES, to run for many rows at once: {sql}")
    unescaped = tuple(text.replace("%%", "%") for text in split[::2])
    return head.replace("%%", "%"), unescaped, tail.replace("%%", "%"), tuple(names.index(name) for name in used)


def _getter(names: Sequence[str]) -> Callable[[Mapping[str, Any]], Sequence[Any]]:
    """The values of ``names`` in a row, in order (``itemgetter``, which returns a lone value for a single name)."""
    if len(names) == 1:
        name = names[0]
        return lambda values: (values[name],)
    return itemgetter(*names) if names else lambda _: ()
