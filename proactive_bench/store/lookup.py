"""Finding runs and sweeps: an id given as a unique prefix or ``latest``, and lists filtered by persona, model, status and age."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import ColumnElement, Engine, func, or_
from sqlmodel import Session, select

from proactive_bench.store.tables import LLMCall, Run, Sweep

LATEST = "latest"
"""The id word that names the newest run or sweep."""
CANDIDATES_SHOWN = 8
"""How many matches an ambiguous prefix's error lists."""


class IdLookupError(LookupError):
    """An id that names no run or sweep, or more than one; the message is one line and lists the candidates."""


class LookupQueries:
    """The :class:`~proactive_bench.store.database.Store` methods that find runs and sweeps."""

    engine: Engine
    path: Path

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
                raise IdLookupError(f"{self.path}: no {what} yet, so nothing is 'latest'")
            return found
        with Session(self.engine) as db:
            exact = (db.get(Sweep, ident) if sweeps else None) or (db.get(Run, ident) if runs else None)
            if exact is not None:
                return exact
            matches: list[Run | Sweep] = []
            if sweeps and ident:
                matches += db.exec(select(Sweep).where(Sweep.id.startswith(ident, autoescape=True)).order_by(Sweep.created)).all()  # type: ignore[attr-defined]
            if runs and ident:
                matches += db.exec(select(Run).where(Run.id.startswith(ident, autoescape=True)).order_by(Run.created)).all()  # type: ignore[attr-defined]
        if not matches:
            raise IdLookupError(f"{self.path}: no {what} {ident!r}")
        if len(matches) > 1:
            listed = ", ".join(f"{'sweep' if isinstance(m, Sweep) else 'run'} {m.id}" for m in matches[:CANDIDATES_SHOWN])
            more = f" and {len(matches) - CANDIDATES_SHOWN} more" if len(matches) > CANDIDATES_SHOWN else ""
            raise IdLookupError(f"{self.path}: {ident!r} is ambiguous: {listed}{more}; give more of the id")
        return matches[0]

    def _latest(self, runs: bool, sweeps: bool) -> Run | Sweep | None:
        with Session(self.engine) as db:
            run_query = select(Run).order_by(Run.created.desc())  # type: ignore[attr-defined]
            if sweeps:
                run_query = run_query.where(Run.sweep_id == None)  # noqa: E711 (SQL IS NULL)
            newest: list[Run | Sweep] = []
            if runs and (run := db.exec(run_query.limit(1)).first()) is not None:
                newest.append(run)
            if sweeps and (sweep := db.exec(select(Sweep).order_by(Sweep.created.desc()).limit(1)).first()) is not None:  # type: ignore[attr-defined]
                newest.append(sweep)
        return max(newest, key=lambda row: row.created, default=None)

    def find_runs(
        self, persona: str | None = None, model: str | None = None, status: str | None = None,
        since: datetime | None = None, limit: int | None = None,
    ) -> list[Run]:
        """Runs newest first: of a persona (its id or the episode it was asked for by), whose model contains ``model``, with a status, started at or after ``since``."""
        query = select(Run).order_by(Run.created.desc())  # type: ignore[attr-defined]
        if persona is not None:
            query = query.where(_of_persona(persona))
        if model is not None:
            query = query.where(Run.model.contains(model, autoescape=True))  # type: ignore[attr-defined]
        if status is not None:
            query = query.where(Run.status == status)
        if since is not None:
            query = query.where(Run.created >= _utc(since))
        with Session(self.engine) as db:
            return list(db.exec(query.limit(limit)))

    def find_sweeps(
        self, persona: str | None = None, model: str | None = None, status: str | None = None,
        since: datetime | None = None, limit: int | None = None,
    ) -> list[Sweep]:
        """Sweeps newest first: with a run of a persona, a run whose model contains ``model``, a status, started at or after ``since``."""
        query = select(Sweep).order_by(Sweep.created.desc())  # type: ignore[attr-defined]
        if persona is not None:
            query = query.where(Sweep.id.in_(select(Run.sweep_id).where(_of_persona(persona))))  # type: ignore[attr-defined]
        if model is not None:
            query = query.where(Sweep.id.in_(select(Run.sweep_id).where(Run.model.contains(model, autoescape=True))))  # type: ignore[attr-defined]
        if status is not None:
            query = query.where(Sweep.status == status)
        if since is not None:
            query = query.where(Sweep.created >= _utc(since))
        with Session(self.engine) as db:
            return list(db.exec(query.limit(limit)))

    def run_costs(self, run_ids: list[str]) -> dict[str, float]:
        """USD spent per run on priced model calls; a run without any is left out."""
        query = (
            select(LLMCall.run_id, func.sum(LLMCall.cost_usd))
            .where(LLMCall.run_id.in_(run_ids), LLMCall.cost_usd != None)  # type: ignore[attr-defined]  # noqa: E711
            .group_by(LLMCall.run_id)
        )
        with Session(self.engine) as db:
            return {run_id: float(cost) for run_id, cost in db.exec(query)}


def _of_persona(persona: str) -> ColumnElement[bool]:
    """Runs of a persona, by its id or by the name it was asked for with (``--persona``, the episode's folder)."""
    return or_(Run.persona == persona, Run.config["persona"].as_string() == persona)  # type: ignore[index]


def _utc(moment: datetime) -> datetime:
    """A moment in UTC, as the tables store it (a naive one is taken as UTC)."""
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
