"""Versioned results databases: an older one is upgraded on open (its checkpoints of earlier formats become manifests),
a newer or foreign one is refused with one line, as is a checkpoint that cannot be converted."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import sqlite3
import stat
import tarfile
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env.workspace import Workspace
from proactive_bench.episode.checkpoints import MANIFEST_MAGIC, opened_checkpoint, restore_checkpoint
from proactive_bench.store import ListFilter, Store, StoreSchemaError, migration
from proactive_bench.store.migration import head_revision, revision_of
from tests.helpers.cli import run_cli, run_python
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


# --- revision 0006: checkpoints of earlier formats become manifests ---------------------------------------------------


def _workspace(root: Path) -> Path:
    """A folder with what checkpoints must keep: nested files, an empty folder, a link, a hard link, a file's permissions."""
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "dose.md").write_text("5 mg")
    (root / "a.txt").write_text("alpha")
    (root / "a.txt").chmod(0o640)
    (root / "empty").mkdir()
    (root / "latest.md").symlink_to("notes/dose.md")
    os.link(root / "a.txt", root / "copy.txt")
    return root


def _tar(folder: Path, names: dict[str, str] | None = None) -> bytes:
    """The folder as an uncompressed tar, as versions before the manifest saved checkpoints (``names``: members renamed)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for child in sorted(folder.iterdir()):
            archive.add(child, arcname=(names or {}).get(child.name, child.name))
    return buffer.getvalue()


def _store_legacy_checkpoint(db: Path, position: int, tar: bytes, workspace: Path) -> str:
    """Point the fixture run's checkpoint at ``position`` to a stored tar archive and its workspace at ``workspace``."""
    digest = hashlib.sha256(tar).hexdigest()
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("update run set workspace = ? where id = ?", (str(workspace), LEGACY_RUN))
        conn.execute("insert into workspacearchive (sha256, data) values (?, ?)", (digest, tar))
        conn.execute("update checkpoint set sha256 = ? where run_id = ? and position = ?", (digest, LEGACY_RUN, position))
    return digest


def test_stored_tars_and_checkpoint_files_and_folders_become_manifests(legacy_db: Path, tmp_path: Path) -> None:
    source = _workspace(tmp_path / "source")
    workspaces = tmp_path / "results" / "workspaces" / LEGACY_RUN
    tar = _store_legacy_checkpoint(legacy_db, 1, _tar(source), workspaces)
    on_disk = tmp_path / "results" / "checkpoints" / LEGACY_RUN
    shutil.copytree(source, on_disk / "006", symlinks=True)
    (on_disk / "005.tar").write_bytes(_tar(source))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "other.txt").write_text("never read")
    (on_disk / "002.tar").write_bytes(_tar(tmp_path / "other"))  # the database's checkpoint 2 wins over a file
    shutil.copytree(source, on_disk / "007", symlinks=True)
    (on_disk / "007.tar").write_bytes(_tar(tmp_path / "other"))  # and a tar over a folder, as they were read
    (on_disk / "notes.txt").write_text("not a checkpoint")
    store = Store(legacy_db)
    assert revision_of(store.engine) == head_revision()
    shutil.rmtree(tmp_path / "results" / "checkpoints")  # from now on only the database is read
    run = store.run(LEGACY_RUN)
    assert run is not None
    for position in (0, 1, 2, 5, 6, 7):
        saved = store.checkpoint(LEGACY_RUN, position)
        assert saved is not None and saved.startswith(MANIFEST_MAGIC), position
    assert store.checkpoint(LEGACY_RUN, 3) is None
    for position in (1, 5, 6):
        restored = Workspace(tmp_path / f"restored{position}")
        restore_checkpoint(store, run, position, restored)
        root = restored.root
        assert restored.files() == ["a.txt", "copy.txt", "notes/dose.md"] and restored.read_text("copy.txt") == "alpha", position
        assert (root / "empty").is_dir() and os.readlink(root / "latest.md") == "notes/dose.md"
        assert stat.S_IMODE((root / "a.txt").stat().st_mode) == 0o640 and (root / "a.txt").stat().st_nlink == 1
    with opened_checkpoint(store, run, 2) as saved:
        assert saved is not None and saved.files() and "other.txt" not in saved.files()  # the workspace the fixture saved, not the file
    with opened_checkpoint(store, run, 7) as saved:
        assert saved is not None and saved.files() == ["other.txt"]
    assert run_cli("gc", "--db", str(legacy_db)).exit_code == 0
    assert store.archives({tar}) == {}, "the converted tar is named by no checkpoint: gc removes it"


@pytest.mark.parametrize(
    ("broken", "reason"),
    [
        (lambda source: _tar(source, {"a.txt": "../a.txt"}), "'../a.txt' names a place outside the workspace"),
        (lambda source: b"a tar archive cut short" * 40, "file could not be opened successfully"),
    ],
    ids=["escaping name", "not a tar"],
)
def test_a_legacy_checkpoint_that_cannot_be_converted_is_refused_with_one_line(
    legacy_db: Path, tmp_path: Path, broken: Any, reason: str
) -> None:
    tar = _store_legacy_checkpoint(legacy_db, 1, broken(_workspace(tmp_path / "source")), tmp_path / "workspaces" / LEGACY_RUN)
    result = run_cli("runs", "--db", str(legacy_db))
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert line.startswith(f"error: {legacy_db}: run {LEGACY_RUN}: its workspace checkpoint after session 1 (a tar archive in the database")
    assert reason in line and f"pbench gc --runs {LEGACY_RUN}" in line
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 3  # one line, wrapped at most twice
    with closing(sqlite3.connect(legacy_db)) as conn:
        assert conn.execute("select count(*) from sqlite_master where name = 'alembic_version'").fetchone()[0] == 0, "nothing changed"
        assert conn.execute("select sha256 from checkpoint where position = 1").fetchone()[0] == tar


def test_the_head_revision_is_the_newest_migration_and_opening_at_it_loads_no_alembic(tmp_path: Path) -> None:
    """``HEAD`` (read without Alembic) names the newest script; a database at it opens without loading Alembic."""
    assert migration.scripts().get_current_head() == migration.HEAD
    Store(tmp_path / "p.db")  # created and migrated to HEAD
    code = f"import sys; from proactive_bench.store import Store; Store({str(tmp_path / 'p.db')!r}); print(sorted(m for m in sys.modules if m.startswith('alembic')))"
    assert run_python(code).strip() == "[]"


def _master(db: Path) -> tuple[list[Any], list[Any]]:
    """Everything ``sqlite_master`` lists, in order (its statements, SQLite's automatic indexes), and the version row."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("select type, name, tbl_name, sql from sqlite_master order by rowid").fetchall(), conn.execute(
            "select * from alembic_version"
        ).fetchall()


def test_a_new_sqlite_file_is_made_at_head_as_the_migrations_make_it_without_loading_alembic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file is made from ``migrations/head.sqlite.json`` (``python -m proactive_bench.store.migration`` writes it):
    the same ``sqlite_master`` as Alembic's nine revisions leave, in a process that never imports Alembic."""
    code = f"import sys; from proactive_bench.store import Store; Store({str(tmp_path / 'new.db')!r}); print(sorted(m for m in sys.modules if m.startswith('alembic')))"
    *logged, alembic = run_python(code).strip().splitlines()
    assert alembic == "[]"
    assert "results_database_migrated" in logged[0] and "from_revision=None to_revision=" + migration.HEAD in logged[0]  # as before
    monkeypatch.setattr(migration, "_head_schema", lambda _head: None)  # no schema file at this revision: Alembic makes it
    Store(tmp_path / "alembic.db")
    made, migrated = _master(tmp_path / "new.db"), _master(tmp_path / "alembic.db")
    assert made == migrated, "migrations/head.sqlite.json is stale: `python -m proactive_bench.store.migration` writes it"
    assert migrated[1] == [(migration.HEAD,)] and len(migrated[0]) > 20
