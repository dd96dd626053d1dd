"""SIGKILL of a sweep's driver, or of one of its workers, mid-flight, on SQLite and on PostgreSQL: resume completes, no row twice.

The sweep (scripted agents, the LLM user on a stub server that answers after a
small delay, ``--workers 2``) runs as a real ``pbench`` process; it is killed
at seeded random points while model calls are in flight, then ``pbench resume``
finishes it from another working directory (as from another machine: the
workspaces left by the killed driver are not there). Every table is then read
whole and each row reduced to its natural key (run ids and session row ids
replaced by what they stand for): no key may occur twice, and the multiset of
keys, the exported sessions and the sweep's figures equal those of an
uninterrupted sweep on SQLite.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, inspect, select, text
from sqlmodel import SQLModel

from proactive_bench.store import Store, locate
from proactive_bench.testing.stub_server import StubServer, unremarkable_exchange
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import MINI
from tests.reliability.test_run_lock import children
from tests.store.test_store_backends import without_ids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

DELAY_S = 0.06
"""Each model answer's delay: a session of the mini episode makes about five user calls, so a kill lands mid-call."""
SESSIONS = 12
LAST_KILL_POINT = SESSIONS - 5
"""Kill at most this many saved sessions in: with five left over four runs, one run still has a whole
session to go (five delayed calls, longer than the wait before the kill), so the kill cannot come after the end."""
SEED = 25


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    with StubServer(unremarkable_exchange, delay=DELAY_S) as server:
        yield server.base_url


def sweep_command(base_url: str) -> list[str]:
    return [
        "sweep",
        "--data",
        str(MINI),
        "--models",
        "scripted:reference,scripted:asker",
        "--runs",
        "2",
        "--user",
        "llm",
        "--user-model",
        "openai:user",
        "--base-url",
        base_url,
        "--workers",
        "2",
        "--concurrency",
        "4",
        "--json",
    ]


def saved_sessions(location: str, engine: Engine | None = None) -> int:
    """Sessions the sweep has saved so far, read without creating or migrating anything (``engine``: one open on
    ``location`` to read with, as a poll many times a second does; else one made for this read)."""
    where = locate(location)
    if where.file is not None and not where.file.is_file():
        return 0
    reader = engine or create_engine(where.url)
    try:
        with reader.connect() as db:
            if "sessionrun" not in inspect(db).get_table_names():
                return 0
            return int(db.execute(text("select count(*) from sessionrun where status = 'completed'")).scalar_one())
    except Exception:  # mid-creation: not readable yet
        return 0
    finally:
        if engine is None:
            reader.dispose()


def started(base_url: str, location: str, cwd: Path) -> subprocess.Popen[str]:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [*PBENCH, *sweep_command(base_url), "--db", location], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for(proc: subprocess.Popen[str], location: str, sessions: int) -> None:
    deadline, engine = time.monotonic() + 60, create_engine(locate(location).url)  # one engine (and connection) for every poll
    try:
        while time.monotonic() < deadline and saved_sessions(location, engine) < sessions and proc.poll() is None:
            time.sleep(0.02)
    finally:
        engine.dispose()
    assert proc.poll() is None, f"the sweep ended before {sessions} sessions were saved"


def only_sweep(location: str) -> str:
    (sweep,) = [row["id"] for row in table_rows(location)["sweep"]]
    return str(sweep)


def resume(location: str, sweep_id: str, cwd: Path) -> dict[str, Any]:
    cwd.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([*PBENCH, "resume", sweep_id, "--db", location, "--json"], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def table_rows(location: str) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table of the results database."""
    store = Store(location)
    try:
        with store.engine.connect() as db:
            return {
                table.name: [dict(row._mapping) for row in db.execute(select(table))]
                for table in SQLModel.metadata.sorted_tables
                if table.name in inspect(db).get_table_names()
            }
    finally:
        store.close_connections()


def natural_keys(location: str) -> dict[str, Counter[tuple[Any, ...]]]:
    """Per table, how often each natural key occurs; run ids become (model, repeat), session row ids (run, session id)."""
    rows = table_rows(location)
    runs = {r["id"]: (r["model"], r["persona"], r["config"].get("ablation", "none"), r["config"].get("repeat", 0)) for r in rows["run"]}
    sessions = {s["id"]: (runs[s["run_id"]], s["session_id"]) for s in rows["sessionrun"]}

    def namespace(value: str) -> str:
        for run_id, run in runs.items():
            value = value.replace(run_id, "/".join(map(str, run)))
        return value

    keys: dict[str, Callable[[dict[str, Any]], tuple[Any, ...]]] = {
        "run": lambda r: runs[r["id"]],
        "sweep": lambda r: (r["status"],),
        "sessionrun": lambda r: sessions[r["id"]],
        "message": lambda r: (sessions[r["session_run_id"]], r["turn"], r["role"], r["content"]),
        "toolcall": lambda r: (sessions[r["session_run_id"]], r["turn"], r["seq"]),
        "intentevent": lambda r: (sessions[r["session_run_id"]], r["intent_id"], r["stage"], r["turn"], r["status"]),
        "grade": lambda r: (sessions[r["session_run_id"]], r["item_id"]),
        "llmcall": lambda r: (
            runs[r["run_id"]],
            sessions.get(r["session_run_id"]),
            r["role"],
            r["purpose"],
            r["prompt_hash"],
            r["attempt"],
        ),
        "agenterror": lambda r: (sessions[r["session_run_id"]], r["turn"], r["type"]),
        "personlabel": lambda r: (sessions[r["session_run_id"]], r["turn"], r["intent_id"]),
        "audit": lambda r: (sessions[r["session_run_id"]], r["kind"], r["item_id"], r["source"]),
        "snapshot": lambda r: (sessions[r["session_run_id"]], r["kind"]),
        "workspacearchive": lambda r: (r["sha256"],),
        "checkpoint": lambda r: (runs[r["run_id"]], r["position"]),
        "modelcall_cache": lambda r: (namespace(r["namespace"]), r["key"], r["occurrence"]),
        "lease": lambda r: (r["scope"],),
        "probe": lambda r: (r["base_url"], r["model"], r["created"], r["report"]),  # two workers' probes may end in the same microsecond
    }
    unknown = set(rows) - set(keys) - {"alembic_version"}
    assert not unknown, f"say what identifies a row of {unknown}"
    return {name: Counter(keys[name](row) for row in table) for name, table in rows.items() if name != "alembic_version"}


REPEATABLE = ("llmcall", "message")
"""Tables whose key may recur within a session (the same prompt asked twice, the same line said twice): compared by multiplicity with the uninterrupted sweep."""


def assert_no_duplicates(keys: dict[str, Counter[tuple[Any, ...]]]) -> None:
    twice = {name: [key for key, n in counted.items() if n > 1] for name, counted in keys.items() if name not in REPEATABLE}
    assert not any(twice.values()), {name: found[:3] for name, found in twice.items() if found}


def results_of(location: str, sweep_id: str) -> dict[str, Any]:
    """The sweep's figures (``pbench results``) and exported sessions (``pbench export``), ids and timestamps taken out."""

    def cli(*args: str) -> str:
        done = run_cli(*args, "--db", location)
        assert done.exit_code == 0, done.output
        return str(done.stdout)

    runs = {r["id"]: (r["model"], r["config"].get("repeat", 0)) for r in table_rows(location)["run"]}
    order = {run_id: "{}/{}".format(*run) for run_id, run in runs.items()}
    exports = sorted((json.loads(line) for line in cli("export", sweep_id).splitlines()), key=lambda e: (runs[e["run_id"]], e["position"]))
    return {"figures": without_ids(json.loads(cli("results", sweep_id, "--format", "json")), order), "exports": without_ids(exports, order)}


def assert_same_results(got: dict[str, Any], expected: dict[str, Any]) -> None:
    """Figure by figure, then session by session, so that a failure names what differs.

    The cost table's count of calls answered from recorded answers (``cached``,
    and so ``unpriced_calls``) is the one figure a resume changes, truthfully:
    the killed sessions' answers are replayed, not asked again.
    """
    for key in expected["figures"]:
        if key == "cost":

            def calls(rows: Any) -> Any:
                return [{k: v for k, v in row.items() if k not in ("cached", "unpriced_calls")} for row in rows]

            assert calls(got["figures"][key]) == calls(expected["figures"][key])
        else:
            assert got["figures"][key] == expected["figures"][key], key
    assert len(got["exports"]) == len(expected["exports"])
    for session, wanted in zip(got["exports"], expected["exports"], strict=True):
        assert session == wanted


@pytest.fixture(scope="module")
def uninterrupted(stub: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Counter[tuple[Any, ...]]]]:
    """The same sweep on SQLite, never killed: its results and the natural keys of its rows."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    location = str(folder / "r.db")
    proc = started(stub, location, folder)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    keys = natural_keys(location)
    assert sum(keys["sessionrun"].values()) == SESSIONS and keys["llmcall"]
    return results_of(location, only_sweep(location)), keys


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "results" / "r.db") if request.param == "sqlite" else str(request.getfixturevalue("postgres_url"))


def comparable(keys: dict[str, Counter[tuple[Any, ...]]]) -> dict[str, Counter[tuple[Any, ...]]]:
    """Natural keys that an interrupted sweep must share with an uninterrupted one.

    Left out: recorded answers and probes (a killed session's answers stay recorded
    for its rerun), workspace archives (content-addressed, kept once), and the
    model-call records' attempt numbers and cache flags are not part of their key.
    """
    return {name: counted for name, counted in keys.items() if name not in ("modelcall_cache", "probe", "workspacearchive")}


def test_driver_killed_at_random_points_then_resumed_elsewhere_gives_the_uninterrupted_results(
    location: str, stub: str, tmp_path: Path, uninterrupted: tuple[dict[str, Any], dict[str, Counter[tuple[Any, ...]]]]
) -> None:
    expected_results, expected_keys = uninterrupted
    backend = "sqlite" if location.endswith(".db") else "postgresql"
    rng = random.Random(f"{SEED}-{backend}")
    proc = started(stub, location, tmp_path / "driver")
    kills = 2 if backend == "sqlite" else 1  # on SQLite the resume is killed too (kept to one kill on PostgreSQL for time)
    for kill in range(kills):
        wait_for(proc, location, rng.randint(1 + 3 * kill, LAST_KILL_POINT - 3 + 3 * kill))
        time.sleep(rng.uniform(0.0, 2 * DELAY_S))
        workers = children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert len(workers) <= 2
        assert saved_sessions(location) < SESSIONS, "the kill came after the sweep had finished"
        assert_no_duplicates(natural_keys(location))
        if kill < kills - 1:
            proc = subprocess.Popen(
                [*PBENCH, "resume", only_sweep(location), "--db", location],
                cwd=tmp_path / "driver",
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
    sweep_id = only_sweep(location)
    resumed = resume(location, sweep_id, tmp_path / "elsewhere")
    assert all(run["status"] == "finished" for run in resumed["runs"])
    keys = natural_keys(location)
    assert_no_duplicates(keys)
    assert comparable(keys) == comparable(expected_keys)
    assert_same_results(results_of(location, sweep_id), expected_results)


def test_a_worker_killed_mid_sweep_is_reported_with_the_resume_hint_and_resume_completes(
    location: str, stub: str, tmp_path: Path, uninterrupted: tuple[dict[str, Any], dict[str, Counter[tuple[Any, ...]]]]
) -> None:
    expected_results, expected_keys = uninterrupted
    proc = started(stub, location, tmp_path / "driver")
    wait_for(proc, location, random.Random(SEED).randint(2, 5))
    workers = children(proc.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    sweep_id = only_sweep(location)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert f"exited abnormally; continue with: pbench resume {sweep_id}" in " ".join(err.split())
    assert_no_duplicates(natural_keys(location))
    assert saved_sessions(location) < SESSIONS

    resume(location, sweep_id, tmp_path / "elsewhere")
    keys = natural_keys(location)
    assert_no_duplicates(keys)
    assert comparable(keys) == comparable(expected_keys)
    assert_same_results(results_of(location, sweep_id), expected_results)
