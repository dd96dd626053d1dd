"""What a tool call costs over MCP on loopback (target: at most 5 ms median), against the same call in process.

One pharmacist session's world (``episode.session_toolbox``); the calls are ``read_file`` of the session's protocol
(about 2 KB) and ``list_dir`` of the workspace root, each ``--calls`` times, through the official MCP client SDK:

- in process: ``await toolbox.acall(...)``, the floor;
- http, client in this process: ``McpWorld`` started on this event loop (the runner's set-up: calls run on this loop),
  the client on the same loop, sharing the interpreter with the server's thread;
- http, client in another process: the same world, the client a second Python process (an external agent's shape:
  ``scripts/bench_mcp_client.py``, the MCP SDK without pbench);
- stdio: the client starts ``pbench mcp --transport stdio`` and talks to it on its stdin and stdout.

Prints the median and the 90th percentile of each, in milliseconds, the server's and the client's CPU time per call
over http, and what starting and stopping one world costs (once per session).

    python scripts/bench_mcp.py [--calls 300] [--data DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_mcp_client import CALLS, checked, http_client, timed
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from proactive_bench.dataset import DEFAULT_DATA_ROOT, load_episode
from proactive_bench.episode import session_toolbox
from proactive_bench.logs import configure_logging
from proactive_bench.mcp_world import McpWorld

PERSONA, SESSION = "pharmacist", "s01_vanco_auc_review"
CLIENT = Path(__file__).resolve().with_name("bench_mcp_client.py")


def client_arguments(url: str, token: str, calls: int) -> list[str]:
    """bench_mcp_client.py's command line: the URL and token after ``--``, as a token may start with "-" (1 in 64)."""
    return ["--calls", str(calls), "--", url, token]


async def bench(data: Path, calls: int, cpu_ms: dict[str, float]) -> dict[str, list[float]]:
    """Per path, milliseconds per call; ``cpu_ms`` gets the CPU milliseconds per call of the server and the client over http."""
    loaded = load_episode(data, PERSONA)
    session = next(s for s in loaded.sessions if s.id == SESSION)
    found: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        toolbox = session_toolbox(loaded, session, Path(folder) / "in-process")
        found["in process (ToolBox.acall)"] = await timed(calls, toolbox.acall)
        starts, stops = [], []
        for _ in range(5):  # what a session pays to have a world: start it, stop it (awaited, as the runner does)
            began = time.perf_counter()
            world = await McpWorld(toolbox).astart()
            started = time.perf_counter()
            await world.astop()
            starts.append((started - began) * 1000)
            stops.append((time.perf_counter() - started) * 1000)
        cpu_ms["world start (wall)"], cpu_ms["world stop (wall)"] = statistics.median(starts), statistics.median(stops)
        with McpWorld(session_toolbox(loaded, session, Path(folder) / "http")) as world:
            async with http_client(world.url, world.token) as client:
                found["http, client in this process"] = await timed(calls, lambda name, args: checked(client, name, args))
            other = await asyncio.create_subprocess_exec(
                sys.executable,
                str(CLIENT),
                *client_arguments(world.url, world.token, calls),
                stdout=subprocess.PIPE,
            )
            cpu = time.process_time()  # this process only serves meanwhile: its CPU time is the server's
            out, _ = await other.communicate()
            measured = json.loads(out)
            found["http, client in another process"] = measured["times"]
            cpu_ms["server"] = (time.process_time() - cpu) * 1000 / (calls + len(CALLS))
            cpu_ms["client (MCP SDK)"] = measured["cpu_ms"]
        server = StdioServerParameters(
            command=str(Path(sys.executable).with_name("pbench")),
            args=[
                "mcp",
                "--transport",
                "stdio",
                "--persona",
                PERSONA,
                "--session",
                SESSION,
                "--data",
                str(data),
                "--workspace",
                str(Path(folder) / "stdio"),
            ],
            env={"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else None,  # a work tree's code, as in this process
        )
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            found["stdio (pbench mcp)"] = await timed(calls, lambda name, args: checked(client, name, args))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_ROOT)
    options = parser.parse_args()
    configure_logging()
    cpu_ms: dict[str, float] = {}
    found = asyncio.run(bench(options.data, options.calls, cpu_ms))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{PERSONA} / {SESSION}: {options.calls} calls each (read_file and list_dir, alternating); {os.cpu_count()} CPUs, load average {load}"
    )
    print(f"{'path':<34} {'median ms':>10} {'p90 ms':>8}")
    for path, times in found.items():
        print(f"{path:<34} {statistics.median(times):>10.2f} {statistics.quantiles(times, n=10)[-1]:>8.2f}")
    start, stop = cpu_ms.pop("world start (wall)"), cpu_ms.pop("world stop (wall)")
    print(
        "CPU per call over http, "
        + ", ".join(f"{who}: {ms:.2f} ms" for who, ms in cpu_ms.items())
        + " (what a loaded machine stretches into wall time)"
    )
    print(f"a world's start: {start:.1f} ms, its stop: {stop:.1f} ms (medians of 5)")


if __name__ == "__main__":
    main()
