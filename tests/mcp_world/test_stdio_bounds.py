"""``pbench mcp --transport stdio`` reads its client's lines up to the cap: a longer line is dropped as it arrives (never
held whole) and answered with a JSON-RPC error without an id; the lines around it are served as before."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import tracemalloc
from pathlib import Path
from typing import Any

from proactive_bench.mcp_world.stdio import BoundedLines
from proactive_bench.mcp_world.tools import MAX_MESSAGE_BYTES
from tests.helpers.paths import REPO

PBENCH = Path(sys.executable).with_name("pbench")
SESSION = "s01_vanco_auc_review"


def fed(*parts: bytes) -> int:
    """The read end of a pipe that a thread writes ``parts`` into, then closes."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "wb") as pipe:
            for part in parts:
                pipe.write(part)

    threading.Thread(target=write, daemon=True).start()
    return read_end


async def test_a_line_over_the_cap_is_dropped_as_it_streams_and_reported_with_its_length() -> None:
    """8 MiB without a newline against a 1 KiB cap: reported once with its full length, at most a cap and a read's chunk
    held meanwhile; the lines before and after it, and a last one without a newline, come through whole."""
    long, over = 8 << 20, []

    async def on_over(length: int) -> None:
        over.append(length)

    async def read_all(*parts: bytes) -> list[str]:
        read_end = fed(*parts)
        lines = BoundedLines(read_end, max_bytes=1024)
        lines.on_over = on_over
        try:
            return [line async for line in lines]
        finally:
            os.close(read_end)

    assert await read_all(b"w" * 2000 + b"\n") == []  # first use: what it imports is not counted below
    parts = (b'{"a": 1}\n', b"x" * (long // 2), b"x" * (long // 2) + b"\n", b'{"b": 2}\n', b"last")
    tracemalloc.start()
    try:
        got = await read_all(*parts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == ['{"a": 1}\n', '{"b": 2}\n', "last"]
    assert over == [2000, long]
    assert peak < 1 << 20, peak


async def test_a_line_at_the_cap_is_kept_and_one_byte_more_is_dropped() -> None:
    read_end = fed(b"y" * 100 + b"\n", b"z" * 101 + b"\n", b"w" * 200)
    lines, over = BoundedLines(read_end, max_bytes=100), []

    async def on_over(length: int) -> None:
        over.append(length)

    lines.on_over = on_over
    try:
        got = [line async for line in lines]
    finally:
        os.close(read_end)
    assert got == ["y" * 100 + "\n"] and over == [101, 200]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stdio-test", "version": "1"}},
}


def message(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode() + b"\n"


async def served_over_stdio(tmp_path: Path) -> asyncio.subprocess.Process:
    """``pbench mcp --transport stdio`` on the pharmacist's first session, its three streams piped."""
    return await asyncio.create_subprocess_exec(
        str(PBENCH),
        *("mcp", "--transport", "stdio", "--persona", "pharmacist", "--session", SESSION, "--workspace", str(tmp_path / "ws")),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=tmp_path,
        limit=1 << 20,
    )


async def test_pbench_mcp_over_stdio_answers_a_message_over_the_cap_and_serves_the_next(tmp_path: Path) -> None:
    """A client line one byte over MAX_MESSAGE_BYTES (the SDK alone would read it whole and drop it without a word): an
    invalid-request error with no id, and the session's next request answered as usual."""
    process = await served_over_stdio(tmp_path)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None

    async def answer() -> dict[str, Any]:
        return dict(json.loads(await asyncio.wait_for(process.stdout.readline(), 60)))  # type: ignore[union-attr]

    try:
        process.stdin.write(message(INITIALIZE))
        assert (await answer())["id"] == 1
        process.stdin.write(message({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        process.stdin.write(
            b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"pad": "' + b"p" * MAX_MESSAGE_BYTES + b'"}}\n'
        )
        await process.stdin.drain()
        refused = await answer()
        assert refused["id"] is None and refused["error"]["code"] == -32600
        assert f"over the {MAX_MESSAGE_BYTES}-byte limit" in refused["error"]["message"]
        process.stdin.write(message({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        await process.stdin.drain()
        listed = await answer()
        assert listed["id"] == 3 and any(tool["name"] == "write_file" for tool in listed["result"]["tools"])
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), 60) == 0
        errors = (await process.stderr.read()).decode()
        assert "mcp_stdio_message_over_cap" in errors and "Traceback" not in errors
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_pbench_mcp_over_stdio_ends_at_ctrl_c_while_its_client_keeps_stdin_open(tmp_path: Path) -> None:
    """Ctrl-C while the client says nothing and keeps stdin open: the report and a prompt exit (a read blocked on stdin
    in a worker thread the interpreter waits for kept the process alive until the client went)."""
    process = await served_over_stdio(tmp_path)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    try:
        process.stdin.write(message(INITIALIZE))
        assert json.loads(await asyncio.wait_for(process.stdout.readline(), 60))["id"] == 1  # serving, its read waiting
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 20) == 0
        errors = (await process.stderr.read()).decode()
        assert "0 tool calls recorded" in errors and "Traceback" not in errors
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
