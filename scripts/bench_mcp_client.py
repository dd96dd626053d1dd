"""The MCP client side of ``scripts/bench_mcp.py``: the timed calls, and the client in another process.

It imports the official MCP client SDK and nothing of pbench, as an external agent's client does, so the second
process starts in a fraction of the time it took when it loaded the whole benchmark (the world, the episode runner).

    python scripts/bench_mcp_client.py URL TOKEN [--calls 300]   (prints {"times": [...], "cpu_ms": ...} as JSON)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

CALLS = [("read_file", {"path": "protocols/vancomycin_auc_protocol.md"}), ("list_dir", {"path": "."})]


async def timed(calls: int, one: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> list[float]:
    """Milliseconds per call, alternating the two calls (after a few warm-up calls)."""
    for name, args in CALLS:
        await one(name, args)
    times = []
    for i in range(calls):
        name, args = CALLS[i % len(CALLS)]
        start = time.perf_counter()
        await one(name, args)
        times.append((time.perf_counter() - start) * 1000)
    return times


@asynccontextmanager
async def http_client(url: str, token: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


async def checked(client: ClientSession, name: str, args: dict[str, Any]) -> None:
    result = await client.call_tool(name, args)
    if result.is_error:
        raise SystemExit(f"{name} failed over MCP: {result.content}")


async def client_process(url: str, token: str, calls: int) -> None:
    """The second process: time the calls against ``url``; print the times and its CPU milliseconds per call as JSON."""
    async with http_client(url, token) as client:
        cpu = time.process_time()
        times = await timed(calls, lambda name, args: checked(client, name, args))
        print(json.dumps({"times": times, "cpu_ms": (time.process_time() - cpu) * 1000 / (calls + len(CALLS))}))


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``sys.argv``'s when ``argv`` is None)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("--calls", type=int, default=300)
    return parser.parse_args(argv)


def main() -> None:
    options = arguments()
    asyncio.run(client_process(options.url, options.token, options.calls))


if __name__ == "__main__":
    main()
