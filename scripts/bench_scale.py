"""Throughput and store load of one sweep workload on each executor and store: local + SQLite, local + PostgreSQL, Ray + PostgreSQL.

The workload: the react agent and the LLM user on the mini dataset
(tests/data/mini, three sessions per episode), every model call answered by
a stub OpenAI-compatible server after a fixed delay (default 0.3 s), run as
``pbench sweep --runs N --concurrency N`` so that N episodes are in flight at
once (N = 64 and 256 by default). Configurations:

- ``local-sqlite``: the local executor (``--workers W``), a SQLite file;
- ``local-postgres``: the same on a local PostgreSQL server (``LocalPostgres``, fsync on);
- ``ray1-postgres``: ``--executor ray`` on a Ray cluster of one raylet (W CPUs);
- ``ray2-postgres``: the same on two raylets of this machine (W/2 CPUs each, ``ray.cluster_utils.Cluster``).

Printed per configuration and N, every figure from the sweep's own database:
sims (episodes) per hour and sessions per hour over the sweep's session span
(first session started to last finished); efficiency: the ideal span over the
measured one, the ideal being the model-waiting time of one episode run alone
first (all N at once would ideally take as long as one); lost or duplicate sessions; store load: rows and bytes written per
session (SQLite: the file and its WAL; PostgreSQL: WAL bytes and table bytes),
write statements per second with their mean and p95 server-side latency (with
``--statement-log``: from the server's log of every statement, which costs it
CPU, so throughput runs go without; the log's statements per session by first
word too: BEGIN, COMMIT, ROLLBACK, INSERT, ...), and the peak of open connections; CPU per session
of pbench's processes, Ray's daemons, the database server and the rest of the
machine over the session span, and the machine's over the whole command (from
/proc); model load:
requests and prompt characters per session. The load average is printed with each line.

The bench runs with bytecode, as after a ``pip install`` (which compiles every
module): pbench and the venv's packages are byte-compiled first and the
children run without ``PYTHONDONTWRITEBYTECODE``. Where that variable is set
and the packages were installed without bytecode (uv's default), every process
compiles what it imports from source, and compiling that lands in the session
span (a Ray runner still starting while the other runs sessions, a module
imported on first use) counts as CPU per session.

    python scripts/bench_scale.py [--delay 0.3] [--episodes 64,256] [--configs local-sqlite,local-postgres,ray1-postgres,ray2-postgres]
                                  [--workers 2] [--rounds 1] [--timeout 900] [--cpu-poll 0.5] [--statement-log]
                                  [--pg-settings synchronous_commit=off,...] [--json FILE]

Ray configurations need ``pip install 'ray[default]>=2.40,<3'`` and a pbench with ``--executor ray``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench_sweep import busy_time
from sqlalchemy import create_engine, inspect, text

from proactive_bench.postgres_server import LocalPostgres, missing
from proactive_bench.testing.stub_server import StubServer, prompt_text, unremarkable_exchange

MINI = Path(__file__).resolve().parent.parent / "tests" / "data" / "mini"
PBENCH = [sys.executable, "-c", "from proactive_bench.cli import app; app()"]
SESSIONS_PER_EPISODE = 3
"""The mini episode's sessions: a sim is an episode, so sims/h is sessions/h over three."""
CONFIGS = ("local-sqlite", "local-postgres", "ray1-postgres", "ray2-postgres")
SERVER_SETTINGS = ("max_connections=600", "shared_buffers=128MB")
STATEMENT_LOG = ("log_min_duration_statement=0", "log_connections=on", "log_line_prefix='%m [%p] %d '")
"""With --statement-log the server logs every statement with its duration (the write latencies are read from that log):
a line per statement, written by the server on the same cores, so throughput is measured without it by default."""
DURATION = re.compile(r"^\S+ \S+ \S+ \[\d+\] (\S+) LOG:  duration: ([\d.]+) ms  (?:statement|execute [^:]*): (\w+)")
WRITES = {"INSERT", "UPDATE", "DELETE", "COMMIT"}
ROUNDS_RUN: Counter[str] = Counter()
"""Sweeps run per configuration and size so far (each sweep writes a database of its own)."""
TABLE_BYTES = "select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'"
"""PostgreSQL: the bytes of pbench's tables with their indexes and TOAST."""


class CountingResponder:
    """The bench_sweep workload's answers (agent: "Done."; user: nothing noticed, asks for more), counting requests and prompt characters."""

    def __init__(self, requests: Any, characters: Any) -> None:
        self.requests, self.characters = requests, characters

    def __call__(self, body: dict[str, Any]) -> Any:
        with self.requests.get_lock():
            self.requests.value += 1
            self.characters.value += len(prompt_text(body))
        return unremarkable_exchange(body)


def _serve(delay: float, requests: Any, characters: Any, urls: Any) -> None:
    with StubServer(CountingResponder(requests, characters), delay=delay) as server:
        urls.put(server.base_url)
        threading.Event().wait()


@contextmanager
def stub_process(delay: float) -> Iterator[tuple[str, Any, Any]]:
    """The stub server in its own process (no GIL shared with the bench); its URL and its request and character counters."""
    context = multiprocessing.get_context("fork")
    requests, characters, urls = context.Value("q", 0), context.Value("q", 0), context.Queue()
    process = context.Process(target=_serve, args=(delay, requests, characters, urls), daemon=True)
    process.start()
    try:
        yield str(urls.get(timeout=60)), requests, characters
    finally:
        process.terminate()
        process.join()


@dataclass
class Figures:
    config: str
    episodes: int
    sessions: int
    lost_or_duplicate: int
    command_s: float
    span_s: float
    ideal_s: float
    sims_per_hour: float
    sessions_per_hour: float
    efficiency: float
    rows_per_session: float
    bytes_per_session: float
    wal_bytes_per_session: float | None
    writes_per_s: float | None
    write_mean_ms: float | None
    write_p95_ms: float | None
    statements_per_session: dict[str, float]
    """With --statement-log: statements the server logged per session (the whole command's, the sweep's end included), by first word."""
    peak_connections: int | None
    cpu_ms_per_session: dict[str, float]
    """CPU per session of each group of processes over the session span (:data:`PROCESS_GROUPS`: pbench's driver, workers
    and Ray runners; Ray's daemons; the PostgreSQL server; this bench with its stub server; anything else on the machine)."""
    busy_ms_per_session: float | None
    """The machine's busy CPU (all cores) over the session span, per session: the groups' sum, give or take the polling
    (None with --cpu-poll 0: no poll inside the span)."""
    command_busy_ms_per_session: float
    """The same over the whole command: start-up (imports, joining a cluster, starting runners) and shutting down included."""
    requests_per_session: float
    prompt_chars_per_session: float
    load_before: float
    load_after: float
    timed_out: bool
    """Stopped at --timeout: the figures are those of the sessions finished by then (lost/dup counts duplicates only)."""


def scalar(url: str, query: str) -> Any:
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            return db.execute(text(query)).scalar()
    finally:
        engine.dispose()


def seconds(moment: datetime | str) -> float:
    """A stored time as a POSIX time (SQLite hands raw queries its text)."""
    return (datetime.fromisoformat(moment) if isinstance(moment, str) else moment).timestamp()


def session_figures(url: str) -> dict[str, Any]:
    """What the sweep stored: sessions, their span, each run's model-waiting time, rows of every table."""
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            sessions = db.execute(text("select run_id, session_id, status, started, finished from sessionrun")).all()
            calls = db.execute(text("select run_id, created, latency_ms from llmcall")).all()
            rows = sum(
                int(db.execute(text(f'select count(*) from "{table}"')).scalar_one())
                for table in inspect(db).get_table_names()
                if table != "alembic_version"
            )
    finally:
        engine.dispose()
    per_run: dict[str, list[tuple[float, float]]] = {}
    for run_id, created, latency_ms in calls:
        end = seconds(created)
        per_run.setdefault(run_id, []).append((end - latency_ms / 1000, end))
    completed = [s for s in sessions if s.status == "completed"]
    distinct = {(s.run_id, s.session_id) for s in completed}
    return {
        "sessions": len(completed),
        "duplicates": len(completed) - len(distinct),
        "first_started": min(seconds(s.started) for s in completed),
        "last_finished": max(seconds(s.finished) for s in completed),
        "waiting": statistics.mean(busy_time(intervals) for intervals in per_run.values()),
        "rows": rows,
    }


class PeakConnections:
    """Polls pg_stat_activity while a sweep runs: the most client backends open at once."""

    def __init__(self, server_url: str) -> None:
        self.url, self.peak, self.stop = server_url + "/postgres", 0, threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        engine = create_engine(self.url, isolation_level="AUTOCOMMIT")  # each read a new snapshot of the activity view
        with engine.connect() as db:
            while not self.stop.wait(0.25):
                count = db.execute(
                    text("select count(*) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()")
                ).scalar_one()
                self.peak = max(self.peak, int(count))
        engine.dispose()

    def __enter__(self) -> PeakConnections:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


PROCESS_GROUPS = (
    ("bench and stub server", ("bench_scale.py",)),
    ("pbench", ("proactive_bench", "multiprocessing.spawn", "ray::episoderunner", "ray::clusterlimits")),
    (
        "ray daemons",
        ("raylet", "gcs_server", "dashboard", "runtime_env", "runtimeenv", "log_monitor", "monitor.py", "ray::idle", "default_worker.py"),
    ),
    ("postgres", ("postgres",)),
)
"""Where a process's CPU is counted, by what its command line contains (lower case; the first match wins); the rest is "other"."""
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def process_group(cmdline: str) -> str:
    cmdline = cmdline.lower()
    return next((group for group, marks in PROCESS_GROUPS if any(mark in cmdline for mark in marks)), "other")


def process_cpu() -> dict[int, tuple[str | None, float]]:
    """Every process's group (None: no command line, as for an exiting process or a kernel thread) and CPU seconds so
    far (user + system), from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        found[int(entry.name)] = (process_group(cmdline) if cmdline.strip() else None, (int(fields[11]) + int(fields[12])) / TICKS_PER_S)
    return found


def machine_busy_s() -> float:
    """CPU seconds the machine has spent not idle, over all its cores (/proc/stat)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_S


class CpuByGroup:
    """Polls /proc while a sweep runs (every ``every_s``; 0: at its start and end only): each group's CPU seconds so far
    and the machine's busy seconds, over time.

    A process that ends between two polls loses its CPU since the last one; one born
    during the sweep counts from zero; a process keeps the group of its last
    non-empty command line (an exiting one shows none).
    """

    def __init__(self, every_s: float) -> None:
        self.every_s = every_s
        self.first: dict[int, float] = {}
        self.last: dict[int, tuple[str, float]] = {}
        self.timeline: list[tuple[float, float, Counter[str]]] = []
        """(wall time, machine busy seconds, per group CPU seconds) at each poll, all counted from the start."""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _sample(self, born: float | None) -> None:
        """Record every process's CPU (one not seen before starts from ``born``; None: from what it has now) and the totals."""
        now, busy = time.time(), machine_busy_s()
        for pid, (group, cpu) in process_cpu().items():
            self.first.setdefault(pid, cpu if born is None else born)
            self.last[pid] = (group or self.last.get(pid, ("other", 0.0))[0], cpu)
        spent: Counter[str] = Counter()
        for pid, (group, cpu) in self.last.items():
            spent[group] += cpu - self.first[pid]
        self.timeline.append((now, busy, spent))

    def _poll(self) -> None:
        while self.every_s > 0 and not self.stop.wait(self.every_s):
            self._sample(born=0.0)

    def __enter__(self) -> CpuByGroup:
        self._sample(born=None)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self._sample(born=0.0)

    def between(self, start: float | None = None, end: float | None = None) -> tuple[float, dict[str, float]]:
        """The machine's busy seconds and each group's CPU seconds from ``start`` to ``end`` (POSIX times, each read
        between the two polls around it, linearly; None: the first and the last poll)."""
        (busy_from, spent_from), (busy_to, spent_to) = self._at(start, 0), self._at(end, -1)
        return busy_to - busy_from, {group: spent_to[group] - spent_from.get(group, 0.0) for group in sorted(spent_to)}

    def _at(self, moment: float | None, default: int) -> tuple[float, dict[str, float]]:
        """The busy seconds and group totals at ``moment``, interpolated between the polls around it."""
        if moment is None:
            _, busy, spent = self.timeline[default]
            return busy, dict(spent)
        after = next((i for i, sample in enumerate(self.timeline) if sample[0] >= moment), len(self.timeline) - 1)
        (t0, busy0, spent0), (t1, busy1, spent1) = self.timeline[max(0, after - 1)], self.timeline[after]
        share = min(1.0, max(0.0, (moment - t0) / (t1 - t0))) if t1 > t0 else 1.0
        return busy0 + share * (busy1 - busy0), {g: spent0[g] + share * (spent1[g] - spent0[g]) for g in spent1}


def logged_statements(log_file: Path, offset: int, database: str) -> list[tuple[str, float]]:
    """The statements of ``database`` logged after ``offset``: each one's first word (upper case) and server-side duration (ms)."""
    with log_file.open("rb") as handle:
        handle.seek(offset)
        lines = handle.read().decode(errors="replace").splitlines()
    return [(match[3].upper(), float(match[2])) for line in lines if (match := DURATION.match(line)) and match[1] == database]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


@contextmanager
def ray_cluster(raylets: int, cpus: int) -> Iterator[str]:
    """A local Ray cluster of ``raylets`` nodes (``cpus`` CPUs between them); its address for ``--ray-address``."""
    from ray.cluster_utils import Cluster  # an optional dependency: only the Ray configurations need it

    per_node = max(1, cpus // raylets)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": per_node, "include_dashboard": False})
    for _ in range(raylets - 1):
        cluster.add_node(num_cpus=per_node)
    cluster.wait_for_nodes()
    try:
        yield str(cluster.address)
    finally:
        cluster.shutdown()


def run_sweep(
    config: str,
    episodes: int,
    args: argparse.Namespace,
    stub: tuple[str, Any, Any],
    server: LocalPostgres | None,
    tmp: Path,
    ray_address: str | None,
    ideal: float,
) -> Figures:
    """One sweep of ``episodes`` concurrent episodes on one configuration; its figures."""
    base_url, requests, characters = stub
    name = f"b{config.replace('-', '_')}_{episodes}"
    ROUNDS_RUN[name] += 1
    if ROUNDS_RUN[name] > 1:  # a later round: a database of its own
        name += f"_r{ROUNDS_RUN[name]}"
    if server is None:
        db_file = tmp / f"{name}.db"
        url = f"sqlite:///{db_file}"
        subprocess.run([*PBENCH, "db", "upgrade", "--db", str(db_file)], check=False, capture_output=True)  # the schema, before the clock
        db_arg = str(db_file)
    else:
        url = server.create_database(name)
        subprocess.run([*PBENCH, "db", "upgrade", "--db", url], check=True, capture_output=True)
        scalar(url, "select pg_stat_reset_shared('wal')")
        db_arg = url
    size_before = sqlite_bytes(tmp / f"{name}.db") if server is None else int(scalar(url, TABLE_BYTES))
    log_offset = server.log_file.stat().st_size if server is not None else 0
    requests.value, characters.value = 0, 0
    command = [
        *PBENCH,
        "sweep",
        "--data",
        str(MINI),
        "--models",
        "openai:agent",
        "--runs",
        str(episodes),
        "--user",
        "llm",
        "--user-model",
        "openai:user",
        "--base-url",
        base_url,
        "--concurrency",
        str(episodes),
        "--workers",
        str(args.workers),
        "--no-validate",
        "--json",
        "--db",
        db_arg,
    ]
    if ray_address is not None:
        command += ["--executor", "ray", "--ray-address", ray_address]
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    watcher = PeakConnections(server.url("").rstrip("/")) if server is not None else nullcontext()
    with watcher, CpuByGroup(args.cpu_poll) as cpu:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, cwd=tmp)
            timed_out = False
        except subprocess.TimeoutExpired:  # the figures of the sessions done so far (the driver was killed)
            done, timed_out = subprocess.CompletedProcess(command, 0, "", ""), True
    command_s = time.perf_counter() - started
    load_after = os.getloadavg()[0]
    if done.returncode != 0:
        raise RuntimeError(f"{config} x {episodes}: pbench sweep exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    stored = session_figures(url)
    sessions = stored["sessions"]
    expected = episodes * SESSIONS_PER_EPISODE if not timed_out else sessions
    if server is None:
        written = sqlite_bytes(tmp / f"{name}.db") - size_before
        wal = None
        statements: list[tuple[str, float]] = []
    else:
        written = int(scalar(url, TABLE_BYTES)) - size_before
        wal = int(scalar(url, "select wal_bytes from pg_stat_wal"))
        statements = logged_statements(server.log_file, log_offset, name)
    latencies = [ms for word, ms in statements if word in WRITES]
    span = stored["last_finished"] - stored["first_started"]
    if span > command_s:  # stored times are the wall clock's, the command's time the monotonic clock's
        raise RuntimeError(
            f"{config} x {episodes}: the session span ({span:.2f} s by the stored times) is longer than the whole command"
            f" ({command_s:.2f} s): the wall clock jumped meanwhile (a VM paused, moved or had its clock stepped); not counted"
        )
    busy_in_span, spent_in_span = cpu.between(stored["first_started"], stored["last_finished"])
    return Figures(
        config=config,
        episodes=episodes,
        sessions=sessions,
        lost_or_duplicate=abs(expected - sessions) + stored["duplicates"],
        command_s=round(command_s, 2),
        span_s=round(span, 2),
        ideal_s=round(ideal, 2),
        sims_per_hour=round(sessions / SESSIONS_PER_EPISODE * 3600 / span),
        sessions_per_hour=round(sessions * 3600 / span),
        efficiency=round(ideal / span, 3),
        rows_per_session=round(stored["rows"] / sessions, 1),
        bytes_per_session=round(written / sessions),
        wal_bytes_per_session=round(wal / sessions) if wal is not None else None,
        writes_per_s=round(len(latencies) / span, 1) if latencies else None,
        write_mean_ms=round(statistics.mean(latencies), 3) if latencies else None,
        write_p95_ms=round(p95(latencies), 3) if latencies else None,
        statements_per_session={word: round(count / sessions, 2) for word, count in Counter(word for word, _ in statements).most_common()},
        peak_connections=watcher.peak if isinstance(watcher, PeakConnections) else None,
        cpu_ms_per_session={group: round(1000 * spent / sessions, 1) for group, spent in spent_in_span.items()}
        if args.cpu_poll > 0
        else {},
        busy_ms_per_session=round(1000 * busy_in_span / sessions, 1) if args.cpu_poll > 0 else None,
        command_busy_ms_per_session=round(1000 * cpu.between()[0] / sessions, 1),
        requests_per_session=round(requests.value / sessions, 2),
        prompt_chars_per_session=round(characters.value / sessions),
        load_before=round(load_before, 2),
        load_after=round(load_after, 2),
        timed_out=timed_out,
    )


def sqlite_bytes(db: Path) -> int:
    return sum(path.stat().st_size for path in (db, db.with_name(db.name + "-wal")) if path.exists())


def show(figures: Figures) -> None:
    f = figures
    store = f"{f.rows_per_session} rows/session, {f.bytes_per_session} B/session"
    if f.wal_bytes_per_session is not None:
        store += f" ({f.wal_bytes_per_session} B WAL), peak {f.peak_connections} connections"
    if f.writes_per_s is not None:
        store += f", {f.writes_per_s} writes/s mean {f.write_mean_ms} ms p95 {f.write_p95_ms} ms"
    if f.statements_per_session:
        logged = ", ".join(f"{word} {count}" for word, count in f.statements_per_session.items())
        store += f", {sum(f.statements_per_session.values()):.1f} statements logged/session ({logged})"
    print(
        f"{f.config:15} {f.episodes:4} episodes{' (TIMED OUT: sessions done by then)' if f.timed_out else ''}: {f.sims_per_hour:8} sims/h {f.sessions_per_hour:8} sessions/h, efficiency {f.efficiency:.2f}"
        f" (span {f.span_s} s, ideal {f.ideal_s} s, command {f.command_s} s), lost/dup {f.lost_or_duplicate}; {store};"
        f" CPU ms/session: {', '.join(f'{group} {ms}' for group, ms in f.cpu_ms_per_session.items()) or 'not polled'}"
        f" (machine busy {f.busy_ms_per_session if f.busy_ms_per_session is not None else 'not polled'}; over the whole command {f.command_busy_ms_per_session});"
        f" {f.requests_per_session} requests and {f.prompt_chars_per_session} prompt chars/session;"
        f" load {f.load_before}->{f.load_after}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.3, help="Seconds every model answer takes.")
    parser.add_argument("--episodes", default="64,256", help="Comma-separated numbers of concurrent episodes.")
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"Comma-separated, of: {', '.join(CONFIGS)}.")
    parser.add_argument("--workers", type=int, default=2, help="Worker processes of the local executor, and CPUs of the Ray cluster.")
    parser.add_argument("--timeout", type=float, default=900, help="Seconds one sweep may take before it counts as failed.")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="Run every configuration this many times over (in turn, so load drifts reach all alike); ratios use each one's median.",
    )
    parser.add_argument(
        "--cpu-poll", type=float, default=0.5, help="Seconds between reads of /proc for the CPU figures (0: only at start and end)."
    )
    parser.add_argument(
        "--statement-log",
        action="store_true",
        help="PostgreSQL logs every statement: write statements per second and their latencies (costs the server CPU).",
    )
    parser.add_argument(
        "--pg-settings", default="", help="Comma-separated PostgreSQL settings for the bench server, e.g. synchronous_commit=off."
    )
    parser.add_argument("--json", type=Path, help="Also write every line's figures to this JSON file.")
    args = parser.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    unknown = set(configs) - set(CONFIGS)
    if unknown:
        parser.error(f"unknown configuration(s): {', '.join(sorted(unknown))}")
    if any(c.endswith("postgres") for c in configs) and missing():
        parser.error(str(missing()))
    counts = [int(n) for n in args.episodes.split(",")]
    with_bytecode()
    print(f"delay {args.delay} s per model answer; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}", flush=True)
    results: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="pbench-scale-") as folder, stub_process(args.delay) as stub:
        os.chmod(folder, 0o755)  # as root the server runs as postgres, who must enter it
        tmp = Path(folder)
        settings = (*SERVER_SETTINGS, *(STATEMENT_LOG if args.statement_log else ()), *filter(None, args.pg_settings.split(",")))
        server = LocalPostgres(tmp / "pg", settings=settings) if any(c.endswith("postgres") for c in configs) else None
        if server is not None:
            server.start(database=None)
        try:
            try:
                alone = run_sweep("local-sqlite", 1, args, stub, None, tmp, None, 0.0)
            except RuntimeError as exc:  # no ideal span to measure the others against
                parser.exit(1, f"one episode alone: {exc}\n")
            ideal = session_figures(f"sqlite:///{tmp / 'blocal_sqlite_1.db'}")["waiting"]
            print(
                f"one episode alone: {ideal:.2f} s waiting on the model over {alone.sessions} sessions (the ideal span of any number at once)",
                flush=True,
            )
            for _ in range(args.rounds):
                for config in configs:
                    results += run_config(config, counts, args, stub, server, tmp, ideal)
        finally:
            if server is not None:
                server.stop()
    if args.json:
        args.json.write_text(json.dumps([asdict(f) for f in results], indent=2))
    medians = {
        (config, n): statistics.median(f.sims_per_hour for f in results if (f.config, f.episodes) == (config, n))
        for config, n in {(f.config, f.episodes) for f in results}
    }
    for (config, n), sims in sorted(medians.items()):
        for reference in ("local-sqlite", "local-postgres"):
            if config != reference and config != "local-sqlite" and (reference, n) in medians:
                print(
                    f"{config} / {reference} at {n} episodes: throughput {sims / medians[reference, n]:.2f} (medians of {args.rounds} round(s))",
                    flush=True,
                )


def with_bytecode() -> None:
    """Byte-compile pbench and this venv's packages (a second time costs ~2 s), and let every child (the sweeps, the Ray
    cluster's processes) read and write bytecode whatever the environment says."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    packages = sysconfig.get_paths()["purelib"], str(Path(__file__).resolve().parent.parent / "proactive_bench")
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *packages], check=True, stdout=subprocess.DEVNULL)


def run_config(
    config: str,
    counts: list[int],
    args: argparse.Namespace,
    stub: tuple[str, Any, Any],
    server: LocalPostgres | None,
    tmp: Path,
    ideal: float,
) -> list[Figures]:
    """One configuration at each number of episodes (a Ray configuration on its own local cluster); a failed sweep is printed and skipped."""
    raylets = {"ray1-postgres": 1, "ray2-postgres": 2}.get(config)
    results: list[Figures] = []
    with ray_cluster(raylets, args.workers) if raylets else nullcontext() as address:
        for episodes in counts:
            try:
                figures = run_sweep(config, episodes, args, stub, server if config != "local-sqlite" else None, tmp, address, ideal)
            except RuntimeError as exc:
                print(f"{config:15} {episodes:4} episodes: FAILED: {' '.join(str(exc).split())[:300]}", flush=True)
                continue
            results.append(figures)
            show(figures)
    return results


if __name__ == "__main__":
    main()
