"""Where a sweep's runs execute: a Ray cluster, worker processes or this process's event loop, behind one ``start``/``follow`` pair.

``start`` connects or forks (before any other thread exists: call it before a
progress display or the lease's heartbeat starts); ``follow`` runs the
pending runs to the end, reporting each finished session to ``on_event``, and
settles the sweep's status.

The Ray executor (and its dataset archives) is imported only for a sweep on Ray.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from proactive_bench.campaign.process_tuning import run_fast, tune_for_runs
from proactive_bench.campaign.sweep import RunHook, SweepConfig, run_sweep
from proactive_bench.campaign.workers import SweepWorkers
from proactive_bench.dataset import LoadedEpisode
from proactive_bench.llm import Budget
from proactive_bench.store import RunLike, Store, SweepLike

if TYPE_CHECKING:
    from proactive_bench.campaign.ray_executor import RaySweep


class LocalSweep:
    """A sweep's pending runs on this process's event loop, ``config.concurrency`` at once."""

    def __init__(
        self, store: Store, sweep: SweepLike, runs: Sequence[tuple[RunLike, LoadedEpisode]], config: SweepConfig, budget: Budget
    ) -> None:
        self.store, self.sweep, self.runs, self.config, self.budget = store, sweep, runs, config, budget

    def start(self) -> None:
        """Nothing to start: the runs execute in :meth:`follow`."""

    def follow(self, on_event: RunHook | None = None) -> None:
        tune_for_runs()
        run_fast(run_sweep(self.store, self.sweep, self.runs, self.config, self.budget, on_event))


if TYPE_CHECKING:
    SweepExecutor = RaySweep | SweepWorkers | LocalSweep
else:

    def __getattr__(name: str) -> Any:
        """``SweepExecutor``, the union of the executors, made on first use (it names the Ray executor's class)."""
        if name != "SweepExecutor":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from proactive_bench.campaign.ray_executor import RaySweep

        return RaySweep | SweepWorkers | LocalSweep


def sweep_executor(
    store: Store, sweep: SweepLike, runs: Sequence[tuple[RunLike, LoadedEpisode]], config: SweepConfig, budget: Budget
) -> SweepExecutor:
    """The executor ``config`` names: a Ray cluster (``executor: ray``), ``workers`` processes, or this process."""
    if config.executor == "ray":
        from proactive_bench.campaign.ray_executor import RaySweep

        return RaySweep(store, sweep, runs, config, budget)
    if config.workers > 1:
        return SweepWorkers(store, sweep, runs, config, budget)
    return LocalSweep(store, sweep, runs, config, budget)
