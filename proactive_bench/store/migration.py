"""Bringing a results database written by an earlier pbench up to this one's tables.

A column this version added (nullable, so older rows need no value) is added
to the existing table with ``ALTER TABLE ... ADD COLUMN``, its foreign key
included; rows already there keep their values and are read as they were
written (see :mod:`~proactive_bench.store.codec`). A table that lacks a column
that cannot be added that way was written by another pbench and is refused.
"""

from __future__ import annotations

from pathlib import Path

import structlog
from sqlalchemy import Column, Engine, inspect, text
from sqlalchemy.schema import CreateColumn
from sqlmodel import SQLModel

log = structlog.get_logger(__name__)


class StoreSchemaError(RuntimeError):
    """A results database written by a pbench whose tables differ from this one's."""


def migrate_columns(engine: Engine, path: Path) -> None:
    """Add the columns this version's tables have and the database's lack; StoreSchemaError for one that cannot be added."""
    existing = inspect(engine)
    added: list[str] = []
    with engine.begin() as db:
        for table in SQLModel.metadata.sorted_tables:
            if not existing.has_table(table.name):
                continue
            present = {c["name"] for c in existing.get_columns(table.name)}
            missing = [c for c in table.columns if c.name not in present]
            refused = [c.name for c in missing if not _addable(c)]
            if refused:
                raise StoreSchemaError(
                    f"{path}: table {table.name} lacks columns {refused}; it was written by another pbench version. "
                    "Use a new --db file (old results stay readable by the version that wrote them)."
                )
            for column in missing:
                db.execute(text(f"ALTER TABLE {table.name} ADD COLUMN {_column_ddl(column, engine)}"))
                added.append(f"{table.name}.{column.name}")
    if added:
        log.info("results_database_migrated", path=str(path), added=added)


def _addable(column: Column[object]) -> bool:
    return bool(column.nullable) and not column.primary_key and column.server_default is None


def _column_ddl(column: Column[object], engine: Engine) -> str:
    ddl = str(CreateColumn(column).compile(dialect=engine.dialect))
    for key in column.foreign_keys:
        ddl += f" REFERENCES {key.column.table.name}({key.column.name})"
    return ddl
