"""SQLite persistence through SQLModel: one database per results directory.

Tables: runs, session runs, messages, tool calls, intent events, grades, LLM
calls, snapshots of workspace, memory and apps at each session end, and the
workspace itself as checkpoint archives (each distinct archive stored once).
A session's rows are written together when it ends, so a crash loses at most
the session in progress (whose model answers the call cache keeps).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    LargeBinary,
    Table,
    bindparam,
    delete,
    event,
    inspect,
    update,
)
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import JSON, Column, Field, Session, SQLModel, create_engine, select

from proactive_bench.llm import AnswerWriter, write_answers
from proactive_bench.store.lease import Fence, Lease, check_fence  # noqa: F401  (its table lives in this database)


def _now() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class Run(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    created: datetime = Field(default_factory=_now)
    persona: str
    model: str
    user_backend: str
    judge_model: str | None = None
    data_root: str
    workspace: str
    status: str = "created"
    """created (never started), running (a session saved), finished, stopped (budget) or failed."""
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    units: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON))
    """The episode's dependency units (session ids), fixed when the run is created."""
    sweep_id: str | None = Field(default=None, index=True)


class Sweep(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    created: datetime = Field(default_factory=_now)
    status: str = "running"
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))


class SessionRun(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="run.id", index=True)
    session_id: str
    position: int
    intents: int = 0
    status: str = "running"
    turns: int = 0
    error: str | None = None
    started: datetime = Field(default_factory=_now)
    finished: datetime | None = None


class MessageRow(SQLModel, table=True):
    __tablename__ = "message"
    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    turn: int
    role: str
    content: str


class ToolCallRow(SQLModel, table=True):
    __tablename__ = "toolcall"
    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    turn: int
    seq: int
    tool_name: str
    call: dict[str, Any] = Field(sa_column=Column(JSON))
    result: dict[str, Any] = Field(sa_column=Column(JSON))
    ok: bool


class IntentEvent(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    intent_id: str
    status: str
    stage: str
    turn: int
    evidence: str
    decided_by: str
    prompt_hash: str | None = None


class Grade(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    item_id: str
    grader: str
    weight: float
    score: int | None = None
    rationale: str = ""
    error: str | None = None


class LLMCall(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
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


class Audit(SQLModel, table=True):
    """A second opinion on one judgment of a session: a checklist grade or an intent's status."""

    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    kind: str  # "checklist" or "intent"
    item_id: str
    source: str  # who audited: e.g. "human:ana" or "model:gpt-4o"
    judged: str  # what the run recorded: "1"/"0" or the intent status
    audited: str  # what the auditor says, same values
    note: str = ""
    created: datetime = Field(default_factory=_now)


class Snapshot(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    session_run_id: int = Field(foreign_key="sessionrun.id", index=True)
    kind: str
    content: dict[str, Any] = Field(sa_column=Column(JSON))


class WorkspaceArchive(SQLModel, table=True):
    """A workspace checkpoint's manifest (or, from earlier versions, tar archive), or one file content it names; stored once by sha256."""

    sha256: str = Field(primary_key=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class Checkpoint(SQLModel, table=True):
    """Which archive holds a run's workspace after its ``position``-th session (0: as the run started)."""

    run_id: str = Field(foreign_key="run.id", primary_key=True)
    position: int = Field(primary_key=True)
    sha256: str = Field(foreign_key="workspacearchive.sha256")


@dataclass(frozen=True, slots=True)
class PendingRow:
    """A row of a session in progress, kept as plain values until the session is saved.

    Its ``session_run_id`` is filled in then. Building ORM objects for every
    message, tool call and model call cost more than saving them.
    """

    table: type[SQLModel]
    values: dict[str, Any]


def pending_row(table: type[SQLModel], **values: Any) -> PendingRow:
    """A row of ``table`` with the model's defaults for the columns not given; unknown columns are refused."""
    static, factories, columns = _column_defaults(table)
    unknown = values.keys() - columns
    if unknown:
        raise TypeError(f"{table.__name__} has no columns {sorted(unknown)}")
    made = {name: make() for name, make in factories.items() if name not in values}
    return PendingRow(table, {**static, **made, **values})


@cache
def _column_defaults(table: type[SQLModel]) -> tuple[dict[str, Any], dict[str, Callable[[], Any]], frozenset[str]]:
    """Per table: fixed defaults, default factories, and the columns a pending row may set (not the keys)."""
    static: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    columns = frozenset(name for name in table.model_fields if name not in ("id", "session_run_id"))
    for name in columns:
        info = table.model_fields[name]
        if info.default_factory is not None:
            factories[name] = info.default_factory  # type: ignore[assignment]
        elif not info.is_required():
            static[name] = info.default
    return static, factories, columns


class Store:
    """The results database of one results directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30})
        event.listen(self.engine, "connect", _sqlite_pragmas)
        _check_columns(self.engine, path)
        SQLModel.metadata.create_all(self.engine)
        self.answers = AnswerWriter(self.engine)
        """Recorded model answers of every run on this database, written in bursts."""
        self.fence: Fence | None = None
        """The lease this process writes under (see :mod:`proactive_bench.store.lease`): every session save checks it."""

    def add(self, *rows: SQLModel) -> None:
        """Insert rows in one transaction."""
        with Session(self.engine, expire_on_commit=False) as db:
            db.add_all(rows)
            db.commit()  # keys are filled in by the flush; nothing is computed by the database

    def save_session(
        self, session_run: SessionRun, rows: Sequence[PendingRow], checkpoints: Mapping[int, bytes], blobs: Mapping[str, bytes] | None = None,
    ) -> None:
        """A finished session, its rows and workspace checkpoints (position to archive), in one transaction.

        ``blobs`` (sha256 to bytes: the file contents a checkpoint manifest names) go into the archive table too.

        The session run gets its id here; its rows go in table by table as bulk
        inserts (this runs at every session end of every run of a sweep). A
        session is saved whole or not at all, its workspace included, and with
        every model answer recorded so far on this database; under a lease
        (``fence``), only while this process still holds it (LeaseLost otherwise).
        """
        table: Table = SessionRun.__table__  # type: ignore[attr-defined]
        values = {c.key: getattr(session_run, c.key) for c in table.columns if not (c.primary_key and session_run.id is None)}
        add_archive, point, started = _session_statements()
        answers = self.answers.take()  # every answer recorded so far goes in with it (replay needs them all)
        try:
            with self.engine.begin() as db:  # Core: the ORM session's bulk-insert path cost more than the inserts
                write_answers(db, answers)
                db.execute(started, {"run_id": session_run.run_id})  # the first write: the transaction holds the write lock from here
                if self.fence is not None:
                    check_fence(db, self.fence)
                session_run.id = db.execute(table.insert(), values).inserted_primary_key[0]  # type: ignore[attr-defined]
                assert session_run.id is not None
                _insert_rows(db, session_run.id, rows)
                for digest, data in (blobs or {}).items():
                    db.execute(add_archive, {"sha256": digest, "data": data})
                for position, data in checkpoints.items():
                    digest = hashlib.sha256(data).hexdigest()
                    db.execute(add_archive, {"sha256": digest, "data": data})
                    db.execute(point, {"run_id": session_run.run_id, "position": position, "sha256": digest})
        except BaseException:
            self.answers.put_back(answers)  # written later, by the next flush or save
            raise

    def checkpoint(self, run_id: str, position: int) -> bytes | None:
        """The archive of a run's workspace after its ``position``-th session, if it was saved here."""
        with Session(self.engine) as db:
            stmt = select(WorkspaceArchive.data).join(Checkpoint, Checkpoint.sha256 == WorkspaceArchive.sha256)  # type: ignore[arg-type]
            return db.exec(stmt.where(Checkpoint.run_id == run_id, Checkpoint.position == position)).first()

    def archives(self, digests: set[str]) -> dict[str, bytes]:
        """Stored archives and file contents by sha256 (those found among ``digests``)."""
        wanted, found = sorted(digests), {}
        with Session(self.engine) as db:
            for start in range(0, len(wanted), 500):
                stmt = select(WorkspaceArchive.sha256, WorkspaceArchive.data).where(WorkspaceArchive.sha256.in_(wanted[start : start + 500]))  # type: ignore[attr-defined]
                found.update(db.exec(stmt).all())
        return found

    def add_rows(self, session_run_id: int, rows: Sequence[PendingRow]) -> None:
        """Rows for a saved session (re-scoring's model calls, for instance), in one transaction."""
        with self.engine.begin() as db:
            _insert_rows(db, session_run_id, rows)

    def update(self, row: SQLModel, **changes: Any) -> None:
        """Set columns of a stored row, on the object and in the database (one UPDATE of those columns)."""
        table: Table = row.__table__  # type: ignore[attr-defined]
        for key, value in changes.items():
            setattr(row, key, value)
        key = {column: getattr(row, column.key) for column in table.primary_key.columns}
        with self.engine.begin() as db:
            if db.execute(update(table).where(*(column == value for column, value in key.items())).values(changes)).rowcount != 1:
                raise LookupError(f"{table.name} {list(key.values())} is not in {self.path}")

    def run(self, run_id: str) -> Run | None:
        with Session(self.engine) as db:
            return db.get(Run, run_id)

    def sweep(self, sweep_id: str) -> Sweep | None:
        with Session(self.engine) as db:
            return db.get(Sweep, sweep_id)

    def runs(self, sweep_id: str) -> list[Run]:
        with Session(self.engine) as db:
            return list(db.exec(select(Run).where(Run.sweep_id == sweep_id).order_by(Run.created)))

    def runs_for(self, ident: str) -> list[Run]:
        """The runs a sweep id or a run id names; empty when it names neither."""
        if self.sweep(ident) is not None:
            return self.runs(ident)
        run = self.run(ident)
        return [run] if run is not None else []

    def llm_calls(self, run_id: str) -> list[LLMCall]:
        with Session(self.engine) as db:
            return list(db.exec(select(LLMCall).where(LLMCall.run_id == run_id)))

    def session_runs(self, run_id: str) -> list[SessionRun]:
        with Session(self.engine) as db:
            return list(db.exec(select(SessionRun).where(SessionRun.run_id == run_id).order_by(SessionRun.position)))

    def rows(self, table: type[SQLModel], session_run_id: int) -> list[Any]:
        with Session(self.engine) as db:
            stmt = select(table).where(table.session_run_id == session_run_id).order_by(table.id)  # type: ignore[attr-defined]
            return list(db.exec(stmt))

    def snapshot(self, session_run_id: int, kind: str) -> dict[str, Any] | None:
        with Session(self.engine) as db:
            row = db.exec(select(Snapshot).where(Snapshot.session_run_id == session_run_id, Snapshot.kind == kind)).first()
            return row.content if row else None

    def delete_session_run(self, session_run: SessionRun) -> None:
        """Remove a session run and every row that belongs to it, in one transaction."""
        with Session(self.engine) as db:
            for table in (MessageRow, ToolCallRow, IntentEvent, Grade, LLMCall, Snapshot):
                for row in db.exec(select(table).where(table.session_run_id == session_run.id)):  # type: ignore[attr-defined]
                    db.delete(row)
            stale = db.get(SessionRun, session_run.id)
            if stale is not None:
                db.delete(stale)
            db.commit()

    def replace_grades(self, session_run_id: int, grades: Sequence[PendingRow]) -> None:
        """Swap a session's grades for new ones (re-scoring), in one transaction."""
        with self.engine.begin() as db:
            db.execute(delete(Grade).where(Grade.session_run_id == session_run_id))  # type: ignore[arg-type]
            _insert_rows(db, session_run_id, grades)

    def latest_snapshot(self, run_id: str, kind: str) -> dict[str, Any] | None:
        with Session(self.engine) as db:
            stmt = (
                select(Snapshot)
                .join(SessionRun, Snapshot.session_run_id == SessionRun.id)  # type: ignore[arg-type]
                .where(SessionRun.run_id == run_id, Snapshot.kind == kind)
                .order_by(Snapshot.id.desc())  # type: ignore[union-attr]
            )
            row = db.exec(stmt).first()
            return row.content if row else None


class StoreSchemaError(RuntimeError):
    """A results database written by a pbench whose tables differ from this one's."""


def _check_columns(engine: Any, path: Path) -> None:
    existing = inspect(engine)
    for table in SQLModel.metadata.sorted_tables:
        if not existing.has_table(table.name):
            continue
        present = {c["name"] for c in existing.get_columns(table.name)}
        missing = [c.name for c in table.columns if c.name not in present]
        if missing:
            raise StoreSchemaError(
                f"{path}: table {table.name} lacks columns {missing}; it was written by another pbench version. "
                "Use a new --db file (old results stay readable by the version that wrote them)."
            )


@cache
def _session_statements() -> tuple[Any, Any, Any]:
    """Store an archive unless already there; point a run's position at an archive (replacing an earlier pointer);
    mark a run that saves its first session as running."""
    point, runs = sqlite_insert(Checkpoint), Run.__table__  # type: ignore[attr-defined]
    return (
        sqlite_insert(WorkspaceArchive).on_conflict_do_nothing(),
        point.on_conflict_do_update(index_elements=["run_id", "position"], set_={"sha256": point.excluded.sha256}),
        update(runs).where(runs.c.id == bindparam("run_id"), runs.c.status == "created").values(status="running"),
    )


def _insert_rows(db: Connection, session_run_id: int, rows: Sequence[PendingRow]) -> None:
    by_table: dict[Table, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_table[row.table.__table__].append({**row.values, "session_run_id": session_run_id})  # type: ignore[attr-defined]
    for table, values in by_table.items():
        db.execute(table.insert(), values)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
