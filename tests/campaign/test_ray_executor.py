"""The Ray executor on a real local Ray cluster, with results in a real PostgreSQL server and model calls to the stub server.

One cluster (two CPUs, no dashboard) serves the whole module: a sweep run in
this process uses it as its driver; a driver in a subprocess joins it by its
address. Workers inherit this process's environment, so the killable agent
(tests/helpers/killable_agent.py) finds its pid folder there.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, bindparam, create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from proactive_bench.campaign.ray_executor import (
    RUNNER_RESTARTS,
    ClusterLimits,  # the class the executor starts as its limits actor
    ask_ready,
    holds_limits,
    runner_count,
)
from proactive_bench.campaign.sweep import SweepConfig
from proactive_bench.data_model import FINAL_OUTCOMES
from proactive_bench.postgres_server import LocalPostgres
from proactive_bench.store import Store, locate
from proactive_bench.testing.stub_server import Reply, StubServer
from tests.helpers import killable_agent
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.otlp_receiver import Receiver, attributes, clean_env
from tests.helpers.paths import MINI, REPO
from tests.helpers.stub_models import FakeUserModel, agent_model
from tests.store.test_store_backends import sweep_everywhere, sweep_on_sqlite, without_ids

ray = pytest.importorskip("ray", reason="the Ray executor's tests need ray: pip install -e '.[dev,distributed]'")
pytestmark = pytest.mark.xdist_group("ray")  # one local Ray cluster at a time: the module's, or the one a sweep starts (otel)

LIMITS_MUST_NOT_LOAD = (
    "langchain",
    "langgraph",
    "openai",
    "sqlalchemy",
    "proactive_bench.episode",
    "proactive_bench.campaign.ray_executor",
)
SUMMARY_KEYS = ("main", "overall", "ablation", "statuses", "turns")
PACED = ("--models", f"{Path(killable_agent.__file__)}:Paced", "--runs", "4")
"""A sweep of 4 runs × 3 sessions, each session at least PACE_S long."""


@pytest.fixture(scope="module")
def pid_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pids")


@pytest.fixture(scope="module")
def cluster(pid_dir: Path) -> Iterator[str]:
    """A local Ray cluster for the module; its address (what ``--ray-address`` takes)."""
    os.environ[killable_agent.PID_DIR_ENV] = str(pid_dir)  # before the cluster starts: its workers inherit it
    try:
        context = ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()
        os.environ.pop(killable_agent.PID_DIR_ENV, None)


def sweep(*args: str) -> dict[str, Any]:
    result = run_cli("sweep", "--json", "--data", str(MINI), *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def saved_sessions(location: str) -> list[tuple[str, str, int | None, str]]:
    """Every stored session run of the database's (one) sweep as (run id, session id, row id, status): a duplicate would show twice."""
    store = Store(location)
    sweep_id = store.resolve("latest", runs=False).id
    return [(r.run_id, r.session_id, r.id, r.status) for run in store.runs(sweep_id) for r in store.session_runs(run.id)]


def session_rows(location: str) -> list[tuple[str, str]]:
    return [(run_id, session_id) for run_id, session_id, _, _ in saved_sessions(location)]


def test_a_sweep_on_ray_and_postgresql_equals_one_in_process_on_sqlite(
    cluster: str, tmp_path: Path, postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    local = sweep_on_sqlite(tmp_path_factory)
    on_ray = sweep_everywhere(postgres_url, tmp_path, "--executor", "ray", "--concurrency", "4")
    for key in local:
        assert on_ray[key] == local[key], key
    assert len(local["exports"]) == 6 * 3 + 6 * 1  # the ablated runs play only the final, a2


@ray.remote(num_cpus=0)
def workers_folder() -> str:
    return os.getcwd()


def noisy(call: Any) -> Any:
    """``call`` that first prints a note on stdout, as Ray's driver does from a thread whenever the cluster reports one
    (``(raylet) Task EpisodeRunner.ready failed. There are 3 retries remaining ...``)."""

    def printing(*args: Any, **kwargs: Any) -> Any:
        print("(raylet) a note from the cluster")
        return call(*args, **kwargs)

    return printing


def test_runners_load_the_shipped_dataset_not_the_drivers_path(
    cluster: str, tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """... and what Ray prints on stdout while the sweep starts its runners or ends them goes to stderr: stdout holds the
    --json output alone."""
    for name in ("cluster_resources", "kill"):  # start(), _settle()
        monkeypatch.setattr(ray, name, noisy(getattr(ray, name)))
    shutil.copytree(MINI, tmp_path / "mini")
    monkeypatch.chdir(tmp_path)  # the runs' data root is "mini": the driver finds it here, where its workers do not
    assert not (Path(ray.get(workers_folder.remote())) / "mini").exists()  # so a runner loading from the run's path would fail
    args = (
        "sweep",
        "--json",
        "--data",
        "mini",
        "--models",
        "scripted:reference,scripted:asker",
        "--ablation",
        "none,no-dependency-history",
    )
    local, on_ray = (
        run_cli(*args, "--db", db, *executor) for db, executor in ((str(tmp_path / "r.db"), ()), (postgres_url, ("--executor", "ray")))
    )
    assert local.exit_code == 0 and on_ray.exit_code == 0, on_ray.output
    local_out, ray_out = json.loads(local.stdout), json.loads(on_ray.stdout)
    assert "(raylet) a note from the cluster" in on_ray.stderr
    assert [r["status"] for r in ray_out["runs"]] == ["finished"] * 4
    assert {key: ray_out[key] for key in SUMMARY_KEYS} == {key: local_out[key] for key in SUMMARY_KEYS}
    stored = Store(postgres_url).runs(ray_out["runs"][0]["sweep_id"])
    assert {(run.data_root, run.config["data_root"]) for run in stored} == {(str(tmp_path / "mini"), "mini")}  # the driver's paths


def test_the_budget_holds_for_the_whole_cluster(cluster: str, tmp_path: Path, postgres_url: str) -> None:
    limit, session_cost = 0.17, 0.036  # a session: two calls of the LLM user at $1 per thousand tokens, 11 in and 7 out
    prices = tmp_path / "prices.yaml"
    prices.write_text('"openai:stub-user": {input: 1000.0, output: 1000.0}\n')
    with StubServer(FakeUserModel()) as server:
        llm_user = ("--user", "llm", "--user-model", "openai:stub-user", "--base-url", server.base_url, "--prices", str(prices))
        stopped = run_cli(
            "sweep",
            "--json",
            "--data",
            str(MINI),
            "--models",
            "scripted:reference",
            "--runs",
            "8",
            "--concurrency",
            "2",
            *llm_user,
            "--max-cost",
            str(limit),
            "--executor",
            "ray",
            "--db",
            postgres_url,
        )
        assert stopped.exit_code == 0, stopped.output
        out = json.loads(stopped.stdout)
        spent = sum(c["cost_usd"] for c in out["cost"])
        # Two runners, one session each at a time: the cluster stops starting sessions once the limit is spent, so past it
        # end the two sessions then running and at most one started on a total not yet counting the other runner's last
        # calls (ClusterBudget's lag); a budget per runner would let each runner spend the limit (over 2 x 0.17).
        assert limit <= spent <= limit + 3 * session_cost, spent
        assert "stopped" in {r["status"] for r in out["runs"]} and "budget" in stopped.output
        assert len(session_rows(postgres_url)) < 24
        resumed = run_cli("resume", out["runs"][0]["sweep_id"], "--db", postgres_url, "--max-cost", "1000", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert [r["status"] for r in json.loads(resumed.stdout)["runs"]] == ["finished"] * 8
    rows = session_rows(postgres_url)
    assert sorted(rows) == sorted(set(rows)) and len(rows) == 24


def test_a_worker_killed_mid_episode_is_retried_and_resumes_after_its_saved_session(cluster: str, pid_dir: Path, postgres_url: str) -> None:
    marker = pid_dir / f"{killable_agent.KILLED_IN}.pid"
    saved_before: list[tuple[str, str, int | None]] = []

    def kill_when_announced() -> None:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)  # the pid is written whole before the sleep starts
        saved_before.extend(row[:3] for row in saved_sessions(postgres_url))
        os.kill(int(marker.read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_when_announced)
    killer.start()
    agent = f"{Path(killable_agent.__file__)}:KilledOnce"
    out = sweep("--models", agent, "--executor", "ray", "--db", postgres_url)
    killer.join()
    assert [r["status"] for r in out["runs"]] == ["finished"]
    assert ("a1" in {s for _, s, _ in saved_before}) and all(s != killable_agent.KILLED_IN for _, s, _ in saved_before)
    after = {row[:3] for row in saved_sessions(postgres_url)}
    assert set(saved_before) <= after  # what was saved before the kill was kept, not played again
    rows = session_rows(postgres_url)
    assert sorted(rows) == sorted(set(rows)) and len(rows) == 3
    assert out["main"][0]["proc"]["mean"] == 1.0


def test_a_sweep_runs_on_the_runners_it_gets_when_another_holds_cluster_cpus(cluster: str, postgres_url: str) -> None:
    class CpuHolder:
        """Another sweep's runner, as the cluster sees it: one CPU taken for as long as it lives. A class of the test, not of
        the module: Ray ships it whole, where a class of the module would have its worker import the module (pytest,
        pbench, SQLAlchemy: a second of CPU)."""

        def ready(self) -> bool:
            return True

    holder = ray.remote(CpuHolder).options(num_cpus=1).remote()
    ray.get(holder.ready.remote())  # one of the cluster's two CPUs taken: the sweep's second runner waits for it
    released = threading.Event()

    def release_after_deadline() -> None:  # a driver waiting for every runner would wait for good: end its wait, and fail
        if not released.wait(120):
            ray.kill(holder)

    watchdog = threading.Thread(target=release_after_deadline)
    watchdog.start()
    try:
        out = sweep("--models", "scripted:reference", "--runs", "2", "--executor", "ray", "--db", postgres_url)
        assert ray.get(holder.ready.remote())  # still holding its CPU: the sweep ran on the one runner it got
    finally:
        released.set()
        watchdog.join()
        ray.kill(holder)
    assert [r["status"] for r in out["runs"]] == ["finished"] * 2
    rows = session_rows(postgres_url)
    assert sorted(rows) == sorted(set(rows)) and len(rows) == 6
    deadline = time.monotonic() + 30  # the runner that never got a CPU does not take the one freed: the tests after need both
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == 2


FINISHED = text("select count(*) from sessionrun where status in :final").bindparams(
    bindparam("final", [str(outcome) for outcome in FINAL_OUTCOMES], expanding=True)
)


def finished_sessions(database: Engine) -> int:
    """Saved session runs with a final outcome in a database of one sweep, by one statement on an open engine: polled many
    times a second, it costs the waiting test almost nothing (a Store opened per poll checks the schema and lists the runs)."""
    try:
        with database.connect() as connection:
            return int(connection.execute(FINISHED).scalar_one())
    except SQLAlchemyError:  # the driver has not created its tables yet
        return 0


def test_drivers_killed_or_stopped_at_random_points_leave_sweeps_that_resume_finishes(
    cluster: str, tmp_path: Path, local_postgres: LocalPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(killable_agent.PACE_ENV, "0")  # unpaced in this process (the reference, the local resume); the drivers
    # and the cluster's runners, whose environments were made before, are paced to be stopped midway
    reference = sweep(*PACED, "--db", str(tmp_path / "reference.db"))
    expected = json.loads(run_cli("results", "latest", "--db", str(tmp_path / "reference.db"), "--format", "json").stdout)
    total = sum(r["sessions_planned"] for r in reference["runs"])
    chance = random.Random(25)
    trials = [  # (its database, finished sessions before the signal, the signal, the executor resuming it)
        (local_postgres.create_database(f"kill{n}_{os.getpid()}"), chance.randrange(total // 2), signum, executor)
        for n, (signum, executor) in enumerate(((signal.SIGKILL, "ray"), (signal.SIGTERM, "local")))
    ]
    driver = [*PBENCH, "sweep", "--data", str(MINI), *PACED]
    paced = {key: value for key, value in os.environ.items() if key != killable_agent.PACE_ENV}
    logs = [tmp_path / f"driver{n}.log" for n in range(len(trials))]
    drivers = [  # at once: they share the cluster
        subprocess.Popen(
            [*driver, "--executor", "ray", "--ray-address", cluster, "--db", location],
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            env=paced,
        )
        for (location, *_), log in zip(trials, logs, strict=True)
    ]
    databases = [create_engine(locate(location).url) for location, *_ in trials]
    try:
        deadline, pending = time.monotonic() + 180, dict(enumerate(drivers))
        while pending and time.monotonic() < deadline:  # each driver stopped once its sweep has finished more than its point's sessions
            for n, process in list(pending.items()):
                _, kill_after, signum, _ = trials[n]
                assert process.poll() is None, "the driver ended before its kill point:\n" + logs[n].read_text()
                if finished_sessions(databases[n]) > kill_after:
                    process.send_signal(signum)
                    expected_code = -signal.SIGKILL if signum == signal.SIGKILL else 128 + signum
                    assert process.wait(timeout=60) == expected_code, logs[n].read_text()
                    del pending[n]
            time.sleep(0.05)
        assert not pending, "not at their kill points in time:\n" + "\n".join(logs[n].read_text() for n in pending)
        finished = [finished_sessions(database) for database in databases]
    finally:
        for process in drivers:  # one left running (the test failed) would hold the cluster's CPUs from the tests after it
            if process.poll() is None:
                process.kill()
                process.wait()
        for database in databases:
            database.dispose()
    stopped = Store(trials[1][0])
    assert {run.status for run in stopped.runs(stopped.resolve("latest", runs=False).id)} <= {
        "interrupted",
        "finished",
    }  # SIGTERM: a clean stop
    for (location, kill_after, _, executor), log, finished_then in zip(trials, logs, finished, strict=True):
        assert kill_after < finished_then < total
        resumed = run_cli("resume", "latest", "--db", location, "--json", "--executor", executor)
        assert resumed.exit_code == 0, resumed.output + log.read_text()
        out = json.loads(resumed.stdout)
        assert {key: out[key] for key in SUMMARY_KEYS} == {key: reference[key] for key in SUMMARY_KEYS}
        rows = session_rows(location)
        assert sorted(rows) == sorted(set(rows)) and len(rows) == total
        results = json.loads(run_cli("results", "latest", "--db", location, "--format", "json").stdout)
        assert without_ids(results, {}) == without_ids(expected, {})


def test_the_request_rate_holds_for_the_whole_cluster(cluster: str, postgres_url: str) -> None:
    rps = 8.0
    sent: list[float] = []

    def respond(body: dict[str, Any]) -> Reply:
        sent.append(time.monotonic())
        return agent_model(body)

    with StubServer(respond) as server:
        out = sweep(
            "--models",
            "openai:agent",
            "--runs",
            "6",
            "--concurrency",
            "6",
            "--rps",
            str(rps),
            "--base-url",
            server.base_url,
            "--executor",
            "ray",
            "--db",
            postgres_url,
        )
    assert [r["status"] for r in out["runs"]] == ["finished"] * 6
    assert len(sent) >= 30
    window = 2.0  # a bucket of one second's requests, then the rate: per-process limits would allow twice as many
    busiest = max(sum(1 for t in sent if start <= t < start + window) for start in sent)
    assert busiest <= rps * window + rps + 1, busiest
    # the limits actor's worker process imports its class's module, which loads none of the episode stack a runner loads
    actor_module = ClusterLimits.__module__
    shown = "import sys, importlib; importlib.import_module(sys.argv[1]); print(*sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", shown, actor_module], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert actor_module in loaded and not [m for m in loaded if m.startswith(LIMITS_MUST_NOT_LOAD)]


class SlowToAnswer:
    """A runner as the driver sees it while it starts: its ``ready`` takes a while (or, the first time, its process dies
    in ``ready``, as a runner's can). A class of the test: Ray ships it whole."""

    def __init__(self, folder: str, crash_once: bool = False) -> None:
        self.folder, self.crash_once = Path(folder), crash_once

    def ready(self) -> bool:
        (self.folder / "asked").write_text("")
        if self.crash_once and not (self.folder / "crashed").exists():
            (self.folder / "crashed").write_text("")
            os._exit(1)  # Ray starts the actor again (max_restarts)
        time.sleep(0 if self.crash_once else 3)
        return True


def runner_like(folder: Path, crash_once: bool = False) -> Any:
    """A :class:`SlowToAnswer` actor with a runner's restart and retry settings."""
    options = {"num_cpus": 0, "max_restarts": RUNNER_RESTARTS, "max_task_retries": RUNNER_RESTARTS}
    return ray.remote(SlowToAnswer).options(**options).remote(str(folder), crash_once)


def test_a_runner_ended_while_it_answers_ready_leaves_no_note_on_stdout(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep that ends before a runner is up kills it: a ``ready`` that Ray would retry then makes Ray's driver print
    "(raylet) Task ... failed. There are 3 retries remaining" on stdout from a thread, after the sweep, into --json output."""
    actor = runner_like(tmp_path)
    answer = ask_ready(actor)
    deadline = time.monotonic() + 60
    while not (tmp_path / "asked").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    ray.kill(actor, no_restart=True)
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(answer, timeout=60)
    time.sleep(2)  # the note, when there is one, comes through the cluster within a second
    assert "retries remaining" not in capsys.readouterr().out


def test_a_runner_that_died_answering_ready_answers_when_asked_again(cluster: str, tmp_path: Path) -> None:
    """What the driver's next ask relies on (``ready`` is asked without retries): Ray starts the runner again, and the
    next ``ready`` reaches it."""
    actor = runner_like(tmp_path, crash_once=True)
    try:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(ask_ready(actor), timeout=60)
        assert (tmp_path / "crashed").exists()
        assert ray.get(ask_ready(actor), timeout=60) is True
    finally:
        ray.kill(actor, no_restart=True)


def test_a_sweep_starts_a_runner_per_cpu_up_to_its_runs_and_concurrency_and_a_limits_actor_only_for_limits() -> None:
    # (runs, concurrency, the cluster's CPUs): runners
    cases = {(8, 4, 2.0): 2, (1, 4, 2.0): 1, (8, 1, 2.0): 1, (8, 16, 4.0): 4, (3, 2, 8.0): 2, (8, 4, 0.0): 1}
    assert {case: runner_count(*case) for case in cases} == cases
    plain = {"models": ["scripted:reference"]}
    assert not holds_limits(SweepConfig.model_validate(plain))
    assert holds_limits(SweepConfig.model_validate({**plain, "requests_per_second": 8.0}))
    assert holds_limits(SweepConfig.model_validate({**plain, "max_cost_usd": 0.17}))


def test_without_ray_the_ray_executor_is_one_line(tmp_path: Path) -> None:
    blocked = "import sys; sys.modules['ray'] = None; from proactive_bench.cli import app; app()"
    db = tmp_path / "r.db"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            blocked,
            "sweep",
            "--data",
            str(MINI),
            "--models",
            "scripted:reference",
            "--executor",
            "ray",
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == "error: --executor ray needs Ray, which is not installed here: pip install 'pbench[distributed]'"
    assert not db.exists()


def test_a_ray_sweep_with_otel_sends_one_trace_per_run_from_the_workers(tmp_path: Path, postgres_url: str) -> None:
    """A sweep that starts its own local cluster (a child process, not the module's cluster): Ray's workers inherit the OTLP
    variables and each sends the traces of the runs it played (docs/traces.md)."""
    with Receiver() as receiver:
        env = {**clean_env(), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "PYTHONPATH": str(REPO)}
        args = [
            "sweep",
            "--data",
            str(MINI),
            "--models",
            "scripted:asker",
            "--runs",
            "2",
            "--executor",
            "ray",
            "--db",
            postgres_url,
            "--json",
        ]
        done = subprocess.run([*PBENCH, *args], capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode in (0, 1), done.stderr
    runs = {run["run_id"] for run in json.loads(done.stdout)["runs"]}
    episodes = [s for s in receiver.spans if s.name.startswith("episode ")]
    assert len(episodes) == 2 and {attributes(s)["pbench.run.id"] for s in episodes} == runs
    assert sum(s.name.startswith("session ") for s in receiver.spans) == 6
