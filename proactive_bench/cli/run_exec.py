"""``pbench episode``, ``resume`` and ``replay`` at work: the run checked, started under its lease, executed with a progress bar and scored.

Their options (what ``--help`` shows) are in ``run.py``, which imports this module only when one of them runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

import proactive_bench.episode as episode_package  # the runner (LangGraph, the model clients) loads once a run starts
from proactive_bench.campaign import (
    SweepConfigError,
    run_fast,
    sweep_endpoints,
    tune_for_runs,
    unfinished_runs,
    validate_sweep_config,
)
from proactive_bench.cli.common import (
    DEFAULT_DB,
    err_console,
    fail,
    open_store,
    out_console,
    resolve_id,
    results_dir,
    warn,
)
from proactive_bench.cli.episodes import agent_or_exit, dataset_failure, episode_spec, load_or_exit, open_run
from proactive_bench.cli.guards import admit, check_endpoints, check_keys, check_participants, owning, trace_runs
from proactive_bench.cli.options import AgentLimits, CallLimits, ExecutorChoice, ExternalAgentOptions, RoleEndpoints, SuiteChoice
from proactive_bench.data_model import RunStatus, SessionOutcome, SweepStatus
from proactive_bench.dataset import (
    DatasetError,
    LoadedEpisode,
    left_out_dependencies,
    pick_sessions,
)
from proactive_bench.episode import run_spec
from proactive_bench.logs import configure_logging_on_import
from proactive_bench.reporting import results_table
from proactive_bench.scoring import EpisodeResult, SessionResult, default_user
from proactive_bench.store import AgentErrorRow, RunLike, Store, lease_scope
from proactive_bench.suites import DEFAULT_SUITE, suite_settings_problem
from proactive_bench.tracebacks import ErrorTrace
from proactive_bench.validation import settings_problem


def run_episode(
    *,
    persona: str | None,
    agent: str | None,
    model: str | None,
    judge: str,
    sessions: str | None,
    user: str | None,
    user_model: str | None,
    judge_model: str | None,
    base_url: str | None,
    db: str | None,
    agent_limits: AgentLimits,
    external: ExternalAgentOptions,
    limits: CallLimits,
    endpoints: RoleEndpoints,
    choice: SuiteChoice,
    data: Path,
    as_json: bool,
    no_validate: bool,
    verbose: bool,
    protocol: str,
    otel: bool,
) -> None:
    """``pbench episode``: one persona's episode run and scored; a suite of tasks' run as a sweep of them."""
    configure_logging_on_import(verbose)
    trace_runs(otel)
    agent_name, chat_model = agent_or_exit(agent, model)
    user = user or default_user(protocol)
    try:
        given: dict[str, Any] = {
            "judge": judge,
            "user": user,
            "user_model": user_model,
            "judge_model": judge_model,
            "base_url": base_url,
            "protocol": protocol,
            **agent_limits.settings(),
            **limits.settings(),
            **endpoints.settings(),
            **external.settings(),
        }
    except ValueError as exc:
        raise fail(str(exc)) from None
    suite = choice.suite_name
    if suite != DEFAULT_SUITE:
        if persona is not None or sessions is not None:
            raise fail(f"--persona and --sessions choose persona episodes; choose {suite} tasks with --task")
        flags = {"agent": agent_name, "models": [chat_model] if chat_model else [], "data": str(data), **given}
        try:
            flags |= choice.sweep_fields(db or DEFAULT_DB)
            settings = validate_sweep_config({k: v for k, v in flags.items() if v is not None}, "flags")
        except ValueError as exc:
            raise fail(str(exc)) from None
        from proactive_bench.cli.sweep_exec import start_and_report  # the sweep command and its tables: for a suite's tasks only

        start_and_report(settings, db or DEFAULT_DB, as_json, no_validate)
        return
    if persona is None:
        raise fail("--persona is required (or --suite odyssey, agentif or trainee to run their --task)")
    if choice.task is not None or choice.tasks is not None:
        raise fail(
            f"--task chooses the tasks of a suite of tasks (--suite odyssey, agentif, trainee); the {DEFAULT_SUITE} suite runs --persona"
        )
    if problem := suite_settings_problem(DEFAULT_SUITE, choice.suite_values()):
        raise fail(problem)
    loaded = load_or_exit(data, persona)
    try:
        chosen = pick_sessions(sessions, loaded.sessions)
    except ValueError as exc:
        raise fail(str(exc)) from None
    for sid, left_out in left_out_dependencies(loaded.episode, [s.id for s in chosen]).items():
        warn(f"--sessions leaves out {', '.join(left_out)}, which {sid} depends on: {sid} runs without that history")
    db_path = db or DEFAULT_DB
    spec = episode_spec(persona, agent_name, chat_model, data, chosen, **given)
    if problem := settings_problem(agent_name, chosen, user):
        raise fail(problem)
    check_keys([spec])
    check_endpoints(spec.endpoints())  # a server that is not there fails before any agent or model client loads
    check_participants([spec])
    if not no_validate:
        admit(loaded, [s.id for s in chosen], results_dir(db_path))
    store = open_store(db_path, create=True)
    run = episode_package.start_run(store, loaded, spec, results_dir(db_path))
    with owning(store, run.id):
        _finish(store, run, loaded, as_json, verbose)


def resume_run(
    run_id: str, *, db: str, max_cost: float | None, placement: ExecutorChoice, as_json: bool, no_validate: bool, verbose: bool, otel: bool
) -> None:
    """``pbench resume``: an interrupted run or sweep continued."""
    configure_logging_on_import(verbose)
    trace_runs(otel)
    store = open_store(db)
    run_id = resolve_id(store, run_id).id  # a unique prefix or latest
    sweep = store.sweep(run_id)
    if sweep is not None and sweep.status == SweepStatus.FINISHED:
        err_console.print(f"sweep {sweep.id} is finished; nothing to resume (pbench results {sweep.id} shows it)", highlight=False)
        return
    if sweep is not None:
        from proactive_bench.cli.sweep_exec import budget_of, check_executor, sweep_and_report  # for a sweep's resume only

        try:
            changes = placement.sweep_fields() | ({"max_cost_usd": max_cost} if max_cost is not None else {})
            config = validate_sweep_config({**sweep.config, **changes}, f"sweep {sweep.id}")
        except SweepConfigError as exc:
            raise fail(str(exc)) from None
        check_executor(config)
        budget = budget_of(config)
        with owning(store, sweep.id, beat=False) as held:  # taken before reading what is left to do
            try:
                pending = unfinished_runs(store, sweep)
            except DatasetError as exc:
                raise dataset_failure(exc, f"the dataset of sweep {sweep.id}") from None
            for loaded in {id(loaded): loaded for _run, loaded in pending}.values() if not no_validate else []:
                admit(loaded, [], results_dir(db))
            specs = {(spec.agent, spec.model): spec for spec in (run_spec(run) for run, _ in pending)}.values()
            check_keys(specs)
            check_endpoints(sweep_endpoints(config))
            check_participants(specs)
            sweep_and_report(store, sweep, pending, config, budget, as_json, held)
        return
    store, run, loaded = open_run(db, run_id)
    if run.status == RunStatus.FINISHED:
        err_console.print(f"run {run.id} is finished; nothing to resume (pbench results {run.id} shows it)", highlight=False)
        return
    if not no_validate:
        admit(loaded, run_spec(run).sessions, results_dir(db))
    check_keys([run_spec(run)])
    check_endpoints(run_spec(run).endpoints())
    check_participants([run_spec(run)])
    with owning(store, lease_scope(run)):
        _finish(store, store.run(run.id) or run, loaded, as_json, verbose)  # read again: a former holder may have moved it on


def replay_run(run_id: str, *, db: str, as_json: bool, no_validate: bool, verbose: bool, otel: bool) -> None:
    """``pbench replay``: a recorded run run again as a new run, every model answer served from the record."""
    configure_logging_on_import(verbose)
    trace_runs(otel)
    store, source, loaded = open_run(db, run_id)
    spec = run_spec(source).model_copy(update={"replay_of": source.id})
    if not no_validate:
        admit(loaded, spec.sessions, results_dir(db))
    check_participants([spec])
    run = episode_package.start_run(store, loaded, spec, results_dir(db))
    with owning(store, run.id):
        _finish(store, run, loaded, as_json, verbose)


def _finish(store: Store, run: RunLike, loaded: LoadedEpisode, as_json: bool, verbose: bool) -> None:
    """Execute a run with a progress bar, print its results, exit 1 if a session errored (each on one line; ``verbose``: with the agent's frames)."""
    try:
        result = _run_with_progress(store, run, loaded)
    except episode_package.START_FAILURES as exc:  # the run is marked failed
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
    else:
        out_console.print(results_table(result, len(loaded.sessions)))
        err_console.print(f"results: {store.name} (run {run.id}); workspace: {run.workspace}", highlight=False)
    if any(s.status == SessionOutcome.ERROR for s in result.sessions):
        _print_errors(store, run, result, verbose)
        raise typer.Exit(1)


def _print_errors(store: Store, run: RunLike, result: EpisodeResult, verbose: bool) -> None:
    """One line per errored session on stderr; ``verbose``: then the frames of the agent's own code that raised."""
    stored = {sr.session_id: sr.id for sr in store.session_runs(run.id)}
    for session in result.sessions:
        if session.status != SessionOutcome.ERROR:
            continue
        err_console.print(f"{session.session_id}: {session.error}", highlight=False, markup=False)
        session_run_id = stored.get(session.session_id)
        if verbose and session_run_id is not None:
            for row in store.rows(AgentErrorRow, session_run_id):
                err_console.print(
                    "\n".join(ErrorTrace.from_stored(row.type, row.message, row.frames).lines()), highlight=False, markup=False
                )


def _run_with_progress(store: Store, run: RunLike, loaded: LoadedEpisode) -> EpisodeResult:
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as progress:
        task = progress.add_task(f"{loaded.persona.id}: starting", total=len(run_spec(run).sessions))

        def on_progress(session_id: str, result: SessionResult | None) -> None:
            if result is None:
                progress.update(task, description=f"{loaded.persona.id}: {session_id}")
            else:
                progress.advance(task)

        tune_for_runs()
        return run_fast(episode_package.execute_run(store, run, loaded, on_progress=on_progress))
