"""Stored rows as plain values: what the store's reads return (:mod:`~proactive_bench.store.reading`), without SQLAlchemy.

Each record holds the columns of one table of :mod:`~proactive_bench.store.tables` under the same names, so code that
reads a run, a session run or a grade reads the same attributes whichever it got. ``COLUMNS`` lists a record's
columns in its table, with how a stored value becomes the attribute's (:func:`decode`): JSON text, a zstd frame of
JSON (or its text, written before compression), a time (in UTC, as the tables' ``UTCDateTime`` returns it), a 0/1 flag. PostgreSQL's driver returns
times, flags and JSON as Python values already, which pass as they are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from proactive_bench.store.codec import as_stored, decompress

if TYPE_CHECKING:
    from proactive_bench.store.tables import Audit, Run, SessionRun, Sweep


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def _compressed_json(value: Any) -> Any:
    value = as_stored(value)
    return json.loads(decompress(value)) if isinstance(value, bytes) else _json(value)


def _time(value: Any) -> Any:
    """A stored time in UTC: SQLite keeps it as text without a zone (written in UTC), PostgreSQL with one."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if not isinstance(moment, datetime):
        return moment
    return moment.replace(tzinfo=UTC) if moment.utcoffset() is None else moment.astimezone(UTC)


def _flag(value: Any) -> Any:
    return bool(value) if isinstance(value, int) else value


def _as_is(value: Any) -> Any:
    return value


JSON, ZSTD_JSON, TIME, FLAG, STORED = _json, _compressed_json, _time, _flag, as_stored
"""How a column's stored value is read (any column not named: as it is)."""


class Record:
    """A stored row: ``TABLE`` its table, ``COLUMNS`` its columns in order, each with how its value is read."""

    TABLE: ClassVar[str]
    COLUMNS: ClassVar[tuple[tuple[str, Callable[[Any], Any]], ...]]


def columns(*names: str, **read: Callable[[Any], Any]) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """A record's columns: ``names`` read as stored, then each of ``read`` by its reader."""
    return tuple((name, _as_is) for name in names) + tuple(read.items())


def decode(kind: type[Any], row: Sequence[Any]) -> Any:
    """The record of ``kind`` (a :class:`Record`) from a row holding its ``COLUMNS`` in order."""
    return kind(**{name: read(value) for (name, read), value in zip(kind.COLUMNS, row, strict=True)})


@dataclass
class StoredRun(Record):
    """A ``run`` row (see :class:`~proactive_bench.store.tables.Run`)."""

    TABLE = "run"
    COLUMNS = columns(
        "id", "persona", "model", "agent", "user_backend", "judge_model", "data_root", "workspace", "status", "sweep_id",
        created=TIME, config=JSON, units=JSON,
    )  # fmt: skip
    id: str
    persona: str
    model: str
    agent: str | None
    user_backend: str
    judge_model: str | None
    data_root: str
    workspace: str
    status: str
    sweep_id: str | None
    created: datetime
    config: dict[str, Any]
    units: list[list[str]]


@dataclass
class StoredSweep(Record):
    """A ``sweep`` row (see :class:`~proactive_bench.store.tables.Sweep`)."""

    TABLE = "sweep"
    COLUMNS = columns("id", "status", created=TIME, config=JSON)
    id: str
    status: str
    created: datetime
    config: dict[str, Any]


@dataclass
class StoredSessionRun(Record):
    """A ``sessionrun`` row (see :class:`~proactive_bench.store.tables.SessionRun`)."""

    TABLE = "sessionrun"
    COLUMNS = columns("id", "run_id", "session_id", "position", "intents", "status", "turns", "steps", "error", started=TIME, finished=TIME)
    id: int
    run_id: str
    session_id: str
    position: int
    intents: int
    status: str
    turns: int
    steps: int
    error: str | None
    started: datetime
    finished: datetime | None


@dataclass
class StoredMessage(Record):
    """A ``message`` row."""

    TABLE = "message"
    COLUMNS = columns("id", "session_run_id", "turn", "role", "content")
    id: int
    session_run_id: int
    turn: int
    role: str
    content: str


@dataclass
class StoredToolCall(Record):
    """A ``toolcall`` row; ``call`` and ``result`` decompressed."""

    TABLE = "toolcall"
    COLUMNS = columns("id", "session_run_id", "turn", "seq", "tool_name", call=ZSTD_JSON, result=ZSTD_JSON, ok=FLAG)
    id: int
    session_run_id: int
    turn: int
    seq: int
    tool_name: str
    call: dict[str, Any]
    result: dict[str, Any]
    ok: bool


@dataclass
class StoredIntentEvent(Record):
    """An ``intentevent`` row."""

    TABLE = "intentevent"
    COLUMNS = columns("id", "session_run_id", "intent_id", "status", "stage", "turn", "evidence", "decided_by", "prompt_hash")
    id: int
    session_run_id: int
    intent_id: str
    status: str
    stage: str
    turn: int
    evidence: str
    decided_by: str
    prompt_hash: str | None


@dataclass
class StoredPersonLabel(Record):
    """A ``personlabel`` row."""

    TABLE = "personlabel"
    COLUMNS = columns("id", "session_run_id", "turn", "intent_id", "person", "simulator", "simulator_name")
    id: int
    session_run_id: int
    turn: int
    intent_id: str
    person: str
    simulator: str
    simulator_name: str


@dataclass
class StoredGrade(Record):
    """A ``grade`` row."""

    TABLE = "grade"
    COLUMNS = columns("id", "session_run_id", "item_id", "grader", "weight", "score", "rationale", "error")
    id: int
    session_run_id: int
    item_id: str
    grader: str
    weight: float
    score: int | None
    rationale: str
    error: str | None


@dataclass
class StoredAgentError(Record):
    """An ``agenterror`` row."""

    TABLE = "agenterror"
    COLUMNS = columns("id", "session_run_id", "turn", "type", "message", frames=JSON)
    id: int
    session_run_id: int
    turn: int
    type: str
    message: str
    frames: list[dict[str, Any]]


@dataclass
class StoredLLMCall(Record):
    """An ``llmcall`` row."""

    TABLE = "llmcall"
    COLUMNS = columns(
        "id", "run_id", "session_run_id", "role", "purpose", "model", "method", "attempt", "latency_ms", "prompt_tokens",
        "completion_tokens", "error", "prompt_hash", "cost_usd",
        ok=FLAG, cached=FLAG, created=TIME,
    )  # fmt: skip
    id: int
    run_id: str
    session_run_id: int | None
    role: str
    purpose: str
    model: str
    method: str
    attempt: int
    latency_ms: float
    prompt_tokens: int | None
    completion_tokens: int | None
    error: str | None
    prompt_hash: str | None
    cost_usd: float | None
    ok: bool
    cached: bool
    created: datetime


@dataclass
class StoredAudit(Record):
    """An ``audit`` row."""

    TABLE = "audit"
    COLUMNS = columns("id", "session_run_id", "kind", "item_id", "source", "judged", "audited", "note", created=TIME)
    id: int
    session_run_id: int
    kind: str
    item_id: str
    source: str
    judged: str
    audited: str
    note: str
    created: datetime


@dataclass
class StoredSnapshot(Record):
    """A ``snapshot`` row as stored: ``content`` a zstd frame (a delta when ``base`` is set) or JSON text (``Store.snapshot`` reads one whole)."""

    TABLE = "snapshot"
    COLUMNS = columns("id", "session_run_id", "kind", "base", content=STORED)
    id: int
    session_run_id: int
    kind: str
    base: int | None
    content: Any


SESSION_RECORDS: dict[str, type[Record]] = {
    kind.TABLE: kind
    for kind in (
        StoredMessage,
        StoredToolCall,
        StoredIntentEvent,
        StoredPersonLabel,
        StoredGrade,
        StoredLLMCall,
        StoredSnapshot,
        StoredAgentError,
    )
}
"""The records of a session run's rows (``Store.rows``), by table."""

RunLike: TypeAlias = "Run | StoredRun"
"""A run as a writer holds it (its table's object) or as read: code that only reads a run's columns takes either."""
SweepLike: TypeAlias = "Sweep | StoredSweep"
"""A sweep as a writer holds it or as read."""
SessionRunLike: TypeAlias = "SessionRun | StoredSessionRun"
"""A session run as the runner holds it or as read."""
AuditLike: TypeAlias = "Audit | StoredAudit"
"""An audit as imported (``pbench audit import``) or as read."""
