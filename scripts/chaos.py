"""Chaos trials: kill -9 at random moments and injected model-server faults, compared with clean baselines.

1. kill -9 trials, in turn: an episode killed and resumed; a ``sweep --workers 2``
   whose parent is killed and resumed at once; the same sweep killed and then
   resumed by two ``pbench resume`` started together; and an episode or sweep
   whose lease is taken over while it runs (its row made another host's, with
   an expired heartbeat, then ``pbench resume`` started): the first writer
   must stop without writing another row (fenced saves, answer flushes and
   status updates, on the writing thread) and the resume finish the work.
   With ``--ray``, also a Ray sweep (runners on a local cluster the driver
   starts) whose driver is killed, resumed on Ray.
   Each ends compared with an uninterrupted run of the same command (every
   session's status, turns, intent decisions and grades, and the row count of
   every table; a Ray sweep with the local executor's).
2. fault trials: sweeps of the react agent with the LLM user and the rubric
   judge (mini dataset) against a stub OpenAI-compatible server that answers a
   random share of requests with HTTP 500, HTTP 429 (``Retry-After: 0``), a
   200 whose body is not JSON, or a dropped connection, never twice in a row
   for the same request. Each run is compared with a fault-free run.

Printed per kind of trial: attempts, failures (a command that crashed, or a
run left unfinished), duplicate session rows, results differing from the
baseline, guessed decisions (an intent decision or rubric grade with no
successful model call behind it), tracebacks in stderr, clean refusals of a
second writer, workers still alive one second after their parent's kill, and
void trials (killed before the command saved its first row, so nothing to
resume: a machine too loaded to start it within the wait).
The script stops by itself: each command has a timeout and no trial starts
after ``--time-limit``.

    python scripts/chaos.py [--quick] [--ray] [--kill-trials 24] [--faults 300] [--fault-rate 0.2] [--seed 1] [--time-limit 1800]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from proactive_bench.store import pid_alive
from proactive_bench.testing.stub_server import (
    StubServer,
    error_reply,
    prompt_text,
    silent_user_judgment,
    structured_reply,
    text_reply,
    tool_call_reply,
)

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # the reliability tests' helpers drive and compare the runs

from tests.helpers.cli import PBENCH  # noqa: E402
from tests.helpers.paths import MINI  # noqa: E402
from tests.reliability.test_run_lock import (  # noqa: E402
    SWEEP,
    duplicate_sessions,
    kill_after,
    started,
    stderr_of,
    sweep_outcome,
    table_counts,
)

EPISODE = ["episode", "--persona", "pharmacist", "--model", "scripted:reference", "--sessions", "1-10", "--json"]
KILL_KINDS = ("episode", "sweep --workers 2", "two resumes at once", "lease taken over")
COMMAND_TIMEOUT_S = 300
RAY_KIND = "ray driver killed"
RAY_SWEEP = [*(arg for arg in SWEEP if arg not in ("--workers", "2")), "--executor", "ray"]
RAY_SHUTDOWN_S = 20.0
"""How long a killed Ray driver's local cluster may take to go (its reaper stops it once the driver is gone)."""
REFUSAL = "is being written by pid"
FAULT_KINDS = ("500", "429", "not JSON", "dropped")
JUDGE_RATE = 0.5
"""A run makes one judge call per rubric item (the mini dataset has one): it is faulted more often to reach every role."""
ROLES = {"chaos-agent": "agent", "chaos-user": "user", "chaos-judge": "judge"}
LLM_SWEEP = [
    "sweep",
    "--json",
    "--data",
    str(MINI),
    "--models",
    "openai:chaos-agent",
    "--user",
    "llm",
    "--user-model",
    "openai:chaos-user",
    "--judge-model",
    "openai:chaos-judge",
]


@dataclass
class Figures:
    """What one kind of trial counted."""

    attempts: int = 0
    failures: int = 0
    duplicates: int = 0
    differing: int = 0
    guessed: int = 0
    tracebacks: int = 0
    refusals: int = 0
    surviving_workers: int = 0
    void: int = 0
    notes: list[str] = field(default_factory=list)

    def fail(self, note: str) -> None:
        self.failures += 1
        self.notes.append(note)


@dataclass
class Finished:
    code: int
    stdout: str
    stderr: str


def pbench(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*PBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> Finished:
    try:
        out, err = proc.communicate(timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        err += "\n[chaos: timed out]"
    return Finished(proc.returncode, out, err)


def check_command(figures: Figures, done: Finished, what: str) -> None:
    """Count a finished pbench command: tracebacks, clean refusals, crashes."""
    if "Traceback" in done.stderr:
        figures.tracebacks += 1
        figures.notes.append(f"{what}: traceback: {done.stderr.strip().splitlines()[-1][:160]}")
    if done.code == 3 and REFUSAL in done.stderr:
        figures.refusals += 1
    elif done.code != 0:
        figures.fail(f"{what}: exit {done.code}: {(done.stderr.strip().splitlines() or [''])[-1][:160]}")


def compare(figures: Figures, db: Path, expected: tuple[Any, Any], what: str) -> None:
    figures.duplicates += duplicate_sessions(db)
    with closing(sqlite3.connect(db)) as conn:
        unfinished = conn.execute("select count(*) from run where status != 'finished'").fetchone()[0]
    if unfinished:
        figures.fail(f"{what}: {unfinished} run(s) left unfinished")
    if (sweep_outcome(db), table_counts(db)) != expected:
        figures.differing += 1
        figures.notes.append(f"{what}: results differ from the uninterrupted run")


def ids(db: Path, table: str) -> list[str]:
    with closing(sqlite3.connect(db)) as conn:
        return [row[0] for row in conn.execute(f"select id from {table}")]  # a table name of ours


def saved_ids(db: Path, table: str) -> list[str]:
    """:func:`ids`, or none when the database or its tables were not made yet."""
    try:
        return ids(db, table)
    except sqlite3.OperationalError:
        return []


def baseline(command: list[str], db: Path) -> tuple[Any, Any]:
    done = finish(pbench(*command, "--db", str(db)))
    if done.code != 0:
        raise SystemExit(f"chaos: the baseline {' '.join(command)} failed: {done.stderr[-500:]}")
    return sweep_outcome(db), table_counts(db)


def kill_trial(kind: str, n: int, root: Path, rng: random.Random, expected: dict[str, tuple[Any, Any]], figures: Figures) -> None:
    db = root / f"kill{n}" / "r.db"
    command = EPISODE if kind == "episode" else RAY_SWEEP if kind == RAY_KIND else SWEEP
    workers = kill_after(command, db, sessions=rng.randint(1, 8), delay=rng.uniform(0.0, 0.2))
    scopes = saved_ids(db, "run" if kind == "episode" else "sweep")
    if not scopes:  # killed before its first row (a machine too loaded to start it within `started`'s wait): nothing to resume
        figures.void += 1
        figures.notes.append(f"{kind} #{n}: killed before it saved its first row, not counted")
        return
    scope = scopes[0]
    on_ray = ("--executor", "ray") if kind == RAY_KIND else ()
    resumes = [pbench("resume", scope, "--db", str(db), "--json", *on_ray) for _ in range(2 if kind == "two resumes at once" else 1)]
    gone_by = time.monotonic() + (RAY_SHUTDOWN_S if kind == RAY_KIND else 1.0)
    while time.monotonic() < gone_by and (kind != RAY_KIND or any(pid_alive(w) for w in workers)):
        time.sleep(0.1)
    figures.surviving_workers += sum(pid_alive(w) for w in workers)
    for done in map(finish, resumes):
        check_command(figures, done, f"{kind} #{n}")
    compare(figures, db, expected["episode" if kind == "episode" else "sweep"], f"{kind} #{n}")


def takeover_trial(n: int, root: Path, rng: random.Random, expected: dict[str, tuple[Any, Any]], figures: Figures) -> None:
    """A running episode or sweep whose lease another host's writer takes over: the first stops (exit 3, or 1 for a sweep
    whose workers stopped) without a traceback, and ``pbench resume`` gives the uninterrupted results."""
    kind = "episode" if n % 2 else "sweep"
    db = root / f"takeover{n}" / "r.db"
    first = started(EPISODE if kind == "episode" else SWEEP, db, sessions=rng.randint(1, 6))
    with closing(sqlite3.connect(db, timeout=30)) as conn, conn:  # as if held on another host whose heartbeat stalled
        planted = conn.execute(
            "update lease set owner = 'chaos-takeover', host = 'elsewhere.example', expires = '2000-01-01 00:00:00'"
        ).rowcount
    scope = ids(db, "run")[0] if kind == "episode" else ids(db, "sweep")[0]
    resumed = finish(pbench("resume", scope, "--db", str(db), "--json"))
    try:
        first.wait(timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        first.kill()
        first.wait()
    err = stderr_of(db).read_text(errors="replace")
    if "Traceback" in err:
        figures.tracebacks += 1
        figures.notes.append(f"lease taken over #{n} ({kind}): traceback in the first writer")
    if planted and first.returncode not in (1, 3):
        figures.fail(f"lease taken over #{n} ({kind}): the first writer exited {first.returncode}")
    check_command(figures, resumed, f"lease taken over #{n} ({kind}): resume")
    compare(figures, db, expected[kind], f"lease taken over #{n} ({kind})")


class FaultPlan:
    """Which requests get a fault: a share ``rate`` of them (JUDGE_RATE of the judge's, which are few), never the
    retry of a request that just got one."""

    def __init__(self, rate: float, seed: int) -> None:
        self.rates = {"judge": max(rate, JUDGE_RATE)}
        self.rate = rate
        self.rng = random.Random(seed)
        self.just_faulted: set[str] = set()
        self.injected: Counter[tuple[str, str]] = Counter()

    def fault_for(self, body: dict[str, Any], raw: bytes) -> str | None:
        digest = hashlib.sha256(raw).hexdigest()
        if digest in self.just_faulted:
            self.just_faulted.discard(digest)
            return None
        role = ROLES.get(body.get("model", ""), "other")
        if self.rng.random() >= self.rates.get(role, self.rate):
            return None
        self.just_faulted.add(digest)
        fault = self.rng.choice(FAULT_KINDS)
        self.injected[(role, fault)] += 1
        return fault


class FaultyServer(StubServer):
    """The stub server with faults injected before the responder answers (a dropped connection included)."""

    plan: FaultPlan | None = None

    async def _answer(self, request: web.Request) -> web.Response:
        raw = await request.read()
        fault = self.plan.fault_for(json.loads(raw or b"{}"), raw) if self.plan else None
        if fault == "dropped":
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if fault == "500":
            return web.json_response(error_reply(500, "injected server error")[1], status=500)
        if fault == "429":
            return web.json_response(error_reply(429, "injected rate limit")[1], status=429, headers={"Retry-After": "0"})
        if fault == "not JSON":
            return web.Response(status=200, body=b'{"id": "chatcmpl-cut", "choices": [{"message": ', content_type="application/json")
        return await super()._answer(request)


def answer(body: dict[str, Any]) -> Any:
    """Deterministic agent (writes the summary, then answers), user (volunteers intents) and judge."""
    role = ROLES.get(body["model"])
    if role == "user":
        return silent_user_judgment(body) or text_reply("Please also take care of that.")
    if role == "judge":
        return structured_reply(body, {"rationale": "checked the file", "verdict": "YES" if "Batch summary" in prompt_text(body) else "NO"})
    if body["messages"][-1]["role"] == "tool":
        return text_reply("Done: the summary is in out/summary.md.")
    return tool_call_reply([("write_file", {"path": "out/summary.md", "content": "# Batch summary\nmean 4.65 mg/L\n"})])


def guessed_decisions(db: Path) -> int:
    """Intent decisions of the LLM user and rubric grades with a score, with no successful model call of their kind in their session."""
    with closing(sqlite3.connect(db)) as conn:
        intents = conn.execute(
            "select count(*) from intentevent e where e.decided_by like 'llm:%' and not exists (select 1 from llmcall c "
            "where c.session_run_id = e.session_run_id and c.role = 'user' and c.ok and c.prompt_hash = e.prompt_hash)"
        ).fetchone()[0]
        grades = conn.execute(
            "select count(*) from grade g where g.score is not null and g.grader = 'rubric' and not exists (select 1 from llmcall c "
            "where c.session_run_id = g.session_run_id and c.role = 'judge' and c.ok and c.purpose = 'rubric:' || g.item_id)"
        ).fetchone()[0]
    return int(intents + grades)


def fault_trials(root: Path, args: argparse.Namespace, deadline: float, figures: Figures) -> Counter[tuple[str, str]]:
    plan = FaultPlan(args.fault_rate, args.seed)
    errors: Counter[str] = Counter()
    with FaultyServer(answer) as server:
        clean = finish(pbench(*LLM_SWEEP, "--base-url", server.base_url, "--db", str(root / "faults-base.db")))
        if clean.code != 0:
            raise SystemExit(f"chaos: the fault-free LLM sweep failed: {clean.stderr[-500:]}")
        (expected,) = sweep_outcome(root / "faults-base.db").values()
        server.plan = plan
        trial = 0
        while sum(plan.injected.values()) < args.faults and time.monotonic() < deadline:
            trial += 1
            db = root / f"faults{trial}.db"
            done = finish(
                pbench(
                    *LLM_SWEEP,
                    "--runs",
                    str(args.fault_runs),
                    "--concurrency",
                    str(args.fault_runs),
                    "--base-url",
                    server.base_url,
                    "--db",
                    str(db),
                )
            )
            figures.attempts += args.fault_runs
            check_command(figures, done, f"fault sweep #{trial}")
            figures.duplicates += duplicate_sessions(db)
            figures.guessed += guessed_decisions(db)
            outcomes = sweep_outcome(db)
            figures.differing += sum(sessions != expected for sessions in outcomes.values())
            errors.update(session_errors(db))
            with closing(sqlite3.connect(db)) as conn:
                unfinished = conn.execute("select count(*) from run where status != 'finished'").fetchone()[0]
            if unfinished:
                figures.fail(f"fault sweep #{trial}: {unfinished} run(s) left unfinished")
    figures.notes += [f"{count} session(s) errored: {error}" for error, count in errors.most_common()]
    return plan.injected


def session_errors(db: Path) -> list[str]:
    """Errors of errored sessions, shortened and without the server's port, to group them."""
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("select error from sessionrun where status = 'error'").fetchall()
    return [re.sub(r"(turn|step) \d+", r"\1 N", re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1", error or ""))[:200] for (error,) in rows]


def report(figures: dict[str, Figures], injected: Counter[tuple[str, str]], elapsed: float) -> None:
    columns = ("attempts", "failures", "duplicates", "differing", "guessed", "tracebacks", "refusals", "surviving_workers", "void")
    print(f"{'trial':<22}" + "".join(f"{c:>18}" for c in columns))
    for name, f in figures.items():
        print(f"{name:<22}" + "".join(f"{getattr(f, c):>18}" for c in columns))
    total = sum(injected.values())
    by_role = Counter[str]()
    for (role, _), count in injected.items():
        by_role[role] += count
    print(f"\nfaults injected: {total} ({', '.join(f'{r} {c}' for r, c in sorted(by_role.items()))})")
    for role in sorted(by_role):
        print(f"  {role:<6} " + ", ".join(f"{kind}: {injected[(role, kind)]}" for kind in FAULT_KINDS))
    notes = [note for f in figures.values() for note in f.notes]
    if notes:
        print(f"\n{len(notes)} note(s):")
        for note in notes[:40]:
            print(f"  {note}")
    print(f"\nelapsed: {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="A short version: one kill trial of each kind and 30 faults.")
    parser.add_argument("--kill-trials", type=int, default=24)
    parser.add_argument("--faults", type=int, default=300, help="Keep running fault sweeps until this many faults were injected.")
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--fault-runs", type=int, default=8, help="Runs per fault sweep.")
    parser.add_argument("--ray", action="store_true", help="Also kill Ray sweeps' drivers (needs ray: pip install 'pbench[distributed]').")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=1800, help="Seconds after which no new trial starts.")
    args = parser.parse_args()
    if args.quick:
        args.faults, args.fault_runs = 30, 4
    started = time.monotonic()
    deadline = started + args.time_limit
    rng = random.Random(args.seed)
    kinds = (*KILL_KINDS, RAY_KIND) if args.ray else KILL_KINDS
    if args.quick:
        args.kill_trials = len(kinds)
    figures = {kind: Figures() for kind in (*kinds, "injected faults")}
    with tempfile.TemporaryDirectory(prefix="pbench-chaos-") as tmp:
        root = Path(tmp)
        expected = {"episode": baseline(EPISODE, root / "base-episode.db"), "sweep": baseline(SWEEP, root / "base-sweep.db")}
        for n in range(args.kill_trials):
            if time.monotonic() >= deadline:
                break
            kind = kinds[n % len(kinds)]
            figures[kind].attempts += 1
            if kind == "lease taken over":
                takeover_trial(n, root, rng, expected, figures[kind])
            else:
                kill_trial(kind, n, root, rng, expected, figures[kind])
        injected = fault_trials(root, args, deadline, figures["injected faults"])
    report(figures, injected, time.monotonic() - started)


if __name__ == "__main__":
    main()
