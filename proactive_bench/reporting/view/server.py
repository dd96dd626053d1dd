"""Serving the viewer: a socket bound first (so a taken port is a one-line error and port 0 gets a free one), then uvicorn on it,
in the foreground (``pbench view``) or in a thread of its own (tests, scripts)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Self

import uvicorn
from starlette.applications import Starlette

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 10.0


class ViewServerError(RuntimeError):
    """The viewer cannot listen where it was asked to; the message is one line."""


class ViewServer:
    """The viewer's app on ``host:port`` (``port`` 0: a free one, known once bound); ``serve`` blocks, ``start``/``stop`` use a thread."""

    def __init__(self, app: Starlette, host: str = LOOPBACK, port: int = 0) -> None:
        self.host = host
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self.socket = socket.create_server((host, port), family=family)
        except OSError as exc:
            raise ViewServerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self.port: int = self.socket.getsockname()[1]
        config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def serve(self) -> None:
        """Serve in this thread until interrupted (Ctrl-C)."""
        self._server.run(sockets=[self.socket])

    def start(self) -> Self:
        """Serve in a daemon thread; return once it answers."""
        self._thread = threading.Thread(target=self.serve, name="pbench-view", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        if not self._server.started:
            self.stop()
            raise ViewServerError(f"the viewer did not start on {self.url}")
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread (open connections get a second to finish)."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=START_TIMEOUT_S)
        self.socket.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.stop()
