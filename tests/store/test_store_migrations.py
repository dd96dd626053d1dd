"""Versioned results databases: an older one is upgraded on open, a newer or foreign one is refused with one line."""

from __future__ import annotations

import gzip
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from proactive_bench.store import ListFilter, Store, StoreSchemaError
from proactive_bench.store.migration import head_revision, revision_of
from tests.helpers.cli import run_cli
from tests.helpers.paths import LEGACY_DBS

LEGACY = LEGACY_DBS / "main-30e009d.db.gz"
LEGACY_RUN = "1564957dc721"
"""The fixture: pharmacist sessions 1-2 by scripted:reference, written by main at 30e009d (before versioned migrations)."""


@pytest.fixture
def legacy_db(tmp_path: Path) -> Path:
    db = tmp_path / "legacy.db"
    db.write_bytes(gzip.decompress(LEGACY.read_bytes()))
    return db


def test_a_database_written_before_migrations_is_upgraded_and_reads_as_written(legacy_db: Path) -> None:
    with closing(sqlite3.connect(legacy_db)) as conn:
        assert conn.execute("select count(*) from sqlite_master where name = 'alembic_version'").fetchone()[0] == 0
        before = conn.execute("select id, status from run").fetchall()
    shown = run_cli("results", LEGACY_RUN, "--db", str(legacy_db), "--format", "json")
    assert shown.exit_code == 0, shown.output
    (row,) = json.loads(shown.stdout)["runs"]
    assert row["run_id"] == LEGACY_RUN and row["sessions_done"] == 2 and row["proc"] == 1.0
    store = Store(legacy_db)
    assert revision_of(store.engine) == head_revision()
    assert [(run.id, run.status) for run in store.find_runs(ListFilter())] == before
    exported = run_cli("export", LEGACY_RUN, "--db", str(legacy_db))
    assert exported.exit_code == 0 and len(exported.stdout.splitlines()) == 2
    assert [s.steps for s in store.session_runs(LEGACY_RUN)] == [0, 0]  # revision 0005: sessions saved before it have no steps


def test_a_database_of_a_newer_pbench_is_refused_with_one_line(legacy_db: Path) -> None:
    Store(legacy_db)
    with closing(sqlite3.connect(legacy_db)) as conn, conn:
        conn.execute("update alembic_version set version_num = '9001'")
    result = run_cli("runs", "--db", str(legacy_db))
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert line.startswith(f"error: {legacy_db}: schema revision 9001 was written by a newer pbench") and "upgrade pbench" in line
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2  # one line, wrapped at most once
    with pytest.raises(StoreSchemaError, match="newer pbench"):
        Store(legacy_db)


def test_a_table_of_another_pbench_is_refused_and_nothing_is_changed(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("create table run (id varchar primary key, persona varchar)")
    with pytest.raises(StoreSchemaError, match=r"table run lacks columns \['created'"):
        Store(db)
    with closing(sqlite3.connect(db)) as conn:
        tables = {name for (name,) in conn.execute("select name from sqlite_master where type = 'table'")}
    assert tables == {"run"}, "the failed upgrade is rolled back whole"


def test_duplicated_sessions_are_refused_by_the_unique_keys_upgrade(legacy_db: Path) -> None:
    with closing(sqlite3.connect(legacy_db)) as conn, conn:
        conn.execute(
            "insert into sessionrun (run_id, session_id, position, intents, status, turns, started) "
            "select run_id, session_id, position, intents, status, turns, started from sessionrun limit 1"
        )
    with pytest.raises(StoreSchemaError, match=r"sessionrun holds 1 duplicated \(run_id, session_id\)"):
        Store(legacy_db)

