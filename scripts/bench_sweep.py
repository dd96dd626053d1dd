"""Framework overhead, concurrency scaling and user-simulator latency against a slow model server.

A stub OpenAI-compatible server on 127.0.0.1 answers every request after a
fixed delay (default 300 ms). The react agent and the LLM user run on it over
the mini dataset (tests/data/mini). Printed figures, all ratios from this one run:

1. overhead: wall time of one episode / time with at least one model request in flight
   (target <= 1.05);
2. scaling: wall time of N concurrent episodes / model-waiting time of one episode
   (target <= 1 / 0.9 = 1.11, i.e. >= 90% of ideal throughput), in one event loop and
   as ``pbench sweep --workers W`` runs them (W processes);
3. user latency: mean time of a user turn (two concurrent judging stages + the reply)
   in model round trips (target <= 2 + a little: the two stages cost one round trip).

    python scripts/bench_sweep.py [--delay 0.3] [--episodes 64] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from proactive_bench.costs import Budget, PriceTable
from proactive_bench.launch import RunSpec, execute_run, start_run
from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.loading import load_episode
from proactive_bench.logs import configure_logging
from proactive_bench.process_tuning import run_fast, tune_for_runs
from proactive_bench.runner import CallLedger
from proactive_bench.store import Store
from proactive_bench.stub_server import (
    StubServer,
    prompt_text,
    structured_reply,
    text_reply,
)
from proactive_bench.sweep import SweepConfig, create_sweep
from proactive_bench.sweep_workers import SweepWorkers

MINI = Path(__file__).resolve().parent.parent / "tests" / "data" / "mini"


def responder(body: dict[str, Any]) -> Any:
    """Agent: a plain answer. User: nothing completed or asked, so intents are volunteered one by one."""
    prompt = prompt_text(body)
    ids = re.findall(r"^- ([\w.-]+): ", prompt.split("## Open requirements", 1)[-1].split("\n## ", 1)[0], re.M)
    if "already satisfied" in prompt:
        return structured_reply(body, {"findings": [{"intent_id": i, "completed": False, "evidence": ""} for i in ids]})
    if "asks a question that targets" in prompt:
        return structured_reply(body, {"findings": [{"intent_id": i, "targeted": False, "question": ""} for i in ids], "relevance_order": ids})
    if "role-playing the user" in prompt:
        return text_reply("Please also take care of that.")
    return text_reply("Done.")


class TimedLedger(CallLedger):
    """A ledger that also keeps (start, end) of every model call."""

    def __init__(self, store: Store, run_id: str, intervals: list[tuple[float, float]], user_turns: list[float]) -> None:
        super().__init__(store, run_id, Budget(PriceTable()))
        self.intervals = intervals
        self.user_turns = user_turns

    def __call__(self, record: LLMCallRecord) -> None:
        end = time.perf_counter()
        self.intervals.append((end - record.latency_ms / 1000, end))
        super().__call__(record)


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
        models=["openai:agent"], personas=["mini"], runs=count, data=MINI, user="llm", user_model="openai:user",
        base_url=base_url, concurrency=count, workers=workers,
    )
    sweep, runs = create_sweep(store, config, results)
    started = time.perf_counter()
    processes = SweepWorkers(store, sweep, runs, config, Budget(PriceTable()))
    processes.start()
    processes.follow()
    return time.perf_counter() - started, processes.method


async def episodes(store: Store, base_url: str, count: int, results: Path) -> tuple[float, list[list[tuple[float, float]]], list[tuple[float, float]]]:
    loaded = load_episode(MINI, "mini")
    spec = RunSpec(persona="mini", model="openai:agent", data_root=str(MINI), user="llm", user_model="openai:user", base_url=base_url)
    runs = [start_run(store, loaded, spec, results) for _ in range(count)]
    per_run: list[list[tuple[float, float]]] = [[] for _ in runs]
    user_turns: list[tuple[float, float]] = []
    started = time.perf_counter()
    await asyncio.gather(*(execute_run(store, run, loaded, TimedLedger(store, run.id, per_run[n], [])) for n, run in enumerate(runs)))
    return time.perf_counter() - started, per_run, user_turns


def user_turn_round_trips(store: Store, delay: float) -> float:
    """Mean user-turn time in round trips, from the stored call records (stage calls overlap)."""
    from sqlmodel import Session, select

    from proactive_bench.store import LLMCall

    with Session(store.engine) as db:
        calls = list(db.exec(select(LLMCall).where(LLMCall.role == "user").order_by(LLMCall.id)))
    turns: dict[tuple[int | None, int], list[LLMCall]] = {}
    turn = 0
    for call in calls:
        if call.purpose == "completion_stage":
            turn += 1
        turns.setdefault((call.session_run_id, turn), []).append(call)
    spans = []
    for group in turns.values():
        ends = [c.created.timestamp() for c in group]
        starts = [c.created.timestamp() - c.latency_ms / 1000 for c in group]
        spans.append(max(ends) - min(starts))
    return sum(spans) / len(spans) / delay if spans else float("nan")


def serve(delay: float, ports: Any) -> None:
    """Run the stub server in its own process, so its threads do not compete with pbench for the GIL."""
    with StubServer(responder, delay=delay) as server:
        ports.put(server.base_url)
        threading.Event().wait()


class RemoteStub:
    """The stub server in a child process."""

    def __init__(self, delay: float) -> None:
        self.ports: Any = multiprocessing.Queue()
        self.process = multiprocessing.Process(target=serve, args=(delay, self.ports), daemon=True)

    def __enter__(self) -> str:
        self.process.start()
        return str(self.ports.get(timeout=30))

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    configure_logging()
    with tempfile.TemporaryDirectory() as tmp, RemoteStub(args.delay) as base_url:
        with RemoteStub(0.0) as warm:  # first use pays for imports and client set-up
            run_fast(episodes(Store(Path(tmp) / "warm.db"), warm, 1, Path(tmp)))
        tune_for_runs()  # as the CLI does before running episodes
        store = Store(Path(tmp) / "single.db")
        wall, per_run, _ = run_fast(episodes(store, base_url, 1, Path(tmp)))
        waiting = busy_time(per_run[0])
        user_rt = user_turn_round_trips(store, args.delay)
        many_store = Store(Path(tmp) / "many.db")
        many_wall, many_runs, _ = run_fast(episodes(many_store, base_url, args.episodes, Path(tmp)))
        spread_wall, method = sweep_in_processes(Store(Path(tmp) / "spread.db"), base_url, args.episodes, args.workers, Path(tmp))
    print(f"model delay: {1000 * args.delay:.0f} ms; one episode: {wall:.2f} s wall, {waiting:.2f} s waiting on the model, {len(per_run[0])} calls")
    print(f"1. overhead (wall / waiting):                      {wall / waiting:.3f}   target <= 1.05")
    print(f"2. scaling, {args.episodes} concurrent episodes: {many_wall:.2f} s wall; wall / single waiting = {many_wall / waiting:.3f}   target <= 1.11"
          f" ({100 * waiting / many_wall:.0f}% of ideal throughput); calls: {sum(len(r) for r in many_runs)}")
    print(f"   the same as a sweep in {args.workers} worker processes ({method}ed): {spread_wall:.2f} s wall; wall / single waiting = {spread_wall / waiting:.3f}"
          f" ({100 * waiting / spread_wall:.0f}% of ideal throughput)")
    print(f"3. user turn (two concurrent stages + reply):      {user_rt:.2f} round trips   target <= 2.1")


if __name__ == "__main__":
    main()
