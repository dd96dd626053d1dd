"""Rows of a session in progress, kept as plain values and inserted table by table when it is saved."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Connection, Table
from sqlmodel import SQLModel

from proactive_bench.store.direct import direct


@dataclass(frozen=True, slots=True)
class PendingRow:
    """A row of a session in progress, kept as plain values until the session is saved.

    Its ``session_run_id`` is filled in then. Building ORM objects for every
    message, tool call and model call cost more than saving them.
    """

    table: type[SQLModel]
    values: dict[str, Any]


def pending_row(table: type[SQLModel], **values: Any) -> PendingRow:
    """A row of ``table`` with the model's defaults for the columns not given; unknown columns are refused."""
    static, factories, columns = _column_defaults(table)
    unknown = values.keys() - columns
    if unknown:
        raise TypeError(f"{table.__name__} has no columns {sorted(unknown)}")
    made = {name: make() for name, make in factories.items() if name not in values}
    return PendingRow(table, {**static, **made, **values})


@cache
def _column_defaults(table: type[SQLModel]) -> tuple[dict[str, Any], dict[str, Callable[[], Any]], frozenset[str]]:
    """Per table: fixed defaults, default factories, and the columns a pending row may set (not the keys)."""
    static: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    columns = frozenset(name for name in table.model_fields if name not in ("id", "session_run_id"))
    for name in columns:
        info = table.model_fields[name]
        if info.default_factory is not None:
            factories[name] = info.default_factory  # type: ignore[assignment]  # pydantic types default_factory as taking the validated data or not; these take none
        elif not info.is_required():
            static[name] = info.default
    return static, factories, columns


def insert_rows(db: Connection, session_run_id: int, rows: Sequence[PendingRow]) -> None:
    """Insert pending rows for a session run: one bulk insert per table (run on the driver, :mod:`~proactive_bench.store.direct`)."""
    by_table: dict[Table, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_table[row.table.__table__].append({**row.values, "session_run_id": session_run_id})  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
    for table, values in by_table.items():
        direct(insert_into(table), db.dialect, tuple(values[0]), many=True).executemany(db, values)


@cache
def insert_into(table: Table) -> Any:
    """The table's plain INSERT, built once: executed as it is, it reuses its compiled form without computing its cache key again."""
    return table.insert()
