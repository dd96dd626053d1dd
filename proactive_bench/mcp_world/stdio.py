"""A session's MCP server over stdio: the MCP client started the process and talks to it on stdin/stdout.

The SDK's stdio transport reads stdin a line at a time, however long the line: a client writing without a newline would
grow this process's memory until the session's end. Here stdin is read in chunks into lines of at most
``MAX_MESSAGE_BYTES`` (as over HTTP); a longer line is dropped as it arrives, never held whole, and answered with a
JSON-RPC error without an id (its request's id is in the dropped bytes). The chunks are read on a daemon thread of
their own, one when asked: a read blocked on a client that says nothing does not keep the process from ending at
Ctrl-C (the SDK's reads, on anyio's worker threads, did: the interpreter waited for them at exit).
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress

from mcp import types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from proactive_bench.env import ToolBox
from proactive_bench.logs import get_logger
from proactive_bench.mcp_world.tools import MAX_MESSAGE_BYTES, ToolCalls, tool_server

log = get_logger(__name__)

READ_CHUNK = 64 << 10
"""Bytes asked of stdin per read."""


class BoundedLines:
    """The lines of a file descriptor as text (each with its newline), for the SDK's stdio transport: a line longer than
    ``max_bytes`` is dropped chunk by chunk as it arrives and reported to ``on_over`` with its length, so at most
    ``max_bytes`` plus a chunk is ever held."""

    def __init__(self, fd: int, max_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self.on_over: Callable[[int], Awaitable[None]] | None = None
        """Told the length of every line dropped (None: only logged)."""
        self.held = bytearray()
        self.dropped = 0
        """Bytes of the current line dropped so far (0: the line is kept)."""
        self.ended = False
        self.asks: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[bytes]]] = queue.SimpleQueue()
        """Reads asked of the reading thread (started at the first): each answered with one chunk, b"" at the end."""
        self.reader: threading.Thread | None = None

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            newline = self.held.find(b"\n")
            if newline >= 0:
                line, length = bytes(self.held[: newline + 1]), self.dropped + newline
                del self.held[: newline + 1]
                self.dropped = 0
                if length > self.max_bytes:
                    await self._over(length)
                    continue
                return line.decode("utf-8", errors="replace")
            if self.dropped or len(self.held) > self.max_bytes:
                self.dropped += len(self.held)
                self.held.clear()
            if self.ended:
                if self.dropped:
                    length, self.dropped = self.dropped, 0
                    await self._over(length)
                if not self.held:
                    raise StopAsyncIteration
                line = bytes(self.held)
                self.held.clear()
                return line.decode("utf-8", errors="replace")
            chunk = await self._chunk()
            self.ended = not chunk
            self.held += chunk

    async def _chunk(self) -> bytes:
        """The next chunk of the descriptor (b"": its end), read on the reading thread."""
        if self.reader is None:
            self.reader = threading.Thread(target=self._read, name="pbench-mcp-stdin", daemon=True)
            self.reader.start()
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[bytes] = loop.create_future()
        self.asks.put((loop, answer))
        return await answer

    def _read(self) -> None:
        """The reading thread: one chunk per ask, until the end of the input (or an error reading it, taken as its end)."""
        while True:
            loop, answer = self.asks.get()
            try:
                chunk = os.read(self.fd, READ_CHUNK)
            except OSError:
                chunk = b""
            with suppress(RuntimeError):  # the loop closed meanwhile: the server has ended
                loop.call_soon_threadsafe(_answer, answer, chunk)
            if not chunk:
                return

    async def _over(self, length: int) -> None:
        log.warning("mcp_stdio_message_over_cap", bytes=length, cap=self.max_bytes)
        if self.on_over is not None:
            await self.on_over(length)


def _answer(answer: asyncio.Future[bytes], chunk: bytes) -> None:
    if not answer.done():  # not cancelled: the server stopping while it waited
        answer.set_result(chunk)


def over_cap_error(length: int, cap: int) -> SessionMessage:
    """The answer to a line over the cap: an invalid request (JSON-RPC -32600) with no id."""
    error = types.ErrorData(code=types.INVALID_REQUEST, message=f"message of {length} bytes dropped: over the {cap}-byte limit")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


@contextmanager
def claimed_stdin() -> Iterator[int]:
    """A private descriptor of this process's stdin, with fd 0 pointed at the null device meanwhile (tools and their
    children read end of file, never the client's messages); fd 0 is the wire again at exit. The private descriptor is
    left open: the reading thread may still block on it at exit, and a closed number could be reused under it."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield wire
    finally:
        os.dup2(wire, 0)


async def serve_stdio(toolbox: ToolBox, name: str = "pbench") -> None:
    """Serve the toolbox's tools on this process's stdin and stdout until the client closes stdin.

    Nothing else may write to stdout meanwhile (pbench logs go to stderr). Tool calls run on this event loop.
    """
    server = tool_server(ToolCalls(toolbox), name)
    with claimed_stdin() as wire:
        lines = BoundedLines(wire)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]  # lines are all it iterates
            lines.on_over = lambda length: write_stream.send(over_cap_error(length, lines.max_bytes))
            await server.run(read_stream, write_stream, server.create_initialization_options())
