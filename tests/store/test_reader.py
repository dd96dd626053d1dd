"""The store's reads written once in SQL (``store/sql.py``, ``reading.py``): records equal to what the ORM reads, on
SQLite through the standard library's sqlite3 (``Reader``) and on PostgreSQL through SQLAlchemy (``Store``); the
filters of ``pbench runs``; a reader only of a database at the head revision, that cannot write."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, SQLModel, select

from proactive_bench.store import (
    Audit,
    IdLookupError,
    ListFilter,
    LLMCall,
    ReadQueries,
    Store,
    StoredAudit,
    StoredRun,
    StoredSessionRun,
    StoredSnapshot,
    StoredSweep,
    open_reader,
    pending_row,
    tables as store_tables,
)
from proactive_bench.store.engine import locate, make_engine
from proactive_bench.store.migration import migrate
from proactive_bench.store.records import SESSION_RECORDS, Record
from proactive_bench.store.sql import like_escaped
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI

TABLES: dict[str, type[SQLModel]] = {
    cls.__tablename__: cls  # type: ignore[misc]  # SQLModel declares __tablename__ as a declared attribute
    for cls in vars(store_tables).values()
    if isinstance(cls, type) and issubclass(cls, SQLModel) and cls is not SQLModel
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def filled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, ReadQueries]:
    """A database holding a sweep of two scripted models and a run outside it, a priced model call, an audit, a person
    label and an agent error; the store and what reads it (SQLite: the stdlib reader; PostgreSQL: the store itself).
    Made once per backend for the module: its tests only read it."""
    if request.param == "sqlite":
        db = str(tmp_path_factory.mktemp("filled") / "p.db")
    else:
        db = str(request.getfixturevalue("local_postgres").create_database(f"t{uuid.uuid4().hex[:12]}"))
    for args in (("sweep", "--models", "scripted:asker,scripted:passive"), ("episode", "--persona", "mini", "--model", "scripted:asker")):
        done = run_cli(*args, "--data", str(MINI), *(("--personas", "mini") if args[0] == "sweep" else ()), "--db", db)
        assert done.exit_code in (0, 1), done.output
    store = Store(db)
    run = store.find_runs(ListFilter(limit=1))[0]
    first = store.session_runs(run.id)[0]
    store.add(
        LLMCall(run_id=run.id, session_run_id=first.id, role="agent", purpose="turn", model="m", method="chat", ok=True, attempt=1, latency_ms=2.5, cost_usd=0.25),
        LLMCall(run_id=run.id, role="judge", purpose="grade", model="m", method="chat", ok=False, attempt=2, latency_ms=1.0, cached=True),
    )  # fmt: skip
    store.replace_audits(
        [Audit(session_run_id=first.id, kind="intent", item_id="i1", source="human:x", judged="provided", audited="pending")], "human:x"
    )
    store.add_rows(
        first.id,
        [
            pending_row(store_tables.PersonLabel, turn=1, intent_id="i1", person="pending", simulator="provided", simulator_name="rules"),
            pending_row(store_tables.AgentErrorRow, turn=2, type="ValueError", message="no", frames=[{"file": "a.py", "line": 3}]),
        ],
    )
    if request.param == "sqlite":
        reader = open_reader(Path(db))
        assert reader is not None
        return store, reader
    return store, store


def orm_rows(store: Store, kind: type[Record]) -> list[dict[str, Any]]:
    table: Any = TABLES[kind.TABLE]
    key = table.id if "id" in table.model_fields else table.sha256
    with Session(store.engine) as db:
        return [{name: getattr(row, name) for name, _ in kind.COLUMNS} for row in db.exec(select(table).order_by(key))]


RECORDS = [StoredRun, StoredSweep, StoredSessionRun, StoredAudit, *SESSION_RECORDS.values()]


@pytest.mark.parametrize("kind", RECORDS, ids=lambda k: k.TABLE)
def test_a_record_holds_every_column_of_its_table(kind: type[Record]) -> None:
    """A column added to a table (and its migration) needs its field in ``records.py`` too, or reads would drop it."""
    names = [name for name, _ in kind.COLUMNS]
    assert sorted(names) == sorted(TABLES[kind.TABLE].__table__.columns.keys())  # type: ignore[attr-defined]  # SQLModel sets __table__
    assert sorted(names) == sorted(kind.__dataclass_fields__)  # type: ignore[attr-defined]  # records are dataclasses


@pytest.mark.parametrize("kind", RECORDS, ids=lambda k: k.TABLE)
def test_every_record_reads_as_the_orm_reads_its_row(filled: tuple[Store, ReadQueries], kind: type[Record]) -> None:
    """Each column decoded as the tables' column types do (UTC times, JSON, zstd JSON, flags, snapshots as stored)."""
    store, reads = filled
    expected = orm_rows(store, kind)
    assert expected, f"no {kind.TABLE} rows to compare"
    assert [asdict(r) for r in reads.select(kind, order="id")] == expected  # type: ignore[call-overload]  # records are dataclasses


def test_the_read_queries_agree_with_the_rows_they_name(filled: tuple[Store, ReadQueries]) -> None:
    store, reads = filled
    runs = reads.find_runs(ListFilter())
    assert [r.created for r in runs] == sorted((r.created for r in runs), reverse=True) and len(runs) == 3
    sweep = reads.find_sweeps(ListFilter())[0]
    assert {r.id for r in reads.runs(sweep.id)} == {r.id for r in runs if r.sweep_id == sweep.id} and len(reads.runs_for(sweep.id)) == 2
    alone = next(r for r in runs if r.sweep_id is None)
    assert reads.resolve("latest") == max([alone, sweep], key=lambda row: row.created)
    assert reads.resolve(alone.id[:10]) == alone == reads.run(alone.id) and reads.sweep(sweep.id) == sweep
    assert reads.resolve("latest", sweeps=False) == runs[0]
    with pytest.raises(IdLookupError, match="no sweep or run 'zz'"):
        reads.resolve("zz")
    newest = runs[0]
    assert reads.run_costs([r.id for r in runs]) == {newest.id: 0.25}
    assert [c.cost_usd for c in reads.llm_calls(newest.id)] == [0.25, None]
    sessions = reads.session_runs(newest.id)
    assert [s.position for s in sessions] == sorted(s.position for s in sessions)
    assert [(a.item_id, a.audited) for a in reads.audits([newest.id])] == [("i1", "pending")] and reads.audits([]) == []
    kinds = {row.kind for row in reads.rows(StoredSnapshot, sessions[-1].id)}
    assert kinds, "the last session saved no snapshot"
    for kind in kinds:
        assert reads.latest_snapshot(newest.id, kind) == reads.snapshot(sessions[-1].id, kind) is not None
    assert reads.snapshot(sessions[-1].id, "no such kind") is None and reads.latest_snapshot("nope", next(iter(kinds))) is None


def test_an_empty_prefix_names_nothing(filled: tuple[Store, ReadQueries]) -> None:
    with pytest.raises(IdLookupError, match="no sweep or run ''"):
        filled[1].resolve("")


def test_the_list_filters(filled: tuple[Store, ReadQueries]) -> None:
    """persona, model text (LIKE with its wildcards escaped), status, since and limit; a sweep by its runs."""
    _, reads = filled
    ids = lambda wanted: [r.id for r in reads.find_runs(wanted)]  # noqa: E731
    every = ids(ListFilter())
    assert ids(ListFilter(persona="mini")) == every and ids(ListFilter(persona="other")) == []
    assert len(ids(ListFilter(model="passive"))) == 1 and len(ids(ListFilter(model="asker"))) == 2
    assert ids(ListFilter(model="_")) == [] and ids(ListFilter(model="%")) == []  # wildcards are text
    assert ids(ListFilter(status="finished")) == every and ids(ListFilter(status="failed")) == []
    assert ids(ListFilter(since=datetime.now(UTC) - timedelta(days=1))) == every
    assert ids(ListFilter(since=datetime.now(UTC) + timedelta(minutes=5))) == []
    assert ids(ListFilter(limit=1)) == every[:1]
    assert len(reads.find_sweeps(ListFilter(model="passive"))) == 1 and reads.find_sweeps(ListFilter(persona="other")) == []
    assert like_escaped("a_b%c/d") == "a/_b/%c//d"


def test_a_reader_reads_only_a_database_at_the_head_revision(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    engine = make_engine(locate(old))
    migrate(engine, str(old), to="0008")
    engine.dispose()
    assert open_reader(old) is None  # older: the store migrates it
    newer = tmp_path / "newer.db"
    Store(str(newer)).close_connections()
    assert open_reader(newer) is not None
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    assert open_reader(newer) is None  # newer: the store refuses it with its message
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    assert open_reader(junk) is None


def test_a_reader_cannot_write(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    Store(str(db)).close_connections()
    reader = open_reader(db)
    assert reader is not None
    with pytest.raises(sqlite3.OperationalError, match="readonly|read-only"):
        reader.connection.execute("INSERT INTO sweep (id, created, status, config) VALUES ('x', '2026-01-01', 'running', '{}')")
