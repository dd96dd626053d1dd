"""Store queries over runs and sweeps, and a run's model-call records."""

from __future__ import annotations

from proactive_bench.store.records import StoredLLMCall, StoredRun, StoredSweep
from proactive_bench.store.sql import SqlReads


class RunQueries(SqlReads):
    """The store's methods over runs, sweeps and model-call records."""

    def run(self, run_id: str) -> StoredRun | None:
        return next(iter(self.select(StoredRun, "id = :id", {"id": run_id})), None)

    def sweep(self, sweep_id: str) -> StoredSweep | None:
        return next(iter(self.select(StoredSweep, "id = :id", {"id": sweep_id})), None)

    def runs(self, sweep_id: str) -> list[StoredRun]:
        return self.select(StoredRun, "sweep_id = :sweep", {"sweep": sweep_id}, "created")

    def runs_for(self, ident: str) -> list[StoredRun]:
        """The runs a sweep id or a run id names; empty when it names neither."""
        if self.sweep(ident) is not None:
            return self.runs(ident)
        run = self.run(ident)
        return [run] if run is not None else []

    def llm_calls(self, run_id: str) -> list[StoredLLMCall]:
        return self.select(StoredLLMCall, "run_id = :run", {"run": run_id})
