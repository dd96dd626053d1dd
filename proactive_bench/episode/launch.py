"""From settings to a running episode: the run's settings, its row, its participants and their models.

A :class:`RunSpec` is a run's one settings object: it holds everything needed
to build the run's agent, user and judge, and is stored in the run's row
(``config``), so ``pbench resume`` and ``pbench replay`` rebuild exactly the
same participants later.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from langchain_core.rate_limiters import BaseRateLimiter, InMemoryRateLimiter

from proactive_bench.data_model import RunStatus
from proactive_bench.dataset import (
    LoadedEpisode,
    ablated_sessions,
    dependency_units,
    depends_on_map,
)
from proactive_bench.env import SeedError, WorkspaceSeedError
from proactive_bench.episode.runner import (
    CallLedger,
    EpisodeRun,
    Participants,
    ProgressHook,
    run_episode,
)
from proactive_bench.episode.settings import LaunchError, RunSpec, run_spec
from proactive_bench.llm import (
    DEFAULT_TIMEOUT_S,
    CacheMode,
    CallCache,
    CallRole,
    ChatSettings,
    ChatTransport,
    ModelSpecError,
    ToolModels,
    make_chat_model,
    probe_reports,
)
from proactive_bench.registry import PluginError
from proactive_bench.scaffolds import (
    RecordedAgent,
    RecordedCall,
    RecordedTurn,
    Scaffold,
    ScaffoldLoadError,
    ScaffoldOptions,
    grants_reference,
    is_external,
    load_agent,
)
from proactive_bench.scoring import JUDGES, EpisodeResult, JudgeFactory, JudgeSettings, protocol
from proactive_bench.store import MessageRow, PendingRow, Run, RunLike, Store, ToolCallRow
from proactive_bench.suites import SUITES
from proactive_bench.user import USERS, UserOptions, UserSimulator, check_user

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


def start_run(store: Store, loaded: LoadedEpisode, spec: RunSpec, results_dir: Path) -> RunLike:
    """Insert the run row; the spec's session list is fixed here (ablation applied; LaunchError if it keeps none).

    The run's workspace lives under ``results_dir/workspaces/<run id>``.
    """
    chosen = [s for s in loaded.sessions if not spec.sessions or s.id in spec.sessions]
    kept = [s.id for s in ablated_sessions(loaded.episode, chosen, spec.ablation)]
    if not kept:
        raise LaunchError(
            f"persona {loaded.persona.id}: --ablation {spec.ablation} keeps no session (no dependency group of two or more sessions)"
        )
    run = Run(
        persona=loaded.persona.id,
        model=spec.label,
        agent=spec.agent,
        user_backend=spec.user_backend,
        judge_model=spec.judge_model,
        data_root=str(loaded.directory.parent.parent),
        workspace="",
        config=spec.model_copy(
            update={
                "sessions": kept,
                "memory_tokens": loaded.memory_tokens,
                "depends_on": depends_on_map(loaded.episode),
                "categories": {s.id: s.category for s in loaded.sessions},
            }
        ).model_dump(mode="json"),
        units=dependency_units(loaded.episode, kept or None),
        sweep_id=spec.sweep_id,
    )
    run.workspace = str((results_dir / "workspaces" / run.id).resolve())
    store.add(run)
    return run


def build_participants(
    spec: RunSpec,
    ledger: CallLedger,
    cache: CallCache | None,
    limiter: BaseRateLimiter | None,
    transport: ChatTransport | None = None,
    recorded: dict[str, list[RecordedTurn]] | None = None,
) -> Participants:
    """The agent, user simulator and judge (None without a judge model) of a run.

    The replay of an external agent's run (``replay_of``) serves ``recorded``, that run's turns, without starting the agent.
    """
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
        extra=spec.agent_extra(),
        cache=cache,
        rate_limiter=shared("agent"),
        transport=transport,
        max_tokens=caps.agent,
        call_timeout=timeout,
        context_tokens=spec.context_tokens,
    )
    agent: Scaffold = (
        RecordedAgent(spec.replay_of, recorded or {}) if spec.replay_of and is_external(spec.agent) else load_agent(spec.agent, options)
    )
    user_options = UserOptions(
        model=spec.user_model,
        chat=lambda max_tokens: chat("user", spec.user_model or "", max_tokens),
        recorder=ledger,
        judgement_tokens=caps.user_judgement,
        reply_tokens=caps.user_reply,
        methods=methods.get("user"),
        context_tokens=context("user"),
        pibench=protocol(spec.protocol).scoring.pibench_user,  # the release's user rules
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


def recorded_turns(store: Store, run_id: str) -> dict[str, list[RecordedTurn]]:
    """The agent turns of run ``run_id``'s saved sessions, by session id: each the message the agent answered (the last
    user or event message before its reply), its tool calls in order with their answers, and its reply."""
    found: dict[str, list[RecordedTurn]] = {}
    for session_run in store.session_runs(run_id):
        assert session_run.id is not None
        calls: dict[int, list[RecordedCall]] = {}
        for row in sorted(store.rows(ToolCallRow, session_run.id), key=lambda r: (r.turn, r.seq)):
            calls.setdefault(row.turn, []).append(RecordedCall(row.tool_name, row.call, row.result, row.ok))
        turns: list[RecordedTurn] = []
        asked = ""
        for message in store.rows(MessageRow, session_run.id):
            if message.role != "agent":
                asked = message.content
                continue
            turns.append(RecordedTurn(asked, calls.get(len(turns) + 1, []), message.content))
        found[session_run.session_id] = turns
    return found


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
    store: Store, run: RunLike, transport: ChatTransport, to_probe: dict[str, tuple[str, str, str | None]]
) -> dict[str, Any]:
    """Probe (or recall) the servers of ``{role: (model, base URL, key)}``; what they support is kept in the run's config."""
    reports = await probe_reports(store, transport, to_probe)
    found = {
        "structured_methods": {role: r.structured_methods() for role, r in reports.items()},
        "model_contexts": {role: r.max_context for role, r in reports.items() if r.max_context},
        "vision": {role: r.vision for role, r in reports.items()},
    }
    await store.writer.run(partial(store.update, run, config={**run.config, **found}))  # off the loop, as a session's save
    return found


async def execute_run(
    store: Store,
    run: RunLike,
    loaded: LoadedEpisode,
    ledger: CallLedger | None = None,
    limiter: BaseRateLimiter | None = None,
    on_progress: ProgressHook | None = None,
    transport: ChatTransport | None = None,
    seat: Callable[[UserSimulator], UserSimulator] | None = None,
    session_rows: Callable[[str], list[PendingRow]] | None = None,
) -> EpisodeResult:
    """Run (or continue) a run from its stored spec, recording every model answer: the one path of every run.

    ``ledger``: the run's call ledger (a sweep's carries its budget); by default one of its own.
    ``transport``: connections shared with other runs of this event loop (a sweep's); by default the run opens its own.
    ``seat``: who takes the user's seat around the built simulator (``pbench play --as user``: a person, the simulator labelling silently).
    ``session_rows``: more rows of a session (by id) saved with it, in its transaction (``pbench play``: the person's labels).
    A run that cannot start (:data:`START_FAILURES`) is marked failed, the reason kept in its config, and the error raised.
    """
    try:
        return await _execute(store, run, loaded, ledger or CallLedger(run.id), limiter, on_progress, transport, seat, session_rows)
    except START_FAILURES as exc:
        store.update(run, status=RunStatus.FAILED, config={**run.config, "failure": str(exc)})
        raise


async def _execute(
    store: Store,
    run: RunLike,
    loaded: LoadedEpisode,
    ledger: CallLedger,
    limiter: BaseRateLimiter | None,
    on_progress: ProgressHook | None,
    transport: ChatTransport | None,
    seat: Callable[[UserSimulator], UserSimulator] | None,
    session_rows: Callable[[str], list[PendingRow]] | None,
) -> EpisodeResult:
    spec = run_spec(run)
    by_id = {s.id: s for s in loaded.sessions}
    missing = [sid for sid in spec.sessions if sid not in by_id]
    if missing:
        raise LaunchError(f"run {run.id}: sessions {missing} are no longer in the dataset at {spec.data_root}")
    sessions = [by_id[sid] for sid in spec.sessions]
    mode: CacheMode = "replay" if spec.replay_of else "reuse" if spec.answers_from else "record"
    fresh = run.status == RunStatus.CREATED and not Path(run.workspace).exists()  # never started: nothing of it is stored yet
    cache = CallCache(store.answers, run.id, mode, spec.replay_of or spec.answers_from, fresh=fresh, fence=store.fence)
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
                await store.writer.run(partial(store.update, run, config={**run.config, "structured_methods": {}}))
        recorded = recorded_turns(store, spec.replay_of) if spec.replay_of and is_external(spec.agent) else None
        participants = build_participants(spec, ledger, cache, limiter, transport, recorded)
        if seat is not None:
            participants = replace(participants, user=seat(participants.user))
        if learning is not None:
            for role, participant in (("user", participants.user), ("judge", participants.judge)):
                caller = getattr(participant, "structured", None)
                if caller is not None:
                    caller.learn_from(learning, role)
        try:
            tools = ToolModels(transport, ledger, cache, limiter, spec.base_url, spec.call_timeout or DEFAULT_TIMEOUT_S)
            wiring = EpisodeRun(store, run, loaded, participants, ledger, cache, spec.max_turns, tools, session_rows)
            return await run_episode(wiring, sessions, on_progress, fresh)
        finally:
            cache.flush()
