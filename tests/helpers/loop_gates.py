"""Proof that an event loop stayed free while a world started or stopped, without timing thresholds.

:class:`ServerGates` makes the server's lifespan ``startup`` and ``shutdown`` (uvicorn's ``LifespanOn``, which every
world's start and stop goes through, whichever way the server shuts down) wait, in the server's own thread, until a
coroutine on the test's loop has run (:meth:`ServerGates.open_when_free`). A start or stop that holds the loop lets no coroutine
run, so the server waits out ``WAIT_S`` and ``free`` records False; one that awaits the server's thread lets the
coroutine open the gate at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

import pytest
from uvicorn.lifespan.on import LifespanOn

WAIT_S = 10.0
STAGES = ("startup", "shutdown")


class ServerGates:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events = {stage: threading.Event() for stage in STAGES}
        self.free: dict[str, bool] = {}
        for stage in STAGES:
            monkeypatch.setattr(LifespanOn, stage, self._gated(stage, getattr(LifespanOn, stage)))

    def _gated(self, stage: str, original: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        async def gated(lifespan: LifespanOn) -> None:
            self.free[stage] = self.events[stage].wait(WAIT_S)  # blocks the server's thread, never the test's loop
            await original(lifespan)

        return gated

    def open_when_free(self, stage: str) -> asyncio.Task[None]:
        """A task that opens ``stage``'s gate as soon as the running loop gets to run it."""

        async def opener() -> None:
            self.events[stage].set()

        return asyncio.create_task(opener())
