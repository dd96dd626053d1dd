"""Finding runs and sweeps: an id given as a unique prefix or ``latest``, and lists filtered by persona, model, status and age."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import ColumnElement, Engine, func, or_
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from proactive_bench.store.tables import LLMCall, Run, Sweep

LATEST = "latest"
"""The id word that names the newest run or sweep."""
CANDIDATES_SHOWN = 8
"""How many matches an ambiguous prefix's error lists."""


Listed = TypeVar("Listed", Run, Sweep)


class IdLookupError(LookupError):
    """An id that names no run or sweep, or more than one; the message is one line and lists the candidates."""


@dataclass(frozen=True)
class ListFilter:
    """What ``pbench runs`` and ``pbench sweeps`` keep: every given condition holds (None: any)."""

    persona: str | None = None
    model: str | None = None
    """Text the model name contains."""
    status: str | None = None
    since: datetime | None = None
    limit: int | None = None

    def of_runs(self) -> list[ColumnElement[bool]]:
        """The conditions on a run: its persona and its model."""
        conditions = []
        if self.persona is not None:
            conditions.append(or_(col(Run.persona) == self.persona, col(Run.config)["persona"].as_string() == self.persona))
        if self.model is not None:
            conditions.append(col(Run.model).contains(self.model, autoescape=True))
        return conditions

    def of_rows(self, table: type[Run] | type[Sweep]) -> list[ColumnElement[bool]]:
        """The conditions on a run's or a sweep's own row: its status and when it started."""
        conditions = []
        if self.status is not None:
            conditions.append(col(table.status) == self.status)
        if self.since is not None:
            since = self.since.astimezone(UTC) if self.since.tzinfo else self.since.replace(tzinfo=UTC)  # a naive time is taken as UTC
            conditions.append(col(table.created) >= since)
        return conditions


class LookupQueries:
    """The :class:`~proactive_bench.store.database.Store` methods that find runs and sweeps."""

    engine: Engine
    name: str

    def resolve(self, ident: str, runs: bool = True, sweeps: bool = True) -> Run | Sweep:
        """The run or sweep ``ident`` names: a whole id, a unique prefix of one, or ``latest``.

        ``latest`` is the newest sweep or the newest run outside a sweep,
        whichever started last; with ``sweeps=False`` the newest run of any kind.
        Raises :class:`IdLookupError` when nothing or more than one thing matches.
        """
        what = " or ".join(kind for kind, wanted in (("sweep", sweeps), ("run", runs)) if wanted)
        if ident == LATEST:
            found = self._latest(runs, sweeps)
            if found is None:
                raise IdLookupError(f"{self.name}: no {what} yet, so nothing is 'latest'")
            return found
        with Session(self.engine) as db:
            exact = (db.get(Sweep, ident) if sweeps else None) or (db.get(Run, ident) if runs else None)
            if exact is not None:
                return exact
            matches: list[Run | Sweep] = []
            if sweeps and ident:
                matches += db.exec(select(Sweep).where(col(Sweep.id).startswith(ident, autoescape=True)).order_by(col(Sweep.created))).all()
            if runs and ident:
                matches += db.exec(select(Run).where(col(Run.id).startswith(ident, autoescape=True)).order_by(col(Run.created))).all()
        if not matches:
            raise IdLookupError(f"{self.name}: no {what} {ident!r}")
        if len(matches) > 1:
            listed = ", ".join(f"{'sweep' if isinstance(m, Sweep) else 'run'} {m.id}" for m in matches[:CANDIDATES_SHOWN])
            more = f" and {len(matches) - CANDIDATES_SHOWN} more" if len(matches) > CANDIDATES_SHOWN else ""
            raise IdLookupError(f"{self.name}: {ident!r} is ambiguous: {listed}{more}; give more of the id")
        return matches[0]

    def _latest(self, runs: bool, sweeps: bool) -> Run | Sweep | None:
        with Session(self.engine) as db:
            run_query = select(Run).order_by(col(Run.created).desc())
            if sweeps:
                run_query = run_query.where(col(Run.sweep_id).is_(None))
            newest: list[Run | Sweep] = []
            if runs and (run := db.exec(run_query.limit(1)).first()) is not None:
                newest.append(run)
            if sweeps and (sweep := db.exec(select(Sweep).order_by(col(Sweep.created).desc()).limit(1)).first()) is not None:
                newest.append(sweep)
        return max(newest, key=lambda row: row.created, default=None)

    def find_runs(self, wanted: ListFilter) -> list[Run]:
        """Runs newest first: of a persona (its id or the episode it was asked for by), whose model contains the text, with a status, started since."""
        return self._newest(select(Run).where(*wanted.of_runs(), *wanted.of_rows(Run)), Run, wanted.limit)

    def find_sweeps(self, wanted: ListFilter) -> list[Sweep]:
        """Sweeps newest first: with a run of the persona, with a run whose model contains the text, with a status, started since."""
        of_runs = [col(Sweep.id).in_(select(Run.sweep_id).where(condition)) for condition in wanted.of_runs()]
        return self._newest(select(Sweep).where(*of_runs, *wanted.of_rows(Sweep)), Sweep, wanted.limit)

    def _newest(self, query: SelectOfScalar[Listed], table: type[Run] | type[Sweep], limit: int | None) -> list[Listed]:
        with Session(self.engine) as db:
            return list(db.exec(query.order_by(col(table.created).desc()).limit(limit)))

    def run_costs(self, run_ids: list[str]) -> dict[str, float]:
        """USD spent per run on priced model calls; a run without any is left out."""
        query = (
            select(LLMCall.run_id, func.sum(LLMCall.cost_usd))
            .where(col(LLMCall.run_id).in_(run_ids), col(LLMCall.cost_usd).is_not(None))
            .group_by(LLMCall.run_id)
        )
        with Session(self.engine) as db:
            return {run_id: float(cost) for run_id, cost in db.exec(query) if cost is not None}  # none is: the query keeps priced calls
