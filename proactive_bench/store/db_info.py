"""What a results database is, read without changing it: dialect, schema revision, how many runs, sweeps and sessions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, inspect, select
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from proactive_bench.store.engine import StoreOpenError, locate, make_engine
from proactive_bench.store.migration import head_revision, migrate, revision_of
from proactive_bench.store.tables import Run, SessionRun, Sweep

COUNTED: dict[str, type[SQLModel]] = {"runs": Run, "sweeps": Sweep, "sessions": SessionRun}


@dataclass(frozen=True)
class StoreOverview:
    """One results database at a glance."""

    name: str
    dialect: str
    revision: str | None
    """Its Alembic revision (None: no version table, a database older than migrations or a new one)."""
    head: str
    """The revision this pbench writes."""
    counts: dict[str, int]
    """Runs, sweeps and session runs stored (tables not there yet count 0)."""


def overview(location: str | Path) -> StoreOverview:
    """Read a results database's dialect, revision and counts without migrating it; StoreOpenError when it cannot be read."""
    where = locate(location)
    engine = make_engine(where)
    try:
        revision = revision_of(engine)
        present = set(inspect(engine).get_table_names())
        with engine.connect() as db:
            counts = {
                label: int(db.execute(select(func.count()).select_from(table)).scalar_one()) if table.__tablename__ in present else 0
                for label, table in COUNTED.items()
            }
    except DBAPIError as exc:
        raise StoreOpenError(" ".join(str(exc.orig).split())) from None
    finally:
        engine.dispose()
    return StoreOverview(where.name, engine.dialect.name, revision, head_revision(), counts)


def upgrade_schema(location: str | Path) -> tuple[str | None, str]:
    """Bring a results database to this pbench's schema (as opening it for writing does); its revision before and after."""
    where = locate(location)
    engine = make_engine(where)
    try:
        before = revision_of(engine)
        migrate(engine, where.name)
        return before, head_revision()
    except DBAPIError as exc:
        raise StoreOpenError(" ".join(str(exc.orig).split())) from None
    finally:
        engine.dispose()
