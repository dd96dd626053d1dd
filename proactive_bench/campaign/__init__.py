"""Campaigns: many episode runs at once (models x personas x repeats x ablations).

``sweep`` reads a sweep config and runs its episodes concurrently in one
event loop, ``workers`` spreads a sweep over several processes,
``ray_executor`` over a Ray cluster (one task per run),
``process_tuning`` sets the event loop and garbage collector for that load,
``interrupts`` stops all of it cleanly on Ctrl-C or SIGTERM, ``executors``
picks where a sweep's runs execute (``sweep_executor``).
See README.md here.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "executors": ("LocalSweep", "SweepExecutor", "sweep_executor"),
        "interrupts": ("Interrupted", "stop_on_signals"),
        "process_tuning": ("loop_factory", "run_fast", "tune_for_runs"),
        "ray_executor": ("RaySweep", "RayUnavailable", "import_ray"),
        "sweep": (
            "SweepConfig",
            "SweepConfigError",
            "create_sweep",
            "load_sweep_config",
            "mark_interrupted",
            "run_sweep",
            "sweep_endpoints",
            "sweep_episodes",
            "sweep_run_spec",
            "unfinished_runs",
            "validate_sweep_config",
        ),
        "workers": ("SweepWorkers", "WorkerFailed"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.campaign.executors import LocalSweep, SweepExecutor, sweep_executor
    from proactive_bench.campaign.interrupts import Interrupted, stop_on_signals
    from proactive_bench.campaign.process_tuning import loop_factory, run_fast, tune_for_runs
    from proactive_bench.campaign.ray_executor import RaySweep, RayUnavailable, import_ray
    from proactive_bench.campaign.sweep import (
        SweepConfig,
        SweepConfigError,
        create_sweep,
        load_sweep_config,
        mark_interrupted,
        run_sweep,
        sweep_endpoints,
        sweep_episodes,
        sweep_run_spec,
        unfinished_runs,
        validate_sweep_config,
    )
    from proactive_bench.campaign.workers import SweepWorkers, WorkerFailed

__all__ = [
    "Interrupted",
    "LocalSweep",
    "RaySweep",
    "RayUnavailable",
    "SweepConfig",
    "SweepConfigError",
    "SweepExecutor",
    "SweepWorkers",
    "WorkerFailed",
    "create_sweep",
    "load_sweep_config",
    "import_ray",
    "loop_factory",
    "mark_interrupted",
    "run_fast",
    "run_sweep",
    "stop_on_signals",
    "sweep_endpoints",
    "sweep_episodes",
    "sweep_executor",
    "sweep_run_spec",
    "tune_for_runs",
    "unfinished_runs",
    "validate_sweep_config",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
