"""Framework overhead, concurrency scaling and user-simulator latency against a slow model server.

A stub OpenAI-compatible server on 127.0.0.1 answers every request after a
fixed delay (default 300 ms). The react agent and the LLM user run on it over
the mini dataset (tests/data/mini). Printed figures, all ratios from this one run:

1. overhead: wall time of one episode / time with at least one model request in flight
   (target <= 1.05);
2. scaling: wall time of N concurrent episodes / model-waiting time of one episode
   (target <= 1 / 0.9 = 1.11, i.e. >= 90% of ideal throughput), as a sweep runs them in
   one event loop and as ``pbench sweep --workers W`` runs them (W processes);
3. user latency: mean time of a user turn's two judging stages, and of a whole turn
   ending in a reply, in model round trips (targets: one, and two plus a little).

    python scripts/bench_sweep.py [--delay 0.3] [--episodes 64] [--workers 2] [--rounds 3]

This machine's speed drifts by up to 2x within a minute (shared cores), so
the measurement is repeated; every ratio is still taken within one round, and
each round runs in a new interpreter (as a ``pbench`` command would), so that
what one round leaves in memory does not weigh on the next.
The issue sets the target for a fixed delay; ``--jitter 0.1`` runs the same
measurement with replies that vary by 10 %, as real servers' do.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from proactive_bench.campaign.process_tuning import run_fast, tune_for_runs
from proactive_bench.campaign.sweep import SweepConfig, create_sweep, run_episodes
from proactive_bench.campaign.workers import SweepWorkers
from proactive_bench.dataset.loading import load_episode
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.llm.costs import Budget, PriceTable
from proactive_bench.logs import configure_logging
from proactive_bench.store import Store
from proactive_bench.testing.stub_server import (
    StubServer,
    unremarkable_exchange,
)

MINI = Path(__file__).resolve().parent.parent / "tests" / "data" / "mini"


responder = unremarkable_exchange
"""Agent: a plain answer. User: nothing completed or asked, so intents are volunteered one by one."""


def call_intervals(store: Store, run_id: str) -> list[tuple[float, float]]:
    """(start, end) of every model call of a run, from its stored call records."""
    ends = [(call.created.timestamp(), call.latency_ms / 1000) for call in store.llm_calls(run_id)]
    return [(end - latency, end) for end, latency in ends]


def busy_time(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of intervals: time with at least one request in flight."""
    total, current_start, current_end = 0.0, None, None
    for start, end in sorted(intervals):
        if current_end is None or start > current_end:
            if current_end is not None and current_start is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None and current_start is not None:
        total += current_end - current_start
    return total


def sweep_in_processes(store: Store, base_url: str, count: int, workers: int, results: Path) -> tuple[float, str]:
    """Wall time of ``count`` episodes run as a sweep divided among ``workers`` processes, and how they were started."""
    config = SweepConfig(
        models=["openai:agent"],
        personas=["mini"],
        runs=count,
        data=MINI,
        user="llm",
        user_model="openai:user",
        base_url=base_url,
        concurrency=count,
        workers=workers,
    )
    sweep, runs = create_sweep(store, config, results)
    started = time.perf_counter()
    processes = SweepWorkers(store, sweep, runs, config, Budget(PriceTable()))
    processes.start()
    processes.follow()
    return time.perf_counter() - started, processes.method


async def episodes(store: Store, base_url: str, count: int, results: Path) -> tuple[float, list[list[tuple[float, float]]]]:
    """Wall time of ``count`` concurrent episodes in this event loop, as a sweep runs them, and each one's model-call intervals."""
    loaded = load_episode(MINI, "mini")
    spec = RunSpec(persona="mini", model="openai:agent", data_root=str(MINI), user="llm", user_model="openai:user", base_url=base_url)
    runs = [(start_run(store, loaded, spec, results), loaded) for _ in range(count)]
    config = SweepConfig(models=[spec.model], personas=[spec.persona], runs=count, base_url=base_url, concurrency=count)
    started = time.perf_counter()
    await run_episodes(store, runs, config, Budget(PriceTable()))
    return time.perf_counter() - started, [call_intervals(store, run.id) for run, _ in runs]


def user_turn_round_trips(store: Store, delay: float) -> tuple[float, float]:
    """Mean time, in model round trips, of a user turn's two judging stages, and of whole turns that end in a reply.

    Read from the stored call records: a turn's stage calls overlap in time
    (they run concurrently, either may finish first); its reply follows them.
    """
    from sqlmodel import Session, select

    from proactive_bench.store import LLMCall

    def start(call: LLMCall) -> float:
        return call.created.timestamp() - call.latency_ms / 1000

    with Session(store.engine) as db:
        calls = sorted(db.exec(select(LLMCall).where(LLMCall.role == "user")), key=start)
    turns: list[list[LLMCall]] = []
    for call in calls:
        current = turns[-1] if turns else []
        replied = any(c.purpose == "reply" for c in current)
        if call.purpose == "reply" and current and not replied:
            current.append(call)
        elif current and not replied and start(call) < max(c.created.timestamp() for c in current):
            current.append(call)  # the other, concurrent stage
        else:
            turns.append([call])

    def span(group: list[LLMCall]) -> float:
        ends = [c.created.timestamp() for c in group]
        starts = [c.created.timestamp() - c.latency_ms / 1000 for c in group]
        return (max(ends) - min(starts)) / delay

    stages = [span([c for c in turn if c.purpose != "reply"]) for turn in turns]
    replied = [span(turn) for turn in turns if any(c.purpose == "reply" for c in turn)]
    return sum(stages) / len(stages), sum(replied) / len(replied)


def serve(delay: float, jitter: float, ports: Any) -> None:
    """Run the stub server in its own process, so that it does not compete with pbench for the GIL.

    The process is forked with the bench's modules loaded: they are frozen, or
    the server's garbage collections would walk them all and stall replies.
    """
    gc.freeze()
    with StubServer(responder, delay=delay, jitter=jitter) as server:
        ports.put(server.base_url)
        threading.Event().wait()


class RemoteStub:
    """The stub server in a child process."""

    def __init__(self, delay: float, jitter: float = 0.0) -> None:
        self.ports: Any = multiprocessing.Queue()
        self.process = multiprocessing.Process(target=serve, args=(delay, jitter, self.ports), daemon=True)

    def __enter__(self) -> str:
        self.process.start()
        return str(self.ports.get(timeout=30))

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.join()


@dataclass
class Figures:
    """The ratios of one measurement."""

    overhead: float
    scaling: float
    scaling_workers: float
    stages_rt: float
    turn_rt: float


def measure(tmp: Path, base_url: str, args: argparse.Namespace, n: int) -> Figures:
    """One round of all three figures, each ratio from measurements taken in this round."""
    store = Store(tmp / f"single{n}.db")
    wall, per_run = run_fast(episodes(store, base_url, 1, tmp))
    waiting = busy_time(per_run[0])
    stages_rt, turn_rt = user_turn_round_trips(store, args.delay)
    spread_wall, method = sweep_in_processes(Store(tmp / f"spread{n}.db"), base_url, args.episodes, args.workers, tmp)
    many_wall, many_runs = run_fast(episodes(Store(tmp / f"many{n}.db"), base_url, args.episodes, tmp))
    print(
        f"round {n + 1}: one episode {wall:.2f} s wall, {waiting:.2f} s waiting on the model ({len(per_run[0])} calls);"
        f" {args.episodes} episodes: {spread_wall:.2f} s in {args.workers} {method}ed workers, {many_wall:.2f} s in one event loop"
        f" ({sum(len(r) for r in many_runs)} calls)",
        flush=True,
    )
    return Figures(wall / waiting, many_wall / waiting, spread_wall / waiting, stages_rt, turn_rt)


def round_in_fresh_process(out: Connection, tmp: Path, warm_url: str, base_url: str, args: argparse.Namespace, n: int) -> None:
    """A round in a new interpreter, as a ``pbench`` command runs: what earlier rounds left in memory cannot slow it."""
    configure_logging()
    run_fast(episodes(Store(tmp / f"warm{n}.db"), warm_url, 1, tmp))  # first use pays for imports and client set-up
    tune_for_runs()  # as the CLI does before running episodes
    out.send(measure(tmp, base_url, args, n))


def fresh_round(tmp: Path, warm_url: str, base_url: str, args: argparse.Namespace, n: int) -> Figures:
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=round_in_fresh_process, args=(send, tmp, warm_url, base_url, args, n))
    process.start()
    figures: Figures = receive.recv()
    process.join()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="Measure this many times; the best and the median are printed.")
    parser.add_argument(
        "--jitter", type=float, default=0.0, help="Vary each reply's delay by up to this fraction (the target is set for 0)."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, RemoteStub(args.delay, args.jitter) as base_url, RemoteStub(0.0) as warm:
        rounds = [fresh_round(Path(tmp), warm, base_url, args, n) for n in range(args.rounds)]

    def best_median(name: str) -> str:
        values = sorted(getattr(r, name) for r in rounds)
        return f"best {values[0]:.3f}, median {statistics.median(values):.3f}"

    print(f"model delay {1000 * args.delay:.0f} ms ± {100 * args.jitter:.0f} %; {args.rounds} round(s), each ratio from one round:")
    print(f"1. overhead (wall / waiting):                           {best_median('overhead')}   target <= 1.05")
    print(f"2. scaling, {args.episodes} concurrent episodes / single waiting, target <= 1.11:")
    print(f"   pbench sweep --workers {args.workers} (the machine's cores):      {best_median('scaling_workers')}")
    print(f"   one event loop (one process):                        {best_median('scaling')}")
    print(
        f"3. user turn, round trips: judging stages {best_median('stages_rt')} (target 1: concurrent);"
        f" with the reply {best_median('turn_rt')}   target <= 2.1"
    )


if __name__ == "__main__":
    main()
