"""The results store on SQLite and on a real PostgreSQL server: one schema, one lease, no duplicate rows, the same results.

PostgreSQL runs as a throwaway server started by the tests (proactive_bench/postgres_server.py, the `local_postgres` fixture);
these tests are skipped, with the reason, only when its binaries are not installed.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import re
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import SQLModel

from proactive_bench.dataset.loading import load_episode
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.store import Lease, LeaseHeld, LeaseLost, SessionRun, Store, StoreSchemaError, ToolCallRow, locate, take_lease
from proactive_bench.store.engine import make_engine
from proactive_bench.store.migration import head_revision, migrate, revision_of
from tests.helpers.cli import run_cli
from tests.helpers.once import once_per_run
from tests.helpers.paths import MINI


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new results database: a SQLite file, or a database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "r.db")
    return str(request.getfixturevalue("postgres_url"))


def new_run(location: str, tmp_path: Path) -> tuple[Store, str]:
    store = Store(location)
    run = start_run(store, load_episode(MINI, "mini"), RunSpec(persona="mini", model="scripted:reference", data_root=str(MINI)), tmp_path)
    return store, run.id


def session_runs(store: Store, run_id: str) -> int:
    with store.engine.connect() as db:
        return int(db.execute(select(func.count()).select_from(SessionRun).where(SessionRun.run_id == run_id)).scalar_one())  # type: ignore[arg-type]


KEPT_DECLARED_TYPES = {("modelcall_cache", "generations"), ("snapshot", "content"), ("toolcall", "call"), ("toolcall", "result")}
"""SQLite columns that hold zstd frames under their earlier declared type (revision 0003: SQLite keeps each value's storage class)."""


def test_the_migrated_schema_is_the_tables_schema(location: str) -> None:
    store = Store(location)
    assert revision_of(store.engine) == head_revision()
    with store.engine.connect() as db:
        differences = compare_metadata(MigrationContext.configure(db), SQLModel.metadata)
    if store.engine.dialect.name == "sqlite":
        assert {(change[0][2], change[0][3]) for change in differences if change[0][0] == "modify_type"} == KEPT_DECLARED_TYPES
        differences = [change for change in differences if change[0][0] != "modify_type"]
    assert differences == []


def _open(location: str) -> str | None:
    return revision_of(Store(location).engine)


def test_writers_opening_a_new_database_at_once_migrate_it_once(location: str) -> None:
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        assert pool.map(_open, [location] * 3) == [head_revision()] * 3


def test_a_new_file_another_process_is_writing_opens_once_its_lock_is_released(tmp_path: Path) -> None:
    """A new file stays in rollback-journal mode until its first write: SQLite refuses the WAL switch at once (no busy
    wait) while another connection holds its write lock, which failed one concurrent first open in about fifteen."""
    path = tmp_path / "r.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE scratch (x)")
    release = threading.Timer(0.3, lambda: other.execute("ROLLBACK"))
    release.start()
    try:
        store = Store(str(path))
    finally:
        release.join()
        other.close()
    assert revision_of(store.engine) == head_revision()
    with store.engine.connect() as db:
        assert db.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"


def test_a_bad_or_unreachable_database_url_is_one_line_without_its_password() -> None:
    unreachable = run_cli("runs", "--db", "postgresql+psycopg://ana:s3cret@127.0.0.1:1/results")
    assert unreachable.exit_code == 2 and "s3cret" not in unreachable.output and "Traceback" not in unreachable.output
    assert " ".join(unreachable.output.split()).startswith(
        "error: --db postgresql+psycopg://ana:***@127.0.0.1:1/results: cannot open it as a results database:"
    )
    other = run_cli("runs", "--db", "mysql://ana:s3cret@db/results")
    assert other.exit_code == 2 and "s3cret" not in other.output and "runs on SQLite" in other.output


def test_of_many_concurrent_takers_one_gets_the_lease(location: str) -> None:
    stores = [Store(location) for _ in range(6)]  # one engine each, as separate processes would have
    start, won, refused = threading.Barrier(len(stores)), [], []

    def take(store: Store) -> None:
        start.wait()
        try:
            won.append(take_lease(store.engine, "sweep1", "pbench sweep"))
        except LeaseHeld as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=take, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1 and len(refused) == len(stores) - 1
    assert all("sweep1 is being written by pid" in message for message in refused)


def test_a_stale_lease_is_taken_over_and_its_old_holder_saves_nothing(location: str, tmp_path: Path) -> None:
    old, run_id = new_run(location, tmp_path)
    old.fence = take_lease(old.engine, run_id, "pbench episode").fence
    with old.engine.begin() as db:  # its heartbeat stopped long ago (a holder on another machine that died)
        db.execute(
            update(Lease).where(Lease.scope == run_id).values(host="elsewhere.example", expires=datetime.now(UTC) - timedelta(seconds=1))
        )  # type: ignore[arg-type]
    new = Store(location)
    new.fence = take_lease(new.engine, run_id, "pbench resume").fence
    assert new.fence.owner != old.fence.owner
    with pytest.raises(LeaseLost, match=run_id):
        old.save_session(SessionRun(run_id=run_id, session_id="a1", position=1), [], {})
    new.save_session(SessionRun(run_id=run_id, session_id="a1", position=1), [], {})
    assert session_runs(new, run_id) == 1


def test_a_session_of_a_run_is_stored_once(location: str, tmp_path: Path) -> None:
    store, run_id = new_run(location, tmp_path)
    store.save_session(SessionRun(run_id=run_id, session_id="a1", position=1), [], {})
    with pytest.raises(IntegrityError):  # a second writer without the lease, or a retried save
        store.save_session(SessionRun(run_id=run_id, session_id="a1", position=1), [], {})
    assert session_runs(store, run_id) == 1


def cli(*args: str) -> Any:
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    return result


VOLATILE = {"run_id", "sweep_id", "session_run_id", "created", "started", "finished", "id"}
"""Export fields that differ between two stores holding the same results: ids and timestamps."""


def without_ids(value: Any, ids: dict[str, str]) -> Any:
    """An export record with ids and timestamps taken out and run ids (inside text too) replaced by their order."""
    if isinstance(value, dict):
        return {key: without_ids(item, ids) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [without_ids(item, ids) for item in value]
    if isinstance(value, str):
        for run_id, position in ids.items():
            value = value.replace(run_id, position)
    return value


FIGURE_NOISE = [
    (re.compile(r"\b[0-9a-f]{12}\b"), "ID"),  # run and sweep ids
    (re.compile(r"#session-\d+"), "#session-N"),  # session run ids
    (re.compile(r"(id=\"|#)[mp][0-9a-f]{8,}"), r"\1M"),  # matplotlib's random marker and clip-path ids
    (re.compile(r"<dc:date>[^<]*</dc:date>"), ""),
    (re.compile(r'<p class="meta">results .*?</p>'), ""),  # the database's name and the generation time
]


def comparable_report(html: str) -> str:
    """A report's index (tables and figures) without ids, timestamps, the database's name and matplotlib's random ids."""
    for pattern, replacement in FIGURE_NOISE:
        html = pattern.sub(replacement, html)
    return html


def sweep_everywhere(location: str, tmp_path: Path, *executor: str) -> dict[str, Any]:
    """The same sweep of scripted agents, then every reading command, on one store."""
    models = "scripted:reference,scripted:asker,scripted:passive"
    settings = ("--models", models, "--runs", "2", "--ablation", "none,no-dependency-history", *executor)
    out = json.loads(cli("sweep", "--json", "--data", str(MINI), *settings, "--db", location).stdout)
    runs = sorted(out["runs"], key=lambda r: (r["model"], r["ablation"]))  # the repeats of a scripted agent are alike
    sweep_id = runs[0]["sweep_id"]
    ids = {r["run_id"]: f"run{n}" for n, r in enumerate(runs)}
    exports = [
        json.loads(line) for r in runs for line in cli("export", r["run_id"], "--db", location, "--format", "jsonl").stdout.splitlines()
    ]
    results = json.loads(cli("results", sweep_id, "--db", location, "--format", "json").stdout)
    listed = json.loads(cli("runs", "--db", location, "--json", "--limit", "100").stdout)
    sweeps = json.loads(cli("sweeps", "--db", location, "--json").stdout)
    audit = tmp_path / f"audit-{len(location)}.csv"
    cli("audit", "export", sweep_id, "--db", location, "--out", str(audit))
    with audit.open() as handle:
        audit_rows = [row for row in csv.DictReader(handle)]
    report = tmp_path / f"report-{len(location)}"
    cli("report", sweep_id, "--db", location, "--out", str(report))
    return {
        "summary": {key: out[key] for key in ("main", "overall", "ablation", "statuses", "turns", "categories", "pass_rate")},
        "exports": without_ids(exports, ids),
        "results": without_ids(results, ids),
        "listed": sorted((r["model"], r["ablation"], r["status"], r["sessions_done"], r["proc"], r["comp"]) for r in listed),
        "sweeps": len(sweeps),
        "audit": sorted(json.dumps(row, sort_keys=True) for row in without_ids(audit_rows, ids)),  # listed in the order sessions were saved
        "report": comparable_report((report / "index.html").read_text()),
        "report_pages": len(list((report / "runs").iterdir())),
    }


def sweep_on_sqlite(factory: pytest.TempPathFactory) -> dict[str, Any]:
    """:func:`sweep_everywhere` on a SQLite file in one process, what a sweep on another backend or executor must
    equal: played once per test run (this module and the Ray executor's tests compare against it)."""
    return once_per_run(factory, "sweep-everywhere-sqlite", lambda folder: sweep_everywhere(str(folder / "r.db"), folder))


def test_the_same_sweep_on_sqlite_and_postgresql_gives_the_same_labels_grades_figures_and_export(
    tmp_path: Path, postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    on_sqlite = sweep_on_sqlite(tmp_path_factory)
    on_postgres = sweep_everywhere(
        postgres_url, tmp_path, "--workers", "2", "--concurrency", "4"
    )  # forked workers, each its own connections
    for key in on_sqlite:
        assert on_postgres[key] == on_sqlite[key], key
    graded = [g for record in on_sqlite["exports"] for g in record["grades"]]
    assert (
        len(on_sqlite["exports"]) == 6 * 3 + 6 * 1 and graded  # the ablated runs play only the final, a2
    )  # the ablation arm plays the dependent sessions only and {i["status"] for r in on_sqlite["exports"] for i in r["intents"]} > {"completed"}


def test_each_writing_command_works_on_postgresql(postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # workspaces of a server database go to ./pbench-runs
    monkeypatch.setenv("PBENCH_DB", postgres_url)
    ran = json.loads(cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker").stdout)
    run_id = ran["run_id"]
    assert Path("pbench-runs").is_dir() and Store(postgres_url).run(run_id).status == "finished"  # type: ignore[union-attr]
    replayed = json.loads(cli("replay", run_id, "--json").stdout)
    assert replayed["run_id"] != run_id and [s["proc"] for s in replayed["sessions"]] == [s["proc"] for s in ran["sessions"]]
    cli("rescore", run_id)
    audit = tmp_path / "audit.csv"
    cli("audit", "export", run_id, "--out", str(audit))
    with audit.open() as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["audited"] = row["judged"] if row["kind"] == "intent" else "yes"
    with audit.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    cli("audit", "import", str(audit), "--source", "human:ana")
    cli("audit", "import", str(audit), "--source", "human:ana")  # replaces its verdicts, no duplicates
    assert "human:ana" in cli("audit", "show", run_id).output
    created, waiting = new_run(postgres_url, tmp_path)
    resumed = json.loads(cli("resume", waiting, "--json").stdout)
    assert resumed["proc"] is not None and created.run(waiting).status == "finished"  # type: ignore[union-attr]
    assert session_runs(created, waiting) == 3


def test_rows_written_before_compression_read_as_written_after_the_upgrade(location: str) -> None:
    engine = make_engine(locate(location))
    migrate(engine, location, to="0002")  # the tables as pbench wrote them before compressed results
    now = datetime.now(UTC)
    call, snapshot = {"path": "notes/ä.md", "n": 1}, {"apps": {"calendar": [{"title": "x\\y"}]}}
    with engine.begin() as db:
        db.execute(
            text(
                "insert into run (id, created, persona, model, user_backend, data_root, workspace, status) values ('r1', :t, 'p', 'm', 'rules', 'd', 'w', 'finished')"
            ),
            {"t": now},
        )
        db.execute(
            text(
                "insert into sessionrun (id, run_id, session_id, position, intents, status, turns, started) values (7, 'r1', 's1', 1, 0, 'completed', 1, :t)"
            ),
            {"t": now},
        )
        db.execute(
            text("insert into toolcall (session_run_id, turn, seq, tool_name, call, result, ok) values (7, 1, 0, 'read', :c, :r, true)"),
            {"c": json.dumps(call), "r": json.dumps({"ok": True})},
        )
        db.execute(text("insert into snapshot (session_run_id, kind, content) values (7, 'apps', :s)"), {"s": json.dumps(snapshot)})
        db.execute(
            text("insert into modelcall_cache (namespace, key, occurrence, generations) values ('r1/s1', 'k', 0, :g)"),
            {"g": '[{"text": "plain"}]'},
        )
    engine.dispose()
    store = Store(location)
    assert revision_of(store.engine) == head_revision()
    (row,) = store.rows(ToolCallRow, 7)
    assert (row.call, row.result) == (call, {"ok": True})
    assert store.snapshot(7, "apps") == snapshot
    assert store.answers.generations("r1/s1", "k", 0) == '[{"text": "plain"}]'
    store.answers.add("r1/s2", "k", 0, "x" * 500)  # written compressed now, next to the old rows
    assert store.answers.generations("r1/s2", "k", 0) == "x" * 500


def test_a_read_only_store_reads_what_a_writer_commits_and_writes_nothing(location: str, tmp_path: Path) -> None:
    """What ``pbench view`` opens: SQLite ``mode=ro`` or PostgreSQL read-only transactions, beside a writer."""
    writer, run_id = new_run(location, tmp_path)
    reader = Store(location, read_only=True)
    assert reader.run(run_id) is not None and reader.read_only
    writer.update(writer.run(run_id), status="stopped")  # type: ignore[arg-type]  # the run exists: new_run made it
    assert reader.run(run_id).status == "stopped"  # type: ignore[union-attr]  # a new transaction sees the commit
    with pytest.raises(DBAPIError, match="read-only|readonly"):
        reader.update(reader.run(run_id), status="finished")  # type: ignore[arg-type]
    assert writer.run(run_id).status == "stopped"  # type: ignore[union-attr]


def test_a_read_only_store_does_not_migrate(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    migrate(make_engine(locate(db)), str(db), to="0007")
    with pytest.raises(
        StoreSchemaError,
        match=f"schema revision 0007, this pbench reads {head_revision()} only when opening read-only; `pbench db upgrade`",
    ):
        Store(db, read_only=True)
    assert revision_of(make_engine(locate(db))) == "0007"
