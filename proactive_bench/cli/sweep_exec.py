"""``pbench sweep`` at work: the sweep's settings checked, its runs created, run concurrently (in worker processes or on
Ray) with a progress bar, and summarised; ``episode`` under a suite of tasks and ``resume`` of a sweep end here too.

The command's options (what ``--help`` shows) are in ``sweep.py``, which imports this module only when it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

import proactive_bench.campaign as campaign  # its Ray executor and worker processes load only when a sweep uses them
from proactive_bench.campaign import (
    SweepConfig,
    create_sweep,
    load_sweep_config,
    sweep_endpoints,
    sweep_episodes,
    sweep_run_spec,
    validate_sweep_config,
)
from proactive_bench.cli.common import (
    DEFAULT_DB,
    err_console,
    fail,
    open_store,
    results_dir,
    warn,
)
from proactive_bench.cli.episodes import dataset_failure
from proactive_bench.cli.guards import admit, check_endpoints, check_keys, check_participants, owning, trace_runs
from proactive_bench.cli.options import (
    AgentLimits,
    CallLimits,
    ExecutorChoice,
    ExternalAgentOptions,
    RoleEndpoints,
    SuiteChoice,
    split_list,
)
from proactive_bench.cli.results import print_summary
from proactive_bench.dataset import DatasetError, LoadedEpisode
from proactive_bench.episode import run_spec
from proactive_bench.llm import Budget, PriceFileError, PriceTable
from proactive_bench.logs import configure_logging_on_import
from proactive_bench.reporting import summarize
from proactive_bench.scaffolds import agent_and_model
from proactive_bench.store import HeldLease, RunLike, Store, SweepLike


def run_sweep(
    *,
    agent: str | None,
    models: str | None,
    judge: str | None,
    personas: str | None,
    runs: int | None,
    ablation: str,
    config: Path | None,
    user: str | None,
    user_model: str | None,
    judge_model: str | None,
    base_url: str | None,
    concurrency: int | None,
    workers: int | None,
    placement: ExecutorChoice,
    rps: float | None,
    max_cost: float | None,
    prices: Path | None,
    agent_limits: AgentLimits,
    external: ExternalAgentOptions,
    limits: CallLimits,
    endpoints: RoleEndpoints,
    choice: SuiteChoice,
    db: str | None,
    data: Path | None,
    as_json: bool,
    no_validate: bool,
    verbose: bool,
    protocol: str | None,
    otel: bool,
) -> None:
    """``pbench sweep``: the settings from the flags (over ``--config``'s), then :func:`start_and_report`."""
    configure_logging_on_import(verbose)
    trace_runs(otel)
    flags = {
        "agent": agent,
        "models": split_list(models) or None,
        "judge": judge,
        "personas": split_list(personas) or None,
        "runs": runs,
        "protocol": protocol,
        "ablations": split_list(ablation) if ablation != "none" else None,
        "user": user,
        "user_model": user_model,
        "judge_model": judge_model,
        "base_url": base_url,
        "concurrency": concurrency,
        "workers": workers,
        "requests_per_second": rps,
        "max_cost_usd": max_cost,
        "prices": str(prices) if prices else None,
        "data": str(data) if data else None,
    }
    given: dict[str, Any] = {k: v for k, v in flags.items() if v is not None}
    try:
        if personas and (choice.task or choice.tasks):
            raise ValueError("give --personas or --task, not both")
        given |= (
            agent_limits.settings() | limits.settings() | endpoints.settings() | external.settings() | choice.sweep_fields(db or DEFAULT_DB)
        )
        given |= placement.sweep_fields()
        base = load_sweep_config(config).model_dump(mode="json", exclude_unset=True) if config else {}
        settings = validate_sweep_config({**base, **given}, str(config) if config else "flags")
    except ValueError as exc:  # SweepConfigError and --max-tokens errors
        raise fail(str(exc)) from None
    for entry in settings.models:
        if note := agent_and_model(settings.agent, entry)[2]:
            warn(note.replace("--model", "--models", 1))
    start_and_report(settings, db or DEFAULT_DB, as_json, no_validate)


def start_and_report(settings: SweepConfig, db_path: str, as_json: bool, no_validate: bool) -> None:
    """Check a sweep's data and participants, create its runs, run them and print the summary."""
    check_executor(settings)
    try:
        episodes = sweep_episodes(settings)
    except ValueError as exc:  # SweepConfigError
        raise fail(str(exc)) from None
    except DatasetError as exc:
        raise dataset_failure(exc, "the dataset") from None
    for loaded in episodes.values() if not no_validate else []:
        admit(loaded, [], results_dir(db_path))
    specs = [sweep_run_spec(settings, arm, next(iter(episodes))) for arm in settings.arms()]
    check_keys(specs)
    check_endpoints(sweep_endpoints(settings))  # a server that is not there fails before any agent or model client loads
    check_participants(specs)
    budget = budget_of(settings)
    store = open_store(db_path, create=True)
    try:
        new_sweep, new_runs = create_sweep(store, settings, results_dir(db_path), episodes)
    except DatasetError as exc:  # a memory setting beyond the first that cannot be served
        raise dataset_failure(exc, "the dataset") from None
    err_console.print(f"sweep {new_sweep.id}: {len(new_runs)} run(s)", highlight=False)
    with owning(store, new_sweep.id, beat=False) as held:
        sweep_and_report(store, new_sweep, new_runs, settings, budget, as_json, held)


def check_executor(config: SweepConfig) -> None:
    """Stop with one line, before any row is written, when the chosen executor cannot run here (Ray not installed)."""
    if config.executor == "ray":
        try:
            campaign.import_ray()
        except campaign.RayUnavailable as exc:
            raise fail(str(exc)) from None


def budget_of(config: SweepConfig) -> Budget:
    """The sweep's cost budget, or a one-line error for a bad price file."""
    try:
        return Budget(PriceTable.load(config.prices), config.max_cost_usd)
    except PriceFileError as exc:
        raise fail(str(exc)) from None


def sweep_and_report(
    store: Store,
    the_sweep: SweepLike,
    pending: Sequence[tuple[RunLike, LoadedEpisode]],
    config: SweepConfig,
    budget: Budget,
    as_json: bool,
    lease: HeldLease,
) -> None:
    """Run a sweep's pending runs (on a Ray cluster, or in worker processes if it has them) with a progress bar, then print its summary."""
    total = sum(len(run_spec(run).sessions) for run, _ in pending)
    executor = campaign.sweep_executor(store, the_sweep, pending, config, budget)
    executor.start()  # before the progress display's thread exists, so workers can be forked
    lease.keep_alive()  # its heartbeat thread too
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} sessions"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as progress:
        task = progress.add_task(f"sweep {the_sweep.id}", total=total)

        def on_event(run: RunLike, event: str) -> None:
            if event == "session":
                progress.advance(task)

        try:
            executor.follow(on_event)
        except campaign.WorkerFailed as exc:
            raise fail(str(exc), 1) from None
    if budget.exhausted:
        err_console.print(
            f"budget of ${config.max_cost_usd} spent; continue with: pbench resume {the_sweep.id} --max-cost MORE", highlight=False
        )
    print_summary(summarize(store, store.runs(the_sweep.id)), "json" if as_json else "table")
    err_console.print(f"results: {store.name} (sweep {the_sweep.id})", highlight=False)
