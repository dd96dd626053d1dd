"""A sweep's progress as its workers save it: finished sessions read back from the results database, each reported once.

The executors run episodes in other processes (local workers, Ray runners), so
the driver learns of a finished session when its save is committed. Each poll
reads one count per run (:meth:`~proactive_bench.store.Store.sessions_ending_per_run`).
"""

from __future__ import annotations

from collections.abc import Mapping

from proactive_bench.campaign.sweep import RunHook
from proactive_bench.data_model import FINAL_OUTCOMES
from proactive_bench.store import RunLike, Store, SweepLike


class StoredProgress:
    """The finished sessions of a sweep's runs (those in ``by_id``), counted from the store."""

    def __init__(self, store: Store, sweep: SweepLike, by_id: Mapping[str, RunLike]) -> None:
        self.store, self.sweep_id, self.by_id = store, sweep.id, by_id
        self.reported: dict[str, int] = {}

    def report(self, on_event: RunHook | None) -> None:
        """Tell ``on_event`` of every session that ended since the last call."""
        for run_id, ended in self.store.sessions_ending_per_run(self.sweep_id, FINAL_OUTCOMES).items():
            run = self.by_id.get(run_id)
            if run is None:
                continue
            new = ended - self.reported.get(run_id, 0)
            if new <= 0:
                continue
            self.reported[run_id] = ended
            if on_event is not None:
                for _ in range(new):
                    on_event(run, "session")
