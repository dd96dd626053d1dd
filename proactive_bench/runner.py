"""Run an episode: sessions in order over one workspace, memory and store.

The runner owns the wiring: it seeds the workspace, builds each session's
toolbox and context, runs the session graph, grades the final state, writes
everything to the store and computes the metrics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Callable

import structlog

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, ToolRecord, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.grading import GradeResult, grade_session
from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.loading import GraderResolver, LoadedEpisode
from proactive_bench.metrics import (
    CompBasis,
    IntentCounts,
    UnitScore,
    comp,
    count_statuses,
    dependency_units,
    mean_or_none,
    pooled_proc,
)
from proactive_bench.scaffold import Scaffold, SessionContext
from proactive_bench.schema import Session
from proactive_bench.session_graph import SessionRuntime, run_session_graph
from proactive_bench.store import Grade, IntentEvent, MessageRow, Run, SessionRun, Snapshot, Store, ToolCallRow
from proactive_bench.user.base import IntentLabel, UserSimulator

log = structlog.get_logger(__name__)

DEFAULT_MAX_TURNS = 30


class CallLedger:
    """Sends model-call records to the store, tagged with the run and current session."""

    def __init__(self, store: Store, run_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self.session_run_id: int | None = None

    def __call__(self, record: LLMCallRecord) -> None:
        self.store.record_llm_call(self.run_id, self.session_run_id, record)


@dataclass
class StoreSink:
    """Writes each finished turn of one session to the store."""

    store: Store
    session_run: SessionRun

    def message(self, turn: int, role: str, content: str) -> None:
        self.store.add(MessageRow(session_run_id=self._id, turn=turn, role=role, content=content))

    def agent_turn(self, turn: int, reply: str, records: list[ToolRecord]) -> None:
        rows: list[Any] = [
            ToolCallRow(session_run_id=self._id, turn=r.turn, seq=r.seq, tool_name=r.tool_name, call=r.call, result=r.result, ok=r.ok)
            for r in records
        ]
        rows.append(MessageRow(session_run_id=self._id, turn=turn, role="agent", content=reply))
        self.store.add(*rows)
        self.store.update(self.session_run, turns=turn)

    def user_turn(self, turn: int, labels: list[IntentLabel], message: str | None) -> None:
        rows: list[Any] = [
            IntentEvent(
                session_run_id=self._id,
                intent_id=label.intent_id,
                status=label.status.value,
                stage=label.stage.value,
                turn=turn,
                evidence=label.evidence,
                decided_by=label.decided_by,
                prompt_hash=label.prompt_hash,
            )
            for label in labels
        ]
        if message is not None:
            rows.append(MessageRow(session_run_id=self._id, turn=turn, role="user", content=message))
        if rows:
            self.store.add(*rows)

    @property
    def _id(self) -> int:
        assert self.session_run.id is not None
        return self.session_run.id


@dataclass
class SessionResult:
    session_id: str
    status: str
    turns: int
    counts: IntentCounts
    grades: list[GradeResult]
    comp: float | None
    basis: CompBasis
    error: str | None = None
    transcript: list[dict[str, str]] = field(default_factory=list)
    """The session's messages as ``{"role", "content"}``, for later sessions' history."""

    @property
    def proc(self) -> float | None:
        return None if self.status == "error" else self.counts.proc

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "status": self.status,
            "turns": self.turns,
            "intents": self.counts.total,
            "completed": self.counts.completed,
            "inferred": self.counts.inferred,
            "provided": self.counts.provided,
            "proc": self.proc,
            "comp": self.comp,
            "comp_basis": self.basis.as_dict(),
            "error": self.error,
        }


@dataclass
class EpisodeResult:
    run_id: str
    persona: str
    model: str
    sessions: list[SessionResult]
    units: list[UnitScore]

    @property
    def proc(self) -> float | None:
        return mean_or_none([u.proc for u in self.units])

    @property
    def comp(self) -> float | None:
        return mean_or_none([s.comp for s in self.sessions])

    @property
    def basis(self) -> CompBasis:
        total = CompBasis()
        for s in self.sessions:
            total = total + s.basis
        return total

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "persona": self.persona,
            "model": self.model,
            "proc": self.proc,
            "comp": self.comp,
            "comp_basis": self.basis.as_dict(),
            "dependency_groups": [{"sessions": u.sessions, "proc": u.proc} for u in self.units if len(u.sessions) > 1],
            "sessions": [s.as_dict() for s in self.sessions],
        }


@dataclass
class RunSettings:
    model: str
    user_backend: str
    judge_model: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    config: dict[str, Any] = field(default_factory=dict)


def create_run(store: Store, episode: LoadedEpisode, settings: RunSettings, results_dir: Path) -> Run:
    """Insert the run row; its workspace lives under ``results_dir/workspaces/<run id>``."""
    run = Run(
        persona=episode.persona.id,
        model=settings.model,
        user_backend=settings.user_backend,
        judge_model=settings.judge_model,
        data_root=str(episode.directory.parent.parent),
        workspace="",
        config=settings.config,
    )
    run.workspace = str((results_dir / "workspaces" / run.id).resolve())
    store.add(run)
    return run


def episode_env(episode: LoadedEpisode, workspace: Workspace, memory: Memory, apps: AppStore) -> ToolEnv:
    """The tool environment of an episode run: its workspace, memory, apps, web corpus and skills."""
    return ToolEnv(workspace, memory, apps, web_root=episode.directory / "web", skills_root=episode.directory / "skills")


def app_db_path(run: Run) -> Path:
    """App state lives beside the workspace, outside the agent's path jail."""
    workspace = Path(run.workspace)
    return workspace.parent.parent / "apps" / f"{run.id}.sqlite"


ProgressHook = Callable[[str, SessionResult | None], None]


async def run_episode(
    *,
    store: Store,
    run: Run,
    episode: LoadedEpisode,
    sessions: list[Session],
    agent: Scaffold,
    user: UserSimulator,
    judge: Any | None,
    ledger: CallLedger,
    max_turns: int = DEFAULT_MAX_TURNS,
    on_progress: ProgressHook | None = None,
) -> EpisodeResult:
    """Run the given sessions of an episode in order and return their scores."""
    workspace = Workspace.seeded(Path(run.workspace), episode.workspace_seed)
    memory = Memory()
    apps = AppStore(app_db_path(run))
    apps.seed_from(episode.directory / "apps")
    graders = GraderResolver(episode.directory.parent.parent)
    results: list[SessionResult] = []
    for position, session in enumerate(sessions, start=1):
        if on_progress:
            on_progress(session.id, None)
        history = [r.transcript for r in results]
        result = await _run_one(
            store, run, episode, session, position, agent, user, judge, ledger, episode_env(episode, workspace, memory, apps), graders, max_turns, history
        )
        results.append(result)
        if on_progress:
            on_progress(session.id, result)
    units = dependency_units(episode.episode, [s.id for s in sessions])
    counts = {r.session_id: r.counts for r in results if r.status != "error"}
    result = EpisodeResult(run.id, episode.persona.id, run.model, results, pooled_proc(units, counts))
    store.update(run, status="finished")
    return result


async def _run_one(
    store: Store,
    run: Run,
    episode: LoadedEpisode,
    session: Session,
    position: int,
    agent: Scaffold,
    user: UserSimulator,
    judge: Any | None,
    ledger: CallLedger,
    env: ToolEnv,
    graders: GraderResolver,
    max_turns: int,
    history: list[list[dict[str, str]]],
) -> SessionResult:
    session_run = SessionRun(run_id=run.id, session_id=session.id, position=position)
    store.add(session_run)
    ledger.session_run_id = session_run.id
    sink = StoreSink(store, session_run)
    sink.message(0, "event" if session.trigger.type == "event" else "user", session.trigger.message)
    toolbox = ToolBox(env, resolve_tool_names(session.tools))
    ctx = SessionContext(
        session_id=session.id,
        trigger=session.trigger.type,
        workspace=env.workspace,
        memory=env.memory,
        tools=toolbox,
        history=history,
        reference=session if getattr(agent, "uses_reference_solution", False) else None,
    )
    rt = SessionRuntime(episode.persona, session, agent, user, toolbox, env.workspace, env.memory, graders, sink, max_turns)
    log.info("session_start", run=run.id, session=session.id)
    try:
        agent.start_session(ctx)
        state = await run_session_graph(rt)
    except Exception as exc:  # a scaffold that fails to start is an errored session, not a crash
        log.warning("session_failed", session=session.id, error=repr(exc))
        state = {"outcome": "error", "error": f"{type(exc).__name__}: {exc}", "labels": [], "turn": 0, "transcript": []}
    finally:
        try:
            agent.end_session()
        except Exception as exc:  # noqa: BLE001 (cleanup must not hide the session's result)
            log.warning("end_session_failed", session=session.id, error=repr(exc))
    status, error = state["outcome"], state.get("error")
    counts = count_statuses([label["status"] for label in state["labels"]], len(session.intents))
    grades: list[GradeResult] = []
    if status != "error":
        grades = await grade_session(session, rt.evidence(state["transcript"]), judge)
    score, basis = comp(grades)
    store.add(
        *[
            Grade(session_run_id=session_run.id, item_id=g.item_id, grader=g.grader, weight=g.weight, score=g.score, rationale=g.rationale, error=g.error)
            for g in grades
        ],
        Snapshot(session_run_id=session_run.id, kind="workspace", content=env.workspace.snapshot()),
        Snapshot(session_run_id=session_run.id, kind="memory", content=env.memory.as_dict()),
        Snapshot(session_run_id=session_run.id, kind="apps", content=env.require_apps().snapshot()),
    )
    store.update(session_run, status=status, error=error, turns=state["turn"], finished=datetime.now(UTC))
    log.info("session_end", session=session.id, status=status, proc=counts.proc, comp=score)
    transcript = [{"role": m["role"], "content": m["content"]} for m in state["transcript"]]
    return SessionResult(session.id, status, state["turn"], counts, grades, score, basis, error, transcript)
