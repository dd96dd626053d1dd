"""CPU of the store's PostgreSQL path per session, client and server: saving sessions, and reading them back.

A throwaway PostgreSQL server (the bench's own, ``proactive_bench.postgres_server``) and one ``Store`` in this process
save sessions shaped like a mini session of ``bench_scale.py`` (five messages, six model calls and six recorded
answers, two grades, an intent event, five snapshots, a checkpoint and a file content; the answers go into the save's
transaction, as during a sweep), under a lease, then read each back as a sweep's summary does (its grades, intent
events, messages, gaps snapshot). Printed per session: this process's CPU and the server's (the postmaster and its
children, from /proc) for each. Then, per run (one for three sessions), a Ray runner's store work at a run's start
and end: the run's lease taken within the sweep's and the run read, its two models' stored probe read, the lease
released (``run_client_ms``, ``run_server_ms``). CPU time, not throughput: the figures hold on a shared machine, where throughput does
not. Run it once per tree, with ``PYTHONPATH`` naming the tree:

    python scripts/bench_store_cpu.py [--sessions 600]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from proactive_bench.llm import ChatTransport
from proactive_bench.llm.probe import ProbeReport, known_capabilities, store_probe
from proactive_bench.postgres_server import LocalPostgres, missing
from proactive_bench.store import Store, StoredGrade, StoredIntentEvent, StoredMessage, lease_run, pending_row
from proactive_bench.store.lease import take_lease
from proactive_bench.store.tables import Grade, IntentEvent, LLMCall, MessageRow, Run, SessionRun, Snapshot

WARM_UP = 30
"""Sessions saved before the clock starts (connections made, statements compiled and prepared)."""
KINDS = ("workspace", "memory", "apps", "burden", "apps_start")
MODELS_URL = "http://127.0.0.1:9/v1"
"""The (never called) server of the two models whose stored probe a run reads."""


def server_cpu_s(postmaster: int) -> float:
    """User and system CPU seconds of the server: the postmaster and its children (backends, writers)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(entry) == postmaster or int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def save(store: Store, run_id: str, n: int, now: datetime) -> None:
    """The ``n``-th session (one of three of its run), with its answers recorded as the session's calls would."""
    session = f"s{n % 3}"
    for call in range(6):
        answer = '{"choices": [{"message": {"role": "assistant", "content": "Done."}}]}' + " " * (n % 7)
        store.answers.add(f"{run_id}/{session}", f"req:{n}:{call}", 0, answer, fence=store.fence)
    rows = [pending_row(MessageRow, turn=t, role=("user", "assistant")[t % 2], content=f"message {t} of session {n}") for t in range(5)]
    rows += [
        pending_row(
            LLMCall,
            run_id=run_id,
            role="agent",
            purpose="respond",
            model="m",
            method="json",
            ok=True,
            attempt=1,
            latency_ms=300.5,
            created=now,
        )
        for _ in range(6)
    ]
    rows += [pending_row(Grade, item_id=f"c{g}", grader="rule", weight=1.0, score=1, rationale="ok") for g in range(2)]
    rows += [pending_row(IntentEvent, intent_id="i1", status="pending", stage="question", turn=1, evidence="e", decided_by="llm")]
    rows += [pending_row(Snapshot, kind=kind, content={"session": n, "kind": kind, "text": "y" * 200}) for kind in KINDS]
    session_run = pending_row(
        SessionRun, run_id=run_id, session_id=session, position=n % 3 + 1, status="completed", turns=3, started=now, finished=now
    )
    store.save_session(session_run, rows, {n % 3: b"manifest %d" % (n // 3)}, {f"{n:064x}": b"file content"})


async def measure(store: Store, postmaster: int, sessions: int) -> dict[str, float]:
    """Save ``sessions`` sessions (inside an event loop: answers wait for the save, as in a sweep), then read them back."""
    now = datetime.now(UTC)
    runs = [f"run{n}" for n in range(sessions // 3 + 1)]
    store.add(*[Run(id=run, persona="p", model="m", user_backend="llm", data_root="d", workspace="w", created=now) for run in runs])
    for n in range(WARM_UP):
        save(store, runs[n // 3], n, now)
    client, server = time.process_time(), server_cpu_s(postmaster)
    for n in range(WARM_UP, sessions):
        save(store, runs[n // 3], n, now)
    saved = sessions - WARM_UP
    figures = {"save_client_ms": (time.process_time() - client) / saved, "save_server_ms": (server_cpu_s(postmaster) - server) / saved}
    ids = [session_run.id for run in runs for session_run in store.session_runs(run) if session_run.id is not None]
    client, server = time.process_time(), server_cpu_s(postmaster)
    for session_run_id in ids:
        for record in (StoredGrade, StoredIntentEvent, StoredMessage):
            store.rows(record, session_run_id)
        store.snapshot(session_run_id, "gaps")
    figures |= {
        "read_client_ms": (time.process_time() - client) / len(ids),
        "read_server_ms": (server_cpu_s(postmaster) - server) / len(ids),
    }
    figures |= await run_starts(store, postmaster, runs)
    return {name: round(1000 * seconds, 3) for name, seconds in figures.items()}


async def run_starts(store: Store, postmaster: int, runs: list[str]) -> dict[str, float]:
    """Per run, a Ray runner's store work at its start and end, on the store's writing thread as the runner does it."""
    sweep = take_lease(store.engine, "bench-sweep", "bench_store_cpu")
    for model in ("agent", "user"):
        store_probe(store, ProbeReport(MODELS_URL, model))
    async with ChatTransport() as transport:

        async def start_and_end(run_id: str) -> None:
            held, _run = await store.writer.run(partial(lease_run, store, run_id, "bench_store_cpu runner", within=sweep.fence))
            for model in ("agent", "user"):
                await known_capabilities(store, transport, MODELS_URL, model, "key")
            await store.writer.run(held.release)

        warm = WARM_UP // 3
        for run_id in runs[:warm]:
            await start_and_end(run_id)
        client, server = time.process_time(), server_cpu_s(postmaster)
        for run_id in runs[warm:]:
            await start_and_end(run_id)
    sweep.release()
    timed = len(runs) - warm
    return {"run_client_ms": (time.process_time() - client) / timed, "run_server_ms": (server_cpu_s(postmaster) - server) / timed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=600, help="Sessions to save (the first 30 are not timed).")
    args = parser.parse_args()
    if args.sessions <= WARM_UP:
        parser.error(f"--sessions must be over {WARM_UP}")
    if missing():
        parser.error(str(missing()))
    with tempfile.TemporaryDirectory(prefix="pbench-store-cpu-") as folder:
        os.chmod(folder, 0o755)  # as root the server runs as postgres, who must enter it
        server = LocalPostgres(Path(folder) / "pg")
        server.start(database=None)
        try:
            store = Store(server.create_database("bench"))
            store.fence = take_lease(store.engine, "bench", "bench_store_cpu").fence
            postmaster = server.pid()
            assert postmaster is not None, "the server runs"
            print(json.dumps({"sessions": args.sessions - WARM_UP, **asyncio.run(measure(store, postmaster, args.sessions))}), flush=True)
            store.close_connections()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
