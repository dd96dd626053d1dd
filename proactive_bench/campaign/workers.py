"""Sweeps over several processes, for machines with more cores than one event loop can use.

The runs are dealt round-robin to ``workers`` processes; each runs its
share with :func:`~proactive_bench.campaign.sweep.run_episodes` on its own event loop
and its own connection to the same results database (SQLite in WAL mode).
Concurrency and the per-endpoint request rate are divided among the workers;
the budget is one shared counter, so the sweep stops at the same total spend.
The parent process follows progress by reading finished sessions from the
store, and holds the sweep's lease; workers save under it and die with the
parent (:func:`die_with_parent`), so none outlives a ``kill -9`` of the sweep.
On Ctrl-C or SIGTERM the parent sends its workers SIGTERM: each saves the
sessions it finished and exits within :data:`STOP_GRACE_S` (else it is killed)
before the parent marks the runs interrupted and releases the lease.
"""

from __future__ import annotations

import ctypes
import importlib
import math
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from multiprocessing.sharedctypes import Synchronized
from typing import Any, Literal

from proactive_bench.campaign.interrupts import Interrupted, as_worker, signals_held
from proactive_bench.campaign.process_tuning import run_fast, tune_for_runs
from proactive_bench.campaign.progress import StoredProgress
from proactive_bench.campaign.sweep import (
    RunHook,
    SweepConfig,
    finish_sweep,
    run_episodes,
    unfinished_runs,
)
from proactive_bench.episode import run_spec
from proactive_bench.llm import Budget, PriceTable
from proactive_bench.logs import configure_logging_on_import, get_logger
from proactive_bench.store import Fences, LeaseLost, RunLike, Store, SweepLike

log = get_logger(__name__)

POLL_S = 0.5
PARENT_POLL_S = 0.2
"""How often a worker without a parent-death signal checks that its parent lives."""
PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 15.0
"""How long stopped workers may take to save their finished sessions before they are killed."""
RUN_MODULES = (
    "proactive_bench.scoring.judge",
    "proactive_bench.user.llm",
    "proactive_bench.scaffolds.react",
    "proactive_bench.llm.http_chat",
    "langchain_openai",
    "openai.resources.chat.chat",  # the chat API of the OpenAI client langchain_openai builds with a model (imported on first access)
    "httpcore2",  # httpx2's connections, imported as langchain_openai builds a model's default HTTP client
    "json_repair",  # the structured caller's repair, imported with the first answer it parses
)
"""Modules a run that calls a model imports on first use (participants are built lazily); a scripted run needs none.
Imported before the runs start (a local sweep's parent before it forks, a Ray runner before it is ready): on first use
they would stop the event loop's runs for their import, 0.1-0.2 s of CPU in each process."""
EPISODE_MODULE = "proactive_bench.episode.launch"
"""The episode stack (the session graph, the runner), which every run imports on first use."""


class SharedBudget(Budget):
    """A budget whose spending is one counter shared by every worker process."""

    def __init__(self, prices: PriceTable, limit_usd: float | None, spent: Synchronized[float]) -> None:
        super().__init__(prices, limit_usd)
        self._shared = spent

    @property
    def spent_usd(self) -> float:
        return float(self._shared.value)

    def add(self, cost_usd: float) -> None:
        with self._shared.get_lock():
            self._shared.value += cost_usd


class WorkerFailed(RuntimeError):
    """A worker process ended with an error (its own log says which); the sweep can be resumed."""


class SweepWorkers:
    """The worker processes of one sweep: :meth:`start` them, then :meth:`follow` them to the end.

    Workers are forked when this process runs a single thread (cheap: the
    code is already imported, and frozen objects are shared copy-on-write),
    else spawned; start them before any progress display starts its thread.
    """

    def __init__(self, store: Store, sweep: SweepLike, runs: Sequence[tuple[RunLike, Any]], config: SweepConfig, budget: Budget) -> None:
        self.store, self.sweep, self.budget = store, sweep, budget
        self.by_id = {run.id: run for run, _ in runs}
        self.method: Literal["fork", "spawn"] = start_method()
        context = multiprocessing.get_context("fork") if self.method == "fork" else multiprocessing.get_context("spawn")
        self.spent = context.Value("d", budget.spent_usd)
        share = config.model_copy(
            update={
                "concurrency": math.ceil(config.concurrency / config.workers),
                "requests_per_second": config.requests_per_second / config.workers if config.requests_per_second else None,
            }
        )
        groups = [runs[n :: config.workers] for n in range(config.workers)]
        self.processes = [
            context.Process(
                target=_worker,
                args=(
                    store.location.reopen,
                    sweep.id,
                    [run.id for run, _ in group],
                    share.model_dump(mode="json"),
                    self.spent,
                    store.fence,
                    (store, group) if self.method == "fork" else None,
                ),
                name=f"pbench-sweep-{n}",
            )
            for n, group in enumerate(groups)
            if group
        ]

    def start(self) -> None:
        if self.method == "fork":
            import_modules(run_modules(self.by_id.values()))  # once here rather than in every worker
            self.store.close_connections()  # no SQLite handle crosses the fork; each worker opens its own
            tune_for_runs()
        try:
            with signals_held():  # a worker takes them once it has its own handlers (as_worker)
                for process in self.processes:
                    process.start()
        except BaseException:  # a signal held meanwhile arrives as the block ends
            self._stop()
            raise

    def follow(self, on_event: RunHook | None = None) -> None:
        """Report finished sessions until every worker exits; then settle the budget and the sweep's status."""
        progress = StoredProgress(self.store, self.sweep, self.by_id)
        try:
            while True:
                running = [process.sentinel for process in self.processes if process.is_alive()]
                progress.report(on_event)
                if not running:
                    break
                multiprocessing.connection.wait(running, timeout=POLL_S)  # wakes as soon as a worker exits
        except BaseException:  # Ctrl-C, SIGTERM: no worker may save once the caller releases the lease
            self._stop()
            raise
        finally:
            for process in self.processes:
                process.join()
        self.budget.add(self.spent.value - self.budget.spent_usd)  # what the workers spent
        failed = [process.name for process in self.processes if process.exitcode != 0]
        if failed:
            raise WorkerFailed(f"sweep worker(s) {', '.join(failed)} exited abnormally; continue with: pbench resume {self.sweep.id}")
        finish_sweep(self.store, self.sweep)

    def _stop(self) -> None:
        """SIGTERM to every worker (each saves what it finished); kill those still there after STOP_GRACE_S."""
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        while (alive := [p.sentinel for p in self.processes if p.is_alive()]) and time.monotonic() < deadline:
            multiprocessing.connection.wait(alive, timeout=deadline - time.monotonic())
        for process in self.processes:
            if process.is_alive():
                log.warning("worker_killed", worker=process.name, after_s=STOP_GRACE_S)
                process.kill()


def run_modules(runs: Iterable[RunLike]) -> tuple[str, ...]:
    """What ``runs`` import on first use: the episode stack, and the model stack when one of them calls a model."""
    return (EPISODE_MODULE, *(RUN_MODULES if any(run_spec(run).role_models() for run in runs) else ()))


def import_modules(modules: Iterable[str]) -> None:
    """Import ``modules`` now, before runs start: on first use they would stop every run of the event loop meanwhile."""
    for module in modules:
        importlib.import_module(module)


def start_method() -> Literal["fork", "spawn"]:
    """``fork`` where it is safe (Linux, and this process runs one thread), else ``spawn`` (macOS system libraries break after fork)."""
    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"


def die_with_parent() -> None:
    """Make this (worker) process exit at once, without writing, when its parent dies.

    On Linux the kernel kills it (``prctl(PR_SET_PDEATHSIG, SIGKILL)``);
    everywhere, a daemon thread also waits on multiprocessing's pipe from the
    parent and watches the parent's pid, and ends the process within
    PARENT_POLL_S of the parent's death.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # no usable libc: the thread below still watches
            pass
    if os.getppid() != parent.pid:  # it died before the signal was armed
        os._exit(70)

    def watch() -> None:
        while not multiprocessing.connection.wait([parent.sentinel], timeout=PARENT_POLL_S):
            if os.getppid() != parent.pid:  # re-parented: the parent is gone (its pipe may be held open by a sibling)
                break
        os._exit(70)  # no cleanup: nothing may be written once the parent is gone

    threading.Thread(target=watch, name="pbench-parent-watch", daemon=True).start()


def _worker(
    db_path: str,
    sweep_id: str,
    run_ids: list[str],
    config_json: dict[str, Any],
    spent: Synchronized[float],
    fence: Fences | None,
    forked: tuple[Store, list[tuple[RunLike, Any]]] | None,
) -> None:
    """One worker process: its share of the runs on its own event loop, saved under the parent's lease (``fence``).

    A forked worker has the parent's store (its connections closed before the
    fork), runs and loaded episodes already; a spawned one opens and reads them again.
    """
    as_worker()
    die_with_parent()
    configure_logging_on_import()
    config = SweepConfig.model_validate(config_json)
    if forked is not None:
        store, mine = forked  # the parent tuned the collector before forking
    else:
        store = Store(db_path)
        sweep = store.sweep(sweep_id)
        assert sweep is not None
        mine = [(run, loaded) for run, loaded in unfinished_runs(store, sweep) if run.id in set(run_ids)]
        tune_for_runs()
    store.fence = fence
    budget = SharedBudget(PriceTable.load(config.prices), config.max_cost_usd, spent)
    try:
        run_fast(run_episodes(store, mine, config, budget))
    except LeaseLost as exc:  # another process took the sweep over: stop, having written nothing more
        log.error("lease_lost", error=str(exc))
        sys.exit(3)
    except Interrupted as stop:  # SIGTERM, from the parent: finished sessions are saved
        sys.exit(stop.exit_code)
