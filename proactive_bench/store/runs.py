"""Store queries over runs and sweeps, and a run's model-call records."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from proactive_bench.store.tables import LLMCall, Run, Sweep


class RunQueries:
    """The :class:`~proactive_bench.store.database.Store` methods over runs, sweeps and model-call records."""

    engine: Engine

    def run(self, run_id: str) -> Run | None:
        with Session(self.engine) as db:
            return db.get(Run, run_id)

    def sweep(self, sweep_id: str) -> Sweep | None:
        with Session(self.engine) as db:
            return db.get(Sweep, sweep_id)

    def runs(self, sweep_id: str) -> list[Run]:
        with Session(self.engine) as db:
            return list(db.exec(select(Run).where(col(Run.sweep_id) == sweep_id).order_by(col(Run.created))))

    def runs_for(self, ident: str) -> list[Run]:
        """The runs a sweep id or a run id names; empty when it names neither."""
        if self.sweep(ident) is not None:
            return self.runs(ident)
        run = self.run(ident)
        return [run] if run is not None else []

    def llm_calls(self, run_id: str) -> list[LLMCall]:
        with Session(self.engine) as db:
            return list(db.exec(select(LLMCall).where(LLMCall.run_id == run_id)))
