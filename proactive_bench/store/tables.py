"""The results tables: runs and sweeps, each session run's rows, agent errors, judgments, model calls, snapshots and workspace checkpoints.

Status columns hold the words of :mod:`proactive_bench.data_model.status`
(``RunStatus``, ``SweepStatus``, ``SessionOutcome``, ``IntentStatus``); the
store sits below that package, so its defaults spell the same words.
A generated key is declared ``id: int = Field(default=None, primary_key=True)``: None until the
row is flushed, typed ``int`` because code reads it from stored rows only.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Index, LargeBinary
from sqlmodel import JSON, Column, Field, SQLModel

from proactive_bench.store.columns import CompressedJSON, StoredBytes

DEFERRED = SQLModel.model_config | {"defer_build": True}
"""A results table's pydantic configuration: its validator and serializer are built on first use. The store writes and
reads rows through SQLAlchemy, which uses neither, so a run's process never builds them (~15 % of this module's import)."""


def _now() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class Run(SQLModel, table=True):
    model_config = DEFERRED
    id: str = Field(default_factory=new_id, primary_key=True)
    created: datetime = Field(default_factory=_now)
    persona: str
    model: str
    """What reports compare runs by: the react agent's chat model, an agent without one by its name, else ``AGENT/MODEL`` (``RunSpec.label``)."""
    agent: str | None = None
    """The agent under test (``--agent``); None in runs stored before revision 0006, whose ``model`` named it (``RunSpec`` reads both)."""
    user_backend: str
    judge_model: str | None = None
    data_root: str
    workspace: str
    status: str = "created"
    """created (never started), running (a session saved), finished, stopped (budget), interrupted (Ctrl-C, SIGTERM) or failed: ``RunStatus``."""
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    units: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON))
    """The episode's dependency units (session ids), fixed when the run is created."""
    sweep_id: str | None = Field(default=None, index=True)


class Sweep(SQLModel, table=True):
    model_config = DEFERRED
    id: str = Field(default_factory=new_id, primary_key=True)
    created: datetime = Field(default_factory=_now)
    status: str = "running"
    """``SweepStatus``."""
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))


class SessionRun(SQLModel, table=True):
    model_config = DEFERRED
    __table_args__ = (Index("uq_sessionrun_run_session", "run_id", "session_id", unique=True),)
    id: int = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="run.id", index=True)
    session_id: str
    position: int
    intents: int = 0
    status: str = "running"
    """``SessionOutcome``."""
    turns: int = 0
    steps: int = 0
    """The agent's steps (decisions: model calls, or scripted actions and replies; ``ToolBox.steps``); 0 in runs before revision 0005."""
    error: str | None = None
    started: datetime = Field(default_factory=_now)
    finished: datetime | None = None


class MessageRow(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "message"
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    turn: int
    role: str
    content: str


class ToolCallRow(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "toolcall"
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    turn: int
    seq: int
    tool_name: str
    call: dict[str, Any] = Field(sa_column=Column(CompressedJSON))
    result: dict[str, Any] = Field(sa_column=Column(CompressedJSON))
    ok: bool


class IntentEvent(SQLModel, table=True):
    model_config = DEFERRED
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    intent_id: str
    status: str
    """``IntentStatus``."""
    stage: str
    turn: int
    evidence: str
    decided_by: str
    prompt_hash: str | None = None


class PersonLabel(SQLModel, table=True):
    """One intent's label at one user turn of a played session (``pbench play --as user``): the person's beside the simulator's."""

    model_config = DEFERRED
    __tablename__ = "personlabel"
    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    turn: int
    intent_id: str
    person: str
    """completed, inferred, provided or pending (open after the turn)."""
    simulator: str
    """The same words, from the simulator that labelled the turn silently."""
    simulator_name: str
    """Which simulator: ``rules`` or ``llm``."""


class Grade(SQLModel, table=True):
    model_config = DEFERRED
    __table_args__ = (Index("uq_grade_session_item", "session_run_id", "item_id", unique=True),)
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    item_id: str
    grader: str
    weight: float
    score: int | None = None
    rationale: str = ""
    error: str | None = None


class LLMCall(SQLModel, table=True):
    model_config = DEFERRED
    id: int = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="run.id", index=True)
    session_run_id: int | None = Field(default=None, foreign_key="sessionrun.id")
    role: str
    purpose: str
    model: str
    method: str
    ok: bool
    attempt: int
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None
    prompt_hash: str | None = None
    cached: bool = False
    cost_usd: float | None = None
    created: datetime = Field(default_factory=_now)


class AgentErrorRow(SQLModel, table=True):
    """The exception the agent under test raised in a session: its type, message and own frames (pbench's cut away)."""

    model_config = DEFERRED
    __tablename__ = "agenterror"
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    turn: int
    """The agent turn it failed in; 0: in ``start_session``."""
    type: str
    message: str
    frames: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    """Outermost first: ``{file, line, function, code}``."""


class Audit(SQLModel, table=True):
    """A second opinion on one judgment of a session: a checklist grade or an intent's status."""

    model_config = DEFERRED
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    kind: str  # "checklist" or "intent"
    item_id: str
    source: str  # who audited: e.g. "human:ana" or "model:gpt-4o"
    judged: str  # what the run recorded: "1"/"0" or the intent status
    audited: str  # what the auditor says, same values
    note: str = ""
    created: datetime = Field(default_factory=_now)


class Snapshot(SQLModel, table=True):
    """A session's state at its end (or start) of one kind; read whole through ``Store.snapshot`` (see :mod:`~proactive_bench.store.snapshots`)."""

    model_config = DEFERRED
    __table_args__ = (Index("uq_snapshot_session_kind", "session_run_id", "kind", unique=True),)
    id: int = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    kind: str
    content: Any = Field(sa_column=Column(StoredBytes))
    """A zstd frame of the JSON (a delta against ``base`` when set), or JSON text in rows written before compression."""
    base: int | None = Field(default=None, foreign_key="snapshot.id")


class WorkspaceArchive(SQLModel, table=True):
    """A workspace checkpoint's manifest, or one file content it names; stored once by sha256 (of the content).

    (Earlier versions' tar archives became manifests in revision ``0006``; until ``pbench gc`` the converted ones stay, named by nothing.)"""

    model_config = DEFERRED
    sha256: str = Field(primary_key=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    codec: str | None = None
    """"zstd" when ``data`` is the content compressed; None: the content itself (as every row before compression)."""


class Checkpoint(SQLModel, table=True):
    """Which archive holds a run's workspace after its ``position``-th session (0: as the run started)."""

    model_config = DEFERRED
    run_id: str = Field(foreign_key="run.id", primary_key=True)
    position: int = Field(primary_key=True)
    sha256: str = Field(foreign_key="workspacearchive.sha256")


SESSION_TABLES: tuple[type[SQLModel], ...] = (MessageRow, ToolCallRow, IntentEvent, PersonLabel, Grade, LLMCall, Snapshot, AgentErrorRow)
"""The tables whose rows belong to one session run (by ``session_run_id``)."""
