"""Stored server probes (table ``probe``): the latest report per (base URL, model), as JSON text.

The probe itself and the report's shape are :mod:`proactive_bench.llm.probe`'s.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any

from sqlalchemy import Engine, bindparam
from sqlmodel import Field, Session, SQLModel, col, select

from proactive_bench.store.direct import direct


class ProbeRow(SQLModel, table=True):
    """A stored probe of one model on one server."""

    __tablename__ = "probe"
    id: int = Field(default=None, primary_key=True)
    base_url: str = Field(index=True)
    model: str
    report: str
    created: datetime = Field(default_factory=lambda: datetime.now(UTC))


class ProbeQueries:
    """The :class:`~proactive_bench.store.database.Store` methods over stored probes."""

    engine: Engine
    reads: Engine

    def probe_report(self, base_url: str, model: str) -> str | None:
        """The latest stored probe report of ``model`` on ``base_url`` (JSON), if any."""
        with self.reads.connect() as db:  # on the driver (direct.py): every run of a sweep asks, on the event loop
            found = direct(_latest_report(), db.dialect).execute(db, {"base_url": base_url, "model": model})
            return str(found[0][0]) if found else None

    def add_probe_report(self, base_url: str, model: str, report: str) -> None:
        with Session(self.engine) as db:
            db.add(ProbeRow(base_url=base_url, model=model, report=report))
            db.commit()


@cache
def _latest_report() -> Any:
    """The latest report of one model on one server; built once."""
    return (
        select(col(ProbeRow.report))
        .where(col(ProbeRow.base_url) == bindparam("base_url"), col(ProbeRow.model) == bindparam("model"))
        .order_by(col(ProbeRow.id).desc())
        .limit(1)
    )
