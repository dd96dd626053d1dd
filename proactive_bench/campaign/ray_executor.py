"""The Ray executor: a sweep's runs as Ray tasks on a local or remote Ray cluster, one task per episode run.

The driver (``pbench sweep --executor ray``) holds the sweep's lease, starts
one :class:`ClusterLimits` actor and submits :func:`run_task` once per
pending run, at most ``concurrency`` at a time; it follows progress by
reading finished sessions from the store, as :class:`~proactive_bench.campaign.workers.SweepWorkers` does.

A task runs its run's sessions in order on one worker, its workspace on that
worker's disk. It first takes the run's own lease (waiting while a live holder
has it, taking over one whose holder died), renews it while it runs, and saves
every session fenced by both that lease and the driver's sweep lease: a task
whose lease was taken over, or whose driver is gone, can never write again.
Checkpoints and workspace archives go to the store with each session, so when
a worker dies Ray runs the task again (:data:`TASK_RETRIES`), on any worker,
and it continues after the last saved session.

Ray is imported only here and only when this executor is chosen
(:func:`import_ray`); without it the error says how to install it.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
import tempfile
import time
from contextlib import ExitStack, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import structlog
from langchain_core.rate_limiters import BaseRateLimiter

from proactive_bench.campaign.interrupts import handlers_kept, stopped_by
from proactive_bench.campaign.process_tuning import run_fast
from proactive_bench.campaign.sweep import RunHook, SweepConfig, finish_sweep, run_episodes
from proactive_bench.campaign.workers import WorkerFailed
from proactive_bench.data_model import FINAL_OUTCOMES, RunStatus
from proactive_bench.episode import load_spec_episode, run_spec
from proactive_bench.llm import Budget, PriceTable
from proactive_bench.logs import configure_logging
from proactive_bench.store import Fence, HeldLease, LeaseHeld, LeaseLost, Run, Store, Sweep, holds, writing

log = structlog.get_logger(__name__)

RAY_MISSING = "--executor ray needs Ray, which is not installed here: pip install 'pbench[distributed]'"
TASK_RETRIES = 3
"""How often Ray runs a run's task again after its worker died."""
POLL_S = 0.5
"""How often the driver reads progress from the store."""
LEASE_POLL_S = 1.0
"""How often a task waiting for its run's lease tries again."""
STOP_GRACE_S = 15.0
"""How long cancelled tasks may take to stop before their workers are killed."""


class RayUnavailable(RuntimeError):
    """Ray is not installed (or cannot be imported); the message says how to install it."""


def import_ray() -> ModuleType:
    """The ``ray`` module, or RayUnavailable with the line to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayUnavailable(RAY_MISSING) from None


class ClusterLimits:
    """A sweep's request rate per endpoint and its spending for the whole cluster: one Ray actor that every task calls.

    The rate is a token bucket per endpoint (refilled at ``requests_per_second``,
    holding at most one second of requests, as the local limiter does). A
    caller reserves a token and is told how long to wait before sending, so the
    actor never sleeps and one call costs one round trip.
    """

    def __init__(self, requests_per_second: float | None, spent_usd: float) -> None:
        self.rate = requests_per_second
        self.capacity = max(1.0, requests_per_second or 0.0)
        self.buckets: dict[str, tuple[float, float]] = {}
        """endpoint: (tokens, when counted); tokens below zero are reservations not yet due."""
        self.spent_usd = spent_usd

    def reserve(self, endpoint: str, blocking: bool = True) -> float:
        """Take a token of the endpoint's bucket: the seconds to wait before sending; -1 (nothing taken) when not ``blocking`` and none is free."""
        if not self.rate:
            return 0.0
        now = time.monotonic()
        tokens, counted = self.buckets.get(endpoint, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - counted) * self.rate)
        if tokens < 1.0 and not blocking:
            self.buckets[endpoint] = (tokens, now)
            return -1.0
        self.buckets[endpoint] = (tokens - 1.0, now)
        return max(0.0, (1.0 - tokens) / self.rate)

    def add(self, cost_usd: float) -> None:
        self.spent_usd += cost_usd

    def spent(self) -> float:
        return self.spent_usd


class ClusterRateLimiter(BaseRateLimiter):
    """A model's rate limiter that takes its tokens from the sweep's :class:`ClusterLimits` actor."""

    def __init__(self, limits: Any, endpoint: str) -> None:
        self.limits, self.endpoint, self.ray = limits, endpoint, import_ray()

    def acquire(self, *, blocking: bool = True) -> bool:
        wait = float(self.ray.get(self.limits.reserve.remote(self.endpoint, blocking)))
        if wait > 0:
            time.sleep(wait)
        return wait >= 0

    async def aacquire(self, *, blocking: bool = True) -> bool:
        wait = float(await self.limits.reserve.remote(self.endpoint, blocking))
        if wait > 0:
            await asyncio.sleep(wait)
        return wait >= 0


class ClusterBudget(Budget):
    """A budget whose spending is the :class:`ClusterLimits` actor's: adding is one message, reading one round trip."""

    def __init__(self, prices: PriceTable, limit_usd: float | None, limits: Any) -> None:
        super().__init__(prices, limit_usd)
        self.limits, self.ray = limits, import_ray()

    @property
    def spent_usd(self) -> float:
        return float(self.ray.get(self.limits.spent.remote()))

    def add(self, cost_usd: float) -> None:
        self.limits.add.remote(cost_usd)  # in order with this task's later reads (one caller's calls run in order)


def run_task(where: str, run_id: str, sweep_fence: Fence, config_json: dict[str, Any], limits: Any) -> str:
    """A Ray task: the episode run ``run_id`` (continued where its last saved session left it); returns its status.

    Its saves are fenced by the driver's sweep lease and by the run's own
    lease, taken here (see the module's text).
    """
    configure_logging()
    store = Store(where)
    with ExitStack() as stack:
        wait_for_run_lease(stack, store, run_id, sweep_fence)
        status = continue_run(store, run_id, SweepConfig.model_validate(config_json), limits)
    return status


def continue_run(store: Store, run_id: str, config: SweepConfig, limits: Any) -> str:
    """Run (or continue) ``run_id`` on this worker under the held leases; its status at the end."""
    run = store.run(run_id)  # read now: a former attempt may have saved sessions
    if run is None or run.status == RunStatus.FINISHED:
        return RunStatus.FINISHED if run is not None else "missing"
    loaded = load_spec_episode(run_spec(run))
    run.workspace = str(local_workspace(run))  # on this worker's disk; the stored row keeps the driver's path
    budget = ClusterBudget(PriceTable.load(config.prices), config.max_cost_usd, limits)
    limiter = ClusterRateLimiter(limits, config.base_url or "") if config.requests_per_second else None
    run_fast(run_episodes(store, [(run, loaded)], config, budget, limiters={config.base_url: limiter}))
    return str(run.status)


def wait_for_run_lease(stack: ExitStack, store: Store, run_id: str, sweep_fence: Fence) -> HeldLease:
    """Hold the run's lease (released when ``stack`` closes), waiting while a live holder has it; LeaseLost once the sweep's
    driver no longer holds the sweep (it stopped or died: the run is left for ``pbench resume``)."""
    while True:
        if not holds(store, sweep_fence):
            raise LeaseLost(f"{sweep_fence.scope}: the sweep's driver no longer holds its lease; run {run_id} is left for pbench resume")
        try:
            return stack.enter_context(writing(store, run_id, within=sweep_fence, command=f"pbench ray task of sweep {sweep_fence.scope}"))
        except LeaseHeld as exc:
            log.info("run_lease_wait", run=run_id, holder=str(exc))
            time.sleep(LEASE_POLL_S)


def local_workspace(run: Run) -> Path:
    """Where this worker keeps the run's workspace: the path the run was given when this machine can write there, else a temporary folder."""
    given = Path(run.workspace)
    try:
        given.parent.mkdir(parents=True, exist_ok=True)
        if os.access(given.parent, os.W_OK):
            return given
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / "pbench-workspaces" / run.id


class RaySweep:
    """A sweep's pending runs on a Ray cluster: :meth:`start` connects (or starts a local cluster), :meth:`follow` runs them to the end."""

    def __init__(self, store: Store, sweep: Sweep, runs: list[tuple[Run, Any]], config: SweepConfig, budget: Budget) -> None:
        self.ray = import_ray()
        self.store, self.sweep, self.config, self.budget = store, sweep, config, budget
        self.by_id = {run.id: run for run, _ in runs}
        self.started_cluster = False
        self.limits: Any = None

    def start(self) -> None:
        """Join the cluster at ``config.ray_address`` (none: start a local one, shut down at the end) and start the limits actor."""
        if not self.ray.is_initialized():
            with handlers_kept():  # Ctrl-C and SIGTERM stop the sweep cleanly (Ray's own SIGTERM handler would exit at once)
                self.ray.init(address=self.config.ray_address or "local", include_dashboard=False, logging_level="WARNING", log_to_driver=False)
            self.started_cluster = True
        self.limits = self.ray.remote(ClusterLimits).options(num_cpus=0).remote(self.config.requests_per_second, self.budget.spent_usd)

    def follow(self, on_event: RunHook | None = None) -> None:
        """Submit a task per run (at most ``concurrency`` at once) and report finished sessions until all end; then settle the
        budget and the sweep's status. Stopped (Ctrl-C, SIGTERM), it cancels the tasks before re-raising."""
        assert isinstance(self.store.fence, Fence), "the driver holds the sweep's lease"
        task = self.ray.remote(run_task).options(max_retries=TASK_RETRIES, retry_exceptions=False)
        waiting, running, failures, seen = list(self.by_id), {}, [], set()  # type: ignore[var-annotated]
        try:
            with redirect_stdout(sys.stderr):  # Ray prints its notes (a worker died, ...) on stdout: that is for --json output
                self._run_all(task, waiting, running, failures, seen, on_event)
        except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM
            self._stop(list(running))
            raise stopped_by(stop) from None
        except BaseException:
            self._stop(list(running))
            raise
        finally:
            self._settle()
        if failures:
            raise WorkerFailed(f"{len(failures)} run(s) failed on the Ray cluster ({failures[0]}); continue with: pbench resume {self.sweep.id}")
        finish_sweep(self.store, self.sweep)

    def _run_all(self, task: Any, waiting: list[str], running: dict[Any, str], failures: list[str], seen: set[int], on_event: RunHook | None) -> None:
        """Keep ``concurrency`` tasks running until none is left; a task's error goes to ``failures``."""
        fence, where, config_json = self.store.fence, self.store.location.reopen, self.config.model_dump(mode="json")
        while waiting or running:
            while waiting and len(running) < self.config.concurrency:
                run_id = waiting.pop(0)
                running[task.remote(where, run_id, fence, config_json, self.limits)] = run_id
            ready, _ = self.ray.wait(list(running), num_returns=1, timeout=POLL_S)
            if ready:
                ready, _ = self.ray.wait(list(running), num_returns=len(running), timeout=0)
            for ref in ready:
                run_id = running.pop(ref)
                try:
                    self.ray.get(ref)
                except Exception as exc:  # noqa: BLE001 (the task's own error, or its worker's death after every retry)
                    failures.append(f"run {run_id}: {task_error(exc)}")
                    log.error("ray_task_failed", run=run_id, error=task_error(exc))
            self._report(seen, on_event)

    def _report(self, seen: set[int], on_event: RunHook | None) -> None:
        for session_run in self.store.session_runs_ending(list(self.by_id), FINAL_OUTCOMES):
            if session_run.id not in seen:
                seen.add(session_run.id)  # type: ignore[arg-type]
                if on_event:
                    on_event(self.by_id[session_run.run_id], "session")

    def _stop(self, running: list[Any]) -> None:
        """Cancel the running tasks (each stops where it is; saved sessions stay); kill the workers of those left after STOP_GRACE_S."""
        for ref in running:
            self.ray.cancel(ref)
        _, left = self.ray.wait(running, num_returns=len(running), timeout=STOP_GRACE_S) if running else ([], [])
        for ref in left:
            log.warning("ray_task_killed", after_s=STOP_GRACE_S)
            self.ray.cancel(ref, force=True)

    def _settle(self) -> None:
        """Add what the tasks spent to the driver's budget; leave the cluster if this driver started it."""
        try:
            if self.limits is not None:
                self.budget.add(float(self.ray.get(self.limits.spent.remote())) - self.budget.spent_usd)
        finally:
            if self.started_cluster:
                self.ray.shutdown()


def task_error(error: BaseException) -> str:
    """A failed task's error on one line: the task's own exception, not Ray's wrapping of it."""
    cause = getattr(error, "cause", None)
    shown = cause if isinstance(cause, BaseException) else error
    return " ".join(f"{type(shown).__name__}: {shown}".split())[:300]
