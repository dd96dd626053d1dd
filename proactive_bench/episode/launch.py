"""From settings to a running episode: the run's settings, its row, its participants and their models.

A :class:`RunSpec` is a run's one settings object: it holds everything needed
to build the run's agent, user and judge, and is stored in the run's row
(``config``), so ``pbench resume`` and ``pbench replay`` rebuild exactly the
same participants later.
"""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from langchain_core.rate_limiters import BaseRateLimiter, InMemoryRateLimiter
from pydantic import Field, model_validator

from proactive_bench.data_model import RunStatus
from proactive_bench.dataset import (
    Ablation,
    LoadedEpisode,
    ablated_sessions,
    dependency_units,
)
from proactive_bench.env import SeedError, WorkspaceSeedError
from proactive_bench.episode.runner import (
    CallLedger,
    EpisodeRun,
    Participants,
    ProgressHook,
    run_episode,
)
from proactive_bench.episode.settings import RunSettings
from proactive_bench.llm import (
    DEFAULT_TIMEOUT_S,
    UNCAPPED,
    CallCache,
    CallRole,
    ChatSettings,
    ChatTransport,
    ModelSpecError,
    ToolModels,
    is_openai_model,
    make_chat_model,
    probe_reports,
)
from proactive_bench.registry import PluginError
from proactive_bench.scaffolds import DEFAULT_AGENT, ScaffoldLoadError, ScaffoldOptions, grants_reference, load_agent, split_agent_model
from proactive_bench.scoring import JUDGES, EpisodeResult, JudgeFactory, JudgeSettings
from proactive_bench.store import Run, Store
from proactive_bench.suites import SUITES, SuiteSettings, suite_settings_problem
from proactive_bench.user import USERS, UserOptions, UserSimulator, check_user


class RunSpec(RunSettings):
    """The settings of one episode run: the core settings, the agent, the episode and what pbench fixes as it starts
    (stored as the run's ``config``; runs stored by earlier versions load too)."""

    persona: str = Field(description="The episode: a persona id (personas suite) or a task id (the suites that run tasks; see ``task``).")
    agent: str = Field(
        default=DEFAULT_AGENT,
        description="The agent under test (--agent): a registered name, scripted:NAME, path/file.py:Class, package.module:attr or a prefix of AGENT_KINDS.",
    )
    model: str | None = Field(
        default=None, description="The chat model the agent runs on (--model); None for an agent that calls none (scripted baselines)."
    )
    data_root: str
    sessions: list[str] = Field(default_factory=list, description="Session ids to run, in order; empty: all.")
    ablation: Ablation = "none"
    repeat: int = 0
    sweep_id: str | None = None
    replay_of: str | None = Field(default=None, description="A run whose recorded model answers serve this one.")
    structured_methods: dict[str, list[str]] | None = Field(
        default=None, description="Per role (user, judge), the structured-output methods to start with (set when the run starts)."
    )
    model_contexts: dict[str, int] = Field(
        default_factory=dict, description="Per role, the context window the probe found (set when the run starts)."
    )
    memory_tokens: int | None = Field(
        default=None, description="Tokens of the memory context the session opened with (set when the run starts; odyssey)."
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_names(cls, data: Any) -> Any:
        """Runs stored before ``agent`` existed named the agent in ``model`` (``scripted:reference``, ``openai:X`` for react)."""
        if isinstance(data, dict) and "agent" not in data and isinstance(data.get("model"), str):
            agent, model = split_agent_model(data["model"])
            data = {**data, "agent": agent, "model": model}
        return data

    @model_validator(mode="after")
    def _agent_has_model(self) -> RunSpec:
        if self.agent == DEFAULT_AGENT and not self.model:
            raise ValueError(f"the {DEFAULT_AGENT} agent runs on a chat model: give --model (e.g. openai:gpt-4o-mini)")
        return self

    @property
    def task(self) -> str:
        """The episode's name in its suite's words: the task id of a suite that runs tasks, the persona id of the personas suite."""
        return self.persona

    @property
    def label(self) -> str:
        """What reports compare runs by (the run row's ``model`` column): the chat model of the react agent, the agent's name
        when it runs on no chat model, else ``AGENT/MODEL``."""
        if self.agent == DEFAULT_AGENT and self.model:
            return self.model
        return f"{self.agent}/{self.model}" if self.model else self.agent

    @model_validator(mode="after")
    def _suite_settings_fit(self) -> RunSpec:
        if self.suite in SUITES and (problem := suite_settings_problem(self.suite, self.suite_settings)):
            raise ValueError(problem)
        return self

    @property
    def settings(self) -> SuiteSettings:
        """What the run's suite loads its episode with: its suite settings and the endpoint and database pbench gives them."""
        return self.suite_context(self.suite_settings)

    @property
    def user_backend(self) -> str:
        return f"{self.user}:{self.user_model}" if self.user != "rules" and self.user_model else self.user

    def role_models(self) -> dict[CallRole, str]:
        """The model of each role that calls one."""
        models: dict[CallRole, str | None] = {
            "agent": self.model,
            "user": self.user_model if self.user != "rules" else None,
            "judge": self.judge_model,
        }
        return {role: model for role, model in models.items() if model}

    def base_url_for(self, role: CallRole) -> str | None:
        return self.role_base_urls.get(role) or self.base_url

    def api_key_for(self, role: CallRole) -> str | None:
        """The role's key from its named environment variable (None: the provider's usual variable)."""
        name = self.role_key_envs.get(role)
        if name is None:
            return None
        key = os.environ.get(name)
        if not key:
            raise LaunchError(f"the {role}'s API key is read from ${name}, which is not set (in the environment or ./.env)")
        return key

    def structured_models(self) -> dict[CallRole, tuple[str, str]]:
        """``{role: (model, base URL)}`` of the user and judge models on an OpenAI-compatible server given by URL."""
        found: dict[CallRole, tuple[str, str]] = {}
        for role, model in self.role_models().items():
            url = self.base_url_for(role)
            if role != "agent" and url and is_openai_model(model):
                found[role] = (model, url)
        return found

    def endpoints(self) -> dict[str, list[str]]:
        """``{base_url: roles}`` of the OpenAI-compatible servers this run calls (those given by URL)."""
        used: dict[str, list[str]] = {}
        for role, model in self.role_models().items():
            url = self.base_url_for(role)
            if url and is_openai_model(model):
                used.setdefault(url, []).append(role)
        return used


class LaunchError(ValueError):
    """Settings that cannot produce a run; the message says which and why."""


START_FAILURES: tuple[type[Exception], ...] = (ScaffoldLoadError, ModelSpecError, LaunchError, SeedError, WorkspaceSeedError)
"""Why a run cannot start (its agent, a model name, its settings, its workspace's seed): :func:`execute_run` marks the run failed, then raises it."""


def endpoint_limiter(requests_per_second: float | None) -> BaseRateLimiter | None:
    """A token bucket shared by every model on one endpoint."""
    if not requests_per_second:
        return None
    return InMemoryRateLimiter(
        requests_per_second=requests_per_second, check_every_n_seconds=0.02, max_bucket_size=max(1.0, requests_per_second)
    )


def load_spec_episode(spec: RunSpec) -> LoadedEpisode:
    """The run's episode, loaded by its suite with its settings; DatasetError (or LaunchError for an unknown suite)."""
    try:
        suite = SUITES.get(spec.suite)
    except PluginError as exc:
        raise LaunchError(str(exc)) from None
    return suite.load(Path(spec.data_root), spec.persona, spec.settings)


def start_run(store: Store, loaded: LoadedEpisode, spec: RunSpec, results_dir: Path) -> Run:
    """Insert the run row; the spec's session list is fixed here (ablation applied).

    The run's workspace lives under ``results_dir/workspaces/<run id>``.
    """
    chosen = [s for s in loaded.sessions if not spec.sessions or s.id in spec.sessions]
    kept = [s.id for s in ablated_sessions(loaded.episode, chosen, spec.ablation)]
    run = Run(
        persona=loaded.persona.id,
        model=spec.label,
        agent=spec.agent,
        user_backend=spec.user_backend,
        judge_model=spec.judge_model,
        data_root=str(loaded.directory.parent.parent),
        workspace="",
        config=spec.model_copy(update={"sessions": kept, "memory_tokens": loaded.memory_tokens}).model_dump(mode="json"),
        units=dependency_units(loaded.episode, kept or None),
        sweep_id=spec.sweep_id,
    )
    run.workspace = str((results_dir / "workspaces" / run.id).resolve())
    store.add(run)
    return run


def run_spec(run: Run) -> RunSpec:
    return RunSpec.model_validate({"max_tokens": UNCAPPED, **run.config})  # a run stored before caps existed replays uncapped


def build_participants(
    spec: RunSpec,
    ledger: CallLedger,
    cache: CallCache | None,
    limiter: BaseRateLimiter | None,
    transport: ChatTransport | None = None,
) -> Participants:
    """The agent, user simulator and judge (None without a judge model) of a run."""
    timeout = spec.call_timeout or DEFAULT_TIMEOUT_S
    caps = spec.max_tokens
    methods = spec.structured_methods or {}

    def context(role: CallRole) -> int | None:
        return spec.context_tokens or spec.model_contexts.get(role)

    def shared(role: CallRole) -> BaseRateLimiter | None:
        """The run's endpoint limiter, for the roles on that endpoint."""
        return limiter if spec.base_url_for(role) == spec.base_url else None

    def chat(role: CallRole, name: str, max_tokens: int | None) -> Any:
        return make_chat_model(
            name,
            ChatSettings(
                base_url=spec.base_url_for(role),
                api_key=spec.api_key_for(role),
                temperature=0,
                cache=cache,
                rate_limiter=shared(role),
                transport=transport,
                max_tokens=max_tokens,
                timeout=timeout,
            ),
        )

    options = ScaffoldOptions(
        model=spec.model or "",
        base_url=spec.base_url_for("agent"),
        api_key=spec.api_key_for("agent"),
        recorder=ledger,
        extra=dict(spec.agent_options),
        cache=cache,
        rate_limiter=shared("agent"),
        transport=transport,
        max_tokens=caps.agent,
        call_timeout=timeout,
        context_tokens=spec.context_tokens,
    )
    agent = load_agent(spec.agent, options)
    user_options = UserOptions(
        model=spec.user_model,
        chat=lambda max_tokens: chat("user", spec.user_model or "", max_tokens),
        recorder=ledger,
        judgement_tokens=caps.user_judgement,
        reply_tokens=caps.user_reply,
        methods=methods.get("user"),
        context_tokens=context("user"),
    )
    try:
        user = USERS.get(check_user(spec.user))(user_options)
    except (ValueError, PluginError) as exc:  # an unknown name, a plugin that cannot load, options the backend refuses
        raise LaunchError(str(exc)) from exc
    make_judge = judge_factory(spec.judge)  # checked without a judge model too: --judge NOSUCH is an error either way
    judge = None
    if spec.judge_model:
        judge = make_judge(
            chat("judge", spec.judge_model, caps.judge),
            spec.judge_model,
            ledger,
            JudgeSettings(
                any_turn=spec.protocol == "pibench",  # π-Bench credits an item met at any turn
                methods=methods.get("judge"),
                context_tokens=context("judge"),
                max_tokens=caps.judge,
            ),
        )
    return Participants(agent, user, judge, sees_reference=grants_reference(spec.agent))


def judge_factory(name: str) -> JudgeFactory:
    """The judge registered as ``name`` in ``JUDGES``; LaunchError (one line, with the close matches) when there is none."""
    if name not in JUDGES:
        close = difflib.get_close_matches(name, JUDGES.names(), n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise LaunchError(f"unknown judge {name!r}; {hint}known: {', '.join(JUDGES.names())}")
    try:
        return JUDGES.get(name)
    except PluginError as exc:  # an entry point that cannot be loaded
        raise LaunchError(str(exc)) from exc


async def learn_servers(
    store: Store, run: Run, transport: ChatTransport, to_probe: dict[str, tuple[str, str, str | None]]
) -> dict[str, Any]:
    """Probe (or recall) the servers of ``{role: (model, base URL, key)}``; what they support is kept in the run's config."""
    reports = await probe_reports(store, transport, to_probe)
    found = {
        "structured_methods": {role: r.structured_methods() for role, r in reports.items()},
        "model_contexts": {role: r.max_context for role, r in reports.items() if r.max_context},
        "vision": {role: r.vision for role, r in reports.items()},
    }
    store.update(run, config={**run.config, **found})
    return found


async def execute_run(
    store: Store,
    run: Run,
    loaded: LoadedEpisode,
    ledger: CallLedger | None = None,
    limiter: BaseRateLimiter | None = None,
    on_progress: ProgressHook | None = None,
    transport: ChatTransport | None = None,
    seat: Callable[[UserSimulator], UserSimulator] | None = None,
) -> EpisodeResult:
    """Run (or continue) a run from its stored spec, recording every model answer: the one path of every run.

    ``ledger``: the run's call ledger (a sweep's carries its budget); by default one of its own.
    ``transport``: connections shared with other runs of this event loop (a sweep's); by default the run opens its own.
    ``seat``: who takes the user's seat around the built simulator (``pbench play --as user``: a person, the simulator labelling silently).
    A run that cannot start (:data:`START_FAILURES`) is marked failed, the reason kept in its config, and the error raised.
    """
    try:
        return await _execute(store, run, loaded, ledger or CallLedger(run.id), limiter, on_progress, transport, seat)
    except START_FAILURES as exc:
        store.update(run, status=RunStatus.FAILED, config={**run.config, "failure": str(exc)})
        raise


async def _execute(
    store: Store,
    run: Run,
    loaded: LoadedEpisode,
    ledger: CallLedger,
    limiter: BaseRateLimiter | None,
    on_progress: ProgressHook | None,
    transport: ChatTransport | None,
    seat: Callable[[UserSimulator], UserSimulator] | None,
) -> EpisodeResult:
    spec = run_spec(run)
    by_id = {s.id: s for s in loaded.sessions}
    missing = [sid for sid in spec.sessions if sid not in by_id]
    if missing:
        raise LaunchError(f"run {run.id}: sessions {missing} are no longer in the dataset at {spec.data_root}")
    sessions = [by_id[sid] for sid in spec.sessions]
    mode: Literal["record", "replay"] = "replay" if spec.replay_of else "record"
    fresh = run.status == RunStatus.CREATED and not Path(run.workspace).exists()  # never started: nothing of it is stored yet
    cache = CallCache(store.answers, run.id, mode, spec.replay_of, fresh=fresh)
    async with AsyncExitStack() as stack:
        if transport is None:
            transport = await stack.enter_async_context(ChatTransport())
        learning = None
        if spec.structured_methods is None:  # first start: what the servers support, kept for resume and replay
            probing = spec.probe and not spec.replay_of
            to_probe: dict[str, tuple[str, str, str | None]] = (
                {role: (model, url, spec.api_key_for(role)) for role, (model, url) in spec.structured_models().items()} if probing else {}
            )
            if to_probe:  # probed while the agent takes its first turn: the first user or judge decision waits for it
                learning = asyncio.ensure_future(learn_servers(store, run, transport, to_probe))
                stack.callback(learning.cancel)
            else:
                store.update(run, config={**run.config, "structured_methods": {}})
        participants = build_participants(spec, ledger, cache, limiter, transport)
        if seat is not None:
            participants = replace(participants, user=seat(participants.user))
        if learning is not None:
            for role, participant in (("user", participants.user), ("judge", participants.judge)):
                caller = getattr(participant, "structured", None)
                if caller is not None:
                    caller.learn_from(learning, role)
        try:
            tools = ToolModels(transport, ledger, cache, limiter, spec.base_url, spec.call_timeout or DEFAULT_TIMEOUT_S)
            wiring = EpisodeRun(store, run, loaded, participants, ledger, cache, spec.max_turns, tools)
            return await run_episode(wiring, sessions, on_progress, fresh)
        finally:
            cache.flush()
