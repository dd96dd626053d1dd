"""Statements run on the driver (store/direct.py) store what SQLAlchemy's execution stores, on SQLite and on PostgreSQL."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import bindparam, select, text
from sqlalchemy.exc import IntegrityError, OperationalError

import proactive_bench.store.direct as direct_module
import proactive_bench.store.engine as engine_module
from proactive_bench.store import Store, pending_row
from proactive_bench.store.answers import ANSWER_COLUMNS, ModelCallEntry, write_answers
from proactive_bench.store.direct import Direct, direct, kept_cursor
from proactive_bench.store.engine import insert_ignoring
from proactive_bench.store.lease import Fence, check_fence, lost_fences, take_lease
from proactive_bench.store.pending import insert_rows
from proactive_bench.store.tables import (
    SESSION_TABLES,
    AgentErrorRow,
    Grade,
    IntentEvent,
    LLMCall,
    MessageRow,
    PersonLabel,
    Run,
    SessionRun,
    Snapshot,
    ToolCallRow,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A maker of new results databases: SQLite files, or databases on the test PostgreSQL server."""
    made = iter(range(100))
    if request.param == "sqlite":
        return lambda: str(tmp_path / f"r{next(made)}.db")
    server = request.getfixturevalue("local_postgres")
    return lambda: server.create_database(f"d{next(made)}_{tmp_path.name[-20:].lower().replace('-', '_')}")


WHEN = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


def session_rows() -> list[Any]:
    """Rows of every kind a save writes, with the values whose stored form depends on the column type."""
    return [
        pending_row(MessageRow, turn=1, role="user", content="héllo ✓ 'quoted' \x01"),
        pending_row(MessageRow, turn=2, role="assistant", content=""),
        pending_row(ToolCallRow, turn=1, seq=0, tool_name="read", call={"path": "a b", "n": [1, 2.5, None]}, result={"ok": True}, ok=True),
        pending_row(ToolCallRow, turn=1, seq=1, tool_name="write", call={}, result={"error": "ü" * 300}, ok=False),
        pending_row(Grade, item_id="c1", grader="rule", weight=0.5, score=None, rationale="r", error="e"),
        pending_row(Grade, item_id="c2", grader="judge", weight=1.0, score=1),
        pending_row(
            LLMCall,
            run_id="run1",
            role="agent",
            purpose="respond",
            model="m",
            method="json",
            ok=True,
            attempt=1,
            latency_ms=12.25,
            created=WHEN,
        ),
        pending_row(
            LLMCall,
            run_id="run1",
            role="user",
            purpose="reply",
            model="m",
            method="tool",
            ok=False,
            attempt=2,
            latency_ms=3,
            cached=True,
            cost_usd=0.001,
        ),
        pending_row(IntentEvent, intent_id="i1", status="inferred", stage="question", turn=2, evidence="said so", decided_by="llm"),
        pending_row(PersonLabel, turn=2, intent_id="i1", person="inferred", simulator="pending", simulator_name="llm"),
        pending_row(AgentErrorRow, turn=0, type="ValueError", message="bad", frames=[{"file": "a.py", "line": 3}]),
    ]


def stored(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every session table's rows as the driver returns them (no type processing), LLMCall's creation time left out where
    it was not given (a default of now)."""
    found = {}
    with store.engine.connect() as db:
        for table in SESSION_TABLES:
            name = table.__tablename__  # type: ignore[attr-defined]
            found[name] = [tuple(row) for row in db.execute(text(f"SELECT * FROM {name} ORDER BY id")).all()]
    found["llmcall"] = [row[:-1] if n else row for n, row in enumerate(found["llmcall"])]
    return found


POSTGRESQL_ONLY = pytest.mark.parametrize("location", ["postgresql"], indirect=True)
"""A test of how rows reach PostgreSQL's server (SQLite keeps executemany, in process)."""


def new_store(location: Any) -> tuple[Store, int]:
    store = Store(location())
    store.add(Run(id="run1", persona="p", model="m", user_backend="rules", data_root="d", workspace="w", created=WHEN))
    session_run = SessionRun(run_id="run1", session_id="s1", position=1, started=WHEN)
    store.add(session_run)
    return store, session_run.id


def test_rows_inserted_on_the_driver_are_stored_as_sqlalchemy_stores_them(location: Any) -> None:
    by_core, core_id = new_store(location)
    by_driver, driver_id = new_store(location)
    rows = session_rows()
    with by_core.engine.begin() as db:
        for table in {row.table for row in rows}:
            db.execute(table.__table__.insert(), [{**row.values, "session_run_id": core_id} for row in rows if row.table is table])  # type: ignore[attr-defined]
    with by_driver.engine.begin() as db:
        insert_rows(db, driver_id, rows)
    assert stored(by_driver) == stored(by_core)
    assert stored(by_core)["toolcall"][0][5][:4] == b"\x28\xb5\x2f\xfd"  # compressed, as the column type does


def test_answers_and_snapshots_written_on_the_driver_read_back_as_saved(location: Any) -> None:
    store, session_run_id = new_store(location)
    answer = {"namespace": "run1/s1", "key": "k", "occurrence": 0, "generations": "x" * 500}
    with store.engine.begin() as db:
        write_answers(db, [((), answer), ((), {**answer, "occurrence": 1, "generations": "short"})])
        write_answers(db, [((), {**answer, "generations": "another"})])  # the same key again: the first stays
    assert store.answers.generations("run1/s1", "k", 0) == "x" * 500
    assert store.answers.generations("run1/s1", "k", 1) == "short"
    later = SessionRun(run_id="run1", session_id="s2", position=2, started=WHEN)
    memory = {"notes": ["ä"] * 50}
    store.save_session(later, [pending_row(Snapshot, kind="memory", content=memory), pending_row(Snapshot, kind="apps", content={})], {})
    assert later.id is not None and later.id != session_run_id
    assert store.snapshot(later.id, "memory") == memory
    assert store.snapshot(later.id, "apps") == {}


def test_a_lone_surrogate_no_reader_caught_is_saved_as_the_replacement_character(location: Any) -> None:
    """No UTF-8 text holds a lone surrogate, so neither database takes one: the session is saved with U+FFFD in its
    place (the rest as given) instead of failing its save."""
    store, _ = new_store(location)
    later = SessionRun(run_id="run1", session_id="s2", position=2, started=WHEN, error="quoted \udfff")
    rows = [
        pending_row(MessageRow, turn=1, role="assistant", content="ok \ud800 done ✓"),
        pending_row(ToolCallRow, turn=1, seq=0, tool_name="read", call={"path": "a\udc80.md"}, result={"ok": True}, ok=True),
    ]
    store.save_session(later, rows, {})
    assert later.id is not None
    assert [content for *_, content in stored(store)["message"]] == ["ok \ufffd done ✓"]
    assert [row.call for row in store.rows(ToolCallRow, later.id)] == [{"path": "a\ufffd.md"}]
    assert [r.error for r in store.session_runs("run1") if r.id == later.id] == ["quoted \ufffd"]


def test_rows_whose_text_looks_like_parameters_or_sql_are_stored_as_given_over_several_statements(location: Any) -> None:
    """Values travel as parameters, never in the statement's text: a message that spells ``$1``, ``%s`` or a closing
    ``), (`` is stored as written, across multi-row statements."""
    store, session_run_id = new_store(location)
    nasty = ["$1", "%s", "%(content)s", "%%", "'), ('x", "$$ ; DROP TABLE message; --", "é\u2028\t\n", ""]
    contents = [nasty[n % len(nasty)] + f"#{n}" for n in range(250)]
    with store.engine.begin() as db:
        insert_rows(db, session_run_id, [pending_row(MessageRow, turn=n, role="user", content=c) for n, c in enumerate(contents)])
    assert [content for *_, content in stored(store)["message"]] == contents


def test_a_batch_larger_than_one_statement_is_stored_whole_in_order(location: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(direct_module, "ROWS_PER_INSERT", 3)
    store, session_run_id = new_store(location)
    rows = [pending_row(MessageRow, turn=n, role="user", content=f"m{n}") for n in range(7)]
    answers = [((), {"namespace": "run1/s1", "key": "k", "occurrence": n % 2, "generations": f"g{n}"}) for n in range(7)]
    with store.engine.begin() as db:
        insert_rows(db, session_run_id, rows)
        write_answers(db, answers)  # each key again in the same statement and in later ones: the first stays, as its own rule says
    assert [(turn, content) for _, _, turn, _, content in stored(store)["message"]] == [(n, f"m{n}") for n in range(7)]
    assert [store.answers.generations("run1/s1", "k", n) for n in range(3)] == ["g0", "g1", None]


@POSTGRESQL_ONLY
def test_a_batch_goes_to_postgresql_as_multirow_statements(location: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store, session_run_id = new_store(location)
    monkeypatch.setattr(direct_module, "ROWS_PER_INSERT", 4)
    sent: list[str] = []
    execute = psycopg.Cursor.execute
    monkeypatch.setattr(
        psycopg.Cursor, "execute", lambda cursor, sql, *args, **kwargs: sent.append(sql) or execute(cursor, sql, *args, **kwargs)
    )
    monkeypatch.setattr(psycopg.Cursor, "executemany", lambda *args, **kwargs: pytest.fail("a batch ran row by row"))
    with store.engine.begin() as db:
        insert_rows(db, session_run_id, [pending_row(Grade, item_id=f"c{n}", grader="rule", weight=1.0) for n in range(9)])
    assert [sql.count("), (") + 1 for sql in sent if sql.startswith("INSERT")] == [4, 4, 1]
    assert [row[2] for row in stored(store)["grade"]] == [f"c{n}" for n in range(9)]


@POSTGRESQL_ONLY
def test_reads_run_outside_transactions_on_postgresql_and_saves_inside_one(location: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = new_store(location)
    monkeypatch.setattr(engine_module, "PING_IDLE_S", 1e9)  # no ping at a checkout: only the store's own statements
    seen: list[tuple[str, bool]] = []
    execute = psycopg.Cursor.execute
    monkeypatch.setattr(
        psycopg.Cursor,
        "execute",
        lambda cursor, sql, *args, **kwargs: (
            seen.append((str(sql).split()[0], cursor.connection.autocommit)) or execute(cursor, sql, *args, **kwargs)
        ),
    )
    assert store.run("run1") is not None and store.probe_report("http://x", "m") is None
    assert store.sessions_ending_per_run("no sweep", ["done"]) == {}
    assert {autocommit for _, autocommit in seen} == {True} and len(seen) == 3
    seen.clear()
    store.save_session(
        SessionRun(run_id="run1", session_id="s2", position=2, started=WHEN),
        [pending_row(MessageRow, turn=1, role="user", content="hi")],
        {},
    )
    assert {autocommit for _, autocommit in seen} == {False} and "INSERT" in dict(seen)  # the pool's connection, set back


def test_a_connection_replaced_midway_leaves_no_cursor_or_lock_behind(location: Any) -> None:
    store, session_run_id = new_store(location)
    with store.engine.connect() as db:
        insert_rows(db, session_run_id, [pending_row(MessageRow, turn=1, role="user", content="a")])  # never committed
        db.invalidate()  # the connection is closed and replaced
    with store.engine.begin() as db:  # on SQLite, a cursor kept past that close kept the first write's lock
        insert_rows(db, session_run_id, [pending_row(MessageRow, turn=2, role="user", content="b")])
    assert [row[2:] for row in stored(store)["message"]] == [(2, "user", "b")]


@POSTGRESQL_ONLY
def test_statements_share_one_cursor_per_postgresql_connection_and_a_new_connection_gets_its_own(location: Any) -> None:
    store, session_run_id = new_store(location)
    with store.engine.connect() as db:
        kept = kept_cursor(db)
        insert_rows(db, session_run_id, [pending_row(MessageRow, turn=1, role="user", content="a")])
        assert kept_cursor(db) is kept and kept.connection is db.connection.dbapi_connection
        db.invalidate()
    with store.engine.connect() as db:
        assert kept_cursor(db) is not kept and kept_cursor(db).connection is db.connection.dbapi_connection


@POSTGRESQL_ONLY
def test_a_connection_the_server_ended_is_replaced_after_one_error_and_no_traceback_is_logged(
    location: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A read and a save on a pooled connection the server ended (as a restart would) each fail once, as SQLAlchemy's
    own execution fails; the pool then replaces the connection instead of resetting the dead one (which logged a
    traceback), and the next statement runs."""
    monkeypatch.setattr(engine_module, "PING_IDLE_S", 1e9)  # no ping at a checkout: the store's own statement meets the loss
    store, session_run_id = new_store(location)

    def write() -> bool:
        with store.engine.begin() as db:
            insert_rows(db, session_run_id, [pending_row(MessageRow, turn=1, role="user", content="a")])
        return True

    for use in (lambda: store.run("run1"), write):
        with store.engine.connect() as db:
            backend = db.execute(text("select pg_backend_pid()")).scalar_one()
        with Store(store.engine.url.render_as_string(hide_password=False)).engine.connect() as other:
            assert other.execute(text("select pg_terminate_backend(:pid)"), {"pid": backend}).scalar_one()
        with pytest.raises(OperationalError) as lost:
            use()
        assert lost.value.connection_invalidated
        assert use() is not None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_reads_return_what_sqlalchemy_returns_for_the_same_sql(location: Any) -> None:
    store, _ = new_store(location)
    sql = "SELECT id, created, config, units, status FROM run WHERE id = :id AND persona = :persona OR id = :id"
    params = {"id": "run1", "persona": "p"}
    with store.engine.connect() as db:
        expected = [tuple(row) for row in db.execute(text(sql), params).all()]
    assert [tuple(row) for row in store._fetch(sql, params)] == expected and len(expected) == 1
    assert store.run("run1") == store.run("run1") and store.run("run1").created == WHEN  # type: ignore[union-attr]


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(location: Any) -> None:
    store, session_run_id = new_store(location)
    with pytest.raises(IntegrityError), store.engine.begin() as db:
        insert_rows(db, session_run_id, [pending_row(Grade, item_id="c1", grader="g", weight=1.0)] * 2)  # a session's grade once


def test_a_statement_that_needs_work_at_execution_is_refused(tmp_path: Path) -> None:
    dialect = Store(tmp_path / "r.db").engine.dialect
    expanding = select(ModelCallEntry.key).where(ModelCallEntry.key.in_(bindparam("keys", expanding=True)))  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="not a statement to run directly"):
        Direct(expanding, dialect)
    with pytest.raises(ValueError, match="not an INSERT of one row"):
        direct_module._multirow("INSERT INTO t (a) VALUES (%(a)s) ON CONFLICT (a) DO UPDATE SET a = %(b)s", ["a", "b"])
    assert direct(insert_ignoring(ModelCallEntry, dialect.name), dialect, ANSWER_COLUMNS, many=True) is direct(
        insert_ignoring(ModelCallEntry, dialect.name), dialect, ANSWER_COLUMNS, many=True
    )  # compiled once


@pytest.mark.parametrize("count", [1, 3, 600])
def test_fences_are_read_in_padded_chunks_and_only_the_lost_ones_are_reported(location: Any, count: int) -> None:
    store = Store(location())
    held = [take_lease(store.engine, f"scope{n:03}", "test").fence for n in range(count)]
    lost = {Fence(held[0].scope, "someone else"), Fence("no such scope", "x")}
    with store.engine.begin() as db:
        assert lost_fences(db, {*held, *lost}) == lost
    with store.engine.begin() as db:
        assert check_fence(db, tuple(held), lost) == lost
    with pytest.raises(Exception, match="another process took over"), store.engine.begin() as db:
        check_fence(db, (*held, Fence(held[-1].scope, "not me")))


def test_every_session_table_is_covered() -> None:
    assert {row.table for row in session_rows()} | {Snapshot} == set(SESSION_TABLES)  # snapshots: the test above
