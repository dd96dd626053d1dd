"""The Ray executor: a sweep's runs on a local or remote Ray cluster, one episode run as the unit of scheduling.

The driver (``pbench sweep --executor ray``) holds the sweep's lease, starts
one :class:`EpisodeRunner` actor per CPU of the cluster (at most one per run
and ``concurrency`` in all) and, when the sweep has a request rate or a budget
to hold, one :class:`ClusterLimits` actor, and hands each pending run to the
runner up with the fewest, at most ``concurrency`` at a time; a runner runs its
runs concurrently on its own event loop (model calls are waits, so one process
keeps many episodes going).
The driver follows progress by reading finished sessions from the store, as
:class:`~proactive_bench.campaign.workers.SweepWorkers` does.

The driver ships the dataset: the files the pending runs read go into Ray's
object store as one archive per data root, and a runner loads its episodes
from its machine's unpacked copy (:mod:`~proactive_bench.campaign.dataset_archives`),
so no worker needs the dataset at the driver's path.

A run's sessions run in order in one runner, its workspace on that worker's
disk. The runner first takes the run's own lease (waiting while a live holder
has it, taking over one whose holder died), renews it while it runs, and saves
every session fenced by both that lease and the driver's sweep lease: a run
whose lease was taken over, or whose driver is gone, can never write again.
Checkpoints and workspace archives go to the store with each session, so when
a runner's process dies Ray restarts it and hands it its runs again
(:data:`RUNNER_RESTARTS`); each continues after its last saved session.

Ray is imported only here and only when this executor is chosen
(:func:`import_ray`); without it the error says how to install it.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import math
import os
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from contextlib import AsyncExitStack, redirect_stdout
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from langchain_core.rate_limiters import BaseRateLimiter

from proactive_bench.campaign.cluster_limits import ClusterLimits
from proactive_bench.campaign.dataset_archives import in_use, pack_datasets, unpacked
from proactive_bench.campaign.interrupts import handlers_kept, stopped_by
from proactive_bench.campaign.process_tuning import tune_for_runs
from proactive_bench.campaign.progress import StoredProgress
from proactive_bench.campaign.sweep import EpisodeKey, RunHook, SweepConfig, finish_sweep, run_episodes, shared_episode, sweep_transport
from proactive_bench.campaign.workers import WorkerFailed, import_modules, run_modules
from proactive_bench.data_model import RunStatus
from proactive_bench.dataset import LoadedEpisode
from proactive_bench.episode import run_spec
from proactive_bench.llm import Budget, ChatTransport, PriceTable
from proactive_bench.logs import configure_logging, get_logger
from proactive_bench.store import Fence, LeaseHeld, RunLike, Store, SweepLike, holding_in_loop, lease_run

log = get_logger(__name__)

RAY_MISSING = "--executor ray needs Ray, which is not installed here: pip install 'pbench[distributed]'"
RUNNER_RESTARTS = 3
"""How often Ray restarts a runner whose process died, and hands it a run again."""
READY_ASKS = RUNNER_RESTARTS + 1
"""How often the driver asks an actor whether it is up: once, and again after each restart Ray gives it."""
POLL_S = 0.5
"""How often the driver reads progress from the store."""
LEASE_POLL_S = 1.0
"""How often a runner waiting for a run's lease tries again."""
STOP_GRACE_S = 15.0
"""How long cancelled runs may take to stop before their runners are killed."""


class RayUnavailable(RuntimeError):
    """Ray is not installed (or cannot be imported); the message says how to install it."""


def import_ray() -> ModuleType:
    """The ``ray`` module, or RayUnavailable with the line to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayUnavailable(RAY_MISSING) from None


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
    """A runner's view of the sweep's spending, held by the :class:`ClusterLimits` actor; reading it never waits.

    Adding sends the cost to the actor, whose answer (the cluster's total then)
    arrives in the background; reading returns at once the latest total
    answered plus this runner's costs not answered yet, and asks the actor for
    a newer total unless a question is on its way. So the figure is exact for
    this runner's own spending and lags the other runners' by what they spent
    since this runner's latest answer: at most about one round trip (~1 ms)
    behind its latest cost sent or read, since every add and every read
    brings an answer.
    """

    def __init__(self, prices: PriceTable, limit_usd: float | None, limits: Any) -> None:
        super().__init__(prices, limit_usd)
        self.limits = limits
        self.answered_usd = 0.0
        """The highest cluster total the actor answered (totals only grow, so a late answer never lowers it)."""
        self.unanswered_usd = 0.0
        """This runner's costs sent whose answer has not arrived (one caller's calls run in order: not in any total answered yet)."""
        self.asking = False
        self.lock = threading.Lock()
        """Answers arrive on Ray's threads."""
        self._ask()  # what the sweep spent before (a resumed sweep's), known before the first session starts

    @property
    def spent_usd(self) -> float:
        with self.lock:
            spent = self.answered_usd + self.unanswered_usd
        self._ask()
        return spent

    def _ask(self) -> None:
        """Ask the actor for the cluster's total unless a question is on its way."""
        with self.lock:
            ask, self.asking = not self.asking, True
        if ask:
            self.limits.spent.remote().future().add_done_callback(self._answered)

    def add(self, cost_usd: float) -> None:
        with self.lock:
            self.unanswered_usd += cost_usd
        self.limits.add.remote(cost_usd).future().add_done_callback(lambda answer: self._answered(answer, cost_usd))

    def _answered(self, answer: Future[Any], cost_usd: float | None = None) -> None:
        """The actor's answer (a total) to an add of ``cost_usd``, or to a question (None)."""
        total = float(answer.result()) if not answer.cancelled() and answer.exception() is None else 0.0
        with self.lock:
            if cost_usd is None:
                self.asking = False
            else:
                self.unanswered_usd -= cost_usd
            self.answered_usd = max(self.answered_usd, total)


class EpisodeRunner:
    """A Ray actor running many of a sweep's runs at once on its own event loop, as the local executor does in one process.

    Each :meth:`run` call is one episode run under its own run lease (a view
    of the actor's store with that lease as its fence: the engine and its
    connection pool are shared, the fences are not).
    """

    def __init__(self, where: str, modules: tuple[str, ...] = ()) -> None:
        """``modules``: what the sweep's runs import on first use (:func:`~proactive_bench.campaign.workers.run_modules`),
        imported before the runner answers :meth:`ready`, and frozen out of the collector's sight with the rest."""
        configure_logging()
        import_modules(modules)
        tune_for_runs()
        self.store = Store(where)
        self.transport: ChatTransport | None = None
        """The runner's one transport, made in its event loop on the first run: its runs share connections and probes."""
        self.episodes: dict[EpisodeKey, LoadedEpisode] = {}
        """Episodes loaded once per runner and shared by its runs, as the local executor shares them."""
        self.budget: Budget | None = None
        """The runner's view of the sweep's spending, shared by its runs."""
        self.datasets: dict[str, asyncio.Future[Path]] = {}
        """The local copy of each shipped dataset by archive digest, unpacked once for all the runner's runs."""

    def ready(self) -> bool:
        """Answered once the runner is up (its process started, pbench and its runs' modules imported, its store open)."""
        return True

    async def run(self, run_id: str, sweep_fence: Fence, config_json: dict[str, Any], limits: Any, dataset: tuple[str, Any]) -> str:
        """The episode run ``run_id`` (continued where its last saved session left it); its status at the end.
        ``limits``: the sweep's :class:`ClusterLimits` actor (None: it has neither a request rate nor a budget, and this
        runner counts its own spending). ``dataset``: the digest and object of the shipped archive of the run's data root."""
        config = SweepConfig.model_validate(config_json)
        if self.transport is None or self.budget is None:
            self.transport = sweep_transport(config)
            prices = PriceTable.load(config.prices)
            self.budget = ClusterBudget(prices, config.max_cost_usd, limits) if limits is not None else Budget(prices, config.max_cost_usd)
        data_root = await self.dataset(*dataset)
        store = copy.copy(self.store)
        async with AsyncExitStack() as stack:
            run = await wait_for_run_lease(stack, store, run_id, sweep_fence)
            return await continue_run(store, run, config, limits, self.budget, self.transport, self.episodes, data_root)

    async def dataset(self, digest: str, archive: Any) -> Path:
        """The folder of this machine's copy of a shipped dataset, unpacked on first use (from a thread: the loop runs on)
        and again if it is gone (pruned by another sweep's runner after a week unused); touched at every run's start."""
        known = self.datasets.get(digest)
        if known is not None and known.done():
            if not known.cancelled() and known.exception() is None:
                try:
                    return in_use(known.result())
                except FileNotFoundError:  # pruned: unpacked again below
                    pass
            known = None  # gone, or its unpacking failed: tried again
        if known is None:
            self.datasets[digest] = asyncio.ensure_future(self._unpack(digest, archive))
        return await self.datasets[digest]

    async def _unpack(self, digest: str, archive: Any) -> Path:
        data = await archive
        return await asyncio.to_thread(unpacked, digest, data)


async def continue_run(
    store: Store,
    run: RunLike | None,
    config: SweepConfig,
    limits: Any,
    budget: Budget,
    transport: ChatTransport,
    episodes: dict[EpisodeKey, LoadedEpisode],
    data_root: Path,
) -> str:
    """Run (or continue) ``run`` (as read once its lease was held: a former attempt may have saved sessions; None: not
    stored) on this worker under the held leases, its episode loaded from ``data_root`` (the shipped copy of the run's
    dataset; the stored run keeps the driver's path); its status at the end."""
    if run is None or run.status == RunStatus.FINISHED:
        return RunStatus.FINISHED if run is not None else "missing"
    loaded = shared_episode(run_spec(run).model_copy(update={"data_root": str(data_root)}), episodes)
    run.workspace = str(local_workspace(run))  # on this worker's disk; the stored row keeps the driver's path
    limiter = ClusterRateLimiter(limits, config.base_url or "") if config.requests_per_second else None
    await run_episodes(store, [(run, loaded)], config, budget, limiters={config.base_url: limiter}, shared=transport)
    return str(run.status)


async def wait_for_run_lease(stack: AsyncExitStack, store: Store, run_id: str, sweep_fence: Fence) -> RunLike | None:
    """Hold the run's lease (released when ``stack`` closes), waiting while a live holder has it; the run as stored once
    the lease is held (None: not stored). LeaseLost once the sweep's driver no longer holds the sweep (it stopped or
    died: the run is left for ``pbench resume``).

    The lease is taken and the run read in one job of the store's writing thread, off the event loop: a run's read
    waits behind no other run's lease."""
    command = f"pbench ray runner of sweep {sweep_fence.scope}"
    while True:
        try:
            held, run = await store.writer.run(partial(lease_run, store, run_id, command, within=sweep_fence))
        except LeaseHeld as exc:
            log.info("run_lease_wait", run=run_id, holder=str(exc))
            await asyncio.sleep(LEASE_POLL_S)
            continue
        await stack.enter_async_context(holding_in_loop(store, held, within=sweep_fence))
        return run


def local_workspace(run: RunLike) -> Path:
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

    def __init__(self, store: Store, sweep: SweepLike, runs: Sequence[tuple[RunLike, Any]], config: SweepConfig, budget: Budget) -> None:
        self.ray = import_ray()
        self.store, self.sweep, self.config, self.budget = store, sweep, config, budget
        self.runs = runs
        self.by_id = {run.id: run for run, _ in runs}
        self.datasets: dict[str, tuple[str, Any]] = {}
        """Per run id: the digest of its data root's archive and the archive in Ray's object store."""
        self.started_cluster = False
        self.limits: Any = None
        self.runners: list[Any] = []
        self.per_runner = 1
        """How many runs a runner runs at once (its ``max_concurrency``): ``concurrency`` shared among the runners."""

    def start(self) -> None:
        """Join the cluster at ``config.ray_address`` (none: start a local one, shut down at the end) and start the runners
        and the limits actor if the sweep has limits to hold (they come up while the driver gets ready to follow)."""
        with redirect_stdout(sys.stderr):  # Ray's notes, as in follow
            if not self.ray.is_initialized():
                with handlers_kept():  # Ctrl-C and SIGTERM stop the sweep cleanly (Ray's own SIGTERM handler would exit at once)
                    self.ray.init(
                        address=self.config.ray_address or "local", include_dashboard=False, logging_level="WARNING", log_to_driver=False
                    )
                self.started_cluster = True
            self._start_runners()
            if holds_limits(self.config):
                self.limits = (
                    self.ray.remote(ClusterLimits).options(num_cpus=0).remote(self.config.requests_per_second, self.budget.spent_usd)
                )

    def _start_runners(self) -> None:
        """Start the sweep's :class:`EpisodeRunner` actors (:func:`runner_count`) before the limits actor: Ray starts as many
        worker processes at once as the node has CPUs, and the runners' are the ones the runs wait for."""
        count = runner_count(len(self.by_id), self.config.concurrency, self.ray.cluster_resources().get("CPU", 1))
        self.per_runner = math.ceil(self.config.concurrency / count)
        runner = self.ray.remote(EpisodeRunner).options(
            num_cpus=1, max_restarts=RUNNER_RESTARTS, max_task_retries=RUNNER_RESTARTS, max_concurrency=self.per_runner
        )
        modules = run_modules(self.by_id.values())
        self.runners = [runner.remote(self.store.location.reopen, modules) for _ in range(count)]

    def _ship_datasets(self) -> None:
        """Put one archive per data root the runs load from into the object store, once for every runner."""
        try:
            archives = pack_datasets(self.runs)
        except OSError as exc:
            raise WorkerFailed(
                f"the dataset cannot be packed for the Ray cluster ({exc}); continue with: pbench resume {self.sweep.id}"
            ) from None
        shipped = {root: (archive.digest, self.ray.put(archive.data)) for root, archive in archives.items()}
        for root, archive in archives.items():
            log.info("dataset_shipped", data_root=root, digest=archive.digest[:12], files=archive.files, bytes=len(archive.data))
        self.datasets = {run.id: shipped[run_spec(run).data_root] for run, _ in self.runs}

    def follow(self, on_event: RunHook | None = None) -> None:
        """Hand the runs to the runners (at most ``concurrency`` at once) and report finished sessions until
        all end; then settle the budget and the sweep's status. Stopped (Ctrl-C, SIGTERM), it cancels the runs before re-raising."""
        assert isinstance(self.store.fence, Fence), "the driver holds the sweep's lease"
        running: dict[Any, tuple[str, int]] = {}
        failures: list[str] = []
        # Ray prints its notes (a task retried, a worker died, ...) on stdout, from a thread, as they arrive: stdout is for
        # --json output, so they go to stderr until the runners are ended and the driver has left the cluster
        with redirect_stdout(sys.stderr):
            try:
                self._ship_datasets()
                self._run_all(list(self.by_id), running, failures, StoredProgress(self.store, self.sweep, self.by_id), on_event)
            except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM
                self._stop(list(running))
                raise stopped_by(stop) from None
            except BaseException:
                self._stop(list(running))
                raise
            finally:
                self._settle()
        if failures:
            raise WorkerFailed(
                f"{len(failures)} run(s) failed on the Ray cluster ({failures[0]}); continue with: pbench resume {self.sweep.id}"
            )
        finish_sweep(self.store, self.sweep)

    def _run_all(
        self,
        waiting: list[str],
        running: dict[Any, tuple[str, int]],
        failures: list[str],
        progress: StoredProgress,
        on_event: RunHook | None,
    ) -> None:
        """Keep ``concurrency`` runs going, each on the runner up with the fewest, until none is left; a run's error goes to
        ``failures``. A runner gets runs once it is up (its process started, pbench imported): runs handed to a slow
        starter would wait while a ready one idles, and on a cluster shared with other sweeps a runner may wait for a CPU
        until another sweep ends (each sweep runs on the runners it gets, so two sweeps holding one CPU each both go on)."""
        fence, config_json = self.store.fence, self.config.model_dump(mode="json")
        actors = [*self.runners, *([self.limits] if self.limits is not None else [])]
        starting = {ask_ready(actor): (n, 1) for n, actor in enumerate(actors)}
        up: list[int] = []
        load = [0] * len(self.runners)
        next_report = 0.0
        while waiting or running:
            while waiting and len(running) < self.config.concurrency and (free := [n for n in up if load[n] < self.per_runner]):
                run_id, n = waiting.pop(0), min(free, key=load.__getitem__)
                running[self.runners[n].run.remote(run_id, fence, config_json, self.limits, self.datasets[run_id])] = (run_id, n)
                load[n] += 1
            followed = [*starting, *running]
            ready, _ = self.ray.wait(followed, num_returns=1, timeout=POLL_S)
            if ready:
                ready, _ = self.ray.wait(followed, num_returns=len(followed), timeout=0)
            for ref in ready:
                if ref in starting:
                    n, asked = starting.pop(ref)
                    if not self._started(n, ref, asked):
                        starting[ask_ready(actors[n])] = (n, asked + 1)
                    elif n < len(self.runners):  # the limits actor is numbered after the runners
                        up.append(n)
                    continue
                run_id, n = running.pop(ref)
                load[n] -= 1
                try:
                    self.ray.get(ref)
                except Exception as exc:  # the run's own error, or its runner's death after every retry
                    failures.append(f"run {run_id}: {run_error(exc)}")
                    log.error("ray_run_failed", run=run_id, error=run_error(exc))
            if time.monotonic() >= next_report or not (waiting or running):  # a read per POLL_S, not per run ended, and the last
                progress.report(on_event)
                next_report = time.monotonic() + POLL_S

    def _started(self, n: int, ready: Any, asked: int) -> bool:
        """Whether actor ``n`` answered its ``asked``-th ``ready``; False if it died meanwhile and may be up again after a
        restart (to be asked again); WorkerFailed once it failed every ask (:data:`READY_ASKS`)."""
        try:
            self.ray.get(ready)
        except self.ray.exceptions.RayActorError as exc:
            if asked < READY_ASKS:
                log.warning("ray_actor_restarting", actor=n, error=run_error(exc))
                return False
            raise WorkerFailed(
                f"a runner could not start on the Ray cluster ({run_error(exc)}); continue with: pbench resume {self.sweep.id}"
            ) from None
        return True

    def _stop(self, running: list[Any]) -> None:
        """Cancel the running runs (each stops where it is; saved sessions stay); kill the runners if some are left after STOP_GRACE_S."""
        for ref in running:
            self.ray.cancel(ref)
        _, left = self.ray.wait(running, num_returns=len(running), timeout=STOP_GRACE_S) if running else ([], [])
        if left:
            log.warning("ray_runners_killed", runs_left=len(left), after_s=STOP_GRACE_S)
            for actor in self.runners:
                self.ray.kill(actor, no_restart=True)

    def _settle(self) -> None:
        """Add what the runners spent to the driver's budget; end the runners, so that their CPUs are free at once (one
        still waiting for a CPU would take it), and leave the cluster if this driver started it."""
        try:
            if self.limits is not None:
                self.budget.add(float(self.ray.get(self.limits.spent.remote())) - self.budget.spent_usd)
        finally:
            for actor in self.runners:
                self.ray.kill(actor, no_restart=True)
            if self.started_cluster:
                self.ray.shutdown()


def ask_ready(actor: Any) -> Any:
    """The reference of ``actor.ready()``, asked once without Ray's task retries. A call Ray would retry that meets its
    actor's end (a sweep that ends before a runner is up kills it) makes Ray's driver print a note on stdout from a
    thread, "Task ... failed. There are N retries remaining", which can arrive after the sweep's redirection of stdout
    ended and land in --json output; an actor that died while answering is asked again instead (:meth:`RaySweep._started`;
    one that dies before it is up needs no second ask: Ray holds the first until it has started it again)."""
    return actor.ready.options(max_task_retries=0).remote()


def runner_count(runs: int, concurrency: int, cpus: float) -> int:
    """How many runners a sweep starts: one per CPU of the cluster, at most one per run and ``concurrency`` in all (a
    runner more would hold a CPU and start a process for no run), and at least one."""
    return max(1, min(runs, concurrency, int(cpus)))


def holds_limits(config: SweepConfig) -> bool:
    """Whether a sweep needs a :class:`ClusterLimits` actor: it has a request rate or a budget to hold for the whole
    cluster (without either, each runner counts its own spending, against no limit)."""
    return config.requests_per_second is not None or config.max_cost_usd is not None


def run_error(error: BaseException) -> str:
    """A failed run's error on one line: its own exception, not Ray's wrapping of it."""
    cause = getattr(error, "cause", None)
    shown = cause if isinstance(cause, BaseException) else error
    return " ".join(f"{type(shown).__name__}: {shown}".split())[:300]
