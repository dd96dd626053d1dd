"""What an agent's transport costs: a tool call over MCP against in process, and a session's wall time over its
model-waiting time for each transport (target: at most 1.05, as for the in-process agent).

1. **A tool call over MCP**, through the official client SDK on loopback (target: at most 5 ms median), against the
   same call through ``ToolBox.acall`` in process: ``scripts/bench_mcp.py``'s measurement, ``--calls`` calls each.
2. **Wall time over model-waiting time, per transport.** The pharmacist's first ``--sessions`` sessions with the LLM
   user on a stub model server (its own process, every reply after ``--delay`` seconds; the user judges nothing done,
   so it volunteers its intents one by one). The agent is the reference solution in each transport's form: in
   process (``scripted:reference``), and the shipped replay examples (examples/agents/) of a recording of that run,
   as ``cmd:`` (a process per session, and one per run: ``--agent-lifetime episode``), ``http:``, ``a2a:`` and a
   LangGraph graph; each makes the same tool calls, over MCP where it is external. The agent calls no model, so the waiting is the user's alone (the union of the run's stored model-call
   intervals, as scripts/bench_sweep.py reads them) and everything an agent's transport costs counts against it:
   the MCP world per session, a process per session (``cmd:``), the HTTP and A2A round trips, the tool calls.
   Each round runs every transport once; the ratios are per round, the median of the rounds is printed, with the
   overhead per session (wall minus waiting, over the sessions).

    python scripts/bench_transports.py [--calls 300] [--sessions 3] [--delay 0.3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_mcp import bench as bench_mcp_calls
from bench_sweep import RemoteStub, busy_time, call_intervals
from typer.testing import CliRunner

from proactive_bench.campaign.sweep import SweepConfig, run_episodes
from proactive_bench.cli import app
from proactive_bench.dataset import DEFAULT_DATA_ROOT, load_episode
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.llm.costs import Budget, PriceTable
from proactive_bench.logs import configure_logging
from proactive_bench.store import Store

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "agents"
PERSONA = "pharmacist"
IN_PROCESS = "in process (scripted:reference)"


def transports(recording: Path, http_url: str, a2a_url: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Per transport, the ``--agent`` name of the reference in that form and the run's settings for it."""
    command = f"cmd:{sys.executable} {EXAMPLES / 'cmd_reference.py'} {recording}"
    return {
        IN_PROCESS: ("scripted:reference", {}),
        "cmd: (a process per session)": (command, {}),
        "cmd: --agent-lifetime episode": (command, {"agent_lifetime": "episode"}),
        "http: (one service)": (f"http:{http_url}", {}),
        "a2a: (one service)": (f"a2a:{a2a_url}", {}),
        "LangGraph graph (in process)": (f"{EXAMPLES / 'langgraph_reference.py'}:agent", {}),
    }


@contextmanager
def example_service(script: str, recording: Path) -> Iterator[str]:
    """``examples/agents/SCRIPT RECORDING --port 0`` running; the URL it prints once it listens."""
    process = subprocess.Popen([sys.executable, str(EXAMPLES / script), str(recording), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


def one_run(
    store: Store, base_url: str, agent: str, sessions: list[str], results: Path, settings: dict[str, str] | None = None
) -> tuple[str, float, float]:
    """The run's id, its wall time (the run alone, as a sweep runs it) and the time its model calls were in flight."""
    loaded = load_episode(DEFAULT_DATA_ROOT, PERSONA)
    spec = RunSpec(
        persona=PERSONA,
        agent=agent,
        data_root=str(DEFAULT_DATA_ROOT),
        sessions=sessions,
        user="llm",
        user_model="openai:user",
        base_url=base_url,
        **(settings or {}),
    )
    run = start_run(store, loaded, spec, results)
    config = SweepConfig(agent=agent, personas=[PERSONA], base_url=base_url, concurrency=1)
    started = time.perf_counter()
    asyncio.run(run_episodes(store, [(run, loaded)], config, Budget(PriceTable())))
    wall = time.perf_counter() - started
    failed = [(s.session_id, s.error) for s in store.session_runs(run.id) if s.status == "error"]
    if failed:
        sys.exit(f"{agent}: sessions did not complete: {failed}")
    return run.id, wall, busy_time(call_intervals(store, run.id))


def record(db: Path, run_id: str, out: Path) -> None:
    result = CliRunner().invoke(app, ["export", run_id, "--db", str(db), "--out", str(out)])
    if result.exit_code != 0:
        sys.exit(f"export failed: {result.output}")


def tool_calls(calls: int, data: Path) -> None:
    cpu_ms: dict[str, float] = {}
    found = asyncio.run(bench_mcp_calls(data, calls, cpu_ms))
    print(f"1. a tool call ({calls} calls, read_file and list_dir alternating)   target <= 5 ms median over MCP")
    print(f"   {'path':<34} {'median ms':>10} {'p90 ms':>8}")
    for path, times in found.items():
        print(f"   {path:<34} {statistics.median(times):>10.2f} {statistics.quantiles(times, n=10)[-1]:>8.2f}")
    print(f"   a world's start and stop: {cpu_ms['world start and stop (wall)']:.0f} ms (once per session)")


def session_overhead(args: argparse.Namespace) -> None:
    sessions = [s.id for s in load_episode(DEFAULT_DATA_ROOT, PERSONA).sessions[: args.sessions]]
    with tempfile.TemporaryDirectory() as folder, RemoteStub(args.delay) as base_url:
        tmp = Path(folder)
        store = Store(tmp / "runs.db")
        reference, _, _ = one_run(store, base_url, "scripted:reference", sessions, tmp)
        recording = tmp / "reference.jsonl"
        record(tmp / "runs.db", reference, recording)
        os.environ["PBENCH_RECORDING"] = str(recording)  # the LangGraph example's recording
        figures: dict[str, list[tuple[float, float]]] = {}
        with example_service("http_reference.py", recording) as http_url, example_service("a2a_reference.py", recording) as a2a_url:
            for n in range(args.rounds):
                for name, (agent, settings) in transports(recording, http_url, a2a_url).items():
                    _, wall, waiting = one_run(store, base_url, agent, sessions, tmp, settings)
                    figures.setdefault(name, []).append((wall, waiting))
                print(f"round {n + 1}: " + ", ".join(f"{name} {w[-1][0]:.2f} s" for name, w in figures.items()), flush=True)
    print(
        f"2. wall / model-waiting per transport: {PERSONA}, {len(sessions)} sessions, LLM user on a stub answering after"
        f" {1000 * args.delay:.0f} ms; median of {args.rounds} round(s)   target <= 1.05"
    )
    print(f"   {'transport':<32} {'wall s':>7} {'waiting s':>9} {'ratio':>6} {'overhead ms/session':>20}")
    for name, rounds in figures.items():
        wall, waiting = (statistics.median(x) for x in zip(*rounds, strict=True))
        ratio = statistics.median(w / t for w, t in rounds)
        per_session = statistics.median((w - t) / len(sessions) for w, t in rounds)
        print(f"   {name:<32} {wall:>7.2f} {waiting:>9.2f} {ratio:>6.3f} {1000 * per_session:>20.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="Tool calls per path in part 1.")
    parser.add_argument("--sessions", type=int, default=3, help="The pharmacist's first N sessions in part 2.")
    parser.add_argument("--delay", type=float, default=0.3, help="Seconds the stub model server takes per reply.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_ROOT)
    args = parser.parse_args()
    configure_logging()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load}", flush=True)
    tool_calls(args.calls, args.data)
    session_overhead(args)


if __name__ == "__main__":
    main()
