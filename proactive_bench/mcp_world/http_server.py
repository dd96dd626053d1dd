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
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from types import TracebackType
from typing import Any, Self

import structlog
import uvicorn

from proactive_bench.env import ToolBox
from proactive_bench.mcp_world.tools import ToolCalls, tool_server

log = structlog.get_logger(__name__)

LOOPBACK = "127.0.0.1"
"""The only interface a world listens on."""
MCP_PATH = "/mcp"
START_TIMEOUT_S = 10.0
TICK_S = 0.1
"""uvicorn's tick: how often a running server refreshes its Date header."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class WorldStartError(RuntimeError):
    """The server did not start (the port is taken, or it did not answer in time); the message says which."""


class BearerGuard:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401 and never reaches the server."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.authorized(scope):
            body = json.dumps({"error": "unauthorized: send the session's token as Authorization: Bearer <token>"}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="pbench"'),
                (b"content-length", str(len(body)).encode()),
            ]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def authorized(self, scope: Scope) -> bool:
        given = [value for name, value in scope["headers"] if name == b"authorization"]
        return len(given) == 1 and hmac.compare_digest(given[0], self.expected)


class _Server(uvicorn.Server):
    """uvicorn's server, woken by :meth:`wake` as soon as it should exit rather than at its next tick (0.1 s apart):
    a world stops once per session, and the session waits for it."""

    _woken: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._loop, self._woken = asyncio.get_running_loop(), asyncio.Event()
        ticks = 0
        while not await self.on_tick(ticks):  # each tick refreshes the Date header and reads should_exit
            ticks = (ticks + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), TICK_S)

    def wake(self) -> None:
        """Exit now (``should_exit`` already set): from any thread."""
        loop, woken = self._loop, self._woken
        if loop is not None and woken is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server has exited
                loop.call_soon_threadsafe(woken.set)


class McpWorld:
    """One session's tools over MCP streamable HTTP on 127.0.0.1, with a per-world bearer token.

    ``port``: 0 picks a free one. ``loop``: where tool calls run; None: the loop running where :meth:`start` is called
    (the runner's), or, started outside any loop, the server's own. ``start`` blocks until the server listens (tens of
    milliseconds); ``stop`` ends it and its thread. Usable once.
    """

    def __init__(self, toolbox: ToolBox, *, port: int = 0, loop: asyncio.AbstractEventLoop | None = None, name: str = "pbench") -> None:
        self.toolbox = toolbox
        self.token = secrets.token_urlsafe(32)
        self._port, self._loop, self._name = port, loop, name
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

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
        """Listen on 127.0.0.1 in a thread of its own; WorldStartError when the server cannot start."""
        if self._server is not None:
            raise RuntimeError("an MCP world starts once")
        calls = ToolCalls(self.toolbox, self._loop or _running_loop())
        app = tool_server(calls, self._name).streamable_http_app(streamable_http_path=MCP_PATH, json_response=True, host=LOOPBACK)
        config = uvicorn.Config(
            BearerGuard(app, self.token),
            host=LOOPBACK,
            port=self._port,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=1,
        )
        server = self._server = _Server(config)
        self._thread = threading.Thread(target=self._serve, name=f"mcp-world-{self._name}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        if not server.started:
            self.stop()
            reason = f": {self._failure}" if self._failure is not None else " (is the port taken?)"
            raise WorldStartError(f"the MCP server did not start on {LOOPBACK}:{self._port}{reason}")
        log.info("mcp_world_started", url=self.url, tools=len(self.toolbox.specs))
        return self

    def _serve(self) -> None:
        assert self._server is not None
        try:
            self._server.run()  # on uvloop where it is installed (uvicorn's loop="auto")
        except BaseException as exc:
            self._failure = exc
            log.warning("mcp_world_failed", error=repr(exc))

    def stop(self) -> None:
        """Stop serving and wait for the server's thread (open connections get a second to finish)."""
        if self._server is not None:
            self._server.should_exit = True
            self._server.wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=START_TIMEOUT_S)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.stop()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
