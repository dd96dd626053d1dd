"""Proof that an event loop stayed free while a world started or stopped, without timing thresholds.

:class:`ServerGates` makes uvicorn's ``startup`` and ``shutdown`` wait, in the server's own thread, until a coroutine
on the test's loop has run (:meth:`ServerGates.open_when_free`). A start or stop that holds the loop lets no coroutine
run, so the server waits out ``WAIT_S`` and ``free`` records False; one that awaits the server's thread lets the
coroutine open the gate at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import uvicorn

WAIT_S = 10.0
STAGES = ("startup", "shutdown")


class ServerGates:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events = {stage: threading.Event() for stage in STAGES}
        self.free: dict[str, bool] = {}
        for stage in STAGES:
            monkeypatch.setattr(uvicorn.Server, stage, self._gated(stage, getattr(uvicorn.Server, stage)))

    def _gated(self, stage: str, original: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        async def gated(server: uvicorn.Server, sockets: Any = None) -> None:
            self.free[stage] = self.events[stage].wait(WAIT_S)  # blocks the server's thread, never the test's loop
            await original(server, sockets)

        return gated

    def open_when_free(self, stage: str) -> asyncio.Task[None]:
        """A task that opens ``stage``'s gate as soon as the running loop gets to run it."""

        async def opener() -> None:
            self.events[stage].set()

        return asyncio.create_task(opener())
