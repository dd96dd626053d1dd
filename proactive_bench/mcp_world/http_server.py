"""A session's MCP server over streamable HTTP: 127.0.0.1 only, a bearer token of its own, in a thread of its own.

:class:`McpWorld` is what the runner (or a test, or ``pbench mcp``) starts for one session: ``with McpWorld(toolbox) as
world:`` serves the toolbox at ``world.url`` until the block ends; a client sends ``Authorization: Bearer
<world.token>`` with every request (anything else gets 401). The server (uvicorn) runs on its own event loop in a
daemon thread; tool calls run on the loop that started the world (see :class:`~proactive_bench.mcp_world.tools.ToolCalls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from types import TracebackType
from typing import Any, Self

import uvicorn

from proactive_bench.env import ToolBox
from proactive_bench.logs import get_logger
from proactive_bench.mcp_world.tools import MAX_MESSAGE_BYTES, ToolCalls, tool_server

log = get_logger(__name__)

LOOPBACK = "127.0.0.1"
"""The only interface a world listens on."""
MCP_PATH = "/mcp"
START_TIMEOUT_S = 10.0
TICK_S = 0.1
"""uvicorn's tick: how often a running server refreshes its Date header."""
DRAIN_POLL_S = 0.002
"""How often a stopping server looks whether its connections and requests are done (uvicorn pauses 0.1 s first, then
looks every 0.1 s: a world stops once per session, and the session waits for it)."""
GRACE_S = 1.0
"""How long a stopping server lets a request still running finish before it is cancelled."""
MAX_CLIENT_SESSIONS = 32
"""MCP sessions a world keeps open at once (the SDK's default is 10,000, about 38 KB each): an agent that opens a session
per call and never ends them gets 503 from then on, instead of growing pbench's memory by ~380 MB per session."""

MAX_REQUEST_BYTES = MAX_MESSAGE_BYTES
"""The longest request body a world reads (:data:`~proactive_bench.mcp_world.tools.MAX_MESSAGE_BYTES`). A longer one,
declared or sent, gets 413 before the SDK, which reads a body whole, sees it: an agent streaming a body without end
would grow pbench's memory until the session's end."""
MAX_OPEN_CONNECTIONS = 64
"""Connections a world serves at once; a request on one more gets 503 (uvicorn's ``limit_concurrency``). With
``MAX_REQUEST_BYTES``, this bounds what an agent's requests can hold of pbench's memory at once (64 x 16 MiB), however
many it opens; a client needs one or two (the world runs one tool call at a time)."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class WorldStartError(RuntimeError):
    """The server did not start (the port is taken, or it did not answer in time); the message says which."""


class BearerGuard:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401 and never reaches the server.

    A GET (the stream a server may open for messages of its own) gets 405, as the MCP transport allows: the world sends
    none, and a stream that never ends would hold every stop for its whole grace. A POST's body is read here, up to
    ``max_body_bytes`` (:func:`read_bounded`)."""

    def __init__(self, app: ASGIApp, token: str, max_body_bytes: int = MAX_REQUEST_BYTES) -> None:
        self.app = app
        self.expected: bytes | None = f"Bearer {token}".encode()
        self.max_body_bytes = max_body_bytes

    def revoke(self) -> None:
        """Refuse every request from now on, the token's too: its session is over (the server is stopping)."""
        self.expected = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.authorized(scope):
            challenge = [(b"www-authenticate", b'Bearer realm="pbench"')]
            await refuse(send, 401, "unauthorized: send the session's token as Authorization: Bearer <token>", challenge)
            return
        if scope["type"] == "http" and scope.get("method") == "GET":
            await refuse(send, 405, "this world opens no stream of its own: POST requests only", [(b"allow", b"POST, DELETE")])
            return
        if scope["type"] == "http" and scope.get("method") == "POST":
            bounded = await read_bounded(scope, receive, send, self.max_body_bytes)
            if bounded is None:
                return
            receive = bounded
        await self.app(scope, receive, send)

    def authorized(self, scope: Scope) -> bool:
        expected = self.expected
        given = [value for name, value in scope["headers"] if name == b"authorization"]
        return expected is not None and len(given) == 1 and hmac.compare_digest(given[0], expected)


async def read_bounded(scope: Scope, receive: Receive, send: Send, max_bytes: int) -> Receive | None:
    """Read a request's body, at most ``max_bytes`` of it; the ``receive`` that hands it on in one message, or None when
    the body is longer (answered 413, the rest unread, the connection closed) or the client left before sending it all."""

    async def too_long() -> None:
        await refuse(send, 413, f"request body over {max_bytes} bytes", [(b"connection", b"close")])

    declared = next((value for name, value in scope["headers"] if name == b"content-length"), b"")
    if declared.isdigit() and int(declared) > max_bytes:
        await too_long()
        return None
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            await too_long()
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    body, handed = b"".join(chunks), False

    async def replay() -> MutableMapping[str, Any]:
        nonlocal handed
        if handed:  # what the server sends after the body (a disconnect)
            return await receive()
        handed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


class _UvicornNotes(logging.Filter):
    """uvicorn's notes as pbench's structured warnings: a request the stop cancelled past its grace (uvicorn logs a
    traceback), and one refused past ``MAX_OPEN_CONNECTIONS``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            log.warning("mcp_request_cancelled_at_stop", grace_s=GRACE_S)
            return False
        if record.getMessage() == "Exceeded concurrency limit.":
            log.warning("mcp_connections_over_cap", cap=MAX_OPEN_CONNECTIONS)
            return False
        return True


logging.getLogger("uvicorn.error").addFilter(_UvicornNotes())


async def refuse(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]]) -> None:
    """Answer a request with ``status`` and ``{"error": message}`` without passing it on."""
    body = json.dumps({"error": message}).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


class _Once:
    """A one-time signal from the server's thread: waited for in a thread (:meth:`wait`) or awaited on an event loop
    (:meth:`wait_async`, which leaves the loop free meanwhile)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def set(self) -> None:
        with self._lock:
            self._event.set()
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop closed meanwhile: nobody waits any more
                loop.call_soon_threadsafe(_settle, future)

    def wait(self, timeout: float) -> bool:
        return self._event.wait(timeout)

    async def wait_async(self, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._event.is_set():
                return True
            self._waiters.append((loop, future))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(future, timeout)
        return self._event.is_set()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Server(uvicorn.Server):
    """uvicorn's server, which says when it listens, woken by :meth:`wake` as soon as it should exit rather than at its
    next tick (0.1 s apart): a world stops once per session, and the session waits for it."""

    _woken: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    def __init__(self, config: uvicorn.Config, listening: _Once) -> None:
        super().__init__(config)
        self.listening = listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.listening.set()

    async def main_loop(self) -> None:
        self._loop, self._woken = asyncio.get_running_loop(), asyncio.Event()
        ticks = 0
        while not await self.on_tick(ticks):  # each tick refreshes the Date header and reads should_exit
            ticks = (ticks + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), TICK_S)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop as uvicorn does (stop listening, close idle connections, let requests in flight finish for ``GRACE_S``
        at most, then cancel them, then the app's lifespan ends) without its fixed 0.1 s pause and 0.1 s polls."""
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GRACE_S
        while (self.server_state.connections or self.server_state.tasks) and loop.time() < deadline:
            await asyncio.sleep(DRAIN_POLL_S)
        for task in self.server_state.tasks:
            task.cancel(msg="the MCP world stopped")
        for connection in list(self.server_state.connections):  # past the grace: whatever is still open is dropped
            connection.shutdown()
        await self.lifespan.shutdown()

    def wake(self) -> None:
        """Exit now (``should_exit`` already set): from any thread."""
        loop, woken = self._loop, self._woken
        if loop is not None and woken is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server has exited
                loop.call_soon_threadsafe(woken.set)


class McpWorld:
    """One session's tools over MCP streamable HTTP on 127.0.0.1, with a per-world bearer token.

    ``port``: 0 picks a free one. ``loop``: where tool calls run; None: the loop running where the world is started
    (the runner's), or, started outside any loop, the server's own. The server is built and run in a thread of its
    own. On an event loop use :meth:`astart` and :meth:`astop` (or ``async with``): they await the server's thread,
    leaving the loop free for other sessions; :meth:`start` and :meth:`stop` (or ``with``) block the calling thread
    until the server listens (tens of milliseconds) and until it has stopped (milliseconds when no request is running). Usable once.
    """

    def __init__(self, toolbox: ToolBox, *, port: int = 0, loop: asyncio.AbstractEventLoop | None = None, name: str = "pbench") -> None:
        self.toolbox = toolbox
        self.token = secrets.token_urlsafe(32)
        self._port, self._loop, self._name = port, loop, name
        self._server: _Server | None = None
        self._guard: BearerGuard | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self._listening, self._ended = _Once(), _Once()
        self._lock = threading.Lock()
        self._stopping = False

    @property
    def port(self) -> int:
        if self._server is None or not self._server.servers:
            raise RuntimeError("the MCP world is not running")
        return int(self._server.servers[0].sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """The MCP endpoint, ``http://127.0.0.1:<port>/mcp``."""
        return f"http://{LOOPBACK}:{self.port}{MCP_PATH}"

    @property
    def headers(self) -> dict[str, str]:
        """The header a client sends with every request."""
        return {"Authorization": f"Bearer {self.token}"}

    def start(self) -> Self:
        """Listen on 127.0.0.1 in a thread of its own, blocking until it does; WorldStartError when it cannot."""
        self._launch(self._loop or _running_loop())
        if not self._listening.wait(START_TIMEOUT_S):
            self.stop()
        return self._started()

    async def astart(self) -> Self:
        """:meth:`start` awaited: the running loop stays free while the server starts (and its tool calls run on it)."""
        self._launch(self._loop or asyncio.get_running_loop())
        if not await self._listening.wait_async(START_TIMEOUT_S):
            await self.astop()
        return self._started()

    def stop(self) -> None:
        """Stop serving and wait for the server's thread (open connections get a second to finish)."""
        self._request_stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=START_TIMEOUT_S)

    async def astop(self) -> None:
        """:meth:`stop` awaited: the running loop stays free while the server shuts down."""
        self._request_stop()
        if self._thread is not None:
            await self._ended.wait_async(START_TIMEOUT_S)

    def _launch(self, loop: asyncio.AbstractEventLoop | None) -> None:
        if self._thread is not None:
            raise RuntimeError("an MCP world starts once")
        self._thread = threading.Thread(target=self._serve, args=(loop,), name=f"mcp-world-{self._name}", daemon=True)
        self._thread.start()

    def _started(self) -> Self:
        server = self._server
        if server is None or not server.started or self._stopping:
            self._request_stop()
            reason = f": {self._failure}" if self._failure is not None else " (is the port taken?)"
            raise WorldStartError(f"the MCP server did not start on {LOOPBACK}:{self._port}{reason}")
        log.info("mcp_world_started", url=self.url, tools=len(self.toolbox.specs))
        return self

    def _serve(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """The server's thread: build the server (the SDK's app over the toolbox's calls) and run it until stopped."""
        try:
            app = tool_server(ToolCalls(self.toolbox, loop), self._name).streamable_http_app(
                streamable_http_path=MCP_PATH, json_response=True, host=LOOPBACK, max_sessions=MAX_CLIENT_SESSIONS
            )
            self._guard = BearerGuard(app, self.token, MAX_REQUEST_BYTES)
            config = uvicorn.Config(
                self._guard,
                host=LOOPBACK,
                port=self._port,
                log_config=None,
                log_level="warning",
                access_log=False,
                lifespan="on",
                limit_concurrency=MAX_OPEN_CONNECTIONS,
            )
            server = _Server(config, self._listening)
            with self._lock:
                if self._stopping:  # stopped before it started
                    return
                self._server = server
            server.run()  # on uvloop where it is installed (uvicorn's loop="auto")
        except BaseException as exc:
            self._failure = exc
            log.warning("mcp_world_failed", error=repr(exc))
        finally:
            self._listening.set()
            self._ended.set()

    def _request_stop(self) -> None:
        with self._lock:
            self._stopping, server, guard = True, self._server, self._guard
        if guard is not None:  # from the moment the session ends, its token opens nothing
            guard.revoke()
        if server is not None:
            server.should_exit = True
            server.wake()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return await self.astart()

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        await self.astop()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
