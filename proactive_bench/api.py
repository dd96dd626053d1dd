"""The Python entry points: ``pbench episode``, ``pbench sweep`` and reading results back, as functions for scripts and notebooks.

Each takes the path its command takes (the same settings checks, the same
admission by ``pbench validate``'s checks, the same run rows and leases,
:func:`~proactive_bench.episode.execute_run` for every run) and returns what the
command's ``--json`` prints, as objects. A refusal before anything is stored
is a :class:`RunRefused` with the command's one-line message.

The functions start their own event loop: call them from plain code, not from
inside a running one (a notebook cell with top-level ``await``). pbench's logs go
to stderr, warnings only, unless the caller has configured structlog.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import structlog
from pydantic import ValidationError

from proactive_bench.campaign import (
    RayUnavailable,
    SweepConfig,
    create_sweep,
    import_ray,
    load_sweep_config,
    mark_interrupted,
    run_fast,
    sweep_endpoints,
    sweep_episodes,
    sweep_executor,
    sweep_run_spec,
    validate_sweep_config,
)
from proactive_bench.dataset import (
    DEFAULT_DATA_ROOT,
    LoadedEpisode,
    Session,
    left_out_dependencies,
    pick_sessions,
)
from proactive_bench.episode import (
    DEFAULT_MAX_TURNS,
    RunSettings,
    RunSpec,
    execute_run,
    load_spec_episode,
    start_run,
)
from proactive_bench.llm import Budget, EndpointError, PriceTable, check_reachable
from proactive_bench.logs import configure_logging, get_logger
from proactive_bench.review import stored_run_result
from proactive_bench.scaffolds import agent_and_model
from proactive_bench.scoring import DEFAULT_JUDGE, EpisodeResult, SessionResult, default_user
from proactive_bench.store import (
    DEFAULT_DB,
    Location,
    RunLike,
    Store,
    StoreOpenError,
    locate,
    writing,
)
from proactive_bench.suites import settings_owners
from proactive_bench.validation import (
    VALIDATED_DIR,
    dataset_problems,
    participant_problem,
    settings_problem,
)

log = get_logger(__name__)

SessionHook = Callable[[str, SessionResult | None], None]
"""Called with a session id and None as the session starts, and with its result as it ends."""
RunEventHook = Callable[[RunLike, str], None]
"""Called with a run and an event: ``start``, ``session`` (one finished) or ``end``."""

OWN_PARAMETERS = frozenset({"judge", "user", "user_model", "judge_model", "base_url", "max_turns", "agent_options", "protocol"})
EXTRA_SETTINGS = (frozenset(RunSettings.model_fields) - OWN_PARAMETERS) | {"ablation"}
"""The settings :func:`run_episode` takes as ``**settings``: the core run settings (:class:`~proactive_bench.episode.RunSettings`)
that are not its own parameters, and ``ablation``. A suite's own settings are taken by name too (the fields of its
``settings_model``: ``memory``, ``days``, a plug-in suite's), or as ``suite_settings``."""


class RunRefused(ValueError):
    """Settings, data or participants that cannot run; nothing was stored. The message is one line saying which and why."""


@dataclass(frozen=True)
class SweepResult:
    """A finished (or stopped) sweep: its id in the results database, its status and every run's result."""

    sweep_id: str
    status: str
    runs: list[EpisodeResult]


def run_episode(
    persona: str | None = None,
    model: str | None = None,
    *,
    agent: str | None = None,
    task: str | None = None,
    judge: str = DEFAULT_JUDGE,
    db: str | Path = DEFAULT_DB,
    data_root: str | Path = DEFAULT_DATA_ROOT,
    sessions: Sequence[str] | str | None = None,
    user: str | None = None,
    user_model: str | None = None,
    judge_model: str | None = None,
    base_url: str | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    agent_options: Mapping[str, str] | None = None,
    protocol: Literal["pbench", "pibench"] = "pbench",
    validate: bool = True,
    on_progress: SessionHook | None = None,
    answers_from: str | None = None,
    **settings: Any,
) -> EpisodeResult:
    """Run one episode against an agent and score it: ``pbench episode --persona PERSONA --agent AGENT --model MODEL`` as a function.

    Args:
        persona: The episode: a persona id of the default suite (``pharmacist``).
        model: The chat model the agent runs on (``--model``, e.g. ``openai:gpt-4o-mini``). Without ``agent`` it may
            name an agent, as before 0.2: ``scripted:reference`` runs that baseline; an agent file or module
            works with a DeprecationWarning (pass it as ``agent``).
        agent: The agent under test (``--agent``): ``react`` (the default, on ``model``), ``scripted:reference``,
            ``path/file.py:Class``, ``package.module:attr`` or a registered name.
        task: The episode of a suite of tasks (``suite=``: odyssey, agentif, trainee), instead of ``persona``.
        judge: The judge of rubric items (``--judge``), a name in ``JUDGES``; it runs on ``judge_model``.
        db: The results database: a SQLite file (made if missing; the run's workspace goes beside it) or a
            PostgreSQL URL.
        data_root: The dataset root (``personas/``, ``episodes/``, ``graders/``).
        sessions: The sessions to run, in the episode's order: a list of session ids, or one string as ``--sessions``
            takes it (``"1-5"``, ``"2,4"``, ``"s01_x,s02_y"``: 1-based positions, ranges and ids); None: every session.
        user: The user simulator backend (``rules``, ``llm`` or a plug-in registered in ``USERS``); None: ``llm`` under the
            ``pibench`` protocol, else ``rules``.
        user_model: The chat model of an LLM user.
        judge_model: The chat model grading rubric items; None: they stay ungraded.
        base_url: The OpenAI-compatible endpoint of every model.
        max_turns: Agent turns before a session is truncated.
        agent_options: ``--agent-option`` pairs for the scaffold (react: ``max_steps``, ``max_retries``).
        protocol: The evaluation rules, ``pbench`` or ``pibench``.
        validate: Refuse data ``pbench validate`` rejects (cached by the data's content), as the command does
            without ``--no-validate``.
        on_progress: Called with ``(session_id, None)`` as a session starts and ``(session_id, SessionResult)``
            as it ends.
        answers_from: A run in ``db`` whose recorded model answers serve this run's calls where they match (the
            model's settings and the messages, :mod:`proactive_bench.llm.cache`); the other calls go to the model.
            Every answer is recorded in the new run, so it can serve the next one (the pytest plugin's cache).
        **settings: Any of :data:`EXTRA_SETTINGS` (``max_tokens``, ``call_timeout``, ``probe``,
            ``context_tokens``, ``suite``, ...), as :class:`~proactive_bench.episode.RunSettings` defines them,
            and the suite's own settings by name (``memory="none"`` with ``suite="odyssey"``).

    Returns:
        The scored run, as ``pbench episode --json`` prints it (``as_dict()``): ``proc``, ``comp``, one
        :class:`~proactive_bench.scoring.SessionResult` per session, and ``run_id``, its id in ``db``.

    Raises:
        RunRefused: The settings, the data or a participant cannot run; nothing was stored.
        DatasetError: The episode does not load (every problem listed).
        ScaffoldLoadError, ModelSpecError, LaunchError, SeedError: The run could not start; it is stored as failed.
    """
    _quiet_logs()
    unknown = sorted(set(settings) - EXTRA_SETTINGS)
    if unknown:  # a suite's setting is checked by RunSpec, which names the suites that take it
        unknown = sorted(set(unknown) - set(settings_owners()))
    if unknown:
        raise RunRefused(f"run_episode: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(EXTRA_SETTINGS))}")
    episode = persona if task is None else task
    if episode is None or (persona is not None and task is not None):
        raise RunRefused("run_episode: give persona (the personas suite) or task (a suite of tasks), one of them")
    try:
        agent, model, note = agent_and_model(agent, model)
    except ValueError as exc:
        raise RunRefused(str(exc).replace("--", "")) from None
    if note:
        warnings.warn(note.replace("--", ""), DeprecationWarning, stacklevel=2)
    try:
        spec = RunSpec(
            persona=episode,
            agent=agent,
            model=model,
            judge=judge,
            data_root=str(data_root),
            sessions=[] if isinstance(sessions, str) else list(sessions or []),
            user=user or default_user(protocol),
            user_model=user_model,
            judge_model=judge_model,
            base_url=base_url,
            max_turns=max_turns,
            agent_options=dict(agent_options or {}),
            protocol=protocol,
            **settings,
        )
    except ValidationError as exc:
        raise RunRefused(
            "; ".join(
                f"{'.'.join(map(str, e['loc'])) + ': ' if e['loc'] else ''}{e['msg'].removeprefix('Value error, ')}" for e in exc.errors()
            )
        ) from None
    loaded = load_spec_episode(spec)
    chosen = _chosen_sessions(loaded, sessions if isinstance(sessions, str) else spec.sessions)
    spec = spec.model_copy(update={"sessions": [s.id for s in chosen] if sessions else [], "answers_from": answers_from})
    problem = settings_problem(agent, chosen, spec.user) or participant_problem(spec)
    if problem:
        raise RunRefused(problem)
    for sid, left_out in left_out_dependencies(loaded.episode, [s.id for s in chosen]).items():
        log.warning("history_left_out", session=sid, depends_on=left_out)
    _check_servers(spec.endpoints())
    results = _location(db).results_dir
    if validate:
        _admit(loaded, [s.id for s in chosen], results)
    file = _location(db).file
    if answers_from is not None and ((file is not None and not file.is_file()) or Store(db).run(answers_from) is None):
        raise RunRefused(f"answers_from: no run {answers_from} in {db}")
    store = Store(db)
    run = start_run(store, loaded, spec, results)
    with writing(store, run.id):
        try:
            return run_fast(execute_run(store, run, loaded, on_progress=on_progress))
        except KeyboardInterrupt:
            mark_interrupted(store, run.id)  # pbench resume RUN continues it
            raise


def run_sweep(
    config: SweepConfig | Mapping[str, Any] | str | Path,
    *,
    db: str | Path = DEFAULT_DB,
    validate: bool = True,
    on_event: RunEventHook | None = None,
) -> SweepResult:
    """Run models × personas × repeats × ablations (and a suite's settings) concurrently: ``pbench sweep`` as a function.

    Args:
        config: The sweep: a :class:`~proactive_bench.campaign.SweepConfig`, a mapping of its keys
            (``{"models": ["scripted:reference"], "personas": ["pharmacist"]}``), or the path of a sweep YAML file.
            Its ``executor`` and ``workers`` say where the runs execute, as for the command.
        db: The results database (a SQLite file, made if missing, or a PostgreSQL URL).
        validate: Refuse data ``pbench validate`` rejects, as the command does without ``--no-validate``.
        on_event: Called with ``(run, event)``, event ``start``, ``session`` (one finished) or ``end``; with worker
            processes or Ray only ``session``.

    Returns:
        The sweep's id, status and every run's result (as :func:`load_results` reads them).

    Raises:
        RunRefused: The settings, the data, a participant or the price file cannot run; nothing was stored.
        DatasetError: An episode does not load.
        WorkerFailed: A worker process died; ``pbench resume SWEEP`` continues the sweep.
    """
    _quiet_logs()
    try:
        settings = _sweep_config(config)
        if settings.executor == "ray":
            import_ray()
        episodes = sweep_episodes(settings)
        budget = Budget(PriceTable.load(settings.prices), settings.max_cost_usd)
    except (ValueError, RayUnavailable) as exc:  # SweepConfigError, PriceFileError, Ray not installed
        raise RunRefused(str(exc)) from None
    for arm in settings.arms():
        if problem := participant_problem(sweep_run_spec(settings, arm, next(iter(episodes)))):
            raise RunRefused(problem)
    _check_servers(sweep_endpoints(settings))
    results = _location(db).results_dir
    for loaded in episodes.values() if validate else []:
        _admit(loaded, [], results)
    store = Store(db)
    sweep, runs = create_sweep(store, settings, results, episodes)
    with writing(store, sweep.id, beat=False) as held:
        executor = sweep_executor(store, sweep, runs, settings, budget)
        executor.start()  # forks workers before the lease's heartbeat thread exists
        held.keep_alive()
        try:
            executor.follow(on_event)
        except KeyboardInterrupt:
            mark_interrupted(store, sweep.id)  # pbench resume SWEEP continues it
            raise
    finished = store.sweep(sweep.id)
    assert finished is not None
    return SweepResult(sweep.id, finished.status, _results(store, sweep.id))


def load_results(ident: str = "latest", *, db: str | Path = DEFAULT_DB) -> list[EpisodeResult]:
    """The stored results of a run or of every run of a sweep: what ``pbench results ID --json`` reads, per run.

    Args:
        ident: A run or sweep id, a unique prefix of one, or ``latest`` (the newest sweep, or run outside a sweep).
        db: The results database (a SQLite file or a PostgreSQL URL).

    Returns:
        One result per run, oldest first, each scored by its run's protocol; an unfinished run's result is partial.

    Raises:
        RunRefused: No database at ``db``.
        IdLookupError: ``ident`` names no run or sweep, or more than one.
    """
    location = _location(db)
    if location.file is not None and not location.file.is_file():
        raise RunRefused(f"no results database at {db}")
    store = Store(db)
    return _results(store, store.resolve(ident).id)


def _results(store: Store, ident: str) -> list[EpisodeResult]:
    return [stored_run_result(store, run) for run in sorted(store.runs_for(ident), key=lambda r: r.created)]


def _quiet_logs() -> None:
    """pbench's logs on stderr, warnings only, unless the caller has set structlog up."""
    if not structlog.is_configured():
        configure_logging()


def _chosen_sessions(loaded: LoadedEpisode, ids: list[str] | str) -> list[Session]:
    """The sessions ``ids`` names, in the episode's order (all when empty); RunRefused for an id the episode lacks.

    ``ids`` may be one string as ``--sessions`` takes it (positions, ranges, ids).
    """
    if isinstance(ids, str):
        try:
            return pick_sessions(ids, loaded.sessions, option="sessions")
        except ValueError as exc:
            raise RunRefused(f"{exc} of episode {loaded.episode.id}") from None
    known = [s.id for s in loaded.sessions]
    if missing := [sid for sid in ids if sid not in known]:
        raise RunRefused(f"sessions: {', '.join(missing)} not in episode {loaded.episode.id} (it has {', '.join(known)})")
    return [s for s in loaded.sessions if not ids or s.id in ids]


def _location(db: str | Path) -> Location:
    """Where ``db`` points; RunRefused for a path or URL that cannot be a results database."""
    try:
        return locate(db)
    except StoreOpenError as exc:
        raise RunRefused(f"db {db}: {exc}") from None


def _check_servers(endpoints: dict[str, list[str]]) -> None:
    try:
        check_reachable(endpoints)
    except EndpointError as exc:
        raise RunRefused(str(exc)) from None


def _admit(loaded: LoadedEpisode, session_ids: list[str], results: Path) -> None:
    """RunRefused with the first error ``pbench validate`` finds in the sessions to run (and how many there are)."""
    problems = dataset_problems(loaded, session_ids, results / VALIDATED_DIR)
    if problems:
        raise RunRefused(
            f"{len(problems)} error(s) in episode {loaded.episode.id} (see pbench validate), first: {problems[0]}; validate=False skips these checks"
        )


def _sweep_config(config: SweepConfig | Mapping[str, Any] | str | Path) -> SweepConfig:
    if isinstance(config, SweepConfig):
        return config
    if isinstance(config, (str, Path)):
        return load_sweep_config(Path(config))
    return validate_sweep_config(dict(config), "run_sweep")


__all__ = ["EXTRA_SETTINGS", "RunEventHook", "RunRefused", "SessionHook", "SweepResult", "load_results", "run_episode", "run_sweep"]
