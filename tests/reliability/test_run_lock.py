"""Run and sweep ownership with real processes: kill -9 of a sweep's parent, concurrent resumes, stale and live leases."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, func, select

from proactive_bench.dataset.loading import load_episode
from proactive_bench.episode.launch import RunSpec, execute_run, start_run
from proactive_bench.store import (
    Grade,
    IntentEvent,
    Lease,
    LeaseHeld,
    LeaseLost,
    LLMCall,
    MessageRow,
    SessionRun,
    Snapshot,
    Store,
    ToolCallRow,
    pid_alive,
    take_lease,
    writing,
)
from proactive_bench.store.lease import boot_id, process_started, stale_reason
from proactive_bench.testing.stub_server import StubServer
from tests.episode.test_resume_replay import _finished_sessions
from tests.helpers.admitted import admit_unchanged
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.once import once_per_run
from tests.helpers.paths import DATA, MINI
from tests.helpers.stub_models import FakeUserModel

SWEEP = ["sweep", "--personas", "pharmacist", "--models", "scripted:passive,scripted:reference", "--workers", "2", "--json"]
"""Two runs of the 20-session pharmacist episode, one per worker: about 5 s, long enough to kill mid-way. The tests
that run it find the episode admitted (``admitted_pharmacist``): their subject is the processes, not the data's checks."""
ROW_TABLES = (SessionRun, MessageRow, ToolCallRow, IntentEvent, Grade, Snapshot, LLMCall)


def sweep_outcome(db: Path) -> dict[tuple[str, str, int], list[tuple[Any, ...]]]:
    """Per run (model, ablation, repeat): every saved session's status, turns, intent decisions and grades, in order."""
    store = Store(db)
    out = {}
    with Session(store.engine) as s:
        for run in s.exec(select(SessionRun.run_id).distinct()).all():
            stored = store.run(run)
            assert stored is not None
            key = (stored.model, stored.config.get("ablation", "none"), stored.config.get("repeat", 0))
            out[key] = [
                (
                    sr.session_id,
                    sr.status,
                    sr.turns,
                    [(e.intent_id, e.status, e.turn) for e in store.rows(IntentEvent, sr.id)],
                    [(g.item_id, g.score) for g in store.rows(Grade, sr.id)],
                )
                for sr in store.session_runs(run)
            ]
    return out


def table_counts(db: Path) -> dict[str, int]:
    store = Store(db)
    with Session(store.engine) as s:
        return {t.__name__: s.exec(select(func.count()).select_from(t)).one() for t in ROW_TABLES}


def duplicate_sessions(db: Path) -> int:
    """Session rows beyond one per (run, session)."""
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("select count(*) - count(distinct run_id || '/' || session_id) from sessionrun").fetchone()[0])


def only_sweep(db: Path) -> str:
    with closing(sqlite3.connect(db)) as conn:
        (sweep_id,) = conn.execute("select id from sweep").fetchone()
    return str(sweep_id)


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def started(command: list[str], db: Path, sessions: int) -> subprocess.Popen[bytes]:
    """A pbench command on ``db`` (stderr to :func:`stderr_of`), once it has saved ``sessions`` sessions or ended."""
    db.parent.mkdir(parents=True, exist_ok=True)
    with stderr_of(db).open("wb") as stderr:
        proc = subprocess.Popen([*PBENCH, *command, "--db", str(db)], stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _finished_sessions(db) < sessions and proc.poll() is None:
        time.sleep(0.02)
    return proc


def stderr_of(db: Path) -> Path:
    return db.parent / "pbench.stderr"


def kill_after(command: list[str], db: Path, sessions: int, delay: float = 0.0) -> list[int]:
    """Run a pbench command on ``db``; SIGKILL it ``delay`` s after ``sessions`` sessions are saved. The workers it had."""
    proc = started(command, db, sessions)
    time.sleep(delay)
    workers = children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return workers


def kill_mid_sweep(db: Path, after_sessions: int) -> list[int]:
    workers = kill_after(SWEEP, db, after_sessions)
    assert 0 < _finished_sessions(db) < 40, "the sweep was not killed mid-way"
    return workers


def pbench(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*PBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[Any, Any], dict[str, int]]:
    """:data:`SWEEP` never interrupted: its outcome and row counts, played once per test run (test_interrupts.py compares against it too)."""

    def play(folder: Path) -> tuple[dict[Any, Any], dict[str, int]]:
        db = folder / "r.db"
        admit_unchanged(folder, DATA, ["pharmacist"], tmp_path_factory)
        subprocess.run([*PBENCH, *SWEEP, "--db", str(db)], capture_output=True, text=True, check=True)
        return sweep_outcome(db), table_counts(db)

    return once_per_run(tmp_path_factory, "pharmacist-sweep", play)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.usefixtures("admitted_pharmacist")
def test_kill_9_of_a_sweep_parent_stops_its_workers_and_an_immediate_resume_gives_identical_results(
    tmp_path: Path, uninterrupted: tuple[dict[Any, Any], dict[str, int]]
) -> None:
    db = tmp_path / "r.db"
    workers = kill_mid_sweep(db, after_sessions=6)
    assert len(workers) == 2
    resumed = pbench("resume", only_sweep(db), "--db", str(db), "--json")  # at once: no waiting for the lease to expire
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and any(pid_alive(w) for w in workers):
        time.sleep(0.02)
    assert not any(pid_alive(w) for w in workers), "sweep workers outlived their parent by more than a second"
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert "Traceback" not in err and "lease_taken_over" in err
    assert duplicate_sessions(db) == 0
    assert (sweep_outcome(db), table_counts(db)) == uninterrupted
    assert all(run["status"] == "finished" for run in json.loads(out)["runs"])


@pytest.mark.usefixtures("admitted_pharmacist")
def test_two_resumes_of_one_sweep_at_once_run_each_session_once(
    tmp_path: Path, uninterrupted: tuple[dict[Any, Any], dict[str, int]]
) -> None:
    db = tmp_path / "r.db"
    kill_mid_sweep(db, after_sessions=4)
    sweep_id = only_sweep(db)
    both = [pbench("resume", sweep_id, "--db", str(db), "--json") for _ in range(2)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in both]  # type: ignore[union-attr]
    for code, err in results:
        assert "Traceback" not in err and "FileNotFoundError" not in err, err
        assert code == 0 or (code == 3 and f"{sweep_id} is being written by pid" in err), err
    assert 0 in [code for code, _ in results]
    assert duplicate_sessions(db) == 0
    assert (sweep_outcome(db), table_counts(db)) == uninterrupted


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.usefixtures("admitted_pharmacist")
def test_ctrl_c_of_a_sweep_stops_its_workers_and_releases_the_lease(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    proc = started(SWEEP, db, sessions=4)
    workers = children(proc.pid)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode != 0 and workers and not any(pid_alive(w) for w in workers)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("select count(*) from lease").fetchone()[0] == 0


@pytest.mark.usefixtures("admitted_pharmacist")
def test_workers_whose_lease_was_taken_over_save_nothing_more_and_the_sweep_ends_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    proc = started(SWEEP, db, sessions=4)
    with closing(sqlite3.connect(db, timeout=30)) as conn, conn:  # another writer takes the sweep over
        conn.execute("update lease set owner = 'the-new-owner'")
        saved = conn.execute("select count(*) from sessionrun").fetchone()[0]
    proc.wait(timeout=120)
    err = stderr_of(db).read_text()
    assert proc.returncode == 1 and "exited abnormally" in err and "Traceback" not in err, err
    assert saved < 40 and table_counts(db)["SessionRun"] == saved


def interrupted_run(tmp_path: Path) -> tuple[Path, str]:
    """A mini run created but never started (as after a kill -9 before its first save)."""
    db = tmp_path / "r.db"
    run = start_run(
        Store(db), load_episode(MINI, "mini"), RunSpec(persona="mini", model="scripted:reference", data_root=str(MINI)), tmp_path
    )
    return db, run.id


def plant_lease(
    db: Path,
    scope: str,
    *,
    pid: int,
    host: str,
    expires_in: float,
    command: str = "pbench episode --persona mini",
    boot: str | None = None,
    started: int | None = None,
) -> None:
    now = datetime.now(UTC)
    store = Store(db)
    store.add(
        Lease(
            scope=scope,
            owner="f" * 32,
            pid=pid,
            host=host,
            boot_id=boot,
            started=started,
            command=command,
            taken=now - timedelta(minutes=5),
            heartbeat=now,
            expires=now + timedelta(seconds=expires_in),
        )
    )


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize(
    ("holder", "reason"),
    [("dead pid on this host", "holder process is gone"), ("expired heartbeat on another host", "heartbeat expired")],
)
def test_a_stale_lease_is_taken_over_with_a_log_line(tmp_path: Path, holder: str, reason: str) -> None:
    db, run_id = interrupted_run(tmp_path)
    if holder.startswith("dead"):
        plant_lease(db, run_id, pid=dead_pid(), host=socket.gethostname(), expires_in=600)
    else:
        plant_lease(db, run_id, pid=os.getpid(), host="elsewhere.example", expires_in=-1)
    resumed = run_cli("resume", run_id, "--db", str(db), "--json")  # in this process: the holder is another (or no) process
    assert resumed.exit_code == 0, resumed.output
    assert "lease_taken_over" in resumed.stderr and reason in resumed.stderr
    assert json.loads(resumed.stdout)["proc"] is not None
    assert Store(db).run(run_id).status == "finished"  # type: ignore[union-attr]
    assert table_counts(db)["SessionRun"] == 3
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("select count(*) from lease").fetchone()[0] == 0, "released at exit"


def test_a_live_lease_is_refused_naming_its_holder_and_the_run_is_untouched(tmp_path: Path) -> None:
    db, run_id = interrupted_run(tmp_path)
    plant_lease(db, run_id, pid=os.getpid(), host=socket.gethostname(), expires_in=600, command="pbench sweep --models x")
    before = (table_counts(db), Store(db).run(run_id))
    resumed = subprocess.run([*PBENCH, "resume", run_id, "--db", str(db)], capture_output=True, text=True)
    assert resumed.returncode == 3
    message = " ".join(resumed.stderr.split())
    assert f"{run_id} is being written by pid {os.getpid()} on {socket.gethostname()} since" in message
    assert "pbench sweep --models x" in message and "Traceback" not in message
    assert (table_counts(db), Store(db).run(run_id)) == before
    assert not Path(Store(db).run(run_id).workspace).exists()  # type: ignore[union-attr]


def test_a_run_of_a_sweep_shares_the_sweep_lease(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    done = run_cli("sweep", "--data", str(MINI), "--models", "scripted:reference", "--db", str(db))
    assert done.exit_code == 0, done.output
    sweep_id = only_sweep(db)
    with closing(sqlite3.connect(db)) as conn, conn:
        (run_id,) = conn.execute("select id from run").fetchone()
        conn.execute("update run set status = 'interrupted'")  # a finished run is not resumed at all
    with writing(Store(db), sweep_id):  # this process resumes the sweep
        other = subprocess.run([*PBENCH, "resume", run_id, "--db", str(db)], capture_output=True, text=True)
    assert other.returncode == 3 and f"{sweep_id} is being written by pid {os.getpid()}" in " ".join(other.stderr.split())


def test_a_save_after_the_lease_was_taken_over_writes_nothing(tmp_path: Path) -> None:
    db, run_id = interrupted_run(tmp_path)
    store = Store(db)
    lease = take_lease(store.engine, run_id, "pbench episode")
    store.fence = lease.fence
    with closing(sqlite3.connect(db)) as conn, conn:  # another writer took it over
        conn.execute("update lease set owner = 'someone-else' where scope = ?", (run_id,))
    with pytest.raises(LeaseLost, match=run_id):
        store.save_session(SessionRun(run_id=run_id, session_id="a1", position=1), [], {})
    assert table_counts(db)["SessionRun"] == 0
    store.fence = None
    store.save_session(SessionRun(run_id=run_id, session_id="a1", position=1), [], {})  # unfenced writers are not checked
    assert table_counts(db)["SessionRun"] == 1


def test_answers_recorded_under_a_lease_taken_over_are_not_written_and_the_others_are(tmp_path: Path) -> None:
    db, run_id = interrupted_run(tmp_path)
    store = Store(db)
    lost, kept = take_lease(store.engine, run_id), take_lease(store.engine, "other-run")
    with closing(sqlite3.connect(db)) as conn, conn:  # another writer took the run over
        conn.execute("update lease set owner = 'someone-else' where scope = ?", (run_id,))
    store.answers.add(f"{run_id}/a1", "k", 0, "lost answer", fence=lost.fence)  # outside an event loop: written at once
    store.answers.add("other-run/a1", "k", 0, "kept answer", fence=(kept.fence,))
    store.answers.add("odyssey-summaries/t1", "k", 0, "shared answer")  # a cache shared by runs: under no lease
    with closing(sqlite3.connect(db)) as conn:
        written = sorted(row[0] for row in conn.execute("select namespace from modelcall_cache"))
    assert written == ["odyssey-summaries/t1", "other-run/a1"]
    assert store.answers.take() == [], "dropped, not kept waiting for a later flush"


def test_a_final_status_after_the_lease_was_taken_over_is_not_written(tmp_path: Path) -> None:
    db, run_id = interrupted_run(tmp_path)
    store = Store(db)
    store.fence = take_lease(store.engine, run_id, "pbench episode").fence
    run = store.run(run_id)
    assert run is not None
    store.update(run, status="running")  # held: written
    with closing(sqlite3.connect(db)) as conn, conn:  # the new holder takes over and marks the run its own way
        conn.execute("update lease set owner = 'someone-else' where scope = ?", (run_id,))
        conn.execute("update run set status = 'interrupted' where id = ?", (run_id,))
    with pytest.raises(LeaseLost, match=run_id):
        store.update(run, status="finished")
    assert Store(db).run(run_id).status == "interrupted" and run.status == "running"  # type: ignore[union-attr]


def test_a_run_that_loses_its_lease_mid_session_writes_neither_answers_nor_status(tmp_path: Path) -> None:
    """The whole path: the LLM user's first model call is answered after another process took the run over; the run
    stops at its fenced save, and its recorded answers and its status are not written over the new holder's."""
    db = tmp_path / "r.db"
    store = Store(db)
    fake = FakeUserModel()
    taken: list[bool] = []

    def take_over_then_answer(body: dict[str, Any]) -> Any:
        if not taken:
            with closing(sqlite3.connect(db, timeout=30)) as conn, conn:
                conn.execute("update lease set owner = 'someone-else'")
                conn.execute("update run set status = 'interrupted'")
            taken.append(True)
        return fake(body)

    with StubServer(take_over_then_answer) as server:
        spec = RunSpec(
            persona="mini",
            model="scripted:reference",
            data_root=str(MINI),
            sessions=["a1"],
            user="llm",
            user_model="openai:stub-user",
            judge_model="openai:stub-judge",
            base_url=server.base_url,
            probe=False,
        )
        run = start_run(store, load_episode(MINI, "mini"), spec, tmp_path)
        with pytest.raises(LeaseLost), writing(store, run.id, beat=False):  # no heartbeat thread left to later tests
            asyncio.run(execute_run(store, run, load_episode(MINI, "mini")))
    assert taken and len(server.requests) > 0
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("select count(*) from modelcall_cache").fetchone()[0] == 0
        assert conn.execute("select count(*) from sessionrun").fetchone()[0] == 0
        assert conn.execute("select status from run").fetchone()[0] == "interrupted"


def test_a_live_holder_whose_heartbeat_stalled_is_not_taken_over(tmp_path: Path) -> None:
    """Same host, same boot, its process alive: the stale heartbeat does not matter (pbench resume is refused)."""
    db, run_id = interrupted_run(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        plant_lease(
            db, run_id, pid=holder.pid, host=socket.gethostname(), expires_in=-60, boot=boot_id(), started=process_started(holder.pid)
        )
        with pytest.raises(LeaseHeld, match=f"pid {holder.pid}"):
            take_lease(Store(db).engine, run_id)
    finally:
        holder.kill()
        holder.wait()
    taken = take_lease(Store(db).engine, run_id)  # its process gone: taken over at once
    assert _lease_row(db)[0] == taken.fence.owner  # type: ignore[index]


@pytest.mark.parametrize(
    ("case", "reason"),
    [("pid reused after a restart", "heartbeat expired"), ("pid reused by a later process", "holder process is gone")],
)
def test_a_pid_reused_by_another_process_does_not_keep_a_lease(tmp_path: Path, case: str, reason: str) -> None:
    """This test's own (live) pid stands for the reused one: after a restart (another boot id) the heartbeat decides;
    on this boot a start time other than the holder's means the holder is gone, whatever the heartbeat says."""
    db, run_id = interrupted_run(tmp_path)
    mine = process_started(os.getpid())
    assert mine is not None and boot_id() is not None
    if case.endswith("restart"):
        plant_lease(db, run_id, pid=os.getpid(), host=socket.gethostname(), expires_in=-1, boot="an-earlier-boot", started=mine)
    else:
        plant_lease(db, run_id, pid=os.getpid(), host=socket.gethostname(), expires_in=600, boot=boot_id(), started=mine - 1)
    with Store(db).engine.connect() as conn:
        lease = conn.execute(select(Lease).where(Lease.scope == run_id)).mappings().first()
    assert stale_reason(lease, datetime.now(UTC)) == reason
    take_lease(Store(db).engine, run_id)


def test_the_heartbeat_renews_the_lease_and_release_deletes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import proactive_bench.store.lease as lease_module

    monkeypatch.setattr(lease_module, "HEARTBEAT_S", 0.05)
    db, run_id = interrupted_run(tmp_path)
    store = Store(db)
    with writing(store, run_id) as held:
        first = _lease_row(db)
        time.sleep(0.3)
        later = _lease_row(db)
        assert store.fence == held.fence and later[1] > first[1]
    assert store.fence is None and _lease_row(db) is None


def test_one_heartbeat_renews_every_lease_of_a_process_and_drops_one_taken_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import proactive_bench.store.lease as lease_module

    monkeypatch.setattr(lease_module, "HEARTBEAT_S", 0.05)
    db, _ = interrupted_run(tmp_path)
    store = Store(db)
    held = [take_lease(store.engine, f"scope-{n}") for n in range(3)]
    threads_before = _lease_threads()  # another test's heartbeat may still be ending in this process: compared by identity
    for lease in held:
        lease.keep_alive()
    first = dict(_lease_rows(db))
    with closing(sqlite3.connect(db)) as conn, conn:  # another writer takes scope-1 over
        conn.execute("update lease set owner = 'other', heartbeat = '2000-01-01 00:00:00' where scope = 'scope-1'")
    time.sleep(0.4)
    later = dict(_lease_rows(db))
    assert later["scope-0"] > first["scope-0"] and later["scope-2"] > first["scope-2"]
    assert later["scope-1"].startswith("2000"), "a lease taken over is not renewed for its former owner"
    assert len(_lease_threads() - threads_before) == 1, "one heartbeat thread serves the process's three leases"
    beating = lease_module._heartbeats[id(store.engine)]
    assert set(beating.leases) == {held[0].fence, held[2].fence}
    for lease in held:
        lease.release()
    assert dict(_lease_rows(db)) == {"scope-1": later["scope-1"]}, "release deletes only leases still its own"
    deadline = time.monotonic() + 10
    while id(store.engine) in lease_module._heartbeats and time.monotonic() < deadline:
        time.sleep(0.05)
    assert id(store.engine) not in lease_module._heartbeats, "with no lease left the heartbeat ends"


def _lease_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "pbench-lease"}


def _lease_rows(db: Path) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("select scope, heartbeat from lease").fetchall()


def _lease_row(db: Path) -> tuple[str, str] | None:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("select owner, heartbeat from lease").fetchone()


WATCHED_CHILD = """
import multiprocessing, os, sys, time
import proactive_bench.campaign.workers as sw
sw.PR_SET_PDEATHSIG = 0  # prctl(0): no parent-death signal, so only the portable watch remains
def child(ready):
    sw.die_with_parent()
    open(ready, "w").close()
    time.sleep(60)
if __name__ == "__main__":
    p = multiprocessing.get_context(sys.argv[1]).Process(target=child, args=(sys.argv[2],))
    p.start()
    print(p.pid, flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_without_the_parent_death_signal_a_worker_still_exits_within_a_second(tmp_path: Path, method: str) -> None:
    script = tmp_path / "parent.py"
    script.write_text(WATCHED_CHILD)
    ready = tmp_path / "watching"
    parent = subprocess.Popen([sys.executable, str(script), method, str(ready)], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())  # type: ignore[union-attr]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not ready.exists():
        time.sleep(0.02)
    assert pid_alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and pid_alive(child):
        time.sleep(0.02)
    try:
        assert not pid_alive(child), "the worker outlived its parent by more than a second"
    finally:
        if pid_alive(child):
            os.kill(child, signal.SIGKILL)
