"""Sweeps: many episode runs (models × personas × memory settings × repeats × ablations) run concurrently.

Episodes run concurrently up to ``concurrency`` (sessions inside an episode
stay in order); models on one endpoint share a rate limiter; a budget shared
by every run stops new sessions once spent. Every run is an ordinary run in
the store, tagged with the sweep, so ``pbench resume SWEEP`` continues each
unfinished run and ``pbench results SWEEP`` aggregates them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

import proactive_bench.episode as episode  # the runner (LangGraph, the model clients) loads when a run starts, not with the config
import proactive_bench.llm as llm  # the shared transport (openai, LangChain) loads when a sweep runs
from proactive_bench.data_model import RunStatus, SweepStatus
from proactive_bench.dataset import (
    DEFAULT_DATA_ROOT,
    Ablation,
    LoadedEpisode,
    ablated_sessions,
)
from proactive_bench.episode import (
    RunSettings,
    RunSpec,
    run_spec,
)
from proactive_bench.llm import (
    DEFAULT_PAUSE_AFTER,
    Budget,
    EndpointHealth,
)
from proactive_bench.logs import get_logger
from proactive_bench.registry import PluginError
from proactive_bench.scaffolds import agent_and_model, agent_loader, reference_problem, unknown_agent
from proactive_bench.scoring import protocol
from proactive_bench.store import RunLike, Store, Sweep, SweepLike
from proactive_bench.suites import SUITES, SuiteContext, settings_grid, suite_settings_problem
from proactive_bench.user import check_user
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

if TYPE_CHECKING:
    from langchain_core.rate_limiters import BaseRateLimiter

log = get_logger(__name__)

RunHook = Callable[[RunLike, str], None]
"""Called with a run and an event: ``start``, ``session`` (one finished), ``end``."""


class SweepConfig(RunSettings):
    """A sweep, as flags or as a YAML file with these keys: the core run settings, the arms (agent × models), the
    episodes, the grid (repeats × ablations × the suite's swept settings) and how the runs execute.

    A suite's settings may be given by name at the top level (``memory: [none, rag:raw-session]``) or under
    ``suite_settings``; a swept one takes a list.
    """

    model_config = ConfigDict(extra="forbid")
    agent: str | None = Field(
        default=None,
        description="The agent every run evaluates (--agent); None: each entry of models names its own, as --model alone does (a chat model for react, or a scripted baseline).",
    )
    models: list[str] = Field(
        default_factory=list,
        description="The chat models the agent runs on, one arm each (--models); with an agent that runs on none, empty.",
    )
    personas: list[str] = Field(
        default_factory=list,
        description="The episodes: persona ids, or task ids for a suite of tasks (tasks is the same list); empty: every one in the dataset.",
    )
    runs: int = Field(default=1, ge=1, description="Repeats of each model × persona × ablation; pibench protocol: 3 unless given.")
    ablations: list[Ablation] = Field(default_factory=lambda: list[Ablation](["none"]))
    data: Path = DEFAULT_DATA_ROOT
    concurrency: int = Field(default=4, ge=1, description="Episodes running at once (over all worker processes).")
    workers: int = Field(default=1, ge=1, description="Processes the runs are divided among (one event loop each); local executor.")
    executor: Literal["local", "ray"] = Field(
        default="local", description="Where runs execute: this machine's processes, or a Ray cluster (one task per run)."
    )
    ray_address: str | None = Field(
        default=None, description="Ray executor: the cluster (auto, HOST:PORT or ray://HOST:PORT); none: a new local one."
    )
    requests_per_second: float | None = Field(default=None, gt=0, description="Per endpoint, shared by all models on it.")
    max_cost_usd: float | None = Field(default=None, gt=0)
    prices: Path | None = None
    pause_after: int = Field(
        default=DEFAULT_PAUSE_AFTER, ge=1, description="Connection errors in a row after which a model server's runs pause."
    )

    _known_user = field_validator("user")(check_user)

    @model_validator(mode="before")
    @classmethod
    def _tasks_are_personas(cls, data: Any) -> Any:
        """``tasks``: the episodes of a suite of tasks, stored as ``personas`` (give one of the two)."""
        if isinstance(data, dict) and "tasks" in data:
            if data.get("personas"):
                raise ValueError("give personas or tasks, not both")
            data = {k: v for k, v in data.items() if k != "tasks"} | {"personas": data["tasks"]}
        return data

    @field_validator("agent")
    @classmethod
    def _known_agent(cls, agent: str | None) -> str | None:
        if agent is not None and agent_loader(agent) is None:
            raise ValueError(unknown_agent(agent))
        return agent

    @model_validator(mode="after")
    def _arms(self) -> SweepConfig:
        if not self.models and self.agent is None:
            raise ValueError("models: give at least one (or an agent that runs on no chat model)")
        entries: list[str | None] = [*self.models] or [None]
        for entry in entries:
            agent_and_model(self.agent, entry)  # ValueError: an unknown agent, an agent given as a model
        if problem := self.external_problem([agent for agent, _ in self.arms()]) or self.lifetime_problem(list(self.ablations)):
            raise ValueError(problem)
        return self

    def arms(self) -> list[tuple[str, str | None]]:
        """The ``(agent, chat model)`` of each arm of the sweep, in the order of ``models``."""
        entries: list[str | None] = [*self.models] or [None]
        return [agent_and_model(self.agent, entry)[:2] for entry in entries]

    @model_validator(mode="after")
    def _suite_grid(self) -> SweepConfig:
        try:
            suite = SUITES.get(self.suite)
        except PluginError as exc:  # unknown, or a plugin that cannot be loaded
            raise ValueError(str(exc)) from None
        for point in settings_grid(suite, self.suite_settings):
            if problem := suite_settings_problem(self.suite, point):
                raise ValueError(problem)
        if "runs" not in self.model_fields_set:
            self.runs = protocol(self.protocol).default_runs
        return self

    def settings(self) -> list[SuiteContext]:
        """The suite settings of each arm of the grid (a suite's swept settings: every combination, or as its ``grid`` pairs them)."""
        return [self.suite_context(point) for point in settings_grid(SUITES.get(self.suite), self.suite_settings)]


class SweepConfigError(ValueError):
    """A sweep file or flag set that cannot be used: file, field and reason."""


def load_sweep_config(path: Path) -> SweepConfig:
    try:
        data = read_yaml_file(path) or {}
    except YamlFileError as exc:
        raise SweepConfigError(str(exc)) from None
    if not isinstance(data, dict):
        raise SweepConfigError(f"{path}: expected a mapping of sweep settings")
    return validate_sweep_config(data, str(path))


def validate_sweep_config(data: dict[str, Any], source: str) -> SweepConfig:
    try:
        return SweepConfig.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: {'.'.join(str(p) for p in e['loc']) or 'config'}: {e['msg']}" for e in exc.errors()]
        raise SweepConfigError("\n".join(lines)) from None


def sweep_endpoints(config: SweepConfig) -> dict[str, list[str]]:
    """``{base_url: roles}`` of the OpenAI-compatible servers the sweep's runs call."""
    used: dict[str, list[str]] = {}
    for arm in config.arms():
        for url, roles in sweep_run_spec(config, arm, persona="").endpoints().items():
            used.setdefault(url, []).extend(role for role in roles if role not in used[url])
    return used


def sweep_episodes(config: SweepConfig) -> dict[str, LoadedEpisode]:
    """The episodes a sweep runs, by persona (under its first memory setting); SweepConfigError or DatasetError if it cannot run."""
    suite = SUITES.get(config.suite)
    personas = config.personas or suite.names(config.data)
    if not personas:
        raise SweepConfigError(f"no episodes under {config.data / suite.folder}")
    episodes = {p: suite.load(config.data, p, config.settings()[0]) for p in personas}
    for agent, _model in config.arms():
        for loaded in episodes.values():
            if problem := reference_problem(agent, loaded.sessions):
                raise SweepConfigError(problem)
    return episodes


def sweep_run_spec(
    config: SweepConfig,
    arm: tuple[str, str | None],
    persona: str,
    ablation: Ablation = "none",
    repeat: int = 0,
    sweep_id: str | None = None,
    settings: SuiteContext | None = None,
) -> RunSpec:
    """The spec of one run of the sweep: the sweep's core settings, ``arm`` (one of :meth:`SweepConfig.arms`), the episode
    and ``settings``, its point of the suite's grid (None: the sweep's first)."""
    agent, model = arm
    point = (settings or config.settings()[0]).values()
    return RunSpec(
        **(config.core_for(agent, ablation) | {"suite_settings": point}),
        agent=agent,
        model=model,
        persona=persona,
        data_root=str(config.data),
        ablation=ablation,
        repeat=repeat,
        sweep_id=sweep_id,
    )


def create_sweep(
    store: Store,
    config: SweepConfig,
    results_dir: Path,
    episodes: dict[str, LoadedEpisode] | None = None,
) -> tuple[SweepLike, list[tuple[RunLike, LoadedEpisode]]]:
    """The sweep row and one run row per model × persona × memory setting × ablation × repeat (``episodes``: from :func:`sweep_episodes`)."""
    episodes = sweep_episodes(config) if episodes is None else episodes
    suite = SUITES.get(config.suite)
    first, *others = config.settings()
    by_setting = {first: episodes} | {s: {p: suite.load(config.data, p, s) for p in episodes} for s in others}
    sweep = Sweep(config=config.model_dump(mode="json"))
    store.add(sweep)
    runs = []
    for arm in config.arms():
        for settings, loaded_episodes in by_setting.items():
            for persona, loaded in loaded_episodes.items():
                for ablation in config.ablations:
                    if not ablated_sessions(loaded.episode, loaded.sessions, ablation):
                        log.warning("ablation_keeps_no_session", persona=persona, ablation=ablation)
                        continue
                    for repeat in range(config.runs):
                        spec = sweep_run_spec(config, arm, persona, ablation, repeat, sweep.id, settings)
                        runs.append((episode.start_run(store, loaded, spec, results_dir), loaded))
    return sweep, runs


async def run_sweep(
    store: Store,
    sweep: SweepLike,
    runs: Sequence[tuple[RunLike, LoadedEpisode]],
    config: SweepConfig,
    budget: Budget,
    on_event: RunHook | None = None,
) -> None:
    """Run (or continue) the sweep's runs concurrently; a run that cannot start is marked failed."""
    await run_episodes(store, runs, config, budget, on_event)
    finish_sweep(store, sweep)


async def run_episodes(
    store: Store,
    runs: Sequence[tuple[RunLike, LoadedEpisode]],
    config: SweepConfig,
    budget: Budget,
    on_event: RunHook | None = None,
    limiters: Mapping[str | None, BaseRateLimiter | None] | None = None,
    shared: llm.ChatTransport | None = None,
) -> None:
    """The runs, at most ``config.concurrency`` at once, in this process.

    ``limiters``: the request-rate limiter per endpoint (default: a token bucket of ``config.requests_per_second`` in this process).
    ``shared``: a transport (with its endpoint health) that outlives this call, shared with other calls of the
    process (a Ray runner's), so their runs share connections and probe each server once; default: one of these runs'.
    """
    limit = asyncio.Semaphore(config.concurrency)
    if limiters is None:
        limiters = {config.base_url: episode.endpoint_limiter(config.requests_per_second)}
    transport = shared or sweep_transport(config)  # one connection pool for all runs: a run can start on a connection another has left idle
    health = transport.health
    assert health is not None

    async def one(run: RunLike, loaded: LoadedEpisode) -> None:
        async with limit:
            if on_event:
                on_event(run, "start")
            spec = run_spec(run)  # read once: it validates the stored settings
            endpoints = spec.endpoints()
            ledger = episode.CallLedger(run.id, budget, paused=lambda failing_counts: health.pause_reason(endpoints, failing_counts))
            try:
                await episode.execute_run(
                    store,
                    run,
                    loaded,
                    ledger,
                    limiters.get(spec.base_url),
                    on_progress=lambda _sid, result: on_event(run, "session") if on_event and result is not None else None,
                    transport=transport,
                )
            except episode.START_FAILURES as exc:  # marked failed; the sweep's other runs go on
                log.warning("run_failed", run=run.id, error=str(exc))
            if on_event:
                on_event(run, "end")

    if shared is not None:
        await start_one_by_one(one(run, loaded) for run, loaded in runs)
        return
    async with transport:
        await start_one_by_one(one(run, loaded) for run, loaded in runs)


def sweep_transport(config: SweepConfig) -> llm.ChatTransport:
    """The transport of a sweep's runs in one process, telling an endpoint health that pauses the runs of a server gone away."""
    return llm.ChatTransport(health=EndpointHealth(config.pause_after))


async def start_one_by_one(coroutines: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run the coroutines concurrently, yielding to the event loop after starting each.

    A run's set-up (workspace, app database, models) is CPU work that lasts until
    its first model request. Started all at once, every run sets up before any
    request leaves and their requests then travel in lock-step, so each reply
    waits behind the others' processing. Started one by one, a run's first
    request is on its way while the next one sets up, and the replies arrive spread out.
    """
    tasks: list[asyncio.Task[None]] = []
    try:
        for coroutine in coroutines:
            tasks.append(asyncio.ensure_future(coroutine))
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise


def finish_sweep(store: Store, sweep: SweepLike) -> None:
    """The sweep's status from its runs': finished, stopped (budget) or partial."""
    statuses = {r.status for r in store.runs(sweep.id)}
    if statuses <= {RunStatus.FINISHED}:
        settled = SweepStatus.FINISHED
    else:
        settled = SweepStatus.STOPPED if RunStatus.STOPPED in statuses else SweepStatus.PARTIAL
    store.update(sweep, status=settled)


def mark_interrupted(store: Store, scope: str) -> None:
    """After Ctrl-C or SIGTERM: every unfinished run of the sweep (or the run) ``scope`` names, and the sweep, as interrupted."""
    for run in store.runs_for(scope):
        if run.status != RunStatus.FINISHED:
            store.update(run, status=RunStatus.INTERRUPTED)
    sweep = store.sweep(scope)
    if sweep is not None:
        store.update(sweep, status=SweepStatus.INTERRUPTED)


EpisodeKey = tuple[str, str, str, SuiteContext]
"""What a loaded episode depends on: its data root, persona or task, suite and suite settings."""


def shared_episode(spec: RunSpec, loaded: dict[EpisodeKey, LoadedEpisode]) -> LoadedEpisode:
    """The run's episode, loaded once for every run with the same :data:`EpisodeKey` (``loaded`` keeps them)."""
    key = (spec.data_root, spec.persona, spec.suite, spec.settings)
    if key not in loaded:
        loaded[key] = episode.load_spec_episode(spec)
    return loaded[key]


def unfinished_runs(store: Store, sweep: SweepLike) -> list[tuple[RunLike, LoadedEpisode]]:
    """Runs of a sweep that are not finished, with their episodes, for resuming."""
    loaded: dict[EpisodeKey, LoadedEpisode] = {}
    return [(run, shared_episode(run_spec(run), loaded)) for run in store.runs(sweep.id) if run.status != RunStatus.FINISHED]
