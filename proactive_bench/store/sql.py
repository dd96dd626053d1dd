"""What the store's reads are written on: plain SQL with ``:name`` parameters, run by stdlib ``sqlite3`` or SQLAlchemy.

Each read query is written once, here and in the query modules (``lookup.py``, ``runs.py``, ``reading.py``), and
returns records (:mod:`~proactive_bench.store.records`). :class:`SqlReads` runs it through ``_fetch``: the SQLite
reader of the read-only commands (:mod:`~proactive_bench.store.reader`) hands it to ``sqlite3``, the full
:class:`~proactive_bench.store.database.Store` to its engine's driver (compiled once per text as SQLAlchemy's ``text``,
:mod:`~proactive_bench.store.direct`), so on PostgreSQL too the same SQL runs. A time given as a parameter is written as each dialect compares it (:meth:`SqlReads.when`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from proactive_bench.store.records import Record, decode

R = TypeVar("R", bound=Record)

SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy writes a time into SQLite (text, naive UTC): a time compared with a stored one is written the same way."""


class SqlReads:
    """The base of the store's read queries: ``_fetch`` runs one statement, :meth:`select` reads records."""

    name: str
    """The database as messages name it."""
    dialect: str
    """``sqlite`` or ``postgresql``."""

    def _fetch(self, sql: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        raise NotImplementedError

    def select(self, kind: type[R], where: str = "", params: Mapping[str, Any] | None = None, order: str = "") -> list[R]:
        """The records of ``kind`` whose row meets ``where`` (SQL over its columns), in ``order`` (an ORDER BY's terms)."""
        sql = f"SELECT {', '.join(name for name, _ in kind.COLUMNS)} FROM {kind.TABLE}"  # names from the records: constants
        sql += f" WHERE {where}" if where else ""
        sql += f" ORDER BY {order}" if order else ""
        return [decode(kind, row) for row in self._fetch(sql, params or {})]

    def when(self, moment: datetime) -> Any:
        """A time as a parameter compared with a stored time: SQLite's text of it in UTC, a datetime for PostgreSQL."""
        moment = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)  # a naive time is taken as UTC
        return moment.strftime(SQLITE_TIME) if self.dialect == "sqlite" else moment

    def json_text(self, column: str, key: str) -> str:
        """SQL for the text under ``key`` of a JSON column (``key``: a constant name)."""
        return f"JSON_EXTRACT({column}, '$.\"{key}\"')" if self.dialect == "sqlite" else f"({column} ->> '{key}')"


def one_of(name: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """``(:name_0, :name_1, ...)`` for an ``IN``, with its parameters (``(NULL)``, matching nothing, for no values)."""
    params = {f"{name}_{i}": value for i, value in enumerate(values)}
    return "(" + (", ".join(f":{key}" for key in params) or "NULL") + ")", params


def like_escaped(text: str) -> str:
    """``text`` matched literally by ``LIKE ... ESCAPE '/'``: its ``%`` and ``_`` (and ``/``) escaped."""
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_")
