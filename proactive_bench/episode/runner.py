"""Run an episode: sessions in order over one workspace, memory and store.

The runner owns the wiring: it seeds the workspace, builds each session's
toolbox and context, runs the session graph, grades the final state, writes
everything to the store and computes the metrics. Running a run that already
has finished sessions continues it (see :mod:`proactive_bench.episode.checkpoints`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proactive_bench.data_model import (
    IntentLabel,
    IntentStatus,
    Message,
    RunStatus,
    SessionOutcome,
    was_clipped,
)
from proactive_bench.dataset import (
    GraderResolver,
    LoadedEpisode,
    Session,
    depends_on_map,
    known_intents,
    removed_sessions,
    withheld_files,
)
from proactive_bench.env import (
    AppStore,
    Memory,
    ToolBox,
    ToolEnv,
    ToolRecord,
    Workspace,
    jail,
)
from proactive_bench.episode.checkpoints import (
    PackedWorkspace,
    WorkspacePacker,
    restore_checkpoint,
    split_session_runs,
)
from proactive_bench.episode.environment import episode_env
from proactive_bench.episode.rows import (
    agent_error_row,
    call_row,
    gaps_row,
    grade_rows,
    label_row,
    message_row,
    snapshot_row,
    tool_call_row,
)
from proactive_bench.episode.session_graph import (
    SessionRuntime,
    SessionState,
    agent_failed,
    failed_state,
    opening_message,
    run_session_graph,
)
from proactive_bench.episode.session_world import open_session, seeded_state
from proactive_bench.episode.settings import DEFAULT_MAX_TURNS
from proactive_bench.episode.stored import stored_session_result
from proactive_bench.episode.tracing import NO_TRACE, RunTrace, run_trace
from proactive_bench.exports import moved_names
from proactive_bench.llm import REQUEST_SENT, note_request_sent
from proactive_bench.logs import get_logger
from proactive_bench.scaffolds import Scaffold, SessionContext, call_end_episode, call_end_session, call_start_session
from proactive_bench.scoring import (
    SCORINGS,
    SNAPSHOT_KIND as BURDEN,
    EpisodeResult,
    GradeResult,
    Scoring,
    SessionResult,
    comp,
    count_statuses,
    episode_result,
    grade_session,
    session_burden,
)
from proactive_bench.store import LLMCall, PendingRow, RunLike, SessionRun, SessionRunLike, Store, WriteThread, pending_row
from proactive_bench.tracebacks import ErrorTrace
from proactive_bench.user import FollowUpUser, UserSimulator

if TYPE_CHECKING:
    from proactive_bench.llm import Budget, CallCache, LLMCallRecord, ToolModels

log = get_logger(__name__)


class CallLedger:
    """Collects a run's model-call records until the session they belong to is saved.

    Rows reach the store with the session's other rows in one transaction
    (:meth:`take`): an interrupted session leaves nothing behind, and a
    resumed run plays it again (its model answers served from the cache).
    """

    def __init__(self, run_id: str, budget: Budget | None = None, paused: Callable[[bool], str | None] | None = None) -> None:
        """``paused(failing_counts)``: why the run's model server is paused (or, when asked, failing), from a sweep's watch; None while usable."""
        self.run_id = run_id
        self.budget = budget
        self.paused = paused or (lambda failing_counts: None)
        self.trace: RunTrace = NO_TRACE
        """The run's trace while it runs: each record is a model-call span there too."""
        self._pending: list[PendingRow] = []

    def __call__(self, record: LLMCallRecord) -> None:
        cost = self.budget.charge(record) if self.budget else None
        self._pending.append(call_row(record, self.run_id, cost))
        self.trace.model_call(record)
        note_request_sent()  # a call that did not go through our transport has at least been answered

    def take(self) -> list[PendingRow]:
        """The rows collected since the last take."""
        rows, self._pending = self._pending, []
        return rows


@dataclass
class StoreSink:
    """Collects the rows of one session's turns (messages, tool calls, intent events) until it is saved."""

    pending: list[PendingRow] = field(default_factory=list)

    def agent_turn(self, reply: Message, records: list[ToolRecord]) -> None:
        self.pending.extend(tool_call_row(r) for r in records)
        self.pending.append(message_row(reply))

    def user_turn(self, labels: list[IntentLabel], message: Message | None) -> None:
        self.pending.extend(label_row(label) for label in labels)
        if message is not None:
            self.pending.append(message_row(message))


@dataclass
class Participants:
    """Who plays a run: the agent under test, the simulated user, and the rubric judge (None without a judge model)."""

    agent: Scaffold
    user: UserSimulator
    judge: Any | None = None
    sees_reference: bool = False
    """Whether the agent is one of pbench's oracles (``grants_reference`` of its ``--model``): only then does each
    session's context carry the reference solution."""


@dataclass
class EpisodeRun:
    """One run's wiring: its store and row, the episode it plays, who plays it, and where its model calls go."""

    store: Store
    run: RunLike
    episode: LoadedEpisode
    participants: Participants
    ledger: CallLedger
    cache: CallCache | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    tool_models: ToolModels | None = None
    """The run's model-call path for the tools that call a model (LLM colleagues, embedding search)."""
    session_rows: Callable[[str], list[PendingRow]] | None = None
    """More rows of a session, by its id, saved with it (``pbench play``: the person's labels beside the simulator's)."""


@dataclass
class _Stage:
    """What every session of a run plays on: the tool environment, the grader scripts and the checkpoint packer
    (each checkpoint of the run costs what changed since the previous one)."""

    env: ToolEnv
    graders: GraderResolver
    packer: WorkspacePacker


def with_opening_note(episode: LoadedEpisode, session: Session, earlier: list[SessionResult]) -> Session:
    """The session with the episode's note on the earlier sessions' checklist verdicts before its opening message, if it has one."""
    if episode.opening_note is None:
        return session
    note = episode.opening_note(session, [{g.item_id: g.status == "pass" for g in r.grades} for r in earlier])
    if not note:
        return session
    return session.model_copy(update={"trigger": session.trigger.model_copy(update={"message": f"{note}\n\n{session.trigger.message}"})})


ProgressHook = Callable[[str, SessionResult | None], None]


async def run_episode(
    wiring: EpisodeRun,
    sessions: list[Session],
    on_progress: ProgressHook | None = None,
    fresh: bool = False,
) -> EpisodeResult:
    """Run the given sessions of an episode in order and return their scores.

    Sessions the run has already finished are not run again; an unfinished one
    is run again from the state the last finished session left. When the
    ledger's budget is spent, no further session starts and the run is
    ``stopped`` (resumable). A ``fresh`` run (never started before) skips
    looking for earlier sessions and state.
    """
    store, run, episode, ledger, cache = wiring.store, wiring.run, wiring.episode, wiring.ledger, wiring.cache
    finished, unfinished = ({}, []) if fresh else split_session_runs(store, run)
    for stale in unfinished:
        store.delete_session_run(stale)
    done = [finished[s.id] for s in sessions if s.id in finished]
    workspace, memory, apps = _episode_state(store, run, episode, done, fresh=fresh)
    if not done:
        withhold_removed(workspace, episode, [s.id for s in sessions], run.config.get("ablation", "none"))
    stage = _Stage(
        episode_env(episode, workspace, memory, apps, wiring.tool_models),
        GraderResolver(episode.directory.parent.parent),
        WorkspacePacker(),
    )
    start = None if done else stage.packer.pack(workspace)  # saved with the first session, for reports
    results: list[SessionResult] = []
    status = RunStatus.FINISHED
    saving: asyncio.Task[None] | None = None
    scoring = SCORINGS[run.config.get("protocol", "pbench")]
    trace = ledger.trace = run_trace(run)
    scored: EpisodeResult | None = None
    started = asyncio.Event()  # set when the coming session's first model request is out (or the session ends)
    outer = REQUEST_SENT.set(started)  # in this task's context: the session's model calls see it
    try:
        for position, session in enumerate(sessions, start=1):
            if session.id in finished:
                results.append(stored_session_result(store, finished[session.id]))
                continue
            if ledger.budget is not None and ledger.budget.exhausted:
                status = RunStatus.STOPPED
                log.warning("budget_exhausted", run=run.id, spent_usd=ledger.budget.spent_usd)
                break
            if ledger.paused(False):
                status = RunStatus.STOPPED
                break
            if on_progress:
                on_progress(session.id, None)
            if cache is not None:
                cache.begin_session(session.id)
            history = [r.transcript for r in results]
            session = with_opening_note(episode, session, results)
            known = (
                known_intents(session, episode.sessions, {r.session_id: r.labelled_intents for r in results})
                if scoring.known_conventions
                else frozenset()
            )
            trace.begin_session(session.id, position)
            result, save = await _run_one(wiring, stage, session, position, history, start, scoring, known)
            trace.end_session(result)
            reason = ledger.paused(True) if result.status == SessionOutcome.ERROR else None
            if reason:  # its server went away: this session runs again on resume instead of being kept as an error
                status = RunStatus.STOPPED
                log.warning("run_paused", run=run.id, session=session.id, reason=reason)
                break
            start = None
            started.set()  # a session that made no model call
            if saving is not None:
                await saving  # sessions are saved in order; a failed save ends the run here
            started = asyncio.Event()
            REQUEST_SENT.set(started)
            saving = asyncio.get_running_loop().create_task(_write(save, started, store.writer))
            results.append(result)
            if on_progress:
                on_progress(session.id, result)
        planned = [s.id for s in sessions]
        scored = episode_result(run.id, episode.persona.id, run.model, results, depends_on_map(episode.episode), planned, status, scoring)
    finally:
        REQUEST_SENT.reset(outer)
        started.set()
        try:
            await _end_episode(wiring.participants.agent, run.id)
            if saving is not None:
                await saving
        finally:
            ledger.trace = NO_TRACE
            await trace.end(scored, status if scored is not None else "interrupted")
    await store.writer.run(partial(store.update, run, status=status))  # off the loop: on a server, a round trip and a commit
    return scored


def _episode_state(
    store: Store,
    run: RunLike,
    episode: LoadedEpisode,
    done: Sequence[SessionRunLike],
    *,
    fresh: bool = False,
) -> tuple[Workspace, Memory, AppStore]:
    """Seeded state for a run with no finished session, or the state after the last finished session."""
    root = Path(run.workspace)
    if not done:
        if not fresh:  # what an interrupted first session left behind
            jail.remove_tree(root)
        return seeded_state(episode, root)
    last = max(done, key=lambda sr: sr.position)
    assert last.id is not None
    workspace, apps = Workspace(root), AppStore()  # app state in memory, outside the agent's reach
    restore_checkpoint(store, run, last.position, workspace)
    apps.restore(store.snapshot(last.id, "apps") or {})
    return workspace, Memory(store.snapshot(last.id, "memory") or {}), apps


def withhold_removed(workspace: Workspace, episode: LoadedEpisode, kept: list[str], ablation: str) -> list[str]:
    """Take the seeded files of the sessions an ablation removed out of a fresh workspace (and the folders they leave
    empty); the paths taken out. Under ``none`` nothing is removed."""
    if ablation == "none":
        return []
    gone = withheld_files(episode.sessions, removed_sessions(episode.episode, kept), workspace.files())
    for path in gone:
        target = workspace.resolve(path)
        target.unlink()
        folder = target.parent
        while folder != workspace.root and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
    if gone:
        log.info("ablation_withheld", files=len(gone))
    return gone


async def _run_one(
    wiring: EpisodeRun,
    stage: _Stage,
    session: Session,
    position: int,
    history: list[list[dict[str, str]]],
    start: PackedWorkspace | None,
    scoring: Scoring,
    known: frozenset[str] = frozenset(),
) -> tuple[SessionResult, Callable[[], None]]:
    """Run one session; return its result and the call that saves it.

    Everything the save writes is taken now (the next session changes the
    workspace); writing it can wait until the next session's first model
    request is on its way. ``start``, when given, is the run's starting
    workspace, saved with the session. ``scoring``: the protocol's rules the
    session is played and graded by (the user's labels at the turn cap, an
    errored session's partial trace graded).
    """
    run, env, agent = wiring.run, stage.env, wiring.participants.agent
    started = datetime.now(UTC)  # the session run's row is made whole at the end (an ORM attribute set costs more than a field)
    sink = StoreSink()
    sink.pending.append(message_row(opening_message(session)))
    toolbox, unplaced = open_session(env, wiring.episode, session)  # the clock moves, the session's timed app rows and files appear
    toolbox.on_record = wiring.ledger.trace.tool_call
    ctx = SessionContext(
        session_id=session.id,
        trigger=session.trigger.type,
        workspace=env.workspace,
        memory=env.memory,
        tools=toolbox,
        history=history,
        reference=session if wiring.participants.sees_reference else None,
    )
    rt = SessionRuntime(
        wiring.episode.persona,
        session,
        agent,
        FollowUpUser(wiring.participants.user),
        toolbox,
        env.workspace,
        env.memory,
        stage.graders,
        sink,
        wiring.max_turns,
        known,
        wiring.ledger.trace,
        labels_at_cap=scoring.pibench_user,
    )
    log.info("session_start", run=run.id, session=session.id)
    try:
        if unplaced is not None:
            log.warning("session_unplaced", session=session.id, error=unplaced)
            state = failed_state(unplaced)
        else:
            state = await _play(rt, agent, ctx)
    except Exception as exc:  # pbench's own part of the session failed: an errored session, not a crash
        log.warning("session_failed", session=session.id, error=repr(exc))
        state = failed_state(f"{type(exc).__name__}: {exc}")
    finally:
        try:
            await call_end_session(agent)
        except Exception as exc:  # cleanup must not hide the session's result
            log.warning("end_session_failed", session=session.id, error=repr(exc))
    status, error = state["outcome"], state["error"]
    counts = count_statuses([label.status for label in state["labels"]], len(session.intents))
    grades: list[GradeResult] = []
    if status != SessionOutcome.ERROR or scoring.errored_sessions_graded:  # π-Bench grades whatever trace a failed session left
        unchanged = rt.unchanged_walk() if status != SessionOutcome.ERROR else None  # a failed turn may have written unrecorded
        evidence = rt.evidence(state["transcript"], unchanged[1] if unchanged is not None else None)
        grades = await grade_session(session, evidence, wiring.participants.judge)
    score, basis = comp(grades)
    scan = env.workspace.scan()  # one walk for the checkpoint and the snapshot: nothing runs between them
    packs = {position: stage.packer.pack(env.workspace, scan)} | ({0: start} if start is not None else {})
    if packs[position].cut:  # also in the checkpoint's manifest
        log.warning("checkpoint_cut", run=run.id, session=session.id, cut=packs[position].cut)
    calls = wiring.ledger.take()
    session_run = pending_row(  # plain values: the ORM object cost more than its row's insert
        SessionRun,
        run_id=run.id,
        session_id=session.id,
        position=position,
        intents=len(session.intents),
        status=status,
        error=error,
        turns=state["turn"],
        steps=agent_steps(toolbox, calls),
        started=started,
        finished=datetime.now(UTC),
    )
    save = partial(
        wiring.store.save_session,  # one transaction: a session is saved whole or not at all
        session_run,
        [
            *sink.pending,
            *calls,
            *grade_rows(grades),
            snapshot_row("workspace", env.workspace.snapshot(scan)),
            snapshot_row("memory", env.memory.as_dict()),
            snapshot_row("apps", env.require_apps().snapshot()),
            snapshot_row(BURDEN, session_burden(state["transcript"], state["labels"], state["leaks"]).as_dict()),
            snapshot_row("apps_start", rt.apps_at_start or {}),  # for app_rows_added when re-graded
            *([gaps_row(session.gaps)] if session.gaps else []),
            *([agent_error_row(state["turn"], state["failure"])] if state["failure"] is not None else []),
            *(wiring.session_rows(session.id) if wiring.session_rows is not None else []),
        ],
        {p: pack.manifest for p, pack in packs.items()},
        {digest: data for pack in packs.values() for digest, data in pack.blobs.items()},
    )
    log.info("session_end", session=session.id, status=status, proc=counts.proc, comp=score)
    transcript = [m.as_history() for m in state["transcript"]]
    clipped = sum(was_clipped(label.evidence) for label in state["labels"])
    provided = tuple(label.intent_id for label in state["labels"] if label.status == IntentStatus.PROVIDED)
    labelled = tuple((label.intent_id, str(label.status)) for label in state["labels"])
    return SessionResult(
        session.id,
        status,
        state["turn"],
        counts,
        grades,
        score,
        basis,
        error,
        transcript,
        clipped,
        provided,
        labelled,
        scoring,
        tuple(session.gaps),
    ), save


async def _play(rt: SessionRuntime, agent: Scaffold, ctx: SessionContext) -> SessionState:
    """Start the agent and play the session graph; a scaffold that fails to start is an errored session, not a crash."""
    try:
        await call_start_session(agent, ctx)
    except Exception as exc:
        failure = ErrorTrace.of(exc)
        log.warning("agent_failed", session=ctx.session_id, turn=0, error=failure.summary)
        return failed_state(agent_failed(0, failure), failure)
    return await run_session_graph(rt)


async def _end_episode(agent: Scaffold, run_id: str) -> None:
    """The agent's ``end_episode``, if it has one (a ``cmd:`` agent's process kept across sessions stops); a failure is logged."""
    try:
        await call_end_episode(agent)
    except Exception as exc:  # cleanup must not hide the run's result
        log.warning("end_episode_failed", run=run_id, error=repr(exc))


def agent_steps(toolbox: ToolBox, calls: list[PendingRow]) -> int:
    """The session's agent steps: the toolbox's count (``ToolBox.steps``), and never fewer than the agent's answered model
    calls recorded (a model agent that declares fewer steps than it takes decisions is counted by its calls)."""
    answered = sum(row.table is LLMCall and row.values.get("role") == "agent" and bool(row.values.get("ok")) for row in calls)
    return max(toolbox.steps, answered)


async def _write(save: Callable[[], None], after: asyncio.Event, writer: WriteThread) -> None:
    """A session's save as a task: it runs on the store's writing thread once ``after`` is set (the next session's first model request is out)."""
    await after.wait()
    await writer.run(save)


__getattr__ = moved_names(__name__, {"session_toolbox": "proactive_bench.episode"})
